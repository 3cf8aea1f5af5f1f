/* SPDX-License-Identifier: MIT */
/*
 * A connection's socket face (family, names, shutdown, timeouts, what its
 * options need) kept in its mapped send header page, and the adoption of
 * connection descriptors this process did not create.  A descriptor inherited across
 * exec or received with SCM_RIGHTS is the connection file itself; the
 * new image's library knows nothing of it until a socket call on it fails
 * with ENOTSOCK (or fstat asks), then adopts it with the face it had.
 */
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include <uapi/eusrv/sor.h>

#include "usor_internal.h"

static_assert(sizeof(struct eusrv_sor_ring_hdr) <= EUSRV_SOR_USER_OFF,
	      "the ring header stays in the first half of its page");
static_assert(sizeof(struct usor_face) <= EUSRV_SOR_USER_LEN,
	      "the face fits in the user half of the page");

/* What usor_face_save() writes: all but the options, magic last. */
#define FACE_HEAD	offsetof(struct usor_face, ints)

struct usor_face *usor_face_of(struct usor_conn *c)
{
	return (struct usor_face *)((char *)c->snd.hdr + EUSRV_SOR_USER_OFF);
}

void usor_face_save(struct usor_conn *c)
{
	struct usor_face *f = usor_face_of(c);
	struct usor_face n;

	memset(&n, 0, FACE_HEAD);
	n.family = c->family;
	n.local = c->local;
	n.peer = c->peer;
	n.shut = __atomic_load_n(&c->shut, __ATOMIC_RELAXED);
	n.rcvtimeo_ns = __atomic_load_n(&c->rcvtimeo_ns, __ATOMIC_RELAXED);
	n.sndtimeo_ns = __atomic_load_n(&c->sndtimeo_ns, __ATOMIC_RELAXED);
	n.cookie = c->cookie;
	n.syn_ttl = c->syn_ttl;
	n.syn_ifindex = c->syn_ifindex;
	/* Incomplete while it is written: an adopter then uses defaults. */
	__atomic_store_n(&f->magic, 0, __ATOMIC_RELEASE);
	memcpy((char *)f + sizeof(f->magic), (char *)&n + sizeof(n.magic),
	       FACE_HEAD - sizeof(n.magic));
	__atomic_store_n(&f->magic, USOR_FACE_MAGIC, __ATOMIC_RELEASE);
}

/* ADDR belongs to NODE: one of its addresses, or loopback to ourselves. */
static bool addr_of_node(const struct usor_state *st, uint32_t addr,
			 uint32_t node)
{
	const unsigned char *b = (const unsigned char *)&addr;

	if (b[0] == 127)
		return (int)node == st->node;
	return usor_peers_find(&st->peers, addr) == (int)node;
}

/*
 * Whether face N may be believed for C: any process that mapped the
 * connection may have written it, so nothing is taken on trust that the
 * driver says otherwise (ports, nodes) or that the core could trip on.
 */
static bool face_ok(const struct usor_state *st, const struct usor_conn *c,
		    const struct usor_face *n)
{
	if (n->magic != USOR_FACE_MAGIC ||
	    (n->family != AF_INET && n->family != AF_INET6) ||
	    n->local.sin_family != AF_INET || n->peer.sin_family != AF_INET ||
	    n->local.sin_port != c->local.sin_port ||
	    n->peer.sin_port != c->peer.sin_port ||
	    !addr_of_node(st, n->local.sin_addr.s_addr, c->node) ||
	    !addr_of_node(st, n->peer.sin_addr.s_addr, c->peer_node) ||
	    (n->shut & ~(uint32_t)USOR_X_SHUT_RD) ||
	    n->rcvtimeo_ns < -1 || n->sndtimeo_ns < -1 ||
	    n->syn_ttl < 0 || n->syn_ttl > 255 || n->syn_ifindex < 0)
		return false;
	/* The options are checked as they are used (opts.c). */
	return true;
}

/* C's face from its page, or what the driver and the peers file say. */
static void face_load(const struct usor_state *st, struct usor_conn *c)
{
	struct usor_face n;

	__atomic_load(&usor_face_of(c)->magic, &n.magic, __ATOMIC_ACQUIRE);
	memcpy((char *)&n + sizeof(n.magic),
	       (char *)usor_face_of(c) + sizeof(n.magic),
	       FACE_HEAD - sizeof(n.magic));
	if (!face_ok(st, c, &n)) {
		c->family = AF_INET;
		c->local.sin_addr.s_addr = usor_node_addr(st, c->node);
		c->peer.sin_addr.s_addr = usor_node_addr(st, c->peer_node);
		return;
	}
	c->family = n.family;
	c->local = n.local;
	c->peer = n.peer;
	c->shut = n.shut;
	c->rcvtimeo_ns = n.rcvtimeo_ns;
	c->sndtimeo_ns = n.sndtimeo_ns;
	c->cookie = n.cookie;
	c->syn_ttl = n.syn_ttl;
	c->syn_ifindex = n.syn_ifindex;
}

/*
 * FD's set-up is still going on, or turned to TCP: no rings to map yet
 * (EAGAIN), so no face either; the names the driver and peers file give.
 */
static struct usor_conn *adopt_pending(const struct usor_state *st, int fd)
{
	struct eusrv_sor_info in;
	struct usor_conn *c;

	memset(&in, 0, sizeof(in));
	if (usor_r->ioctl(fd, EUSRV_SOR_INFO, &in) < 0)
		return NULL;
	c = usor_conn_alloc();
	if (!c)
		return NULL;
	c->pending = USOR_PEND_CONNECTING;
	c->node = in.node;
	c->peer_node = in.peer_node;
	c->family = AF_INET;
	c->local.sin_family = AF_INET;
	c->local.sin_port = htons(in.lport);
	c->local.sin_addr.s_addr = usor_node_addr(st, in.node);
	c->peer.sin_family = AF_INET;
	c->peer.sin_port = htons(in.rport);
	c->peer.sin_addr.s_addr = usor_node_addr(st, in.peer_node);
	return c;
}

struct usor_conn *usor_adopt(int fd)
{
	const struct usor_state *st;
	struct usor_conn *c = NULL, *old;
	struct stat sb;
	int e = errno;

	if (fd < 0 || usor_absent())
		goto out;
	st = usor_state_get();
	/* Connection files are anonymous inodes: no file type bits. */
	if (!st || usor_r->fstat(fd, &sb) || (sb.st_mode & S_IFMT))
		goto out;
	c = usor_conn_map(fd);
	if (!c && errno == EAGAIN)
		c = adopt_pending(st, fd);
	if (!c)
		goto out;
	if (c->map)
		face_load(st, c);
	old = usor_fd_set(fd, c);
	if (old)
		usor_conn_put(old);
out:
	errno = e;
	return c;
}
