// SPDX-License-Identifier: MIT
/*
 * The descriptor-table bookkeeping of the calls that close or duplicate
 * descriptors (close, close_range, closefrom, the dup family, fcntl's
 * F_DUPFD): the table follows what the kernel did.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "usor_internal.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

int usor_close(int fd)
{
	struct usor_conn *old;
	int r;

	if (usor_fd_in_use() && usor_table_borrowed())
		return usor_r->close(fd);
	old = usor_fd_set(fd, NULL);
	usor_ctl_gone(fd);
	if (fd >= 0)
		usor_park_gone((unsigned int)fd, (unsigned int)fd);
	r = usor_r->close(fd);
	if (old) {
		int e = errno;

		usor_conn_put(old);
		errno = e;
	}
	return r;
}

static void forget_range(unsigned int first, unsigned int last)
{
	int ctl = usor_ctl_fd();

	if (usor_fd_in_use() && usor_table_borrowed())
		return;
	if (ctl >= 0 && (unsigned int)ctl >= first && (unsigned int)ctl <= last)
		usor_ctl_gone(ctl);
	usor_park_gone(first, last);
	usor_fd_forget_range(first, last);
}

void usor_closefrom_before(int low)
{
	if (low >= 0)
		forget_range((unsigned int)low, ~0U);
}

int usor_close_range(unsigned int first, unsigned int last, int flags)
{
	int r = usor_r->close_range(first, last, flags), e = errno;

	if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		forget_range(first, last);
	errno = e;
	return r;
}

int usor_is_conn(int fd)
{
	struct usor_conn *c = usor_fd_get(fd);

	if (c)
		usor_conn_put(c);
	return c != NULL;
}

/* After a successful dup of FD to NFD: NFD is what FD is. */
static void dup_done(int fd, int nfd)
{
	struct usor_conn *c, *old;
	uintptr_t aux;

	if (usor_fd_in_use() && usor_table_borrowed())
		return;
	usor_ctl_gone(nfd);
	usor_park_gone((unsigned int)nfd, (unsigned int)nfd);
	if (!usor_fd_in_use())
		return;
	c = usor_fd_get(fd);
	aux = c ? 0 : usor_fd_aux(fd);
	old = usor_fd_set(nfd, c);
	if (aux)
		usor_fd_set_aux(nfd, aux);
	if (old)
		usor_conn_put(old);
	if (c)
		usor_conn_put(c);
}

int usor_dup(int fd)
{
	int r = usor_r->dup(fd), e = errno;

	if (r >= 0)
		dup_done(fd, r);
	errno = e;
	return r;
}

int usor_dup3(int fd, int newfd, int flags)
{
	int r = usor_r->dup3(fd, newfd, flags), e = errno;

	if (r >= 0 && fd != newfd)
		dup_done(fd, newfd);
	errno = e;
	return r;
}

int usor_dup2(int fd, int newfd)
{
	return usor_dup3(fd, newfd, 0);
}

/* R of fcntl(FD, CMD): a new descriptor shares FD's connection. */
static int fcntl_done(int fd, int cmd, int r)
{
	int e = errno;

	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		dup_done(fd, r);
	errno = e;
	return r;
}

int usor_fcntl(int fd, int cmd, uintptr_t arg)
{
	return fcntl_done(fd, cmd, usor_r->fcntl(fd, cmd, arg));
}

int usor_fcntl64(int fd, int cmd, uintptr_t arg)
{
	return fcntl_done(fd, cmd, usor_r->fcntl64(fd, cmd, arg));
}
