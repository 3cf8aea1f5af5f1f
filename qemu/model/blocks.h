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

struct blocks;

/*
 * A block wired in from outside this file (the shared NIC, nic.c): the
 * kicks of the vectors it registered for, and the nodes' attach and detach
 * after the mailbox's and the CDMA's.  It raises its interrupts with
 * blocks_raise().
 */
struct blocks_ext_ops {
	void (*attach)(void *opaque, unsigned int node);
	void (*detach)(void *opaque, unsigned int node);
	void (*kick)(void *opaque, unsigned int node, unsigned int vector);
};

#define BLOCKS_MAX_EXT		2U

struct blocks_ext {
	const struct blocks_ext_ops *ops;
	void *opaque;
};

struct blocks_node {
	struct blocks *blocks;
	struct mbox mbox;
	int irq_fd[EUSRV_NR_VECTORS];	/* borrowed while attached, else -1 */
	struct ev_handler timer;	/* timerfd for mbox_timer() */
	bool queued;
	struct cdma cdma;
	struct ev_handler cdma_timer;	/* timerfd for cdma_timer() */
	uint64_t cdma_armed_us;
};

struct blocks {
	struct board *board;
	struct blocks_ext ext[BLOCKS_MAX_EXT];
	unsigned int nr_ext;
	/* Per vector: the index in ext[] + 1 of the block it kicks, 0: none. */
	unsigned int vec_ext[EUSRV_NR_VECTORS];
	struct evloop *loop;
	struct blocks_node nodes[EUSRV_MAX_NODES];
	/* Run queue of node ids; each node is in it at most once. */
	unsigned int runq[EUSRV_MAX_NODES];
	unsigned int runq_head;
	unsigned int runq_len;
};

int blocks_init(struct blocks *bl, struct board *board, struct evloop *loop);
void blocks_fini(struct blocks *bl);

/* Node NODE connected; IRQ_FDS stay valid until blocks_detach(). */
void blocks_attach(struct blocks *bl, unsigned int node,
		   const int irq_fds[EUSRV_NR_VECTORS]);
void blocks_detach(struct blocks *bl, unsigned int node);
/*
 * Wire in a block (struct blocks_ext_ops) that takes the kicks of the
 * vectors in the bit mask VECTORS.  0, or -EBUSY (too many blocks, or a
 * vector taken).
 */
int blocks_add_ext(struct blocks *bl, uint32_t vectors,
		   const struct blocks_ext_ops *ops, void *opaque);
/* Raise node NODE's VECTOR if it is attached. */
void blocks_raise(struct blocks *bl, unsigned int node, unsigned int vector);
/* Node NODE kicked VECTOR. */
void blocks_kick(struct blocks *bl, unsigned int node, unsigned int vector);

/* True if work is queued for the next round (the loop must not sleep). */
bool blocks_busy(const struct blocks *bl);
/*
 * End of a loop round: run the nodes queued before this call once each,
 * then raise each node's interrupts (at most once per node and round).
 */
void blocks_round(struct blocks *bl);

#endif /* EUSRV_MODEL_BLOCKS_H */
