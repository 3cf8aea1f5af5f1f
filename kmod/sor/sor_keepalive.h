/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor peer liveness (sor_keepalive.c): KEEPALIVE between nodes,
 * PROBE on a connection.
 */
#ifndef EUSRV_SOR_KEEPALIVE_H
#define EUSRV_SOR_KEEPALIVE_H

#include "sor_conn.h"

/* sor_keepalive.c */
void sor_rx_keepalive(unsigned int src, u64 msg);
void sor_rx_probe(struct sor_conn *c, unsigned int kind);
void sor_ka_heard(unsigned int node);
void sor_ka_tx_error(unsigned int node, u32 status);
u64 sor_ka_nodes_up(void);
void sor_ka_start(void);
void sor_ka_stop(void);

#endif /* EUSRV_SOR_KEEPALIVE_H */
