/* SPDX-License-Identifier: MIT */
/* What the parts of the interception core share. */
#ifndef EUSRV_SOR_INTERNAL_H
#define EUSRV_SOR_INTERNAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "fdtab.h"
#include "peers.h"
#include "ring.h"
#include "sor_core.h"

/* Socket options remembered on a connection (values up to 8 bytes). */
#define SOR_MAX_OPTS	16

struct sor_opt {
	uint32_t key;		/* level << 16 | name; 0 free */
	uint32_t len;
	uint64_t val;
};

struct sor_conn {
	/* Lifetime (fdtab.c). */
	unsigned int refs;
	unsigned int busy;
	unsigned int index;

	/* The mapping and the rings. */
	void *map;
	unsigned long map_len;
	struct sor_ring snd;
	struct sor_ring rcv;

	/* Who: ids, addresses (network order), what the driver said. */
	uint32_t id, node, peer_node, peer_id;
	int family;		/* the socket's: AF_INET6 shows IPv4-mapped */
	struct sockaddr_in local;
	struct sockaddr_in peer;

	/* State kept by the core (atomic). */
	unsigned int shut;	/* SOR_X_SHUT_RD once shutdown(SHUT_RD) */
	int64_t rcvtimeo_ns;	/* -1: none */
	int64_t sndtimeo_ns;
	struct sor_opt opts[SOR_MAX_OPTS];
};

/* The real operations, once sor_set_real() ran. */
extern const struct sor_real *sor_r;

/* Process-wide state (conn.c). */
struct sor_state {
	int ctl;		/* control file, -1 none */
	int node;		/* this node (driver), -1 unknown */
	int64_t spin_ns;
	struct sor_peers peers;
};

/*
 * The control file and the peers, opened/read on first use: NULL when the
 * driver is not loaded (then everything stays on TCP).
 */
const struct sor_state *sor_state(void);
/* Quick: the driver is known to be absent (after the first try). */
bool sor_absent(void);

/* Errors: set errno from a negative errno value and return -1. */
long sor_fail(long neg_errno);

/* The ring ops of a connection (sockops.c). */
extern const struct sor_kops sor_kops_dev;
struct sor_kctx {
	int fd;
	struct sor_conn *c;
};

/* Ring size wish (log2, 0 = default) for a SO_SNDBUF/SO_RCVBUF value. */
uint32_t sor_shift_of(int bytes);

#endif /* EUSRV_SOR_INTERNAL_H */
