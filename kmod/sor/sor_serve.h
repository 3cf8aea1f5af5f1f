/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: ConnRQ served (sor_serve.c). */
#ifndef EUSRV_SOR_SERVE_H
#define EUSRV_SOR_SERVE_H

#include <linux/types.h>

void sor_rx_connrq(unsigned int src, unsigned int client_id, u64 msg);
int sor_serve_init(void);
void sor_serve_exit(void);

/* Fault injection (sor_debugfs.c): a slow server, ms each ConnRQ waits. */
extern u32 sor_serve_delay_ms;
/* ... a hostile server: the frame its ADDR names instead of its own (0: its own). */
extern u64 sor_forge_addr;

#endif /* EUSRV_SOR_SERVE_H */
