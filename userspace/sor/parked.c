// SPDX-License-Identifier: MIT
/*
 * Accepted connections parked across a per-call error.  accept() on a
 * registered listener takes the dummy's TCP socket, then claims the
 * connection with ACCEPT, which needs a descriptor and memory of its own.
 * When that fails (EMFILE, ENFILE, ENOMEM) TCP would return the error and
 * keep the connection in the backlog; so does the library: it parks the
 * dummy's socket (the driver keeps the connection claimable while it is
 * open) and the listener's next accept() claims that one first.
 *
 * A parked socket is close-on-exec, named by its inode as well as its
 * number (the program may close the number behind the library's back,
 * closefrom() or a loop over all descriptors, and a new file take it),
 * and closed with its listener, as TCP drops a closed listener's backlog.
 * A fork child keeps its copies: whichever process claims the connection
 * first gets it, the other's ACCEPT fails and it drops its copy.
 *
 * Lock-free and async-signal-safe (accept and close are): a slot is taken
 * by moving its state from FREE or READY to BUSY with a compare-and-swap.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "usor_atomic.h"
#include "usor_internal.h"

#define PARK_SLOTS	16

enum { PARK_FREE, PARK_BUSY, PARK_READY };

struct parked {
	int state;
	int lfd, nfd;		/* the listener and the dummy's socket */
	ino_t lino, nino;	/* their inodes when parked */
};

static struct parked park[PARK_SLOTS];
/* Slots not FREE: accept() and close() look no further while it is 0. */
static int parked_n;

static bool same_file(int fd, ino_t ino)
{
	struct stat s;

	return usor_r->fstat(fd, &s) == 0 && s.st_ino == ino;
}

static bool take(struct parked *p, int from)
{
	return __atomic_compare_exchange_n(&p->state, &from, PARK_BUSY, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void release(struct parked *p)
{
	__atomic_store_n(&p->state, PARK_FREE, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&parked_n, 1, __ATOMIC_RELEASE);
}

/* Drop P's socket (if it is still the one parked) and free P. */
static void drop(struct parked *p)
{
	if (same_file(p->nfd, p->nino))
		usor_r->close(p->nfd);
	release(p);
}

bool usor_park(int lfd, int nfd)
{
	struct stat ls, ns;
	int i, e = errno;

	if (usor_r->fstat(lfd, &ls) || usor_r->fstat(nfd, &ns) ||
	    usor_r->fcntl(nfd, F_SETFD, FD_CLOEXEC)) {
		errno = e;
		return false;
	}
	errno = e;
	__atomic_fetch_add(&parked_n, 1, __ATOMIC_ACQ_REL);
	for (i = 0; i < PARK_SLOTS; i++) {
		struct parked *p = &park[i];

		if (!take(p, PARK_FREE))
			continue;
		p->lfd = lfd;
		p->nfd = nfd;
		p->lino = ls.st_ino;
		p->nino = ns.st_ino;
		__atomic_store_n(&p->state, PARK_READY, __ATOMIC_RELEASE);
		return true;
	}
	__atomic_fetch_sub(&parked_n, 1, __ATOMIC_RELEASE);
	return false;
}

int usor_unpark(int lfd)
{
	struct stat ls;
	int i, e = errno;

	if (!__atomic_load_n(&parked_n, __ATOMIC_ACQUIRE))
		return -1;
	if (usor_r->fstat(lfd, &ls)) {
		errno = e;
		return -1;
	}
	for (i = 0; i < PARK_SLOTS; i++) {
		struct parked *p = &park[i];
		int nfd;

		if (!take(p, PARK_READY))
			continue;
		if (p->lfd != lfd) {	/* another listener's */
			__atomic_store_n(&p->state, PARK_READY, __ATOMIC_RELEASE);
			continue;
		}
		if (p->lino != ls.st_ino) {
			/* Its listener was closed behind our back. */
			drop(p);
			continue;
		}
		nfd = p->nfd;
		if (!same_file(nfd, p->nino)) {
			release(p);
			continue;
		}
		release(p);
		errno = e;
		return nfd;
	}
	errno = e;
	return -1;
}

void usor_park_gone(unsigned int first, unsigned int last)
{
	int i, e = errno;

	if (!__atomic_load_n(&parked_n, __ATOMIC_ACQUIRE))
		return;
	for (i = 0; i < PARK_SLOTS; i++) {
		struct parked *p = &park[i];

		if (!take(p, PARK_READY))
			continue;
		if ((unsigned int)p->nfd >= first && (unsigned int)p->nfd <= last)
			release(p);	/* closed by the program itself */
		else if ((unsigned int)p->lfd >= first &&
			 (unsigned int)p->lfd <= last)
			drop(p);	/* the listener's backlog goes with it */
		else
			__atomic_store_n(&p->state, PARK_READY, __ATOMIC_RELEASE);
	}
	errno = e;
}

void usor_park_fork_child(void)
{
	int i, n = 0;

	/* Only this thread survived: a slot another one held is lost. */
	for (i = 0; i < PARK_SLOTS; i++) {
		if (park[i].state == PARK_BUSY)
			park[i].state = PARK_FREE;
		n += park[i].state != PARK_FREE;
	}
	parked_n = n;
}
