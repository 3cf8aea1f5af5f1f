/*
 * A fake ivshmem client for the end-to-end tests: connects to a node's
 * socket like QEMU's ivshmem-doorbell, receives the setup (version, id,
 * shared memory, the model's kick eventfds, its own interrupt eventfds),
 * maps BAR2, kicks and waits for interrupts.
 */
#ifndef EUSRV_TEST_IVS_CLIENT_H
#define EUSRV_TEST_IVS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/board_hw.h>

struct ivs_client {
	int sock;
	int64_t version;
	int64_t id;
	int shm_fd;
	void *shm;
	int kick_fd[EUSRV_NR_VECTORS];	/* peer EUSRV_MODEL_PEER's */
	int irq_fd[EUSRV_NR_VECTORS];	/* our own */
	char err[160];			/* why ivs_connect failed */
};

/* A client that is not connected (ivs_close does nothing). */
void ivs_client_init(struct ivs_client *c);
/* Connect and take the whole setup within TIMEOUT_MS; 0 or -1 (see err). */
int ivs_connect(struct ivs_client *c, const char *path, int timeout_ms);
void ivs_close(struct ivs_client *c);

/* Page PAGE of node NODE's window in the shared memory. */
void *ivs_page(struct ivs_client *c, unsigned int node, uint32_t page);
/* The doorbell to the model's peer id, vector VECTOR. */
void ivs_kick(struct ivs_client *c, unsigned int vector);
/* Wait for interrupt VECTOR; true if it came within TIMEOUT_MS. */
bool ivs_wait_irq(struct ivs_client *c, unsigned int vector, int timeout_ms);

/* Connect to PATH; 0 if the server then closes the connection at once. */
int ivs_expect_refused(const char *path, int timeout_ms);

#endif /* EUSRV_TEST_IVS_CLIENT_H */
