/*
 * Per-node wiring of the blocks (see blocks.h): the vectors' kicks to the
 * block that registered them, the run queue, each block's timerfds, and
 * the two blocks built into the board, the mailbox and the CDMA engine,
 * wired in as any other block (the shared NIC: nic.c).
 */
#include "blocks.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* The built-in blocks' indices: they are added first, in this order. */
enum { BLOCK_MBOX, BLOCK_CDMA };

static void vb_blocks_raise_vector(struct vb_blocks_node *bn,
				   unsigned int vector)
{
	uint64_t one = 1;

	/* Fails only if the counter would overflow: the IRQ is pending anyway. */
	if (bn->irq_fd[vector] >= 0 &&
	    write(bn->irq_fd[vector], &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("node%u: raising vector %u: %s", bn->node, vector,
			 strerror(errno));
}

void vb_blocks_raise(struct vb_blocks *bl, unsigned int node,
		     unsigned int vector)
{
	if (node < EUSRV_MAX_NODES && vector < EUSRV_NR_VECTORS)
		vb_blocks_raise_vector(&bl->nodes[node], vector);
}

void vb_blocks_schedule(struct vb_blocks *bl, unsigned int node)
{
	struct vb_blocks_node *bn = &bl->nodes[node];

	if (bn->queued)
		return;
	bn->queued = true;
	bl->runq[(bl->runq_head + bl->runq_len) % EUSRV_MAX_NODES] = node;
	bl->runq_len++;
}

void vb_blocks_timer_set(struct vb_blocks *bl, unsigned int block,
			 unsigned int node, uint64_t deadline_us)
{
	struct vb_block_timer *t = &bl->nodes[node].timer[block];
	int err;

	if (t->h.fd < 0 || deadline_us == t->armed_us)
		return;
	t->armed_us = deadline_us;
	err = evloop_timer_set_us(t->h.fd, deadline_us);
	if (err)
		log_err("node%u: arming block %u's timer: %s", node, block,
			strerror(-err));
}

static void vb_blocks_timer_event(struct ev_handler *h, uint32_t events)
{
	struct vb_block_timer *t = container_of(h, struct vb_block_timer, h);
	struct vb_blocks *bl = t->bn->blocks;
	const struct vb_block *b = &bl->block[t->block];
	uint64_t expirations;

	(void)events;
	if (read(h->fd, &expirations, sizeof(expirations)) < 0)
		return;		/* EAGAIN: disarmed or re-armed meanwhile */
	t->armed_us = 0;
	b->ops->timer(b->opaque, t->bn->node);
}

/* ---- the mailbox, as a block ------------------------------------------ */

static struct vb_blocks_node *vb_blocks_mbox_node(struct vb_mbox *m)
{
	return container_of(m, struct vb_blocks_node, mbox);
}

static struct vb_mbox *vb_blocks_op_peer(struct vb_mbox *m, unsigned int node)
{
	struct vb_blocks *bl = vb_blocks_mbox_node(m)->blocks;

	return node < bl->board->nr_nodes ? &bl->nodes[node].mbox : NULL;
}

static void vb_blocks_op_raise_irq(struct vb_mbox *m)
{
	vb_blocks_raise_vector(vb_blocks_mbox_node(m), EUSRV_VEC_MBOX);
}

static void vb_blocks_op_schedule(struct vb_mbox *m)
{
	struct vb_blocks_node *bn = vb_blocks_mbox_node(m);

	vb_blocks_schedule(bn->blocks, bn->node);
}

static void vb_blocks_op_timer_arm(struct vb_mbox *m, uint64_t deadline_ms)
{
	struct vb_blocks_node *bn = vb_blocks_mbox_node(m);

	/* 0 would disarm: the clock is never that young, but be exact. */
	vb_blocks_timer_set(bn->blocks, BLOCK_MBOX, bn->node,
			    (deadline_ms ? deadline_ms : 1) * 1000U);
}

static void vb_blocks_op_timer_cancel(struct vb_mbox *m)
{
	struct vb_blocks_node *bn = vb_blocks_mbox_node(m);

	vb_blocks_timer_set(bn->blocks, BLOCK_MBOX, bn->node, 0);
}

static uint64_t vb_blocks_op_now_ms(struct vb_mbox *m)
{
	(void)m;
	return evloop_now_ms();
}

static const struct vb_mbox_ops blocks_mbox_ops = {
	.peer = vb_blocks_op_peer,
	.raise_irq = vb_blocks_op_raise_irq,
	.schedule = vb_blocks_op_schedule,
	.timer_arm = vb_blocks_op_timer_arm,
	.timer_cancel = vb_blocks_op_timer_cancel,
	.now_ms = vb_blocks_op_now_ms,
};

static void mbox_block_attach(void *opaque, unsigned int node)
{
	vb_mbox_attach(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static void mbox_block_detach(void *opaque, unsigned int node)
{
	vb_mbox_detach(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static void mbox_block_kick(void *opaque, unsigned int node, unsigned int vector)
{
	(void)vector;
	vb_mbox_kick(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static void mbox_block_run(void *opaque, unsigned int node)
{
	vb_mbox_run(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static void mbox_block_timer(void *opaque, unsigned int node)
{
	vb_mbox_timer(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static void mbox_block_round_end(void *opaque, unsigned int node)
{
	vb_mbox_update_irq(&((struct vb_blocks *)opaque)->nodes[node].mbox);
}

static const struct vb_block_ops mbox_block_ops = {
	.attach = mbox_block_attach,
	.detach = mbox_block_detach,
	.kick = mbox_block_kick,
	.run = mbox_block_run,
	.timer = mbox_block_timer,
	.round_end = mbox_block_round_end,
};

/* ---- the CDMA engine, as a block -------------------------------------- */

static struct vb_blocks_node *vb_blocks_cdma_node(struct vb_cdma *c)
{
	return container_of(c, struct vb_blocks_node, cdma);
}

static void vb_blocks_cdma_op_schedule(struct vb_cdma *c)
{
	struct vb_blocks_node *bn = vb_blocks_cdma_node(c);

	vb_blocks_schedule(bn->blocks, bn->node);
}

static uint64_t vb_blocks_cdma_op_now_us(struct vb_cdma *c)
{
	(void)c;
	return evloop_now_us();
}

static const struct vb_cdma_ops blocks_cdma_ops = {
	.schedule = vb_blocks_cdma_op_schedule,
	.now_us = vb_blocks_cdma_op_now_us,
};

static void cdma_block_attach(void *opaque, unsigned int node)
{
	vb_cdma_attach(&((struct vb_blocks *)opaque)->nodes[node].cdma);
}

static void cdma_block_detach(void *opaque, unsigned int node)
{
	vb_cdma_detach(&((struct vb_blocks *)opaque)->nodes[node].cdma);
}

static void cdma_block_kick(void *opaque, unsigned int node, unsigned int vector)
{
	(void)vector;
	vb_cdma_kick(&((struct vb_blocks *)opaque)->nodes[node].cdma);
}

static void cdma_block_run(void *opaque, unsigned int node)
{
	vb_cdma_run(&((struct vb_blocks *)opaque)->nodes[node].cdma);
}

static void cdma_block_timer(void *opaque, unsigned int node)
{
	vb_cdma_timer(&((struct vb_blocks *)opaque)->nodes[node].cdma);
}

/* Its interrupt, and its timer for the engine's earliest deadline. */
static void cdma_block_round_end(void *opaque, unsigned int node)
{
	struct vb_blocks *bl = opaque;
	struct vb_blocks_node *bn = &bl->nodes[node];

	if (vb_cdma_update_irq(&bn->cdma))
		vb_blocks_raise_vector(bn, EUSRV_VEC_CDMA);
	vb_blocks_timer_set(bl, BLOCK_CDMA, node, vb_cdma_next_deadline(&bn->cdma));
}

static const struct vb_block_ops cdma_block_ops = {
	.attach = cdma_block_attach,
	.detach = cdma_block_detach,
	.kick = cdma_block_kick,
	.run = cdma_block_run,
	.timer = cdma_block_timer,
	.round_end = cdma_block_round_end,
};

/* ---- the blocks ------------------------------------------------------- */

int vb_blocks_init(struct vb_blocks *bl, struct board *board,
		   struct evloop *loop)
{
	unsigned int i, v, b;
	int err;

	memset(bl, 0, sizeof(*bl));
	bl->board = board;
	bl->loop = loop;
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct vb_blocks_node *bn = &bl->nodes[i];

		bn->blocks = bl;
		bn->node = i;
		for (b = 0; b < BLOCKS_MAX; b++) {
			bn->timer[b].h.fd = -1;
			bn->timer[b].h.fn = vb_blocks_timer_event;
			bn->timer[b].bn = bn;
			bn->timer[b].block = b;
		}
		for (v = 0; v < EUSRV_NR_VECTORS; v++)
			bn->irq_fd[v] = -1;
		vb_mbox_init(&bn->mbox, board_page(board, i, EUSRV_PAGE_MBOX), i,
			     &blocks_mbox_ops, bl);
		vb_cdma_init(&bn->cdma, board_page(board, i, EUSRV_PAGE_CDMA), board,
			     &bn->mbox, i, &blocks_cdma_ops, bl);
	}
	err = vb_blocks_add(bl, 1U << EUSRV_VEC_MBOX, &mbox_block_ops, bl);
	if (err >= 0)
		err = vb_blocks_add(bl, 1U << EUSRV_VEC_CDMA, &cdma_block_ops, bl);
	if (err < 0) {
		vb_blocks_fini(bl);
		return err;
	}
	return 0;
}

void vb_blocks_fini(struct vb_blocks *bl)
{
	unsigned int i, b;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		for (b = 0; b < BLOCKS_MAX; b++) {
			struct vb_block_timer *t = &bl->nodes[i].timer[b];

			if (t->h.fd < 0)
				continue;
			ev_del(bl->loop, &t->h);
			close(t->h.fd);
			t->h.fd = -1;
		}
	}
}

/* Block B's timers, one per node on the board, if it has a timer. */
static int vb_blocks_add_timers(struct vb_blocks *bl, unsigned int b)
{
	unsigned int i;
	int err;

	for (i = 0; i < bl->board->nr_nodes; i++) {
		struct vb_block_timer *t = &bl->nodes[i].timer[b];

		t->h.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		err = t->h.fd < 0 ? -errno : ev_add(bl->loop, &t->h, EPOLLIN);
		if (err) {
			log_err("node%u: block %u's timer: %s", i, b, strerror(-err));
			return err;
		}
	}
	return 0;
}

int vb_blocks_add(struct vb_blocks *bl, uint32_t vectors,
		  const struct vb_block_ops *ops, void *opaque)
{
	unsigned int v, b = bl->nr_blocks;
	int err;

	if (b == BLOCKS_MAX)
		return -EBUSY;
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if ((vectors & (1U << v)) && bl->vec_block[v])
			return -EBUSY;
	if (ops->timer) {
		err = vb_blocks_add_timers(bl, b);
		if (err)
			return err;
	}
	bl->block[b].ops = ops;
	bl->block[b].opaque = opaque;
	bl->nr_blocks++;
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if (vectors & (1U << v))
			bl->vec_block[v] = b + 1;
	return (int)b;
}

void vb_blocks_attach(struct vb_blocks *bl, unsigned int node,
		      const int irq_fds[EUSRV_NR_VECTORS])
{
	struct vb_blocks_node *bn = &bl->nodes[node];
	unsigned int b;

	memcpy(bn->irq_fd, irq_fds, sizeof(bn->irq_fd));
	for (b = 0; b < bl->nr_blocks; b++)
		bl->block[b].ops->attach(bl->block[b].opaque, node);
	board_set_up(bl->board, node, true);
}

void vb_blocks_detach(struct vb_blocks *bl, unsigned int node)
{
	struct vb_blocks_node *bn = &bl->nodes[node];
	unsigned int b, v;

	board_set_up(bl->board, node, false);
	for (b = 0; b < bl->nr_blocks; b++)
		bl->block[b].ops->detach(bl->block[b].opaque, node);
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		bn->irq_fd[v] = -1;
}

void vb_blocks_kick(struct vb_blocks *bl, unsigned int node,
		    unsigned int vector)
{
	const struct vb_block *b;

	if (vector < EUSRV_NR_VECTORS && bl->vec_block[vector]) {
		b = &bl->block[bl->vec_block[vector] - 1];
		b->ops->kick(b->opaque, node, vector);
		return;
	}
	/* No block on this vector: the mailbox records the error. */
	vb_mbox_bad_kick(&bl->nodes[node].mbox, vector);
}

void vb_blocks_far_conds(const struct vb_blocks *bl, uint64_t *taken,
			 uint64_t *skipped)
{
	unsigned int i;

	*taken = *skipped = 0;
	for (i = 0; i < bl->board->nr_nodes; i++) {
		*taken += bl->nodes[i].cdma.far_taken;
		*skipped += bl->nodes[i].cdma.far_skipped;
	}
}

bool vb_blocks_busy(const struct vb_blocks *bl)
{
	return bl->runq_len != 0;
}

void vb_blocks_round(struct vb_blocks *bl)
{
	unsigned int n = bl->runq_len, i, b;

	/* Nodes queued again while running wait for the next round. */
	while (n--) {
		unsigned int node = bl->runq[bl->runq_head];

		bl->runq_head = (bl->runq_head + 1) % EUSRV_MAX_NODES;
		bl->runq_len--;
		bl->nodes[node].queued = false;
		for (b = 0; b < bl->nr_blocks; b++)
			if (bl->block[b].ops->run)
				bl->block[b].ops->run(bl->block[b].opaque, node);
	}
	for (i = 0; i < bl->board->nr_nodes; i++)
		for (b = 0; b < bl->nr_blocks; b++)
			if (bl->block[b].ops->round_end)
				bl->block[b].ops->round_end(bl->block[b].opaque, i);
}
