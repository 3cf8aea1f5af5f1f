// SPDX-License-Identifier: MIT
/*
 * The descriptor table and the pool of connection objects (fdtab.h).
 * Everything here is lock-free: a call made from a signal handler never
 * waits for the code it interrupted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <string.h>

#include "usor_atomic.h"
#include "usor_internal.h"

#define CAS(p, e, v)	__atomic_compare_exchange_n((p), (e), (v), false, \
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

/* Connection objects come in chunks of POOL_CHUNK, at most POOL_CHUNKS. */
#define POOL_CHUNK	64U
#define POOL_CHUNKS	1024U

static usor_alloc_fn *alloc_fn;
static usor_unmap_fn *unmap_fn;
static uintptr_t *chunks[USOR_FD_CHUNKS];
static struct usor_conn *pool[POOL_CHUNKS];
static bool used;

void usor_fd_setup(usor_alloc_fn *alloc, usor_unmap_fn *unmap)
{
	alloc_fn = alloc;
	unmap_fn = unmap;
}

bool usor_fd_in_use(void)
{
	return USOR_LOAD(&used);
}

/* The entry of FD; with CREATE, its chunk is allocated if missing. */
static uintptr_t *slot(int fd, bool create)
{
	uintptr_t **cp, *ch, *expect = NULL;

	if (fd < 0 || (unsigned int)fd >= USOR_FD_MAX)
		return NULL;
	cp = &chunks[(unsigned int)fd >> USOR_FD_CHUNK_SHIFT];
	ch = USOR_LOAD_ACQ(cp);
	if (!ch) {
		if (!create || !alloc_fn)
			return NULL;
		ch = alloc_fn(USOR_FD_CHUNK * sizeof(uintptr_t));
		if (!ch)
			return NULL;
		/* A lost race leaks one chunk: rare, and bounded by the table. */
		if (!CAS(cp, &expect, ch))
			ch = expect;
	}
	return &ch[(unsigned int)fd & (USOR_FD_CHUNK - 1)];
}

void usor_conn_hold(struct usor_conn *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void usor_conn_put(struct usor_conn *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (unmap_fn)
		unmap_fn(c);
	USOR_STORE_REL(&c->busy, 0);
}

struct usor_conn *usor_fd_get(int fd)
{
	uintptr_t *s, v;

	if (!USOR_LOAD(&used))
		return NULL;
	s = slot(fd, false);
	if (!s)
		return NULL;
	for (;;) {
		struct usor_conn *c;
		unsigned int r;

		v = USOR_LOAD_ACQ(s);
		if (!v || (v & USOR_AUX))
			return NULL;
		c = (struct usor_conn *)v;
		/* Take a reference unless the object is being freed. */
		r = USOR_LOAD(&c->refs);
		while (r && !CAS(&c->refs, &r, r + 1))
			;
		if (!r)
			continue;	/* the entry has changed: look again */
		if (USOR_LOAD_ACQ(s) == v)
			return c;
		usor_conn_put(c);
	}
}

struct usor_conn *usor_conn_alloc(void)
{
	unsigned int i, j;

	for (i = 0; i < POOL_CHUNKS; i++) {
		struct usor_conn *ch = USOR_LOAD_ACQ(&pool[i]), *expect = NULL;

		if (!ch) {
			if (!alloc_fn)
				return NULL;
			ch = alloc_fn(POOL_CHUNK * sizeof(*ch));
			if (!ch)
				return NULL;
			for (j = 0; j < POOL_CHUNK; j++)
				ch[j].index = i * POOL_CHUNK + j;
			if (!CAS(&pool[i], &expect, ch))
				ch = expect;
		}
		for (j = 0; j < POOL_CHUNK; j++) {
			struct usor_conn *c = &ch[j];
			unsigned int zero = 0;

			if (USOR_LOAD(&c->busy) || !CAS(&c->busy, &zero, 1))
				continue;
			/* Everything but the lifetime fields. */
			memset((char *)c + offsetof(struct usor_conn, map), 0,
			       sizeof(*c) - offsetof(struct usor_conn, map));
			c->rcvtimeo_ns = -1;
			c->sndtimeo_ns = -1;
			c->tcp_fd = -1;
			USOR_STORE_REL(&c->refs, 1);
			return c;
		}
	}
	return NULL;
}

static struct usor_conn *set_word(int fd, uintptr_t v, bool create)
{
	uintptr_t *s = slot(fd, create), old;

	if (!s)
		return NULL;
	if (v)
		USOR_STORE_REL(&used, true);
	old = __atomic_exchange_n(s, v, __ATOMIC_ACQ_REL);
	if (!old || (old & USOR_AUX))
		return NULL;
	return (struct usor_conn *)old;
}

struct usor_conn *usor_fd_set(int fd, struct usor_conn *c)
{
	if (c)
		usor_conn_hold(c);
	else if (!USOR_LOAD(&used))
		return NULL;
	return set_word(fd, (uintptr_t)c, c != NULL);
}

bool usor_fd_set_aux(int fd, uintptr_t aux)
{
	uintptr_t *s = slot(fd, true), old;

	if (!s)
		return false;
	USOR_STORE_REL(&used, true);
	old = USOR_LOAD_ACQ(s);
	do {
		if (old && !(old & USOR_AUX))
			return false;	/* a connection: leave it */
	} while (!CAS(s, &old, aux));
	return true;
}

uintptr_t usor_fd_aux(int fd)
{
	uintptr_t *s, v;

	if (!USOR_LOAD(&used))
		return 0;
	s = slot(fd, false);
	if (!s)
		return 0;
	v = USOR_LOAD_ACQ(s);
	return (v & USOR_AUX) ? v : 0;
}

void usor_fd_fork_child(void)
{
	unsigned int i, j;

	/* Only this thread survived the fork: count the table's references. */
	for (i = 0; i < POOL_CHUNKS && pool[i]; i++)
		for (j = 0; j < POOL_CHUNK; j++)
			pool[i][j].refs = 0;
	for (i = 0; i < USOR_FD_CHUNKS; i++) {
		if (!chunks[i])
			continue;
		for (j = 0; j < USOR_FD_CHUNK; j++) {
			uintptr_t v = chunks[i][j];

			if (v && !(v & USOR_AUX))
				((struct usor_conn *)v)->refs++;
		}
	}
	/* Objects only other threads held: their mappings go. */
	for (i = 0; i < POOL_CHUNKS && pool[i]; i++)
		for (j = 0; j < POOL_CHUNK; j++) {
			struct usor_conn *c = &pool[i][j];

			if (c->busy && !c->refs) {
				if (unmap_fn)
					unmap_fn(c);
				c->busy = 0;
			}
		}
}

void usor_fd_forget_range(unsigned int first, unsigned int last)
{
	unsigned int i, j;

	if (!USOR_LOAD(&used) || first > last || first >= USOR_FD_MAX)
		return;
	if (last >= USOR_FD_MAX)
		last = USOR_FD_MAX - 1;
	for (i = first >> USOR_FD_CHUNK_SHIFT; i <= last >> USOR_FD_CHUNK_SHIFT; i++) {
		uintptr_t *ch = USOR_LOAD_ACQ(&chunks[i]);

		if (!ch)
			continue;
		for (j = 0; j < USOR_FD_CHUNK; j++) {
			unsigned int fd = (i << USOR_FD_CHUNK_SHIFT) | j;
			uintptr_t old;

			if (fd < first || fd > last || !USOR_LOAD(&ch[j]))
				continue;
			old = __atomic_exchange_n(&ch[j], 0, __ATOMIC_ACQ_REL);
			if (old && !(old & USOR_AUX))
				usor_conn_put((struct usor_conn *)old);
		}
	}
}
