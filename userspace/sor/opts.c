// SPDX-License-Identifier: MIT
/*
 * The socket options of a connection: what getsockopt answers for it (the
 * socket it stands for, or what was set), and what setsockopt keeps in it
 * (timeouts, SO_LINGER told to the driver, the rest remembered as set).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>

#include "usor_internal.h"

/* What TCP_MAXSEG reports: a connection has no segments; loopback's MSS. */
#define USOR_MSS		65483

static uint32_t opt_key(int level, int name)
{
	return ((uint32_t)level & 0xffffU) << 16 | ((uint32_t)name & 0xffffU);
}

static struct usor_opt *opt_find(struct usor_conn *c, uint32_t key, bool add)
{
	int i;

	for (i = 0; i < USOR_MAX_OPTS; i++) {
		uint32_t k = __atomic_load_n(&c->opts[i].key, __ATOMIC_ACQUIRE);

		if (k == key)
			return &c->opts[i];
		if (!k && add) {
			uint32_t zero = 0;

			if (__atomic_compare_exchange_n(&c->opts[i].key, &zero, key,
							false, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE) ||
			    zero == key)
				return &c->opts[i];
		}
	}
	return NULL;
}

/* Give an int (or a struct) back in the caller's buffer. */
static int give(void *val, socklen_t *len, const void *v, socklen_t vlen)
{
	if (*len > vlen)
		*len = vlen;
	memcpy(val, v, *len);
	return 0;
}

static void tv_of(int64_t ns, struct timeval *tv)
{
	if (ns < 0)
		ns = 0;
	tv->tv_sec = (time_t)(ns / USOR_NS_PER_S);
	tv->tv_usec = (suseconds_t)(ns % USOR_NS_PER_S / USOR_NS_PER_US);
}

int usor_conn_getopt(struct usor_conn *c, int cfd, int level, int name,
		     void *val, socklen_t *len)
{
	struct usor_opt *o;
	struct timeval tv;
	int v;

	if (!val || !len)
		return -EFAULT;
	if ((int)*len < 0)
		return -EINVAL;
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_TYPE:
			v = SOCK_STREAM;
			return give(val, len, &v, sizeof(v));
		case SO_DOMAIN:
			v = c->family;
			return give(val, len, &v, sizeof(v));
		case SO_PROTOCOL:
			v = IPPROTO_TCP;
			return give(val, len, &v, sizeof(v));
		case SO_ACCEPTCONN:
			v = 0;
			return give(val, len, &v, sizeof(v));
		case SO_ERROR: {
			int32_t err = 0;

			if (usor_r->ioctl(cfd, EUSRV_SOR_GET_ERROR, &err) < 0)
				return -errno;
			v = err;
			return give(val, len, &v, sizeof(v));
		}
		case SO_SNDBUF:
			v = (int)c->snd.size;
			return give(val, len, &v, sizeof(v));
		case SO_RCVBUF:
			v = (int)c->rcv.size;
			return give(val, len, &v, sizeof(v));
		case SO_RCVTIMEO:
		case SO_SNDTIMEO:
			tv_of(name == SO_RCVTIMEO ? c->rcvtimeo_ns : c->sndtimeo_ns, &tv);
			return give(val, len, &tv, sizeof(tv));
		default:
			break;
		}
	} else if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_INFO: {
			struct tcp_info ti;

			memset(&ti, 0, sizeof(ti));
			ti.tcpi_state = TCP_ESTABLISHED;
			ti.tcpi_snd_mss = USOR_MSS;
			ti.tcpi_rcv_mss = USOR_MSS;
			ti.tcpi_pmtu = USOR_MSS;
			ti.tcpi_snd_cwnd = c->snd.size / USOR_MSS + 1;
			ti.tcpi_rcv_space = c->rcv.size;
			return give(val, len, &ti, sizeof(ti));
		}
		case TCP_MAXSEG:
			o = opt_find(c, opt_key(level, name), false);
			v = o ? (int)o->val : USOR_MSS;
			return give(val, len, &v, sizeof(v));
		default:
			break;
		}
	} else if (level != IPPROTO_IP) {
		return -ENOPROTOOPT;
	}
	/* Anything else: what was set, or 0. */
	o = opt_find(c, opt_key(level, name), false);
	if (o && o->len) {
		uint64_t raw = o->val;

		return give(val, len, &raw, o->len);
	}
	if (level == SOL_SOCKET && (name == SO_RCVLOWAT || name == SO_SNDLOWAT))
		v = 1;
	else
		v = 0;
	return give(val, len, &v, sizeof(v));
}

int usor_conn_setopt(struct usor_conn *c, int cfd, int level, int name,
		    const void *val, socklen_t len)
{
	struct usor_opt *o;
	uint64_t raw = 0;

	if (len && !val)
		return -EFAULT;
	if ((int)len < 0)
		return -EINVAL;
	if (level != SOL_SOCKET && level != IPPROTO_TCP && level != IPPROTO_IP)
		return -ENOPROTOOPT;
	if (level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO)) {
		struct timeval tv;
		int64_t ns;

		if (len < (socklen_t)sizeof(tv))
			return -EINVAL;
		memcpy(&tv, val, sizeof(tv));
		if (tv.tv_usec < 0 || tv.tv_usec >= USOR_US_PER_S)
			return -EDOM;
		if (tv.tv_sec < 0 || (!tv.tv_sec && !tv.tv_usec))
			ns = -1;	/* no timeout (negative: as Linux, none) */
		else if (tv.tv_sec > INT64_MAX / USOR_NS_PER_S - 1)
			ns = -1;
		else
			ns = (int64_t)tv.tv_sec * USOR_NS_PER_S +
			     tv.tv_usec * USOR_NS_PER_US;
		__atomic_store_n(name == SO_RCVTIMEO ? &c->rcvtimeo_ns :
				 &c->sndtimeo_ns, ns, __ATOMIC_RELAXED);
		return 0;
	}
	/* Most options are ints: as the kernel, refuse a shorter value. */
	if (len < (socklen_t)sizeof(int))
		return -EINVAL;
	if (level == SOL_SOCKET && name == SO_LINGER) {
		struct linger lg;
		uint32_t reset;

		if (len < (socklen_t)sizeof(lg))
			return -EINVAL;
		memcpy(&lg, val, sizeof(lg));
		/* {1, 0}: the last close resets, as TCP's RST. */
		reset = lg.l_onoff && !lg.l_linger;
		if (usor_r->ioctl(cfd, EUSRV_SOR_LINGER, &reset) < 0)
			return -errno;
	}
	if (len > sizeof(raw))
		return 0;	/* accepted, not remembered */
	memcpy(&raw, val, len);
	o = opt_find(c, opt_key(level, name), true);
	if (o) {
		o->val = raw;
		__atomic_store_n(&o->len, (uint32_t)len, __ATOMIC_RELEASE);
	}
	return 0;
}
