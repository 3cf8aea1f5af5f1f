/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor connection set-up (docs/protocol.md section 3), what its
 * roles share (sor_setup.c): the control file, ring sizes, deadlines.
 */
#ifndef EUSRV_SOR_SETUP_H
#define EUSRV_SOR_SETUP_H

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "sor_conn.h"
#include "sor_data.h"

#define SOR_SETUP_SEND_TIMEOUT_MS	500U
#define SOR_DEF_TIMEOUT_MS		2000U
#define SOR_MAX_TIMEOUT_MS		60000U

/* A ring is at least a page, so that it maps on its own. */
#define SOR_RING_MIN_SHIFT	max_t(unsigned int, EUSRV_SOR_RING_MIN_SHIFT, PAGE_SHIFT)

/*
 * Registrations one control file may hold: each holds its socket, closed
 * or not, so without a bound one process could pin a socket per port.
 */
#define SOR_CTL_MAX_LISTENERS	1024U

/* A control file (/dev/eusrv_sor, one per process). */
struct sor_ctl {
	struct mutex mutex;		/* listeners, notes */
	struct list_head listeners;	/* struct sor_listener.ctl_link */
	unsigned int nr_listeners;	/* ... at most SOR_CTL_MAX_LISTENERS */
	struct list_head link;		/* on the list of control files */
	pid_t pid;
	kuid_t uid;			/* opener's effective uid */
	unsigned int note_next;
	unsigned int note_count;
	struct eusrv_sor_note notes[EUSRV_SOR_MAX_NOTES];
};

/* Whether a registered listener's socket SK still listens (any context). */
static inline bool sor_sk_listens(const struct sock *sk)
{
	return sk && !sock_flag(sk, SOCK_DEAD) &&
	       READ_ONCE(sk->sk_state) == TCP_LISTEN;
}

static inline unsigned int sor_shift_or_default(unsigned int shift)
{
	shift = shift ? shift : EUSRV_SOR_RING_DEF_SHIFT;
	return max_t(unsigned int, shift, SOR_RING_MIN_SHIFT);
}

static inline bool sor_shift_valid(unsigned int shift)
{
	return !shift || sor_ring_shift_ok(shift, EUSRV_SOR_RING_MIN_SHIFT,
					   EUSRV_SOR_RING_MAX_SHIFT);
}

/* A CONNECT's deadline from its TIMEOUT_MS (0: the default), in jiffies. */
static inline long sor_setup_timeout(u32 ms)
{
	return msecs_to_jiffies(ms ? ms : SOR_DEF_TIMEOUT_MS);
}

static inline int sor_setup_send(unsigned int node, u64 msg)
{
	return sor_send_wait(node, msg, SOR_SETUP_SEND_TIMEOUT_MS);
}

/* sor_setup.c */
bool sor_sk_tcp(const struct sock *sk);
struct socket *sor_tcp_socket(int fd);
void sor_setup_abandon(struct sor_conn *c);
void sor_rx_connrpl(struct sor_conn *c, unsigned int src, u64 msg);
void sor_setup_timer(struct sor_conn *c);

#endif /* EUSRV_SOR_SETUP_H */
