/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: the dummy connection a server connection waits behind (sor_dummy.c). */
#ifndef EUSRV_SOR_DUMMY_H
#define EUSRV_SOR_DUMMY_H

#include <linux/list.h>
#include <linux/types.h>

struct net;
struct sock;
struct socket;
struct sor_conn;

/* A server connection's, from ConnRQ until ACCEPT claims it. */
struct sor_dummy {
	struct list_head link;		/* on sor_accepting until claimed */
	struct socket *sock;
	struct net *net;		/* the listener's */
	struct sock *listen_sk;		/* ... its socket, held until the dummy goes */
	__be32 addr;			/* where the dummy connects (0: loopback) */
	/* The socket's own, called from ours (sor_dummy_state_change). */
	void (*state_change)(struct sock *sk);
	bool gone;			/* claimed or retired: no dummy any more */
	bool closed;			/* its peer closed, unclaimed (c->lock) */
	u16 port;
};

void sor_dummy_start(struct sor_conn *c);
struct sor_conn *sor_dummy_claim(struct sock *sk);
void sor_dummy_unclaim(struct sor_conn *c);
bool sor_dummy_listener_live(struct sor_conn *c);
void sor_dummy_drop(struct sor_conn *c);
bool sor_dummy_withdraw(struct sor_conn *c);
void sor_dummy_orphan(u16 port);

#endif /* EUSRV_SOR_DUMMY_H */
