// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor ACCEPT: the program's accept() returned the dummy's peer;
 * the connection behind it gets its file in the caller's table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "sor_accept.h"
#include "sor_dummy.h"
#include "sor_file.h"
#include "sor_setup.h"

/* The connection of accepted socket FD, claimed; or an error. */
static struct sor_conn *sor_accept_find(int fd)
{
	struct socket *sock = sor_tcp_socket(fd);
	struct sor_conn *c = NULL;
	struct sock *sk;

	if (IS_ERR(sock))
		return ERR_CAST(sock);
	sk = sock->sk;
	lock_sock(sk);
	/* An IPv6 socket's peer is the dummy's IPv4 address, mapped. */
	if (sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE)
		c = sor_dummy_claim(sk);
	release_sock(sk);
	sockfd_put(sock);
	return c ? c : ERR_PTR(-ENOENT);
}

/* ACCEPT (docs/protocol.md section 3): the new file's descriptor, or an error. */
int sor_accept(struct sor_ctl *ctl, const struct eusrv_sor_accept *rq)
{
	struct sor_conn *c;
	unsigned long flags;
	bool live;
	int ret;

	if (rq->reserved0 || rq->reserved1 ||
	    (rq->flags & ~(EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC)))
		return -EINVAL;
	c = sor_accept_find(rq->fd);
	if (IS_ERR(c))
		return PTR_ERR(c);	/* ENOENT: a genuine local TCP client */
	live = sor_dummy_listener_live(c);

	spin_lock_irqsave(&c->lock, flags);
	/* The accepting process owns it now, not the worker that made it. */
	c->pid = task_tgid_nr(current);
	c->uid = current_euid();
	ret = 0;
	if (!live)
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	if (c->released || c->state == EUSRV_SOR_ST_RESET) {
		ret = -(c->so_error ? c->so_error : ECONNABORTED);
		c->released = true;
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!ret) {
		ret = sor_file_open(c, rq->flags);
		/*
		 * The caller's lack (no descriptor, no memory), not the
		 * connection's: as TCP's accept() leaves the connection
		 * queued, it stays claimable by the same accepted socket.
		 */
		if (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM) {
			sor_dummy_unclaim(c);
			sor_conn_put(c);
			return ret;
		}
	}
	sor_dummy_drop(c);
	if (ret < 0 && ret != -ECONNABORTED && ret != -ETIMEDOUT &&
	    ret != -ECONNRESET)
		sor_setup_abandon(c);
	sor_conn_put(c);
	return ret;
}
