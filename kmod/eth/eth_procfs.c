// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth procfs interface (D4.2 section 3.2): /proc/eusrv-eth/<ifname>/
 * holds one file per MAC port register and per PHY register (eth_regs.h).
 * Reading a file reads the register (PHY registers over MDIO); writing a
 * value writes it where the hardware register is writable by the node,
 * and anything malformed or out of range is refused with EINVAL.  The
 * directory carries the interface's name at probe time.
 */
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "eth.h"
#include "eth_regs.h"

#define ETH_PROC_ROOT		"eusrv-eth"

#define ETH_PROC_NAME_MAX	32

struct eth_proc_file {
	struct eth_port *p;
	struct eth_reg reg;
	char name[ETH_PROC_NAME_MAX];
};

#define ETH_NR_PROC_FILES	(ETH_NR_REGS + ETH_NR_CNT_FILES)

static struct proc_dir_entry *eth_proc_root;

static ssize_t eth_proc_read(struct file *file, char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	const struct eth_proc_file *f = pde_data(file_inode(file));
	const struct eth_reg *r = &f->reg;
	char buf[32];
	int len, v;

	switch (r->kind) {
	case ETH_REG_MAC32:
		len = scnprintf(buf, sizeof(buf), "0x%08x\n", eth_mac_rd(f->p, r->off));
		break;
	case ETH_REG_MAC64:
		len = scnprintf(buf, sizeof(buf), "%llu\n", eusrv_eth_mac_rd64(f->p, r->off));
		break;
	default:
		v = eusrv_eth_phy_read(f->p, r->devad, r->off);
		if (v < 0)
			return v;
		len = scnprintf(buf, sizeof(buf), "0x%04x\n", v);
		break;
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t eth_proc_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct eth_proc_file *f = pde_data(file_inode(file));
	const struct eth_reg *r = &f->reg;
	char buf[ETH_PROC_WRITE_MAX];
	u32 val;
	int ret;

	if (*ppos || !count || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	ret = eth_reg_parse(r, buf, count, &val);
	if (ret)
		return ret;
	if (r->kind == ETH_REG_MAC32) {
		eusrv_eth_mac_write(f->p, r->off, val);
	} else if (r->kind == ETH_REG_PHY) {
		ret = eusrv_eth_phy_write(f->p, r->devad, r->off, val);
		if (ret)
			return ret;
	} else {
		return -EINVAL;
	}
	*ppos += count;
	return count;
}

static const struct proc_ops eth_proc_ops = {
	.proc_read = eth_proc_read,
	.proc_write = eth_proc_write,
	.proc_lseek = default_llseek,
};

/* The registers of eth_regs.h, then the counters of every set. */
static void eth_proc_file_init(struct eth_port *p, struct eth_proc_file *f,
			       unsigned int i)
{
	f->p = p;
	if (i < ETH_NR_REGS) {
		f->reg = eth_regs[i];
	} else {
		unsigned int set = (i - ETH_NR_REGS) / EUSRV_MAC_STATS_COUNT;
		unsigned int cnt = (i - ETH_NR_REGS) % EUSRV_MAC_STATS_COUNT;

		snprintf(f->name, sizeof(f->name), "%s_%s", eth_cnt_sets[set].prefix,
			 eth_cnt_regs[cnt]);
		f->reg.name = f->name;
		f->reg.kind = ETH_REG_MAC64;
		f->reg.off = eth_cnt_sets[set].base + 8 * cnt;
	}
}

int eusrv_eth_procfs_add(struct eth_port *p)
{
	unsigned int i;

	if (!eth_proc_root)
		return -ENOENT;
	p->proc_files = kcalloc(ETH_NR_PROC_FILES, sizeof(*p->proc_files), GFP_KERNEL);
	if (!p->proc_files)
		return -ENOMEM;
	p->proc_dir = proc_mkdir(p->ndev->name, eth_proc_root);
	if (!p->proc_dir)
		goto fail;
	for (i = 0; i < ETH_NR_PROC_FILES; i++) {
		struct eth_proc_file *f = &p->proc_files[i];

		eth_proc_file_init(p, f, i);
		if (!proc_create_data(f->reg.name, f->reg.wmask ? 0644 : 0444,
				      p->proc_dir, &eth_proc_ops, f))
			goto fail;
	}
	return 0;
fail:
	proc_remove(p->proc_dir);
	p->proc_dir = NULL;
	kfree(p->proc_files);
	p->proc_files = NULL;
	return -ENOMEM;
}

/* Waits for readers and writers in progress, so the state can go. */
void eusrv_eth_procfs_remove(struct eth_port *p)
{
	proc_remove(p->proc_dir);
	p->proc_dir = NULL;
	kfree(p->proc_files);
	p->proc_files = NULL;
}

int eusrv_eth_procfs_init(void)
{
	eth_proc_root = proc_mkdir(ETH_PROC_ROOT, NULL);
	return eth_proc_root ? 0 : -ENOMEM;
}

void eusrv_eth_procfs_exit(void)
{
	proc_remove(eth_proc_root);
	eth_proc_root = NULL;
}
