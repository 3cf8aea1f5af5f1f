/*
 * The shared 10 GbE MAC (mac_hw.h): one port per node, each with its AXI
 * DMA engine; the switch between ports and the line side; the round-robin
 * transmit scheduler; checksum offload; counters; MDIO to the PHY.
 *
 * Block logic only: the line side, interrupts and time reach it through
 * struct vb_mac_ops, so the host unit tests drive it with fakes.
 */
#ifndef EUSRV_MODEL_MAC_H
#define EUSRV_MODEL_MAC_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/mac_hw.h>

#include "axidma.h"
#include "board.h"
#include "log.h"
#include "phy.h"

/* Scheduler turns per round: each turn takes one frame from every ready port. */
#define MAC_TX_TURNS		16U
/* The MAC's frame buffer: larger frames are consumed and dropped. */
#define MAC_BUF_SIZE		16384U
#define MAC_LINE		EUSRV_MAX_NODES	/* "port" number of the line */

struct vb_mac_ops {
	/* Raise node NODE's MSI-X vector VECTOR. */
	void (*raise)(void *opaque, unsigned int node, unsigned int vector);
	/* Send a frame to the line peer; false if it had to be dropped. */
	bool (*line_send)(void *opaque, const uint8_t *frame, size_t len);
	/* Monotonic microseconds. */
	uint64_t (*now_us)(void *opaque);
	/*
	 * Optional: true while the line side cannot take a frame of the
	 * largest size; the scheduler then leaves frames in the ports' rings
	 * (back-pressure) instead of dropping them at the line.
	 */
	bool (*line_full)(void *opaque);
};

struct vb_mac_port {
	bool up;
	bool tx_ready;			/* MM2S may have a frame */
	uint32_t mtu;			/* last valid MTU */
	uint32_t mtu_bad_val, ctrl_bad_val;
	bool mtu_bad, ctrl_bad;
	uint32_t sr;
	uint32_t sr_seen_ctrl;		/* CTRL at the last kick */
	uint32_t clr_seq;
	uint16_t mdio_done;
	uint32_t link_changes;
	uint32_t bad_cnt;
	bool raise;
	uint64_t st[EUSRV_MAC_STATS_COUNT];
};

struct vb_mac {
	struct board *board;
	const struct vb_mac_ops *ops;
	void *opaque;
	struct vb_axidma dma[EUSRV_MAX_NODES];
	struct vb_mac_port port[EUSRV_MAX_NODES];
	struct vb_phy phy;
	bool link;
	bool peer;
	uint64_t total[EUSRV_MAC_STATS_COUNT];
	uint64_t line[EUSRV_MAC_STATS_COUNT];
	bool shared_dirty;		/* totals/line to copy to every page */
	unsigned int rr;		/* the scheduler's first port next round */
	bool busy;			/* a port may have more to send */
	unsigned int loop_depth;
	struct log_ratelimit rl;
	uint8_t txbuf[MAC_BUF_SIZE];
};

void vb_mac_init(struct vb_mac *m, struct board *board,
		 const struct vb_mac_ops *ops, void *opaque);
void vb_mac_attach(struct vb_mac *m, unsigned int node);
void vb_mac_detach(struct vb_mac *m, unsigned int node);
/* Node NODE kicked VECTOR (EUSRV_VEC_DMA_MM2S, _S2MM or _MAC). */
void vb_mac_kick(struct vb_mac *m, unsigned int node, unsigned int vector);
/* A round of the event loop: transmit scheduler, counters, interrupts. */
void vb_mac_round(struct vb_mac *m);
/* True if the loop must not sleep (ports still have frames). */
bool vb_mac_busy(const struct vb_mac *m);
/* Timers due (delay timers, PHY reset). */
void vb_mac_timer(struct vb_mac *m);
/* Earliest timer deadline in µs (0: none). */
uint64_t vb_mac_next_deadline(const struct vb_mac *m);
/* A frame from the line peer. */
void vb_mac_line_rx(struct vb_mac *m, const uint8_t *frame, size_t len);
/* The line peer connected or went away. */
void vb_mac_line_peer(struct vb_mac *m, bool connected);
/* Force the link down (VEND_CTRL.LINK_DOWN) or release it. */
void vb_mac_force_link_down(struct vb_mac *m, bool down);
/* Test hook: node NODE's channel CH fails its next descriptor with KIND. */
int vb_mac_inject(struct vb_mac *m, unsigned int node, unsigned int ch,
		  enum vb_axidma_inject_kind kind);

/* Ones'-complement sum of LEN bytes as big-endian words, folded. */
uint16_t vb_mac_csum(const uint8_t *p, size_t len, uint32_t seed);

#endif /* EUSRV_MODEL_MAC_H */
