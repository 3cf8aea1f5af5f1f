/* SPDX-License-Identifier: MIT */
/*
 * The peers file: which IPv4 addresses belong to which node of the board.
 *
 *   # comment
 *   <node> <ipv4> [<ipv4>...]     node: 0..63 (or node0..node63)
 *
 * Every node of the board is listed, this one included (which one is this
 * node comes from the driver, not from the file).  A malformed line is
 * reported and ignored; the other lines still count.
 */
#ifndef EUSRV_SOR_PEERS_H
#define EUSRV_SOR_PEERS_H

#include <stddef.h>
#include <stdint.h>

#define SOR_PEERS_PATH		"/etc/eusrv/peers"
#define SOR_PEERS_ENV		"EUSRV_PEERS"
#define SOR_PEERS_MAX_NODES	64U
#define SOR_PEERS_MAX_ADDRS	8U
#define SOR_PEERS_MAX_LINE	512U
#define SOR_PEERS_MAX_FILE	65536U

struct sor_peer {
	uint32_t node;
	uint32_t naddr;
	uint32_t addr[SOR_PEERS_MAX_ADDRS];	/* IPv4, network order */
};

struct sor_peers {
	uint32_t count;
	uint32_t bad_lines;
	struct sor_peer peer[SOR_PEERS_MAX_NODES];
};

/* Called once per malformed line with a complete message ("NAME:LINE: ..."). */
typedef void sor_peers_report_fn(void *arg, const char *msg);

/*
 * Parse LEN bytes of BUF (NAME is for messages) into P.  Returns the number
 * of nodes.
 */
uint32_t sor_peers_parse(struct sor_peers *p, const char *buf, size_t len,
			 const char *name, sor_peers_report_fn *report,
			 void *arg);

/* The node owning ADDR (network order), or -1. */
int sor_peers_find(const struct sor_peers *p, uint32_t addr);

/* The entry of NODE, or NULL. */
const struct sor_peer *sor_peers_node(const struct sor_peers *p, uint32_t node);

/* Dotted quad of ADDR (network order) into OUT (16 bytes); returns OUT. */
char *sor_ipv4_str(uint32_t addr, char out[16]);

#endif /* EUSRV_SOR_PEERS_H */
