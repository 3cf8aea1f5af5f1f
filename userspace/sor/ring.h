/* SPDX-License-Identifier: MIT */
/*
 * Ring I/O: the fast path of a connection, on the two rings the driver maps
 * into the process (kmod/include/uapi/eusrv/sor.h).  Data is copied with no
 * system call when there is data to read or room to write; the kernel is
 * called through struct usor_kops only to push to a waiting peer, to sleep,
 * and for contended locks.  Independent of the driver so that the host
 * tests can run it on an in-memory ring.
 */
#ifndef EUSRV_USOR_RING_H
#define EUSRV_USOR_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <uapi/eusrv/sor.h>

/*
 * The adaptive spin of one receive ring in this process (see ring.c):
 * how long to spin before sleeping, learnt from whether spins paid.
 */
struct usor_spin {
	int64_t budget_ns;	/* 0: sleeping at once for now */
	uint32_t sleeps;	/* sleeps since spinning stopped */
};

struct usor_ring {
	struct eusrv_sor_ring_hdr *hdr;
	uint32_t *lock;		/* its lock word: both are in the send header */
	unsigned char *data;
	uint32_t size;		/* power of two */
	/*
	 * The other side's index as this process last read it (the receive
	 * tail, the send head), used under the ring's lock.
	 */
	uint32_t seen;
	struct usor_spin spin;	/* receive rings; accessed with atomics */
	/*
	 * Whether the descriptor was non-blocking when last found out (the
	 * kernel's WAIT or fcntl says; atomics): only a hint of which of the
	 * two to ask, so that a blocking wait needs no fcntl before it.
	 */
	int nb_hint;
};

/* The kernel's side; every function returns 0 or a negative errno. */
struct usor_kops {
	int (*push)(void *ctx);
	int (*credit)(void *ctx);
	/*
	 * EUSRV_SOR_WAIT: EVENTS, NONBLOCK (1 only report, 0 block, -1 as the
	 * file: -EAGAIN if it is non-blocking and nothing holds), TIMEOUT_NS
	 * (-1 forever), ROOM
	 */
	int (*wait)(void *ctx, uint32_t events, int nonblock,
		    int64_t timeout_ns, uint32_t room, uint32_t *revents);
	int (*lock_wait)(void *ctx, uint32_t which);
	int (*lock_wake)(void *ctx, uint32_t which);
	/* The pending error (positive errno, cleared), 0 if none. */
	int (*get_error)(void *ctx);
	/* Whether the descriptor is non-blocking now (O_NONBLOCK). */
	bool (*nonblocking)(void *ctx);
	int64_t (*now_ns)(void *ctx);
	void (*yield)(void *ctx);
	/* The calling thread's id (gettid()), for the lock words. */
	int (*tid)(void *ctx);
};

/* Where the bytes of a send come from: an iovec, or a fill function. */
struct usor_src {
	const struct iovec *iov;
	int iovcnt;
	/* If FILL is set: copy up to N bytes to DST, return the count, 0 at
	 * the end of the source, or a negative errno. */
	ssize_t (*fill)(void *arg, void *dst, size_t n);
	void *arg;
	size_t limit;	/* with FILL: at most this many bytes */
};

#define USOR_SPIN_ADAPTIVE	(-1)

#define USOR_X_PEEK	0x1U	/* MSG_PEEK */
#define USOR_X_WAITALL	0x2U	/* MSG_WAITALL */
#define USOR_X_DONTWAIT	0x4U	/* MSG_DONTWAIT */
#define USOR_X_TRUNC	0x8U	/* MSG_TRUNC: discard instead of copy */
#define USOR_X_SHUT_RD	0x10U	/* this side called shutdown(SHUT_RD) */

struct usor_xfer {
	unsigned int flags;	/* USOR_X_* */
	int64_t timeout_ns;	/* SO_RCVTIMEO / SO_SNDTIMEO, -1 none */
	/* Spin on the ring before sleeping: USOR_SPIN_ADAPTIVE, or fixed ns (0 = never). */
	int64_t spin_ns;
};

/*
 * Receive into IOV: bytes received (0 at EOF), or a negative errno
 * (-EAGAIN, -EINTR, the connection's error).  Takes the receive lock.
 */
ssize_t usor_ring_recv(struct usor_ring *rcv, const struct usor_kops *k,
		      void *ctx, const struct iovec *iov, int iovcnt,
		      const struct usor_xfer *x);

/*
 * Send from SRC: bytes sent, or a negative errno (-EPIPE when the peer
 * closed or this side shut down; -EAGAIN; -EINTR; the connection's error).
 * Blocking sends return only when everything is in the ring.
 */
ssize_t usor_ring_send(struct usor_ring *snd, const struct usor_kops *k,
		      void *ctx, struct usor_src *src, const struct usor_xfer *x);

/* Bytes readable now / bytes queued in the send ring. */
uint32_t usor_ring_readable(const struct usor_ring *rcv);
uint32_t usor_ring_queued(const struct usor_ring *snd);

/*
 * The other side's index as read now: a mapped ring's cached copy must
 * start from a value that was really there.
 */
void usor_ring_seen_init(struct usor_ring *r);

/* A receive ring's adaptive spin starts with its first budget. */
void usor_ring_spin_init(struct usor_ring *r);

/*
 * The per-direction locks (D4.2 send and receive locks), never held across
 * a wait: 0, or -EINTR when the calling thread holds it already.
 */
int usor_ring_lock(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		  uint32_t which);
void usor_ring_unlock(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		     uint32_t which);

#endif /* EUSRV_USOR_RING_H */
