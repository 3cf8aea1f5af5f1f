// SPDX-License-Identifier: MIT
/*
 * Connection objects: their memory, the mapping of a connection file's
 * rings into one (checked against what the driver says of them), and
 * what the last reference releases (fdtab.c drops it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "usor_internal.h"

static void *alloc_pages(unsigned long len)
{
	void *p = usor_r->mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

bool usor_tcp_fd_still(const struct usor_conn *c, int t)
{
	struct stat sb;

	return t >= 0 && !usor_r->fstat(t, &sb) && (uint64_t)sb.st_dev == c->tcp_dev &&
	       (uint64_t)sb.st_ino == c->tcp_ino;
}

static void unmap_conn(struct usor_conn *c)
{
	if (c->map)
		usor_r->munmap(c->map, c->map_len);
	c->map = NULL;
	/* Not if the number is the program's by now. */
	if (usor_tcp_fd_still(c, c->tcp_fd))
		usor_r->close(c->tcp_fd);
	c->tcp_fd = -1;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A mapping CONNECT made (map_addr) that will not be used. */
static void drop_premap(const struct eusrv_sor_info *in)
{
	if (in->map_addr && (uint64_t)(uintptr_t)in->map_addr == in->map_addr &&
	    in->map_len <= (1ULL << 30))
		usor_r->munmap((void *)(uintptr_t)in->map_addr, in->map_len);
}

/*
 * Map the rings of CFD as IN (from INFO or CONNECT) gives their layout,
 * unless CONNECT mapped them already (map_addr).
 */
static int map_rings(struct usor_conn *c, int cfd, const struct eusrv_sor_info *info)
{
	struct eusrv_sor_info in = *info;
	void *map;

	if (!is_pow2(in.snd_size) || !is_pow2(in.rcv_size) ||
	    in.snd_hdr_off + EUSRV_SOR_USER_OFF + EUSRV_SOR_USER_LEN > in.snd_data_off ||
	    in.snd_hdr_off + EUSRV_SOR_USER_OFF + EUSRV_SOR_USER_LEN > in.rcv_hdr_off ||
	    in.rcv_hdr_off + sizeof(struct eusrv_sor_ring_hdr) > in.map_len ||
	    in.snd_data_off + in.snd_size > in.map_len ||
	    in.rcv_data_off + in.rcv_size > in.map_len ||
	    in.map_len > (1ULL << 30) ||
	    (uint64_t)(uintptr_t)in.map_addr != in.map_addr) {
		drop_premap(&in);
		errno = EPROTO;
		return -1;
	}
	map = (void *)(uintptr_t)in.map_addr;
	if (!map)
		map = usor_r->mmap(NULL, in.map_len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, cfd, 0);
	if (map == MAP_FAILED)
		return -1;
	c->map = map;
	c->map_len = in.map_len;
	c->snd.hdr = (struct eusrv_sor_ring_hdr *)((char *)map + in.snd_hdr_off);
	c->snd.data = (unsigned char *)map + in.snd_data_off;
	c->snd.size = in.snd_size;
	c->rcv.hdr = (struct eusrv_sor_ring_hdr *)((char *)map + in.rcv_hdr_off);
	c->rcv.data = (unsigned char *)map + in.rcv_data_off;
	c->rcv.size = in.rcv_size;
	/* Both lock words are in the send header, out of the peer's reach. */
	c->snd.lock = &c->snd.hdr->lock;
	c->rcv.lock = &c->snd.hdr->rcv_lock;
	usor_ring_seen_init(&c->snd);
	usor_ring_seen_init(&c->rcv);
	usor_ring_spin_init(&c->rcv);
	c->id = in.id;
	c->node = in.node;
	c->peer_node = in.peer_node;
	c->peer_id = in.peer_id;
	return 0;
}

int usor_conn_map_rings(struct usor_conn *c, int cfd,
			struct eusrv_sor_info *info)
{
	memset(info, 0, sizeof(*info));
	if (usor_r->ioctl(cfd, EUSRV_SOR_INFO, info) < 0)
		return -1;
	return map_rings(c, cfd, info);
}

/* The names of connection C as the driver knows them (ports, family). */
static void names_of(struct usor_conn *c, const struct eusrv_sor_info *in)
{
	c->family = AF_INET;
	c->local.sin_family = AF_INET;
	c->local.sin_port = htons(in->lport);
	c->peer.sin_family = AF_INET;
	c->peer.sin_port = htons(in->rport);
}

struct usor_conn *usor_conn_map_info(int cfd, const struct eusrv_sor_info *in)
{
	struct usor_conn *c = usor_conn_alloc();
	int e;

	if (!c) {
		drop_premap(in);
		errno = ENOMEM;
		return NULL;
	}
	if (map_rings(c, cfd, in) < 0) {
		e = errno;
		usor_conn_put(c);
		errno = e;
		return NULL;
	}
	names_of(c, in);
	return c;
}

struct usor_conn *usor_conn_map(int cfd)
{
	struct eusrv_sor_info in;

	memset(&in, 0, sizeof(in));
	if (usor_r->ioctl(cfd, EUSRV_SOR_INFO, &in) < 0)
		return NULL;
	return usor_conn_map_info(cfd, &in);
}

void usor_conn_setup(void)
{
	usor_fd_setup(alloc_pages, unmap_conn);
}
