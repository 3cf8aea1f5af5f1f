// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth: the node's AXI DMA engine (PG021, scatter-gather mode) and
 * its two rings, docs/hardware.md "The AXI DMA engine".
 *
 * Each ring is one coherent block of 64-byte descriptors linked in a
 * circle once (eth_ring.h).  The driver hands descriptors over by writing
 * STATUS 0 and moving TAILDESC, and takes them back by their Cmplt bits;
 * CURDESC is written only when a channel starts.  A DMA error halts the
 * channel; the error-reset task then resets the engine, drops the frames
 * in flight and restarts both rings from scratch (D4.2 section 3.2).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include <eusrv/board_hw.h>

#include "eth.h"

static void eth_write_ptr(struct eth_port *p, u32 off, u64 ga)
{
	/* MSB first: the low word acts. */
	eth_dma_wr(p, off + 4, upper_32_bits(ga));
	eth_dma_wr(p, off, lower_32_bits(ga));
}

void eusrv_eth_write_tail(struct eth_port *p, enum eth_ch ch, u64 ga)
{
	struct eth_chan *c = &p->ch[ch];

	/* The descriptors are in memory before the engine may fetch them. */
	dma_wmb();
	eth_write_ptr(p, c->base + EUSRV_AXIDMA_TAILDESC, ga);
	eth_kick(p, c->kick_val);
}

/* DMACR as the channel should run now; cr_lock held. */
static u32 eth_cr(const struct eth_chan *c)
{
	u32 cr = EUSRV_AXIDMA_CR_RS | EUSRV_AXIDMA_CR_ERR_IRQEN | c->coal;

	if (!c->masked)
		cr |= EUSRV_AXIDMA_CR_IOC_IRQEN | EUSRV_AXIDMA_CR_DLY_IRQEN;
	return cr;
}

static void eth_cr_write(struct eth_port *p, struct eth_chan *c)
{
	eth_dma_wr(p, c->base + EUSRV_AXIDMA_CR, eth_cr(c));
	eth_kick(p, c->kick_val);
}

/* IOC and delay interrupts off (NAPI scheduled) or on again (NAPI done). */
void eusrv_eth_dma_irq_mask(struct eth_chan *c, bool mask)
{
	struct eth_port *p = c->priv;
	unsigned long flags;

	spin_lock_irqsave(&p->cr_lock, flags);
	if (c->masked != mask) {
		c->masked = mask;
		if (READ_ONCE(p->up))
			eth_cr_write(p, c);
	}
	spin_unlock_irqrestore(&p->cr_lock, flags);
}

/* New coalescing fields; live if the channel runs. */
void eusrv_eth_dma_set_coal(struct eth_port *p, enum eth_ch ch, u32 coal)
{
	struct eth_chan *c = &p->ch[ch];
	unsigned long flags;

	spin_lock_irqsave(&p->cr_lock, flags);
	c->coal = coal;
	if (READ_ONCE(p->up))
		eth_cr_write(p, c);
	spin_unlock_irqrestore(&p->cr_lock, flags);
}

/*
 * Soft reset of both channels (PG021): the engine drops what it had in
 * flight and rewrites DMACR, CURDESC and TAILDESC; nothing is written
 * until DMACR.Reset reads 0 again.
 */
int eusrv_eth_dma_reset(struct eth_port *p)
{
	u32 cr = 0;
	int ret, i;

	eth_dma_wr(p, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CR, EUSRV_AXIDMA_CR_RESET);
	eth_kick(p, p->ch[ETH_TX].kick_val);
	for (i = 0; i < ETH_NR_CH; i++) {
		ret = readl_poll_timeout(p->dma + p->ch[i].base + EUSRV_AXIDMA_CR, cr,
					 !(cr & EUSRV_AXIDMA_CR_RESET), 20,
					 ETH_RESET_TIMEOUT_US);
		if (ret) {
			netdev_err(p->ndev, "AXI DMA reset did not complete (DMACR %#x)\n",
				   cr);
			return ret;
		}
	}
	return 0;
}

/*
 * Start both channels at their rings' tails (CURDESC, then DMACR.RS) and
 * hand over what the rings hold.  After a reset, p->lock held.
 */
void eusrv_eth_dma_start(struct eth_port *p)
{
	unsigned long flags;
	int i;

	eth_write_ptr(p, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_CURDESC,
		      eth_ring_desc_ga(&p->tx, p->tx.tail));
	eth_write_ptr(p, EUSRV_AXIDMA_S2MM + EUSRV_AXIDMA_CURDESC,
		      eth_ring_desc_ga(&p->rx, p->rx.tail));
	spin_lock_irqsave(&p->cr_lock, flags);
	for (i = 0; i < ETH_NR_CH; i++) {
		p->ch[i].masked = false;
		eth_cr_write(p, &p->ch[i]);
	}
	spin_unlock_irqrestore(&p->cr_lock, flags);
	if (p->rx.head != p->rx.tail)
		eusrv_eth_write_tail(p, ETH_RX, eth_ring_desc_ga(&p->rx, p->rx.head - 1));
	if (p->tx.head != p->tx.tail)
		eusrv_eth_write_tail(p, ETH_TX, eth_ring_desc_ga(&p->tx, p->tx.head - 1));
}

static void *eth_desc_alloc(struct eth_port *p, u32 n, dma_addr_t *dma)
{
	void *d = dma_alloc_coherent(p->dev, n * sizeof(struct eusrv_axidma_desc), dma,
				     GFP_KERNEL);

	if (d && (*dma & (EUSRV_AXIDMA_DESC_ALIGN - 1))) {
		netdev_err(p->ndev, "descriptor ring at %pad is not 64-byte aligned\n", dma);
		dma_free_coherent(p->dev, n * sizeof(struct eusrv_axidma_desc), d, *dma);
		return NULL;
	}
	return d;
}

/* Both rings at their configured sizes, the RX ring filled; p->lock held. */
int eusrv_eth_rings_alloc(struct eth_port *p)
{
	struct eusrv_axidma_desc *txd, *rxd;

	p->tx_buf = kcalloc(p->tx_ring_size, sizeof(*p->tx_buf), GFP_KERNEL);
	p->rx_buf = kcalloc(p->rx_ring_size, sizeof(*p->rx_buf), GFP_KERNEL);
	txd = eth_desc_alloc(p, p->tx_ring_size, &p->tx_desc_dma);
	rxd = eth_desc_alloc(p, p->rx_ring_size, &p->rx_desc_dma);
	if (!p->tx_buf || !p->rx_buf || !txd || !rxd) {
		if (txd)
			dma_free_coherent(p->dev, p->tx_ring_size * sizeof(*txd), txd,
					  p->tx_desc_dma);
		if (rxd)
			dma_free_coherent(p->dev, p->rx_ring_size * sizeof(*rxd), rxd,
					  p->rx_desc_dma);
		kfree(p->tx_buf);
		kfree(p->rx_buf);
		p->tx_buf = NULL;
		p->rx_buf = NULL;
		return -ENOMEM;
	}
	eth_ring_init(&p->tx, txd, EUSRV_GA(p->node_id, p->tx_desc_dma),
		      p->tx_ring_size);
	eth_ring_init(&p->rx, rxd, EUSRV_GA(p->node_id, p->rx_desc_dma),
		      p->rx_ring_size);
	p->rx_buf_len = eusrv_eth_rx_buf_len(p->ndev->mtu);
	p->rx_skip = false;
	if (!eusrv_eth_rx_fill(p, false)) {
		eusrv_eth_rings_free(p);
		return -ENOMEM;
	}
	return 0;
}

/* Everything the rings hold freed; the engine is reset.  p->lock held. */
void eusrv_eth_rings_free(struct eth_port *p)
{
	if (!p->tx.desc)
		return;
	eusrv_eth_tx_drain(p);
	eusrv_eth_rx_drain(p);
	dma_free_coherent(p->dev, p->tx.size * sizeof(struct eusrv_axidma_desc),
			  p->tx.desc, p->tx_desc_dma);
	dma_free_coherent(p->dev, p->rx.size * sizeof(struct eusrv_axidma_desc),
			  p->rx.desc, p->rx_desc_dma);
	p->tx.desc = NULL;
	p->rx.desc = NULL;
	kfree(p->tx_buf);
	kfree(p->rx_buf);
	p->tx_buf = NULL;
	p->rx_buf = NULL;
}

void eusrv_eth_schedule_reset(struct eth_port *p)
{
	if (READ_ONCE(p->up))
		schedule_work(&p->reset_work);
}

/*
 * The error-reset task: a channel halted on an error (or transmission
 * timed out).  Stop the data path, reset the engine, drop what was in
 * flight, rebuild both rings and start again.
 */
void eusrv_eth_reset_work(struct work_struct *work)
{
	struct eth_port *p = container_of(work, struct eth_port, reset_work);
	struct net_device *ndev = p->ndev;
	int i;

	mutex_lock(&p->lock);
	if (!p->up)
		goto out;
	for (i = 0; i < ETH_NR_CH; i++)
		p->last_err_sr[i] = eth_dma_rd(p, p->ch[i].base + EUSRV_AXIDMA_SR);
	netdev_warn(ndev, "AXI DMA error (MM2S DMASR %#x, S2MM DMASR %#x): resetting the rings\n",
		    p->last_err_sr[ETH_TX], p->last_err_sr[ETH_RX]);
	netif_tx_disable(ndev);
	for (i = 0; i < ETH_NR_CH; i++)
		disable_irq(p->ch[i].irq);
	napi_disable(&p->napi);

	if (eusrv_eth_dma_reset(p)) {
		/*
		 * The engine does not come out of reset: leave the queue
		 * stopped; the transmit watchdog tries again.
		 */
		napi_enable(&p->napi);
		for (i = 0; i < ETH_NR_CH; i++)
			enable_irq(p->ch[i].irq);
		goto out;
	}
	eusrv_eth_tx_drain(p);
	eusrv_eth_rx_drain(p);
	eth_ring_init(&p->tx, p->tx.desc, p->tx.ga, p->tx.size);
	eth_ring_init(&p->rx, p->rx.desc, p->rx.ga, p->rx.size);
	p->rx_skip = false;
	eusrv_eth_rx_fill(p, false);
	eth_count(p, ETH_C_DMA_RESETS);

	napi_enable(&p->napi);
	for (i = 0; i < ETH_NR_CH; i++)
		enable_irq(p->ch[i].irq);
	eusrv_eth_dma_start(p);
	netif_tx_wake_all_queues(ndev);
	/* Frames that arrived while the interrupts were off. */
	local_bh_disable();
	napi_schedule(&p->napi);
	local_bh_enable();
out:
	mutex_unlock(&p->lock);
}
