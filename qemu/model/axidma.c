/*
 * The AXI DMA engine (see axidma.h and axidma_hw.h).  Everything read from
 * the register page or from descriptors is untrusted: addresses are decoded
 * against the node's own RAM before any access, walks are bounded by
 * EUSRV_AXIDMA_MAX_FRAME_DESC, and a bad value at worst stops the channel.
 */
#include "axidma.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "evloop.h"
#include "regs.h"

#define DESC_SIZE	64U
#define VB_AXIDMA_DESC_MASK	(~(uint64_t)(EUSRV_AXIDMA_DESC_ALIGN - 1))

static const char *const vb_axidma_bad_names[] = {
	[EUSRV_AXIDMA_BAD_NONE] = "none",
	[EUSRV_AXIDMA_BAD_CR] = "reserved or unsupported DMACR bits",
	[EUSRV_AXIDMA_BAD_THRESH] = "IRQThreshold 0",
	[EUSRV_AXIDMA_BAD_CURDESC] = "CURDESC bits 5:0 set",
	[EUSRV_AXIDMA_BAD_TAILDESC] = "TAILDESC bits 5:0 set",
	[EUSRV_AXIDMA_BAD_SR_CLR] = "SR_CLR bits outside 14:12",
	[EUSRV_AXIDMA_BAD_SR_W1C] = "DMASR written with bits outside 14:12",
	[EUSRV_AXIDMA_BAD_VB_ACK] = "SR_CLR used with --axidma-pg021",
	[EUSRV_AXIDMA_BAD_NO_SOF] = "MM2S frame without TXSOF",
};

static const char *const ch_names[] = { "MM2S", "S2MM" };

static uint32_t vb_axidma_cr_of(struct vb_axidma *d, struct vb_axidma_chan *c)
{
	return rd32(d->page, c->base + EUSRV_AXIDMA_CR);
}

static uint64_t vb_axidma_reg_addr(struct vb_axidma *d, uint32_t off)
{
	uint32_t hi = rd32(d->page, off + 4);
	uint32_t lo = rd32_acquire(d->page, off);

	return (uint64_t)hi << 32 | lo;
}

static void vb_axidma_bad(struct vb_axidma *d, struct vb_axidma_chan *c,
			  uint32_t code, uint32_t value)
{
	c->bad_cnt++;
	c->bad_last = code;
	wr32(d->page, c->vb + EUSRV_AXIDMA_VB_BAD_LAST, code);
	wr32(d->page, c->vb + EUSRV_AXIDMA_VB_BAD_CNT, c->bad_cnt);
	if (log_ratelimit_ok(&d->rl, evloop_now_ms()))
		log_warn("node%u AXI DMA %s: programming error %u (%s), value %#x",
			 d->node, ch_names[c == &d->ch[VB_AXIDMA_RX]], code,
			 vb_axidma_bad_names[code], value);
}

static void vb_axidma_bad_once(struct vb_axidma *d, struct vb_axidma_chan *c,
			       bool *flag, uint32_t *last, uint32_t code,
			       uint32_t value)
{
	if (reg_bad_is_new(flag, last, value))
		vb_axidma_bad(d, c, code, value);
}

/*
 * The node's acknowledgement as PG021 has it: it wrote DMASR, a 1 in each
 * interrupt bit to clear.  SGIncld reads as 1 on silicon and the model
 * always publishes it, so a DMASR word without it is the node's write,
 * not yet applied.  Clears those bits of the model's DMASR; the caller
 * publishes.  Whether WORD was one.
 */
static bool vb_axidma_take_w1c(struct vb_axidma *d, struct vb_axidma_chan *c,
			       uint32_t word)
{
	if (word & EUSRV_AXIDMA_SR_SGINCLD)
		return false;
	if (word & ~EUSRV_AXIDMA_SR_IRQ_ALL)
		vb_axidma_bad(d, c, EUSRV_AXIDMA_BAD_SR_W1C, word);
	c->sr &= ~(word & EUSRV_AXIDMA_SR_IRQ_ALL);
	/* Level semantics: still asserted after the ack, raise again. */
	c->raise = true;
	return true;
}

static uint32_t vb_axidma_sr_word(struct vb_axidma_chan *c, uint64_t now_us)
{
	uint32_t v = c->sr | EUSRV_AXIDMA_SR_SGINCLD;
	uint32_t dly = 0;

	v &= ~(EUSRV_AXIDMA_SR_THRESH_MASK | EUSRV_AXIDMA_SR_DELAY_MASK);
	v |= (c->thresh_cnt & 0xffU) << EUSRV_AXIDMA_SR_THRESH_SHIFT;
	if (c->dly_deadline_us && c->dly_deadline_us > now_us) {
		uint64_t left = c->dly_deadline_us - now_us;

		dly = left > 0xff ? 0xff : (uint32_t)left;
	}
	return v | dly << EUSRV_AXIDMA_SR_DELAY_SHIFT;
}

/*
 * Write the model's DMASR for the node.  DMASR is the one register both
 * sides write (the node's write-1-to-clear): a compare-and-swap on the
 * shared word, with any acknowledgement that came first taken into
 * account, so that neither side's write is lost.
 */
static void vb_axidma_publish(struct vb_axidma *d, struct vb_axidma_chan *c,
			      uint64_t now_us)
{
	uint32_t *w = reg32(d->page, c->base + EUSRV_AXIDMA_SR);
	uint32_t old = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	do {
		vb_axidma_take_w1c(d, c, old);
	} while (!__atomic_compare_exchange_n(w, &old, vb_axidma_sr_word(c, now_us),
					      false, __ATOMIC_RELEASE,
					      __ATOMIC_ACQUIRE));
}

static uint32_t vb_axidma_threshold(struct vb_axidma *d,
				    struct vb_axidma_chan *c, uint32_t cr)
{
	uint32_t t = (cr & EUSRV_AXIDMA_CR_THRESH_MASK) >> EUSRV_AXIDMA_CR_THRESH_SHIFT;

	(void)d;
	(void)c;
	return t ? t : 1;
}

static void vb_axidma_chan_reset(struct vb_axidma *d, struct vb_axidma_chan *c)
{
	c->sr = EUSRV_AXIDMA_SR_HALTED | EUSRV_AXIDMA_SR_SGINCLD;
	c->cr_seen = EUSRV_AXIDMA_CR_RESET_VALUE;
	c->running = false;
	c->err_halted = false;
	c->idle = false;
	c->next = 0;
	c->idle_at = 0;
	c->thresh_cnt = 1;
	c->dly_deadline_us = 0;
	c->bad_cr = c->bad_cur = c->bad_tail = false;
	c->raise = false;
	(void)d;
}

void vb_axidma_init(struct vb_axidma *d, void *page, const struct board *board,
		    unsigned int node)
{
	memset(d, 0, sizeof(*d));
	d->page = page;
	d->board = board;
	d->node = node;
	d->ch[VB_AXIDMA_TX].base = EUSRV_AXIDMA_MM2S;
	d->ch[VB_AXIDMA_TX].vb = EUSRV_AXIDMA_VB_MM2S;
	d->ch[VB_AXIDMA_RX].base = EUSRV_AXIDMA_S2MM;
	d->ch[VB_AXIDMA_RX].vb = EUSRV_AXIDMA_VB_S2MM;
}

void vb_axidma_attach(struct vb_axidma *d)
{
	unsigned int i;
	uint32_t off;

	for (off = 0; off < EUSRV_PAGE_SIZE; off += 8)
		wr64(d->page, off, 0);
	for (i = 0; i < 2; i++) {
		struct vb_axidma_chan *c = &d->ch[i];

		vb_axidma_chan_reset(d, c);
		c->clr_seq = 0;
		c->bad_cnt = c->bad_last = c->inj_cnt = 0;
		c->inject = VB_AXIDMA_INJ_NONE;
		vb_axidma_publish(d, c, 0);
	}
	d->up = true;
}

void vb_axidma_detach(struct vb_axidma *d)
{
	d->up = false;
	d->ch[0].dly_deadline_us = d->ch[1].dly_deadline_us = 0;
}

/* DMACR.Reset: both channels, and the node's registers are rewritten. */
static void vb_axidma_engine_reset(struct vb_axidma *d, uint64_t now_us)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct vb_axidma_chan *c = &d->ch[i];

		vb_axidma_chan_reset(d, c);
		wr32(d->page, c->base + EUSRV_AXIDMA_CURDESC_MSB, 0);
		wr32(d->page, c->base + EUSRV_AXIDMA_CURDESC, 0);
		wr32(d->page, c->base + EUSRV_AXIDMA_TAILDESC_MSB, 0);
		wr32(d->page, c->base + EUSRV_AXIDMA_TAILDESC, 0);
		vb_axidma_publish(d, c, now_us);
	}
	/* Reset last: the node waits for it to read 0. */
	for (i = 0; i < 2; i++)
		wr32_release(d->page, d->ch[i].base + EUSRV_AXIDMA_CR,
			     EUSRV_AXIDMA_CR_RESET_VALUE);
	log_debug("node%u AXI DMA: reset", d->node);
}

static void vb_axidma_halt(struct vb_axidma *d, struct vb_axidma_chan *c,
			   uint32_t err, uint64_t now_us)
{
	c->sr |= err | EUSRV_AXIDMA_SR_ERR_IRQ | EUSRV_AXIDMA_SR_HALTED;
	c->sr &= ~EUSRV_AXIDMA_SR_IDLE;
	c->running = false;
	c->err_halted = true;
	c->dly_deadline_us = 0;
	c->raise = true;
	vb_axidma_publish(d, c, now_us);
	if (log_ratelimit_ok(&d->rl, evloop_now_ms()))
		log_info("node%u AXI DMA %s: error %#x, channel halted", d->node,
			 ch_names[c == &d->ch[VB_AXIDMA_RX]], err);
}

/*
 * What a kick of a channel makes of each register the node may have
 * written, one handler a register, as in cdma.c.
 */

/* VB_SR_CLR_SEQ moved: clear the VB_SR_CLR interrupt bits (write 1 to clear). */
static void vb_axidma_reg_sr_clr_seq(struct vb_axidma *d,
				     struct vb_axidma_chan *c, uint64_t now_us)
{
	uint32_t seq = rd32_acquire(d->page, c->vb + EUSRV_AXIDMA_VB_SR_CLR_SEQ);
	uint32_t clr;

	if (seq == c->clr_seq)
		return;
	clr = rd32(d->page, c->vb + EUSRV_AXIDMA_VB_SR_CLR);
	c->clr_seq = seq;
	if (d->board->axidma_pg021) {
		vb_axidma_bad(d, c, EUSRV_AXIDMA_BAD_VB_ACK, clr);
		return;
	}
	if (clr & ~EUSRV_AXIDMA_SR_IRQ_ALL)
		vb_axidma_bad(d, c, EUSRV_AXIDMA_BAD_SR_CLR, clr);
	c->sr &= ~(clr & EUSRV_AXIDMA_SR_IRQ_ALL);
	vb_axidma_publish(d, c, now_us);
	/* Level semantics: still asserted after the ack, raise again. */
	c->raise = true;
}

/* DMACR.RS: stop the channel, or start it at CURDESC. */
static void vb_axidma_cr_run_stop(struct vb_axidma *d, struct vb_axidma_chan *c,
				  uint32_t cr, uint64_t now_us)
{
	if (!(cr & EUSRV_AXIDMA_CR_RS)) {
		if (c->running || !(c->sr & EUSRV_AXIDMA_SR_HALTED)) {
			c->running = false;
			c->sr |= EUSRV_AXIDMA_SR_HALTED;
			c->sr &= ~EUSRV_AXIDMA_SR_IDLE;
			vb_axidma_publish(d, c, now_us);
		}
	} else if (!c->running && !c->err_halted) {
		uint64_t cur = vb_axidma_reg_addr(d, c->base + EUSRV_AXIDMA_CURDESC);

		if (cur & ~VB_AXIDMA_DESC_MASK)
			vb_axidma_bad_once(d, c, &c->bad_cur, &c->bad_cur_val,
					   EUSRV_AXIDMA_BAD_CURDESC, (uint32_t)cur);
		c->next = cur & VB_AXIDMA_DESC_MASK;
		c->running = true;
		c->idle = false;
		c->sr &= ~(EUSRV_AXIDMA_SR_HALTED | EUSRV_AXIDMA_SR_IDLE);
		vb_axidma_publish(d, c, now_us);
	}
}

/* DMACR (Reset aside): reserved bits, IRQThreshold, enables, then RS. */
static void vb_axidma_reg_cr(struct vb_axidma *d, struct vb_axidma_chan *c,
			     uint64_t now_us)
{
	uint32_t cr = vb_axidma_cr_of(d, c);

	if (cr & ~EUSRV_AXIDMA_CR_VALID)
		vb_axidma_bad_once(d, c, &c->bad_cr, &c->bad_cr_val, EUSRV_AXIDMA_BAD_CR, cr);
	else
		c->bad_cr = false;
	if (!(cr & EUSRV_AXIDMA_CR_THRESH_MASK) && (c->cr_seen & EUSRV_AXIDMA_CR_THRESH_MASK))
		vb_axidma_bad(d, c, EUSRV_AXIDMA_BAD_THRESH, cr);
	if ((cr & ~c->cr_seen) & EUSRV_AXIDMA_CR_IRQEN_ALL)
		c->raise = true;	/* newly enabled, maybe already set */
	if (((cr ^ c->cr_seen) & EUSRV_AXIDMA_CR_THRESH_MASK))
		c->thresh_cnt = vb_axidma_threshold(d, c, cr);
	c->cr_seen = cr;
	vb_axidma_cr_run_stop(d, c, cr, now_us);
}

/*
 * DMASR: the node's write-1-to-clear, if it wrote one (PG021), applied
 * before anything the engine does next sets bits again.
 */
static void vb_axidma_absorb_ack(struct vb_axidma *d, struct vb_axidma_chan *c,
				 uint64_t now_us)
{
	if (!(rd32_acquire(d->page, c->base + EUSRV_AXIDMA_SR) & EUSRV_AXIDMA_SR_SGINCLD))
		vb_axidma_publish(d, c, now_us);
}

/* The node may have written channel C's register at OFF (from c->base or c->vb). */
static void vb_axidma_reg_write(struct vb_axidma *d, struct vb_axidma_chan *c,
				uint32_t off, uint64_t now_us)
{
	switch (off) {
	case EUSRV_AXIDMA_VB_SR_CLR_SEQ:
		vb_axidma_reg_sr_clr_seq(d, c, now_us);
		break;
	case EUSRV_AXIDMA_CR:
		vb_axidma_reg_cr(d, c, now_us);
		break;
	}
}

/* The registers of a channel a kick looks at, in the order it acts on them. */
static const uint32_t vb_axidma_kick_regs[] = {
	EUSRV_AXIDMA_VB_SR_CLR_SEQ,
	EUSRV_AXIDMA_CR,
};

void vb_axidma_kick(struct vb_axidma *d, unsigned int ch, uint64_t now_us)
{
	size_t i;

	if (!d->up || ch > 1)
		return;
	/* Reset in either channel resets both, before anything else. */
	for (i = 0; i < 2; i++) {
		if (vb_axidma_cr_of(d, &d->ch[i]) & EUSRV_AXIDMA_CR_RESET) {
			vb_axidma_engine_reset(d, now_us);
			return;
		}
	}
	/*
	 * DMASR first, PG021's acknowledgement; not in the list, where its
	 * offset from the channel's base is SR_CLR_SEQ's from its vb.
	 */
	vb_axidma_absorb_ack(d, &d->ch[ch], now_us);
	for (i = 0; i < sizeof(vb_axidma_kick_regs) / sizeof(vb_axidma_kick_regs[0]); i++)
		vb_axidma_reg_write(d, &d->ch[ch], vb_axidma_kick_regs[i], now_us);
}

/* Host pointer to LEN bytes at GA in the node's own RAM, or NULL. */
static void *vb_axidma_own_ram(struct vb_axidma *d, uint64_t ga, uint64_t len)
{
	if (EUSRV_GA_NODE(ga) != d->node)
		return NULL;
	return board_ram_ptr(d->board, ga, len);
}

struct vb_axidma_desc {
	uint64_t ga;
	uint8_t *host;		/* the descriptor in RAM */
	uint64_t next;
	uint64_t buf;
	uint32_t ctrl;
	uint32_t status;
	uint32_t app[5];
};

static uint32_t vb_axidma_le32_at(const uint8_t *p, uint32_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return le32toh(v);
}

static void vb_axidma_put_le32(uint8_t *p, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)(p + off), htole32(v),
			 __ATOMIC_RELEASE);
}

/* Fetch the descriptor at GA: 0, or the DMASR SG error bit. */
static uint32_t vb_axidma_fetch(struct vb_axidma *d, uint64_t ga,
				struct vb_axidma_desc *out)
{
	uint8_t raw[DESC_SIZE];
	unsigned int i;

	out->ga = ga;
	out->host = vb_axidma_own_ram(d, ga, DESC_SIZE);
	if (!out->host)
		return EUSRV_AXIDMA_SR_SG_DEC_ERR;
	memcpy(raw, out->host, sizeof(raw));
	out->next = ((uint64_t)vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_NEXT_MSB) << 32 |
		     vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_NEXT)) & VB_AXIDMA_DESC_MASK;
	out->buf = (uint64_t)vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_BUF_MSB) << 32 |
		   vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_BUF);
	out->ctrl = vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_CTRL);
	out->status = vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_STATUS);
	for (i = 0; i < 5; i++)
		out->app[i] = vb_axidma_le32_at(raw, EUSRV_AXIDMA_DESC_APP(i));
	if (out->status & EUSRV_AXIDMA_ST_CMPLT)
		return EUSRV_AXIDMA_SR_SG_INT_ERR;
	return 0;
}

static uint64_t vb_axidma_tail_of(struct vb_axidma *d, struct vb_axidma_chan *c)
{
	uint64_t t = vb_axidma_reg_addr(d, c->base + EUSRV_AXIDMA_TAILDESC);

	if (t & ~VB_AXIDMA_DESC_MASK)
		vb_axidma_bad_once(d, c, &c->bad_tail, &c->bad_tail_val,
				   EUSRV_AXIDMA_BAD_TAILDESC, (uint32_t)t);
	else
		c->bad_tail = false;
	return t & VB_AXIDMA_DESC_MASK;
}

/*
 * Is the descriptor at c->next handed over to the engine?  An idle channel
 * resumes only on a TAILDESC different from the one it stopped at.  The
 * same TAILDESC again cannot be told from a late kick of a TAILDESC the
 * engine has already reached, after which the driver may be filling
 * descriptors beyond it: so a driver keeps one descriptor of a ring unused.
 */
static bool vb_axidma_available(struct vb_axidma *d, struct vb_axidma_chan *c,
				uint64_t tail)
{
	if (!d->up || !c->running || c->err_halted || !tail)
		return false;
	if (!c->idle)
		return true;
	if (tail != c->idle_at) {
		c->idle = false;
		c->sr &= ~EUSRV_AXIDMA_SR_IDLE;
		return true;
	}
	return false;
}

/* One frame's descriptors were completed (an IOC event). */
static void vb_axidma_ioc_event(struct vb_axidma *d, struct vb_axidma_chan *c,
				uint64_t now_us)
{
	uint32_t cr = vb_axidma_cr_of(d, c);
	uint32_t dly = (cr & EUSRV_AXIDMA_CR_DELAY_MASK) >> EUSRV_AXIDMA_CR_DELAY_SHIFT;

	if (c->thresh_cnt == 0 || c->thresh_cnt > 255)
		c->thresh_cnt = vb_axidma_threshold(d, c, cr);
	if (--c->thresh_cnt == 0) {
		c->sr |= EUSRV_AXIDMA_SR_IOC_IRQ;
		c->thresh_cnt = vb_axidma_threshold(d, c, cr);
		c->dly_deadline_us = 0;
		c->raise = true;
	} else if (dly) {
		c->dly_deadline_us = now_us + (uint64_t)dly *
				     EUSRV_AXIDMA_DELAY_TICK_NS / 1000U;
	}
}

/* Advance past the frame's last descriptor LAST. */
static void vb_axidma_advance(struct vb_axidma *d, struct vb_axidma_chan *c,
			      const struct vb_axidma_desc *last, uint64_t tail,
			      uint64_t now_us)
{
	c->next = last->next;
	if (last->ga == tail) {
		c->idle = true;
		c->idle_at = tail;
		c->sr |= EUSRV_AXIDMA_SR_IDLE;
	}
	vb_axidma_ioc_event(d, c, now_us);
	vb_axidma_publish(d, c, now_us);
}

static uint32_t vb_axidma_inject_sg(enum vb_axidma_inject_kind k)
{
	switch (k) {
	case VB_AXIDMA_INJ_SG_INT: return EUSRV_AXIDMA_SR_SG_INT_ERR;
	case VB_AXIDMA_INJ_SG_SLV: return EUSRV_AXIDMA_SR_SG_SLV_ERR;
	case VB_AXIDMA_INJ_SG_DEC: return EUSRV_AXIDMA_SR_SG_DEC_ERR;
	default: return 0;
	}
}

static void vb_axidma_inject_dma(enum vb_axidma_inject_kind k, uint32_t *sr,
				 uint32_t *st)
{
	switch (k) {
	case VB_AXIDMA_INJ_DMA_INT:
		*sr = EUSRV_AXIDMA_SR_DMA_INT_ERR;
		*st = EUSRV_AXIDMA_ST_INTERR;
		break;
	case VB_AXIDMA_INJ_DMA_SLV:
		*sr = EUSRV_AXIDMA_SR_DMA_SLV_ERR;
		*st = EUSRV_AXIDMA_ST_SLVERR;
		break;
	case VB_AXIDMA_INJ_DMA_DEC:
		*sr = EUSRV_AXIDMA_SR_DMA_DEC_ERR;
		*st = EUSRV_AXIDMA_ST_DECERR;
		break;
	default:
		*sr = *st = 0;
		break;
	}
}

/* A DMA error on descriptor DS: status written back, channel halted. */
static void vb_axidma_dma_error(struct vb_axidma *d, struct vb_axidma_chan *c,
				const struct vb_axidma_desc *ds,
				uint32_t sr_bit, uint32_t st_bit,
				uint64_t now_us)
{
	vb_axidma_put_le32(ds->host, EUSRV_AXIDMA_DESC_STATUS, st_bit | EUSRV_AXIDMA_ST_CMPLT);
	vb_axidma_halt(d, c, sr_bit, now_us);
}

/* Apply a pending injection to the first descriptor DS; true if it failed. */
static bool vb_axidma_injected(struct vb_axidma *d, struct vb_axidma_chan *c,
			       const struct vb_axidma_desc *ds, uint64_t now_us)
{
	enum vb_axidma_inject_kind k = c->inject;
	uint32_t sr, st;

	if (k == VB_AXIDMA_INJ_NONE)
		return false;
	c->inject = VB_AXIDMA_INJ_NONE;
	c->inj_cnt++;
	wr32(d->page, c->vb + EUSRV_AXIDMA_VB_INJ_CNT, c->inj_cnt);
	if (vb_axidma_inject_sg(k)) {
		vb_axidma_halt(d, c, vb_axidma_inject_sg(k), now_us);
		return true;
	}
	vb_axidma_inject_dma(k, &sr, &st);
	vb_axidma_dma_error(d, c, ds, sr, st, now_us);
	return true;
}

int vb_axidma_tx_frame(struct vb_axidma *d, uint8_t *buf, size_t cap,
		       size_t *len, uint32_t app[5], uint64_t now_us)
{
	struct vb_axidma_chan *c = &d->ch[VB_AXIDMA_TX];
	struct vb_axidma_desc ds[EUSRV_AXIDMA_MAX_FRAME_DESC];
	uint64_t tail = vb_axidma_tail_of(d, c), ga, total = 0;
	unsigned int n = 0, i;
	uint32_t err;

	vb_axidma_absorb_ack(d, c, now_us);
	if (!vb_axidma_available(d, c, tail))
		return 0;
	ga = c->next;
	for (;;) {
		struct vb_axidma_desc *x = &ds[n];

		err = vb_axidma_fetch(d, ga, x);
		if (err) {
			vb_axidma_halt(d, c, err, now_us);
			return -1;
		}
		if (n == 0) {
			if (vb_axidma_injected(d, c, x, now_us))
				return -1;
			if (!(x->ctrl & EUSRV_AXIDMA_CTRL_SOF))
				vb_axidma_bad(d, c, EUSRV_AXIDMA_BAD_NO_SOF, x->ctrl);
			memcpy(app, x->app, sizeof(x->app));
		}
		if (!(x->ctrl & EUSRV_AXIDMA_MAX_LEN)) {
			vb_axidma_dma_error(d, c, x, EUSRV_AXIDMA_SR_DMA_INT_ERR,
					    EUSRV_AXIDMA_ST_INTERR, now_us);
			return -1;
		}
		n++;
		if (x->ctrl & EUSRV_AXIDMA_CTRL_EOF)
			break;
		if (x->ga == tail)
			return 0;	/* the rest of the frame is not there yet */
		if (n == EUSRV_AXIDMA_MAX_FRAME_DESC) {
			vb_axidma_dma_error(d, c, x, EUSRV_AXIDMA_SR_DMA_INT_ERR,
					    EUSRV_AXIDMA_ST_INTERR, now_us);
			return -1;
		}
		ga = x->next;
	}
	for (i = 0; i < n; i++) {
		uint32_t blen = ds[i].ctrl & EUSRV_AXIDMA_MAX_LEN;
		const uint8_t *src = vb_axidma_own_ram(d, ds[i].buf, blen);

		if (!src) {
			vb_axidma_dma_error(d, c, &ds[i], EUSRV_AXIDMA_SR_DMA_DEC_ERR,
					    EUSRV_AXIDMA_ST_DECERR, now_us);
			return -1;
		}
		if (total < cap)
			memcpy(buf + total, src,
			       cap - total < blen ? cap - total : blen);
		total += blen;
	}
	for (i = 0; i < n; i++)
		vb_axidma_put_le32(ds[i].host, EUSRV_AXIDMA_DESC_STATUS,
				   (ds[i].ctrl & EUSRV_AXIDMA_MAX_LEN) | EUSRV_AXIDMA_ST_CMPLT);
	*len = total;
	vb_axidma_advance(d, c, &ds[n - 1], tail, now_us);
	return 1;
}

int vb_axidma_rx_frame(struct vb_axidma *d, const uint8_t *frame, size_t len,
		       const uint32_t app[5], uint64_t now_us)
{
	struct vb_axidma_chan *c = &d->ch[VB_AXIDMA_RX];
	struct vb_axidma_desc ds[EUSRV_AXIDMA_MAX_FRAME_DESC];
	uint64_t tail = vb_axidma_tail_of(d, c), ga, room = 0;
	unsigned int n = 0, i;
	size_t done = 0;
	uint32_t err;

	vb_axidma_absorb_ack(d, c, now_us);
	if (!len || !vb_axidma_available(d, c, tail))
		return -ENOSPC;
	ga = c->next;
	for (;;) {
		struct vb_axidma_desc *x = &ds[n];
		uint32_t blen;

		err = vb_axidma_fetch(d, ga, x);
		if (err) {
			vb_axidma_halt(d, c, err, now_us);
			return -EIO;
		}
		if (n == 0 && vb_axidma_injected(d, c, x, now_us))
			return -EIO;
		blen = x->ctrl & EUSRV_AXIDMA_MAX_LEN;
		if (!blen) {
			vb_axidma_dma_error(d, c, x, EUSRV_AXIDMA_SR_DMA_INT_ERR,
					    EUSRV_AXIDMA_ST_INTERR, now_us);
			return -EIO;
		}
		n++;
		room += blen;
		if (room >= len)
			break;
		if (x->ga == tail || n == EUSRV_AXIDMA_MAX_FRAME_DESC)
			return -ENOSPC;
		ga = x->next;
	}
	for (i = 0; i < n; i++) {
		size_t blen = ds[i].ctrl & EUSRV_AXIDMA_MAX_LEN;
		size_t chunk = len - done < blen ? len - done : blen;
		uint8_t *dst = vb_axidma_own_ram(d, ds[i].buf, chunk);

		if (!dst) {
			vb_axidma_dma_error(d, c, &ds[i], EUSRV_AXIDMA_SR_DMA_DEC_ERR,
					    EUSRV_AXIDMA_ST_DECERR, now_us);
			return -EIO;
		}
		memcpy(dst, frame + done, chunk);
		ds[i].status = (uint32_t)chunk;
		done += chunk;
	}
	for (i = 0; i < n; i++) {
		uint32_t st = ds[i].status | EUSRV_AXIDMA_ST_CMPLT;

		if (i == 0)
			st |= EUSRV_AXIDMA_ST_RXSOF;
		if (i == n - 1) {
			unsigned int a;

			st |= EUSRV_AXIDMA_ST_RXEOF;
			for (a = 0; a < 5; a++)
				vb_axidma_put_le32(ds[i].host, EUSRV_AXIDMA_DESC_APP(a), app[a]);
		}
		vb_axidma_put_le32(ds[i].host, EUSRV_AXIDMA_DESC_STATUS, st);
	}
	vb_axidma_advance(d, c, &ds[n - 1], tail, now_us);
	return 0;
}

void vb_axidma_timer(struct vb_axidma *d, uint64_t now_us)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct vb_axidma_chan *c = &d->ch[i];

		if (!c->dly_deadline_us || c->dly_deadline_us > now_us)
			continue;
		c->dly_deadline_us = 0;
		if (!d->up)
			continue;
		vb_axidma_absorb_ack(d, c, now_us);
		c->sr |= EUSRV_AXIDMA_SR_DLY_IRQ;
		c->thresh_cnt = vb_axidma_threshold(d, c, vb_axidma_cr_of(d, c));
		c->raise = true;
		vb_axidma_publish(d, c, now_us);
	}
}

uint64_t vb_axidma_next_deadline(const struct vb_axidma *d)
{
	uint64_t a = d->ch[0].dly_deadline_us, b = d->ch[1].dly_deadline_us;

	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

bool vb_axidma_update_irq(struct vb_axidma *d, unsigned int ch)
{
	struct vb_axidma_chan *c = &d->ch[ch];
	bool raise = c->raise;

	c->raise = false;
	if (!d->up || !raise)
		return false;
	return (c->sr & vb_axidma_cr_of(d, c) & EUSRV_AXIDMA_SR_IRQ_ALL) != 0;
}

void vb_axidma_inject(struct vb_axidma *d, unsigned int ch,
		      enum vb_axidma_inject_kind kind)
{
	if (ch < 2)
		d->ch[ch].inject = kind;
}
