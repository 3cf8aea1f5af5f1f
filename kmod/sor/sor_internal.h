/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor internals: the connection object and what the driver's files
 * share.  docs/protocol.md is the protocol, uapi/eusrv/sor.h the user
 * interface.
 *
 * Locking, outermost first:
 *   sor_ctl.mutex	one control file's listeners and notes
 *   sor_listen_lock	the listener registry (spinlock, taken in IRQ)
 *   sor_accept_lock	server connections waiting for ACCEPT (spinlock)
 *   sor_tbl_lock	the id table (spinlock, taken in IRQ)
 *   sor_conn.lock	a connection's state (spinlock, taken in IRQ)
 *
 * Lifetime: a connection is referenced by the id table while its id is in
 * use, by its file, by its queued work, its armed timer and its transfer in
 * flight.  Everything heavy (CDMA submits, sleeping sends, the dummy
 * socket, retiring) runs in the connection's work item; mailbox handlers
 * only update state, wake sleepers and queue that work.
 */
#ifndef EUSRV_SOR_INTERNAL_H
#define EUSRV_SOR_INTERNAL_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/eusrv/sor.h>
#include <eusrv/sor_msg.h>

#include "sor_ring.h"
#include "sor_state.h"

struct file;
struct net;
struct socket;

/*
 * The receive block, [rcv hdr][kernel page][rcv data]: offsets from the
 * address ADDR names.  The nodes of a board share one page size.
 */
#define SOR_RCV_KTAIL_OFF	PAGE_SIZE
#define SOR_RCV_DATA_OFF	(2 * PAGE_SIZE)

/* A control file (/dev/eusrv_sor, one per process). */
struct sor_ctl {
	struct mutex mutex;		/* listeners, notes */
	struct list_head listeners;	/* struct sor_listener.ctl_link */
	struct list_head link;		/* on the list of control files */
	pid_t pid;
	kuid_t uid;			/* opener's effective uid */
	unsigned int note_next;
	unsigned int note_count;
	struct eusrv_sor_note notes[EUSRV_SOR_MAX_NOTES];
};

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

/* Whom ring memory is charged to, and up to how many pages (sor_charge.c). */
struct sor_owner {
	struct user_struct *user;
	unsigned long limit;		/* pages, or RLIM_INFINITY */
};

/* A non-blocking CONNECT's set-up, going on in the background (sor_setup.c). */
struct sor_bg {
	struct sor_conn *conn;
	struct sor_owner owner;		/* the caller, whom the rings are charged to */
	unsigned long deadline;		/* jiffies: given up then */
	bool done;			/* the outcome is being made */
	bool settled;			/* ... and the file shows it */
	int addrlen;			/* 0: no TCP to turn to */
	struct sockaddr_storage addr;
	struct wait_queue_entry tcp_wait; /* on the socket's queue (sor_tcp.c) */
	bool tcp_waiting;		/* ... added */
};

/* A charge held: PAGES on USER's locked_vm. */
struct sor_charge {
	struct user_struct *user;
	unsigned long pages;
};

void sor_charge_owner(struct sor_owner *o);
void sor_charge_owner_put(struct sor_owner *o);
unsigned long sor_charge_pages(u32 snd, u32 rcv);
int sor_charge(struct sor_charge *ch, const struct sor_owner *o,
	       unsigned long pages);
void sor_uncharge(struct sor_charge *ch);

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
	u32 *rcv_ktail;
	bool peer_may_write;		/* it has our ADDR and has not confirmed the end */
	u64 peer_hdr_ga;		/* global address of the peer's rcv block */

	/* Send side (kernel copies; user space writes only the tail). */
	u32 snd_head;			/* confirmed by SENT */
	u32 snd_seen;			/* last user tail accepted */
	u32 snd_end;			/* end of the transfer in flight */
	u32 peer_head;			/* the peer's receive head (CREDIT) */
	bool peer_armed;		/* the peer sleeps: notify it (ARM) */
	u32 peer_arm_pos;		/* ... it has seen the data up to here */
	bool busy;			/* a transfer is in flight */
	bool shut_wr;
	bool fin_sent;
	u32 fin_pos;

	/* Receive side (user space writes only the head). */
	u32 rcv_tail;			/* from *rcv_ktail, checked */
	u32 rcv_seen;			/* last user head accepted */
	u32 rcv_reported;		/* the head our last CREDIT named */
	bool rd_armed;			/* our ARM awaits its DATA */
	u32 rd_arm_pos;
	bool fin_rcvd;
	u32 peer_fin;
	bool eof;
	bool shut_rd;
	bool linger_reset;		/* SO_LINGER {1, 0}: the last close resets */

	/* Messages the mailbox had no room for, sent by the work item. */
	bool owe_credit;
	bool owe_arm;
	bool owe_data;

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

	/* Server set-up (sor_setup.c). */
	struct list_head accept_link;	/* on sor_accepting until claimed */
	struct socket *dummy;
	struct net *net;		/* the listener's */
	__be32 dummy_addr;		/* where the dummy connects (0: loopback) */
	bool dummy_gone;		/* claimed or retired: no dummy any more */
	u16 dummy_port;

	/* Client: the program's socket, keeping the local port taken. */
	struct file *bound;
	struct sor_bg *bg;		/* a non-blocking CONNECT's set-up */
	bool tcp;			/* ... failed: the file serves BOUND */
	struct sor_charge charge;	/* the rings, on the owner's locked_vm */
	unsigned long born;		/* jiffies */

	u64 bytes_sent;
	u64 bytes_rcvd;
	u64 transfers;
	u64 serial;		/* conns_opened when established, 0 before */
};

/* Node-wide counters, one per field of struct eusrv_sor_stats. */
enum sor_stat {
	SOR_S_OPENED,
	SOR_S_REFUSED,
	SOR_S_CONNECT_FAILED,
	SOR_S_BYTES_SENT,
	SOR_S_BYTES_RCVD,
	SOR_S_TRANSFERS,
	SOR_S_XFER_ERRORS,
	SOR_S_CREDITS_SENT,
	SOR_S_CREDITS_RCVD,
	SOR_S_NACKS_SENT,
	SOR_S_NACKS_RCVD,
	SOR_S_NACK_RESENDS,
	SOR_S_BAD_MSG,
	SOR_S_BAD_USER,
	SOR_S_PEER_RESETS,
	SOR_S_NOTES,
	SOR_S_ARMS_SENT,
	SOR_S_DATA_IRQS,
	SOR_S_RESETS_SENT,
	SOR_S_RESETS_RCVD,
	SOR_S_PROBES_SENT,
	SOR_S_LOCKS_FREED,
	SOR_NR_STATS
};

extern atomic64_t sor_stats[SOR_NR_STATS];
extern struct workqueue_struct *sor_wq;

static inline void sor_count(enum sor_stat s)
{
	atomic64_inc(&sor_stats[s]);
}

/* C is established: it gets the node's next serial (STATS conns_opened). */
static inline void sor_count_opened_locked(struct sor_conn *c)
{
	c->serial = atomic64_inc_return(&sor_stats[SOR_S_OPENED]);
}

static inline void sor_count_add(enum sor_stat s, u64 n)
{
	atomic64_add(n, &sor_stats[s]);
}

/* The ACK of a message that was bad: counted, logged, dropped. */
#define sor_bad(fmt, ...) do {						\
	sor_count(SOR_S_BAD_MSG);					\
	pr_debug_ratelimited(fmt, ##__VA_ARGS__);			\
} while (0)

/* sor_base.c */
int sor_node(void);
u64 sor_conn_ring_phys(void *p);

/*
 * What the core hands on to the protocol above it (sor_data.c,
 * sor_nack.c, sor_setup.c), registered once by the module's init
 * (sor_conn_init) before any connection exists: the core calls these,
 * the protocol calls the core, never the other way round.
 */
struct sor_conn_ops {
	/* The work item's jobs (sor_conn.todo bits), run in this order. */
	void (*reply)(struct sor_conn *c);	/* SOR_DO_REPLY */
	void (*nack)(struct sor_conn *c);	/* SOR_DO_NACK */
	void (*notify)(struct sor_conn *c);	/* SOR_DO_NOTIFY */
	void (*xfer)(struct sor_conn *c);	/* SOR_DO_XFER */
	void (*fin)(struct sor_conn *c);	/* SOR_DO_FIN */
	void (*dummy)(struct sor_conn *c);	/* SOR_DO_DUMMY */
	void (*connect)(struct sor_conn *c);	/* SOR_DO_CONNECT */
	/* The timer fired (work item): our NACK request is pending ... */
	void (*nack_timeout)(struct sor_conn *c);
	/* ... or in any state the core does not time itself. */
	void (*setup_timeout)(struct sor_conn *c);
	/* C left the id table (process context). */
	void (*unlinked)(struct sor_conn *c);
	/* C's last reference, before its memory goes (any context). */
	void (*release)(struct sor_conn *c);
};

/* sor_conn.c */
void sor_conn_init(const struct sor_conn_ops *ops);
struct sor_conn *sor_conn_new(unsigned int peer_node, bool client);
int sor_conn_alloc_rings(struct sor_conn *c);
struct sor_conn *sor_conn_get(unsigned int id);
void sor_conn_put(struct sor_conn *c);
void sor_conn_kick(struct sor_conn *c, enum sor_todo what);
void sor_conn_kick_locked(struct sor_conn *c, enum sor_todo what);
void sor_conn_arm_locked(struct sor_conn *c, unsigned int ms);
void sor_conn_set_state_locked(struct sor_conn *c, unsigned int state, int err);
void sor_conn_nack_start_locked(struct sor_conn *c, unsigned int reason);
void sor_conn_abort_locked(struct sor_conn *c, int err, unsigned int reason);
void sor_conn_flags_locked(struct sor_conn *c);
void sor_conn_wake(struct sor_conn *c, int band);
bool sor_conn_may_retire_locked(struct sor_conn *c);
unsigned int sor_conn_count(void);
void sor_conn_for_each(void (*fn)(struct sor_conn *c, void *arg), void *arg);
void sor_conn_stat(struct sor_conn *c, struct eusrv_sor_conn_stat *s);
/* Whether the caller may see what process owns something of user UID. */
static inline bool sor_may_see_owner(kuid_t uid)
{
	return uid_eq(uid, current_euid()) || capable(CAP_NET_ADMIN);
}

u32 sor_conn_history(struct eusrv_sor_conn_stat *out, u32 room);
void sor_conn_reset_node(unsigned int node, int err);
int sor_conn_forget(unsigned int id);
void sor_conn_exit(void);

/* sor_data.c */
int sor_send(unsigned int node, u64 msg);
void sor_rx_credit(struct sor_conn *c, u32 head);
void sor_rx_arm(struct sor_conn *c, u32 pos);
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
void sor_data_arm_at_tail_locked(struct sor_conn *c);
int sor_data_arm(struct sor_conn *c);
bool sor_data_try_xfer_locked(struct sor_conn *c);
void sor_data_idle_locked(struct sor_conn *c);
void sor_data_after_sent_locked(struct sor_conn *c);
void sor_data_established_locked(struct sor_conn *c);

/* sor_nack.c */
void sor_rx_nack(unsigned int src, unsigned int id, u64 msg);
void sor_nack_send(struct sor_conn *c);
void sor_nack_reply(struct sor_conn *c);
void sor_nack_timer(struct sor_conn *c);
void sor_nack_release(struct sor_conn *c);
int sor_nack_send_raw(unsigned int node, unsigned int to_id,
		      unsigned int kind, unsigned int reason,
		      unsigned int from_id);

/* sor_setup.c */
void sor_rx_connrq(unsigned int src, unsigned int client_id, u64 msg);
void sor_rx_connrpl(struct sor_conn *c, unsigned int src, u64 msg);
int sor_setup_connect(struct sor_ctl *ctl,
		      const struct eusrv_sor_connect *rq);
int sor_setup_accept(struct sor_ctl *ctl, const struct eusrv_sor_accept *rq);
int sor_setup_listen(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
int sor_setup_unlisten(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
void sor_setup_ctl_gone(struct sor_ctl *ctl);
void sor_setup_timer(struct sor_conn *c);
void sor_setup_bg(struct sor_conn *c);
void sor_setup_bg_release(struct sor_conn *c);
void sor_setup_bg_free(struct sor_conn *c);
void sor_setup_drop_dummy(struct sor_conn *c);
void sor_setup_dummy(struct sor_conn *c);

/* sor_ulock.c: the rings' lock words shared with user space. */
void sor_ulock_note_ns(struct sor_conn *c);
int sor_ulock_wait(struct sor_conn *c, u32 which);
void sor_ulock_wake(struct sor_conn *c, u32 which);
int sor_ulock_take(struct sor_conn *c, u32 which);
void sor_ulock_give(struct sor_conn *c, u32 which);
/*
 * What set-up needs of the file layer above it: the connection file (and
 * its descriptor) CONNECT and ACCEPT hand over.  Registered by the
 * module's init (sor_setup_init).
 */
struct sor_setup_ops {
	int (*file_open)(struct sor_conn *c, u32 flags);
};

int sor_setup_init(const struct sor_setup_ops *ops);
void sor_setup_exit(void);

/* sor_debugfs.c */
/* Fault injection (sor_debugfs.c; defined in sor_nack.c): NACK requests still to lose. */
extern atomic_t sor_drop_nacks;
/* ... (sor_setup.c) a slow server: ms each ConnRQ waits before it is served. */
extern u32 sor_serve_delay_ms;
/* ... a hostile server: the frame its ADDR names instead of its own (0: its own). */
extern u64 sor_forge_addr;
void sor_debugfs_init(void);
void sor_debugfs_exit(void);

/* sor_file.c */
int sor_file_open(struct sor_conn *c, u32 flags);

/*
 * Whether C's file still shows a non-blocking CONNECT setting up: nothing
 * to read, no room, no rings to map, whatever the state behind it (which
 * may have failed already, on its way to TCP).
 */
static inline bool sor_conn_setting_up(const struct sor_conn *c)
{
	/* Pairs with the release that settles it: c->tcp is set before. */
	return c->bg && !smp_load_acquire(&c->bg->settled);
}

/* sor_tcp.c */
ssize_t sor_tcp_rw(struct sor_conn *c, struct kiocb *iocb,
		   struct iov_iter *iter, bool write);
__poll_t sor_tcp_poll(struct sor_conn *c, poll_table *wait);
long sor_tcp_ioctl(struct sor_conn *c, unsigned int cmd, unsigned long arg);
int sor_tcp_socket_fd(struct sor_conn *c);

/* sor_keepalive.c */
void sor_rx_keepalive(unsigned int src, u64 msg);
void sor_rx_probe(struct sor_conn *c, unsigned int kind);
void sor_ka_heard(unsigned int node);
void sor_ka_tx_error(unsigned int node, u32 status);
u64 sor_ka_nodes_up(void);
void sor_ka_start(void);
void sor_ka_stop(void);

/* sor_pool.c */
void *sor_pool_get(size_t len);
void sor_pool_put(void *p, size_t len);
void sor_pool_init(void);
void sor_pool_exit(void);

/* sor_quarantine.c */
void sor_quar_add(unsigned int node, void *blk, size_t len);
void sor_quar_node_back(unsigned int node);
void sor_quar_node_gone(unsigned int node);
void sor_quar_tick(void);
u64 sor_quar_bytes(void);
void sor_quar_exit(void);

/* sor_rx.c */
int sor_rx_init(void);
void sor_rx_exit(void);

#endif /* EUSRV_SOR_INTERNAL_H */
