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

static struct blocks_node *mbox_node(struct mbox *m)
{
	return container_of(m, struct blocks_node, mbox);
}

static struct mbox *op_peer(struct mbox *m, unsigned int node)
{
	struct blocks *bl = mbox_node(m)->blocks;

	return node < bl->board->nr_nodes ? &bl->nodes[node].mbox : NULL;
}

static void raise_vector(struct blocks_node *bn, unsigned int vector)
{
	uint64_t one = 1;

	/* Fails only if the counter would overflow: the IRQ is pending anyway. */
	if (bn->irq_fd[vector] >= 0 &&
	    write(bn->irq_fd[vector], &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("node%u: raising vector %u: %s", bn->mbox.node, vector,
			 strerror(errno));
}

void blocks_raise(struct blocks *bl, unsigned int node, unsigned int vector)
{
	if (node < EUSRV_MAX_NODES && vector < EUSRV_NR_VECTORS)
		raise_vector(&bl->nodes[node], vector);
}

static void op_raise_irq(struct mbox *m)
{
	raise_vector(mbox_node(m), EUSRV_VEC_MBOX);
}

static void op_schedule(struct mbox *m)
{
	struct blocks_node *bn = mbox_node(m);
	struct blocks *bl = bn->blocks;

	if (bn->queued)
		return;
	bn->queued = true;
	bl->runq[(bl->runq_head + bl->runq_len) % EUSRV_MAX_NODES] = m->node;
	bl->runq_len++;
}

static void timer_set(struct blocks_node *bn, uint64_t deadline_ms)
{
	struct itimerspec its = {
		.it_value.tv_sec = (time_t)(deadline_ms / MSEC_PER_SEC),
		.it_value.tv_nsec = (long)(deadline_ms % MSEC_PER_SEC *
					   NSEC_PER_MSEC),
	};

	if (timerfd_settime(bn->timer.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		log_err("node%u: arming the block timer: %s", bn->mbox.node,
			strerror(errno));
}

static void op_timer_arm(struct mbox *m, uint64_t deadline_ms)
{
	/* 0 would disarm: the clock is never that young, but be exact. */
	timer_set(mbox_node(m), deadline_ms ? deadline_ms : 1);
}

static void op_timer_cancel(struct mbox *m)
{
	timer_set(mbox_node(m), 0);
}

static uint64_t op_now_ms(struct mbox *m)
{
	(void)m;
	return evloop_now_ms();
}

static const struct mbox_ops blocks_mbox_ops = {
	.peer = op_peer,
	.raise_irq = op_raise_irq,
	.schedule = op_schedule,
	.timer_arm = op_timer_arm,
	.timer_cancel = op_timer_cancel,
	.now_ms = op_now_ms,
};

/* ---- CDMA wiring ------------------------------------------------------ */

static struct blocks_node *cdma_node(struct cdma *c)
{
	return container_of(c, struct blocks_node, cdma);
}

static void cdma_op_schedule(struct cdma *c)
{
	/* The node's run queue entry runs both its mailbox and its CDMA. */
	op_schedule(&cdma_node(c)->mbox);
}

static uint64_t cdma_op_now_us(struct cdma *c)
{
	(void)c;
	return evloop_now_us();
}

static const struct cdma_ops blocks_cdma_ops = {
	.schedule = cdma_op_schedule,
	.now_us = cdma_op_now_us,
};

static void cdma_timer_event(struct ev_handler *h, uint32_t events)
{
	struct blocks_node *bn = container_of(h, struct blocks_node, cdma_timer);
	uint64_t expirations;

	(void)events;
	if (read(h->fd, &expirations, sizeof(expirations)) < 0)
		return;
	bn->cdma_armed_us = 0;
	cdma_timer(&bn->cdma);
}

/* Arm the node's CDMA timerfd for the engine's earliest deadline. */
static void cdma_arm(struct blocks_node *bn)
{
	uint64_t t = cdma_next_deadline(&bn->cdma);
	struct itimerspec its = { 0 };

	if (t == bn->cdma_armed_us || bn->cdma_timer.fd < 0)
		return;
	bn->cdma_armed_us = t;
	if (t) {
		its.it_value.tv_sec = (time_t)(t / 1000000ULL);
		its.it_value.tv_nsec = (long)(t % 1000000ULL * 1000ULL);
	}
	if (timerfd_settime(bn->cdma_timer.fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		log_err("node%u: arming the CDMA timer: %s", bn->mbox.node,
			strerror(errno));
}

static void timer_event(struct ev_handler *h, uint32_t events)
{
	struct blocks_node *bn = container_of(h, struct blocks_node, timer);
	uint64_t expirations;

	(void)events;
	if (read(h->fd, &expirations, sizeof(expirations)) < 0)
		return;		/* EAGAIN: disarmed or re-armed meanwhile */
	mbox_timer(&bn->mbox);
}

int blocks_init(struct blocks *bl, struct board *board, struct evloop *loop)
{
	unsigned int i, v;
	int err;

	memset(bl, 0, sizeof(*bl));
	bl->board = board;
	bl->loop = loop;
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct blocks_node *bn = &bl->nodes[i];

		bn->blocks = bl;
		bn->timer.fd = -1;
		bn->timer.fn = timer_event;
		bn->cdma_timer.fd = -1;
		bn->cdma_timer.fn = cdma_timer_event;
		for (v = 0; v < EUSRV_NR_VECTORS; v++)
			bn->irq_fd[v] = -1;
		mbox_init(&bn->mbox, board_page(board, i, EUSRV_PAGE_MBOX), i,
			  &blocks_mbox_ops, bl);
		cdma_init(&bn->cdma, board_page(board, i, EUSRV_PAGE_CDMA), board,
			  &bn->mbox, i, &blocks_cdma_ops, bl);
	}
	for (i = 0; i < board->nr_nodes; i++) {
		struct blocks_node *bn = &bl->nodes[i];

		bn->timer.fd = timerfd_create(CLOCK_MONOTONIC,
					      TFD_NONBLOCK | TFD_CLOEXEC);
		if (bn->timer.fd < 0) {
			err = -errno;
			log_err("node%u: block timer: timerfd_create: %s", i,
				strerror(errno));
			blocks_fini(bl);
			return err;
		}
		err = ev_add(loop, &bn->timer, EPOLLIN);
		if (err) {
			log_err("node%u: block timer: epoll: %s", i,
				strerror(-err));
			blocks_fini(bl);
			return err;
		}
		bn->cdma_timer.fd = timerfd_create(CLOCK_MONOTONIC,
						   TFD_NONBLOCK | TFD_CLOEXEC);
		err = bn->cdma_timer.fd < 0 ? -errno :
		      ev_add(loop, &bn->cdma_timer, EPOLLIN);
		if (err) {
			log_err("node%u: CDMA timer: %s", i, strerror(-err));
			blocks_fini(bl);
			return err;
		}
	}
	return 0;
}

void blocks_fini(struct blocks *bl)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct blocks_node *bn = &bl->nodes[i];

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

void blocks_attach(struct blocks *bl, unsigned int node,
		   const int irq_fds[EUSRV_NR_VECTORS])
{
	struct blocks_node *bn = &bl->nodes[node];
	unsigned int i;

	memcpy(bn->irq_fd, irq_fds, sizeof(bn->irq_fd));
	mbox_attach(&bn->mbox);
	cdma_attach(&bn->cdma);
	for (i = 0; i < bl->nr_ext; i++)
		bl->ext[i].ops->attach(bl->ext[i].opaque, node);
	board_set_up(bl->board, node, true);
}

void blocks_detach(struct blocks *bl, unsigned int node)
{
	struct blocks_node *bn = &bl->nodes[node];
	unsigned int i, v;

	board_set_up(bl->board, node, false);
	mbox_detach(&bn->mbox);
	cdma_detach(&bn->cdma);
	for (i = 0; i < bl->nr_ext; i++)
		bl->ext[i].ops->detach(bl->ext[i].opaque, node);
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		bn->irq_fd[v] = -1;
}

int blocks_add_ext(struct blocks *bl, uint32_t vectors,
		   const struct blocks_ext_ops *ops, void *opaque)
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

void blocks_kick(struct blocks *bl, unsigned int node, unsigned int vector)
{
	struct mbox *m = &bl->nodes[node].mbox;
	const struct blocks_ext *e;

	switch (vector) {
	case EUSRV_VEC_MBOX:
		mbox_kick(m);
		return;
	case EUSRV_VEC_CDMA:
		cdma_kick(&bl->nodes[node].cdma);
		return;
	}
	if (vector < EUSRV_NR_VECTORS && bl->vec_ext[vector]) {
		e = &bl->ext[bl->vec_ext[vector] - 1];
		e->ops->kick(e->opaque, node, vector);
		return;
	}
	/* No block on this vector: the mailbox records the error. */
	mbox_bad_kick(m, vector);
}

bool blocks_busy(const struct blocks *bl)
{
	return bl->runq_len != 0;
}

void blocks_round(struct blocks *bl)
{
	unsigned int n = bl->runq_len, i;

	/* Nodes queued again while running wait for the next round. */
	while (n--) {
		unsigned int node = bl->runq[bl->runq_head];

		bl->runq_head = (bl->runq_head + 1) % EUSRV_MAX_NODES;
		bl->runq_len--;
		bl->nodes[node].queued = false;
		mbox_run(&bl->nodes[node].mbox);
		cdma_run(&bl->nodes[node].cdma);
	}
	for (i = 0; i < bl->board->nr_nodes; i++) {
		struct blocks_node *bn = &bl->nodes[i];

		mbox_update_irq(&bn->mbox);
		if (cdma_update_irq(&bn->cdma))
			raise_vector(bn, EUSRV_VEC_CDMA);
		cdma_arm(bn);
	}
}
