/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor listeners (sor_listen.c). */
#ifndef EUSRV_SOR_LISTEN_H
#define EUSRV_SOR_LISTEN_H

#include <linux/types.h>

#include "sor_setup.h"

/*
 * What a registration holds and a ConnRQ takes a copy of (sor_listen_match),
 * its references its own (sor_listen_match_put).
 */
struct sor_listen_match {
	struct net *net;
	struct sock *sk;		/* the listener's socket, held */
	struct sor_owner owner;		/* its connections' rings are charged to */
	__be32 addr;
	u8 snd_shift;
	u8 rcv_shift;
};

int sor_listen(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
int sor_unlisten(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
void sor_listen_ctl_gone(struct sor_ctl *ctl);
u32 sor_listen_count(void);
bool sor_listen_match(u16 port, struct sor_listen_match *m);
void sor_listen_match_put(struct sor_listen_match *m);

#endif /* EUSRV_SOR_LISTEN_H */
