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
#ifndef EUSRV_USOR_PEERS_H
#define EUSRV_USOR_PEERS_H

#include <stddef.h>
#include <stdint.h>

#define USOR_PEERS_PATH		"/etc/eusrv/peers"
#define USOR_PEERS_ENV		"EUSRV_PEERS"
#define USOR_PEERS_MAX_NODES	64U
#define USOR_PEERS_MAX_ADDRS	8U
#define USOR_PEERS_MAX_LINE	512U
#define USOR_PEERS_MAX_FILE	65536U

struct usor_peer {
	uint32_t node;
	uint32_t naddr;
	uint32_t addr[USOR_PEERS_MAX_ADDRS];	/* IPv4, network order */
};

struct usor_peers {
	uint32_t count;
	uint32_t bad_lines;
	struct usor_peer peer[USOR_PEERS_MAX_NODES];
};

/* Called once per malformed line with a complete message ("NAME:LINE: ..."). */
typedef void usor_peers_report_fn(void *arg, const char *msg);

/*
 * Parse LEN bytes of BUF (NAME is for messages) into P.  Returns the number
 * of nodes.
 */
uint32_t usor_peers_parse(struct usor_peers *p, const char *buf, size_t len,
			 const char *name, usor_peers_report_fn *report,
			 void *arg);

/* The node owning ADDR (network order), or -1. */
int usor_peers_find(const struct usor_peers *p, uint32_t addr);

/* The entry of NODE, or NULL. */
const struct usor_peer *usor_peers_node(const struct usor_peers *p, uint32_t node);

/* Dotted quad of ADDR (network order) into OUT (16 bytes); returns OUT. */
char *usor_ipv4_str(uint32_t addr, char out[16]);

#endif /* EUSRV_USOR_PEERS_H */
