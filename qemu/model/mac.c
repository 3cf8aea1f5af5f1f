/*
 * The shared MAC (see mac.h and mac_hw.h).  Register values are read from
 * the node's page when a frame is switched; anything out of range is
 * counted as a programming error and replaced by a safe value.
 */
#include "mac.h"

#include <errno.h>
#include <string.h>

#include "evloop.h"
#include "regs.h"

#define ST(x)		((x) / 8U)	/* counter offset -> index */

static uint64_t vb_mac_now_us(struct vb_mac *m)
{
	return m->ops->now_us(m->opaque);
}

static void *vb_mac_page(struct vb_mac *m, unsigned int node)
{
	return board_page(m->board, node, EUSRV_PAGE_MAC);
}

static void vb_mac_count(struct vb_mac *m, unsigned int port, uint32_t off,
			 uint64_t v)
{
	unsigned int i = ST(off);

	if (port == MAC_LINE) {
		m->line[i] += v;
	} else {
		struct vb_mac_port *p = &m->port[port];

		p->st[i] += v;
		wr64(vb_mac_page(m, port), EUSRV_MAC_STATS_PORT + off, p->st[i]);
		m->total[i] += v;
	}
	m->shared_dirty = true;
}

static void vb_mac_bad(struct vb_mac *m, unsigned int node, uint32_t code,
		       uint32_t val)
{
	struct vb_mac_port *p = &m->port[node];

	p->bad_cnt++;
	wr32(vb_mac_page(m, node), EUSRV_MAC_BAD_LAST, code);
	wr32(vb_mac_page(m, node), EUSRV_MAC_BAD_CNT, p->bad_cnt);
	if (log_ratelimit_ok(&m->rl, evloop_now_ms()))
		log_warn("node%u MAC: programming error %u, value %#x", node,
			 code, val);
}

static uint32_t vb_mac_ctrl_of(struct vb_mac *m, unsigned int node)
{
	struct vb_mac_port *p = &m->port[node];
	uint32_t ctrl = rd32(vb_mac_page(m, node), EUSRV_MAC_CTRL);

	if (ctrl & ~EUSRV_MAC_CTRL_VALID) {
		if (!p->ctrl_bad || p->ctrl_bad_val != ctrl)
			vb_mac_bad(m, node, EUSRV_MAC_BAD_CTRL, ctrl);
		p->ctrl_bad = true;
		p->ctrl_bad_val = ctrl;
	} else {
		p->ctrl_bad = false;
	}
	return ctrl & EUSRV_MAC_CTRL_VALID;
}

static uint32_t vb_mac_mtu_of(struct vb_mac *m, unsigned int node)
{
	struct vb_mac_port *p = &m->port[node];
	uint32_t mtu = rd32(vb_mac_page(m, node), EUSRV_MAC_MTU);

	if (!mtu)
		mtu = EUSRV_MAC_MTU_DEFAULT;
	if (mtu < EUSRV_MAC_MTU_MIN || mtu > EUSRV_MAC_MTU_JUMBO) {
		if (!p->mtu_bad || p->mtu_bad_val != mtu)
			vb_mac_bad(m, node, EUSRV_MAC_BAD_MTU, mtu);
		p->mtu_bad = true;
		p->mtu_bad_val = mtu;
		return p->mtu;
	}
	p->mtu_bad = false;
	p->mtu = mtu;
	return mtu;
}

static void vb_mac_addr_of(struct vb_mac *m, unsigned int node, uint8_t a[6])
{
	uint32_t lo = rd32(vb_mac_page(m, node), EUSRV_MAC_ADDR_LO);
	uint32_t hi = rd32(vb_mac_page(m, node), EUSRV_MAC_ADDR_HI);

	a[0] = (uint8_t)lo;
	a[1] = (uint8_t)(lo >> 8);
	a[2] = (uint8_t)(lo >> 16);
	a[3] = (uint8_t)(lo >> 24);
	a[4] = (uint8_t)hi;
	a[5] = (uint8_t)(hi >> 8);
}

uint16_t vb_mac_csum(const uint8_t *p, size_t len, uint32_t seed)
{
	uint64_t sum = seed;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* ---- Link -------------------------------------------------------------- */

static void vb_mac_port_link_regs(struct vb_mac *m, unsigned int node)
{
	uint32_t v = (m->link ? EUSRV_MAC_LINK_UP : 0) |
		     (vb_phy_loopback(&m->phy) ? EUSRV_MAC_LINK_LOOPBACK : 0) |
		     (m->peer ? EUSRV_MAC_LINK_PEER : 0);
	uint32_t caps = EUSRV_MAC_CAP_TX_CSUM | EUSRV_MAC_CAP_RX_CSUM |
			EUSRV_MAC_CAP_JUMBO | EUSRV_MAC_CAP_MDIO |
			(m->peer ? EUSRV_MAC_CAP_LINE : 0);

	wr32(vb_mac_page(m, node), EUSRV_MAC_CAPS, caps);
	wr32_release(vb_mac_page(m, node), EUSRV_MAC_LINK, v);
}

/* Re-evaluate the PHY's link; on a change tell every port. */
static void vb_mac_link_update(struct vb_mac *m)
{
	bool link = vb_phy_link(&m->phy, vb_mac_now_us(m));
	unsigned int n;

	if (link != m->link) {
		m->link = link;
		if (!link)
			vb_phy_link_went_down(&m->phy);
		log_info("shared MAC: link %s", link ? "up" : "down");
		for (n = 0; n < m->board->nr_nodes; n++) {
			struct vb_mac_port *p = &m->port[n];

			if (!p->up)
				continue;
			p->link_changes++;
			wr32(vb_mac_page(m, n), EUSRV_MAC_LINK_CHANGES,
			     p->link_changes);
			p->sr |= EUSRV_MAC_SR_LINK_CHG;
			wr32(vb_mac_page(m, n), EUSRV_MAC_SR, p->sr);
			p->raise = true;
		}
	}
	for (n = 0; n < m->board->nr_nodes; n++)
		if (m->port[n].up)
			vb_mac_port_link_regs(m, n);
}

/* ---- Setup ------------------------------------------------------------- */

void vb_mac_init(struct vb_mac *m, struct board *board,
		 const struct vb_mac_ops *ops, void *opaque)
{
	unsigned int n;

	memset(m, 0, sizeof(*m));
	m->board = board;
	m->ops = ops;
	m->opaque = opaque;
	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		vb_axidma_init(&m->dma[n], board_page(board, n, EUSRV_PAGE_DMA),
			       board, n);
		m->port[n].mtu = EUSRV_MAC_MTU_DEFAULT;
	}
	vb_phy_init(&m->phy);
	m->link = vb_phy_link(&m->phy, 0);
}

void vb_mac_attach(struct vb_mac *m, unsigned int node)
{
	struct vb_mac_port *p;
	void *pg;
	uint32_t off;

	if (node >= m->board->nr_nodes)
		return;
	p = &m->port[node];
	pg = vb_mac_page(m, node);
	for (off = 0; off < EUSRV_PAGE_SIZE; off += 8)
		wr64(pg, off, 0);
	memset(p, 0, sizeof(*p));
	p->mtu = EUSRV_MAC_MTU_DEFAULT;
	p->up = true;
	wr32(pg, EUSRV_MAC_PORT, node | m->board->nr_nodes << 8);
	wr32(pg, EUSRV_MAC_MTU_MAX, EUSRV_MAC_MTU_JUMBO);
	vb_mac_port_link_regs(m, node);
	m->shared_dirty = true;
	vb_axidma_attach(&m->dma[node]);
	wr32_release(pg, EUSRV_MAC_ID, EUSRV_MAC_ID_VALUE);
}

void vb_mac_detach(struct vb_mac *m, unsigned int node)
{
	if (node >= m->board->nr_nodes)
		return;
	m->port[node].up = false;
	m->port[node].tx_ready = false;
	vb_axidma_detach(&m->dma[node]);
}

/* ---- MDIO -------------------------------------------------------------- */

static void vb_mac_mdio(struct vb_mac *m, unsigned int node)
{
	struct vb_mac_port *p = &m->port[node];
	void *pg = vb_mac_page(m, node);
	uint32_t cmd = rd32_acquire(pg, EUSRV_MAC_MDIO_CMD);
	uint16_t seq = (uint16_t)(cmd >> EUSRV_MAC_MDIO_SEQ_SHIFT);
	uint32_t addr, op;
	unsigned int prtad, devad;
	uint16_t reg, data = 0xffff;
	int err = 0;

	if (seq == p->mdio_done)
		return;
	addr = rd32(pg, EUSRV_MAC_MDIO_ADDR);
	op = cmd & EUSRV_MAC_MDIO_OP_MASK;
	prtad = addr & EUSRV_MAC_MDIO_PRTAD_MASK;
	devad = (addr & EUSRV_MAC_MDIO_DEVAD_MASK) >> EUSRV_MAC_MDIO_DEVAD_SHIFT;
	reg = (uint16_t)(addr >> EUSRV_MAC_MDIO_REGAD_SHIFT);

	if (prtad != EUSRV_PHY_ADDR) {
		err = -1;
	} else {
		switch (op) {
		case EUSRV_MAC_MDIO_OP_ADDRESS:
			err = vb_phy_address(&m->phy, devad, reg);
			break;
		case EUSRV_MAC_MDIO_OP_WRITE:
		case EUSRV_MAC_MDIO_OP_ADDR_WRITE:
			if (op == EUSRV_MAC_MDIO_OP_ADDR_WRITE)
				err = vb_phy_address(&m->phy, devad, reg);
			if (!err)
				err = vb_phy_write(&m->phy, devad,
						   (uint16_t)rd32(pg, EUSRV_MAC_MDIO_WDATA),
						   vb_mac_now_us(m));
			break;
		case EUSRV_MAC_MDIO_OP_READ:
		case EUSRV_MAC_MDIO_OP_READ_INC:
		case EUSRV_MAC_MDIO_OP_ADDR_READ:
			if (op == EUSRV_MAC_MDIO_OP_ADDR_READ)
				err = vb_phy_address(&m->phy, devad, reg);
			if (!err)
				err = vb_phy_read(&m->phy, devad,
						  op == EUSRV_MAC_MDIO_OP_READ_INC,
						  &data, vb_mac_now_us(m));
			break;
		default:
			vb_mac_bad(m, node, EUSRV_MAC_BAD_MDIO_OP, cmd);
			err = -1;
			break;
		}
	}
	if (err)
		data = 0xffff;
	p->mdio_done = seq;
	wr32(pg, EUSRV_MAC_MDIO_RDATA, data);
	wr32_release(pg, EUSRV_MAC_MDIO_DONE,
		     seq | (err ? EUSRV_MAC_MDIO_DONE_ERR : 0));
	p->sr |= EUSRV_MAC_SR_MDIO_DONE;
	wr32(pg, EUSRV_MAC_SR, p->sr);
	p->raise = true;
	vb_mac_link_update(m);
}

static void vb_mac_port_kick(struct vb_mac *m, unsigned int node)
{
	struct vb_mac_port *p = &m->port[node];
	void *pg = vb_mac_page(m, node);
	uint32_t seq = rd32_acquire(pg, EUSRV_MAC_SR_CLR_SEQ);
	uint32_t ctrl = vb_mac_ctrl_of(m, node);

	vb_mac_mtu_of(m, node);
	if (seq != p->clr_seq) {
		uint32_t clr = rd32(pg, EUSRV_MAC_SR_CLR);

		p->clr_seq = seq;
		if (clr & ~EUSRV_MAC_SR_ALL)
			vb_mac_bad(m, node, EUSRV_MAC_BAD_SR_CLR, clr);
		p->sr &= ~clr;
		wr32(pg, EUSRV_MAC_SR, p->sr);
		p->raise = true;
	}
	if (ctrl & ~p->sr_seen_ctrl & (EUSRV_MAC_CTRL_LINK_IE | EUSRV_MAC_CTRL_MDIO_IE))
		p->raise = true;
	p->sr_seen_ctrl = ctrl;
	vb_mac_mdio(m, node);
}

void vb_mac_kick(struct vb_mac *m, unsigned int node, unsigned int vector)
{
	if (node >= m->board->nr_nodes || !m->port[node].up)
		return;
	switch (vector) {
	case EUSRV_VEC_DMA_MM2S:
		vb_axidma_kick(&m->dma[node], VB_AXIDMA_TX, vb_mac_now_us(m));
		m->port[node].tx_ready = true;
		m->busy = true;
		break;
	case EUSRV_VEC_DMA_S2MM:
		vb_axidma_kick(&m->dma[node], VB_AXIDMA_RX, vb_mac_now_us(m));
		break;
	case EUSRV_VEC_MAC:
		vb_mac_port_kick(m, node);
		break;
	default:
		vb_mac_bad(m, node, EUSRV_MAC_BAD_KICK, vector);
		break;
	}
}

/* ---- Switching --------------------------------------------------------- */

static void vb_mac_switch_frame(struct vb_mac *m, unsigned int src,
				const uint8_t *f, size_t len);

static void vb_mac_line_out(struct vb_mac *m, const uint8_t *f, size_t len)
{
	if (vb_phy_loopback(&m->phy)) {
		/* Back in from the line; one level only. */
		if (m->loop_depth)
			return;
		m->loop_depth++;
		vb_mac_line_rx(m, f, len);
		m->loop_depth--;
		return;
	}
	if (!m->peer || !m->ops->line_send(m->opaque, f, len)) {
		vb_mac_count(m, MAC_LINE, EUSRV_MAC_TX_DROPS, 1);
		return;
	}
	vb_mac_count(m, MAC_LINE, EUSRV_MAC_TX_FRAMES, 1);
	vb_mac_count(m, MAC_LINE, EUSRV_MAC_TX_BYTES, len);
}

struct vb_mac_rxinfo {
	bool have_csum;
	uint16_t csum;
};

static void vb_mac_deliver(struct vb_mac *m, unsigned int n, const uint8_t *f,
			   size_t len, bool mcast, struct vb_mac_rxinfo *ri)
{
	uint32_t ctrl = vb_mac_ctrl_of(m, n);
	uint32_t app[5] = { 0 };
	int r;

	if (!(ctrl & EUSRV_MAC_CTRL_RX_EN)) {
		vb_mac_count(m, n, EUSRV_MAC_RX_DROPS, 1);
		return;
	}
	if (len > vb_mac_mtu_of(m, n) + EUSRV_MAC_FRAME_OVERHEAD) {
		vb_mac_count(m, n, EUSRV_MAC_RX_OVERSIZE, 1);
		return;
	}
	if ((ctrl & EUSRV_MAC_CTRL_RX_CSUM) && len >= EUSRV_AXIDMA_RX_CSUM_START) {
		if (!ri->have_csum) {
			ri->csum = vb_mac_csum(f + EUSRV_AXIDMA_RX_CSUM_START,
					       len - EUSRV_AXIDMA_RX_CSUM_START, 0);
			ri->have_csum = true;
		}
		app[2] = EUSRV_AXIDMA_APP2_RX_CSUM_VALID;
		app[3] = ri->csum;
	}
	app[4] = (uint32_t)len & EUSRV_AXIDMA_APP4_RX_LEN_MASK;
	r = vb_axidma_rx_frame(&m->dma[n], f, len, app, vb_mac_now_us(m));
	if (r == 0) {
		vb_mac_count(m, n, EUSRV_MAC_RX_FRAMES, 1);
		vb_mac_count(m, n, EUSRV_MAC_RX_BYTES, len);
		if (mcast)
			vb_mac_count(m, n, EUSRV_MAC_RX_MCAST, 1);
	} else if (r == -ENOSPC) {
		vb_mac_count(m, n, EUSRV_MAC_RX_NODESC, 1);
	} else {
		vb_mac_count(m, n, EUSRV_MAC_RX_ERRORS, 1);
	}
}

static void vb_mac_switch_frame(struct vb_mac *m, unsigned int src,
				const uint8_t *f, size_t len)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	bool mcast = f[0] & 1, is_bcast = !memcmp(f, bcast, 6);
	bool matched = false;
	struct vb_mac_rxinfo ri = { 0 };
	unsigned int n;

	for (n = 0; n < m->board->nr_nodes; n++) {
		uint8_t a[6];
		uint32_t ctrl;
		bool own, accept;

		if (n == src || !m->port[n].up)
			continue;
		vb_mac_addr_of(m, n, a);
		own = !mcast && memcmp(a, zero, 6) && !memcmp(a, f, 6);
		if (own)
			matched = true;
		ctrl = vb_mac_ctrl_of(m, n);
		accept = own || is_bcast || (ctrl & EUSRV_MAC_CTRL_PROMISC) ||
			 (mcast && (ctrl & EUSRV_MAC_CTRL_ALLMULTI));
		if (!accept) {
			vb_mac_count(m, n, EUSRV_MAC_RX_FILTERED, 1);
			continue;
		}
		vb_mac_deliver(m, n, f, len, mcast, &ri);
	}
	if (src != MAC_LINE && (mcast || !matched))
		vb_mac_line_out(m, f, len);
}

void vb_mac_line_rx(struct vb_mac *m, const uint8_t *frame, size_t len)
{
	if (!m->link) {
		vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_DROPS, 1);
		return;
	}
	if (len < EUSRV_AXIDMA_RX_CSUM_START) {
		vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_ERRORS, 1);
		return;
	}
	if (len > EUSRV_MAC_MTU_JUMBO + EUSRV_MAC_FRAME_OVERHEAD) {
		vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_OVERSIZE, 1);
		return;
	}
	vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_FRAMES, 1);
	vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_BYTES, len);
	if (frame[0] & 1)
		vb_mac_count(m, MAC_LINE, EUSRV_MAC_RX_MCAST, 1);
	vb_mac_switch_frame(m, MAC_LINE, frame, len);
}

/* Insert the checksum the APP words ask for; false if not possible. */
static bool vb_mac_tx_csum(uint8_t *f, size_t len, uint32_t app1)
{
	size_t start = app1 >> EUSRV_AXIDMA_APP1_CSUM_START_SHIFT;
	size_t ins = app1 & EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK;
	uint16_t sum;

	if (start > ins || ins + 2 > len)
		return false;
	sum = (uint16_t)~vb_mac_csum(f + start, len - start, 0);
	if (!sum)
		sum = 0xffff;
	f[ins] = (uint8_t)(sum >> 8);
	f[ins + 1] = (uint8_t)sum;
	return true;
}

/* Take one frame from node N's MM2S: 1 if it had one, else 0. */
static int vb_mac_tx_one(struct vb_mac *m, unsigned int n)
{
	uint32_t app[5] = { 0 };
	size_t len = 0, wire;
	uint32_t ctrl;
	int r;

	r = vb_axidma_tx_frame(&m->dma[n], m->txbuf, sizeof(m->txbuf), &len, app,
			       vb_mac_now_us(m));
	if (r <= 0)
		return 0;
	ctrl = vb_mac_ctrl_of(m, n);
	if (!(ctrl & EUSRV_MAC_CTRL_TX_EN) || !m->link) {
		vb_mac_count(m, n, EUSRV_MAC_TX_DROPS, 1);
		return 1;
	}
	if (len < EUSRV_AXIDMA_RX_CSUM_START) {
		vb_mac_count(m, n, EUSRV_MAC_TX_ERRORS, 1);
		return 1;
	}
	if (len > vb_mac_mtu_of(m, n) + EUSRV_MAC_FRAME_OVERHEAD ||
	    len > sizeof(m->txbuf)) {
		vb_mac_count(m, n, EUSRV_MAC_TX_OVERSIZE, 1);
		return 1;
	}
	if ((app[0] & EUSRV_AXIDMA_APP0_TX_CSUM) && (ctrl & EUSRV_MAC_CTRL_TX_CSUM)) {
		if (vb_mac_tx_csum(m->txbuf, len, app[1]))
			vb_mac_count(m, n, EUSRV_MAC_TX_CSUM, 1);
		else
			vb_mac_count(m, n, EUSRV_MAC_TX_CSUM_BAD, 1);
	}
	vb_mac_count(m, n, EUSRV_MAC_TX_FRAMES, 1);
	vb_mac_count(m, n, EUSRV_MAC_TX_BYTES, len);
	wire = len;
	if (wire < EUSRV_MAC_FRAME_MIN) {
		memset(m->txbuf + wire, 0, EUSRV_MAC_FRAME_MIN - wire);
		wire = EUSRV_MAC_FRAME_MIN;
	}
	vb_mac_switch_frame(m, n, m->txbuf, wire);
	return 1;
}

/* ---- Rounds, timers, interrupts ---------------------------------------- */

static void vb_mac_flush_shared(struct vb_mac *m)
{
	unsigned int n, i;

	if (!m->shared_dirty)
		return;
	m->shared_dirty = false;
	for (n = 0; n < m->board->nr_nodes; n++) {
		void *pg = vb_mac_page(m, n);

		if (!m->port[n].up)
			continue;
		for (i = 0; i < EUSRV_MAC_STATS_COUNT; i++) {
			wr64(pg, EUSRV_MAC_STATS_TOTAL + 8 * i, m->total[i]);
			wr64(pg, EUSRV_MAC_STATS_LINE + 8 * i, m->line[i]);
		}
	}
}

static void vb_mac_update_irqs(struct vb_mac *m)
{
	unsigned int n, ch;

	for (n = 0; n < m->board->nr_nodes; n++) {
		struct vb_mac_port *p = &m->port[n];
		uint32_t ctrl, want = 0;

		if (!p->up)
			continue;
		for (ch = 0; ch < 2; ch++)
			if (vb_axidma_update_irq(&m->dma[n], ch))
				m->ops->raise(m->opaque, n,
					      ch ? EUSRV_VEC_DMA_S2MM :
						   EUSRV_VEC_DMA_MM2S);
		if (!p->raise)
			continue;
		p->raise = false;
		ctrl = vb_mac_ctrl_of(m, n);
		if (ctrl & EUSRV_MAC_CTRL_LINK_IE)
			want |= EUSRV_MAC_SR_LINK_CHG;
		if (ctrl & EUSRV_MAC_CTRL_MDIO_IE)
			want |= EUSRV_MAC_SR_MDIO_DONE;
		if (p->sr & want)
			m->ops->raise(m->opaque, n, EUSRV_VEC_MAC);
	}
}

/* The line side cannot take a frame now (see struct vb_mac_ops). */
static bool vb_mac_line_full(struct vb_mac *m)
{
	return m->ops->line_full && m->ops->line_full(m->opaque);
}

void vb_mac_round(struct vb_mac *m)
{
	unsigned int nodes = m->board->nr_nodes, turn, i;
	bool any = true;

	m->busy = false;
	for (turn = 0; turn < MAC_TX_TURNS && any; turn++) {
		any = false;
		for (i = 0; i < nodes; i++) {
			unsigned int n = (m->rr + i) % nodes;
			struct vb_mac_port *p = &m->port[n];

			if (!p->up || !p->tx_ready)
				continue;
			/*
			 * Back-pressure: with the line full, every port keeps
			 * its frames and the next round starts with this one,
			 * so the round robin, not drops at the line, shares it.
			 */
			if (vb_mac_line_full(m)) {
				m->rr = n;
				goto out;
			}
			if (vb_mac_tx_one(m, n))
				any = true;
			else
				p->tx_ready = false;
		}
	}
	m->rr = (m->rr + 1) % nodes;
	m->busy = any;
out:
	vb_mac_flush_shared(m);
	vb_mac_update_irqs(m);
}

bool vb_mac_busy(const struct vb_mac *m)
{
	return m->busy;
}

void vb_mac_timer(struct vb_mac *m)
{
	uint64_t now = vb_mac_now_us(m);
	unsigned int n;

	for (n = 0; n < m->board->nr_nodes; n++)
		vb_axidma_timer(&m->dma[n], now);
	vb_mac_link_update(m);
	vb_mac_update_irqs(m);
}

uint64_t vb_mac_next_deadline(const struct vb_mac *m)
{
	uint64_t best = vb_phy_deadline(&m->phy), t;
	unsigned int n;

	for (n = 0; n < m->board->nr_nodes; n++) {
		t = vb_axidma_next_deadline(&m->dma[n]);
		if (t && (!best || t < best))
			best = t;
	}
	return best;
}

void vb_mac_line_peer(struct vb_mac *m, bool connected)
{
	m->peer = connected;
	m->phy.peer = connected;
	vb_mac_link_update(m);
}

void vb_mac_force_link_down(struct vb_mac *m, bool down)
{
	if (down)
		m->phy.vend_ctrl |= EUSRV_PHY_VEND_CTRL_LINK_DOWN;
	else
		m->phy.vend_ctrl &= (uint16_t)~EUSRV_PHY_VEND_CTRL_LINK_DOWN;
	vb_mac_link_update(m);
	vb_mac_update_irqs(m);
}

int vb_mac_inject(struct vb_mac *m, unsigned int node, unsigned int ch,
		  enum vb_axidma_inject_kind kind)
{
	if (node >= m->board->nr_nodes || ch > 1)
		return -EINVAL;
	vb_axidma_inject(&m->dma[node], ch, kind);
	return 0;
}
