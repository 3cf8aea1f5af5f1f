// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_board: the virtual EUROSERVER board's ivshmem device.
 *
 * On the virtual board a node's FPGA blocks live in the ivshmem device's
 * BAR2 and interrupt through its MSI-X vectors (docs/hardware.md section 2).
 * This driver turns them into the same platform devices a device tree
 * describes on real hardware: one per block, with its register page, its
 * interrupt and software-node properties, so each block's driver has a
 * single code path.
 */
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include <eusrv/board_hw.h>

#define DRV_NAME	"eusrv_board"

struct eusrv_board {
	struct platform_device *mbox;
	u32 node_id;
	u32 nodes;
};

/* One board block: its platform device name, page and vector. */
struct eusrv_board_block {
	const char *name;
	u32 present;		/* EUSRV_BLOCK_* */
	u32 page;
	u32 vector;
};

static const struct eusrv_board_block eusrv_mbox_block = {
	.name = "eusrv-mbox",
	.present = EUSRV_BLOCK_MBOX,
	.page = EUSRV_PAGE_MBOX,
	.vector = EUSRV_VEC_MBOX,
};

static struct platform_device *
eusrv_board_add_block(struct pci_dev *pdev, struct eusrv_board *b,
		      const struct eusrv_board_block *blk)
{
	resource_size_t bar2 = pci_resource_start(pdev, 2);
	resource_size_t bar0 = pci_resource_start(pdev, 0);
	struct resource res[] = {
		DEFINE_RES_MEM(bar2 + EUSRV_NODE_WINDOW_OFF(b->node_id) + blk->page,
			       EUSRV_PAGE_SIZE),
		DEFINE_RES_IRQ(pci_irq_vector(pdev, blk->vector)),
		DEFINE_RES_MEM_NAMED(bar0 + EUSRV_IVSHMEM_REG_DOORBELL, sizeof(u32),
				     "kick"),
	};
	const struct property_entry props[] = {
		PROPERTY_ENTRY_U32("eusrv,node-id", b->node_id),
		PROPERTY_ENTRY_U32("eusrv,max-nodes", b->nodes),
		PROPERTY_ENTRY_U32("eusrv,kick", EUSRV_KICK(blk->vector)),
		{ }
	};
	const struct platform_device_info info = {
		.parent = &pdev->dev,
		.name = blk->name,
		.id = PLATFORM_DEVID_AUTO,
		.res = res,
		.num_res = ARRAY_SIZE(res),
		.properties = props,
	};

	return platform_device_register_full(&info);
}

/* Check the node's information page and learn the board's size. */
static int eusrv_board_read_info(struct pci_dev *pdev, struct eusrv_board *b,
				 u32 *blocks)
{
	void __iomem *info;
	u32 magic, version, node;
	int ret = 0;

	info = ioremap(pci_resource_start(pdev, 2) +
		       EUSRV_NODE_WINDOW_OFF(b->node_id), EUSRV_PAGE_SIZE);
	if (!info)
		return -ENOMEM;
	magic = readl(info + EUSRV_INFO_MAGIC);
	version = readl(info + EUSRV_INFO_VERSION);
	node = readl(info + EUSRV_INFO_NODE_ID);
	b->nodes = readl(info + EUSRV_INFO_NODE_COUNT);
	*blocks = readl(info + EUSRV_INFO_BLOCKS);
	iounmap(info);

	if (magic != EUSRV_INFO_MAGIC_VALUE || version != EUSRV_INFO_VERSION_VALUE) {
		dev_err(&pdev->dev, "node %u: no EUROSERVER board (magic %#x, version %u)\n",
			b->node_id, magic, version);
		ret = -ENODEV;
	} else if (node != b->node_id || b->nodes == 0 ||
		   b->nodes > EUSRV_MAX_NODES || b->node_id >= b->nodes) {
		dev_err(&pdev->dev, "node %u: information page says node %u of %u\n",
			b->node_id, node, b->nodes);
		ret = -ENODEV;
	}
	return ret;
}

static int eusrv_board_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct eusrv_board *b;
	void __iomem *regs;
	u32 blocks;
	int ret;

	b = devm_kzalloc(&pdev->dev, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (pci_resource_len(pdev, 2) < EUSRV_BAR2_SIZE)
		return dev_err_probe(&pdev->dev, -ENODEV, "BAR2 is %llu bytes, need %u\n",
				     (u64)pci_resource_len(pdev, 2), EUSRV_BAR2_SIZE);
	/* BAR2 is left unclaimed: each block's driver claims its own page. */
	ret = pcim_iomap_regions(pdev, BIT(0), DRV_NAME);
	if (ret)
		return ret;
	regs = pcim_iomap_table(pdev)[0];
	b->node_id = readl(regs + EUSRV_IVSHMEM_REG_IVPOSITION);
	if (b->node_id >= EUSRV_MAX_NODES)
		return dev_err_probe(&pdev->dev, -ENODEV, "ivshmem peer id %u is not a node\n",
				     b->node_id);
	ret = eusrv_board_read_info(pdev, b, &blocks);
	if (ret)
		return ret;

	/* MSI-X from ivshmem is only delivered with bus mastering on. */
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, EUSRV_NR_VECTORS, EUSRV_NR_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(&pdev->dev, ret, "cannot get %u MSI-X vectors\n",
				     EUSRV_NR_VECTORS);
	pci_set_drvdata(pdev, b);

	if (blocks & eusrv_mbox_block.present) {
		b->mbox = eusrv_board_add_block(pdev, b, &eusrv_mbox_block);
		if (IS_ERR(b->mbox)) {
			ret = PTR_ERR(b->mbox);
			pci_free_irq_vectors(pdev);
			return dev_err_probe(&pdev->dev, ret, "cannot add the mailbox\n");
		}
	}
	dev_info(&pdev->dev, "EUROSERVER board: node %u of %u\n", b->node_id, b->nodes);
	return 0;
}

static void eusrv_board_remove(struct pci_dev *pdev)
{
	struct eusrv_board *b = pci_get_drvdata(pdev);

	if (b->mbox)
		platform_device_unregister(b->mbox);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id eusrv_board_ids[] = {
	{ PCI_DEVICE(EUSRV_IVSHMEM_VENDOR, EUSRV_IVSHMEM_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, eusrv_board_ids);

static struct pci_driver eusrv_board_driver = {
	.name = DRV_NAME,
	.id_table = eusrv_board_ids,
	.probe = eusrv_board_probe,
	.remove = eusrv_board_remove,
};
module_pci_driver(eusrv_board_driver);

MODULE_DESCRIPTION("EUROSERVER virtual board (ivshmem) glue");
MODULE_LICENSE("GPL");
