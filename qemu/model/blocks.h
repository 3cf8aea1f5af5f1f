/*
 * The blocks of every node, wired to the outside world: kicks arrive here
 * by vector, interrupts leave through the node's interrupt eventfds, each
 * node has a timerfd for its blocks' timeouts, and a run queue lets a
 * block continue bounded work on the next loop round, so that one busy
 * node cannot starve the others.
 */
#ifndef EUSRV_MODEL_BLOCKS_H
#define EUSRV_MODEL_BLOCKS_H

#include <stdbool.h>

#include "board.h"
#include "cdma.h"
#include "evloop.h"
#include "mailbox.h"

struct vb_blocks;

/*
 * A block wired in from outside this file (the shared NIC, nic.c): the
 * kicks of the vectors it registered for, and the nodes' attach and detach
 * after the mailbox's and the CDMA's.  It raises its interrupts with
 * vb_blocks_raise().
 */
struct vb_blocks_ext_ops {
	void (*attach)(void *opaque, unsigned int node);
	void (*detach)(void *opaque, unsigned int node);
	void (*kick)(void *opaque, unsigned int node, unsigned int vector);
};

#define BLOCKS_MAX_EXT		2U

struct vb_blocks_ext {
	const struct vb_blocks_ext_ops *ops;
	void *opaque;
};

struct vb_blocks_node {
	struct vb_blocks *blocks;
	struct vb_mbox mbox;
	int irq_fd[EUSRV_NR_VECTORS];	/* borrowed while attached, else -1 */
	struct ev_handler timer;	/* timerfd for vb_mbox_timer() */
	bool queued;
	struct vb_cdma cdma;
	struct ev_handler cdma_timer;	/* timerfd for vb_cdma_timer() */
	uint64_t cdma_armed_us;
};

struct vb_blocks {
	struct board *board;
	struct vb_blocks_ext ext[BLOCKS_MAX_EXT];
	unsigned int nr_ext;
	/* Per vector: the index in ext[] + 1 of the block it kicks, 0: none. */
	unsigned int vec_ext[EUSRV_NR_VECTORS];
	struct evloop *loop;
	struct vb_blocks_node nodes[EUSRV_MAX_NODES];
	/* Run queue of node ids; each node is in it at most once. */
	unsigned int runq[EUSRV_MAX_NODES];
	unsigned int runq_head;
	unsigned int runq_len;
};

int vb_blocks_init(struct vb_blocks *bl, struct board *board,
		   struct evloop *loop);
void vb_blocks_fini(struct vb_blocks *bl);

/* Node NODE connected; IRQ_FDS stay valid until vb_blocks_detach(). */
void vb_blocks_attach(struct vb_blocks *bl, unsigned int node,
		      const int irq_fds[EUSRV_NR_VECTORS]);
void vb_blocks_detach(struct vb_blocks *bl, unsigned int node);
/*
 * Wire in a block (struct vb_blocks_ext_ops) that takes the kicks of the
 * vectors in the bit mask VECTORS.  0, or -EBUSY (too many blocks, or a
 * vector taken).
 */
int vb_blocks_add_ext(struct vb_blocks *bl, uint32_t vectors,
		      const struct vb_blocks_ext_ops *ops, void *opaque);
/* Raise node NODE's VECTOR if it is attached. */
void vb_blocks_raise(struct vb_blocks *bl, unsigned int node,
		     unsigned int vector);
/* Node NODE kicked VECTOR. */
void vb_blocks_kick(struct vb_blocks *bl, unsigned int node,
		    unsigned int vector);

/* True if work is queued for the next round (the loop must not sleep). */
bool vb_blocks_busy(const struct vb_blocks *bl);
/*
 * End of a loop round: run the nodes queued before this call once each,
 * then raise each node's interrupts (at most once per node and round).
 */
void vb_blocks_round(struct vb_blocks *bl);

#endif /* EUSRV_MODEL_BLOCKS_H */
