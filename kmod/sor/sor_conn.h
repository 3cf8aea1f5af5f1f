/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor connection core (sor_conn.c): the connection object, its id,
 * references, state, rings.  Its work item runs sor_work_run()
 * (sor_work.c).  docs/protocol.md is the protocol, uapi/eusrv/sor.h the
 * user interface.
 *
 * Locking, outermost first:
 *   sor_ctl.mutex	one control file's listeners and notes
 *   sor_listen_lock	the listener registry (spinlock)
 *   sor_accept_lock	server connections waiting for ACCEPT (spinlock,
 *			sor_dummy.c)
 *   sor_tbl_lock	the id table (spinlock, taken in IRQ)
 *   sor_conn.lock	a connection's state (spinlock, taken in IRQ)
 *
 * Lifetime: a connection is referenced by the id table while its id is in
 * use, by its file, by its queued work, its armed timer and its transfer in
 * flight.  Everything heavy (CDMA submits, sleeping sends, the dummy
 * socket, retiring) runs in the connection's work item; mailbox handlers
 * only update state, wake sleepers and queue that work.
 */
#ifndef EUSRV_SOR_CONN_H
#define EUSRV_SOR_CONN_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "sor_base.h"
#include "sor_dummy.h"
#include "sor_mem.h"
#include <eusrv/sor_ring.h>
#include "sor_state.h"

struct file;
struct net;
struct sock;
struct socket;

/* Work a connection's work item has to do (sor_conn.todo bits). */
enum sor_todo {
	SOR_DO_XFER,		/* a transfer the credit allows */
	SOR_DO_FIN,		/* FIN after the last byte */
	SOR_DO_NACK,		/* (re)send our NACK request */
	SOR_DO_REPLY,		/* answer the peer's NACK request */
	SOR_DO_TIMER,		/* the timer fired */
	SOR_DO_NOTIFY,		/* a message the mailbox had no room for */
	SOR_DO_DUMMY,		/* established: connect the dummy */
	SOR_DO_RETIRE,		/* check whether it can go */
	SOR_DO_CONNECT,		/* a background set-up may go on */
};

struct sor_conn {
	struct kref ref;
	spinlock_t lock;		/* the fields below; taken in IRQ */
	unsigned int id;
	unsigned int peer_node;
	unsigned int peer_id;		/* EUSRV_SOR_NO_ID until known */
	unsigned int state;		/* enum eusrv_sor_state, SOR_ST_QUARANTINE */
	bool client;
	bool have_addr;			/* the peer's ADDR arrived */
	bool has_file;			/* a connection file exists / existed */
	bool early_map;			/* CONNECT maps it before set-up ends */
	bool released;			/* ... and is gone (or never will be) */
	bool in_table;
	int so_error;			/* pending error, cleared by GET_ERROR */
	u16 lport;
	u16 rport;
	pid_t pid;			/* creator, or the process that accepted it */
	kuid_t uid;			/* its effective uid */
	unsigned int snd_shift;		/* wishes, then the sizes */
	unsigned int rcv_shift;
	u32 snd_size;
	u32 rcv_size;

	/*
	 * The mapping: [snd hdr][snd data][rcv hdr][rcv data].  The receive
	 * side is one block, [rcv hdr][kernel page][rcv data], whose address
	 * the peer learns from ADDR: its engine writes the data, then the
	 * new tail into our kernel page (the value we trust) and into the
	 * mapped header (the value a spinning reader sees).
	 */
	struct eusrv_sor_ring_hdr *snd_hdr;
	struct eusrv_sor_ring_hdr *rcv_hdr;
	void *snd_data;
	void *rcv_data;
	void *rcv_blk;
	/* In the receive block's kernel page (SOR_RCV_*_OFF): */
	u32 *rcv_ktail;			/* the peer's engine stores its tail */
	u32 *rcv_arm;			/* set: the peer's engine sends DATA */
	u32 *snd_ksent;			/* our engine stores our transfer's end */
	u32 *snd_want;			/* set: our engine sends SENT too */
	/*
	 * What may hold data when the blocks go back to the pool (bit n:
	 * page n of the block): pages user space faulted in; the kernel's
	 * own writes to the send data make it all dirty.
	 */
	DECLARE_BITMAP(snd_dirty, SOR_POOL_MAX_PAGES);
	DECLARE_BITMAP(rcv_dirty, SOR_POOL_MAX_PAGES);
	bool snd_kwrote;
	bool peer_may_write;		/* it has our ADDR and has not confirmed the end */
	bool fencing;			/* ... over here, held until it does (STATS quarantined) */
	bool forgotten;			/* dropped by debugfs `forget` (sor_quarantine.c) */
	u64 peer_hdr_ga;		/* global address of the peer's rcv block */

	/* Send side (kernel copies; user space writes only the tail). */
	u32 snd_head;			/* confirmed by SENT */
	u32 snd_seen;			/* last user tail accepted */
	u32 snd_end;			/* end of the transfer in flight */
	u32 peer_head;			/* the peer's receive head (CREDIT) */
	bool busy;			/* a transfer is reserved or in flight */
	bool sent_wanted;		/* ... and its end will send SENT */
	bool pushing;			/* PUSH submits what gets reserved */
	bool shut_wr;
	bool fin_sent;
	u32 fin_pos;

	/* Receive side (user space writes only the head). */
	u32 rcv_tail;			/* from *rcv_ktail, checked */
	u32 rcv_seen;			/* last user head accepted */
	u32 rcv_reported;		/* the head our last CREDIT named */
	bool fin_rcvd;
	u32 peer_fin;
	bool eof;
	bool shut_rd;
	bool linger_reset;		/* SO_LINGER {1, 0}: the last close resets */

	/* A CREDIT the mailbox had no room for, sent by the work item. */
	bool owe_credit;

	/* NACK handshake (docs/protocol.md section 5). */
	bool nack_pending;		/* our request awaits its reply */
	bool reply_owed;		/* the peer's request, after the transfer */
	unsigned int nack_reason;
	unsigned int nack_tries;

	/* Liveness of the connection itself (sor_keepalive.c). */
	unsigned long heard;		/* jiffies of the last message on it */
	unsigned long probed;		/* jiffies of our last PROBE */

	unsigned long todo;		/* enum sor_todo bits */
	struct work_struct work;
	struct timer_list timer;
	unsigned long progress;		/* jiffies of the last flush progress */

	wait_queue_head_t wq;		/* data, space, state */
	struct fasync_struct *fasync;	/* O_ASYNC owners: SIGIO with wq */
	wait_queue_head_t lock_wq[2];	/* EUSRV_SOR_LOCK_SEND/RECV */
	struct pid_namespace *pidns;	/* of the file's creator (sor_ulock.c) */
	bool pidns_mixed;		/* used from another one too */

	struct sor_dummy dummy;		/* a server's, until ACCEPT (sor_dummy.c) */

	/* Client: the program's socket, keeping the local port taken. */
	struct file *bound;
	struct sor_bg *bg;		/* a non-blocking CONNECT's (sor_fallback.c) */
	bool tcp;			/* ... failed: the file serves BOUND */
	struct sor_charge_acct charge;	/* the rings, on the owner's locked_vm */
	unsigned long born;		/* jiffies */

	u64 bytes_sent;
	u64 bytes_rcvd;
	u64 transfers;
	u64 serial;		/* conns_opened when established, 0 before */
	atomic64_t x[SOR_NR_X];	/* its crossings (enum sor_xstat) */
};

/* N crossings of kind X for C, and for the node's sum. */
static inline void sor_xcount_add(struct sor_conn *c, enum sor_xstat x, u64 n)
{
	atomic64_add(n, &c->x[x]);
	atomic64_add(n, &sor_xstats[x]);
}

static inline void sor_xcount(struct sor_conn *c, enum sor_xstat x)
{
	sor_xcount_add(c, x, 1);
}

/* The counters X[] (enum sor_xstat) as the uapi has them. */
static inline void sor_crossings_read(atomic64_t *x, struct eusrv_sor_crossings *out)
{
	out->doorbells = atomic64_read(&x[SOR_X_DOORBELLS]);
	out->irqs = atomic64_read(&x[SOR_X_IRQS]);
	out->pushes = atomic64_read(&x[SOR_X_PUSHES]);
	out->waits = atomic64_read(&x[SOR_X_WAITS]);
	out->credits = atomic64_read(&x[SOR_X_CREDITS]);
	out->lock_calls = atomic64_read(&x[SOR_X_LOCK_CALLS]);
	out->empty_wakes = atomic64_read(&x[SOR_X_EMPTY_WAKES]);
	out->poll_empty = atomic64_read(&x[SOR_X_POLL_EMPTY]);
	out->msgs_sent = atomic64_read(&x[SOR_X_MSGS_SENT]);
	out->msgs_rcvd = atomic64_read(&x[SOR_X_MSGS_RCVD]);
	out->arms = atomic64_read(&x[SOR_X_ARMS]);
}

/* C is established: it gets the node's next serial (STATS conns_opened). */
static inline void sor_count_opened_locked(struct sor_conn *c)
{
	c->serial = atomic64_inc_return(&sor_stats[SOR_S_OPENED]);
}

/* sor_conn.c */
struct sor_conn *sor_conn_new(unsigned int peer_node, bool client, gfp_t gfp);
int sor_conn_publish(struct sor_conn *c);
int sor_conn_alloc_rings(struct sor_conn *c, u32 snd, u32 rcv, gfp_t gfp);
struct sor_conn *sor_conn_get(unsigned int id);
void sor_conn_put(struct sor_conn *c);
void sor_conn_kick(struct sor_conn *c, enum sor_todo what);
void sor_conn_kick_locked(struct sor_conn *c, enum sor_todo what);
void sor_conn_arm_locked(struct sor_conn *c, unsigned int ms);
void sor_conn_set_state_locked(struct sor_conn *c, unsigned int state, int err);
void sor_conn_nack_start_locked(struct sor_conn *c, unsigned int reason);
void sor_conn_abort_locked(struct sor_conn *c, int err, unsigned int reason);
void sor_conn_flags_locked(struct sor_conn *c);
bool sor_conn_xfer_ended_locked(struct sor_conn *c);
u32 sor_conn_snd_done_locked(struct sor_conn *c);
bool sor_conn_want_sent_locked(struct sor_conn *c);
bool sor_conn_want_sent_again_locked(struct sor_conn *c);
/* What a wake-up is for: input (data, EOF), room, or everything (state). */
#define SOR_WAKE_IN	(EPOLLIN | EPOLLRDNORM)
#define SOR_WAKE_OUT	(EPOLLOUT | EPOLLWRNORM)
#define SOR_WAKE_ALL	(SOR_WAKE_IN | SOR_WAKE_OUT | EPOLLRDHUP | EPOLLERR | \
			 EPOLLHUP)
void sor_conn_wake(struct sor_conn *c, __poll_t key);
bool sor_conn_may_retire_locked(struct sor_conn *c);
unsigned int sor_conn_count(void);
void sor_conn_for_each(void (*fn)(struct sor_conn *c, void *arg), void *arg);
void sor_conn_stat(struct sor_conn *c, struct eusrv_sor_conn_stat *s);
u32 sor_conn_history(struct eusrv_sor_conn_stat *out, u32 room);
void sor_conn_reset_node(unsigned int node, int err);
void sor_conn_node_gone(unsigned int node);
void sor_conn_peer_done_locked(struct sor_conn *c);
void sor_conn_fence_locked(struct sor_conn *c);
u64 sor_conn_fencing_bytes(void);
bool sor_conn_unpublish(struct sor_conn *c);
void sor_conn_free_rings(struct sor_conn *c);
void sor_conn_exit(void);

/* sor_work.c: the work item's function, set by sor_conn_new(). */
void sor_work_run(struct work_struct *w);

/* Whether C has all its rings: only then may it have a file (sor_file.c). */
static inline bool sor_conn_has_rings(const struct sor_conn *c)
{
	return c->snd_hdr && c->snd_data && c->rcv_blk;
}

#endif /* EUSRV_SOR_CONN_H */
