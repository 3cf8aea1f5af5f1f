/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: the client's set-up steps (sor_client.c). */
#ifndef EUSRV_SOR_CLIENT_H
#define EUSRV_SOR_CLIENT_H

#include "sor_conn.h"

int sor_client_give_up_locked(struct sor_conn *c, int err);
int sor_client_fail(struct sor_conn *c, int err);
bool sor_client_establish_locked(struct sor_conn *c);
int sor_client_send_addr(struct sor_conn *c);
int sor_client_rings(struct sor_conn *c, const struct sor_owner *owner);
int sor_client_start(struct sor_conn *c, const struct sor_owner *owner,
		     u16 port);

#endif /* EUSRV_SOR_CLIENT_H */
