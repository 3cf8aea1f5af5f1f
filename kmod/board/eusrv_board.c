// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_board: the virtual EUROSERVER board's ivshmem device.
 *
 * On the virtual board a node's FPGA blocks live in the ivshmem device's
 * BAR2 and interrupt through its MSI-X vectors (docs/hardware.md section 2).
 * This driver turns them into the platform devices a device tree describes
 * on real hardware: one per block, with its register page, its interrupt
 * and software-node properties, so each block's driver has one code path.
 * The only addition is the "kick" register (the ivshmem doorbell), which
 * tells the board model that a block's registers changed: this device's
 * regmap, which the blocks' drivers write (include/eusrv/vboard.h).
 */
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>
#include <linux/string.h>

#include <eusrv/board_hw.h>
#include <eusrv/vboard.h>

#define DRV_NAME		"eusrv_board"
#define EUSRV_BAR_REGS		0
#define EUSRV_BAR_SHMEM		2
#define EUSRV_BAR0_MIN_SIZE	(EUSRV_IVSHMEM_REG_DOORBELL + sizeof(u32))

/*
 * The shared NIC's platform devices: the AXI DMA engine first, then the
 * MAC port, which names the engine in "eusrv-connected" (a reference to
 * the engine's software node) as a device tree would.
 */
#define BOARD_DMA_NAME	"eusrv-axidma"
#define BOARD_ETH_NAME	"eusrv-eth"
#define EUSRV_DMA_COMPATIBLE	"eusrv,axi-dma-1.00.a"
#define EUSRV_ETH_COMPATIBLE	"eusrv,eusrv-ethernet-1.00.a"
/*
 * The port's MAC address: locally administered, unicast, 02:e5:e7:00:00
 * and the node number, the same on every boot of the board.
 */
#define EUSRV_ETH_OUI0		0x02
#define EUSRV_ETH_OUI1		0xe5
#define EUSRV_ETH_OUI2		0xe7

/* One board block: its platform device name, page and vectors. */
struct board_block {
	const char *name;
	u32 present;		/* EUSRV_BLOCK_* bit in the info page */
	u32 page;
	u32 vector;
	u32 vector2;		/* a second interrupt, if not 0 */
};

static const struct board_block board_blocks[] = {
	{
		.name = "eusrv-mbox",
		.present = EUSRV_BLOCK_MBOX,
		.page = EUSRV_PAGE_MBOX,
		.vector = EUSRV_VEC_MBOX,
	},
	{
		.name = "eusrv-cdma",
		.present = EUSRV_BLOCK_CDMA,
		.page = EUSRV_PAGE_CDMA,
		.vector = EUSRV_VEC_CDMA,
	},
	{
		/* Interrupts: MM2S, then S2MM, as Xilinx's AXI DMA binding. */
		.name = BOARD_DMA_NAME,
		.present = EUSRV_BLOCK_DMA,
		.page = EUSRV_PAGE_DMA,
		.vector = EUSRV_VEC_DMA_MM2S,
		.vector2 = EUSRV_VEC_DMA_S2MM,
	},
	{
		.name = BOARD_ETH_NAME,
		.present = EUSRV_BLOCK_MAC,
		.page = EUSRV_PAGE_MAC,
		.vector = EUSRV_VEC_MAC,
	},
};

struct board_dev {
	struct platform_device *child[ARRAY_SIZE(board_blocks)];
	u32 node_id;
	u32 nodes;
	u32 blocks;
};

/* The software node of the AXI DMA block's device, or NULL if absent. */
static const struct software_node *board_dma_swnode(struct board_dev *b)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(board_blocks); i++)
		if (b->child[i] && !strcmp(board_blocks[i].name, BOARD_DMA_NAME))
			return to_software_node(dev_fwnode(&b->child[i]->dev));
	return NULL;
}

static struct platform_device *
board_add_block(struct pci_dev *pdev, struct board_dev *b,
		const struct board_block *blk)
{
	resource_size_t shmem = pci_resource_start(pdev, EUSRV_BAR_SHMEM);
	struct resource res[] = {
		DEFINE_RES_MEM(shmem + EUSRV_NODE_WINDOW_OFF(b->node_id) + blk->page,
			       EUSRV_PAGE_SIZE),
		DEFINE_RES_IRQ(pci_irq_vector(pdev, blk->vector)),
		DEFINE_RES_IRQ(blk->vector2 ? pci_irq_vector(pdev, blk->vector2) : 0),
	};
	const u32 kicks[] = { EUSRV_KICK(blk->vector), EUSRV_KICK(blk->vector2) };
	const u8 mac[ETH_ALEN] = {
		EUSRV_ETH_OUI0, EUSRV_ETH_OUI1, EUSRV_ETH_OUI2, 0, 0, b->node_id,
	};
	/* Outside the blocks below: the properties are copied at the end. */
	struct software_node_ref_args dma_ref[1] = { };
	struct property_entry props[8] = {
		PROPERTY_ENTRY_U32("eusrv,node-id", b->node_id),
		PROPERTY_ENTRY_U32("eusrv,max-nodes", b->nodes),
	};
	unsigned int np = 2;
	struct platform_device_info info = {
		.parent = &pdev->dev,
		.name = blk->name,
		.id = PLATFORM_DEVID_AUTO,
		.res = res,
		.num_res = ARRAY_SIZE(res) - (blk->vector2 ? 0 : 1),
		.properties = props,
	};

	if (!strcmp(blk->name, BOARD_DMA_NAME)) {
		props[np++] = PROPERTY_ENTRY_STRING("compatible", EUSRV_DMA_COMPATIBLE);
		props[np++] = PROPERTY_ENTRY_U32_ARRAY("eusrv,kick", kicks);
	} else {
		props[np++] = PROPERTY_ENTRY_U32("eusrv,kick", kicks[0]);
	}
	if (!strcmp(blk->name, BOARD_ETH_NAME)) {
		dma_ref[0].node = board_dma_swnode(b);
		if (!dma_ref[0].node)
			return ERR_PTR(-ENODEV);
		props[np++] = PROPERTY_ENTRY_STRING("compatible", EUSRV_ETH_COMPATIBLE);
		props[np++] = PROPERTY_ENTRY_U8_ARRAY("local-mac-address", mac);
		props[np++] = PROPERTY_ENTRY_REF_ARRAY("eusrv-connected", dma_ref);
	}

	/* Resources and properties are copied: the stack is fine. */
	return platform_device_register_full(&info);
}

static void board_del_blocks(struct board_dev *b)
{
	unsigned int i = ARRAY_SIZE(b->child);

	while (i--) {
		platform_device_unregister(b->child[i]);
		b->child[i] = NULL;
	}
}

static int board_add_blocks(struct pci_dev *pdev, struct board_dev *b)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(board_blocks); i++) {
		const struct board_block *blk = &board_blocks[i];
		struct platform_device *child;

		if (!(b->blocks & blk->present))
			continue;
		child = board_add_block(pdev, b, blk);
		if (IS_ERR(child)) {
			ret = PTR_ERR(child);
			board_del_blocks(b);
			return dev_err_probe(&pdev->dev, ret, "cannot add block %s\n",
					     blk->name);
		}
		b->child[i] = child;
	}
	return 0;
}

/* Check this node's information page and learn the board's size. */
static int board_read_info(struct pci_dev *pdev, struct board_dev *b)
{
	u32 magic, version, node;
	void __iomem *info;

	info = pci_iomap_range(pdev, EUSRV_BAR_SHMEM,
			       EUSRV_NODE_WINDOW_OFF(b->node_id), EUSRV_PAGE_SIZE);
	if (!info)
		return dev_err_probe(&pdev->dev, -ENOMEM,
				     "node %u: cannot map the information page\n",
				     b->node_id);
	magic = readl(info + EUSRV_INFO_MAGIC);
	version = readl(info + EUSRV_INFO_VERSION);
	node = readl(info + EUSRV_INFO_NODE_ID);
	b->nodes = readl(info + EUSRV_INFO_NODE_COUNT);
	b->blocks = readl(info + EUSRV_INFO_BLOCKS);
	pci_iounmap(pdev, info);

	if (magic != EUSRV_INFO_MAGIC_VALUE || version != EUSRV_INFO_VERSION_VALUE)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "node %u: no EUROSERVER board info (magic %#x, version %u)\n",
				     b->node_id, magic, version);
	if (node != b->node_id || b->nodes == 0 || b->nodes > EUSRV_MAX_NODES ||
	    b->node_id >= b->nodes)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "node %u: information page says node %u of %u\n",
				     b->node_id, node, b->nodes);
	return 0;
}

/*
 * The doorbell: one register, written whole, from any context (the
 * blocks kick in interrupt handlers): no cache, no lock.
 */
static const struct regmap_config board_kick_config = {
	.name = EUSRV_KICK_REGMAP,
	.reg_bits = 32,
	.val_bits = 32,
	.reg_stride = 4,
	.max_register = 0,
	.disable_locking = true,
};

static int board_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct board_dev *b;
	struct regmap *kick;
	void __iomem *regs;
	int ret;

	b = devm_kzalloc(dev, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable the device\n");
	if (pci_resource_len(pdev, EUSRV_BAR_REGS) < EUSRV_BAR0_MIN_SIZE ||
	    pci_resource_len(pdev, EUSRV_BAR_SHMEM) < EUSRV_BAR2_SIZE)
		return dev_err_probe(dev, -ENODEV, "BARs too small: %pR, %pR\n",
				     &pdev->resource[EUSRV_BAR_REGS],
				     &pdev->resource[EUSRV_BAR_SHMEM]);
	/* MSI-X from ivshmem is only delivered with bus mastering on. */
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, EUSRV_NR_VECTORS, EUSRV_NR_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(dev, ret, "cannot get %u MSI-X vectors\n",
				     EUSRV_NR_VECTORS);

	/* BAR2 is left unclaimed: each block's driver claims its own page. */
	ret = pcim_iomap_regions(pdev, BIT(EUSRV_BAR_REGS), DRV_NAME);
	if (ret) {
		dev_err_probe(dev, ret, "cannot map BAR%u\n", EUSRV_BAR_REGS);
		goto free_vectors;
	}
	regs = pcim_iomap_table(pdev)[EUSRV_BAR_REGS];
	/* Before the blocks, whose drivers look it up as they bind. */
	kick = devm_regmap_init_mmio(dev, regs + EUSRV_IVSHMEM_REG_DOORBELL,
				     &board_kick_config);
	if (IS_ERR(kick)) {
		ret = dev_err_probe(dev, PTR_ERR(kick), "cannot make the kick regmap\n");
		goto free_vectors;
	}
	b->node_id = readl(regs + EUSRV_IVSHMEM_REG_IVPOSITION);
	if (b->node_id >= EUSRV_MAX_NODES) {
		ret = dev_err_probe(dev, -ENODEV, "ivshmem peer id %u is not a node\n",
				    b->node_id);
		goto free_vectors;
	}
	ret = board_read_info(pdev, b);
	if (ret)
		goto free_vectors;

	pci_set_drvdata(pdev, b);
	ret = board_add_blocks(pdev, b);
	if (ret)
		goto free_vectors;
	dev_info(dev, "EUROSERVER board: node %u of %u, blocks %#x\n",
		 b->node_id, b->nodes, b->blocks);
	return 0;

free_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void board_remove(struct pci_dev *pdev)
{
	struct board_dev *b = pci_get_drvdata(pdev);

	/* Unbinds the blocks' drivers, which free their interrupts first. */
	board_del_blocks(b);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id board_ids[] = {
	{ PCI_DEVICE(EUSRV_IVSHMEM_VENDOR, EUSRV_IVSHMEM_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, board_ids);

static struct pci_driver board_driver = {
	.name = DRV_NAME,
	.id_table = board_ids,
	.probe = board_probe,
	.remove = board_remove,
};
module_pci_driver(board_driver);

MODULE_DESCRIPTION("EUROSERVER virtual board (ivshmem) glue");
MODULE_LICENSE("GPL");
