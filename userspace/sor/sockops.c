// SPDX-License-Identifier: MIT
/*
 * The socket calls on a connection over RDMA: data (ring.c does the work),
 * shutdown, options (opts.c keeps them), names and fstat.  A descriptor
 * that is not a connection goes to the real call after one table lookup.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>

#include "inaddr.h"
#include "usor_internal.h"

/* ---- the kernel side of the rings ------------------------------------------ */

static int kx_push(void *ctx)
{
	const struct usor_kctx *k = ctx;

	return usor_r->ioctl(k->fd, EUSRV_SOR_PUSH, NULL) < 0 ? -errno : 0;
}

static int kx_credit(void *ctx)
{
	const struct usor_kctx *k = ctx;

	return usor_r->ioctl(k->fd, EUSRV_SOR_CREDIT, NULL) < 0 ? -errno : 0;
}

void usor_wait_abandoned(void *c)
{
	usor_conn_put(c);
}

/*
 * The wait is a cancellation point.  A thread cancelled in it never
 * returns to its caller, which holds a reference on the connection (taken
 * by the table lookup): the front end keeps it for the thread meanwhile
 * and hands it to usor_wait_abandoned when the thread exits.  The rings'
 * lock is never held across the wait.
 */
static int kx_wait(void *ctx, uint32_t events, int nonblock, int64_t timeout_ns,
		   uint32_t room, uint32_t *revents)
{
	const struct usor_kctx *k = ctx;
	struct eusrv_sor_wait w;
	int r;

	memset(&w, 0, sizeof(w));
	w.events = events;
	w.flags = nonblock > 0 ? EUSRV_SOR_F_NONBLOCK :
		  nonblock < 0 ? EUSRV_SOR_F_FILE : 0;
	w.timeout_ns = timeout_ns;
	w.room = room;
	usor_r->wait_begin(k->c);
	r = usor_r->ioctl_wait(k->fd, EUSRV_SOR_WAIT, &w);
	usor_r->wait_end();
	if (r < 0)
		return -errno;
	*revents = w.revents;
	return 0;
}

static int kx_lock_wait(void *ctx, uint32_t which)
{
	const struct usor_kctx *k = ctx;

	return usor_r->ioctl(k->fd, EUSRV_SOR_LOCK_WAIT, &which) < 0 ? -errno : 0;
}

static int kx_lock_wake(void *ctx, uint32_t which)
{
	const struct usor_kctx *k = ctx;

	return usor_r->ioctl(k->fd, EUSRV_SOR_LOCK_WAKE, &which) < 0 ? -errno : 0;
}

static int kx_get_error(void *ctx)
{
	const struct usor_kctx *k = ctx;
	int32_t err = 0;

	if (usor_r->ioctl(k->fd, EUSRV_SOR_GET_ERROR, &err) < 0)
		return errno;
	return err;
}

static bool kx_nonblocking(void *ctx)
{
	const struct usor_kctx *k = ctx;
	int fl = usor_r->fcntl(k->fd, F_GETFL, 0);

	return fl >= 0 && (fl & O_NONBLOCK);
}

static int64_t kx_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	usor_r->clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * USOR_NS_PER_S + ts.tv_nsec;
}

static void kx_yield(void *ctx)
{
	(void)ctx;
	usor_r->sched_yield();
}

static int kx_tid(void *ctx)
{
	(void)ctx;
	return (int)usor_r->gettid();
}

const struct usor_kops usor_kops_dev = {
	.push = kx_push,
	.credit = kx_credit,
	.wait = kx_wait,
	.lock_wait = kx_lock_wait,
	.lock_wake = kx_lock_wake,
	.get_error = kx_get_error,
	.nonblocking = kx_nonblocking,
	.now_ns = kx_now,
	.yield = kx_yield,
	.tid = kx_tid,
};

/* ---- data -------------------------------------------------------------- */

static int64_t spin_ns(void)
{
	const struct usor_state *st = usor_state_get();

	return st ? st->spin_ns : 0;
}

static ssize_t do_recv(int fd, struct usor_conn *c, const struct iovec *iov,
		       int iovcnt, int flags)
{
	struct usor_kctx k = { .fd = fd, .c = c };
	struct usor_xfer x;
	ssize_t r;

	if (flags & MSG_OOB) {
		r = -EINVAL;	/* TCP without urgent data */
		goto out;
	}
	if (flags & MSG_ERRQUEUE) {
		r = -EAGAIN;
		goto out;
	}
	memset(&x, 0, sizeof(x));
	if (flags & MSG_PEEK)
		x.flags |= USOR_X_PEEK;
	if (flags & MSG_WAITALL)
		x.flags |= USOR_X_WAITALL;
	if (flags & MSG_DONTWAIT)
		x.flags |= USOR_X_DONTWAIT;
	if (flags & MSG_TRUNC)
		x.flags |= USOR_X_TRUNC;
	x.flags |= __atomic_load_n(&c->shut, __ATOMIC_RELAXED);
	x.timeout_ns = __atomic_load_n(&c->rcvtimeo_ns, __ATOMIC_RELAXED);
	x.spin_ns = spin_ns();
	r = usor_ring_recv(&c->rcv, &usor_kops_dev, &k, iov, iovcnt, &x);
out:
	usor_conn_put(c);
	return r < 0 ? usor_fail(r) : r;
}

static ssize_t do_send(int fd, struct usor_conn *c, struct usor_src *src,
		       int flags)
{
	struct usor_kctx k = { .fd = fd, .c = c };
	struct usor_xfer x;
	ssize_t r;

	if (flags & MSG_OOB) {
		r = -EOPNOTSUPP;	/* no urgent data over RDMA */
		goto out;
	}
	memset(&x, 0, sizeof(x));
	if (flags & MSG_DONTWAIT)
		x.flags |= USOR_X_DONTWAIT;
	x.timeout_ns = __atomic_load_n(&c->sndtimeo_ns, __ATOMIC_RELAXED);
	x.spin_ns = spin_ns();
	r = usor_ring_send(&c->snd, &usor_kops_dev, &k, src, &x);
out:
	usor_conn_put(c);
	if (r == -EPIPE && !(flags & MSG_NOSIGNAL))
		usor_r->raise(SIGPIPE);
	return r < 0 ? usor_fail(r) : r;
}

static bool bad_iov(const struct iovec *iov, int iovcnt)
{
	return iovcnt < 0 || iovcnt > IOV_MAX || (iovcnt && !iov);
}

/*
 * FD was not in the table and the real call gave R: true, with *C, when
 * that failed with ENOTSOCK on a connection this process did not create
 * (inherited across exec, received with SCM_RIGHTS), now adopted.
 */
static bool adopted(long r, int fd, struct usor_conn **c)
{
	if (r >= 0 || errno != ENOTSOCK)
		return false;
	*c = usor_adopt(fd);
	return *c != NULL;
}

ssize_t usor_read(int fd, void *buf, size_t n)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct iovec v = { .iov_base = buf, .iov_len = n };

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c)
		return usor_r->read(fd, buf, n);
	return do_recv(fd, c, &v, 1, 0);
}

ssize_t usor_readv(int fd, const struct iovec *iov, int iovcnt)
{
	struct usor_conn *c = usor_fd_route_io(&fd);

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c)
		return usor_r->readv(fd, iov, iovcnt);
	if (bad_iov(iov, iovcnt)) {
		usor_conn_put(c);
		return usor_fail(-EINVAL);
	}
	return do_recv(fd, c, iov, iovcnt, 0);
}

ssize_t usor_recvfrom(int fd, void *buf, size_t n, int flags,
		     struct sockaddr *addr, socklen_t *len)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct iovec v = { .iov_base = buf, .iov_len = n };

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		ssize_t r = usor_r->recvfrom(fd, buf, n, flags, addr, len);

		if (!adopted(r, fd, &c))
			return r;
	}
	if (addr && len)
		*len = 0;	/* TCP gives no address */
	return do_recv(fd, c, &v, 1, flags);
}

/*
 * recvmsg, or with TIME64 __recvmsg64 (a 32-bit ABI's: the control
 * messages of a socket that is not a connection as 64-bit time has them).
 */
static ssize_t recvmsg_any(int fd, struct msghdr *msg, int flags, bool time64)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	ssize_t r;

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		r = time64 ? usor_r->recvmsg64(fd, msg, flags) :
			     usor_r->recvmsg(fd, msg, flags);
		if (!adopted(r, fd, &c))
			return r;
	}
	if (!msg || bad_iov(msg->msg_iov, (int)msg->msg_iovlen) ||
	    msg->msg_iovlen > IOV_MAX) {
		usor_conn_put(c);
		return usor_fail(msg ? -EINVAL : -EFAULT);
	}
	r = do_recv(fd, c, msg->msg_iov, (int)msg->msg_iovlen, flags);
	if (r >= 0) {
		msg->msg_namelen = 0;
		msg->msg_controllen = 0;
		msg->msg_flags = 0;
	}
	return r;
}

ssize_t usor_recvmsg(int fd, struct msghdr *msg, int flags)
{
	return recvmsg_any(fd, msg, flags, false);
}

ssize_t usor_recvmsg64(int fd, struct msghdr *msg, int flags)
{
	return recvmsg_any(fd, msg, flags, true);
}

ssize_t usor_write(int fd, const void *buf, size_t n)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct iovec v = { .iov_base = (void *)buf, .iov_len = n };
	struct usor_src s = { .iov = &v, .iovcnt = 1 };

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c)
		return usor_r->write(fd, buf, n);
	return do_send(fd, c, &s, 0);
}

ssize_t usor_writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct usor_src s = { .iov = iov, .iovcnt = iovcnt };

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c)
		return usor_r->writev(fd, iov, iovcnt);
	if (bad_iov(iov, iovcnt)) {
		usor_conn_put(c);
		return usor_fail(-EINVAL);
	}
	return do_send(fd, c, &s, 0);
}

ssize_t usor_sendto(int fd, const void *buf, size_t n, int flags,
		   const struct sockaddr *addr, socklen_t len)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct iovec v = { .iov_base = (void *)buf, .iov_len = n };
	struct usor_src s = { .iov = &v, .iovcnt = 1 };

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		ssize_t r = usor_r->sendto(fd, buf, n, flags, addr, len);

		if (!adopted(r, fd, &c))
			return r;
	}
	/* A connected TCP socket ignores the address. */
	return do_send(fd, c, &s, flags);
}

ssize_t usor_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	struct usor_src s;

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		ssize_t r = usor_r->sendmsg(fd, msg, flags);

		if (!adopted(r, fd, &c))
			return r;
	}
	if (!msg || bad_iov(msg->msg_iov, (int)msg->msg_iovlen) ||
	    msg->msg_iovlen > IOV_MAX) {
		usor_conn_put(c);
		return usor_fail(msg ? -EINVAL : -EFAULT);
	}
	memset(&s, 0, sizeof(s));
	s.iov = msg->msg_iov;
	s.iovcnt = (int)msg->msg_iovlen;
	return do_send(fd, c, &s, flags);
}

/*
 * sendmmsg and recvmmsg on a connection: one sendmsg or recvmsg a
 * message, as the kernel's own are on a stream socket.  An error after
 * at least one message ends the call with the count (the error shows at
 * the next call); recvmmsg stops at EOF, takes MSG_WAITFORONE, and looks
 * at its timeout after each message, as the kernel's does.
 */
int usor_sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	unsigned int i;
	int e = errno;
	ssize_t r;

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		int n = usor_r->sendmmsg(fd, vec, vlen, flags);

		if (!adopted(n, fd, &c))
			return n;
	}
	usor_conn_put(c);	/* each message looks it up again */
	if (vlen && !vec)
		return (int)usor_fail(-EFAULT);
	if (vlen > IOV_MAX)
		vlen = IOV_MAX;
	for (i = 0; i < vlen; i++) {
		r = usor_sendmsg(fd, &vec[i].msg_hdr, flags);
		if (r < 0) {
			if (!i)
				return -1;
			break;
		}
		vec[i].msg_len = (unsigned int)r;
	}
	errno = e;
	return (int)i;
}

/*
 * recvmmsg's timeout TS, a struct timespec or with TIME64 a struct
 * usor_timespec64: in nanoseconds (at most INT64_MAX), or -1 when the
 * kernel would not take it (EINVAL).
 */
static int64_t timeout_get(const void *ts, bool time64)
{
	const struct usor_timespec64 *t64 = ts;
	const struct timespec *t = ts;
	int64_t sec = time64 ? t64->tv_sec : (int64_t)t->tv_sec;
	int64_t ns = time64 ? t64->tv_nsec : (int64_t)t->tv_nsec;

	if (sec < 0 || ns < 0 || ns >= USOR_NS_PER_S)
		return -1;
	if (sec > (INT64_MAX - ns) / USOR_NS_PER_S)
		return INT64_MAX;
	return sec * USOR_NS_PER_S + ns;
}

/* What is left of it (NS nanoseconds), as the kernel writes it back. */
static void timeout_put(void *ts, bool time64, int64_t ns)
{
	struct usor_timespec64 *t64 = ts;
	struct timespec *t = ts;

	if (time64) {
		t64->tv_sec = ns / USOR_NS_PER_S;
		t64->tv_nsec = (int32_t)(ns % USOR_NS_PER_S);
		t64->pad = 0;
	} else {
		t->tv_sec = (time_t)(ns / USOR_NS_PER_S);
		t->tv_nsec = (long)(ns % USOR_NS_PER_S);
	}
}

/* recvmmsg, or with TIME64 __recvmmsg64 (TIMEOUT is a usor_timespec64). */
static int recvmmsg_any(int fd, struct mmsghdr *vec, unsigned int vlen,
			int flags, void *timeout, bool time64)
{
	struct usor_conn *c = usor_fd_route_io(&fd);
	int64_t deadline = 0, now;
	unsigned int i;
	int e = errno;
	ssize_t r;

	if (!c && fd == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	if (!c) {
		int n = time64 ? usor_r->recvmmsg64(fd, vec, vlen, flags, timeout) :
				 usor_r->recvmmsg(fd, vec, vlen, flags, timeout);

		if (!adopted(n, fd, &c))
			return n;
	}
	usor_conn_put(c);
	if (vlen && !vec)
		return (int)usor_fail(-EFAULT);
	if (timeout) {
		deadline = timeout_get(timeout, time64);
		if (deadline < 0)
			return (int)usor_fail(-EINVAL);
		now = kx_now(NULL);
		deadline = deadline > INT64_MAX - now ? INT64_MAX : now + deadline;
	}
	if (vlen > IOV_MAX)
		vlen = IOV_MAX;
	for (i = 0; i < vlen; i++) {
		r = recvmsg_any(fd, &vec[i].msg_hdr, flags & ~MSG_WAITFORONE, time64);
		if (r < 0) {
			if (!i)
				return -1;
			break;
		}
		vec[i].msg_len = (unsigned int)r;
		if (!r) {
			i++;
			break;	/* EOF */
		}
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (timeout && kx_now(NULL) >= deadline) {
			i++;
			break;
		}
	}
	if (timeout) {
		now = kx_now(NULL);
		timeout_put(timeout, time64, deadline > now ? deadline - now : 0);
	}
	errno = e;
	return (int)i;
}

int usor_recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		 struct timespec *timeout)
{
	return recvmmsg_any(fd, vec, vlen, flags, timeout, false);
}

int usor_recvmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		    struct usor_timespec64 *timeout)
{
	return recvmmsg_any(fd, vec, vlen, flags, timeout, true);
}

/*
 * sendfile's source: the file IN, at *OFF (pread, pread64 if LARGE) or
 * its own offset.
 */
struct file_src {
	int in;
	bool large;
	int64_t *off;
};

static ssize_t file_fill(void *arg, void *dst, size_t n)
{
	struct file_src *f = arg;
	ssize_t got;

	do {
		if (f->off && f->large)
			got = usor_r->pread64(f->in, dst, n, *f->off);
		else if (f->off)
			got = usor_r->pread(f->in, dst, n, (off_t)*f->off);
		else
			got = usor_r->read(f->in, dst, n);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (f->off)
		*f->off += got;
	return got;
}

/*
 * sendfile, or with LARGE sendfile64 (OFF an int64_t, else an off_t):
 * the offset goes as far as the caller's type holds, as in the kernel,
 * which sends less (or fails with EOVERFLOW) before it would pass it.
 */
static ssize_t sendfile_any(int out, int in, void *off, size_t n, bool large)
{
	struct usor_conn *c = usor_fd_route_io(&out);
	int64_t pos = 0, max = large || sizeof(off_t) == sizeof(int64_t) ?
			      INT64_MAX : INT32_MAX;
	struct file_src f = { .in = in, .large = large, .off = off ? &pos : NULL };
	struct usor_src s;
	ssize_t r;

	if (!c && out == USOR_FD_FAILED)
		return -1;	/* set-up still going on: EAGAIN, EINTR */
	/* One not adopted yet is served by the driver's splice_write. */
	if (!c)
		return large ? usor_r->sendfile64(out, in, off, n) :
			       usor_r->sendfile(out, in, off, n);
	if (off) {
		pos = large ? *(int64_t *)off : (int64_t)*(off_t *)off;
		if (pos < 0 || pos >= max) {
			usor_conn_put(c);
			return usor_fail(pos < 0 ? -EINVAL : -EOVERFLOW);
		}
		if (n > (uint64_t)(max - pos))
			n = (size_t)(max - pos);
	}
	memset(&s, 0, sizeof(s));
	s.fill = file_fill;
	s.arg = &f;
	s.limit = n;
	r = do_send(out, c, &s, 0);	/* SIGPIPE as TCP gives */
	if (off && large)
		*(int64_t *)off = pos;
	else if (off)
		*(off_t *)off = (off_t)pos;
	return r;
}

ssize_t usor_sendfile(int out, int in, off_t *off, size_t n)
{
	return sendfile_any(out, in, off, n, false);
}

ssize_t usor_sendfile64(int out, int in, int64_t *off, size_t n)
{
	return sendfile_any(out, in, off, n, true);
}

int usor_shutdown(int fd, int how)
{
	struct usor_conn *c = usor_fd_route(&fd);
	uint32_t h = (uint32_t)how;
	int r;

	if (!c) {
		r = usor_r->shutdown(fd, how);
		if (!adopted(r, fd, &c))
			return r;
	}
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
		usor_conn_put(c);
		return (int)usor_fail(-EINVAL);
	}
	r = usor_r->ioctl(fd, EUSRV_SOR_SHUTDOWN, &h);
	if (r == 0 && how != SHUT_WR) {
		__atomic_or_fetch(&c->shut, USOR_X_SHUT_RD, __ATOMIC_RELAXED);
		usor_face_save(c);
	}
	usor_conn_put(c);
	return r;
}

/* ---- options ------------------------------------------------------------- */

int usor_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct usor_conn *c = usor_fd_route(&fd);
	int r;

	if (!c) {
		r = usor_r->getsockopt(fd, level, name, val, len);
		if (!adopted(r, fd, &c))
			return r;
	}
	r = usor_conn_getopt(c, fd, level, name, val, len);
	usor_conn_put(c);
	return r < 0 ? (int)usor_fail(r) : 0;
}

/* Ring size wish (log2) for BYTES asked with SO_SNDBUF/SO_RCVBUF. */
static uint32_t shift_of(int bytes)
{
	uint32_t s = EUSRV_SOR_RING_MIN_SHIFT;

	if (bytes <= 0)
		return 0;
	while (s < EUSRV_SOR_RING_MAX_SHIFT && (1UL << s) < (unsigned long)bytes)
		s++;
	return s;
}

/* A plain socket's SO_SNDBUF/SO_RCVBUF wish, kept for its connection. */
static void remember_wish(int fd, int name, const void *val, socklen_t len)
{
	const struct usor_state *st;
	uintptr_t aux;
	uint32_t s, r;
	int v;

	if (len < (socklen_t)sizeof(int) || !val || usor_absent())
		return;
	st = usor_state_get();
	if (!st)
		return;
	memcpy(&v, val, sizeof(v));
	aux = usor_fd_aux(fd);
	s = (uint32_t)USOR_AUX_SND_SHIFT(aux);
	r = (uint32_t)USOR_AUX_RCV_SHIFT(aux);
	if (name == SO_SNDBUF)
		s = shift_of(v);
	else
		r = shift_of(v);
	usor_fd_set_aux(fd, USOR_AUX_MK(aux & USOR_AUX_LISTENER, s, r,
				      USOR_AUX_PORT(aux)));
}

int usor_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct usor_conn *c = usor_fd_route(&fd);
	int r;

	if (!c) {
		int e;

		r = usor_r->setsockopt(fd, level, name, val, len);
		if (adopted(r, fd, &c))
			goto conn;
		e = errno;
		if (!r && level == SOL_SOCKET &&
		    (name == SO_SNDBUF || name == SO_RCVBUF))
			remember_wish(fd, name, val, len);
		errno = e;
		return r;
	}
conn:
	r = usor_conn_setopt(c, fd, level, name, val, len);
	if (r == 0)
		usor_face_save(c);
	usor_conn_put(c);
	return r < 0 ? (int)usor_fail(r) : 0;
}

/* ---- names, fstat ---------------------------------------------------------- */

static int name_of(int fd, struct sockaddr *addr, socklen_t *len, bool peer)
{
	struct usor_conn *c = usor_fd_route(&fd);
	struct sockaddr_storage a;
	socklen_t l;

	if (!c) {
		int r = peer ? usor_r->getpeername(fd, addr, len) :
			       usor_r->getsockname(fd, addr, len);

		if (!adopted(r, fd, &c))
			return r;
	}
	l = usor_v4_as(c->family, peer ? &c->peer : &c->local, &a);
	usor_conn_put(c);
	if (!addr || !len)
		return (int)usor_fail(-EFAULT);
	if ((int)*len < 0)
		return (int)usor_fail(-EINVAL);
	memcpy(addr, &a, *len < l ? *len : l);
	*len = l;
	return 0;
}

int usor_getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	return name_of(fd, addr, len, false);
}

int usor_getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	return name_of(fd, addr, len, true);
}

mode_t usor_stat_mode(int fd, mode_t mode)
{
	struct usor_conn *c;

	if (!usor_is_conn(fd)) {
		/* Not ours yet; a connection file has no file type bits. */
		if (mode & S_IFMT)
			return mode;
		c = usor_adopt(fd);
		if (!c)
			return mode;
		usor_conn_put(c);
	}
	/* What a socket's inode says. */
	return S_IFSOCK | S_IRWXU | S_IRWXG | S_IRWXO;
}

int usor_fstat(int fd, struct stat *st)
{
	int r = usor_r->fstat(fd, st);

	if (r == 0)
		st->st_mode = usor_stat_mode(fd, st->st_mode);
	return r;
}
