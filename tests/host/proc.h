/*
 * Process helpers for the end-to-end tests: start the board model with
 * its log in its directory, wait for a child with a time limit, wait for
 * a file to appear, read the monotonic clock.
 */
#ifndef EUSRV_TEST_PROC_H
#define EUSRV_TEST_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t now_ms(void);

/*
 * Start BIN --dir DIR --nodes NODES --ram-size RAM --log DIR/model.log
 * (and --ram-base RAM_BASE unless NULL), its stdout and stderr in
 * DIR/model.stderr; it dies with the test.
 */
pid_t start_model(const char *bin, const char *dir, unsigned int nodes,
		  uint64_t ram, const char *ram_base);

/* Wait for PID within TIMEOUT_MS: its wait status, or -1 (then killed). */
int wait_exit(pid_t pid, int timeout_ms);

/* Wait until DIR/NAME exists. */
bool wait_file(const char *dir, const char *name, int timeout_ms);

#endif /* EUSRV_TEST_PROC_H */
