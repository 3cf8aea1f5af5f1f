/*
 * The management network's switching logic, free of sockets: the stream
 * framing QEMU's stream netdev uses (4-byte big-endian length + Ethernet
 * frame) and a learning switch (bounded MAC table; unknown, broadcast and
 * multicast destinations are flooded).
 */
#ifndef EUSRV_MODEL_MGMT_SWITCH_H
#define EUSRV_MODEL_MGMT_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MGMT_ETH_ALEN		6U
#define MGMT_ETH_HLEN		14U
#define MGMT_LEN_SIZE		4U	/* the big-endian length prefix */
/* Largest frame accepted: a 64 KiB payload plus the Ethernet header. */
#define MGMT_FRAME_MAX		(65535U + MGMT_ETH_HLEN)
/* Smallest: the Ethernet header (addresses are all the switch needs). */
#define MGMT_FRAME_MIN		MGMT_ETH_HLEN
#define MGMT_MAC_TABLE_SIZE	256U

/* ---- Stream framing ---------------------------------------------------- */

enum vb_switch_rx_event {
	MGMT_RX_MORE,		/* all input consumed, no frame complete */
	MGMT_RX_FRAME,		/* rx->frame holds rx->len bytes */
	MGMT_RX_MALFORMED,	/* a bad length (rx->bad_len); its bytes are skipped */
};

struct vb_switch_rx {
	uint8_t hdr[MGMT_LEN_SIZE];
	uint32_t hdr_have;
	uint32_t len;		/* of the frame being received */
	uint32_t have;
	uint64_t skip;		/* bytes of a malformed frame left to drop */
	uint32_t bad_len;
	uint8_t frame[MGMT_FRAME_MAX];
};

void vb_switch_rx_init(struct vb_switch_rx *rx);
/*
 * Consume bytes of DATA[0..N) up to the next event; *USED gets the number
 * consumed.  Call again with the rest after handling an event.
 */
enum vb_switch_rx_event vb_switch_rx_feed(struct vb_switch_rx *rx,
					  const uint8_t *data, size_t n,
					  size_t *used);

/* Write the length prefix of a LEN-byte frame to OUT. */
void vb_switch_put_len(uint8_t out[MGMT_LEN_SIZE], uint32_t len);

/* ---- Learning switch -------------------------------------------------- */

#define MGMT_PORT_NONE		0U	/* port ids are never 0 */

struct vb_switch_mac_entry {
	uint8_t mac[MGMT_ETH_ALEN];
	uint32_t port;			/* MGMT_PORT_NONE: free */
	uint64_t used;			/* last learnt, for eviction */
};

struct vb_switch {
	struct vb_switch_mac_entry table[MGMT_MAC_TABLE_SIZE];
	uint64_t clock;
};

void vb_switch_init(struct vb_switch *sw);
/*
 * A FRAME of LEN (>= MGMT_FRAME_MIN) bytes came in on port IN: learn its
 * source; returns the port to send it to, MGMT_PORT_NONE to flood it to all
 * other ports, or IN itself when it must be dropped (destination on IN).
 */
uint32_t vb_switch_route(struct vb_switch *sw, uint32_t in,
			 const uint8_t *frame, size_t len);
/* Port PORT is gone: forget what was learnt on it. */
void vb_switch_forget(struct vb_switch *sw, uint32_t port);

#endif /* EUSRV_MODEL_MGMT_SWITCH_H */
