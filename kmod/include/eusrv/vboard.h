/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every block driver reads of its place on the board, and the one
 * register the virtual board adds.  Owned by the board bridge
 * (kmod/board/eusrv_board.c), which creates the properties and the "kick"
 * regmap read here; a device tree for real hardware gives the same
 * properties and no kick.
 */
#ifndef EUSRV_VBOARD_H
#define EUSRV_VBOARD_H

#include <linux/device.h>
#include <linux/io.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/regmap.h>

#include <eusrv/board_hw.h>

#define EUSRV_KICK_REGMAP	"kick"

/*
 * The kick register (the ivshmem doorbell, one for all blocks) is the board
 * bridge's regmap "kick", which its blocks write: a range several child
 * devices shared as a resource would nest in the iomem tree, and each
 * child's removal leave the others a freed parent.  Find it and read the
 * value that names this block.  On real hardware there is none: *KICK is
 * NULL and register writes act alone.
 */
static inline void eusrv_vboard_get_kick(struct platform_device *pdev,
					 struct regmap **kick, u32 *kick_val)
{
	struct device *dev = &pdev->dev;

	*kick = NULL;
	if (!dev->parent || device_property_read_u32(dev, "eusrv,kick", kick_val))
		return;
	*kick = dev_get_regmap(dev->parent, EUSRV_KICK_REGMAP);
}

/* Tell the board model that registers changed (VAL names the block). */
static inline void eusrv_vboard_kick(struct regmap *kick, u32 val)
{
	if (kick)
		regmap_write(kick, 0, val);
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
