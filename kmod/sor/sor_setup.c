// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection set-up (docs/protocol.md section 3), what both
 * sides share: the caller's TCP socket, ConnRPL (ACCEPT, ADDR) on either
 * side, the set-up deadlines, and giving a promised connection up.  The
 * roles are files of their own: listeners (sor_listen.c), serving ConnRQ
 * (sor_serve.c), the dummy connection (sor_dummy.c), ACCEPT
 * (sor_accept.c), the client (sor_client.c, sor_connect.c) and its
 * background set-up with the turn to TCP (sor_fallback.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <net/sock.h>

#include <eusrv/board_hw.h>

#include "sor_data.h"
#include "sor_fallback.h"
#include "sor_nack.h"
#include "sor_retire.h"
#include "sor_setup.h"

/* Whether SK is a TCP socket over IPv4 or IPv6. */
bool sor_sk_tcp(const struct sock *sk)
{
	return sk->sk_type == SOCK_STREAM && sk->sk_protocol == IPPROTO_TCP &&
	       (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

/*
 * The caller's descriptor FD if it is a TCP socket over IPv4 or IPv6,
 * referenced (sockfd_put); else an error.
 */
struct socket *sor_tcp_socket(int fd)
{
	struct socket *sock;
	int err;

	sock = sockfd_lookup(fd, &err);
	if (!sock)
		return ERR_PTR(err);
	if (sor_sk_tcp(sock->sk))
		return sock;
	sockfd_put(sock);
	return ERR_PTR(-EINVAL);
}

/* Set-up failed after the file was promised: the connection goes, aborted. */
void sor_setup_abandon(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->released = true;
	sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	spin_unlock_irqrestore(&c->lock, flags);
}

static bool sor_rpl_accept_ok(struct sor_conn *c,
			      const struct eusrv_sor_accept_msg *a)
{
	/*
	 * Each direction is the larger wish, capped by the server's own: it
	 * may be below ours, never below a page.
	 */
	return a->server_id < EUSRV_SOR_NO_ID &&
	       sor_ring_shift_ok(a->cs_shift, SOR_RING_MIN_SHIFT,
				 EUSRV_SOR_RING_MAX_SHIFT) &&
	       sor_ring_shift_ok(a->sc_shift, SOR_RING_MIN_SHIFT,
				 EUSRV_SOR_RING_MAX_SHIFT);
}

void sor_rx_connrpl(struct sor_conn *c, unsigned int src, u64 msg)
{
	unsigned int step = eusrv_sor_rpl_step(msg);
	struct eusrv_sor_accept_msg a;
	unsigned long flags;
	u64 addr;

	spin_lock_irqsave(&c->lock, flags);
	if (step == EUSRV_SOR_RPL_ACCEPT &&
	    sor_st_accepts(c->state, c->client, c->peer_id != EUSRV_SOR_NO_ID,
			   c->have_addr, SOR_MSG_ACCEPT)) {
		eusrv_sor_accept_decode(msg, &a);
		if (!sor_rpl_accept_ok(c, &a) ||
		    (eusrv_msg_payload(msg) & GENMASK_ULL(21, 0))) {
			sor_bad("conn %u: bad ACCEPT %#llx from node %u\n",
				c->id, msg, src);
			goto out;
		}
		c->peer_id = a.server_id;
		c->snd_shift = a.cs_shift;
		c->rcv_shift = a.sc_shift;
		wake_up_all(&c->wq);
	} else if (step == EUSRV_SOR_RPL_ADDR &&
		   sor_st_accepts(c->state, c->client,
				  c->peer_id != EUSRV_SOR_NO_ID, c->have_addr,
				  SOR_MSG_ADDR)) {
		if (eusrv_msg_payload(msg) & GENMASK_ULL(31, 28)) {
			sor_bad("conn %u: bad ADDR %#llx from node %u\n",
				c->id, msg, src);
			goto out;
		}
		/* A server takes the client's ADDR only once ACCEPT went. */
		if (!c->client && !c->peer_may_write) {
			sor_bad("conn %u: ADDR %#llx from node %u before our ACCEPT\n",
				c->id, msg, src);
			goto out;
		}
		addr = eusrv_sor_addr_decode(msg);
		/*
		 * Always inside the peer's own memory (the GA names its node),
		 * and the whole block inside its RAM.
		 */
		if (addr + SOR_RCV_DATA_OFF + (1ULL << c->snd_shift) >
		    EUSRV_GA_BLOCKS) {
			sor_bad("conn %u: ADDR %#llx beyond node %u's RAM\n",
				c->id, addr, src);
			goto out;
		}
		c->peer_hdr_ga = EUSRV_GA((u64)c->peer_node, addr);
		c->have_addr = true;
		if (!c->client) {
			sor_data_established_locked(c);
			sor_conn_set_state_locked(c, EUSRV_SOR_ST_ESTABLISHED, 0);
			sor_count_opened_locked(c);
			/* Until ACCEPT claims it. */
			sor_conn_arm_locked(c, SOR_UNCLAIMED_MS);
			sor_conn_kick_locked(c, SOR_DO_DUMMY);
		}
		wake_up_all(&c->wq);
	} else {
		sor_bad("conn %u: ConnRPL %#llx from node %u unexpected in state %u\n",
			c->id, msg, src, c->state);
	}
	if (sor_fallback_pending(c->bg))
		sor_conn_kick_locked(c, SOR_DO_CONNECT);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Work item: a set-up or claim deadline passed. */
void sor_setup_timer(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (c->client && sor_fallback_pending(c->bg))
		sor_conn_kick_locked(c, SOR_DO_CONNECT);	/* the deadline */
	if (c->client || c->has_file) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;
	}
	if (c->state == EUSRV_SOR_ST_ACCEPTING) {
		/* The client's ADDR never came. */
		c->released = true;
		sor_conn_abort_locked(c, ETIMEDOUT, ETIMEDOUT);
	} else if (!c->released && c->dummy.closed) {
		spin_unlock_irqrestore(&c->lock, flags);
		/*
		 * The program closed the dummy's peer unclaimed: C closes as
		 * its close() of the socket would (FIN, or RST over data it
		 * never read), not when SOR_UNCLAIMED_MS runs out.
		 */
		if (sor_dummy_withdraw(c) && sor_nack_release(c))
			sor_retire_try(c);
		return;
	} else if (!c->released &&
		   time_after_eq(jiffies, c->born + msecs_to_jiffies(SOR_UNCLAIMED_MS))) {
		/* The program never accepted the dummy. */
		c->released = true;
		if (sor_st_open(c->state))
			sor_conn_nack_start_locked(c, ECONNABORTED);
		else
			sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}
