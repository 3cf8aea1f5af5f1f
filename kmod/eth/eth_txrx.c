// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth data path: transmit with scatter-gather and the MAC's partial
 * checksum offload (APP0/APP1), byte queue limits, and one NAPI context
 * that reaps the TX ring and receives into page fragments turned into
 * skbs with build_skb, checksummed by the MAC (APP2/APP3, CHECKSUM_COMPLETE)
 * and handed to GRO.  Everything read back from a descriptor is checked
 * before use (eth_ring.h); a descriptor with an error bit stops the path
 * and leaves the rest to the error-reset task.
 *
 * Ordering: xmit publishes tx.head with a release store after filling the
 * descriptors, NAPI reads it with an acquire load before looking at them;
 * NAPI publishes tx.tail the same way for xmit's free-space check.  The
 * stopped-queue handshake uses a full barrier on both sides.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <eusrv/board_hw.h>

#include "eth.h"

#define ETH_RX_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)

u32 eusrv_eth_rx_buf_len(u32 mtu)
{
	return ETH_FRAME_MAX(mtu);
}

static u32 eth_rx_truesize(u32 buf_len)
{
	return SKB_DATA_ALIGN(ETH_RX_HEADROOM + buf_len) +
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
}

/* ---- Transmit ---------------------------------------------------------- */

static u32 eth_tx_free(struct eth_port *p)
{
	/* Pairs with the release of tx.tail in eth_tx_reclaim(). */
	u32 used = p->tx.head - smp_load_acquire(&p->tx.tail);

	return used >= p->tx.size - 1 ? 0 : p->tx.size - 1 - used;
}

static void eth_tx_unmap(struct eth_port *p, struct eth_tx_buf *b)
{
	if (b->page)
		dma_unmap_page(p->dev, b->dma, b->len, DMA_TO_DEVICE);
	else
		dma_unmap_single(p->dev, b->dma, b->len, DMA_TO_DEVICE);
	b->len = 0;
}

/* Put one buffer at ring index IDX. */
static void eth_tx_put(struct eth_port *p, u32 idx, dma_addr_t dma, u32 len,
		       bool page, u32 flags)
{
	struct eth_tx_buf *b = &p->tx_buf[eth_ring_slot(&p->tx, idx)];

	b->skb = NULL;
	b->dma = dma;
	b->len = len;
	b->page = page;
	eth_desc_fill(eth_ring_desc(&p->tx, idx), EUSRV_GA(p->node_id, dma),
		      len, flags);
}

/*
 * Hand over what earlier calls left for a later doorbell (xmit_more) when
 * this call, which was to ring it, does not queue a frame.
 */
static void eth_tx_flush(struct eth_port *p)
{
	if (!netdev_xmit_more() && p->tx.head != READ_ONCE(p->tx.tail))
		eusrv_eth_write_tail(p, ETH_TX, eth_ring_desc_ga(&p->tx, p->tx.head - 1));
}

/*
 * SKB's checksum in the descriptor's APP words where the engine can do it,
 * else in software; -1 if it cannot be had (the packet is dropped).
 */
static int eth_tx_csum(struct eth_port *p, struct sk_buff *skb, u32 *app0,
		       u32 *app1)
{
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	if (eth_tx_csum_app1(skb_checksum_start_offset(skb), skb->csum_offset,
			     app1)) {
		*app0 = EUSRV_AXIDMA_APP0_TX_CSUM;
		eth_count(p, ETH_C_TX_CSUM);
		return 0;
	}
	if (skb_checksum_help(skb))
		return -1;
	eth_count(p, ETH_C_TX_CSUM_SW);
	return 0;
}

/*
 * SKB's head and fragments mapped into descriptors from HEAD on: how many,
 * 0 if none (all empty), or -ENOMEM with nothing left mapped.
 */
static int eth_tx_map(struct eth_port *p, struct sk_buff *skb, u32 head)
{
	unsigned int nfrags = skb_shinfo(skb)->nr_frags, i;
	dma_addr_t dma;
	u32 n = 0;

	if (skb_headlen(skb)) {
		dma = dma_map_single(p->dev, skb->data, skb_headlen(skb), DMA_TO_DEVICE);
		if (dma_mapping_error(p->dev, dma))
			goto unmap;
		eth_tx_put(p, head + n++, dma, skb_headlen(skb), false, EUSRV_AXIDMA_CTRL_SOF);
	}
	for (i = 0; i < nfrags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 size = skb_frag_size(frag);

		/* A zero length is a DMA internal error: skip empty fragments. */
		if (!size)
			continue;
		dma = skb_frag_dma_map(p->dev, frag, 0, size, DMA_TO_DEVICE);
		if (dma_mapping_error(p->dev, dma))
			goto unmap;
		eth_tx_put(p, head + n, dma, size, true, n ? 0 : EUSRV_AXIDMA_CTRL_SOF);
		n++;
	}
	return n;

unmap:
	while (n--)
		eth_tx_unmap(p, &p->tx_buf[eth_ring_slot(&p->tx, head + n)]);
	eth_count(p, ETH_C_TX_MAP_ERR);
	return -ENOMEM;
}

netdev_tx_t eusrv_eth_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct eth_port *p = netdev_priv(ndev);
	unsigned int nfrags = skb_shinfo(skb)->nr_frags;
	u32 head = p->tx.head, app0 = 0, app1 = 0, len = skb->len;
	struct eusrv_axidma_desc *d;
	bool ring;
	int n;

	if (eth_tx_free(p) < nfrags + 1) {
		/* The queue is stopped before this can happen. */
		netif_stop_queue(ndev);
		eth_count(p, ETH_C_TX_BUSY);
		eusrv_eth_write_tail(p, ETH_TX, eth_ring_desc_ga(&p->tx, head - 1));
		return NETDEV_TX_BUSY;
	}
	/*
	 * The socket gets its send-buffer room back now, not at the
	 * completion interrupt: completions are coalesced, and a socket held
	 * to the completion latency by TCP small queues leaves its port's
	 * ring empty when the shared MAC's round robin comes by, so ports
	 * would not get equal shares of a congested line.  BQL still bounds
	 * what waits in the ring.
	 */
	skb_orphan(skb);
	if (eth_tx_csum(p, skb, &app0, &app1))
		goto drop;
	n = eth_tx_map(p, skb, head);
	if (n <= 0)
		goto drop;

	d = eth_ring_desc(&p->tx, head);
	d->app[0] = cpu_to_le32(app0);
	d->app[1] = cpu_to_le32(app1);
	d = eth_ring_desc(&p->tx, head + n - 1);
	d->ctrl |= cpu_to_le32(EUSRV_AXIDMA_CTRL_EOF);
	p->tx_buf[eth_ring_slot(&p->tx, head + n - 1)].skb = skb;
	skb_tx_timestamp(skb);

	/* Descriptors and bookkeeping before NAPI may see the new head. */
	smp_store_release(&p->tx.head, head + n);
	ring = __netdev_tx_sent_queue(netdev_get_tx_queue(ndev, 0), len,
				      netdev_xmit_more());
	if (eth_tx_free(p) < ETH_TX_MAX_DESC) {
		netif_stop_queue(ndev);
		/* Pairs with the barrier in eth_tx_reclaim(). */
		smp_mb();
		if (eth_tx_free(p) >= ETH_TX_MAX_DESC)
			netif_start_queue(ndev);
		else
			ring = true;
	}
	if (ring)
		eusrv_eth_write_tail(p, ETH_TX, eth_ring_desc_ga(&p->tx, head + n - 1));
	return NETDEV_TX_OK;

drop:
	atomic64_inc(&p->tx_dropped);
	dev_kfree_skb_any(skb);
	eth_tx_flush(p);
	return NETDEV_TX_OK;
}

/* Take back completed transmit descriptors, in order. */
static void eth_tx_reclaim(struct eth_port *p, int budget)
{
	unsigned int pkts = 0, bytes = 0;
	/* Pairs with the release of tx.head in eusrv_eth_start_xmit(). */
	u32 head = smp_load_acquire(&p->tx.head), tail = p->tx.tail;

	while (tail != head) {
		struct eusrv_axidma_desc *d = eth_ring_desc(&p->tx, tail);
		struct eth_tx_buf *b = &p->tx_buf[eth_ring_slot(&p->tx, tail)];
		u32 status = le32_to_cpu(READ_ONCE(d->status));
		enum eth_tx_done r = eth_tx_status(status, le32_to_cpu(d->ctrl));

		if (r == ETH_TX_BUSY)
			break;
		if (r == ETH_TX_ERROR) {
			/* The channel halted; the reset task drops the rest. */
			if (status & EUSRV_AXIDMA_ST_ERR)
				eth_count(p, ETH_C_TX_DMA_ERR);
			atomic64_inc(&p->tx_errors);
			eusrv_eth_schedule_reset(p);
			break;
		}
		eth_tx_unmap(p, b);
		if (b->skb) {
			pkts++;
			bytes += b->skb->len;
			napi_consume_skb(b->skb, budget);
			b->skb = NULL;
		}
		eth_desc_clear(d);
		tail++;
	}
	if (tail == p->tx.tail)
		return;
	/* Descriptors taken back before xmit may see them free. */
	smp_store_release(&p->tx.tail, tail);
	netdev_completed_queue(p->ndev, pkts, bytes);
	u64_stats_update_begin(&p->syncp);
	p->tx_packets += pkts;
	p->tx_bytes += bytes;
	u64_stats_update_end(&p->syncp);
	/* Pairs with the barrier in eusrv_eth_start_xmit(). */
	smp_mb();
	if (netif_queue_stopped(p->ndev) && eth_tx_free(p) >= ETH_TX_MAX_DESC)
		netif_wake_queue(p->ndev);
}

/* Drop everything on the TX ring; the engine is reset.  p->lock held. */
void eusrv_eth_tx_drain(struct eth_port *p)
{
	while (p->tx.tail != p->tx.head) {
		struct eth_tx_buf *b = &p->tx_buf[eth_ring_slot(&p->tx, p->tx.tail)];

		if (b->len)
			eth_tx_unmap(p, b);
		if (b->skb) {
			dev_kfree_skb_any(b->skb);
			b->skb = NULL;
			atomic64_inc(&p->tx_dropped);
		}
		p->tx.tail++;
	}
	netdev_reset_queue(p->ndev);
}

/* ---- Receive ----------------------------------------------------------- */

/*
 * Hand empty RX slots buffers and the engine, up to the ring's free room;
 * from NAPI (napi_alloc_frag) or from process context.  Returns how many
 * were handed over; the caller moves TAILDESC.
 */
int eusrv_eth_rx_fill(struct eth_port *p, bool napi)
{
	int n = 0;

	p->rx_truesize = eth_rx_truesize(p->rx_buf_len);
	while (eth_ring_free(&p->rx)) {
		u32 idx = p->rx.head;
		struct eth_rx_buf *b = &p->rx_buf[eth_ring_slot(&p->rx, idx)];
		void *data = napi ? napi_alloc_frag(p->rx_truesize) :
				    netdev_alloc_frag(p->rx_truesize);
		dma_addr_t dma;

		if (!data) {
			eth_count(p, ETH_C_RX_ALLOC_FAIL);
			break;
		}
		dma = dma_map_single(p->dev, data + ETH_RX_HEADROOM, p->rx_buf_len,
				     DMA_FROM_DEVICE);
		if (dma_mapping_error(p->dev, dma)) {
			skb_free_frag(data);
			eth_count(p, ETH_C_RX_ALLOC_FAIL);
			break;
		}
		b->data = data;
		b->dma = dma;
		eth_desc_fill(eth_ring_desc(&p->rx, idx), EUSRV_GA(p->node_id, dma),
			      p->rx_buf_len, 0);
		p->rx.head = idx + 1;
		n++;
	}
	return n;
}

/* Free every RX buffer; the engine is reset.  p->lock held. */
void eusrv_eth_rx_drain(struct eth_port *p)
{
	u32 i;

	for (i = 0; i < p->rx.size; i++) {
		struct eth_rx_buf *b = &p->rx_buf[i];

		if (!b->data)
			continue;
		dma_unmap_single(p->dev, b->dma, p->rx_buf_len, DMA_FROM_DEVICE);
		skb_free_frag(b->data);
		b->data = NULL;
	}
	p->rx.tail = p->rx.head;
}

static void eth_rx_csum(struct eth_port *p, struct sk_buff *skb, u32 app2, u32 app3)
{
	if (!(p->ndev->features & NETIF_F_RXCSUM) ||
	    !(app2 & EUSRV_AXIDMA_APP2_RX_CSUM_VALID))
		return;
	/* The MAC's sum of the bytes after the Ethernet header (axidma_hw.h). */
	skb->csum = csum_unfold((__force __sum16)htons(app3 & EUSRV_AXIDMA_APP3_RX_CSUM_MASK));
	skb->ip_summed = CHECKSUM_COMPLETE;
	eth_count(p, ETH_C_RX_CSUM);
}

/*
 * One receive buffer DATA taken off the ring, of LEN bytes and verdict R
 * (descriptor STATUS, checksum words APP2 and APP3): up the stack, or
 * dropped and counted.  True if it went up.
 */
static bool eth_rx_one(struct eth_port *p, u32 status, enum eth_rx_done r,
		       void *data, u32 len, u32 app2, u32 app3)
{
	struct sk_buff *skb;

	if (p->rx_skip && !(status & EUSRV_AXIDMA_ST_RXSOF)) {
		/* The rest of a frame already dropped. */
		if (status & EUSRV_AXIDMA_ST_RXEOF)
			p->rx_skip = false;
		skb_free_frag(data);
		return false;
	}
	p->rx_skip = false;
	if (r != ETH_RX_OK) {
		if (r == ETH_RX_PART) {
			eth_count(p, ETH_C_RX_PART);
			p->rx_skip = !(status & EUSRV_AXIDMA_ST_RXEOF);
		} else {
			eth_count(p, ETH_C_RX_BAD_LEN);
		}
		atomic64_inc(&p->rx_errors);
		skb_free_frag(data);
		return false;
	}
	skb = napi_build_skb(data, p->rx_truesize);
	if (!skb) {
		eth_count(p, ETH_C_RX_NO_SKB);
		atomic64_inc(&p->rx_dropped);
		skb_free_frag(data);
		return false;
	}
	skb_reserve(skb, ETH_RX_HEADROOM);
	skb_put(skb, len);
	skb->protocol = eth_type_trans(skb, p->ndev);
	eth_rx_csum(p, skb, app2, app3);
	napi_gro_receive(&p->napi, skb);
	return true;
}

static int eth_rx(struct eth_port *p, int budget)
{
	unsigned int pkts = 0, bytes = 0;
	int done = 0;

	while (done < budget && p->rx.tail != p->rx.head) {
		u32 idx = p->rx.tail;
		struct eusrv_axidma_desc *d = eth_ring_desc(&p->rx, idx);
		struct eth_rx_buf *b = &p->rx_buf[eth_ring_slot(&p->rx, idx)];
		u32 status = le32_to_cpu(READ_ONCE(d->status));
		enum eth_rx_done r;
		u32 app2, app3, len = 0;
		void *data;

		if (!(status & EUSRV_AXIDMA_ST_CMPLT))
			break;
		/* STATUS before the APP words and the data the engine wrote. */
		dma_rmb();
		r = eth_rx_status(status, le32_to_cpu(d->app[4]), p->rx_buf_len, &len);
		if (r == ETH_RX_DMA_ERROR) {
			eth_count(p, ETH_C_RX_DMA_ERR);
			atomic64_inc(&p->rx_errors);
			eusrv_eth_schedule_reset(p);
			break;
		}
		app2 = le32_to_cpu(d->app[2]);
		app3 = le32_to_cpu(d->app[3]);
		dma_unmap_single(p->dev, b->dma, p->rx_buf_len, DMA_FROM_DEVICE);
		data = b->data;
		b->data = NULL;
		eth_desc_clear(d);
		p->rx.tail = idx + 1;
		done++;

		if (eth_rx_one(p, status, r, data, len, app2, app3)) {
			pkts++;
			bytes += len;
		}
	}
	if (pkts) {
		u64_stats_update_begin(&p->syncp);
		p->rx_packets += pkts;
		p->rx_bytes += bytes;
		u64_stats_update_end(&p->syncp);
	}
	if (eusrv_eth_rx_fill(p, true))
		eusrv_eth_write_tail(p, ETH_RX, eth_ring_desc_ga(&p->rx, p->rx.head - 1));
	/* An empty ring (no memory): stay scheduled and try again. */
	if (p->rx.head == p->rx.tail)
		return budget;
	return done;
}

int eusrv_eth_poll(struct napi_struct *napi, int budget)
{
	struct eth_port *p = container_of(napi, struct eth_port, napi);
	int done, i;

	eth_tx_reclaim(p, budget);
	done = budget ? eth_rx(p, budget) : 0;
	if (done < budget && napi_complete_done(napi, done)) {
		for (i = 0; i < ETH_NR_CH; i++)
			eusrv_eth_dma_irq_mask(&p->ch[i], false);
	}
	return done;
}

/* ---- Interrupts -------------------------------------------------------- */

irqreturn_t eusrv_eth_dma_irq(int irq, void *data)
{
	struct eth_chan *c = data;
	struct eth_port *p = c->priv;
	u32 sr = eth_dma_rd(p, c->base + EUSRV_AXIDMA_SR);
	u32 irqs = sr & EUSRV_AXIDMA_SR_IRQ_ALL;

	if (!irqs)
		return IRQ_NONE;
	/* Write-1-to-clear (PG021); the virtual board learns of it by the kick. */
	eth_dma_wr(p, c->base + EUSRV_AXIDMA_SR, irqs);
	eth_kick(p, c->kick_val);
	eth_count(p, c->base == EUSRV_AXIDMA_MM2S ? ETH_C_IRQ_TX : ETH_C_IRQ_RX);

	if (irqs & EUSRV_AXIDMA_SR_ERR_IRQ) {
		eth_count(p, ETH_C_IRQ_ERR);
		eusrv_eth_schedule_reset(p);
	}
	if ((irqs & (EUSRV_AXIDMA_SR_IOC_IRQ | EUSRV_AXIDMA_SR_DLY_IRQ)) &&
	    napi_schedule_prep(&p->napi)) {
		eusrv_eth_dma_irq_mask(c, true);
		__napi_schedule(&p->napi);
	}
	return IRQ_HANDLED;
}
