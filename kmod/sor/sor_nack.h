/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor teardown (sor_nack.c): the NACK handshake, its resend, the
 * last close.  Its start is the core's (sor_conn_nack_start_locked).
 */
#ifndef EUSRV_SOR_NACK_H
#define EUSRV_SOR_NACK_H

#include "sor_conn.h"

/* sor_nack.c */
void sor_rx_nack(unsigned int src, unsigned int id, u64 msg);
void sor_nack_send(struct sor_conn *c);
void sor_nack_reply(struct sor_conn *c);
void sor_nack_timer(struct sor_conn *c);
bool sor_nack_release(struct sor_conn *c);
int sor_nack_send_raw(unsigned int node, unsigned int to_id,
		      unsigned int kind, unsigned int reason,
		      unsigned int from_id);

/* Fault injection (sor_debugfs.c): NACK requests still to lose. */
extern atomic_t sor_drop_nacks;

#endif /* EUSRV_SOR_NACK_H */
