// SPDX-License-Identifier: MIT
/*
 * The background set-up of a non-blocking connect(): until the driver
 * says how it ended, the socket calls on the descriptor go to the
 * socket's own descriptor (the TCP one the driver gives back), and the
 * data calls wait or say EAGAIN; established, the connection is mapped
 * and takes the options set meanwhile; failed, it stays on TCP for good,
 * connected from here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "inaddr.h"
#include "usor_internal.h"

/*
 * The descriptor of connection file FD's socket that C serves its socket
 * calls with (set-up going on, or turned to TCP), taken again when the
 * program closed or replaced it (closefrom, dup2 onto it): -1 if none.
 */
int usor_tcp_fd_of(struct usor_conn *c, int fd)
{
	int t = __atomic_load_n(&c->tcp_fd, __ATOMIC_ACQUIRE);
	struct stat sb;

	if (usor_tcp_fd_still(c, t))
		return t;
	while (__atomic_exchange_n(&c->tcp_busy, 1, __ATOMIC_ACQUIRE))
		usor_r->sched_yield();
	t = c->tcp_fd;
	if (!usor_tcp_fd_still(c, t)) {
		t = usor_r->ioctl(fd, EUSRV_SOR_SOCKET, NULL);
		if (t >= 0 && usor_r->fstat(t, &sb)) {
			usor_r->close(t);
			t = -1;
		}
		if (t >= 0) {
			c->tcp_dev = (uint64_t)sb.st_dev;
			c->tcp_ino = (uint64_t)sb.st_ino;
			c->tcp_fl = usor_r->fcntl(t, F_GETFL, 0);
		}
		__atomic_store_n(&c->tcp_fd, t, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->tcp_busy, 0, __ATOMIC_RELEASE);
	return t;
}

/*
 * The set-up failed and the connection turned to TCP: connect its socket
 * (descriptor T) where connect() was going, from the program's thread, as
 * its own connect() would have been (its security policy, seccomp filter
 * and credentials apply), and tell the driver, which then waits a little
 * for TCP's answer: the program saw the file ready, which is what brought
 * it here.  A connect the socket already had (another thread, a fork) is
 * left as it is.
 */
static void tcp_connect(struct usor_conn *c, int fd, int t)
{
	struct sockaddr_storage to;
	socklen_t len = usor_v4_as(c->family, &c->peer, &to);
	int fl = usor_r->fcntl(t, F_GETFL, 0), e = 0;

	if (fl >= 0 && !(fl & O_NONBLOCK))
		usor_r->fcntl(t, F_SETFL, (uintptr_t)(fl | O_NONBLOCK));
	if (usor_r->connect(t, (struct sockaddr *)&to, len) < 0 &&
	    errno != EINPROGRESS && errno != EALREADY && errno != EISCONN &&
	    errno != EINTR)
		e = errno;
	if (fl >= 0 && !(fl & O_NONBLOCK))
		usor_r->fcntl(t, F_SETFL, (uintptr_t)fl);
	usor_r->ioctl(fd, EUSRV_SOR_TCP_STARTED, &e);
}

/*
 * A connection whose non-blocking set-up was going on when this process
 * last looked (PENDING CONNECTING): look again, as one thread at a time.
 * Established, it is mapped, takes the options set on the socket
 * meanwhile, and is a connection from now on; else the socket calls go
 * to the socket's own descriptor.  Returns the new state.
 */
unsigned int usor_settle(struct usor_conn *c, int fd)
{
	unsigned int p = USOR_PEND_CONNECTING;
	struct eusrv_sor_info in;

	while (!__atomic_compare_exchange_n(&c->pending, &p, USOR_PEND_BUSY,
					    false, __ATOMIC_ACQUIRE,
					    __ATOMIC_ACQUIRE)) {
		if (p != USOR_PEND_BUSY)
			return p;
		usor_r->sched_yield();
		p = USOR_PEND_CONNECTING;
	}
	usor_tcp_fd_of(c, fd);
	memset(&in, 0, sizeof(in));
	if (usor_r->ioctl(fd, EUSRV_SOR_INFO, &in) < 0)
		p = USOR_PEND_CONNECTING;
	else if (in.state == EUSRV_SOR_ST_TCP)
		p = USOR_PEND_TCP;
	if (p == USOR_PEND_TCP && usor_tcp_fd_still(c, c->tcp_fd))
		tcp_connect(c, fd, c->tcp_fd);
	else if (in.state == EUSRV_SOR_ST_CONNECTING ||
		 usor_conn_map_rings(c, fd, &in) < 0)
		p = USOR_PEND_CONNECTING;
	else
		p = USOR_PEND_NONE;
	if (p == USOR_PEND_NONE && usor_tcp_fd_still(c, c->tcp_fd)) {
		usor_conn_import(c, c->tcp_fd, fd, false);
		usor_r->close(c->tcp_fd);
	}
	if (p == USOR_PEND_NONE)
		c->tcp_fd = -1;
	if (p == USOR_PEND_NONE)
		usor_face_save(c);
	__atomic_store_n(&c->pending, p, __ATOMIC_RELEASE);
	return p;
}

/*
 * A data call on FD while set-up goes on: as on a TCP socket still
 * connecting, EAGAIN if non-blocking, else wait until it is over (either
 * way).  0, or a negative errno.
 */
static int wait_setup(int fd)
{
	struct eusrv_sor_wait w = {
		.events = EUSRV_SOR_W_RECV | EUSRV_SOR_W_SEND, .timeout_ns = -1,
	};
	int fl = usor_r->fcntl(fd, F_GETFL, 0);

	if (fl >= 0 && (fl & O_NONBLOCK))
		return -EAGAIN;
	/* Once it turned to TCP the socket answers WAIT with ENOTTY. */
	if (usor_r->ioctl(fd, EUSRV_SOR_WAIT, &w) < 0 && errno == EINTR)
		return -EINTR;
	return 0;
}

struct usor_conn *usor_fd_route_io(int *fd)
{
	struct usor_conn *c;
	unsigned int p;
	int e;

	if (*fd == USOR_FD_FAILED) {
		errno = EBADF;
		return NULL;
	}
	for (;;) {
		c = usor_fd_get(*fd);
		if (!c)
			return NULL;
		p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
		if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
			p = usor_settle(c, *fd);
		usor_conn_put(c);
		if (p != USOR_PEND_CONNECTING)
			return usor_fd_route(fd);
		e = wait_setup(*fd);
		if (e) {
			errno = -e;
			*fd = USOR_FD_FAILED;
			return NULL;
		}
	}
}

struct usor_conn *usor_fd_route(int *fd)
{
	struct usor_conn *c = usor_fd_get(*fd);
	unsigned int p;
	int fl, t;

	if (!c)
		return NULL;
	p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
	if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
		p = usor_settle(c, *fd);
	if (p == USOR_PEND_NONE)
		return c;
	t = usor_tcp_fd_of(c, *fd);
	if (t >= 0) {
		/* The program sets O_NONBLOCK on its descriptor, not ours. */
		fl = usor_r->fcntl(*fd, F_GETFL, 0);
		if (fl >= 0 && ((fl ^ c->tcp_fl) & O_NONBLOCK)) {
			c->tcp_fl = (c->tcp_fl & ~O_NONBLOCK) | (fl & O_NONBLOCK);
			usor_r->fcntl(t, F_SETFL, (uintptr_t)c->tcp_fl);
		}
		*fd = t;
	}
	usor_conn_put(c);
	return NULL;
}
