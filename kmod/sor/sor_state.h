/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection and NACK state machines of sockets over RDMA
 * (docs/protocol.md sections 3 and 5) as pure functions: which messages a
 * state accepts, where a NACK, a close or a timeout leads, and when a NACK
 * is resent.  The driver applies the results under the connection's lock;
 * the KUnit suite walks every transition.
 */
#ifndef EUSRV_SOR_STATE_H
#define EUSRV_SOR_STATE_H

#include <linux/errno.h>
#include <linux/types.h>

#include <uapi/eusrv/sor.h>
#include <eusrv/sor_msg.h>

/*
 * States: those of the user interface (enum eusrv_sor_state) and one of
 * the driver's own, the quarantine of a client id whose ConnRQ got no
 * answer (shown as RESET).
 */
#define SOR_ST_QUARANTINE	16U

/* Timing (docs/protocol.md section 5). */
#define SOR_NACK_RESEND_MS	200U
#define SOR_NACK_TRIES		10U	/* 10 x 200 ms: give up after 2 s */
#define SOR_FENCE_RESEND_MS	1000U	/* ... unless the peer may write our ring */
#define SOR_QUARANTINE_MS	10000U
#define SOR_SETUP_TIMEOUT_MS	2000U	/* server: client's ADDR */
#define SOR_UNCLAIMED_MS	60000U	/* server: ACCEPT never came */
/*
 * Close with data queued: given up after this long without progress, as
 * TCP's orphaned socket gives up probing a zero window (tcp_orphan_retries);
 * looked at every SOR_LINGER_CHECK_MS.  A peer that is gone is found by the
 * keepalives long before.
 */
#define SOR_LINGER_MS		120000U
#define SOR_LINGER_CHECK_MS	5000U
#define SOR_KA_PERIOD_MS	500U
#define SOR_KA_DEAD_MS		2500U	/* + one period: reset within 3 s */
/* A waiting connection silent this long asks its peer (PROBE). */
#define SOR_PROBE_MS		1000U
#define SOR_PROBE_BUDGET	32U	/* PROBEs per keepalive period */

/* Sub-kinds of CONNRPL, as one "type" for sor_st_accepts(). */
#define SOR_MSG_ACCEPT		0x10U
#define SOR_MSG_ADDR		0x11U

/* Whether a connection in STATE takes message TYPE (SOR_MSG_* for CONNRPL). */
static inline bool sor_st_accepts(unsigned int state, bool client,
				  bool have_peer_id, bool have_addr,
				  unsigned int type)
{
	switch (type) {
	case SOR_MSG_ACCEPT:
		return state == EUSRV_SOR_ST_CONNECTING && client &&
		       !have_peer_id;
	case SOR_MSG_ADDR:
		/* A client takes it after ACCEPT, a server after its own. */
		return (state == EUSRV_SOR_ST_CONNECTING && client &&
			have_peer_id && !have_addr) ||
		       (state == EUSRV_SOR_ST_ACCEPTING && !client && !have_addr);
	case EUSRV_SOR_MSG_CREDIT:
	case EUSRV_SOR_MSG_ARM:
		/* We still send to a peer that gives credit while we flush on close. */
		return state == EUSRV_SOR_ST_ESTABLISHED ||
		       state == EUSRV_SOR_ST_CLOSING;
	case EUSRV_SOR_MSG_DATA:
	case EUSRV_SOR_MSG_FIN:
		/* Data in flight when we closed still lands, and is dropped. */
		return state == EUSRV_SOR_ST_ESTABLISHED ||
		       state == EUSRV_SOR_ST_CLOSING ||
		       state == EUSRV_SOR_ST_NACK_WAIT;
	case EUSRV_SOR_MSG_SENT:
		/* Our own engine's note: whatever the state, a transfer ends. */
		return true;
	default:
		return false;
	}
}

/*
 * The peer's NACK request with REASON arrives in STATE: the new state.
 * Reason 0 is a normal close (remaining data readable, then EOF).  A
 * connection that is closing itself or waiting for its own NACK's reply
 * keeps its state: its own handshake goes on.
 */
static inline unsigned int sor_st_on_nack(unsigned int state,
					  unsigned int reason)
{
	switch (state) {
	case EUSRV_SOR_ST_CONNECTING:
	case EUSRV_SOR_ST_ACCEPTING:
		return EUSRV_SOR_ST_RESET;
	case EUSRV_SOR_ST_ESTABLISHED:
		return reason ? EUSRV_SOR_ST_RESET : EUSRV_SOR_ST_PEER_CLOSED;
	case EUSRV_SOR_ST_CLOSING:
		/* The peer will not take the rest: give up flushing. */
		return EUSRV_SOR_ST_NACK_WAIT;
	default:
		return state;
	}
}

/* The errno a NACK's reason gives the local call (0: EOF / EPIPE). */
static inline int sor_st_nack_errno(unsigned int reason)
{
	return reason ? (int)reason : 0;
}

/* What the last close of a connection file does. */
enum sor_close_action {
	SOR_CLOSE_RETIRE,	/* nothing to tell the peer: free it */
	SOR_CLOSE_FLUSH,	/* CLOSING: send what is queued, then NACK */
	SOR_CLOSE_NACK,		/* NACK_WAIT: NACK request now */
	SOR_CLOSE_WAIT,		/* our NACK's reply is awaited already */
};

/*
 * STATE at the last close; QUEUED bytes written and not yet received by
 * the peer, UNREAD bytes arrived and not read; NACK_PENDING when our own
 * NACK request awaits its reply.  Unread data, or RESET (the program set
 * SO_LINGER {1, 0}), makes the close an abort that drops what is queued
 * (ECONNRESET at the peer, as TCP's RST), see *REASON.
 */
static inline enum sor_close_action sor_st_on_close(unsigned int state,
						    u32 queued, u32 unread,
						    bool reset,
						    bool nack_pending,
						    unsigned int *reason)
{
	*reason = 0;
	if (nack_pending)
		return SOR_CLOSE_WAIT;
	switch (state) {
	case EUSRV_SOR_ST_ESTABLISHED:
		if (unread || reset) {
			*reason = ECONNRESET;
			return SOR_CLOSE_NACK;
		}
		return queued ? SOR_CLOSE_FLUSH : SOR_CLOSE_NACK;
	default:
		/* PEER_CLOSED, RESET: the peer knows already. */
		return SOR_CLOSE_RETIRE;
	}
}

/* The resend timer fired after TRIES sends of a NACK request. */
static inline bool sor_st_nack_give_up(unsigned int tries)
{
	return tries >= SOR_NACK_TRIES;
}

/* What the resend timer of a NACK request does next. */
enum sor_nack_next {
	SOR_NACK_RESEND,	/* again, SOR_NACK_RESEND_MS later */
	SOR_NACK_FENCE,		/* again, SOR_FENCE_RESEND_MS later */
	SOR_NACK_HOLD,		/* not now: the peer is down; look again later */
	SOR_NACK_GIVE_UP,
};

/*
 * After TRIES sends: a handshake is given up after SOR_NACK_TRIES only if
 * the peer cannot write our receive ring (PEER_MAY_WRITE false).  While it
 * can, the ring is held until the peer answers, however long that takes,
 * or the board reports the node gone (docs/protocol.md section 7): sent
 * slowly, and not at all to a node that is down (PEER_UP false), which
 * is asked again once it is back.
 */
static inline enum sor_nack_next sor_st_nack_next(unsigned int tries,
						  bool peer_may_write,
						  bool peer_up)
{
	if (!sor_st_nack_give_up(tries))
		return peer_up || !peer_may_write ? SOR_NACK_RESEND : SOR_NACK_HOLD;
	if (!peer_may_write)
		return SOR_NACK_GIVE_UP;
	return peer_up ? SOR_NACK_FENCE : SOR_NACK_HOLD;
}

/*
 * Whether a connection whose file is gone (RELEASED) may leave the id
 * table: only once the peer knows it is over (RESET, PEER_CLOSED, or
 * NACK_WAIT with our handshake done), nothing is owed and nothing is in
 * flight.  A CLOSING connection still owes the peer its queued bytes and
 * a NACK, however idle it is between two transfers.
 */
static inline bool sor_st_may_retire(unsigned int state, bool released,
				     bool nack_pending, bool busy,
				     bool reply_owed)
{
	if (!released || nack_pending || busy || reply_owed)
		return false;
	return state == EUSRV_SOR_ST_RESET || state == EUSRV_SOR_ST_PEER_CLOSED ||
	       state == EUSRV_SOR_ST_NACK_WAIT;
}

/* The state a local abort (bad user value, transfer error, ...) leads to. */
static inline unsigned int sor_st_on_abort(unsigned int state)
{
	switch (state) {
	case EUSRV_SOR_ST_NACK_WAIT:
	case SOR_ST_QUARANTINE:
		return state;
	default:
		return EUSRV_SOR_ST_RESET;
	}
}

/*
 * Whether a CREDIT or ARM in STATE is one that crossed our own close or
 * the peer's (it asks for data we will never send): dropped, not counted
 * as bad.
 */
static inline bool sor_st_late(unsigned int state)
{
	return state == EUSRV_SOR_ST_NACK_WAIT ||
	       state == EUSRV_SOR_ST_PEER_CLOSED || state == EUSRV_SOR_ST_RESET;
}

/*
 * The timeout, in jiffies, a set-up wait may still take until DEADLINE at
 * NOW: what is left, and at least one jiffy, past the deadline too (a
 * negative timeout is a kernel complaint any caller could repeat; the
 * caller looks at the deadline itself).
 */
static inline long sor_st_wait_left(unsigned long deadline, unsigned long now)
{
	long left = (long)(deadline - now);

	return left > 0 ? left : 1;
}

/* Whether a connection in STATE still moves data (takes credit etc.). */
static inline bool sor_st_open(unsigned int state)
{
	return state == EUSRV_SOR_ST_ESTABLISHED ||
	       state == EUSRV_SOR_ST_CLOSING;
}

/*
 * Whether a server connection in STATE is still one for accept(): a client
 * that connected, wrote and closed before the listener saw it left a
 * connection with data to read, as TCP's backlog keeps it.
 */
static inline bool sor_st_claimable(unsigned int state)
{
	return sor_st_open(state) || state == EUSRV_SOR_ST_PEER_CLOSED;
}

/* The state user space sees for STATE. */
static inline unsigned int sor_st_uapi(unsigned int state)
{
	return state == SOR_ST_QUARANTINE ? EUSRV_SOR_ST_RESET : state;
}

#endif /* EUSRV_SOR_STATE_H */
