// SPDX-License-Identifier: MIT
/*
 * The socket options of a connection, answered and set as a TCP socket
 * between the same addresses would: values, lengths and errors.
 *
 * A connection implements a few options itself: its type and pending
 * error, SO_SNDBUF/SO_RCVBUF (its rings), the timeouts its calls honour,
 * its names, and what TCP derives from the connection (its route's MTU,
 * the SYN's TTL).  Every other option goes to a real TCP socket, so the
 * kernel's own code checks and answers it:
 *
 *  - a client connection's: the socket it was made from, which the driver
 *    keeps for the connection's life (EUSRV_SOR_SOCKET); options set on it
 *    stay there, shared by every process that holds the connection;
 *  - an accepted one's: a TCP socket made for the call and given first the
 *    options the connection keeps in its face, a slot each (struct
 *    usor_face opts): those the accepted socket had from its listener, and
 *    those set since.
 *
 * Neither socket is connected.  Where a connected one answers otherwise
 * (IPV6_V6ONLY, TCP_FASTOPEN...), this file answers for it; what still
 * differs is listed in docs/user-guide.md ("Socket options").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

#include "inaddr.h"
#include "usor_internal.h"

#ifndef SO_RCVTIMEO_OLD
#define SO_RCVTIMEO_OLD		20
#define SO_SNDTIMEO_OLD		21
#endif
#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW		66
#define SO_SNDTIMEO_NEW		67
#endif
#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW	63
#define SO_TIMESTAMPNS_NEW	64
#define SO_TIMESTAMPING_NEW	65
#endif
/*
 * A timeout as SO_RCVTIMEO_NEW (SO_SNDTIMEO_NEW) has it on every ABI; the
 * _OLD options' is a pair of longs, 32-bit ones on a 32-bit ABI.  The
 * core asks the kernel with _NEW whatever time_t it was built with.
 */
struct sock_tv {
	int64_t sec, usec;
};

struct old_tv {
	long sec, usec;
};

/* A timeout the kernel gave in nanoseconds: -1 for { 0, 0 }, none. */
static int64_t tv_ns(const struct sock_tv *tv)
{
	if (!tv->sec && !tv->usec)
		return -1;
	return tv->sec * USOR_NS_PER_S + tv->usec * USOR_NS_PER_US;
}

static bool rcv_timeo(int name)
{
	return name == SO_RCVTIMEO_OLD || name == SO_RCVTIMEO_NEW;
}

#ifndef SO_DETACH_REUSEPORT_BPF
#define SO_DETACH_REUSEPORT_BPF	68
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL	69
#endif
#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK		72
#endif
#ifndef SO_TXREHASH
#define SO_TXREHASH		74
#endif
#ifndef SO_RCVMARK
#define SO_RCVMARK		75
#endif
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE	51
#endif
#ifndef IP_PROTOCOL
#define IP_PROTOCOL		52
#endif
#ifndef IPV6_FLOWINFO		/* linux/in6.h */
#define IPV6_FLOWINFO		11
#define IPV6_FLOWLABEL_MGR	32
#define IPV6_FLOWINFO_SEND	33
#endif

/* What TCP_MAXSEG reports: a connection has no segments; loopback's MSS. */
#define USOR_MSS		65483

/* ---- the options an accepted connection keeps ----------------------------- */

#define KEY_LEVELS	0x7fff
#define KEY_NAMES	0xffff

static bool keyable(int level, int name)
{
	return level >= 0 && level <= KEY_LEVELS && name >= 0 && name <= KEY_NAMES;
}

static uint32_t opt_key(int level, int name)
{
	return 0x80000000U | (uint32_t)level << 16 | (uint32_t)name;
}

/*
 * Whether an accepted connection keeps option NAME of LEVEL once set (and
 * gives it to the socket that answers for it): not the options it
 * implements, nor actions rather than values (filters, group membership),
 * values that point into the program's memory, nor TCP repair and the
 * others that only a connected socket takes (it has no TCP state).
 */
static bool kept(int level, int name)
{
	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_ATTACH_FILTER: case SO_DETACH_FILTER:
		case SO_ATTACH_BPF: case SO_ATTACH_REUSEPORT_CBPF:
		case SO_ATTACH_REUSEPORT_EBPF: case SO_DETACH_REUSEPORT_BPF:
		case SO_CNX_ADVICE: case SO_PEEK_OFF:
		case SO_RCVTIMEO_OLD: case SO_SNDTIMEO_OLD:
		case SO_RCVTIMEO_NEW: case SO_SNDTIMEO_NEW:
			return false;
		default:
			return true;
		}
	case IPPROTO_IP:
		return (name < IP_ADD_MEMBERSHIP || name > MCAST_MSFILTER) &&
		       name != IP_IPSEC_POLICY && name != IP_XFRM_POLICY;
	case IPPROTO_IPV6:
		switch (name) {
		case IPV6_ADDRFORM: case IPV6_2292PKTOPTIONS:
		case IPV6_ADD_MEMBERSHIP: case IPV6_DROP_MEMBERSHIP:
		case IPV6_JOIN_ANYCAST: case IPV6_LEAVE_ANYCAST:
		case IPV6_FLOWLABEL_MGR: case IPV6_IPSEC_POLICY:
		case IPV6_XFRM_POLICY: case IPV6_V6ONLY:
		case MCAST_JOIN_GROUP: case MCAST_BLOCK_SOURCE:
		case MCAST_UNBLOCK_SOURCE: case MCAST_LEAVE_GROUP:
		case MCAST_JOIN_SOURCE_GROUP: case MCAST_LEAVE_SOURCE_GROUP:
		case MCAST_MSFILTER:
			return false;
		default:
			return true;
		}
	case IPPROTO_TCP:
		switch (name) {
		case TCP_MD5SIG: case TCP_MD5SIG_EXT: case TCP_REPAIR:
		case TCP_REPAIR_QUEUE: case TCP_QUEUE_SEQ:
		case TCP_REPAIR_OPTIONS: case TCP_REPAIR_WINDOW: case TCP_ULP:
		case TCP_ZEROCOPY_RECEIVE: case TCP_FASTOPEN:
		case TCP_FASTOPEN_CONNECT: case TCP_TIMESTAMP:
			return false;
		default:
			return true;
		}
	default:
		return false;
	}
}

/* IPv6 options whose values (extension headers) may pass USOR_OPT_MAX. */
static bool long_value(int level, int name)
{
	return level == IPPROTO_IPV6 &&
	       (name == IPV6_HOPOPTS || name == IPV6_RTHDRDSTOPTS ||
		name == IPV6_RTHDR || name == IPV6_DSTOPTS);
}

#define SLOT_TRIES	1000

/*
 * Slot S's value into BUF (USOR_OPT_MAX bytes): its length, 0 if it has
 * none.  A slot is a sequence lock: its writer makes seq odd meanwhile.
 */
static uint32_t slot_read(struct usor_opt *s, unsigned char *buf)
{
	uint32_t q, len, i;
	int tries;

	for (tries = 0; tries < SLOT_TRIES; tries++) {
		q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (q & 1) {
			usor_r->sched_yield();
			continue;
		}
		len = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
		if (len > USOR_OPT_MAX)
			return 0;	/* scribbled over */
		for (i = 0; i < len; i++)
			buf[i] = __atomic_load_n(&s->val[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == q)
			return len;
	}
	return 0;
}

static void slot_write(struct usor_opt *s, const void *val, uint32_t len)
{
	const unsigned char *v = val;
	uint32_t q, i;
	int tries = 0;

	for (;;) {
		q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
		if (!(q & 1) &&
		    __atomic_compare_exchange_n(&s->seq, &q, q + 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		/* A writer that died in the middle leaves it odd: take it. */
		if (++tries >= SLOT_TRIES) {
			q |= 1;
			__atomic_store_n(&s->seq, q, __ATOMIC_RELAXED);
			q--;
			break;
		}
		usor_r->sched_yield();
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < len; i++)
		__atomic_store_n(&s->val[i], v[i], __ATOMIC_RELAXED);
	__atomic_store_n(&s->len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}

/* Forget KEY's larger slot (its int replaces it): no value, no replay. */
static void drop_opt(struct usor_opt *o, uint32_t key)
{
	int i;

	for (i = 0; i < USOR_MAX_OPTS; i++)
		if (__atomic_load_n(&o[i].key, __ATOMIC_ACQUIRE) == key)
			slot_write(&o[i], NULL, 0);
}

/* Forget KEY's int (a larger value replaces it). */
static void drop_int(uint64_t *w, uint32_t key)
{
	uint64_t v;
	int i;

	for (i = 0; i < USOR_MAX_INTS; i++) {
		v = __atomic_load_n(&w[i], __ATOMIC_ACQUIRE);
		if ((uint32_t)(v >> 32) == key)
			__atomic_compare_exchange_n(&w[i], &v, 0, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
}

/* Keep int option KEY = V: 0 or -ENOMEM. */
static int keep_int(uint64_t *w, uint32_t key, uint32_t v)
{
	uint64_t word = (uint64_t)key << 32 | v, old;
	int i, free_slot = -1;

	for (;;) {
		for (i = 0; i < USOR_MAX_INTS; i++) {
			old = __atomic_load_n(&w[i], __ATOMIC_ACQUIRE);
			if ((uint32_t)(old >> 32) == key) {
				if (__atomic_compare_exchange_n(&w[i], &old, word, false,
								__ATOMIC_ACQ_REL,
								__ATOMIC_RELAXED))
					return 0;
				break;	/* changed meanwhile: look again */
			}
			if (!old && free_slot < 0)
				free_slot = i;
		}
		if (i < USOR_MAX_INTS) {
			free_slot = -1;
			continue;
		}
		if (free_slot < 0)
			return -ENOMEM;
		old = 0;
		if (__atomic_compare_exchange_n(&w[free_slot], &old, word, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return 0;
		free_slot = -1;	/* taken meanwhile: look again */
	}
}

/* Keep option NAME of LEVEL set to VAL (LEN bytes) on C: 0 or -ENOMEM. */
static int keep(struct usor_conn *c, int level, int name, const void *val,
		socklen_t len)
{
	struct usor_face *f = usor_face_of(c);
	struct usor_opt *o = f->opts;
	uint32_t key = opt_key(level, name), k, v;
	int i;

	if (!keyable(level, name) || !kept(level, name))
		return 0;
	if (len == sizeof(v)) {
		memcpy(&v, val, sizeof(v));
		drop_opt(o, key);
		return keep_int(f->ints, key, v);
	}
	if (len > USOR_OPT_MAX) {
		if (long_value(level, name))
			return 0;	/* not kept: see the user guide */
		len = USOR_OPT_MAX;	/* the kernel reads no more */
	}
	drop_int(f->ints, key);
	for (i = 0; i < USOR_MAX_OPTS; i++) {
		k = __atomic_load_n(&o[i].key, __ATOMIC_ACQUIRE);
		if (!k) {
			k = 0;
			if (__atomic_compare_exchange_n(&o[i].key, &k, key, false,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				k = key;
		}
		if (k == key) {
			slot_write(&o[i], val, (uint32_t)len);
			return 0;
		}
	}
	return -ENOMEM;
}

/* Whether KEY (from a page any holder may write) names a kept option. */
static bool key_ok(uint32_t k, int *level, int *name)
{
	*level = (int)(k >> 16 & KEY_LEVELS);
	*name = (int)(k & KEY_NAMES);
	return (k & 0x80000000U) && kept(*level, *name);
}

/* Give the options C keeps to socket T: the ints, then the others. */
static void replay(struct usor_conn *c, int t)
{
	struct usor_face *f = usor_face_of(c);
	unsigned char v[USOR_OPT_MAX];
	uint32_t k, len, iv;
	uint64_t w;
	int i, level, name;

	for (i = 0; i < USOR_MAX_INTS; i++) {
		w = __atomic_load_n(&f->ints[i], __ATOMIC_ACQUIRE);
		if (!w || !key_ok((uint32_t)(w >> 32), &level, &name))
			continue;
		iv = (uint32_t)w;
		usor_r->setsockopt(t, level, name, &iv, sizeof(iv));
	}
	for (i = 0; i < USOR_MAX_OPTS; i++) {
		k = __atomic_load_n(&f->opts[i].key, __ATOMIC_ACQUIRE);
		if (!k || !key_ok(k, &level, &name))
			continue;
		len = slot_read(&f->opts[i], v);
		if (len)
			usor_r->setsockopt(t, level, name, v, len);
	}
}

/* ---- the socket that answers --------------------------------------------- */

/*
 * A descriptor of the TCP socket that answers C's other options (a client
 * connection's own, or one made now with the options C keeps), or a
 * negative errno.  Closed with the real close once used.
 */
static int answerer(struct usor_conn *c, int cfd)
{
	unsigned int kind = __atomic_load_n(&c->kind, __ATOMIC_RELAXED);
	int t;

	if (kind != USOR_KIND_SERVER) {
		t = usor_r->ioctl(cfd, EUSRV_SOR_SOCKET, NULL);
		if (t >= 0) {
			__atomic_store_n(&c->kind, USOR_KIND_CLIENT, __ATOMIC_RELAXED);
			return t;
		}
		/* The driver keeps no socket of an accepted connection. */
		if (errno != EINVAL || kind == USOR_KIND_CLIENT || !c->map)
			return -errno;
		__atomic_store_n(&c->kind, USOR_KIND_SERVER, __ATOMIC_RELAXED);
	}
	t = usor_r->socket(c->family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (t < 0)
		return -errno;
	replay(c, t);
	return t;
}

static int fwd_get(struct usor_conn *c, int cfd, int level, int name,
		   void *val, socklen_t *len)
{
	int t = answerer(c, cfd), r, e;

	if (t < 0)
		return t;
	r = usor_r->getsockopt(t, level, name, val, len);
	e = errno;
	usor_r->close(t);
	return r < 0 ? -e : 0;
}

/*
 * Set on the answering socket; an accepted connection keeps what was set.
 * With TV, a timeout: *TV is the socket's SO_RCVTIMEO (or SO_SNDTIMEO)
 * after it, as the kernel rounded it.
 */
static int fwd_set(struct usor_conn *c, int cfd, int level, int name,
		   const void *val, socklen_t len, struct sock_tv *tv)
{
	int t = answerer(c, cfd), r, e = 0;
	socklen_t l = sizeof(*tv);

	if (t < 0)
		return t;
	r = usor_r->setsockopt(t, level, name, val, len);
	if (r < 0)
		e = -errno;
	else if (tv)
		usor_r->getsockopt(t, SOL_SOCKET, rcv_timeo(name) ?
				   SO_RCVTIMEO_NEW : SO_SNDTIMEO_NEW, tv, &l);
	else if (__atomic_load_n(&c->kind, __ATOMIC_RELAXED) == USOR_KIND_SERVER)
		e = keep(c, level, name, val, len);
	usor_r->close(t);
	return e;
}

/* The MTU of the route to C's peer (IP_MTU of a connected socket), or 0. */
static int route_mtu(const struct usor_conn *c)
{
	struct sockaddr_in a = c->peer;
	socklen_t l = sizeof(int);
	int t, v = 0;

	a.sin_family = AF_INET;
	t = usor_r->socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t < 0)
		return 0;
	if (usor_r->connect(t, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    usor_r->getsockopt(t, IPPROTO_IP, IP_MTU, &v, &l) < 0)
		v = 0;
	usor_r->close(t);
	return v;
}

/* ---- answering as the kernel does ------------------------------------------ */

static int user_len(const socklen_t *len, int *l)
{
	if (!len)
		return -EFAULT;
	*l = (int)*len;
	return 0;
}

static int put(void *val, socklen_t *len, const void *v, int l)
{
	if (l > 0 && !val)
		return -EFAULT;
	memcpy(val, v, (size_t)l);
	*len = (socklen_t)l;
	return 0;
}

/* V (LV bytes) as the socket level gives it: at most what was asked. */
static int give_sk(void *val, socklen_t *len, const void *v, int lv)
{
	int l, e = user_len(len, &l);

	if (e)
		return e;
	if (l < 0)
		return -EINVAL;
	return put(val, len, v, l < lv ? l : lv);
}

/* An int as the IP level gives it: a byte when asked for less. */
static int give_ip(void *val, socklen_t *len, int v)
{
	unsigned char b = (unsigned char)v;
	int l, e = user_len(len, &l);

	if (e)
		return e;
	if (l < 0)
		return -EINVAL;
	if (l > 0 && l < (int)sizeof(int) && v >= 0 && v <= 255)
		return put(val, len, &b, 1);
	return put(val, len, &v, l < (int)sizeof(int) ? l : (int)sizeof(int));
}

/* An int as the IPv6 level gives it (a negative length asks for all). */
static int give_ip6(void *val, socklen_t *len, int v)
{
	int l, e = user_len(len, &l);

	if (e)
		return e;
	return put(val, len, &v, (unsigned int)l < sizeof(int) ? l : (int)sizeof(int));
}

/* An int as the TCP level gives it. */
static int give_tcp(void *val, socklen_t *len, int v)
{
	int l, e = user_len(len, &l);

	if (e)
		return e;
	if (l < 0)
		return -EINVAL;
	return put(val, len, &v, l < (int)sizeof(int) ? l : (int)sizeof(int));
}

/* A timeout as option NAME gives it: { 0, 0 } for none. */
static int give_timeout(void *val, socklen_t *len, int name, int64_t ns)
{
	struct sock_tv tv = { 0, 0 };
	struct old_tv old;

	if (ns > 0) {
		tv.sec = ns / USOR_NS_PER_S;
		tv.usec = ns % USOR_NS_PER_S / USOR_NS_PER_US;
	}
	if (name == SO_RCVTIMEO_NEW || name == SO_SNDTIMEO_NEW)
		return give_sk(val, len, &tv, (int)sizeof(tv));
	old.sec = (long)tv.sec;
	old.usec = (long)tv.usec;
	return give_sk(val, len, &old, (int)sizeof(old));
}

/* SO_PEERNAME: the peer's name, which the buffer may not pass. */
static int give_peername(const struct usor_conn *c, void *val, socklen_t *len)
{
	struct sockaddr_storage a;
	int lv = (int)usor_v4_as(c->family, &c->peer, &a), l;
	int e = user_len(len, &l);

	if (e)
		return e;
	if (l < 0 || lv < l)
		return -EINVAL;
	return put(val, len, &a, l);
}

/*
 * TCP_INFO: the answering socket's (the kernel's structure, as long as it
 * is), as an established connection with no segments shows it.
 */
static int give_tcp_info(struct usor_conn *c, int cfd, void *val, socklen_t *len)
{
	uint32_t u;
	int r = fwd_get(c, cfd, IPPROTO_TCP, TCP_INFO, val, len);
	size_t l;

	if (r)
		return r;
	l = *len;
	if (l >= 1)
		((unsigned char *)val)[0] = TCP_ESTABLISHED;
#define SET(field, v) do {						\
		u = (v);						\
		if (offsetof(struct tcp_info, field) + sizeof(u) <= l)	\
			memcpy((char *)val + offsetof(struct tcp_info, field), \
			       &u, sizeof(u));				\
	} while (0)
	SET(tcpi_snd_mss, USOR_MSS);
	SET(tcpi_rcv_mss, USOR_MSS);
	SET(tcpi_pmtu, USOR_MSS);
	SET(tcpi_snd_cwnd, c->snd.size / USOR_MSS + 1);
	SET(tcpi_rcv_space, c->rcv.size);
#undef SET
	return 0;
}

/*
 * IP_PKTOPTIONS (IPV6_2292PKTOPTIONS): what a TCP socket says of the
 * packets it receives, as control messages: the answering socket's, with
 * the connection's addresses and, on an accepted one, the SYN's
 * interface and TTL.
 */
static void patch_cmsg(const struct usor_conn *c, unsigned char *b, size_t l)
{
	bool accepted = c->syn_ttl != 0;
	struct sockaddr_storage peer;
	struct cmsghdr h;
	size_t p = 0, end;
	int32_t v;

	usor_v4_as(AF_INET6, &c->peer, &peer);
#define PATCH(off, src, n) do {						\
		if (p + sizeof(h) + (off) + (n) <= end)			\
			memcpy(b + p + sizeof(h) + (off), (src), (n));	\
	} while (0)
	while (p + sizeof(h) <= l) {
		memcpy(&h, b + p, sizeof(h));
		if (h.cmsg_len < sizeof(h))
			break;
		end = p + h.cmsg_len < l ? p + h.cmsg_len : l;
		if (h.cmsg_level == SOL_IP && h.cmsg_type == IP_PKTINFO) {
			PATCH(offsetof(struct in_pktinfo, ipi_spec_dst),
			      &c->local.sin_addr, 4);
			PATCH(offsetof(struct in_pktinfo, ipi_addr),
			      &c->local.sin_addr, 4);
			if (accepted)
				PATCH(offsetof(struct in_pktinfo, ipi_ifindex),
				      &c->syn_ifindex, 4);
		} else if (accepted && h.cmsg_level == SOL_IPV6 &&
			   (h.cmsg_type == IPV6_PKTINFO ||
			    h.cmsg_type == IPV6_2292PKTINFO) && c->syn_ifindex) {
			PATCH(offsetof(struct in6_pktinfo, ipi6_addr),
			      &((struct sockaddr_in6 *)&peer)->sin6_addr, 16);
			PATCH(offsetof(struct in6_pktinfo, ipi6_ifindex),
			      &c->syn_ifindex, 4);
		} else if (accepted &&
			   ((h.cmsg_level == SOL_IP && h.cmsg_type == IP_TTL) ||
			    (h.cmsg_level == SOL_IPV6 &&
			     (h.cmsg_type == IPV6_HOPLIMIT ||
			      h.cmsg_type == IPV6_2292HOPLIMIT)))) {
			v = c->syn_ttl;
			PATCH(0, &v, 4);
		}
		p += (h.cmsg_len + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1);
	}
#undef PATCH
}

static int give_pktoptions(struct usor_conn *c, int cfd, int level, int name,
			   void *val, socklen_t *len)
{
	int r = fwd_get(c, cfd, level, name, val, len);

	if (!r && val)
		patch_cmsg(c, val, *len);
	return r;
}

/* ---- getsockopt ------------------------------------------------------------ */

#define NOT_OURS	1

/* SOL_SOCKET options C answers itself: 0, a negative errno, or NOT_OURS. */
static int own_get_socket(struct usor_conn *c, int cfd, int name, void *val,
			  socklen_t *len)
{
	int32_t err = 0;
	int v, l, e;

	switch (name) {
	case SO_TYPE:
		v = SOCK_STREAM;
		return give_sk(val, len, &v, sizeof(v));
	case SO_PROTOCOL:
		v = IPPROTO_TCP;
		return give_sk(val, len, &v, sizeof(v));
	case SO_DOMAIN:
		v = c->family;
		return give_sk(val, len, &v, sizeof(v));
	case SO_ACCEPTCONN:
		v = 0;
		return give_sk(val, len, &v, sizeof(v));
	case SO_ERROR:
		e = user_len(len, &l);
		if (e || l < 0)
			return e ? e : -EINVAL;
		if (usor_r->ioctl(cfd, EUSRV_SOR_GET_ERROR, &err) < 0)
			return -errno;
		v = err;
		return give_sk(val, len, &v, sizeof(v));
	case SO_SNDBUF:
		v = (int)c->snd.size;
		return give_sk(val, len, &v, sizeof(v));
	case SO_RCVBUF:
		v = (int)c->rcv.size;
		return give_sk(val, len, &v, sizeof(v));
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
		return give_timeout(val, len, name,
				    __atomic_load_n(&c->rcvtimeo_ns, __ATOMIC_RELAXED));
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		return give_timeout(val, len, name,
				    __atomic_load_n(&c->sndtimeo_ns, __ATOMIC_RELAXED));
	case SO_PEERNAME:
		return give_peername(c, val, len);
	case SO_COOKIE:
		if (!c->cookie)
			break;	/* the answering socket's, then */
		e = user_len(len, &l);
		if (e || l < (int)sizeof(c->cookie))
			return e ? e : -EINVAL;
		return give_sk(val, len, &c->cookie, sizeof(c->cookie));
	default:
		break;
	}
	return NOT_OURS;
}

/* IPPROTO_IP options, likewise. */
static int own_get_ip(struct usor_conn *c, int cfd, int name, void *val,
		      socklen_t *len)
{
	int v, l, e;

	switch (name) {
	case IP_MTU:
		e = user_len(len, &l);
		if (e || l < 0)
			return e ? e : -EINVAL;
		v = route_mtu(c);
		return v ? give_ip(val, len, v) : -ENOTCONN;
	case IP_PKTOPTIONS:
		return give_pktoptions(c, cfd, IPPROTO_IP, name, val, len);
	case IP_PROTOCOL:	/* a TCP socket's inet_num: its port */
		return give_ip(val, len, ntohs(c->local.sin_port));
	case IP_MULTICAST_TTL:
		if (c->syn_ttl)
			return give_ip(val, len, c->syn_ttl);
		break;
	default:
		break;
	}
	return NOT_OURS;
}

/* IPPROTO_IPV6 options, likewise. */
static int own_get_ip6(struct usor_conn *c, int cfd, int name, void *val,
		       socklen_t *len)
{
	int v, l, e;

	if (c->family != AF_INET6)
		return -EOPNOTSUPP;	/* IPV6_ADDRFORM made it IPv4 */
	switch (name) {
	case IPV6_ADDRFORM:
		return give_ip6(val, len, c->family);
	case IPV6_2292PKTOPTIONS:
		return give_pktoptions(c, cfd, IPPROTO_IPV6, name, val, len);
	case IPV6_MTU:
		if (!len)
			return -EFAULT;
		v = route_mtu(c);
		return v ? give_ip6(val, len, v) : -ENOTCONN;
	case IPV6_PATHMTU: {
		struct ip6_mtuinfo mi;

		e = user_len(len, &l);
		if (e || (unsigned int)l < sizeof(mi))
			return e ? e : -EINVAL;
		memset(&mi, 0, sizeof(mi));
		mi.ip6m_mtu = (uint32_t)route_mtu(c);
		if (!mi.ip6m_mtu)
			return -ENOTCONN;
		return put(val, len, &mi, sizeof(mi));
	}
	case IPV6_MULTICAST_HOPS:
		if (c->syn_ttl)
			return give_ip6(val, len, c->syn_ttl);
		break;
	case IPV6_MULTICAST_IF:
		if (c->syn_ttl)
			return give_ip6(val, len, c->syn_ifindex);
		break;
	default:
		break;
	}
	return NOT_OURS;
}

/* IPPROTO_TCP options, likewise. */
static int own_get_tcp(struct usor_conn *c, int cfd, int name, void *val,
		       socklen_t *len)
{
	switch (name) {
	case TCP_MAXSEG:
		return give_tcp(val, len, USOR_MSS);
	case TCP_INFO:
		return give_tcp_info(c, cfd, val, len);
	default:
		break;
	}
	return NOT_OURS;
}

/* What C answers itself: 0, a negative errno, or NOT_OURS. */
static int own_get(struct usor_conn *c, int cfd, int level, int name,
		   void *val, socklen_t *len)
{
	switch (level) {
	case SOL_SOCKET:
		return own_get_socket(c, cfd, name, val, len);
	case IPPROTO_IP:
		return own_get_ip(c, cfd, name, val, len);
	case IPPROTO_IPV6:
		return own_get_ip6(c, cfd, name, val, len);
	case IPPROTO_TCP:
		return own_get_tcp(c, cfd, name, val, len);
	default:
		return NOT_OURS;
	}
}

int usor_conn_getopt(struct usor_conn *c, int cfd, int level, int name,
		     void *val, socklen_t *len)
{
	int e = errno, r = own_get(c, cfd, level, name, val, len);

	if (r == NOT_OURS)
		r = fwd_get(c, cfd, level, name, val, len);
	errno = e;
	return r;
}

/* ---- setsockopt ------------------------------------------------------------ */

/* The int a setsockopt gives, read as the kernel reads it: 0 or -errno. */
static int int_of(const void *val, socklen_t len, int *v)
{
	if (len < (socklen_t)sizeof(int))
		return -EINVAL;
	if (!val)
		return -EFAULT;
	memcpy(v, val, sizeof(*v));
	return 0;
}

/*
 * SO_RCVTIMEO, SO_SNDTIMEO: checked and rounded by the kernel; the calls
 * honour what it keeps (a negative time: never wait, as TCP).
 */
static int set_timeout(struct usor_conn *c, int cfd, int name, const void *val,
		       socklen_t len)
{
	struct sock_tv got = { 0, 0 };
	int64_t sec, ns;
	long s;
	int r = fwd_set(c, cfd, SOL_SOCKET, name, val, len, &got);

	if (r)
		return r;
	if (name == SO_RCVTIMEO_NEW || name == SO_SNDTIMEO_NEW ||
	    sizeof(long) == sizeof(int64_t)) {
		memcpy(&sec, val, sizeof(sec));
	} else {
		memcpy(&s, val, sizeof(s));
		sec = s;
	}
	ns = sec < 0 ? 0 : tv_ns(&got);
	__atomic_store_n(rcv_timeo(name) ? &c->rcvtimeo_ns : &c->sndtimeo_ns,
			 ns, __ATOMIC_RELAXED);
	return 0;
}

/*
 * TCP_FASTOPEN_CONNECT on a connected socket: EINVAL where a new socket
 * takes it, else the new socket's error (EOPNOTSUPP when the system does
 * not do TCP Fast Open).
 */
static int connected_only(int family, int name, const void *val, socklen_t len)
{
	int t = usor_r->socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP), r;

	if (t < 0)
		return -errno;
	r = usor_r->setsockopt(t, IPPROTO_TCP, name, val, len) < 0 ? -errno : -EINVAL;
	usor_r->close(t);
	return r;
}

/* What C sets itself: 0, a negative errno, or NOT_OURS. */
static int own_set(struct usor_conn *c, int cfd, int level, int name,
		   const void *val, socklen_t len)
{
	struct linger lg;
	uint32_t reset;
	int v, r;

	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_RCVTIMEO_OLD:
		case SO_RCVTIMEO_NEW:
		case SO_SNDTIMEO_OLD:
		case SO_SNDTIMEO_NEW:
			return set_timeout(c, cfd, name, val, len);
		case SO_LINGER:
			r = fwd_set(c, cfd, level, name, val, len, NULL);
			if (r)
				return r;
			/* {1, 0}: the last close resets, as TCP's RST. */
			memcpy(&lg, val, sizeof(lg));
			reset = lg.l_onoff && !lg.l_linger;
			return usor_r->ioctl(cfd, EUSRV_SOR_LINGER, &reset) < 0 ? -errno : 0;
		default:
			return NOT_OURS;
		}
	case IPPROTO_IPV6:
		if (c->family != AF_INET6)
			return -ENOPROTOOPT;	/* IPV6_ADDRFORM made it IPv4 */
		switch (name) {
		case IPV6_V6ONLY:	/* not on a bound socket */
			return -EINVAL;
		case IPV6_ADDRFORM:
			r = int_of(val, len, &v);
			if (r || v != AF_INET)
				return r ? r : -EINVAL;
			c->family = AF_INET;
			usor_face_save(c);
			return 0;
		default:
			return NOT_OURS;
		}
	case IPPROTO_TCP:
		switch (name) {
		case TCP_FASTOPEN:	/* not once connected */
		case TCP_FASTOPEN_NO_COOKIE:
			r = int_of(val, len, &v);
			return r ? r : -EINVAL;
		case TCP_FASTOPEN_CONNECT:
			r = int_of(val, len, &v);
			if (r || v < 0 || v > 1)
				return r ? r : -EINVAL;
			return connected_only(c->family, name, val, len);
		case TCP_WINDOW_CLAMP:	/* 0 only before connecting */
			if (!int_of(val, len, &v) && !v)
				return -EINVAL;
			return NOT_OURS;
		default:
			return NOT_OURS;
		}
	default:
		return NOT_OURS;
	}
}

int usor_conn_setopt(struct usor_conn *c, int cfd, int level, int name,
		     const void *val, socklen_t len)
{
	int e = errno, r = own_set(c, cfd, level, name, val, len);

	if (r == NOT_OURS)
		r = fwd_set(c, cfd, level, name, val, len, NULL);
	errno = e;
	return r;
}

/* ---- what an accepted socket has from its listener --------------------------- */

/*
 * The options TCP passes from a listener to the sockets it accepts that a
 * program can set (and so can give to the answering socket): each is read
 * from the accepted socket, and kept if it is not what a new socket has.
 */
static const struct {
	int16_t level;
	uint16_t name;
} inherited[] = {
	{ SOL_SOCKET, SO_DEBUG }, { SOL_SOCKET, SO_REUSEADDR },
	{ SOL_SOCKET, SO_DONTROUTE }, { SOL_SOCKET, SO_BROADCAST },
	{ SOL_SOCKET, SO_KEEPALIVE }, { SOL_SOCKET, SO_OOBINLINE },
	{ SOL_SOCKET, SO_NO_CHECK }, { SOL_SOCKET, SO_PRIORITY },
	{ SOL_SOCKET, SO_LINGER }, { SOL_SOCKET, SO_REUSEPORT },
	{ SOL_SOCKET, SO_PASSCRED }, { SOL_SOCKET, SO_RCVLOWAT },
	{ SOL_SOCKET, SO_BINDTODEVICE }, { SOL_SOCKET, SO_TIMESTAMP_OLD },
	{ SOL_SOCKET, SO_TIMESTAMPNS_OLD }, { SOL_SOCKET, SO_TIMESTAMPING_OLD },
	{ SOL_SOCKET, SO_TIMESTAMP_NEW }, { SOL_SOCKET, SO_TIMESTAMPNS_NEW },
	{ SOL_SOCKET, SO_TIMESTAMPING_NEW }, { SOL_SOCKET, SO_PASSSEC },
	{ SOL_SOCKET, SO_MARK }, { SOL_SOCKET, SO_RXQ_OVFL },
	{ SOL_SOCKET, SO_WIFI_STATUS }, { SOL_SOCKET, SO_NOFCS },
	{ SOL_SOCKET, SO_LOCK_FILTER }, { SOL_SOCKET, SO_SELECT_ERR_QUEUE },
	{ SOL_SOCKET, SO_BUSY_POLL }, { SOL_SOCKET, SO_MAX_PACING_RATE },
	{ SOL_SOCKET, SO_ZEROCOPY }, { SOL_SOCKET, SO_TXTIME },
	{ SOL_SOCKET, SO_PREFER_BUSY_POLL }, { SOL_SOCKET, SO_BUF_LOCK },
	{ SOL_SOCKET, SO_TXREHASH }, { SOL_SOCKET, SO_RCVMARK },
	{ IPPROTO_IP, IP_TOS }, { IPPROTO_IP, IP_TTL },
	{ IPPROTO_IP, IP_RECVOPTS }, { IPPROTO_IP, IP_RETOPTS },
	{ IPPROTO_IP, IP_PKTINFO }, { IPPROTO_IP, IP_RECVTTL },
	{ IPPROTO_IP, IP_RECVTOS }, { IPPROTO_IP, IP_MTU_DISCOVER },
	{ IPPROTO_IP, IP_RECVERR }, { IPPROTO_IP, IP_FREEBIND },
	{ IPPROTO_IP, IP_PASSSEC }, { IPPROTO_IP, IP_TRANSPARENT },
	{ IPPROTO_IP, IP_RECVORIGDSTADDR }, { IPPROTO_IP, IP_MINTTL },
	{ IPPROTO_IP, IP_CHECKSUM }, { IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT },
	{ IPPROTO_IP, IP_RECVFRAGSIZE }, { IPPROTO_IP, IP_RECVERR_RFC4884 },
	{ IPPROTO_IP, IP_MULTICAST_LOOP }, { IPPROTO_IP, IP_MULTICAST_ALL },
	{ IPPROTO_IP, IP_UNICAST_IF }, { IPPROTO_IP, IP_LOCAL_PORT_RANGE },
	{ IPPROTO_TCP, TCP_NODELAY }, { IPPROTO_TCP, TCP_CORK },
	{ IPPROTO_TCP, TCP_KEEPIDLE }, { IPPROTO_TCP, TCP_KEEPINTVL },
	{ IPPROTO_TCP, TCP_KEEPCNT }, { IPPROTO_TCP, TCP_SYNCNT },
	{ IPPROTO_TCP, TCP_LINGER2 }, { IPPROTO_TCP, TCP_DEFER_ACCEPT },
	{ IPPROTO_TCP, TCP_CONGESTION }, { IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT }, { IPPROTO_TCP, TCP_NOTSENT_LOWAT },
	{ IPPROTO_TCP, TCP_SAVE_SYN }, { IPPROTO_TCP, TCP_INQ },
	{ IPPROTO_TCP, TCP_TX_DELAY }, { IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE },
	/* IPv6 sockets only */
	{ IPPROTO_IPV6, IPV6_UNICAST_HOPS }, { IPPROTO_IPV6, IPV6_MULTICAST_LOOP },
	{ IPPROTO_IPV6, IPV6_MULTICAST_ALL }, { IPPROTO_IPV6, IPV6_UNICAST_IF },
	{ IPPROTO_IPV6, IPV6_MTU_DISCOVER }, { IPPROTO_IPV6, IPV6_RECVERR },
	{ IPPROTO_IPV6, IPV6_FLOWINFO_SEND }, { IPPROTO_IPV6, IPV6_FLOWINFO },
	{ IPPROTO_IPV6, IPV6_RECVPKTINFO }, { IPPROTO_IPV6, IPV6_2292PKTINFO },
	{ IPPROTO_IPV6, IPV6_RECVHOPLIMIT }, { IPPROTO_IPV6, IPV6_2292HOPLIMIT },
	{ IPPROTO_IPV6, IPV6_RECVRTHDR }, { IPPROTO_IPV6, IPV6_2292RTHDR },
	{ IPPROTO_IPV6, IPV6_RECVHOPOPTS }, { IPPROTO_IPV6, IPV6_2292HOPOPTS },
	{ IPPROTO_IPV6, IPV6_RECVDSTOPTS }, { IPPROTO_IPV6, IPV6_2292DSTOPTS },
	{ IPPROTO_IPV6, IPV6_RECVTCLASS }, { IPPROTO_IPV6, IPV6_TCLASS },
	{ IPPROTO_IPV6, IPV6_RECVPATHMTU }, { IPPROTO_IPV6, IPV6_DONTFRAG },
	{ IPPROTO_IPV6, IPV6_AUTOFLOWLABEL }, { IPPROTO_IPV6, IPV6_ADDR_PREFERENCES },
	{ IPPROTO_IPV6, IPV6_MINHOPCOUNT }, { IPPROTO_IPV6, IPV6_RECVORIGDSTADDR },
	{ IPPROTO_IPV6, IPV6_TRANSPARENT }, { IPPROTO_IPV6, IPV6_FREEBIND },
	{ IPPROTO_IPV6, IPV6_RECVFRAGSIZE }, { IPPROTO_IPV6, IPV6_RECVERR_RFC4884 },
	{ IPPROTO_IPV6, IPV6_ROUTER_ALERT_ISOLATE },
};

#define N_INHERITED	(sizeof(inherited) / sizeof(inherited[0]))

/* An option's value as a socket answers it (len 0: it does not). */
struct optval {
	uint8_t len;
	unsigned char val[USOR_OPT_MAX];
};

static bool v6_only_entry(size_t i)
{
	return inherited[i].level == IPPROTO_IPV6;
}

static void read_inherited(int fd, bool v6, struct optval *out)
{
	socklen_t l;
	size_t i;

	for (i = 0; i < N_INHERITED; i++) {
		out[i].len = 0;
		if (v6_only_entry(i) && !v6)
			continue;
		l = sizeof(out[i].val);
		if (usor_r->getsockopt(fd, inherited[i].level, inherited[i].name,
				      out[i].val, &l) == 0 && l <= sizeof(out[i].val))
			out[i].len = (uint8_t)l;
	}
}

/*
 * What a new TCP socket of each family answers, learnt once per process
 * (0 unknown, 1 being learnt, 2 known); NULL if it cannot be learnt now.
 */
static struct optval fresh[2][N_INHERITED];
static int fresh_state[2];
static __thread int learning;

static const struct optval *fresh_values(int family)
{
	int f = family == AF_INET6, s, t;

	while ((s = __atomic_load_n(&fresh_state[f], __ATOMIC_ACQUIRE)) != 2) {
		if (s == 1) {
			if (learning)
				return NULL;	/* a signal handler in the middle */
			usor_r->sched_yield();
			continue;
		}
		if (!__atomic_compare_exchange_n(&fresh_state[f], &s, 1, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		learning = 1;
		t = usor_r->socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
		if (t >= 0) {
			read_inherited(t, f, fresh[f]);
			usor_r->close(t);
		}
		learning = 0;
		__atomic_store_n(&fresh_state[f], t >= 0 ? 2 : 0, __ATOMIC_RELEASE);
		if (t < 0)
			return NULL;
	}
	return fresh[f];
}

/* The index of the interface that has IPv4 address ADDR (FD a socket), or 0. */
static int ifindex_of(int fd, uint32_t addr)
{
	struct ifreq ifr[16];
	struct ifconf ifc;
	size_t i;

	memset(ifr, 0, sizeof(ifr));
	ifc.ifc_len = sizeof(ifr);
	ifc.ifc_req = ifr;
	if (usor_r->ioctl(fd, SIOCGIFCONF, &ifc) < 0)
		return 0;
	for (i = 0; i < (size_t)ifc.ifc_len / sizeof(ifr[0]); i++) {
		struct sockaddr_in a;

		memcpy(&a, &ifr[i].ifr_addr, sizeof(a));
		if (a.sin_family == AF_INET && a.sin_addr.s_addr == addr)
			return usor_r->ioctl(fd, SIOCGIFINDEX, &ifr[i]) < 0 ?
			       0 : ifr[i].ifr_ifindex;
	}
	return 0;
}

/* What accepted socket FD has from its listener, kept on C. */
static void import_inherited(struct usor_conn *c, int fd)
{
	struct optval got[N_INHERITED];
	const struct optval *base;
	bool v6 = c->family == AF_INET6;
	size_t i;
	int v = 0;
	socklen_t l = sizeof(v);

	/* What TCP takes from the SYN (the dummy's: the same TTL). */
	if (usor_r->getsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &v, &l) == 0 &&
	    l == sizeof(v) && v > 0 && v <= 255)
		c->syn_ttl = v;
	c->syn_ifindex = ifindex_of(fd, c->local.sin_addr.s_addr);
	base = fresh_values(c->family);
	read_inherited(fd, v6, got);
	for (i = 0; i < N_INHERITED; i++) {
		if (!got[i].len)
			continue;
		if (base && base[i].len == got[i].len &&
		    !memcmp(base[i].val, got[i].val, got[i].len))
			continue;
		keep(c, inherited[i].level, inherited[i].name, got[i].val, got[i].len);
	}
}

void usor_conn_import_connect(struct usor_conn *c, const struct eusrv_sor_connect *rq)
{
	c->kind = USOR_KIND_CLIENT;
	c->rcvtimeo_ns = rq->rcvtimeo_ns > 0 ? rq->rcvtimeo_ns : -1;
	c->sndtimeo_ns = rq->sndtimeo_ns > 0 ? rq->sndtimeo_ns : -1;
	/* SO_LINGER {1, 0} the driver took itself; SO_COOKIE is asked when wanted. */
}

void usor_conn_import(struct usor_conn *c, int fd, int cfd, bool server)
{
	struct sock_tv tv;
	struct linger lg;
	uint32_t reset = 1;
	uint64_t ck = 0;
	socklen_t l;
	int e = errno;

	c->kind = server ? USOR_KIND_SERVER : USOR_KIND_CLIENT;
	l = sizeof(tv);
	if (usor_r->getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO_NEW, &tv, &l) == 0)
		c->rcvtimeo_ns = tv_ns(&tv);
	l = sizeof(tv);
	if (usor_r->getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO_NEW, &tv, &l) == 0)
		c->sndtimeo_ns = tv_ns(&tv);
	l = sizeof(lg);
	if (usor_r->getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &l) == 0 &&
	    lg.l_onoff && !lg.l_linger)
		usor_r->ioctl(cfd, EUSRV_SOR_LINGER, &reset);
	l = sizeof(ck);
	if (usor_r->getsockopt(fd, SOL_SOCKET, SO_COOKIE, &ck, &l) == 0)
		c->cookie = ck;
	if (server && c->map)
		import_inherited(c, fd);
	errno = e;
}
