/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor data path (sor_data.c): sending messages, transfers, credit,
 * ARM/DATA, FIN and the checks of the ring positions user space writes.
 */
#ifndef EUSRV_SOR_DATA_H
#define EUSRV_SOR_DATA_H

#include "sor_conn.h"

/* sor_data.c */
int sor_send_many(unsigned int node, const u64 *msgs, unsigned int n);
int sor_send(unsigned int node, u64 msg);
int sor_send_wait(unsigned int node, u64 msg, unsigned int ms);
int sor_send_wait_many(unsigned int node, const u64 *msgs, unsigned int n,
		       unsigned int ms);
int sor_conn_send(struct sor_conn *c, u64 msg, unsigned int wait_ms);
void sor_rx_credit(struct sor_conn *c, u32 head);
void sor_rx_data(struct sor_conn *c, u32 tail);
void sor_rx_sent(struct sor_conn *c, u32 head);
void sor_rx_fin(struct sor_conn *c, u32 pos);
void sor_data_xfer(struct sor_conn *c);
void sor_data_fin(struct sor_conn *c);
void sor_data_notify(struct sor_conn *c);
bool sor_data_check_tail_locked(struct sor_conn *c, u32 *tail);
bool sor_data_check_head_locked(struct sor_conn *c, u32 *head);
bool sor_data_sync_tail_locked(struct sor_conn *c);
int sor_data_push(struct sor_conn *c);
int sor_data_credit(struct sor_conn *c, bool wait);
bool sor_data_arm_at_tail_locked(struct sor_conn *c);
bool sor_data_reap_locked(struct sor_conn *c);
void sor_data_reap(struct sor_conn *c);
void sor_data_want_sent(struct sor_conn *c);
int sor_data_arm(struct sor_conn *c, bool unread_too);
bool sor_data_try_xfer_locked(struct sor_conn *c);
void sor_data_idle_locked(struct sor_conn *c);
void sor_data_after_sent_locked(struct sor_conn *c);
void sor_data_established_locked(struct sor_conn *c);

#endif /* EUSRV_SOR_DATA_H */
