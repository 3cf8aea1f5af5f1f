/*
 * Unit tests of the shared NIC's blocks (qemu/model/axidma.c, mac.c,
 * phy.c) on a real board (board.c, RAM files in a temporary directory),
 * driven by a fake driver that builds PG021 descriptor rings in node RAM:
 * TX -> RX between nodes, SOF/EOF spanning, the address filter, checksum
 * offload against a reference, counters, coalescing, every error kind with
 * halt and reset, RX exhaustion, MDIO and the link, loopback, oversize,
 * round-robin fairness, line back-pressure, and hostile descriptors.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <eusrv/axidma_hw.h>
#include <eusrv/board_hw.h>
#include <eusrv/mac_hw.h>

#include "board.h"
#include "log.h"
#include "mac.h"
#include "regs.h"
#include "tap.h"

#define NODES		4U
#define RAM		(16U << 20)
#define TX_RING		0x10000U
#define RX_RING		0x20000U
#define TX_BUF		0x100000U
#define RX_BUF		0x400000U
#define TX_BUF_SZ	0x4000U
#define NDESC		64U
#define MAXLINE		4096U

static struct board board;
static struct vb_mac mac;
static uint64_t now = 1000000;
static unsigned int irqs[EUSRV_MAX_NODES][EUSRV_NR_VECTORS];
static unsigned int line_n;
static unsigned int line_src[MAXLINE];
static size_t line_len[MAXLINE];
static uint8_t line_last[16384];
static bool line_ok = true;
/* Frames the line takes before it reports full; -1: never full. */
static int line_room = -1;

static void f_raise(void *o, unsigned int node, unsigned int vector)
{
	(void)o;
	irqs[node][vector]++;
}

static bool f_line_send(void *o, const uint8_t *f, size_t len)
{
	(void)o;
	if (!line_ok)
		return false;
	if (line_room > 0)
		line_room--;
	if (line_n < MAXLINE) {
		line_src[line_n] = f[11];	/* source MAC's last byte */
		line_len[line_n] = len;
	}
	line_n++;
	memcpy(line_last, f, len < sizeof(line_last) ? len : sizeof(line_last));
	return true;
}

static uint64_t f_now(void *o)
{
	(void)o;
	return now;
}

static bool f_line_full(void *o)
{
	(void)o;
	return line_room == 0;
}

static const struct vb_mac_ops ops = {
	.raise = f_raise, .line_send = f_line_send, .now_us = f_now,
	.line_full = f_line_full,
};

/* ---- The fake driver --------------------------------------------------- */

struct drv {
	unsigned int tx_tail;		/* next TX descriptor to fill */
	unsigned int rx_next;		/* next RX descriptor to read */
	unsigned int rx_posted;		/* RX descriptors handed over */
	uint32_t rx_buf_len;
	uint32_t clr_seq[2];
	uint16_t mdio_seq;
} drv[NODES];

static uint8_t *ram(unsigned int n, uint64_t phys)
{
	return (uint8_t *)board.nodes[n].ram + phys;
}

static void *dpage(unsigned int n)
{
	return board_page(&board, n, EUSRV_PAGE_DMA);
}

static void *mpage(unsigned int n)
{
	return board_page(&board, n, EUSRV_PAGE_MAC);
}

static uint8_t *desc(unsigned int n, bool rx, unsigned int i)
{
	return ram(n, (rx ? RX_RING : TX_RING) + (i % NDESC) * 64U);
}

static uint64_t desc_ga(unsigned int n, bool rx, unsigned int i)
{
	return EUSRV_GA(n, (rx ? RX_RING : TX_RING) + (i % NDESC) * 64U);
}

static void d32(uint8_t *d, uint32_t off, uint32_t v)
{
	v = htole32(v);
	memcpy(d + off, &v, 4);
}

static uint32_t g32(const uint8_t *d, uint32_t off)
{
	uint32_t v;

	memcpy(&v, d + off, 4);
	return le32toh(v);
}

static void set_addr(uint8_t *d, uint32_t off, uint64_t ga)
{
	d32(d, off, (uint32_t)ga);
	d32(d, off + 4, (uint32_t)(ga >> 32));
}

static void wr_addr(unsigned int n, uint32_t off, uint64_t ga)
{
	wr32(dpage(n), off + 4, (uint32_t)(ga >> 32));
	wr32(dpage(n), off, (uint32_t)ga);
}

static void kick(unsigned int n, unsigned int v)
{
	vb_mac_kick(&mac, n, v);
}

static void round_(void)
{
	vb_mac_round(&mac);
}

static void rounds(unsigned int k)
{
	while (k--)
		vb_mac_round(&mac);
}

static uint32_t sr(unsigned int n, bool rx)
{
	return rd32(dpage(n), (rx ? EUSRV_AXIDMA_S2MM : EUSRV_AXIDMA_MM2S) + EUSRV_AXIDMA_SR);
}

static uint64_t pst(unsigned int n, uint32_t off)
{
	return rd64(mpage(n), EUSRV_MAC_STATS_PORT + off);
}

static uint64_t tst(uint32_t off)
{
	return rd64(mpage(0), EUSRV_MAC_STATS_TOTAL + off);
}

static uint64_t lst(uint32_t off)
{
	return rd64(mpage(0), EUSRV_MAC_STATS_LINE + off);
}

static void mac_addr(unsigned int n, uint8_t a[6])
{
	static const uint8_t base[6] = { 0x02, 0x00, 0x1a, 0x12, 0x34, 0x00 };

	memcpy(a, base, 6);
	a[5] = (uint8_t)n;
}

static void port_on(unsigned int n, uint32_t extra)
{
	uint8_t a[6];

	mac_addr(n, a);
	wr32(mpage(n), EUSRV_MAC_ADDR_LO, a[0] | a[1] << 8 | a[2] << 16 |
	     (uint32_t)a[3] << 24);
	wr32(mpage(n), EUSRV_MAC_ADDR_HI, a[4] | a[5] << 8);
	wr32(mpage(n), EUSRV_MAC_MTU, 1500);
	wr32(mpage(n), EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_RX_EN | EUSRV_MAC_CTRL_TX_EN |
	     EUSRV_MAC_CTRL_ALLMULTI | EUSRV_MAC_CTRL_LINK_IE |
	     EUSRV_MAC_CTRL_MDIO_IE | extra);
	kick(n, EUSRV_VEC_MAC);
}

static void set_cr(unsigned int n, bool rx, uint32_t cr)
{
	wr32(dpage(n), (rx ? EUSRV_AXIDMA_S2MM : EUSRV_AXIDMA_MM2S) + EUSRV_AXIDMA_CR, cr);
	kick(n, rx ? EUSRV_VEC_DMA_S2MM : EUSRV_VEC_DMA_MM2S);
}

#define CR_ON	(EUSRV_AXIDMA_CR_RS | EUSRV_AXIDMA_CR_IOC_IRQEN | EUSRV_AXIDMA_CR_ERR_IRQEN | \
		 EUSRV_AXIDMA_CR_DLY_IRQEN | (1U << EUSRV_AXIDMA_CR_THRESH_SHIFT))

/* Reset the engine and build both rings (RX buffers of BUFLEN bytes). */
static void dma_setup(unsigned int n, uint32_t buflen, unsigned int rx_post)
{
	unsigned int i;
	int b;

	memset(&drv[n], 0, sizeof(drv[n]));
	wr32(dpage(n), EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR, EUSRV_AXIDMA_CR_RESET);
	kick(n, EUSRV_VEC_DMA_MM2S);
	for (b = 0; b < 2; b++) {
		for (i = 0; i < NDESC; i++) {
			uint8_t *d = desc(n, b, i);

			memset(d, 0, 64);
			set_addr(d, EUSRV_AXIDMA_DESC_NEXT, desc_ga(n, b, i + 1));
			if (b)
				set_addr(d, EUSRV_AXIDMA_DESC_BUF,
					 EUSRV_GA(n, RX_BUF + i * 0x4000U));
			if (b)
				d32(d, EUSRV_AXIDMA_DESC_CTRL, buflen);
		}
		wr_addr(n, (b ? EUSRV_AXIDMA_S2MM : EUSRV_AXIDMA_MM2S) + EUSRV_AXIDMA_CURDESC,
			desc_ga(n, b, 0));
	}
	drv[n].rx_buf_len = buflen;
	set_cr(n, false, CR_ON);
	set_cr(n, true, CR_ON);
	if (rx_post) {
		drv[n].rx_posted = rx_post;
		wr_addr(n, EUSRV_AXIDMA_S2MM + EUSRV_AXIDMA_TAILDESC,
			desc_ga(n, true, rx_post - 1));
		kick(n, EUSRV_VEC_DMA_S2MM);
	}
}

/* Hand RX descriptors back (status 0) up to rx_next and re-post. */
static void rx_recycle(unsigned int n)
{
	unsigned int i;

	for (i = drv[n].rx_posted - NDESC > drv[n].rx_posted ? 0 :
		 drv[n].rx_posted - NDESC; i < drv[n].rx_next; i++)
		d32(desc(n, true, i), EUSRV_AXIDMA_DESC_STATUS, 0);
	/* One descriptor stays unused: the same TAILDESC resumes nothing. */
	drv[n].rx_posted = drv[n].rx_next + NDESC - 1;
	wr_addr(n, EUSRV_AXIDMA_S2MM + EUSRV_AXIDMA_TAILDESC,
		desc_ga(n, true, drv[n].rx_posted - 1));
	kick(n, EUSRV_VEC_DMA_S2MM);
}

/* Queue a frame in NFRAG descriptors; APP0/APP1 on the first. */
static void tx_queue(unsigned int n, const uint8_t *f, size_t len,
		     unsigned int nfrag, uint32_t app0, uint32_t app1)
{
	size_t off = 0, per = (len + nfrag - 1) / nfrag;
	unsigned int k;

	for (k = 0; k < nfrag; k++) {
		unsigned int i = drv[n].tx_tail++;
		uint8_t *d = desc(n, false, i);
		size_t chunk = len - off < per ? len - off : per;
		uint64_t buf = TX_BUF + (i % NDESC) * TX_BUF_SZ;
		uint32_t ctrl = (uint32_t)chunk;

		memcpy(ram(n, buf), f + off, chunk);
		set_addr(d, EUSRV_AXIDMA_DESC_BUF, EUSRV_GA(n, buf));
		if (k == 0)
			ctrl |= EUSRV_AXIDMA_CTRL_SOF;
		if (k == nfrag - 1)
			ctrl |= EUSRV_AXIDMA_CTRL_EOF;
		d32(d, EUSRV_AXIDMA_DESC_CTRL, ctrl);
		d32(d, EUSRV_AXIDMA_DESC_STATUS, 0);
		d32(d, EUSRV_AXIDMA_DESC_APP(0), k == 0 ? app0 : 0);
		d32(d, EUSRV_AXIDMA_DESC_APP(1), k == 0 ? app1 : 0);
		off += chunk;
	}
}

static void tx_go(unsigned int n)
{
	wr_addr(n, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_TAILDESC,
		desc_ga(n, false, drv[n].tx_tail - 1));
	kick(n, EUSRV_VEC_DMA_MM2S);
}

static void tx_send(unsigned int n, const uint8_t *f, size_t len,
		    unsigned int nfrag)
{
	tx_queue(n, f, len, nfrag, 0, 0);
	tx_go(n);
	round_();
}

/* Receive the next frame on N into BUF: its length, or -1 if none. */
static long rx_get(unsigned int n, uint8_t *buf, size_t cap,
		   unsigned int *ndesc, uint32_t app[5])
{
	size_t got = 0;
	unsigned int k = 0;

	for (;;) {
		uint8_t *d = desc(n, true, drv[n].rx_next);
		uint32_t st = g32(d, EUSRV_AXIDMA_DESC_STATUS);
		uint32_t blen = st & EUSRV_AXIDMA_ST_LEN;
		unsigned int a;

		if (!(st & EUSRV_AXIDMA_ST_CMPLT))
			return k ? -2 : -1;
		if ((k == 0) != !!(st & EUSRV_AXIDMA_ST_RXSOF))
			return -3;
		if (got + blen <= cap)
			memcpy(buf + got, ram(n, RX_BUF + (drv[n].rx_next % NDESC) *
					       0x4000U), blen);
		got += blen;
		drv[n].rx_next++;
		k++;
		if (st & EUSRV_AXIDMA_ST_RXEOF) {
			if (app)
				for (a = 0; a < 5; a++)
					app[a] = g32(d, EUSRV_AXIDMA_DESC_APP(a));
			if (ndesc)
				*ndesc = k;
			return (long)got;
		}
	}
}

static void frame(uint8_t *f, size_t len, unsigned int src, const uint8_t dst[6],
		  uint8_t fill)
{
	size_t i;

	memcpy(f, dst, 6);
	mac_addr(src, f + 6);
	f[12] = 0x88;
	f[13] = 0xb5;		/* local experimental ethertype */
	for (i = 14; i < len; i++)
		f[i] = (uint8_t)(fill + i * 7);
}

/* PG021's acknowledgement, as the driver makes it: 1s to DMASR, a kick. */
static void ack(unsigned int n, bool rx, uint32_t bits)
{
	wr32(dpage(n), (rx ? EUSRV_AXIDMA_S2MM : EUSRV_AXIDMA_MM2S) + EUSRV_AXIDMA_SR, bits);
	kick(n, rx ? EUSRV_VEC_DMA_S2MM : EUSRV_VEC_DMA_MM2S);
}

/* The virtual board's own acknowledgement: SR_CLR, SR_CLR_SEQ, a kick. */
static void ack_vb(unsigned int n, bool rx, uint32_t bits)
{
	uint32_t vb = rx ? EUSRV_AXIDMA_VB_S2MM : EUSRV_AXIDMA_VB_MM2S;

	wr32(dpage(n), vb + EUSRV_AXIDMA_VB_SR_CLR, bits);
	wr32(dpage(n), vb + EUSRV_AXIDMA_VB_SR_CLR_SEQ, ++drv[n].clr_seq[rx]);
	kick(n, rx ? EUSRV_VEC_DMA_S2MM : EUSRV_VEC_DMA_MM2S);
}

/* ---- MDIO -------------------------------------------------------------- */

static int mdio(unsigned int n, unsigned int op, unsigned int prtad,
		unsigned int devad, unsigned int reg, uint16_t wdata,
		uint16_t *rdata)
{
	uint16_t seq = ++drv[n].mdio_seq;
	uint32_t done;

	wr32(mpage(n), EUSRV_MAC_MDIO_ADDR, EUSRV_MAC_MDIO_ADDR_VAL(prtad, devad, reg));
	wr32(mpage(n), EUSRV_MAC_MDIO_WDATA, wdata);
	wr32(mpage(n), EUSRV_MAC_MDIO_CMD, EUSRV_MAC_MDIO_CMD_VAL(op, seq));
	kick(n, EUSRV_VEC_MAC);
	round_();
	done = rd32(mpage(n), EUSRV_MAC_MDIO_DONE);
	if ((done & EUSRV_MAC_MDIO_DONE_SEQ_MASK) != seq)
		return -2;
	if (rdata)
		*rdata = (uint16_t)rd32(mpage(n), EUSRV_MAC_MDIO_RDATA);
	return done & EUSRV_MAC_MDIO_DONE_ERR ? -1 : 0;
}

static uint16_t phy_rd(unsigned int devad, unsigned int reg)
{
	uint16_t v = 0xdead;

	if (mdio(0, EUSRV_MAC_MDIO_OP_ADDR_READ, 0, devad, reg, 0, &v))
		return 0xdead;
	return v;
}

static void phy_wr(unsigned int devad, unsigned int reg, uint16_t v)
{
	mdio(0, EUSRV_MAC_MDIO_OP_ADDR_WRITE, 0, devad, reg, v, NULL);
}

/* ---- Reference checksum (independent of mac.c) ------------------------- */

static uint32_t ref_sum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	while (len > 1) {
		s += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		s += (uint32_t)p[0] << 8;
	return s;
}

static uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* An IPv4/UDP frame of LEN bytes to DST; the UDP checksum field gets SEED. */
static size_t udp_frame(uint8_t *f, size_t len, unsigned int src,
			const uint8_t dst[6], bool seed)
{
	size_t ip = 14, udp = 34, i, ulen = len - udp;
	uint32_t ps;

	frame(f, len, src, dst, 0x5a);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + ip, 0, 20);
	f[ip] = 0x45;
	f[ip + 2] = (uint8_t)((len - ip) >> 8);
	f[ip + 3] = (uint8_t)(len - ip);
	f[ip + 8] = 64;
	f[ip + 9] = 17;
	f[ip + 12] = 198; f[ip + 13] = 19; f[ip + 14] = 1; f[ip + 15] = 10;
	f[ip + 16] = 198; f[ip + 17] = 19; f[ip + 18] = 1; f[ip + 19] = 11;
	f[udp] = 0x30; f[udp + 1] = 0x39;
	f[udp + 2] = 0x04; f[udp + 3] = 0xd2;
	f[udp + 4] = (uint8_t)(ulen >> 8);
	f[udp + 5] = (uint8_t)ulen;
	f[udp + 6] = f[udp + 7] = 0;
	for (i = udp + 8; i < len; i++)
		f[i] = (uint8_t)(i * 13 + 1);
	/* pseudo header: addresses, protocol, UDP length */
	ps = ref_sum(f + ip + 12, 8) + 17 + (uint32_t)ulen;
	if (seed) {
		uint16_t s = ref_fold(ps);

		f[udp + 6] = (uint8_t)(s >> 8);
		f[udp + 7] = (uint8_t)s;
	}
	return udp + 6;
}

/* ---- Tests ------------------------------------------------------------- */

static void setup_all(void)
{
	unsigned int n;

	for (n = 0; n < NODES; n++) {
		vb_mac_attach(&mac, n);
		port_on(n, EUSRV_MAC_CTRL_TX_CSUM | EUSRV_MAC_CTRL_RX_CSUM);
		dma_setup(n, 2048, NDESC);
	}
	round_();
}

static void test_attach(void)
{
	ok(rd32(mpage(1), EUSRV_MAC_ID) == EUSRV_MAC_ID_VALUE &&
	   (rd32(mpage(1), EUSRV_MAC_PORT) & 0xff) == 1 &&
	   rd32(mpage(1), EUSRV_MAC_MTU_MAX) == 9000,
	   "MAC port page: ID, port number, MTU_MAX");
	ok(rd32(mpage(1), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP,
	   "link up after attach");
	ok(!(sr(1, false) & EUSRV_AXIDMA_SR_HALTED) && (sr(1, false) & EUSRV_AXIDMA_SR_SGINCLD) &&
	   rd32(dpage(1), EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR) == CR_ON,
	   "DMA running after reset and RS (SGIncld set)");
	ok(rd32(board_page(&board, 0, 0), EUSRV_INFO_BLOCKS) &
	   (EUSRV_BLOCK_DMA | EUSRV_BLOCK_MAC), "info page names DMA and MAC");
}

static void test_unicast(void)
{
	uint8_t f[1000], got[16384], d1[6];
	uint32_t app[5];
	unsigned int nd;
	long len;
	uint32_t before = irqs[1][EUSRV_VEC_DMA_S2MM];

	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 1);
	tx_send(0, f, sizeof(f), 1);
	len = rx_get(1, got, sizeof(got), &nd, app);
	ok(len == (long)sizeof(f) && !memcmp(got, f, sizeof(f)) && nd == 1,
	   "node0 -> node1: 1000-byte frame arrives intact in one descriptor");
	ok(app[4] == sizeof(f) && (app[2] & EUSRV_AXIDMA_APP2_RX_CSUM_VALID),
	   "RX APP4 = length, APP2 checksum valid");
	ok(g32(desc(0, false, 0), EUSRV_AXIDMA_DESC_STATUS) == (EUSRV_AXIDMA_ST_CMPLT | 1000),
	   "TX descriptor status: Cmplt | 1000");
	ok(rx_get(2, got, sizeof(got), NULL, NULL) == -1 &&
	   pst(2, EUSRV_MAC_RX_FILTERED) == 1,
	   "node2 does not get node1's unicast (filtered, counted)");
	ok(pst(0, EUSRV_MAC_TX_FRAMES) == 1 && pst(0, EUSRV_MAC_TX_BYTES) == 1000 &&
	   pst(1, EUSRV_MAC_RX_FRAMES) == 1 && pst(1, EUSRV_MAC_RX_BYTES) == 1000 &&
	   tst(EUSRV_MAC_TX_FRAMES) == 1 && tst(EUSRV_MAC_RX_FRAMES) == 1,
	   "per-port and total counters");
	ok(irqs[1][EUSRV_VEC_DMA_S2MM] == before + 1 &&
	   (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ), "S2MM IOC interrupt raised");
	ok(line_n == 0, "a unicast for a port does not go to the line");
	ack(1, true, EUSRV_AXIDMA_SR_IOC_IRQ);
	ack(0, false, EUSRV_AXIDMA_SR_IOC_IRQ);
	round_();
	ok(!(sr(1, true) & EUSRV_AXIDMA_SR_IRQ_ALL) && (sr(1, true) & EUSRV_AXIDMA_SR_SGINCLD),
	   "a write of 1s to DMASR clears IOC_Irq; DMASR reads as the model's again");
}

/*
 * The two acknowledgements: PG021's (1s written to DMASR) always, the
 * virtual board's SR_CLR registers only without --axidma-pg021.
 */
static void test_ack(void)
{
	const uint32_t bad_cnt = EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_BAD_CNT;
	const uint32_t bad_last = EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_BAD_LAST;
	uint8_t f[200], got[4096], d1[6];
	uint32_t bad;

	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 3);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == (long)sizeof(f) &&
	   (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ), "ack: a frame to node1 sets its S2MM IOC_Irq");
	ack_vb(1, true, EUSRV_AXIDMA_SR_IOC_IRQ);
	ok(!(sr(1, true) & EUSRV_AXIDMA_SR_IRQ_ALL), "ack: SR_CLR/SEQ clears IOC_Irq");

	board.axidma_pg021 = true;
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == (long)sizeof(f) &&
	   (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ), "ack, PG021 only: IOC_Irq set again");
	bad = rd32(dpage(1), bad_cnt);
	ack_vb(1, true, EUSRV_AXIDMA_SR_IOC_IRQ);
	ok((sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ) && rd32(dpage(1), bad_cnt) == bad + 1 &&
	   rd32(dpage(1), bad_last) == EUSRV_AXIDMA_BAD_VB_ACK,
	   "ack, PG021 only: SR_CLR is a programming error and clears nothing");
	ack(1, true, EUSRV_AXIDMA_SR_IOC_IRQ | EUSRV_AXIDMA_SR_IDLE);
	ok(!(sr(1, true) & EUSRV_AXIDMA_SR_IRQ_ALL) && (sr(1, true) & EUSRV_AXIDMA_SR_SGINCLD) &&
	   rd32(dpage(1), bad_last) == EUSRV_AXIDMA_BAD_SR_W1C,
	   "ack, PG021 only: 1s to DMASR clear; a bit outside 14:12 is reported");
	/* Written, not yet kicked: the model's next write of DMASR applies it. */
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == (long)sizeof(f) &&
	   (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ), "ack, PG021 only: IOC_Irq set again");
	wr32(dpage(1), EUSRV_AXIDMA_S2MM + EUSRV_AXIDMA_SR, EUSRV_AXIDMA_SR_IOC_IRQ);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == (long)sizeof(f) &&
	   (sr(1, true) & EUSRV_AXIDMA_SR_SGINCLD) && (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ),
	   "an ack not yet kicked, then a frame: the ack applied, the new IOC_Irq kept");
	ack(1, true, EUSRV_AXIDMA_SR_IOC_IRQ);
	ack(0, false, EUSRV_AXIDMA_SR_IRQ_ALL);
	board.axidma_pg021 = false;
}

static void test_spanning(void)
{
	uint8_t f[3000], got[16384], d1[6];
	unsigned int nd = 0;
	long len;

	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 3);
	/* node1 with 512-byte RX buffers */
	wr32(mpage(0), EUSRV_MAC_MTU, 9000);
	wr32(mpage(1), EUSRV_MAC_MTU, 9000);
	dma_setup(1, 512, NDESC);
	tx_send(0, f, sizeof(f), 4);
	len = rx_get(1, got, sizeof(got), &nd, NULL);
	ok(len == 3000 && nd == 6 && !memcmp(got, f, 3000),
	   "4 TX descriptors SOF..EOF -> 6 RX descriptors RXSOF..RXEOF, data intact");
	ok(g32(desc(1, true, 0), EUSRV_AXIDMA_DESC_STATUS) ==
	   (EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_RXSOF | 512) &&
	   g32(desc(1, true, 5), EUSRV_AXIDMA_DESC_STATUS) ==
	   (EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_RXEOF | (3000 - 5 * 512)),
	   "RXSOF on the first, RXEOF and the rest length on the last");
	/* incomplete frame waits for its EOF */
	tx_queue(0, f, 1000, 2, 0, 0);
	wr_addr(0, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_TAILDESC, desc_ga(0, false, drv[0].tx_tail - 2));
	kick(0, EUSRV_VEC_DMA_MM2S);
	round_();
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == -1, "a frame without its EOF descriptor waits");
	tx_go(0);
	round_();
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 1000, "and goes once TAILDESC covers it");
	wr32(mpage(0), EUSRV_MAC_MTU, 1500);
	wr32(mpage(1), EUSRV_MAC_MTU, 1500);
	dma_setup(1, 2048, NDESC);
	dma_setup(0, 2048, NDESC);
}

static void test_filter(void)
{
	uint8_t f[100], got[4096], bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t mc[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint8_t other[6] = { 0x02, 0x99, 0x99, 0x99, 0x99, 0x99 };
	unsigned int l0 = line_n, n;
	bool all = true;

	frame(f, sizeof(f), 0, bc, 5);
	tx_send(0, f, sizeof(f), 1);
	for (n = 1; n < NODES; n++)
		all = all && rx_get(n, got, sizeof(got), NULL, NULL) == 100;
	ok(all && line_n == l0 + 1 && rx_get(0, got, sizeof(got), NULL, NULL) == -1,
	   "broadcast: every other port and the line, not the sender");
	/* multicast: node2 without ALLMULTI */
	wr32(mpage(2), EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_RX_EN | EUSRV_MAC_CTRL_TX_EN);
	frame(f, sizeof(f), 0, mc, 6);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100 &&
	   rx_get(2, got, sizeof(got), NULL, NULL) == -1 &&
	   pst(1, EUSRV_MAC_RX_MCAST) == 2, "multicast only to ALLMULTI ports");
	/* promiscuous node2 sees a unicast to node1 and unknown unicast */
	wr32(mpage(2), EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_RX_EN | EUSRV_MAC_CTRL_TX_EN |
	     EUSRV_MAC_CTRL_PROMISC);
	mac_addr(1, mc);
	frame(f, sizeof(f), 0, mc, 7);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100 &&
	   rx_get(2, got, sizeof(got), NULL, NULL) == 100, "promiscuous port sees others' unicast");
	l0 = line_n;
	frame(f, sizeof(f), 0, other, 8);
	tx_send(0, f, sizeof(f), 1);
	ok(line_n == l0 + 1 && rx_get(2, got, sizeof(got), NULL, NULL) == 100 &&
	   rx_get(1, got, sizeof(got), NULL, NULL) == -1,
	   "unknown unicast goes to the line (and the promiscuous port)");
	/* RX disabled */
	while (rx_get(3, got, sizeof(got), NULL, NULL) >= 0)
		;
	wr32(mpage(3), EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_TX_EN);
	frame(f, sizeof(f), 0, bc, 9);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(3, got, sizeof(got), NULL, NULL) == -1 && pst(3, EUSRV_MAC_RX_DROPS) == 1,
	   "RX disabled port: dropped, counted");
	for (n = 1; n < NODES; n++) {
		while (rx_get(n, got, sizeof(got), NULL, NULL) >= 0)
			;
		port_on(n, EUSRV_MAC_CTRL_TX_CSUM | EUSRV_MAC_CTRL_RX_CSUM);
	}
	/* from the line */
	mac_addr(2, mc);
	frame(f, sizeof(f), 9, mc, 10);
	vb_mac_line_rx(&mac, f, sizeof(f));
	ok(rx_get(2, got, sizeof(got), NULL, NULL) == 100 &&
	   rx_get(1, got, sizeof(got), NULL, NULL) == -1, "a frame from the line reaches its port only");
}

static void test_csum(void)
{
	uint8_t f[1200], got[4096], d1[6];
	uint32_t app[5], s;
	size_t ins;
	long len;
	uint16_t want, csum_field;

	mac_addr(1, d1);
	ins = udp_frame(f, sizeof(f), 0, d1, true);
	tx_queue(0, f, sizeof(f), 3, EUSRV_AXIDMA_APP0_TX_CSUM, (34U << 16) | (uint32_t)ins);
	tx_go(0);
	round_();
	len = rx_get(1, got, sizeof(got), NULL, app);
	/* reference: pseudo header + UDP with a zero checksum field */
	udp_frame(f, sizeof(f), 0, d1, false);
	s = ref_sum(f + 26, 8) + 17 + (uint32_t)(sizeof(f) - 34) +
	    ref_sum(f + 34, sizeof(f) - 34);
	want = (uint16_t)~ref_fold(s);
	if (!want)
		want = 0xffff;
	csum_field = (uint16_t)(got[ins] << 8 | got[ins + 1]);
	ok(len == (long)sizeof(f) && csum_field == want,
	   "TX checksum offload: UDP checksum %#x = reference %#x", csum_field, want);
	/* verify: the whole UDP datagram + pseudo header sums to 0xffff */
	s = ref_sum(got + 26, 8) + 17 + (uint32_t)(sizeof(f) - 34) +
	    ref_sum(got + 34, sizeof(f) - 34);
	ok(ref_fold(s) == 0xffff, "received datagram verifies");
	ok((app[3] & 0xffff) == ref_fold(ref_sum(got + 14, sizeof(f) - 14)),
	   "RX APP3 = ones'-complement sum from offset 14 (%#x)", app[3]);
	ok(pst(0, EUSRV_MAC_TX_CSUM) == 1, "TX_CSUM counted");
	/* bad request */
	tx_queue(0, f, 100, 1, EUSRV_AXIDMA_APP0_TX_CSUM, (50U << 16) | 40U);
	tx_go(0);
	round_();
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100 &&
	   pst(0, EUSRV_MAC_TX_CSUM_BAD) == 1, "bad checksum request: sent unchanged, counted");
	/* offload disabled: request ignored */
	port_on(0, 0);
	ins = udp_frame(f, sizeof(f), 0, d1, true);
	tx_queue(0, f, sizeof(f), 1, EUSRV_AXIDMA_APP0_TX_CSUM, (34U << 16) | (uint32_t)ins);
	tx_go(0);
	round_();
	rx_get(1, got, sizeof(got), NULL, NULL);
	ok(!memcmp(got, f, sizeof(f)), "CTRL.TX_CSUM clear: no insertion");
	port_on(0, EUSRV_MAC_CTRL_TX_CSUM | EUSRV_MAC_CTRL_RX_CSUM);
	/* short frame padded to 60 */
	tx_send(0, f, 42, 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 60 && pst(0, EUSRV_MAC_TX_BYTES) > 0,
	   "a 42-byte frame is padded to 60");
}

static void test_coalesce(void)
{
	uint8_t f[100], got[4096], d1[6];
	unsigned int i, base;

	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 1);
	dma_setup(1, 2048, NDESC);
	set_cr(1, true, EUSRV_AXIDMA_CR_RS | EUSRV_AXIDMA_CR_IOC_IRQEN | EUSRV_AXIDMA_CR_DLY_IRQEN |
	       (4U << EUSRV_AXIDMA_CR_THRESH_SHIFT) | (10U << EUSRV_AXIDMA_CR_DELAY_SHIFT));
	round_();
	base = irqs[1][EUSRV_VEC_DMA_S2MM];
	for (i = 0; i < 3; i++)
		tx_send(0, f, sizeof(f), 1);
	ok(irqs[1][EUSRV_VEC_DMA_S2MM] == base && !(sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ) &&
	   ((sr(1, true) & EUSRV_AXIDMA_SR_THRESH_MASK) >> EUSRV_AXIDMA_SR_THRESH_SHIFT) == 1,
	   "threshold 4: no interrupt after 3 frames (counter at 1)");
	tx_send(0, f, sizeof(f), 1);
	ok(irqs[1][EUSRV_VEC_DMA_S2MM] == base + 1 && (sr(1, true) & EUSRV_AXIDMA_SR_IOC_IRQ),
	   "interrupt at the 4th");
	ack(1, true, EUSRV_AXIDMA_SR_IRQ_ALL);
	tx_send(0, f, sizeof(f), 1);
	now += 9;
	vb_mac_timer(&mac);
	ok(!(sr(1, true) & EUSRV_AXIDMA_SR_DLY_IRQ), "delay 10 us: nothing after 9 us");
	now += 1;
	vb_mac_timer(&mac);
	ok((sr(1, true) & EUSRV_AXIDMA_SR_DLY_IRQ) && irqs[1][EUSRV_VEC_DMA_S2MM] == base + 2,
	   "Dly_Irq after 10 us, interrupt raised");
	ok(vb_mac_next_deadline(&mac) == 0, "no timer left");
	while (rx_get(1, got, sizeof(got), NULL, NULL) >= 0)
		;
	dma_setup(1, 2048, NDESC);
}

static void test_errors(void)
{
	uint8_t f[100], got[4096], d1[6];
	uint32_t s;

	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 1);

	/* SGDecErr: CURDESC in node 2's RAM */
	wr32(dpage(0), EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR, EUSRV_AXIDMA_CR_RESET);
	kick(0, EUSRV_VEC_DMA_MM2S);
	ok(rd32(dpage(0), EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR) == EUSRV_AXIDMA_CR_RESET_VALUE &&
	   rd32(dpage(0), EUSRV_AXIDMA_S2MM + EUSRV_AXIDMA_CR) == EUSRV_AXIDMA_CR_RESET_VALUE &&
	   (sr(0, true) & EUSRV_AXIDMA_SR_HALTED), "reset: both channels halted, DMACR reset value");
	wr_addr(0, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CURDESC, EUSRV_GA(2, TX_RING));
	set_cr(0, false, CR_ON);
	wr_addr(0, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_TAILDESC, EUSRV_GA(2, TX_RING));
	kick(0, EUSRV_VEC_DMA_MM2S);
	round_();
	s = sr(0, false);
	ok((s & EUSRV_AXIDMA_SR_SG_DEC_ERR) && (s & EUSRV_AXIDMA_SR_HALTED) && (s & EUSRV_AXIDMA_SR_ERR_IRQ),
	   "descriptor in another node's RAM: SGDecErr, halted, Err_Irq");

	/* DMADecErr: buffer in a register window */
	dma_setup(0, 2048, 0);
	tx_queue(0, f, sizeof(f), 1, 0, 0);
	set_addr(desc(0, false, 0), EUSRV_AXIDMA_DESC_BUF, EUSRV_GA(0, EUSRV_GA_BLOCKS));
	tx_go(0);
	round_();
	ok((sr(0, false) & EUSRV_AXIDMA_SR_DMA_DEC_ERR) &&
	   (g32(desc(0, false, 0), EUSRV_AXIDMA_DESC_STATUS) & EUSRV_AXIDMA_ST_DECERR),
	   "buffer outside own RAM: DMADecErr in DMASR and STATUS");
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == -1, "halted channel sends nothing until reset");

	/* DMAIntErr: zero length */
	dma_setup(0, 2048, 0);
	tx_queue(0, f, sizeof(f), 1, 0, 0);
	d32(desc(0, false, 0), EUSRV_AXIDMA_DESC_CTRL, EUSRV_AXIDMA_CTRL_SOF | EUSRV_AXIDMA_CTRL_EOF);
	tx_go(0);
	round_();
	ok(sr(0, false) & EUSRV_AXIDMA_SR_DMA_INT_ERR, "zero length: DMAIntErr");

	/* SGIntErr: stale Cmplt */
	dma_setup(0, 2048, 0);
	tx_queue(0, f, sizeof(f), 1, 0, 0);
	d32(desc(0, false, 0), EUSRV_AXIDMA_DESC_STATUS, EUSRV_AXIDMA_ST_CMPLT);
	tx_go(0);
	round_();
	ok(sr(0, false) & EUSRV_AXIDMA_SR_SG_INT_ERR, "descriptor with Cmplt set: SGIntErr");

	/* after reset all is well */
	dma_setup(0, 2048, 0);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100 && !(sr(0, false) & EUSRV_AXIDMA_SR_ERR_ALL),
	   "reset recovers the channel");

	/* injected S2MM error */
	vb_mac_inject(&mac, 1, VB_AXIDMA_RX, VB_AXIDMA_INJ_DMA_SLV);
	tx_send(0, f, sizeof(f), 1);
	ok((sr(1, true) & EUSRV_AXIDMA_SR_DMA_SLV_ERR) && (sr(1, true) & EUSRV_AXIDMA_SR_HALTED) &&
	   pst(1, EUSRV_MAC_RX_ERRORS) == 1 &&
	   rd32(dpage(1), EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_INJ_CNT) == 1,
	   "injected S2MM error: DMASlvErr, halted, RX_ERRORS");
	tx_send(0, f, sizeof(f), 1);
	ok(pst(1, EUSRV_MAC_RX_NODESC) == 1, "halted S2MM: frames dropped as NODESC");
	drv[1].rx_next = 0;
	dma_setup(1, 2048, NDESC);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100, "S2MM works again after reset");
	vb_mac_inject(&mac, 0, VB_AXIDMA_TX, VB_AXIDMA_INJ_SG_DEC);
	tx_send(0, f, sizeof(f), 1);
	ok((sr(0, false) & EUSRV_AXIDMA_SR_SG_DEC_ERR) && rx_get(1, got, sizeof(got), NULL, NULL) == -1,
	   "injected MM2S SGDecErr");
	dma_setup(0, 2048, 0);
	/* programming errors */
	s = rd32(dpage(0), EUSRV_AXIDMA_BAD_CNT);
	set_cr(0, false, CR_ON | EUSRV_AXIDMA_CR_CYCLIC);
	ok(rd32(dpage(0), EUSRV_AXIDMA_BAD_CNT) == s + 1, "unsupported DMACR bit: BAD_CNT");
	set_cr(0, false, CR_ON);
}

static void test_exhaustion(void)
{
	uint8_t f[200], got[4096], d1[6], bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned int i, n;
	uint64_t nodesc = pst(1, EUSRV_MAC_RX_NODESC);

	mac_addr(1, d1);
	dma_setup(1, 2048, 4);
	dma_setup(2, 2048, NDESC);
	for (i = 0; i < 10; i++) {
		frame(f, sizeof(f), 0, d1, (uint8_t)i);
		tx_queue(0, f, sizeof(f), 1, 0, 0);
	}
	frame(f, sizeof(f), 0, bc, 0x77);
	tx_queue(0, f, sizeof(f), 1, 0, 0);
	tx_go(0);
	rounds(2);
	for (n = 0; rx_get(1, got, sizeof(got), NULL, NULL) >= 0; n++)
		;
	ok(n == 4 && pst(1, EUSRV_MAC_RX_NODESC) == nodesc + 7,
	   "4 free descriptors: 4 frames delivered, the other 7 dropped as NODESC");
	ok(rx_get(2, got, sizeof(got), NULL, NULL) == 200 && got[20] == (uint8_t)(0x77 + 20 * 7),
	   "another port still gets its frame");
	rx_recycle(1);
	frame(f, sizeof(f), 0, d1, 1);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 200, "receive resumes after re-posting");
}

static void test_mdio_link(void)
{
	uint16_t v;
	unsigned int n, base = irqs[1][EUSRV_VEC_MAC];
	uint8_t f[100], got[4096], d1[6];

	ok(phy_rd(1, 2) == EUSRV_PHY_DEVID1 && phy_rd(1, 3) == EUSRV_PHY_DEVID2 &&
	   phy_rd(3, 2) == EUSRV_PHY_DEVID1, "PHY identifiers in PMA/PMD and PCS");
	ok(phy_rd(1, 4) == 1 && phy_rd(1, 7) == 7 && phy_rd(3, 8) == 0x8001 &&
	   phy_rd(1, 8) == 0x8081 && phy_rd(1, 5) == 0x000a,
	   "10G ability, 10GBASE-SR, status 2, devices in package");
	phy_rd(1, 1);
	ok(phy_rd(1, 1) & 0x0004, "PMA status 1: link");
	ok(phy_rd(3, 32) & 0x1000, "PCS 10GBASE-R status 1: receive link");
	ok(mdio(0, EUSRV_MAC_MDIO_OP_ADDR_READ, 5, 1, 1, 0, &v) == -1 && v == 0xffff,
	   "another PHY address: error, 0xffff");
	ok(mdio(0, EUSRV_MAC_MDIO_OP_ADDR_READ, 0, 2, 1, 0, &v) == -1, "absent MMD: error");
	ok(mdio(0, 7, 0, 1, 1, 0, &v) == -1 && rd32(mpage(0), EUSRV_MAC_BAD_LAST) ==
	   EUSRV_MAC_BAD_MDIO_OP, "reserved op: error and BAD");
	mdio(0, EUSRV_MAC_MDIO_OP_ADDRESS, 0, 1, 2, 0, NULL);
	mdio(0, EUSRV_MAC_MDIO_OP_READ_INC, 0, 1, 0, 0, &v);
	ok(v == EUSRV_PHY_DEVID1 && !mdio(0, EUSRV_MAC_MDIO_OP_READ, 0, 1, 0, 0, &v) &&
	   v == EUSRV_PHY_DEVID2, "clause-45 ADDRESS, READ_INC, READ");

	phy_wr(30, 0, EUSRV_PHY_VEND_CTRL_LINK_DOWN);
	ok(!(rd32(mpage(1), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP) &&
	   (rd32(mpage(1), EUSRV_MAC_SR) & EUSRV_MAC_SR_LINK_CHG) &&
	   irqs[1][EUSRV_VEC_MAC] > base && rd32(mpage(1), EUSRV_MAC_LINK_CHANGES) == 1,
	   "vendor LINK_DOWN: every port's LINK down, LINK_CHG, interrupt");
	mac_addr(1, d1);
	frame(f, sizeof(f), 0, d1, 1);
	tx_send(0, f, sizeof(f), 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == -1 && pst(0, EUSRV_MAC_TX_DROPS) == 1,
	   "link down: frames dropped, TX_DROPS");
	phy_wr(30, 0, 0);
	ok(!(phy_rd(1, 1) & 0x0004) && (phy_rd(1, 1) & 0x0004),
	   "PMA link status latches low until read");
	ok(rd32(mpage(2), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP, "link up again");
	/* low power */
	phy_wr(1, 0, 0x0800);
	ok(!(rd32(mpage(2), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP), "PMA low power: link down");
	phy_wr(1, 0, 0);
	/* reset: down for 20 ms */
	phy_wr(1, 0, 0x8000);
	ok(!(rd32(mpage(2), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP) && (phy_rd(1, 0) & 0x8000),
	   "PHY reset: link down, reset bit reads 1");
	now += EUSRV_PHY_RESET_MS * 1000;
	vb_mac_timer(&mac);
	ok((rd32(mpage(2), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP) && phy_rd(1, 0) == 0x2040,
	   "after 20 ms: link up, control 1 back to default");
	/* W1C of SR */
	for (n = 0; n < NODES; n++) {
		wr32(mpage(n), EUSRV_MAC_SR_CLR, EUSRV_MAC_SR_ALL);
		wr32(mpage(n), EUSRV_MAC_SR_CLR_SEQ, rd32(mpage(n), EUSRV_MAC_SR_CLR_SEQ) + 1);
		kick(n, EUSRV_VEC_MAC);
	}
	ok(rd32(mpage(1), EUSRV_MAC_SR) == 0, "SR cleared through SR_CLR/SEQ");
	/* loopback: a broadcast comes back from the line */
	phy_wr(3, 0, 0x4000);
	ok(rd32(mpage(0), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_LOOPBACK, "PCS loopback shown in LINK");
	{
		uint8_t other[6] = { 0x02, 0x99, 0x99, 0x99, 0x99, 0x98 };
		unsigned int l0 = line_n;

		mac_addr(1, other);
		other[5] = 0x42;	/* nobody's */
		dma_setup(0, 2048, NDESC);
		frame(f, sizeof(f), 0, other, 2);
		wr32(mpage(0), EUSRV_MAC_CTRL, rd32(mpage(0), EUSRV_MAC_CTRL) |
		     EUSRV_MAC_CTRL_PROMISC);
		tx_send(0, f, sizeof(f), 1);
		ok(line_n == l0 && rx_get(0, got, sizeof(got), NULL, NULL) == 100 &&
		   !memcmp(got, f, 100), "loopback: a frame to the line returns to the MAC");
		port_on(0, EUSRV_MAC_CTRL_TX_CSUM | EUSRV_MAC_CTRL_RX_CSUM);
	}
	phy_wr(3, 0, 0);
	vb_mac_force_link_down(&mac, true);
	ok(!(rd32(mpage(3), EUSRV_MAC_LINK) & EUSRV_MAC_LINK_UP), "control hook: link down");
	vb_mac_force_link_down(&mac, false);
}

static void test_oversize(void)
{
	static uint8_t f[9018], got[16384];
	uint8_t d1[6];

	mac_addr(1, d1);
	frame(f, 1600, 0, d1, 1);
	tx_send(0, f, 1600, 1);
	ok(pst(0, EUSRV_MAC_TX_OVERSIZE) == 1 && rx_get(1, got, sizeof(got), NULL, NULL) == -1,
	   "1600 bytes with MTU 1500: TX_OVERSIZE");
	wr32(mpage(0), EUSRV_MAC_MTU, 9000);
	wr32(mpage(1), EUSRV_MAC_MTU, 9000);
	dma_setup(1, 9018, NDESC);
	frame(f, 9018, 0, d1, 2);
	tx_send(0, f, 9018, 3);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 9018 && !memcmp(got, f, 9018),
	   "jumbo: 9018-byte frame with MTU 9000");
	wr32(mpage(1), EUSRV_MAC_MTU, 1500);
	tx_send(0, f, 2000, 1);
	ok(pst(1, EUSRV_MAC_RX_OVERSIZE) == 1, "receiver MTU 1500: RX_OVERSIZE");
	wr32(mpage(1), EUSRV_MAC_MTU, 20000);
	kick(1, EUSRV_VEC_MAC);
	ok(rd32(mpage(1), EUSRV_MAC_BAD_LAST) == EUSRV_MAC_BAD_MTU, "MTU out of range: BAD");
	wr32(mpage(0), EUSRV_MAC_MTU, 1500);
	wr32(mpage(1), EUSRV_MAC_MTU, 1500);
	dma_setup(1, 2048, NDESC);
}

static void test_fairness(void)
{
	uint8_t f[200], other[6] = { 0x02, 0x77, 0x77, 0x77, 0x77, 0x77 };
	unsigned int n, i, l0, cnt[NODES] = { 0 };
	bool fair = true;

	for (n = 0; n < 3; n++) {
		dma_setup(n, 2048, NDESC);
		frame(f, sizeof(f), n, other, (uint8_t)n);
		for (i = 0; i < NDESC - 4; i++)
			tx_queue(n, f, sizeof(f), 1, 0, 0);
	}
	l0 = line_n;
	for (n = 0; n < 3; n++) {
		wr_addr(n, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_TAILDESC, desc_ga(n, false, drv[n].tx_tail - 1));
		kick(n, EUSRV_VEC_DMA_MM2S);
	}
	round_();
	ok(line_n - l0 == 3 * MAC_TX_TURNS && vb_mac_busy(&mac),
	   "one round: %u turns x 3 backlogged ports (%u frames), more pending",
	   MAC_TX_TURNS, line_n - l0);
	rounds(10);
	for (i = l0; i < line_n && i < MAXLINE; i++) {
		unsigned int a = 0, b;

		cnt[line_src[i]]++;
		for (n = 0; n < 3; n++)
			for (b = 0; b < 3; b++)
				if (cnt[n] > cnt[b] + 1)
					a = 1;
		if (a)
			fair = false;
	}
	ok(fair && cnt[0] == NDESC - 4 && cnt[1] == NDESC - 4 && cnt[2] == NDESC - 4,
	   "round robin: in every prefix the per-node counts differ by at most 1 (%u/%u/%u)",
	   cnt[0], cnt[1], cnt[2]);
	line_ok = false;
	l0 = (unsigned int)lst(EUSRV_MAC_TX_DROPS);
	dma_setup(0, 2048, NDESC);
	tx_send(0, f, sizeof(f), 1);
	ok(lst(EUSRV_MAC_TX_DROPS) == l0 + 1, "line peer cannot take it: line TX_DROPS");
	line_ok = true;
}

/* A full line keeps frames in the ports' rings; the round robin resumes. */
static void test_backpressure(void)
{
	uint8_t f[200], other[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	unsigned int n, i, l0, first, cnt[NODES] = { 0 };
	uint64_t drops = lst(EUSRV_MAC_TX_DROPS);
	bool order = true;

	for (n = 0; n < 3; n++) {
		dma_setup(n, 2048, NDESC);
		frame(f, sizeof(f), n, other, (uint8_t)n);
		for (i = 0; i < 10; i++)
			tx_queue(n, f, sizeof(f), 1, 0, 0);
	}
	l0 = line_n;
	line_room = 0;
	for (n = 0; n < 3; n++)
		tx_go(n);
	rounds(3);
	ok(line_n == l0 && !vb_mac_busy(&mac) &&
	   !(g32(desc(0, false, drv[0].tx_tail - 10), EUSRV_AXIDMA_DESC_STATUS) & EUSRV_AXIDMA_ST_CMPLT),
	   "line full: no frame taken, none completed, the loop may sleep");
	line_room = 5;
	rounds(2);
	ok(line_n == l0 + 5, "room for 5: 5 frames, then blocked again (%u)", line_n - l0);
	line_room = 4;
	rounds(2);
	first = line_src[l0];
	for (i = 0; i < 9; i++)
		if (line_src[l0 + i] != (first + i) % 3)
			order = false;
	ok(line_n == l0 + 9 && order,
	   "the round robin goes on with the port it stopped at (strict rotation over 9 frames)");
	line_room = -1;
	rounds(10);
	for (i = l0; i < line_n && i < MAXLINE; i++)
		cnt[line_src[i]]++;
	ok(cnt[0] == 10 && cnt[1] == 10 && cnt[2] == 10 && lst(EUSRV_MAC_TX_DROPS) == drops,
	   "line free again: every frame out, none dropped (%u/%u/%u)", cnt[0], cnt[1], cnt[2]);
}

static uint32_t rnd(void)
{
	static uint32_t x = 0x12345678;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void test_hostile(void)
{
	unsigned int i, k, refused = 0;
	uint8_t f[300], got[16384];
	uint8_t d1[6];

	for (i = 0; i < 3000; i++) {
		unsigned int n = rnd() % NODES;
		uint32_t off = (rnd() % 0x40) & ~3U;

		/* garbage in registers, descriptors and the MAC page */
		switch (rnd() % 6) {
		case 0:
			wr32(dpage(n), off, rnd());
			break;
		case 1:
			for (k = 0; k < 4; k++)
				d32(desc(n, rnd() & 1, rnd() % NDESC), (rnd() % 16) * 4, rnd());
			break;
		case 2:
			wr32(mpage(n), (rnd() % 0x60) & ~3U, rnd());
			break;
		case 3:
			wr32(dpage(n), EUSRV_AXIDMA_VB_MM2S + (rnd() % 0x40 & ~3U), rnd());
			break;
		case 4:
			mac_addr(rnd() % NODES, d1);
			frame(f, 14 + rnd() % 280, n, d1, 1);
			vb_mac_line_rx(&mac, f, 14 + rnd() % 280);
			break;
		default:
			break;
		}
		kick(n, 2 + rnd() % 4);
		if (rnd() % 8 == 0) {
			now += rnd() % 100;
			vb_mac_timer(&mac);
		}
		round_();
		for (k = 0; k < 2; k++)
			if (rd32(dpage(n), (k ? EUSRV_AXIDMA_S2MM : EUSRV_AXIDMA_MM2S) + EUSRV_AXIDMA_SR) &
			    EUSRV_AXIDMA_SR_ERR_ALL)
				refused++;
	}
	/* Surviving is the point (ASan runs this too); the engines must also
	 * have said no to some of the garbage rather than obeyed it.
	 */
	ok(refused > 0, "3000 rounds of hostile registers, descriptors and frames: "
	   "no crash, %u error states seen", refused);
	for (i = 0; i < NODES; i++) {
		port_on(i, 0);
		dma_setup(i, 2048, NDESC);
	}
	mac_addr(1, d1);
	frame(f, 100, 0, d1, 1);
	tx_send(0, f, 100, 1);
	ok(rx_get(1, got, sizeof(got), NULL, NULL) == 100, "and the blocks still work after a reset");
	vb_mac_detach(&mac, 1);
	tx_send(0, f, 100, 1);
	vb_mac_attach(&mac, 1);
	ok(rd32(dpage(1), EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR) == 0 && rd32(mpage(1), EUSRV_MAC_CTRL) == 0,
	   "detach and attach: the node's pages start from reset");
}

int main(void)
{
	char dir[] = "/tmp/eusrv-test-nic.XXXXXX";

	log_set_level(LOG_ERR);
	if (!mkdtemp(dir))
		tap_bail("mkdtemp");
	if (board_init(&board, dir, NODES, RAM))
		tap_bail("board_init");
	vb_mac_init(&mac, &board, &ops, NULL);
	vb_mac_line_peer(&mac, true);
	setup_all();
	test_attach();
	test_unicast();
	test_ack();
	test_spanning();
	test_filter();
	test_csum();
	test_coalesce();
	test_errors();
	test_exhaustion();
	test_mdio_link();
	test_oversize();
	test_fairness();
	test_backpressure();
	test_hostile();
	board_fini(&board, true);
	rmdir(dir);
	return tap_done();
}
