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
 * A block of every node, the mailbox, the CDMA engine and the shared NIC
 * alike, wired in with vb_blocks_add(): it takes the kicks of the vectors
 * it registered for and hears of each node's attach and detach, in the
 * order the blocks were added.  The rest is optional (NULL): RUN, the
 * work it asked for with vb_blocks_schedule(), once per loop round; TIMER,
 * the node's timer it set with vb_blocks_timer_set() fired; ROUND_END, a
 * look at each node after a round's work, where it raises its interrupts
 * (vb_blocks_raise()).
 */
struct vb_block_ops {
	void (*attach)(void *opaque, unsigned int node);
	void (*detach)(void *opaque, unsigned int node);
	void (*kick)(void *opaque, unsigned int node, unsigned int vector);
	void (*run)(void *opaque, unsigned int node);
	void (*timer)(void *opaque, unsigned int node);
	void (*round_end)(void *opaque, unsigned int node);
};

/* The mailbox, the CDMA engine and the shared NIC. */
#define BLOCKS_MAX		3U

struct vb_block {
	const struct vb_block_ops *ops;
	void *opaque;
};

/* A block's timer on one node (a timerfd in the loop). */
struct vb_block_timer {
	struct ev_handler h;
	struct vb_blocks_node *bn;
	unsigned int block;		/* index in vb_blocks.block[] */
	uint64_t armed_us;		/* 0: disarmed */
};

struct vb_blocks_node {
	struct vb_blocks *blocks;
	unsigned int node;
	int irq_fd[EUSRV_NR_VECTORS];	/* borrowed while attached, else -1 */
	bool queued;
	struct vb_block_timer timer[BLOCKS_MAX];
	/* The state of the two blocks built into the board (blocks.c). */
	struct vb_mbox mbox;
	struct vb_cdma cdma;
};

struct vb_blocks {
	struct board *board;
	struct vb_block block[BLOCKS_MAX];
	unsigned int nr_blocks;
	/* Per vector: the index in block[] + 1 of the block it kicks, 0: none. */
	unsigned int vec_block[EUSRV_NR_VECTORS];
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
 * Wire in a block (struct vb_block_ops) that takes the kicks of the
 * vectors in the bit mask VECTORS: its index (for vb_blocks_timer_set()),
 * or -EBUSY (too many blocks, or a vector taken), or a negative errno.
 */
int vb_blocks_add(struct vb_blocks *bl, uint32_t vectors,
		  const struct vb_block_ops *ops, void *opaque);
/* Run node NODE's blocks' work (their RUN) on a later round, once however often asked. */
void vb_blocks_schedule(struct vb_blocks *bl, unsigned int node);
/*
 * Fire block BLOCK's timer for node NODE at monotonic DEADLINE_US,
 * replacing any earlier (0: disarm).
 */
void vb_blocks_timer_set(struct vb_blocks *bl, unsigned int block,
			 unsigned int node, uint64_t deadline_us);
/* Raise node NODE's VECTOR if it is attached. */
void vb_blocks_raise(struct vb_blocks *bl, unsigned int node,
		     unsigned int vector);
/* Node NODE kicked VECTOR. */
void vb_blocks_kick(struct vb_blocks *bl, unsigned int node,
		    unsigned int vector);

/*
 * The engines' conditional writes to other nodes' inboxes since start,
 * summed over the nodes: *TAKEN went on, *SKIPPED found their word 0.
 */
void vb_blocks_far_conds(const struct vb_blocks *bl, uint64_t *taken,
			 uint64_t *skipped);

/* True if work is queued for the next round (the loop must not sleep). */
bool vb_blocks_busy(const struct vb_blocks *bl);
/*
 * End of a loop round: run the nodes queued before this call once each,
 * then raise each node's interrupts (at most once per node and round).
 */
void vb_blocks_round(struct vb_blocks *bl);

#endif /* EUSRV_MODEL_BLOCKS_H */
