/*
 * Per-node wiring of the blocks (see blocks.h): mailbox ops implemented
 * with eventfds, timerfds and the run queue.
 */
#include "blocks.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static struct vb_blocks_node *vb_blocks_mbox_node(struct vb_mbox *m)
{
	return container_of(m, struct vb_blocks_node, mbox);
}

static struct vb_mbox *vb_blocks_op_peer(struct vb_mbox *m, unsigned int node)
{
	struct vb_blocks *bl = vb_blocks_mbox_node(m)->blocks;

	return node < bl->board->nr_nodes ? &bl->nodes[node].mbox : NULL;
}

static void vb_blocks_raise_vector(struct vb_blocks_node *bn,
				   unsigned int vector)
{
	uint64_t one = 1;

	/* Fails only if the counter would overflow: the IRQ is pending anyway. */
	if (bn->irq_fd[vector] >= 0 &&
	    write(bn->irq_fd[vector], &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("node%u: raising vector %u: %s", bn->mbox.node, vector,
			 strerror(errno));
}

void vb_blocks_raise(struct vb_blocks *bl, unsigned int node,
		     unsigned int vector)
{
	if (node < EUSRV_MAX_NODES && vector < EUSRV_NR_VECTORS)
		vb_blocks_raise_vector(&bl->nodes[node], vector);
}

static void vb_blocks_op_raise_irq(struct vb_mbox *m)
{
	vb_blocks_raise_vector(vb_blocks_mbox_node(m), EUSRV_VEC_MBOX);
}

static void vb_blocks_op_schedule(struct vb_mbox *m)
{
	struct vb_blocks_node *bn = vb_blocks_mbox_node(m);
	struct vb_blocks *bl = bn->blocks;

	if (bn->queued)
		return;
	bn->queued = true;
	bl->runq[(bl->runq_head + bl->runq_len) % EUSRV_MAX_NODES] = m->node;
	bl->runq_len++;
}

static void vb_blocks_timer_set(struct vb_blocks_node *bn, uint64_t deadline_ms)
{
	int err = evloop_timer_set_us(bn->timer.fd, deadline_ms * 1000U);

	if (err)
		log_err("node%u: arming the block timer: %s", bn->mbox.node,
			strerror(-err));
}

static void vb_blocks_op_timer_arm(struct vb_mbox *m, uint64_t deadline_ms)
{
	/* 0 would disarm: the clock is never that young, but be exact. */
	vb_blocks_timer_set(vb_blocks_mbox_node(m), deadline_ms ? deadline_ms : 1);
}

static void vb_blocks_op_timer_cancel(struct vb_mbox *m)
{
	vb_blocks_timer_set(vb_blocks_mbox_node(m), 0);
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

/* ---- CDMA wiring ------------------------------------------------------ */

static struct vb_blocks_node *vb_blocks_cdma_node(struct vb_cdma *c)
{
	return container_of(c, struct vb_blocks_node, cdma);
}

static void vb_blocks_cdma_op_schedule(struct vb_cdma *c)
{
	/* The node's run queue entry runs both its mailbox and its CDMA. */
	vb_blocks_op_schedule(&vb_blocks_cdma_node(c)->mbox);
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

static void vb_blocks_cdma_timer_event(struct ev_handler *h, uint32_t events)
{
	struct vb_blocks_node *bn = container_of(h, struct vb_blocks_node, cdma_timer);
	uint64_t expirations;

	(void)events;
	if (read(h->fd, &expirations, sizeof(expirations)) < 0)
		return;
	bn->cdma_armed_us = 0;
	vb_cdma_timer(&bn->cdma);
}

/* Arm the node's CDMA timerfd for the engine's earliest deadline. */
static void vb_blocks_cdma_arm(struct vb_blocks_node *bn)
{
	uint64_t t = vb_cdma_next_deadline(&bn->cdma);
	int err;

	if (t == bn->cdma_armed_us || bn->cdma_timer.fd < 0)
		return;
	bn->cdma_armed_us = t;
	err = evloop_timer_set_us(bn->cdma_timer.fd, t);
	if (err)
		log_err("node%u: arming the CDMA timer: %s", bn->mbox.node,
			strerror(-err));
}

static void vb_blocks_timer_event(struct ev_handler *h, uint32_t events)
{
	struct vb_blocks_node *bn = container_of(h, struct vb_blocks_node, timer);
	uint64_t expirations;

	(void)events;
	if (read(h->fd, &expirations, sizeof(expirations)) < 0)
		return;		/* EAGAIN: disarmed or re-armed meanwhile */
	vb_mbox_timer(&bn->mbox);
}

int vb_blocks_init(struct vb_blocks *bl, struct board *board,
		   struct evloop *loop)
{
	unsigned int i, v;
	int err;

	memset(bl, 0, sizeof(*bl));
	bl->board = board;
	bl->loop = loop;
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct vb_blocks_node *bn = &bl->nodes[i];

		bn->blocks = bl;
		bn->timer.fd = -1;
		bn->timer.fn = vb_blocks_timer_event;
		bn->cdma_timer.fd = -1;
		bn->cdma_timer.fn = vb_blocks_cdma_timer_event;
		for (v = 0; v < EUSRV_NR_VECTORS; v++)
			bn->irq_fd[v] = -1;
		vb_mbox_init(&bn->mbox, board_page(board, i, EUSRV_PAGE_MBOX), i,
			     &blocks_mbox_ops, bl);
		vb_cdma_init(&bn->cdma, board_page(board, i, EUSRV_PAGE_CDMA), board,
			     &bn->mbox, i, &blocks_cdma_ops, bl);
	}
	for (i = 0; i < board->nr_nodes; i++) {
		struct vb_blocks_node *bn = &bl->nodes[i];

		bn->timer.fd = timerfd_create(CLOCK_MONOTONIC,
					      TFD_NONBLOCK | TFD_CLOEXEC);
		if (bn->timer.fd < 0) {
			err = -errno;
			log_err("node%u: block timer: timerfd_create: %s", i,
				strerror(errno));
			vb_blocks_fini(bl);
			return err;
		}
		err = ev_add(loop, &bn->timer, EPOLLIN);
		if (err) {
			log_err("node%u: block timer: epoll: %s", i,
				strerror(-err));
			vb_blocks_fini(bl);
			return err;
		}
		bn->cdma_timer.fd = timerfd_create(CLOCK_MONOTONIC,
						   TFD_NONBLOCK | TFD_CLOEXEC);
		err = bn->cdma_timer.fd < 0 ? -errno :
		      ev_add(loop, &bn->cdma_timer, EPOLLIN);
		if (err) {
			log_err("node%u: CDMA timer: %s", i, strerror(-err));
			vb_blocks_fini(bl);
			return err;
		}
	}
	return 0;
}

void vb_blocks_fini(struct vb_blocks *bl)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct vb_blocks_node *bn = &bl->nodes[i];

		if (bn->cdma_timer.fd >= 0) {
			ev_del(bl->loop, &bn->cdma_timer);
			close(bn->cdma_timer.fd);
			bn->cdma_timer.fd = -1;
		}
		if (bn->timer.fd < 0)
			continue;
		ev_del(bl->loop, &bn->timer);
		close(bn->timer.fd);
		bn->timer.fd = -1;
	}
}

void vb_blocks_attach(struct vb_blocks *bl, unsigned int node,
		      const int irq_fds[EUSRV_NR_VECTORS])
{
	struct vb_blocks_node *bn = &bl->nodes[node];
	unsigned int i;

	memcpy(bn->irq_fd, irq_fds, sizeof(bn->irq_fd));
	vb_mbox_attach(&bn->mbox);
	vb_cdma_attach(&bn->cdma);
	for (i = 0; i < bl->nr_ext; i++)
		bl->ext[i].ops->attach(bl->ext[i].opaque, node);
	board_set_up(bl->board, node, true);
}

void vb_blocks_detach(struct vb_blocks *bl, unsigned int node)
{
	struct vb_blocks_node *bn = &bl->nodes[node];
	unsigned int i, v;

	board_set_up(bl->board, node, false);
	vb_mbox_detach(&bn->mbox);
	vb_cdma_detach(&bn->cdma);
	for (i = 0; i < bl->nr_ext; i++)
		bl->ext[i].ops->detach(bl->ext[i].opaque, node);
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		bn->irq_fd[v] = -1;
}

int vb_blocks_add_ext(struct vb_blocks *bl, uint32_t vectors,
		      const struct vb_blocks_ext_ops *ops, void *opaque)
{
	unsigned int v;

	if (bl->nr_ext == BLOCKS_MAX_EXT)
		return -EBUSY;
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if ((vectors & (1U << v)) &&
		    (bl->vec_ext[v] || v == EUSRV_VEC_MBOX || v == EUSRV_VEC_CDMA))
			return -EBUSY;
	bl->ext[bl->nr_ext].ops = ops;
	bl->ext[bl->nr_ext].opaque = opaque;
	bl->nr_ext++;
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if (vectors & (1U << v))
			bl->vec_ext[v] = bl->nr_ext;
	return 0;
}

void vb_blocks_kick(struct vb_blocks *bl, unsigned int node,
		    unsigned int vector)
{
	struct vb_mbox *m = &bl->nodes[node].mbox;
	const struct vb_blocks_ext *e;

	switch (vector) {
	case EUSRV_VEC_MBOX:
		vb_mbox_kick(m);
		return;
	case EUSRV_VEC_CDMA:
		vb_cdma_kick(&bl->nodes[node].cdma);
		return;
	}
	if (vector < EUSRV_NR_VECTORS && bl->vec_ext[vector]) {
		e = &bl->ext[bl->vec_ext[vector] - 1];
		e->ops->kick(e->opaque, node, vector);
		return;
	}
	/* No block on this vector: the mailbox records the error. */
	vb_mbox_bad_kick(m, vector);
}

bool vb_blocks_busy(const struct vb_blocks *bl)
{
	return bl->runq_len != 0;
}

void vb_blocks_round(struct vb_blocks *bl)
{
	unsigned int n = bl->runq_len, i;

	/* Nodes queued again while running wait for the next round. */
	while (n--) {
		unsigned int node = bl->runq[bl->runq_head];

		bl->runq_head = (bl->runq_head + 1) % EUSRV_MAX_NODES;
		bl->runq_len--;
		bl->nodes[node].queued = false;
		vb_mbox_run(&bl->nodes[node].mbox);
		vb_cdma_run(&bl->nodes[node].cdma);
	}
	for (i = 0; i < bl->board->nr_nodes; i++) {
		struct vb_blocks_node *bn = &bl->nodes[i];

		vb_mbox_update_irq(&bn->mbox);
		if (vb_cdma_update_irq(&bn->cdma))
			vb_blocks_raise_vector(bn, EUSRV_VEC_CDMA);
		vb_blocks_cdma_arm(bn);
	}
}
