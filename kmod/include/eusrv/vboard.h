/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every block driver reads of its place on the board, and the one
 * register the virtual board adds.  Owned by the board bridge
 * (kmod/board/eusrv_board.c), which creates the properties and the "kick"
 * resource read here; a device tree for real hardware gives the same
 * properties and no kick.
 */
#ifndef EUSRV_VBOARD_H
#define EUSRV_VBOARD_H

#include <linux/device.h>
#include <linux/io.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include <eusrv/board_hw.h>

/*
 * Map the kick register (the ivshmem doorbell, shared by all blocks: mapped,
 * never claimed) and read the value that names this block.  On real
 * hardware there is none: *KICK stays NULL and register writes act alone.
 */
static inline int eusrv_vboard_map_kick(struct platform_device *pdev,
					void __iomem **kick, u32 *kick_val)
{
	struct device *dev = &pdev->dev;
	struct resource *res;

	*kick = NULL;
	res = platform_get_resource_byname(pdev, IORESOURCE_MEM, "kick");
	if (!res || device_property_read_u32(dev, "eusrv,kick", kick_val))
		return 0;
	if (resource_size(res) < sizeof(u32))
		return dev_err_probe(dev, -EINVAL, "kick register %pR too small\n", res);
	*kick = devm_ioremap(dev, res->start, resource_size(res));
	if (!*kick)
		return dev_err_probe(dev, -ENOMEM, "cannot map kick register %pR\n", res);
	return 0;
}

static inline int eusrv_node_check(struct device *dev, u32 node_id, u32 nodes)
{
	if (nodes > EUSRV_MAX_NODES || node_id >= nodes)
		return dev_err_probe(dev, -EINVAL, "node %u of %u: impossible (max %u nodes)\n",
				     node_id, nodes, EUSRV_MAX_NODES);
	return 0;
}

/*
 * The node's number ("eusrv,node-id") and the board's size
 * ("eusrv,max-nodes"; *NODES keeps the caller's default without it).
 * -ENOENT, silently, without a node number: the caller decides whether
 * that is an error.
 */
static inline int eusrv_node_props(struct device *dev, u32 *node_id, u32 *nodes)
{
	u32 n;

	if (device_property_read_u32(dev, "eusrv,node-id", node_id))
		return -ENOENT;
	if (!device_property_read_u32(dev, "eusrv,max-nodes", &n))
		*nodes = n;
	return eusrv_node_check(dev, *node_id, *nodes);
}

#endif /* EUSRV_VBOARD_H */
