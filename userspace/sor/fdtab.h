/* SPDX-License-Identifier: MIT */
/*
 * The descriptor table: fd -> connection object, plus a few bits about
 * plain sockets (buffer size wishes, registered listeners).  Lock-free and
 * async-signal-safe: a two-level array of atomic words, memory from mmap.
 *
 * An entry is 0 (nothing), a pointer to a struct usor_conn (even), or an
 * "aux" word (odd) for a plain socket.  Each entry holding a connection
 * holds a reference on it; usor_fd_get() takes another for the duration of
 * a call.  Connection objects are never returned to the system: a freed one
 * is reused for a later connection, so a racing lookup that finds a stale
 * pointer still touches a connection object and notices by re-checking the
 * entry (the SLAB_TYPESAFE_BY_RCU pattern).
 */
#ifndef EUSRV_USOR_FDTAB_H
#define EUSRV_USOR_FDTAB_H

#include <stdbool.h>
#include <stdint.h>

#define USOR_FD_CHUNK_SHIFT	10
#define USOR_FD_CHUNK		(1U << USOR_FD_CHUNK_SHIFT)
#define USOR_FD_CHUNKS		1024U
#define USOR_FD_MAX		(USOR_FD_CHUNK * USOR_FD_CHUNKS)

/* aux words: bit 0 set */
#define USOR_AUX			0x1U
#define USOR_AUX_LISTENER	0x2U		/* registered with LISTEN */
#define USOR_AUX_SND_SHIFT(v)	(((v) >> 2) & 0x1fU)
#define USOR_AUX_RCV_SHIFT(v)	(((v) >> 7) & 0x1fU)
#define USOR_AUX_PORT(v)		(((v) >> 12) & 0xffffU)
#define USOR_AUX_MK(l, s, r, p)	(USOR_AUX | ((l) ? USOR_AUX_LISTENER : 0U) | \
				 ((uintptr_t)(s) << 2) | ((uintptr_t)(r) << 7) | \
				 ((uintptr_t)(p) << 12))

struct usor_conn;

/* Memory for the table and the objects (mmap through the real table). */
typedef void *usor_alloc_fn(unsigned long len);
typedef void usor_unmap_fn(struct usor_conn *c);
void usor_fd_setup(usor_alloc_fn *alloc, usor_unmap_fn *unmap);

/* The connection at FD with a reference, or NULL (fast: one load if none). */
struct usor_conn *usor_fd_get(int fd);
/* Drop a reference; the last one unmaps the rings and frees the object. */
void usor_conn_put(struct usor_conn *c);
void usor_conn_hold(struct usor_conn *c);
/* A fresh object with one reference (the caller's), or NULL. */
struct usor_conn *usor_conn_alloc(void);

/*
 * Put C (may be NULL) or an aux word at FD; returns the previous entry's
 * connection (whose table reference now belongs to the caller) or NULL.
 * A connection put in the table gets a new reference.
 */
struct usor_conn *usor_fd_set(int fd, struct usor_conn *c);
/* Set the aux word of FD unless FD holds a connection (then false). */
bool usor_fd_set_aux(int fd, uintptr_t aux);
/* The aux word of FD (0 if none or a connection). */
uintptr_t usor_fd_aux(int fd);
/* Whether the table has ever held a connection or aux word. */
bool usor_fd_in_use(void);

/* Forget FIRST..LAST (closed behind our back: close_range, closefrom). */
void usor_fd_forget_range(unsigned int first, unsigned int last);

/* After fork in the child: references = entries (other threads are gone). */
void usor_fd_fork_child(void);

#endif /* EUSRV_USOR_FDTAB_H */
