// SPDX-License-Identifier: MIT
/*
 * Ring I/O on the mapped rings.  One writer per header field (sor.h): this
 * side writes the send tail and the receive head, under the direction's
 * lock; the kernel writes the rest.  Acquire loads of the kernel's fields,
 * release stores of ours, and a full barrier between moving the send tail
 * and reading `want` (docs/protocol.md section 4).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <eusrv/sor_ring.h>

#include "ring.h"
#include "usor_atomic.h"

/*
 * A blocking send of at most this many bytes waits for room for all of
 * them, so that threads sending records on one connection never tear
 * each other's (as writes of up to PIPE_BUF to a pipe, and as small
 * writes to a TCP socket are in practice).
 */
#define USOR_SEND_WHOLE	4096U

/* Polls of the ring between clock readings while spinning. */
#define SPIN_CHECK_EVERY	64

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* ---- locks --------------------------------------------------------------- */

/*
 * The lock word holds its holder's thread id, so that the driver can free
 * it when the holder dies and a thread can tell that it holds it already
 * (a signal handler interrupting its own copy).  Once contended it is
 * taken with WAITERS, so that its release wakes the next.
 */
int usor_ring_lock(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		  uint32_t which)
{
	uint32_t *l = r->lock;
	uint32_t me = (uint32_t)k->tid(ctx) & EUSRV_SOR_LOCK_TID, c = 0;

	if (__atomic_compare_exchange_n(l, &c, me, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	for (;;) {
		if (!c) {
			if (__atomic_compare_exchange_n(l, &c, me | EUSRV_SOR_LOCK_WAITERS,
							false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if ((c & EUSRV_SOR_LOCK_TID) == me)
			return -EINTR;
		if (!(c & EUSRV_SOR_LOCK_WAITERS) &&
		    !__atomic_compare_exchange_n(l, &c, c | EUSRV_SOR_LOCK_WAITERS,
						 false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			continue;
		if (k->lock_wait(ctx, which) < 0)
			k->yield(ctx);
		c = __atomic_load_n(l, __ATOMIC_RELAXED);
	}
}

void usor_ring_unlock(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		     uint32_t which)
{
	if (__atomic_exchange_n(r->lock, 0, __ATOMIC_RELEASE) &
	    EUSRV_SOR_LOCK_WAITERS)
		k->lock_wake(ctx, which);
}

/* ---- iovec cursor --------------------------------------------------------- */

struct cursor {
	const struct iovec *iov;
	int cnt;
	int i;
	size_t off;	/* in iov[i] */
};

static void cur_init(struct cursor *c, const struct iovec *iov, int cnt)
{
	c->iov = iov;
	c->cnt = cnt;
	c->i = 0;
	c->off = 0;
}

/* Total length, capped at SSIZE_MAX (what one call may transfer). */
static size_t iov_total(const struct iovec *iov, int cnt)
{
	size_t t = 0;
	int i;

	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len > (size_t)SSIZE_MAX - t)
			return SSIZE_MAX;
		t += iov[i].iov_len;
	}
	return t;
}

/* Copy N bytes between SRC/DST memory and the cursor's buffers. */
static void cur_copy(struct cursor *c, unsigned char *mem, size_t n, bool to_iov,
		     bool discard)
{
	while (n && c->i < c->cnt) {
		size_t room = c->iov[c->i].iov_len - c->off;
		size_t m = n < room ? n : room;
		unsigned char *u = (unsigned char *)c->iov[c->i].iov_base + c->off;

		if (!discard) {
			if (to_iov)
				memcpy(u, mem, m);
			else
				memcpy(mem, u, m);
		}
		mem += m;
		n -= m;
		c->off += m;
		if (c->off == c->iov[c->i].iov_len) {
			c->i++;
			c->off = 0;
		}
	}
}

/* N bytes of the ring from stream position POS to the cursor. */
static void ring_to_iov(const struct usor_ring *r, uint32_t pos, uint32_t n,
			struct cursor *c, bool discard)
{
	struct sor_extent ext[2];
	unsigned int i, nr = sor_ring_split(pos, n, r->size, ext);

	for (i = 0; i < nr; i++)
		cur_copy(c, r->data + ext[i].off, ext[i].len, true, discard);
}

/* Up to N bytes from SRC into the ring at POS: count or negative errno. */
static ssize_t src_to_ring(struct usor_ring *r, uint32_t pos, uint32_t n,
			   struct usor_src *src, struct cursor *c, size_t *left)
{
	uint32_t done = 0;

	if (n > *left)
		n = (uint32_t)*left;
	while (done < n) {
		uint32_t o = sor_ring_off(pos + done, r->size);
		uint32_t chunk = r->size - o;

		if (chunk > n - done)
			chunk = n - done;
		if (src->fill) {
			ssize_t got = src->fill(src->arg, r->data + o, chunk);

			if (got < 0)
				return done ? (ssize_t)done : got;
			if (got == 0) {
				*left = done;	/* source ended */
				break;
			}
			done += (uint32_t)got;
			*left -= (size_t)got;
			if ((uint32_t)got < chunk)
				break;	/* short read: send what we have */
		} else {
			cur_copy(c, r->data + o, chunk, false, false);
			done += chunk;
			*left -= chunk;
		}
	}
	return done;
}

/* ---- waiting -------------------------------------------------------------- */

static int64_t deadline_of(const struct usor_kops *k, void *ctx, int64_t t)
{
	return t < 0 ? -1 : k->now_ns(ctx) + t;
}

/* Time left to DEADLINE: -1 forever, 0 expired. */
static int64_t time_left(const struct usor_kops *k, void *ctx, int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - k->now_ns(ctx);
	return left > 0 ? left : 0;
}

/* Spin until *P differs from OLD, FLAGS change, or SPIN_NS pass. */
static void spin(const struct usor_kops *k, void *ctx, const uint32_t *p,
		 uint32_t old, const uint32_t *flags, uint32_t oflags,
		 int64_t spin_ns)
{
	int64_t end = k->now_ns(ctx) + spin_ns;
	unsigned int i = 0;

	for (;;) {
		if (USOR_LOAD(p) != old || USOR_LOAD(flags) != oflags)
			return;
		cpu_relax();
		if (++i % SPIN_CHECK_EVERY == 0 && k->now_ns(ctx) >= end)
			return;
	}
}

/*
 * Adaptive spinning (receive side, when EUSRV_SPIN_US is not set): spin
 * for a budget that starts at SPIN_START_NS; a spin that sees data keeps
 * it (doubling up to SPIN_MAX_NS), one that does not halves it, and below
 * SPIN_FLOOR_NS the reader sleeps at once, trying a short spin again
 * every SPIN_RETRY sleeps.  A sleep that data ended soon, within
 * SPIN_MAX_NS of when the reader began to wait, sets the budget to cover
 * that wait: a spin a little longer would have caught it (KVM's halt
 * polling learns the same way), so a reader whose data comes one round
 * trip later learns to spin one round trip.  So spinning stays only
 * where the data comes within the budget, as the kernel's adaptive
 * busy-polling and adaptive mutexes do; on a node where it does not (the
 * peer slower than the cap, or a host with fewer cores than busy
 * threads) it costs one short spin in SPIN_RETRY waits.
 */
#define SPIN_START_NS	50000
#define SPIN_MAX_NS	1000000
#define SPIN_FLOOR_NS	5000
#define SPIN_RETRY	16U

static int64_t spin_budget(struct usor_ring *r, int64_t fixed)
{
	int64_t b;
	uint32_t n;

	if (fixed != USOR_SPIN_ADAPTIVE)
		return fixed;
	b = __atomic_load_n(&r->spin.budget_ns, __ATOMIC_RELAXED);
	if (b)
		return b;
	n = __atomic_add_fetch(&r->spin.sleeps, 1, __ATOMIC_RELAXED);
	return n % SPIN_RETRY ? 0 : 2 * SPIN_FLOOR_NS;
}

static void spin_learn(struct usor_ring *r, int64_t fixed, int64_t used,
		       bool paid)
{
	int64_t b;

	if (fixed != USOR_SPIN_ADAPTIVE)
		return;
	if (paid)
		b = used * 2 > SPIN_MAX_NS ? SPIN_MAX_NS :
		    used * 2 < SPIN_START_NS ? SPIN_START_NS : used * 2;
	else
		b = used / 2 < SPIN_FLOOR_NS ? 0 : used / 2;
	__atomic_store_n(&r->spin.budget_ns, b, __ATOMIC_RELAXED);
}

/* A sleep ended by data WAITED ns after the reader began to wait. */
static void spin_learn_wait(struct usor_ring *r, int64_t fixed, int64_t waited)
{
	int64_t b = waited + waited / 4;

	if (fixed != USOR_SPIN_ADAPTIVE || waited <= 0 || b > SPIN_MAX_NS)
		return;
	if (b < SPIN_START_NS)
		b = SPIN_START_NS;
	__atomic_store_n(&r->spin.budget_ns, b, __ATOMIC_RELAXED);
}

void usor_ring_spin_init(struct usor_ring *r)
{
	r->spin.budget_ns = SPIN_START_NS;
	r->spin.sleeps = 0;
}

uint32_t usor_ring_readable(const struct usor_ring *rcv)
{
	return USOR_LOAD_ACQ(&rcv->hdr->tail) - USOR_LOAD(&rcv->hdr->head);
}

uint32_t usor_ring_queued(const struct usor_ring *snd)
{
	return USOR_LOAD(&snd->hdr->tail) - USOR_LOAD_ACQ(&snd->hdr->head);
}

/*
 * The other side's index as last read, as AF_XDP's rings cache theirs: the
 * line the kernel and the engine write is read again only when what this
 * process knows runs short.  Both indexes only move forward, so a stale
 * copy errs on the safe side (less data, less room); one that another
 * process has overtaken is noticed (more than a ring) and read again.
 */
static uint32_t seen_tail(struct usor_ring *r, uint32_t head, bool fresh)
{
	uint32_t t = __atomic_load_n(&r->seen, __ATOMIC_RELAXED);

	/* Read again: asked to, none known, or overtaken by another process. */
	if (fresh || t == head || !sor_ring_used_ok(head, t, r->size)) {
		t = USOR_LOAD_ACQ(&r->hdr->tail);
		__atomic_store_n(&r->seen, t, __ATOMIC_RELAXED);
	}
	return t;
}

void usor_ring_seen_init(struct usor_ring *r)
{
	/* The head: nothing known to read (receive), a real head (send). */
	__atomic_store_n(&r->seen, USOR_LOAD_ACQ(&r->hdr->head), __ATOMIC_RELAXED);
}

/* The send head: read again when the room known is short of WANT. */
static uint32_t seen_head(struct usor_ring *r, uint32_t tail, uint32_t want)
{
	uint32_t h = __atomic_load_n(&r->seen, __ATOMIC_RELAXED);

	if (!sor_ring_used_ok(h, tail, r->size) ||
	    sor_ring_room(h, tail, r->size) < want) {
		h = USOR_LOAD_ACQ(&r->hdr->head);
		__atomic_store_n(&r->seen, h, __ATOMIC_RELAXED);
	}
	return h;
}

/*
 * Whether this call must not wait: as its flags say (NONBLOCK 1), or, when
 * the descriptor was non-blocking last time, as fcntl says now.  -1: most
 * likely blocking; the WAIT then says (-EAGAIN) if it is not, so a
 * blocking wait costs no fcntl.
 */
static int nonblock_now(struct usor_ring *r, const struct usor_kops *k,
			void *ctx, int nonblock)
{
	int nb;

	if (nonblock >= 0 || !__atomic_load_n(&r->nb_hint, __ATOMIC_RELAXED))
		return nonblock;
	nb = k->nonblocking(ctx) ? 1 : 0;
	__atomic_store_n(&r->nb_hint, nb, __ATOMIC_RELAXED);
	return nb;
}

/*
 * A WAIT that may be non-blocking as the file says (NONBLOCK -1) told us
 * it is (-EAGAIN): remember, and go on as a non-blocking call.
 */
static bool found_nonblocking(struct usor_ring *r, int *nonblock, int e)
{
	if (e != -EAGAIN || *nonblock >= 0)
		return false;
	__atomic_store_n(&r->nb_hint, 1, __ATOMIC_RELAXED);
	*nonblock = 1;
	return true;
}

/* ---- one call's steps ------------------------------------------------------- */

/*
 * A receive or a send goes round one loop of steps under its direction's
 * lock; each step says how the loop goes on.  Waiting steps may also
 * return a negative errno: the lock is not held then.
 */
enum step {
	STEP_AGAIN,	/* look at the ring again */
	STEP_DONE,	/* the call is over: its result is set */
	STEP_ON,	/* on to the next step */
};

/* What a call knows of waiting, across the loop's rounds. */
struct call_wait {
	int nonblock;		/* 1, 0, or -1: ask the file when it matters */
	int64_t deadline;	/* -1: none */
	bool timed;		/* deadline set */
	bool spun;		/* spun since the last sleep */
};

static void call_wait_init(struct call_wait *w, const struct usor_xfer *x)
{
	w->nonblock = x->flags & USOR_X_DONTWAIT ? 1 : -1;
	w->deadline = -1;
	w->timed = false;
	w->spun = false;
}

/*
 * How long the call may wait (ns; -1: forever), its deadline set from
 * TIMEOUT_NS at its first wait; 0: it must not wait (non-blocking, or its
 * time is up), and ends with what it did, or -EAGAIN.
 */
static int64_t call_wait_left(struct usor_ring *r, const struct usor_kops *k,
			      void *ctx, struct call_wait *w, int64_t timeout_ns)
{
	w->nonblock = nonblock_now(r, k, ctx, w->nonblock);
	if (w->nonblock > 0)
		return 0;
	if (!w->timed) {
		w->deadline = deadline_of(k, ctx, timeout_ns);
		w->timed = true;
	}
	return time_left(k, ctx, w->deadline);
}

/* A call that moved DONE bytes ends with them, or else with ERR. */
static ssize_t done_or(size_t done, ssize_t err)
{
	return done ? (ssize_t)done : err;
}

/* ---- receive -------------------------------------------------------------- */

struct recv_call {
	struct usor_ring *r;
	const struct usor_kops *k;
	void *ctx;
	const struct usor_xfer *x;
	const struct iovec *iov;
	int iovcnt;
	size_t want, done;
	bool peek, waitall, discard;
	bool fresh;		/* the tail itself was read, not the cached one */
	bool slept;		/* ... since the last data: learn how long */
	int64_t waiting_since;
	struct call_wait w;
	struct cursor c;
};

/* Copy N bytes from HEAD: from the start of the buffer for a peek. */
static void recv_copy(struct recv_call *rc, uint32_t head, uint32_t n)
{
	if (rc->peek)
		cur_init(&rc->c, rc->iov, rc->iovcnt);
	ring_to_iov(rc->r, head, n, &rc->c, rc->discard);
}

/* Take what the ring holds, AVAIL bytes from HEAD, as the call asks. */
static enum step recv_take(struct recv_call *rc, uint32_t head, uint32_t avail,
			   ssize_t *ret)
{
	struct usor_ring *r = rc->r;
	struct eusrv_sor_ring_hdr *h = r->hdr;
	size_t n;

	if (rc->slept) {
		spin_learn_wait(r, rc->x->spin_ns,
				rc->k->now_ns(rc->ctx) - rc->waiting_since);
		rc->slept = false;
	}
	if (rc->peek) {
		n = avail < rc->want ? avail : rc->want;
		if (n < rc->want && rc->waitall)
			return STEP_ON;
		recv_copy(rc, head, (uint32_t)n);
		*ret = (ssize_t)n;
		return STEP_DONE;
	}
	n = rc->want - rc->done;
	if (n > avail)
		n = avail;
	recv_copy(rc, head, (uint32_t)n);
	USOR_STORE_REL(&h->head, head + (uint32_t)n);
	/* The tail is read only when credit may be due. */
	if (head + (uint32_t)n - USOR_LOAD(&h->reported) >= r->size / 4 &&
	    eusrv_sor_credit_due(head + (uint32_t)n, USOR_LOAD_ACQ(&h->tail),
				 USOR_LOAD(&h->reported), r->size))
		rc->k->credit(rc->ctx);
	rc->done += n;
	if (rc->done == rc->want || !rc->waitall) {
		*ret = (ssize_t)rc->done;
		return STEP_DONE;
	}
	return STEP_AGAIN;	/* more may be there already */
}

/*
 * Nothing (more) to take: the end, if the ring says so (its error, EOF, a
 * shutdown here or by another thread meanwhile).  *FLAGS: as read.
 */
static enum step recv_end(struct recv_call *rc, uint32_t head, uint32_t tail,
			  uint32_t *flags, ssize_t *ret)
{
	struct eusrv_sor_ring_hdr *h = rc->r->hdr;
	uint32_t avail = tail - head;
	int e;

	*flags = USOR_LOAD_ACQ(&h->flags);
	switch (sor_ring_recv_step(*flags & EUSRV_SOR_RF_ERROR,
				   (*flags & (EUSRV_SOR_RF_EOF | EUSRV_SOR_RF_SHUT)) ||
				   (rc->x->flags & USOR_X_SHUT_RD))) {
	case SOR_RING_ERROR:
		e = rc->k->get_error(rc->ctx);
		if (rc->done)
			*ret = (ssize_t)rc->done;
		else if (rc->peek && avail)
			*ret = avail < rc->want ? (ssize_t)avail : (ssize_t)rc->want;
		else
			*ret = e ? -e : 0;
		if (rc->peek && avail && *ret > 0)
			recv_copy(rc, head, (uint32_t)*ret);
		return STEP_DONE;
	case SOR_RING_END:
		break;
	default:
		return STEP_ON;
	}
	/* The tail is final once EOF is set: re-check it. */
	if (USOR_LOAD_ACQ(&h->tail) != tail)
		return STEP_AGAIN;
	if (rc->peek && avail) {
		recv_copy(rc, head, avail);
		*ret = avail;
	} else {
		*ret = (ssize_t)rc->done;
	}
	return STEP_DONE;
}

/*
 * Wait for data beyond TAIL (the ring's FLAGS as read): spin first where
 * that pays, then sleep in the driver, never with the lock held.  A step,
 * or a negative errno with the lock not held.
 */
static int recv_wait(struct recv_call *rc, uint32_t tail, uint32_t flags,
		     ssize_t *ret)
{
	struct usor_ring *r = rc->r;
	const struct usor_kops *k = rc->k;
	struct eusrv_sor_ring_hdr *h = r->hdr;
	uint32_t rev = 0;
	int64_t left;
	int e;

	left = call_wait_left(r, k, rc->ctx, &rc->w, rc->x->timeout_ns);
	if (!left) {
		*ret = done_or(rc->done, -EAGAIN);
		return STEP_DONE;
	}
	if (!rc->w.spun) {
		int64_t budget = spin_budget(r, rc->x->spin_ns);

		rc->w.spun = true;
		if (!rc->slept)
			rc->waiting_since = k->now_ns(rc->ctx);
		if (budget > 0) {
			usor_ring_unlock(r, k, rc->ctx, EUSRV_SOR_LOCK_RECV);
			spin(k, rc->ctx, &h->tail, tail, &h->flags, flags, budget);
			spin_learn(r, rc->x->spin_ns, budget,
				   USOR_LOAD_ACQ(&h->tail) != tail);
			e = usor_ring_lock(r, k, rc->ctx, EUSRV_SOR_LOCK_RECV);
			return e ? e : STEP_AGAIN;
		}
	}
	usor_ring_unlock(r, k, rc->ctx, EUSRV_SOR_LOCK_RECV);
	e = k->wait(rc->ctx, EUSRV_SOR_W_RECV, rc->w.nonblock, left, 0, &rev);
	if (e && e != -ETIMEDOUT && !found_nonblocking(r, &rc->w.nonblock, e))
		return e;
	rc->slept = !e;
	e = usor_ring_lock(r, k, rc->ctx, EUSRV_SOR_LOCK_RECV);
	if (e)
		return e;
	rc->w.spun = false;
	return STEP_AGAIN;
}

ssize_t usor_ring_recv(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		      const struct iovec *iov, int iovcnt,
		      const struct usor_xfer *x)
{
	struct recv_call rc = {
		.r = r, .k = k, .ctx = ctx, .x = x, .iov = iov, .iovcnt = iovcnt,
		.want = iov_total(iov, iovcnt),
		.peek = x->flags & USOR_X_PEEK,
		.waitall = x->flags & USOR_X_WAITALL,
		.discard = x->flags & USOR_X_TRUNC,
	};
	ssize_t ret;
	int s;

	if (!rc.want)
		return 0;
	call_wait_init(&rc.w, x);
	cur_init(&rc.c, iov, iovcnt);
	ret = usor_ring_lock(r, k, ctx, EUSRV_SOR_LOCK_RECV);
	if (ret)
		return ret;
	for (;;) {
		uint32_t head = USOR_LOAD(&r->hdr->head);
		uint32_t tail = seen_tail(r, head, rc.fresh), flags = 0;

		if (!sor_ring_used_ok(head, tail, r->size)) {
			ret = done_or(rc.done, -EIO);
			break;
		}
		s = tail != head ? recv_take(&rc, head, sor_ring_dist(head, tail), &ret) :
				   STEP_ON;
		if (s == STEP_ON && !rc.fresh) {
			/* Short by what was known: look at the tail itself first. */
			rc.fresh = true;
			continue;
		}
		if (s == STEP_ON)
			s = recv_end(&rc, head, tail, &flags, &ret);
		if (s == STEP_ON)
			s = recv_wait(&rc, tail, flags, &ret);
		if (s < 0)
			return done_or(rc.done, s);
		if (s == STEP_DONE)
			break;
	}
	usor_ring_unlock(r, k, ctx, EUSRV_SOR_LOCK_RECV);
	return ret;
}

/* ---- send ----------------------------------------------------------------- */

struct send_call {
	struct usor_ring *r;
	const struct usor_kops *k;
	void *ctx;
	const struct usor_xfer *x;
	struct usor_src *src;
	size_t left, done;
	uint32_t whole;		/* a small blocking send goes in whole: its size */
	struct call_wait w;
	struct cursor c;
};

/* The call ends before it fills: the connection's error, its end, or all sent. */
static enum step send_end(struct send_call *sc, uint32_t flags, ssize_t *ret)
{
	int e;

	switch (sor_ring_send_step(flags & EUSRV_SOR_RF_ERROR,
				   flags & (EUSRV_SOR_RF_PEER_CLOSED | EUSRV_SOR_RF_SHUT))) {
	case SOR_RING_ERROR:
		e = sc->k->get_error(sc->ctx);
		*ret = done_or(sc->done, -(e ? e : EPIPE));
		return STEP_DONE;
	case SOR_RING_END:
		*ret = done_or(sc->done, -EPIPE);
		return STEP_DONE;
	default:
		break;
	}
	if (!sc->left) {
		*ret = (ssize_t)sc->done;
		return STEP_DONE;
	}
	return STEP_ON;
}

/*
 * Copy into the ring's ROOM (beyond TAIL, HEAD..TAIL in use) and move
 * the tail, asking the driver to push when it wants to be told.  STEP_ON:
 * the ring is full for this send.
 */
static enum step send_fill(struct send_call *sc, uint32_t head, uint32_t tail,
			   uint32_t room, ssize_t *ret)
{
	struct usor_ring *r = sc->r;
	struct eusrv_sor_ring_hdr *h = r->hdr;
	ssize_t n = src_to_ring(r, tail, room, sc->src, &sc->c,
				&sc->left);

	if (n > 0) {
		USOR_STORE_REL(&h->tail, tail + (uint32_t)n);
		sc->done += (size_t)n;
		/* Pairs with the driver's barrier after setting want. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (USOR_LOAD(&h->need_push))
			sc->k->push(sc->ctx);
	} else if (n < 0) {
		*ret = done_or(sc->done, n);
		return STEP_DONE;
	}
	if (!sc->left || (sc->src->fill && n == 0)) {
		*ret = (ssize_t)sc->done;
		return STEP_DONE;
	}
	if (USOR_LOAD_ACQ(&h->head) != head)
		return STEP_AGAIN;
	if (sor_ring_room(head, tail + (uint32_t)n, r->size))
		return STEP_AGAIN;	/* short fill: go on */
	return STEP_ON;
}

/*
 * The ring is full for this send (its FLAGS as read): spin once where the
 * call asks, else sleep in the driver, never with the lock held.  A step,
 * or a negative errno with the lock not held.
 */
static int send_wait(struct send_call *sc, uint32_t flags, ssize_t *ret)
{
	struct usor_ring *r = sc->r;
	const struct usor_kops *k = sc->k;
	struct eusrv_sor_ring_hdr *h = r->hdr;
	uint32_t rev = 0;
	int64_t left_ns;
	int e;

	left_ns = call_wait_left(r, k, sc->ctx, &sc->w, sc->x->timeout_ns);
	if (!left_ns) {
		*ret = done_or(sc->done, -EAGAIN);
		return STEP_DONE;
	}
	usor_ring_unlock(r, k, sc->ctx, EUSRV_SOR_LOCK_SEND);
	if (sc->x->spin_ns > 0 && !sc->w.spun) {
		sc->w.spun = true;
		spin(k, sc->ctx, &h->head, USOR_LOAD(&h->head), &h->flags, flags,
		     sc->x->spin_ns);
	} else {
		e = k->wait(sc->ctx, EUSRV_SOR_W_SEND, sc->w.nonblock, left_ns,
			    sc->whole && !sc->done ? sc->whole : 0, &rev);
		if (e && e != -ETIMEDOUT &&
		    !found_nonblocking(r, &sc->w.nonblock, e))
			return e;
		sc->w.spun = false;
	}
	e = usor_ring_lock(r, k, sc->ctx, EUSRV_SOR_LOCK_SEND);
	return e ? e : STEP_AGAIN;
}

ssize_t usor_ring_send(struct usor_ring *r, const struct usor_kops *k, void *ctx,
		      struct usor_src *src, const struct usor_xfer *x)
{
	struct send_call sc = {
		.r = r, .k = k, .ctx = ctx, .x = x, .src = src,
		.left = src->fill ? src->limit : iov_total(src->iov, src->iovcnt),
	};
	struct eusrv_sor_ring_hdr *h = r->hdr;
	ssize_t ret;
	int s;

	if (sc.left > SSIZE_MAX)
		sc.left = SSIZE_MAX;
	sc.whole = !src->fill && sc.left <= USOR_SEND_WHOLE && sc.left <= r->size ?
		   (uint32_t)sc.left : 0;
	call_wait_init(&sc.w, x);
	cur_init(&sc.c, src->iov, src->iovcnt);
	ret = usor_ring_lock(r, k, ctx, EUSRV_SOR_LOCK_SEND);
	if (ret)
		return ret;
	for (;;) {
		uint32_t flags = USOR_LOAD_ACQ(&h->flags), head, tail, room;
		bool full;

		if (send_end(&sc, flags, &ret) == STEP_DONE)
			break;
		tail = USOR_LOAD(&h->tail);
		head = seen_head(r, tail, sc.left < r->size ? (uint32_t)sc.left : r->size);
		if (!sor_ring_used_ok(head, tail, r->size)) {
			ret = done_or(sc.done, -EIO);
			break;
		}
		room = sor_ring_room(head, tail, r->size);
		full = !room;
		/* A small blocking send goes in whole, as a pipe's PIPE_BUF. */
		if (sc.whole && !sc.done && room < sc.whole) {
			sc.w.nonblock = nonblock_now(r, k, ctx, sc.w.nonblock);
			full = full || sc.w.nonblock <= 0;
		}
		s = full ? STEP_ON : send_fill(&sc, head, tail, room, &ret);
		if (s == STEP_ON)
			s = send_wait(&sc, flags, &ret);
		if (s < 0)
			return done_or(sc.done, s);
		if (s == STEP_DONE)
			break;
	}
	usor_ring_unlock(r, k, ctx, EUSRV_SOR_LOCK_SEND);
	return ret;
}
