// SPDX-License-Identifier: MIT
/*
 * The descriptor table of the interception core (userspace/sor/fdtab.c):
 * lookups, references, dup-style sharing, close, aux words, reuse of
 * objects, fork (the child's references are recounted), and lookups racing
 * with close from other threads.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usor_internal.h"
#include "tap.h"

static int unmaps;

static void *alloc(unsigned long len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap(struct usor_conn *c)
{
	__atomic_add_fetch(&unmaps, 1, __ATOMIC_RELAXED);
	c->map = NULL;
}

/* A connection installed at FD as the core does (table ref only). */
static struct usor_conn *install(int fd)
{
	struct usor_conn *c = usor_conn_alloc(), *old;

	c->map = (void *)1;
	old = usor_fd_set(fd, c);
	if (old)
		usor_conn_put(old);
	usor_conn_put(c);
	return c;
}

static struct usor_conn *fd_close(int fd)
{
	struct usor_conn *old = usor_fd_set(fd, NULL);

	if (old)
		usor_conn_put(old);
	return old;
}

static bool lookup_is(int fd, const struct usor_conn *want)
{
	struct usor_conn *c = usor_fd_get(fd);

	if (c)
		usor_conn_put(c);
	return c == want;
}

/* ---- threads: lookups against close and reuse ---- */

static int stop;

static void *reader(void *arg)
{
	long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct usor_conn *c = usor_fd_get(7);

		if (c) {
			if (!c->map || !c->busy)
				return (void *)-1L;	/* freed under us */
			usor_conn_put(c);
			n++;
		}
	}
	return (void *)n;
}

int main(void)
{
	struct usor_conn *a, *b;
	pthread_t t[2];
	int i, status;
	long bad = 0, seen = 0;
	pid_t pid;

	ok(!usor_fd_get(3) && !usor_fd_in_use(), "empty table: no lookup cost but one load");
	ok(!usor_fd_set(5, NULL) && !usor_fd_in_use(), "clearing an empty table allocates nothing");
	usor_fd_setup(alloc, unmap);

	a = install(5);
	ok(lookup_is(5, a) && a->refs == 1, "installed connection found, one (table) reference");
	ok(!usor_fd_get(4) && !usor_fd_get(-1) && !usor_fd_get((int)USOR_FD_MAX) &&
	   !usor_fd_get(4000), "other, negative, huge and unallocated fds: none");

	/* dup: a second entry shares the object */
	b = usor_fd_get(5);
	usor_fd_set(9, b);
	usor_conn_put(b);
	ok(lookup_is(9, a) && a->refs == 2, "dup: fd 9 shares the connection (2 refs)");
	ok(fd_close(5) == a && unmaps == 0 && lookup_is(9, a),
	   "close of one fd: the other still works, nothing unmapped");
	/* dup2 over a connection: the replaced one is dropped */
	b = install(12);
	a = usor_fd_get(9);
	{
		struct usor_conn *old = usor_fd_set(12, a);

		if (old)
			usor_conn_put(old);
	}
	usor_conn_put(a);
	ok(unmaps == 1 && lookup_is(12, a) && !b->busy,
	   "dup2 onto a connection fd: the old one is released and unmapped");
	fd_close(9);
	ok(unmaps == 1, "still one unmap: fd 12 holds it");
	fd_close(12);
	ok(unmaps == 2 && !a->busy, "last close unmaps and frees");
	ok(!usor_fd_get(12) && !usor_fd_get(9), "closed fds look empty");

	/* objects are reused */
	b = install(20);
	ok(b == a || b->busy, "a freed object is reused for the next connection");
	fd_close(20);

	/* aux words */
	ok(usor_fd_set_aux(30, USOR_AUX_MK(1, 14, 20, 8080)) &&
	   USOR_AUX_PORT(usor_fd_aux(30)) == 8080 &&
	   USOR_AUX_SND_SHIFT(usor_fd_aux(30)) == 14 &&
	   USOR_AUX_RCV_SHIFT(usor_fd_aux(30)) == 20 &&
	   (usor_fd_aux(30) & USOR_AUX_LISTENER) && !usor_fd_get(30),
	   "aux word: listener port 8080, shifts 14/20; not a connection");
	a = install(31);
	ok(!usor_fd_set_aux(31, USOR_AUX_MK(0, 12, 0, 0)) && lookup_is(31, a),
	   "aux never replaces a connection");
	fd_close(30);
	ok(!usor_fd_aux(30), "close clears the aux word");

	/* close_range / closefrom */
	install(1500);
	install(1501);
	usor_fd_set_aux(1502, USOR_AUX_MK(0, 13, 13, 0));
	i = unmaps;
	usor_fd_forget_range(1000, ~0U);
	ok(unmaps == i + 2 && !usor_fd_get(1500) && !usor_fd_aux(1502) && lookup_is(31, a),
	   "forget 1000..: two connections released, aux gone, fd 31 kept");

	/* fork: an in-flight reference of another thread does not survive */
	b = usor_fd_get(31);	/* as if a thread were inside recv() */
	pid = fork();
	if (pid == 0) {
		usor_fd_fork_child();
		/* Table reference only; closing releases it. */
		if (a->refs != 1)
			_exit(1);
		if (!lookup_is(31, a))
			_exit(2);
		fd_close(31);
		_exit(a->busy ? 3 : 0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "fork: the child's references are recounted; its close frees (status %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ok(a->refs == 2 && a->busy, "the parent is unaffected");
	usor_conn_put(b);
	fd_close(31);

	/* lookups racing with close and reinstall */
	install(7);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (i = 0; i < 20000; i++) {
		fd_close(7);
		install(7);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++) {
		void *r;

		pthread_join(t[i], &r);
		if ((long)r < 0)
			bad++;
		else
			seen += (long)r;
	}
	ok(!bad, "20000 close/reinstall cycles against 2 reader threads: never a freed object (%ld lookups)",
	   seen);
	fd_close(7);
	return tap_done();
}
