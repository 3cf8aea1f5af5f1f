// SPDX-License-Identifier: MIT
/*
 * The fast path of sockets over RDMA (userspace/sor/ring.c) on an in-memory
 * ring with a fake kernel: wrap-around, partial and full rings, MSG_PEEK,
 * MSG_WAITALL, MSG_TRUNC, EOF and errors, non-blocking calls, timeouts,
 * the need_push/PUSH handshake, credit given only when the writer could
 * run short (across the 32-bit wrap), no kernel call on an empty
 * non-blocking read, spinning that sees data with no kernel call, and the
 * send lock between threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"
#include "tap.h"

#define SIZE	64U

struct fake {
	struct eusrv_sor_ring_hdr hdr;
	unsigned char data[SIZE];
	struct usor_ring r;
	int pushes, credits, waits, nb_waits, lock_waits;
	int fcntls;		/* asked whether non-blocking */
	int file_eagain;	/* WAITs "as the file" that said EAGAIN */
	int err;		/* what get_error returns */
	bool nonblock;
	int64_t now, tick;
	/* What happens when the caller sleeps in WAIT. */
	void (*on_wait)(struct fake *f);
	int64_t wait_at;	/* when the last WAIT began (on_wait's clock) */
	int wait_ret;
	unsigned char next;	/* next byte the fake peer delivers */
};

static void fake_init(struct fake *f, uint32_t pos)
{
	memset(f, 0, sizeof(*f));
	f->hdr.head = f->hdr.tail = pos;
	f->hdr.size = SIZE;
	f->r.hdr = &f->hdr;
	f->r.lock = &f->hdr.lock;
	f->r.data = f->data;
	f->r.size = SIZE;
	usor_ring_seen_init(&f->r);
}

/* The peer delivers N bytes into a receive ring (bytes next, next+1...). */
static void deliver(struct fake *f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		f->data[(f->hdr.tail + i) & (SIZE - 1)] = f->next++;
	__atomic_store_n(&f->hdr.tail, f->hdr.tail + n, __ATOMIC_RELEASE);
}

/* The peer takes everything queued in a send ring. */
static void drain(struct fake *f)
{
	__atomic_store_n(&f->hdr.head, f->hdr.tail, __ATOMIC_RELEASE);
}

static int k_push(void *ctx)
{
	struct fake *f = ctx;

	f->pushes++;
	return 0;
}

/* The kernel's CREDIT: it records the head as reported, as the driver does. */
static int k_credit(void *ctx)
{
	struct fake *f = ctx;

	f->credits++;
	f->hdr.reported = f->hdr.head;
	return 0;
}

static int k_wait(void *ctx, uint32_t events, int nonblock, int64_t timeout,
		  uint32_t room, uint32_t *revents)
{
	struct fake *f = ctx;

	(void)timeout;
	(void)room;
	*revents = 0;
	if (nonblock > 0) {
		f->nb_waits++;
		return 0;
	}
	/* As the kernel's EUSRV_SOR_F_FILE: nothing holds here. */
	if (nonblock < 0 && f->nonblock) {
		f->file_eagain++;
		return -EAGAIN;
	}
	f->waits++;
	if (f->wait_ret)
		return f->wait_ret;
	if (f->on_wait)
		f->on_wait(f);
	else
		f->now += 1000000000LL;	/* nothing happens: time passes */
	*revents = events;
	return 0;
}

static int k_lock_wait(void *ctx, uint32_t which)
{
	struct fake *f = ctx;

	(void)which;
	__atomic_add_fetch(&f->lock_waits, 1, __ATOMIC_RELAXED);
	sched_yield();
	return 0;
}

static int k_lock_wake(void *ctx, uint32_t which)
{
	(void)ctx;
	(void)which;
	return 0;
}

static int k_tid(void *ctx)
{
	(void)ctx;
	return (int)syscall(SYS_gettid);
}

static int k_get_error(void *ctx)
{
	struct fake *f = ctx;
	int e = f->err;

	f->err = 0;
	return e;
}

static bool k_nonblocking(void *ctx)
{
	struct fake *f = ctx;

	f->fcntls++;
	return f->nonblock;
}

/*
 * The fake's clock, advancing TICK per reading, or the real one when now
 * is -1 (spinning threads).
 */
static int64_t k_now(void *ctx)
{
	struct fake *f = ctx;
	struct timespec ts;

	if (f->now >= 0)
		return f->now += f->tick;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void k_yield(void *ctx)
{
	(void)ctx;
	sched_yield();
}

static const struct usor_kops kops = {
	.push = k_push, .credit = k_credit, .wait = k_wait, .lock_wait = k_lock_wait,
	.lock_wake = k_lock_wake, .get_error = k_get_error,
	.nonblocking = k_nonblocking, .now_ns = k_now, .yield = k_yield,
	.tid = k_tid,
};

static const struct usor_xfer plain = { .timeout_ns = -1 };

static ssize_t rx(struct fake *f, void *buf, size_t n, unsigned int flags)
{
	struct iovec v = { .iov_base = buf, .iov_len = n };
	struct usor_xfer x = plain;

	x.flags = flags;
	return usor_ring_recv(&f->r, &kops, f, &v, 1, &x);
}

static ssize_t tx(struct fake *f, const void *buf, size_t n, unsigned int flags)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = n };
	struct usor_src s = { .iov = &v, .iovcnt = 1 };
	struct usor_xfer x = plain;

	x.flags = flags;
	return usor_ring_send(&f->r, &kops, f, &s, &x);
}

static bool seq_ok(const unsigned char *b, size_t n, unsigned char first)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)(first + i))
			return false;
	return true;
}

static void on_wait_deliver6(struct fake *f)
{
	deliver(f, 6);
}

/* Data that comes only after SLEEP_NS of the wait: long, or soon. */
static void deliver_after(struct fake *f, long sleep_ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = sleep_ns };

	f->wait_at = k_now(f);
	nanosleep(&ts, NULL);
	deliver(f, 6);
}

static void on_wait_deliver6_late(struct fake *f)
{
	deliver_after(f, 2000000);	/* past the 1 ms cap: spinning would not pay */
}

/* A wait of 300 us on the fake clock, then data. */
static void on_wait_deliver6_soon(struct fake *f)
{
	f->now += 300000;
	deliver(f, 6);
}

static void on_wait_drain(struct fake *f)
{
	drain(f);
}

static void on_wait_eof(struct fake *f)
{
	f->hdr.flags |= EUSRV_SOR_RF_EOF;
}

static void on_wait_reset(struct fake *f)
{
	f->err = ECONNRESET;
	f->hdr.flags |= EUSRV_SOR_RF_ERROR;
}

/* ---- receive ---- */

static void test_recv(void)
{
	static struct fake f;
	unsigned char b[200];
	struct iovec v[3];
	struct usor_xfer x = plain;

	fake_init(&f, 60);	/* data will wrap at 64 */
	deliver(&f, 10);
	memset(b, 0, sizeof(b));
	ok(rx(&f, b, 4, 0) == 4 && seq_ok(b, 4, 0) && f.hdr.head == 64,
	   "recv: partial read of 4 of 10, up to the wrap");
	ok(rx(&f, b, 100, 0) == 6 && seq_ok(b, 6, 4) && f.hdr.head == 70,
	   "recv: the rest (6) after the wrap, no wait, no syscall");
	ok(f.waits == 0 && f.nb_waits == 0, "recv: fast path did not call the kernel");

	deliver(&f, 20);
	ok(rx(&f, b, 8, USOR_X_PEEK) == 8 && seq_ok(b, 8, 10) && f.hdr.head == 70,
	   "MSG_PEEK: data shown, head unchanged");
	ok(rx(&f, b, 100, USOR_X_PEEK) == 20 && seq_ok(b, 20, 10),
	   "MSG_PEEK: all 20 visible");
	ok(rx(&f, b, 20, 0) == 20 && seq_ok(b, 20, 10), "recv after peek: same bytes");

	/* readv across three buffers and the wrap */
	fake_init(&f, 0xfffffff0U);	/* 32-bit position wrap too */
	deliver(&f, 30);
	v[0].iov_base = b;
	v[0].iov_len = 5;
	v[1].iov_base = b + 5;
	v[1].iov_len = 0;
	v[2].iov_base = b + 5;
	v[2].iov_len = 40;
	ok(usor_ring_recv(&f.r, &kops, &f, v, 3, &x) == 30 && seq_ok(b, 30, 0) &&
	   f.hdr.head == 14, "readv: 3 buffers, positions wrap past 2^32");

	/* MSG_WAITALL: 4 there, the peer sends 6 more while we sleep */
	fake_init(&f, 0);
	deliver(&f, 4);
	f.on_wait = on_wait_deliver6;
	ok(rx(&f, b, 10, USOR_X_WAITALL) == 10 && seq_ok(b, 10, 0) && f.waits == 1,
	   "MSG_WAITALL: waits once for the missing 6");
	/* PEEK|WAITALL waits for the whole amount, consumes nothing */
	deliver(&f, 2);
	f.waits = 0;
	ok(rx(&f, b, 8, USOR_X_WAITALL | USOR_X_PEEK) == 8 && f.waits == 1 &&
	   seq_ok(b, 8, 10) && f.hdr.tail - f.hdr.head == 8,
	   "MSG_PEEK|MSG_WAITALL: waits until 8 are there, leaves them");
	/* MSG_TRUNC: discarded */
	ok(rx(&f, NULL, 3, USOR_X_TRUNC) == 3 && f.hdr.tail - f.hdr.head == 5,
	   "MSG_TRUNC: 3 bytes dropped without a buffer");

	/* empty, blocking: sleeps once, gets data */
	fake_init(&f, 0);
	f.on_wait = on_wait_deliver6;
	ok(rx(&f, b, 100, 0) == 6 && f.waits == 1 && f.fcntls == 0,
	   "empty ring: sleeps in WAIT, then 6 bytes; no fcntl before the wait");
	/*
	 * empty, non-blocking: the first time, the WAIT "as the file" says
	 * EAGAIN; after that fcntl says so, and no WAIT is made
	 */
	f.on_wait = NULL;
	f.nonblock = true;
	ok(rx(&f, b, 10, 0) == -EAGAIN && f.file_eagain == 1 && f.waits == 1 &&
	   f.nb_waits == 0, "O_NONBLOCK, empty, first time: WAIT says EAGAIN");
	ok(rx(&f, b, 10, 0) == -EAGAIN && f.file_eagain == 1 && f.fcntls == 1 &&
	   f.nb_waits == 0 && f.waits == 1,
	   "O_NONBLOCK, empty, again: EAGAIN, no WAIT (fcntl asked)");
	f.nonblock = false;
	f.on_wait = on_wait_deliver6;
	ok(rx(&f, b, 100, 0) == 6 && f.waits == 2 && f.fcntls == 2,
	   "blocking again: fcntl says so once, then sleeps in WAIT");
	ok(rx(&f, b, 100, 0) == 6 && f.waits == 3 && f.fcntls == 2,
	   "and the next blocking wait asks no fcntl");
	f.on_wait = NULL;
	ok(rx(&f, b, 10, USOR_X_DONTWAIT) == -EAGAIN && f.nb_waits == 0,
	   "MSG_DONTWAIT, empty: EAGAIN, no WAIT");
	ok(rx(&f, b, 0, 0) == 0, "zero-length recv returns 0 at once");

	/* EOF */
	fake_init(&f, 0);
	deliver(&f, 3);
	f.hdr.flags |= EUSRV_SOR_RF_EOF;
	ok(rx(&f, b, 10, 0) == 3 && rx(&f, b, 10, 0) == 0 && rx(&f, b, 10, 0) == 0,
	   "EOF: data first, then 0, and 0 again");
	fake_init(&f, 0);
	f.on_wait = on_wait_eof;
	ok(rx(&f, b, 10, 0) == 0, "EOF while sleeping: 0");
	fake_init(&f, 0);
	deliver(&f, 2);
	f.on_wait = on_wait_eof;
	ok(rx(&f, b, 10, USOR_X_WAITALL) == 2, "MSG_WAITALL cut short by EOF: what came");
	fake_init(&f, 0);
	deliver(&f, 2);
	ok(rx(&f, b, 10, USOR_X_SHUT_RD) == 2 && rx(&f, b, 10, USOR_X_SHUT_RD) == 0,
	   "after shutdown(SHUT_RD): queued data, then 0 without waiting");

	/* errors */
	fake_init(&f, 0);
	f.on_wait = on_wait_reset;
	ok(rx(&f, b, 10, 0) == -ECONNRESET && rx(&f, b, 10, 0) == 0,
	   "reset while sleeping: ECONNRESET once (SO_ERROR cleared), then 0");
	fake_init(&f, 0);
	deliver(&f, 5);
	f.err = ECONNRESET;
	f.hdr.flags |= EUSRV_SOR_RF_ERROR;
	ok(rx(&f, b, 3, 0) == 3 && rx(&f, b, 10, 0) == 2 && rx(&f, b, 10, 0) == -ECONNRESET,
	   "error with data queued: the data first, then the error");
	fake_init(&f, 0);
	f.wait_ret = -EINTR;
	ok(rx(&f, b, 10, 0) == -EINTR, "signal while sleeping: EINTR");
	fake_init(&f, 0);
	deliver(&f, 4);
	f.wait_ret = -EINTR;
	ok(rx(&f, b, 10, USOR_X_WAITALL) == 4, "signal during MSG_WAITALL: the bytes so far");
	fake_init(&f, 0);
	x.timeout_ns = 5000000;	/* SO_RCVTIMEO 5 ms; the fake's WAIT takes 1 s */
	{
		struct iovec one = { .iov_base = b, .iov_len = 10 };

		ok(usor_ring_recv(&f.r, &kops, &f, &one, 1, &x) == -EAGAIN && f.waits == 1,
		   "SO_RCVTIMEO: EAGAIN after the timeout");
	}
	fake_init(&f, 0);
	f.hdr.tail = SIZE + 1;	/* corrupt: more than the ring holds */
	ok(rx(&f, b, 10, 0) == -EIO, "impossible tail (beyond the ring): EIO");
	ok(f.hdr.lock == 0, "receive lock released");
}

/* ---- credit ---- */

/* A reader consuming N bytes at a time from a writer that fills the ring. */
static void credit_walk(uint32_t start, uint32_t step, const char *what)
{
	static struct fake f;
	unsigned char b[SIZE];
	int expect = 0, bad = 0;
	uint32_t round;

	fake_init(&f, start);
	f.hdr.reported = start;
	for (round = 0; round < 64; round++) {
		uint32_t head, credit_left;
		bool due;

		/* The writer fills whatever its credit allows. */
		credit_left = f.hdr.reported + SIZE - f.hdr.tail;
		deliver(&f, credit_left);
		head = f.hdr.head + step;
		due = head - f.hdr.reported >= SIZE / 4 &&
		      f.hdr.reported + SIZE - f.hdr.tail < SIZE / 2;
		expect += due;
		if (rx(&f, b, step, 0) != (ssize_t)step)
			bad++;
	}
	ok(!bad && f.credits == expect && f.credits > 0,
	   "%s: credit exactly when due (%d of 64 reads), never a stall", what,
	   f.credits);
}

static void test_credit(void)
{
	static struct fake f;
	unsigned char b[SIZE];

	credit_walk(0, SIZE / 8, "reads of an eighth");
	credit_walk(0, SIZE / 2, "reads of a half");
	credit_walk(0xffffffe0U, SIZE / 8, "across the 2^32 wrap");
	/* The writer has plenty left: no credit per read. */
	fake_init(&f, 0);
	deliver(&f, SIZE / 4);
	ok(rx(&f, b, SIZE, 0) == SIZE / 4 && f.credits == 0,
	   "a quarter read while the writer has 3/4 left: no credit");
	/* Drained when out of credit: always due. */
	fake_init(&f, 0);
	deliver(&f, SIZE);
	ok(rx(&f, b, SIZE, 0) == SIZE && f.credits == 1 && f.hdr.reported == SIZE,
	   "writer out of credit, ring drained: credit up to the head");
	/* MSG_PEEK consumes nothing and gives no credit. */
	fake_init(&f, 0);
	deliver(&f, SIZE);
	ok(rx(&f, b, SIZE, USOR_X_PEEK) == SIZE && f.credits == 0,
	   "MSG_PEEK: no credit");
}

/* A spinning reader sees data another thread delivers with no kernel call. */
static void *deliver_later(void *arg)
{
	struct fake *f = arg;

	usleep(2000);
	deliver(f, 7);
	return NULL;
}

static void test_spin(void)
{
	static struct fake f;
	struct iovec v;
	unsigned char b[16] = { 0 };
	struct usor_xfer x = plain;
	pthread_t t;

	fake_init(&f, 0);
	f.now = -1;	/* the real clock */
	x.spin_ns = 2000000000LL;
	v.iov_base = b;
	v.iov_len = sizeof(b);
	if (pthread_create(&t, NULL, deliver_later, &f))
		abort();
	ok(usor_ring_recv(&f.r, &kops, &f, &v, 1, &x) == 7 && f.waits == 0 &&
	   f.nb_waits == 0 && seq_ok(b, 7, 0),
	   "spinning reader: data from another thread, no WAIT at all");
	pthread_join(t, NULL);
}

/*
 * Adaptive spinning: it grows when data comes during a spin or soon after
 * the reader slept, fades when not.
 */
static void test_adaptive_spin(void)
{
	static struct fake f;
	unsigned char b[16] = { 0 };
	struct usor_xfer x = plain;
	struct iovec v = { .iov_base = b, .iov_len = sizeof(b) };
	pthread_t t;
	int i, spins_at_zero = 0;

	x.spin_ns = USOR_SPIN_ADAPTIVE;
	fake_init(&f, 0);
	f.now = -1;
	usor_ring_spin_init(&f.r);
	ok(f.r.spin.budget_ns == 50000, "adaptive: starts with a 50 us budget");
	/* Data comes long after the sleep began: the spin did not pay. */
	f.on_wait = on_wait_deliver6_late;
	ok(usor_ring_recv(&f.r, &kops, &f, &v, 1, &x) == 6 && f.waits == 1 &&
	   f.r.spin.budget_ns == 25000,
	   "adaptive: a spin that saw nothing halves the budget (25 us)");
	for (i = 0; i < 3; i++)
		usor_ring_recv(&f.r, &kops, &f, &v, 1, &x);
	ok(f.r.spin.budget_ns == 0, "adaptive: after 4 unpaid spins it sleeps at once");
	for (i = 0; i < 32; i++) {
		int64_t t0 = k_now(&f);

		usor_ring_recv(&f.r, &kops, &f, &v, 1, &x);
		spins_at_zero += f.wait_at - t0 >= 10000;	/* before the wait */
	}
	ok(f.r.spin.budget_ns == 0 && spins_at_zero >= 1 && spins_at_zero <= 4,
	   "adaptive: then a short spin only every 16th sleep (%d of 32 spun 10 us+)",
	   spins_at_zero);
	/*
	 * Data 300 us after the sleep began (the fake clock, a microsecond a
	 * reading): a spin that long would have paid, so it covers it.
	 */
	f.on_wait = on_wait_deliver6_soon;
	f.now = 0;
	f.tick = 1000;
	usor_ring_recv(&f.r, &kops, &f, &v, 1, &x);
	ok(f.r.spin.budget_ns >= 375000 && f.r.spin.budget_ns <= 400000,
	   "adaptive: a sleep that data ended 300 us into the wait teaches a spin of a quarter more (%lld us)",
	   (long long)f.r.spin.budget_ns / 1000);
	f.now = -1;
	f.tick = 0;
	/* Data during the spin: it paid, the budget grows to the cap. */
	f.on_wait = NULL;
	f.r.spin.budget_ns = 100000000;
	if (pthread_create(&t, NULL, deliver_later, &f))
		abort();
	ok(usor_ring_recv(&f.r, &kops, &f, &v, 1, &x) == 7 && f.r.spin.budget_ns == 1000000,
	   "adaptive: a spin that saw data keeps spinning (budget capped at 1 ms)");
	pthread_join(t, NULL);
}

/* ---- send ---- */

static void test_send(void)
{
	static struct fake f;
	unsigned char src[200], got[SIZE];
	uint32_t i;
	struct usor_xfer x = plain;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)i;
	fake_init(&f, 50);
	ok(tx(&f, src, 30, 0) == 30 && f.hdr.tail == 80 && f.pushes == 0,
	   "send 30 across the wrap, no PUSH (need_push clear: the kernel looks)");
	for (i = 0; i < 30; i++)
		got[i] = f.data[(50 + i) & (SIZE - 1)];
	ok(seq_ok(got, 30, 0), "bytes in the ring in order, wrapped");
	f.hdr.need_push = 1;
	ok(tx(&f, src, 10, 0) == 10 && f.pushes == 1,
	   "need_push set: PUSH after moving the tail");
	ok(tx(&f, src, 5, 0) == 5 && f.pushes == 2, "need_push still set: PUSH again");

	/* full ring */
	fake_init(&f, 0);
	f.nonblock = true;
	ok(tx(&f, src, 100, 0) == SIZE && f.hdr.tail == SIZE,
	   "O_NONBLOCK: partial send fills the ring (64 of 100)");
	f.hdr.tail = f.hdr.head = 0;
	f.hdr.tail = 60;
	usor_ring_seen_init(&f.r);
	f.r.nb_hint = 0;
	ok(tx(&f, src, 10, 0) == 4 && f.file_eagain >= 1,
	   "O_NONBLOCK unknown, 4 of a small send's 10 fit: WAIT says EAGAIN, 4 go");
	f.hdr.tail = SIZE;
	ok(tx(&f, src, 10, 0) == -EAGAIN, "O_NONBLOCK, ring full: EAGAIN");
	f.nonblock = false;
	ok(tx(&f, src, 10, USOR_X_DONTWAIT) == -EAGAIN, "MSG_DONTWAIT, ring full: EAGAIN");
	/* blocking: the peer drains while we wait */
	f.on_wait = on_wait_drain;
	ok(tx(&f, src, 200, 0) == 200 && f.waits >= 3,
	   "blocking send of 200 through a 64-byte ring: waits while the peer drains");
	ok(tx(&f, src, 0, 0) == 0, "zero-length send: 0");

	fake_init(&f, 0);
	f.hdr.flags |= EUSRV_SOR_RF_PEER_CLOSED;
	ok(tx(&f, src, 10, 0) == -EPIPE, "peer closed: EPIPE");
	fake_init(&f, 0);
	f.hdr.flags |= EUSRV_SOR_RF_SHUT;
	ok(tx(&f, src, 10, 0) == -EPIPE, "after shutdown(SHUT_WR): EPIPE");
	fake_init(&f, 0);
	f.hdr.flags |= EUSRV_SOR_RF_ERROR;
	f.err = ECONNRESET;
	ok(tx(&f, src, 10, 0) == -ECONNRESET, "failed connection: its error");
	fake_init(&f, 0);
	tx(&f, src, SIZE, 0);
	f.on_wait = on_wait_reset;
	ok(tx(&f, src, 10, 0) == -ECONNRESET, "reset while waiting for room: ECONNRESET");
	fake_init(&f, 0);
	tx(&f, src, SIZE, 0);
	x.timeout_ns = 1000;
	{
		struct iovec one = { .iov_base = src, .iov_len = 10 };
		struct usor_src s = { .iov = &one, .iovcnt = 1 };

		ok(usor_ring_send(&f.r, &kops, &f, &s, &x) == -EAGAIN,
		   "SO_SNDTIMEO: EAGAIN when no room comes");
	}
	fake_init(&f, 0);
	f.hdr.head = 10;	/* corrupt: head ahead of tail, as mapped */
	usor_ring_seen_init(&f.r);
	ok(tx(&f, src, 10, 0) == -EIO, "impossible head: EIO");
	ok(f.hdr.lock == 0, "send lock released");
}

/* sendfile's source: a counter that ends after LIMIT bytes. */
struct gen {
	unsigned char next;
	size_t left;
	int calls;
};

static ssize_t gen_fill(void *arg, void *dst, size_t n)
{
	struct gen *g = arg;
	size_t i;

	g->calls++;
	if (n > g->left)
		n = g->left;
	if (n > 7)
		n = 7;	/* short reads, as a pipe may give */
	for (i = 0; i < n; i++)
		((unsigned char *)dst)[i] = g->next++;
	g->left -= n;
	return (ssize_t)n;
}

static void test_fill(void)
{
	static struct fake f;
	struct gen g = { .next = 0, .left = 40 };
	struct usor_src s = { .fill = gen_fill, .arg = &g, .limit = 100 };
	unsigned char got[40];
	uint32_t i;

	fake_init(&f, 40);
	ok(usor_ring_send(&f.r, &kops, &f, &s, &plain) == 40,
	   "fill source (sendfile): 40 bytes in short reads, ends at EOF");
	for (i = 0; i < 40; i++)
		got[i] = f.data[(40 + i) & (SIZE - 1)];
	ok(seq_ok(got, 40, 0), "fill source: bytes in order across the wrap");
	fake_init(&f, 0);
	g.next = 0;
	g.left = 1000;
	s.limit = 20;
	ok(usor_ring_send(&f.r, &kops, &f, &s, &plain) == 20 && g.left == 980,
	   "fill source: stops at the count asked");
}

/* ---- the send lock between threads ---- */

#define RECORD	16
#define RECORDS	2000
#define SENDERS	3

static struct fake tf;
static int stop;

/*
 * Byte n of sender S is S << 6 | (n & 63).  The lock is not held across a
 * wait, but a small send waits for room for all of it: records arrive
 * whole, and no byte is lost, doubled or reordered.
 */
static void *sender(void *arg)
{
	unsigned int who = (unsigned int)(uintptr_t)arg, n = 0;
	unsigned char rec[RECORD];
	int i, j;

	for (i = 0; i < RECORDS; i++) {
		for (j = 0; j < RECORD; j++)
			rec[j] = (unsigned char)(who << 6 | (n++ & 63));
		if (tx(&tf, rec, sizeof(rec), 0) != RECORD)
			return (void *)1;
	}
	return NULL;
}

/* The peer: takes bytes out of the send ring, checks each sender's order. */
static void *peer(void *arg)
{
	unsigned int next[SENDERS] = { 0 };
	long bad = 0, bytes = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&tf.hdr.tail, __ATOMIC_ACQUIRE) != tf.hdr.head) {
		uint32_t head = tf.hdr.head;
		uint32_t tail = __atomic_load_n(&tf.hdr.tail, __ATOMIC_ACQUIRE);

		for (; head != tail; head++, bytes++) {
			unsigned char c = tf.data[head & (SIZE - 1)];
			unsigned int who = c >> 6;

			if (who >= SENDERS || (c & 63) != (next[who] & 63))
				bad++;
			else
				next[who]++;
			/* A record's first byte starts one of its sender's. */
			if (bytes % RECORD == 0 && (c & (RECORD - 1)))
				bad++;
		}
		__atomic_store_n(&tf.hdr.head, head, __ATOMIC_RELEASE);
		sched_yield();
	}
	return (void *)(bad ? -1L : bytes);
}

static int held_in_wait;

static void on_wait_yield(struct fake *f)
{
	uint32_t me = (uint32_t)syscall(SYS_gettid) & EUSRV_SOR_LOCK_TID;

	/* Another thread may hold it meanwhile; the waiter must not. */
	if ((__atomic_load_n(&f->hdr.lock, __ATOMIC_RELAXED) & EUSRV_SOR_LOCK_TID) == me)
		__atomic_add_fetch(&held_in_wait, 1, __ATOMIC_RELAXED);
	sched_yield();
}

static void test_threads(void)
{
	pthread_t s[SENDERS], p;
	void *r;
	long bad = 0, bytes;
	int i;

	fake_init(&tf, 0);
	tf.on_wait = on_wait_yield;
	pthread_create(&p, NULL, peer, NULL);
	for (i = 0; i < SENDERS; i++)
		pthread_create(&s[i], NULL, sender, (void *)(uintptr_t)i);
	for (i = 0; i < SENDERS; i++) {
		pthread_join(s[i], &r);
		bad += r != NULL;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(p, &r);
	bytes = (long)r;
	ok(!bad && bytes == (long)SENDERS * RECORDS * RECORD,
	   "%d threads x %d records through one 64-byte ring: whole, every sender's in order (%ld bytes)",
	   SENDERS, RECORDS, bytes);
	tap_diag("lock waits under contention: %d", tf.lock_waits);
	ok(tf.hdr.lock == 0, "lock free at the end");
	ok(held_in_wait == 0, "no sender waits for room holding the lock (%d did)",
	   held_in_wait);
}

/* A thread that holds the lock (a signal handler interrupting its copy). */
static void test_lock_reentry(void)
{
	static struct fake f;
	unsigned char buf[4];

	fake_init(&f, 0);
	deliver(&f, 4);
	f.hdr.lock = (uint32_t)syscall(SYS_gettid) & EUSRV_SOR_LOCK_TID;
	ok(rx(&f, buf, sizeof(buf), 0) == -EINTR && f.hdr.head == 0,
	   "recv by the thread holding the receive lock: -EINTR, nothing taken");
	f.hdr.lock = 0;
	ok(rx(&f, buf, sizeof(buf), 0) == 4, "then, the lock free: the 4 bytes");
}

int main(void)
{
	test_recv();
	test_credit();
	test_spin();
	test_adaptive_spin();
	test_send();
	test_fill();
	test_threads();
	test_lock_reentry();
	return tap_done();
}
