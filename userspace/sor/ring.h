/* SPDX-License-Identifier: MIT */
/*
 * Ring I/O: the fast path of a connection, on the two rings the driver maps
 * into the process (kmod/include/uapi/eusrv/sor.h).  Data is copied with no
 * system call when there is data to read or room to write; the kernel is
 * called through struct sor_kops only to push to a waiting peer, to sleep,
 * and for contended locks.  Independent of the driver so that the host
 * tests can run it on an in-memory ring.
 */
#ifndef EUSRV_SOR_RING_H
#define EUSRV_SOR_RING_H

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
struct sor_spin {
	int64_t budget_ns;	/* 0: sleeping at once for now */
	uint32_t sleeps;	/* sleeps since spinning stopped */
};

struct sor_ring {
	struct eusrv_sor_ring_hdr *hdr;
	unsigned char *data;
	uint32_t size;		/* power of two */
	/*
	 * The other side's index as this process last read it (the receive
	 * tail, the send head), used under the ring's lock.
	 */
	uint32_t seen;
	struct sor_spin spin;	/* receive rings; accessed with atomics */
};

/* The kernel's side; every function returns 0 or a negative errno. */
struct sor_kops {
	int (*push)(void *ctx);
	int (*credit)(void *ctx);
	/* EUSRV_SOR_WAIT: EVENTS, NONBLOCK, TIMEOUT_NS (-1 forever), ROOM */
	int (*wait)(void *ctx, uint32_t events, bool nonblock,
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
struct sor_src {
	const struct iovec *iov;
	int iovcnt;
	/* If FILL is set: copy up to N bytes to DST, return the count, 0 at
	 * the end of the source, or a negative errno. */
	ssize_t (*fill)(void *arg, void *dst, size_t n);
	void *arg;
	size_t limit;	/* with FILL: at most this many bytes */
};

#define SOR_SPIN_ADAPTIVE	(-1)

#define SOR_X_PEEK	0x1U	/* MSG_PEEK */
#define SOR_X_WAITALL	0x2U	/* MSG_WAITALL */
#define SOR_X_DONTWAIT	0x4U	/* MSG_DONTWAIT */
#define SOR_X_TRUNC	0x8U	/* MSG_TRUNC: discard instead of copy */
#define SOR_X_SHUT_RD	0x10U	/* this side called shutdown(SHUT_RD) */

struct sor_xfer {
	unsigned int flags;	/* SOR_X_* */
	int64_t timeout_ns;	/* SO_RCVTIMEO / SO_SNDTIMEO, -1 none */
	/* Spin on the ring before sleeping: SOR_SPIN_ADAPTIVE, or fixed ns (0 = never). */
	int64_t spin_ns;
};

/*
 * Receive into IOV: bytes received (0 at EOF), or a negative errno
 * (-EAGAIN, -EINTR, the connection's error).  Takes the receive lock.
 */
ssize_t sor_ring_recv(struct sor_ring *rcv, const struct sor_kops *k,
		      void *ctx, const struct iovec *iov, int iovcnt,
		      const struct sor_xfer *x);

/*
 * Send from SRC: bytes sent, or a negative errno (-EPIPE when the peer
 * closed or this side shut down; -EAGAIN; -EINTR; the connection's error).
 * Blocking sends return only when everything is in the ring.
 */
ssize_t sor_ring_send(struct sor_ring *snd, const struct sor_kops *k,
		      void *ctx, struct sor_src *src, const struct sor_xfer *x);

/* Bytes readable now / bytes queued in the send ring. */
uint32_t sor_ring_readable(const struct sor_ring *rcv);
uint32_t sor_ring_queued(const struct sor_ring *snd);

/*
 * The other side's index as read now: a mapped ring's cached copy must
 * start from a value that was really there.
 */
void sor_ring_seen_init(struct sor_ring *r);

/* A receive ring's adaptive spin starts with its first budget. */
void sor_ring_spin_init(struct sor_ring *r);

/*
 * The per-direction locks (D4.2 send and receive locks), never held across
 * a wait: 0, or -EINTR when the calling thread holds it already.
 */
int sor_ring_lock(struct sor_ring *r, const struct sor_kops *k, void *ctx,
		  uint32_t which);
void sor_ring_unlock(struct sor_ring *r, const struct sor_kops *k, void *ctx,
		     uint32_t which);

#endif /* EUSRV_SOR_RING_H */
