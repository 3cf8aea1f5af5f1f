/*
 * The AXI CDMA engine (see cdma.h and cdma_hw.h).  Everything read from
 * the register page or from descriptors is untrusted: every address is
 * decoded against the board before any access, work per call is bounded,
 * and a bad value at worst halts the engine until the node resets it.
 */
#include "cdma.h"

#include <endian.h>
#include <string.h>

#include "regs.h"

#define VB_CDMA_DESC_MASK	(~(uint64_t)(EUSRV_CDMA_DESC_ALIGN - 1))
#define MSG_SIZE	8U

/* vb_cdma_transfer() results besides a CDMASR error bit. */
#define XFER_DONE	0U
#define XFER_MORE	1U	/* budget used up, continue next round */
#define XFER_WAIT	2U	/* a mailbox write waits for FIFO room */

static const char *const vb_cdma_bad_names[] = {
	[EUSRV_CDMA_BAD_NONE] = "none",
	[EUSRV_CDMA_BAD_CR] = "reserved or unsupported CDMACR bits",
	[EUSRV_CDMA_BAD_THRESH] = "IRQThreshold 0",
	[EUSRV_CDMA_BAD_TAILDESC] = "TAILDESC bits 5:0 set",
	[EUSRV_CDMA_BAD_SR_CLR] = "SR_CLR bits outside 14:12",
	[EUSRV_CDMA_BAD_SR_W1C] = "CDMASR written with bits outside 14:12",
	[EUSRV_CDMA_BAD_VB_ACK] = "SR_CLR used with --cdma-pg034",
	[EUSRV_CDMA_BAD_HALTED] = "work handed over while halted by an error",
	[EUSRV_CDMA_BAD_SIMPLE] = "simple-mode request in SG mode or while busy",
};

static uint64_t vb_cdma_now_us(struct vb_cdma *c)
{
	return c->ops->now_us(c);
}

static uint32_t vb_cdma_cr_of(struct vb_cdma *c)
{
	return rd32(c->page, EUSRV_CDMA_CR);
}

/* A 64-bit register written MSB first, low word last (release). */
static uint64_t vb_cdma_reg_addr(struct vb_cdma *c, uint32_t off)
{
	uint32_t lo = rd32_acquire(c->page, off);
	uint32_t hi = rd32(c->page, off + 4);

	return (uint64_t)hi << 32 | lo;
}

static void vb_cdma_counters(struct vb_cdma *c)
{
	wr32(c->page, EUSRV_CDMA_WAIT_CNT, c->wait_cnt);
	wr32(c->page, EUSRV_CDMA_REFUSED_CNT, c->refused_cnt);
	wr32(c->page, EUSRV_CDMA_SKIPPED_CNT, c->skipped_cnt);
	wr32(c->page, EUSRV_CDMA_DESC_CNT, c->desc_cnt);
	wr64(c->page, EUSRV_CDMA_BYTES, c->bytes);
	wr32(c->page, EUSRV_CDMA_MSG_CNT, c->msg_cnt);
	wr32(c->page, EUSRV_CDMA_ERR_CNT, c->err_cnt);
}

static void vb_cdma_bad(struct vb_cdma *c, uint32_t code, uint32_t value)
{
	c->bad_cnt++;
	c->bad_last = code;
	wr32(c->page, EUSRV_CDMA_BAD_LAST, code);
	wr32(c->page, EUSRV_CDMA_BAD_CNT, c->bad_cnt);
	if (log_ratelimit_ok(&c->rl, vb_cdma_now_us(c) / 1000U))
		log_warn("node%u CDMA: programming error %u (%s), value %#x",
			 c->node, code, vb_cdma_bad_names[code], value);
}

static void vb_cdma_bad_once(struct vb_cdma *c, bool *flag, uint32_t *last,
			     uint32_t code, uint32_t value)
{
	if (reg_bad_is_new(flag, last, value))
		vb_cdma_bad(c, code, value);
}

static uint32_t vb_cdma_threshold(uint32_t cr)
{
	uint32_t t = (cr & EUSRV_CDMA_CR_THRESH_MASK) >> EUSRV_CDMA_CR_THRESH_SHIFT;

	return t ? t : 1;
}

/*
 * The node's acknowledgement as PG034 has it: it wrote CDMASR, a 1 in each
 * interrupt bit to clear.  SGIncld reads as 1 (the model always publishes
 * it), so a word without it is the node's write, not yet applied.  Clears
 * those bits of the model's CDMASR; the caller publishes.
 */
static void vb_cdma_take_w1c(struct vb_cdma *c, uint32_t word)
{
	if (word & EUSRV_CDMA_SR_SGINCLD)
		return;
	if (word & ~EUSRV_CDMA_SR_IRQ_ALL)
		vb_cdma_bad(c, EUSRV_CDMA_BAD_SR_W1C, word);
	c->sr &= ~(word & EUSRV_CDMA_SR_IRQ_ALL);
	/* Level semantics: still asserted after the ack, raise again. */
	c->raise = true;
}

static uint32_t vb_cdma_sr_word(struct vb_cdma *c)
{
	uint32_t v = (c->sr & 0x7fffU) | EUSRV_CDMA_SR_SGINCLD;
	uint64_t now;

	if (!c->busy && !c->halted)
		v |= EUSRV_CDMA_SR_IDLE;
	else
		v &= ~EUSRV_CDMA_SR_IDLE;
	v |= (c->thresh_cnt & 0xffU) << EUSRV_CDMA_SR_THRESH_SHIFT;
	if (c->dly_deadline_us) {
		now = vb_cdma_now_us(c);
		if (c->dly_deadline_us > now) {
			uint64_t left = (c->dly_deadline_us - now) * 1000U /
					EUSRV_CDMA_DELAY_TICK_NS;

			v |= (uint32_t)(left > 0xff ? 0xff : left)
			     << EUSRV_CDMA_SR_DELAY_SHIFT;
		}
	}
	return v;
}

/*
 * Write the model's CDMASR for the node: a compare-and-swap on the shared
 * word, which both sides write (the node's write-1-to-clear), so that an
 * acknowledgement that came first is applied, not overwritten.
 */
static void vb_cdma_publish(struct vb_cdma *c)
{
	uint32_t *w = reg32(c->page, EUSRV_CDMA_SR);
	uint32_t old = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	do {
		vb_cdma_take_w1c(c, old);
	} while (!__atomic_compare_exchange_n(w, &old, vb_cdma_sr_word(c), false,
					      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
}

/*
 * CDMASR: the node's write-1-to-clear, if it wrote one (PG034), applied
 * before anything the engine does next sets bits again.
 */
static void vb_cdma_absorb_ack(struct vb_cdma *c)
{
	if (!(rd32_acquire(c->page, EUSRV_CDMA_SR) & EUSRV_CDMA_SR_SGINCLD))
		vb_cdma_publish(c);
}

static void vb_cdma_drop_transfer(struct vb_cdma *c)
{
	if (c->wait.dest)
		vb_mbox_dma_cancel(c->mbox, &c->wait);
	c->have = false;
	c->simple = false;
	c->waited = false;
	c->cur_host = NULL;
}

/* The engine's state after a reset (the node's registers aside). */
static void vb_cdma_engine_clear(struct vb_cdma *c)
{
	vb_cdma_drop_transfer(c);
	c->sr = 0;
	c->cr_seen = EUSRV_CDMA_CR_RESET_VALUE;
	c->halted = false;
	c->busy = false;
	c->fresh = true;
	c->next = 0;
	c->tail_seen = 0;
	c->thresh_cnt = 1;
	c->dly_deadline_us = 0;
	c->raise = false;
	c->bad_cr = c->bad_tail = false;
}

void vb_cdma_init(struct vb_cdma *c, void *page, const struct board *board,
		  struct vb_mbox *mbox, unsigned int node,
		  const struct vb_cdma_ops *ops, void *opaque)
{
	memset(c, 0, sizeof(*c));
	c->page = page;
	c->board = board;
	c->mbox = mbox;
	c->node = node;
	c->ops = ops;
	c->opaque = opaque;
}

void vb_cdma_attach(struct vb_cdma *c)
{
	uint32_t off;

	for (off = 0; off < EUSRV_PAGE_SIZE; off += 8)
		wr64(c->page, off, 0);
	vb_cdma_engine_clear(c);
	c->clr_seq = 0;
	c->simple_seq = 0;
	c->bad_cnt = c->bad_last = 0;
	c->wait_cnt = c->desc_cnt = c->msg_cnt = c->err_cnt = 0;
	c->refused_cnt = c->skipped_cnt = 0;
	c->bytes = 0;
	c->up = true;
	vb_cdma_publish(c);
	wr32(c->page, EUSRV_CDMA_CR, EUSRV_CDMA_CR_RESET_VALUE);
	/* ID last: a driver that sees it sees an initialised block. */
	wr32_release(c->page, EUSRV_CDMA_ID, EUSRV_CDMA_ID_VALUE);
}

void vb_cdma_detach(struct vb_cdma *c)
{
	if (!c->up)
		return;
	vb_cdma_drop_transfer(c);
	c->up = false;
	c->busy = false;
	c->dly_deadline_us = 0;
	c->raise = false;
}

/* CDMACR.Reset: everything stops; the model completes the reset. */
static void vb_cdma_engine_reset(struct vb_cdma *c)
{
	vb_cdma_engine_clear(c);
	c->simple_seq = rd32(c->page, EUSRV_CDMA_SIMPLE_SEQ);
	c->clr_seq = rd32(c->page, EUSRV_CDMA_SR_CLR_SEQ);
	wr32(c->page, EUSRV_CDMA_CURDESC_MSB, 0);
	wr32(c->page, EUSRV_CDMA_CURDESC, 0);
	wr32(c->page, EUSRV_CDMA_TAILDESC_MSB, 0);
	wr32(c->page, EUSRV_CDMA_TAILDESC, 0);
	vb_cdma_publish(c);
	/* Reset last: the node waits for it to read 0. */
	wr32_release(c->page, EUSRV_CDMA_CR, EUSRV_CDMA_CR_RESET_VALUE);
	log_debug("node%u CDMA: reset", c->node);
}

/* An error: the engine halts until reset.  DESC: the failing descriptor. */
static void vb_cdma_halt(struct vb_cdma *c, uint32_t err, uint64_t desc)
{
	bool sg = !c->simple;

	vb_cdma_drop_transfer(c);
	c->sr |= err | EUSRV_CDMA_SR_ERR_IRQ;
	c->halted = true;
	c->busy = false;
	c->dly_deadline_us = 0;
	c->raise = true;
	c->err_cnt++;
	vb_cdma_counters(c);
	if (sg) {
		/* PG034: CURDESC points at the descriptor with the error. */
		wr32(c->page, EUSRV_CDMA_CURDESC_MSB, (uint32_t)(desc >> 32));
		wr32(c->page, EUSRV_CDMA_CURDESC, (uint32_t)desc);
	}
	vb_cdma_publish(c);
	if (log_ratelimit_ok(&c->rl, vb_cdma_now_us(c) / 1000U))
		log_info("node%u CDMA: error %#x at descriptor %#llx, engine halted",
			 c->node, err, (unsigned long long)desc);
}

static void vb_cdma_put_status(uint8_t *desc, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)(desc + EUSRV_CDMA_DESC_STATUS),
			 htole32(v), __ATOMIC_RELEASE);
}

/* A DMA error on the transfer in hand: its descriptor says so, then halt. */
static void vb_cdma_dma_error(struct vb_cdma *c, uint32_t sr_bit,
			      uint32_t st_bit)
{
	if (c->have && !c->simple && c->cur_host)
		vb_cdma_put_status(c->cur_host, st_bit | EUSRV_CDMA_ST_CMPLT);
	vb_cdma_halt(c, sr_bit, c->cur_ga);
}

/* TAILDESC, bits 5:0 ignored. */
static uint64_t vb_cdma_tail_of(struct vb_cdma *c)
{
	uint64_t t = vb_cdma_reg_addr(c, EUSRV_CDMA_TAILDESC);

	if (t & ~VB_CDMA_DESC_MASK)
		vb_cdma_bad_once(c, &c->bad_tail, &c->bad_tail_val,
				 EUSRV_CDMA_BAD_TAILDESC, (uint32_t)t);
	else
		c->bad_tail = false;
	return t & VB_CDMA_DESC_MASK;
}

/* Host pointer to LEN bytes of an attached node's RAM at GA, or NULL. */
static uint8_t *vb_cdma_ram(struct vb_cdma *c, uint64_t ga, uint64_t len)
{
	struct board_ga d;

	if (board_decode(c->board, ga, len, &d) || d.kind != BOARD_GA_RAM ||
	    !(c->board->nodes_up & (1U << d.node)))
		return NULL;
	return d.host;
}

static uint32_t vb_cdma_le32_at(const uint8_t *p, uint32_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return le32toh(v);
}

static uint64_t vb_cdma_addr_at(const uint8_t *p, uint32_t off)
{
	return (uint64_t)vb_cdma_le32_at(p, off + 4) << 32 | vb_cdma_le32_at(p, off);
}

/* Fetch the descriptor at c->next into the transfer in hand: 0 or SG error. */
static uint32_t vb_cdma_fetch(struct vb_cdma *c)
{
	uint64_t ga = c->next;
	uint8_t raw[EUSRV_CDMA_DESC_SIZE];
	uint8_t *host;

	c->cur_ga = ga;
	if (ga & ~VB_CDMA_DESC_MASK)
		return EUSRV_CDMA_SR_SG_INT_ERR;
	if (EUSRV_GA_NODE(ga) != c->node)
		return EUSRV_CDMA_SR_SG_DEC_ERR;
	host = vb_cdma_ram(c, ga, EUSRV_CDMA_DESC_SIZE);
	if (!host)
		return EUSRV_CDMA_SR_SG_DEC_ERR;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(raw, host, sizeof(raw));
	if (vb_cdma_le32_at(raw, EUSRV_CDMA_DESC_STATUS) & EUSRV_CDMA_ST_CMPLT)
		return EUSRV_CDMA_SR_SG_INT_ERR;	/* stale */
	c->cur_host = host;
	c->cur_next = vb_cdma_addr_at(raw, EUSRV_CDMA_DESC_NEXT);
	c->cur_sa = vb_cdma_addr_at(raw, EUSRV_CDMA_DESC_SA);
	c->cur_da = vb_cdma_addr_at(raw, EUSRV_CDMA_DESC_DA);
	c->cur_len = vb_cdma_le32_at(raw, EUSRV_CDMA_DESC_CTRL);
	c->cur_cond = 0;
	c->cond_seen = false;
	if (c->cur_len & EUSRV_CDMA_CTL_COND) {
		c->cur_len &= ~EUSRV_CDMA_CTL_COND;
		c->cur_cond = vb_cdma_addr_at(raw, EUSRV_CDMA_DESC_COND_ADDR);
	}
	c->cur_done = 0;
	c->have = true;
	c->simple = false;
	c->waited = false;
	return 0;
}

static bool vb_cdma_is_inbox(uint64_t ga)
{
	return ga == EUSRV_MBOX_INBOX_GA(EUSRV_GA_NODE(ga));
}

/*
 * A conditional write's word (COND): taken once, swapped with 0.  XFER_DONE
 * when it was 0 (the write is skipped), 0 to go on, or DMADecErr.  Those
 * to another node's inbox are counted for the model's priority.h.
 */
static uint32_t vb_cdma_cond(struct vb_cdma *c)
{
	uint32_t *word;
	bool far;

	if (!c->cur_cond || c->cond_seen)
		return 0;
	word = (c->cur_cond & 3) ? NULL :
	       (uint32_t *)(void *)vb_cdma_ram(c, c->cur_cond, sizeof(*word));
	if (!word)
		return EUSRV_CDMA_SR_DMA_DEC_ERR;
	c->cond_seen = true;
	/*
	 * A full barrier with the stores of the descriptors before it: a
	 * node that sets the word, fences and then reads what they stored
	 * either sees their values or has its word taken here.
	 */
	far = EUSRV_GA_NODE(c->cur_da) != c->node;
	if (__atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST)) {
		c->far_taken += far;
		return 0;
	}
	c->far_skipped += far;
	c->skipped_cnt++;
	c->cur_done = MSG_SIZE;
	return XFER_DONE;
}

/* An 8-byte write of the message at SA into a mailbox INBOX. */
static uint32_t vb_cdma_mailbox_write(struct vb_cdma *c)
{
	const uint8_t *src;
	uint32_t st, ctrl;
	uint64_t msg;

	if (c->cur_len != MSG_SIZE)
		return EUSRV_CDMA_SR_DMA_DEC_ERR;
	src = vb_cdma_ram(c, c->cur_sa, MSG_SIZE);
	if (!src)
		return EUSRV_CDMA_SR_DMA_DEC_ERR;
	st = vb_cdma_cond(c);
	if (st || c->cur_done)
		return st;
	memcpy(&msg, src, sizeof(msg));
	ctrl = c->simple ? 0 : rd32(c->page, EUSRV_CDMA_MSG_CTRL);
	st = vb_mbox_dma_store(c->mbox, &c->wait, c->cur_da, le64toh(msg),
			       ctrl & EUSRV_CDMA_MSG_NOWAIT ? EUSRV_CDMA_MSG_MAXWAIT_MS(ctrl) :
			       EUSRV_MBOX_STORE_TIMEOUT_MS);
	if (st == EUSRV_MBOX_ST_FULL && (ctrl & EUSRV_CDMA_MSG_NOWAIT))
		c->refused_cnt++;
	switch (st) {
	case MBOX_STORE_WAIT:
		if (!c->waited) {
			c->waited = true;
			c->wait_cnt++;
			wr32(c->page, EUSRV_CDMA_WAIT_CNT, c->wait_cnt);
		}
		return XFER_WAIT;
	case EUSRV_MBOX_ST_OK:
		c->msg_cnt++;
		c->cur_done = MSG_SIZE;
		return XFER_DONE;
	case EUSRV_MBOX_ST_DECERR:
		return EUSRV_CDMA_SR_DMA_DEC_ERR;
	default:	/* FULL (timed out), DISABLED */
		return EUSRV_CDMA_SR_DMA_SLV_ERR;
	}
}

/* Move the transfer in hand on, within *BUDGET bytes. */
static uint32_t vb_cdma_transfer(struct vb_cdma *c, uint32_t *budget)
{
	uint32_t left, chunk;
	uint8_t *src, *dst;

	if (!c->cur_len || c->cur_len > EUSRV_CDMA_MAX_LEN)
		return EUSRV_CDMA_SR_DMA_INT_ERR;
	if (vb_cdma_is_inbox(c->cur_da))
		return vb_cdma_mailbox_write(c);
	if (c->cur_cond)
		return EUSRV_CDMA_SR_DMA_INT_ERR;
	/* The whole ranges decode before the first byte moves. */
	if (c->cur_done == 0 &&
	    (!vb_cdma_ram(c, c->cur_sa, c->cur_len) || !vb_cdma_ram(c, c->cur_da, c->cur_len)))
		return EUSRV_CDMA_SR_DMA_DEC_ERR;
	while (c->cur_done < c->cur_len) {
		if (!*budget)
			return XFER_MORE;
		left = c->cur_len - c->cur_done;
		chunk = left < *budget ? left : *budget;
		/* Again per chunk: a node may have gone meanwhile. */
		src = vb_cdma_ram(c, c->cur_sa + c->cur_done, chunk);
		dst = vb_cdma_ram(c, c->cur_da + c->cur_done, chunk);
		if (!src || !dst)
			return EUSRV_CDMA_SR_DMA_DEC_ERR;
		memmove(dst, src, chunk);
		c->cur_done += chunk;
		*budget -= chunk;
		c->bytes += chunk;
	}
	return XFER_DONE;
}

/* A descriptor (or simple transfer) completed: an IOC event. */
static void vb_cdma_ioc_event(struct vb_cdma *c)
{
	uint32_t cr = vb_cdma_cr_of(c);

	if (c->simple) {
		c->sr |= EUSRV_CDMA_SR_IOC_IRQ;
		c->raise = true;
		return;
	}
	if (c->thresh_cnt == 0 || c->thresh_cnt > 255)
		c->thresh_cnt = vb_cdma_threshold(cr);
	if (--c->thresh_cnt == 0) {
		c->sr |= EUSRV_CDMA_SR_IOC_IRQ;
		c->thresh_cnt = vb_cdma_threshold(cr);
		c->dly_deadline_us = 0;
		c->raise = true;
	}
}

/* The engine went idle: the delay timer runs if events are pending. */
static void vb_cdma_go_idle(struct vb_cdma *c)
{
	uint32_t cr = vb_cdma_cr_of(c);
	uint32_t dly = (cr & EUSRV_CDMA_CR_DELAY_MASK) >> EUSRV_CDMA_CR_DELAY_SHIFT;

	c->busy = false;
	if (dly && !c->simple && c->thresh_cnt != vb_cdma_threshold(cr))
		c->dly_deadline_us = vb_cdma_now_us(c) + (uint64_t)dly *
				     EUSRV_CDMA_DELAY_TICK_NS / 1000U;
	c->simple = false;
}

static void vb_cdma_start(struct vb_cdma *c)
{
	c->busy = true;
	c->dly_deadline_us = 0;
	vb_cdma_publish(c);
	c->ops->schedule(c);
}

/*
 * What a kick makes of each register the node may have written, one
 * handler a register.  Each gets CDMACR as the kick read it and says
 * whether the kick goes on to the next register (KICK_NEXT) or ends here
 * (KICK_END).
 */
#define KICK_NEXT	true
#define KICK_END	false

/* SR_CLR_SEQ moved: clear the SR_CLR interrupt bits (write 1 to clear). */
static bool vb_cdma_reg_sr_clr_seq(struct vb_cdma *c)
{
	uint32_t seq = rd32_acquire(c->page, EUSRV_CDMA_SR_CLR_SEQ);
	uint32_t clr;

	if (seq == c->clr_seq)
		return KICK_NEXT;
	clr = rd32(c->page, EUSRV_CDMA_SR_CLR);
	c->clr_seq = seq;
	if (c->board->cdma_pg034) {
		vb_cdma_bad(c, EUSRV_CDMA_BAD_VB_ACK, clr);
		return KICK_NEXT;
	}
	if (clr & ~EUSRV_CDMA_SR_IRQ_ALL)
		vb_cdma_bad(c, EUSRV_CDMA_BAD_SR_CLR, clr);
	c->sr &= ~(clr & EUSRV_CDMA_SR_IRQ_ALL);
	vb_cdma_publish(c);
	/* Level semantics: still asserted after the ack, raise again. */
	c->raise = true;
	return KICK_NEXT;
}

/* CDMACR (Reset aside): reserved bits, IRQThreshold, interrupt enables. */
static bool vb_cdma_reg_cr(struct vb_cdma *c, uint32_t cr)
{
	if (cr & ~EUSRV_CDMA_CR_VALID)
		vb_cdma_bad_once(c, &c->bad_cr, &c->bad_cr_val, EUSRV_CDMA_BAD_CR, cr);
	else
		c->bad_cr = false;
	if (!(cr & EUSRV_CDMA_CR_THRESH_MASK) &&
	    (c->cr_seen & EUSRV_CDMA_CR_THRESH_MASK))
		vb_cdma_bad(c, EUSRV_CDMA_BAD_THRESH, cr);
	if ((cr & ~c->cr_seen) & EUSRV_CDMA_CR_IRQEN_ALL)
		c->raise = true;	/* newly enabled, maybe already set */
	if ((cr ^ c->cr_seen) & EUSRV_CDMA_CR_THRESH_MASK) {
		c->thresh_cnt = vb_cdma_threshold(cr);
		vb_cdma_publish(c);
	}
	c->cr_seen = cr;
	return KICK_NEXT;
}

/* SIMPLE_SEQ moved: start the simple-mode transfer SA, DA, BTT describe. */
static bool vb_cdma_reg_simple_seq(struct vb_cdma *c, uint32_t cr)
{
	uint32_t seq = rd32_acquire(c->page, EUSRV_CDMA_SIMPLE_SEQ);

	if (seq == c->simple_seq)
		return KICK_NEXT;
	c->simple_seq = seq;
	if (c->halted) {
		vb_cdma_bad(c, EUSRV_CDMA_BAD_HALTED, seq);
	} else if ((cr & EUSRV_CDMA_CR_SGMODE) || c->busy) {
		vb_cdma_bad(c, EUSRV_CDMA_BAD_SIMPLE, seq);
	} else {
		c->have = true;
		c->simple = true;
		c->waited = false;
		c->cur_ga = 0;
		c->cur_host = NULL;
		c->cur_sa = vb_cdma_reg_addr(c, EUSRV_CDMA_SA);
		c->cur_da = vb_cdma_reg_addr(c, EUSRV_CDMA_DA);
		c->cur_len = rd32(c->page, EUSRV_CDMA_BTT);
		c->cur_done = 0;
		vb_cdma_start(c);
	}
	return KICK_END;
}

/* TAILDESC (SG mode): hand the descriptors up to it to the engine. */
static bool vb_cdma_reg_taildesc(struct vb_cdma *c, uint32_t cr)
{
	uint64_t t;

	if (!(cr & EUSRV_CDMA_CR_SGMODE)) {
		/* Toggling SGMode makes the next start take CURDESC. */
		if (!c->busy)
			c->fresh = true;
		return KICK_END;
	}
	t = vb_cdma_tail_of(c);
	if (!t || t == c->tail_seen)
		return KICK_END;
	if (c->halted) {
		/* Counted once per value: tail_seen keeps it. */
		c->tail_seen = t;
		vb_cdma_bad(c, EUSRV_CDMA_BAD_HALTED, (uint32_t)t);
		return KICK_END;
	}
	c->tail_seen = t;
	if (c->busy)
		return KICK_END;	/* the running engine reads TAILDESC itself */
	if (c->fresh) {
		c->next = vb_cdma_reg_addr(c, EUSRV_CDMA_CURDESC);
		c->fresh = false;
	}
	vb_cdma_start(c);
	return KICK_END;
}

/* The node may have written the register at OFF. */
static bool vb_cdma_reg_write(struct vb_cdma *c, uint32_t off, uint32_t cr)
{
	switch (off) {
	case EUSRV_CDMA_SR_CLR_SEQ:
		return vb_cdma_reg_sr_clr_seq(c);
	case EUSRV_CDMA_CR:
		return vb_cdma_reg_cr(c, cr);
	case EUSRV_CDMA_SIMPLE_SEQ:
		return vb_cdma_reg_simple_seq(c, cr);
	case EUSRV_CDMA_TAILDESC:
		return vb_cdma_reg_taildesc(c, cr);
	default:
		return KICK_NEXT;
	}
}

/* The registers a kick looks at, in the order it acts on them. */
static const uint32_t vb_cdma_kick_regs[] = {
	EUSRV_CDMA_SR_CLR_SEQ,
	EUSRV_CDMA_CR,
	EUSRV_CDMA_SIMPLE_SEQ,		/* a simple transfer ends the kick */
	EUSRV_CDMA_TAILDESC,
};

void vb_cdma_kick(struct vb_cdma *c)
{
	uint32_t cr;
	size_t i;

	if (!c->up)
		return;
	cr = vb_cdma_cr_of(c);
	/* CDMACR.Reset comes before everything else the node wrote. */
	if (cr & EUSRV_CDMA_CR_RESET) {
		vb_cdma_engine_reset(c);
		return;
	}
	vb_cdma_absorb_ack(c);
	for (i = 0; i < sizeof(vb_cdma_kick_regs) / sizeof(vb_cdma_kick_regs[0]); i++)
		if (vb_cdma_reg_write(c, vb_cdma_kick_regs[i], cr) == KICK_END)
			return;
}

/* Finish the transfer in hand; true if the engine continues. */
static bool vb_cdma_complete(struct vb_cdma *c)
{
	c->desc_cnt++;
	if (!c->simple)
		vb_cdma_put_status(c->cur_host, EUSRV_CDMA_ST_CMPLT);
	vb_cdma_ioc_event(c);
	c->have = false;
	c->waited = false;
	if (c->simple) {
		vb_cdma_go_idle(c);
		return false;
	}
	c->cur_host = NULL;
	/* PG034: pause after the descriptor that TAILDESC names. */
	if (c->cur_ga == vb_cdma_tail_of(c)) {
		c->tail_seen = c->cur_ga;
		c->next = c->cur_next;
		vb_cdma_go_idle(c);
		return false;
	}
	c->next = c->cur_next;
	return true;
}

void vb_cdma_run(struct vb_cdma *c)
{
	uint32_t budget = CDMA_RUN_BYTES, descs = CDMA_RUN_DESCS, r;

	if (!c->up || !c->busy || c->halted)
		return;
	vb_cdma_absorb_ack(c);
	for (;;) {
		if (!c->have) {
			if (!descs--) {
				c->ops->schedule(c);
				break;
			}
			r = vb_cdma_fetch(c);
			if (r) {
				vb_cdma_halt(c, r, c->next);
				return;
			}
		}
		r = vb_cdma_transfer(c, &budget);
		if (r == XFER_MORE) {
			c->ops->schedule(c);
			break;
		}
		if (r == XFER_WAIT)
			break;		/* the destination's kick or the timer */
		if (r != XFER_DONE) {
			uint32_t st = r == EUSRV_CDMA_SR_DMA_INT_ERR ? EUSRV_CDMA_ST_INTERR :
				      r == EUSRV_CDMA_SR_DMA_SLV_ERR ? EUSRV_CDMA_ST_SLVERR :
				      EUSRV_CDMA_ST_DECERR;

			vb_cdma_dma_error(c, r, st);
			return;
		}
		if (!vb_cdma_complete(c))
			break;
	}
	vb_cdma_counters(c);
	vb_cdma_publish(c);
}

void vb_cdma_timer(struct vb_cdma *c)
{
	uint64_t now = vb_cdma_now_us(c);

	if (!c->up)
		return;
	if (c->dly_deadline_us && c->dly_deadline_us <= now) {
		c->dly_deadline_us = 0;
		vb_cdma_absorb_ack(c);
		c->sr |= EUSRV_CDMA_SR_DLY_IRQ;
		c->thresh_cnt = vb_cdma_threshold(vb_cdma_cr_of(c));
		c->raise = true;
		vb_cdma_publish(c);
	}
	if (c->wait.dest && c->wait.deadline_ms * 1000U <= now)
		c->ops->schedule(c);
}

uint64_t vb_cdma_next_deadline(const struct vb_cdma *c)
{
	uint64_t a = c->dly_deadline_us;
	uint64_t b = c->wait.dest ? c->wait.deadline_ms * 1000U : 0;

	if (!c->up)
		return 0;
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

bool vb_cdma_update_irq(struct vb_cdma *c)
{
	bool raise = c->raise;

	c->raise = false;
	if (!c->up || !raise)
		return false;
	return (c->sr & vb_cdma_cr_of(c) & EUSRV_CDMA_SR_IRQ_ALL) != 0;
}
