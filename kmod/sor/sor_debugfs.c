// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor fault injection for the board suites, in debugfs:
 *
 *   /sys/kernel/debug/eusrv_sor/forget	write a connection id: this node
 *					forgets it without telling the peer
 *   /sys/kernel/debug/eusrv_sor/drop_nacks
 *					write N: the next N NACK requests
 *					this node sends are lost on the way
 *   /sys/kernel/debug/eusrv_sor/serve_delay_ms
 *					each ConnRQ waits this long before
 *					it is served (a slow server)
 *   /sys/kernel/debug/eusrv_sor/forge_addr
 *					this node's ADDR names this frame
 *					instead of its rings (a hostile
 *					server; 0: its own)
 *
 * so that a test can prove the peer never waits for ever on it (RST,
 * PROBE: docs/protocol.md sections 2 and 5), that a lost NACK is resent
 * (section 6), that a connect() a signal interrupts behaves as TCP's, and
 * that a client refuses or survives a hostile ADDR (section 7).  Root
 * only.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "sor_file.h"
#include "sor_nack.h"
#include "sor_setup.h"

static struct dentry *sor_debugfs_dir;

static ssize_t sor_forget_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	unsigned int id;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &id);
	if (ret)
		return ret;
	if (id >= EUSRV_SOR_MAX_CONNS)
		return -EINVAL;
	ret = sor_conn_forget(id);
	return ret ? ret : (ssize_t)count;
}

static const struct file_operations sor_forget_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sor_forget_write,
	.llseek = no_llseek,
};

void sor_debugfs_init(void)
{
	sor_debugfs_dir = debugfs_create_dir("eusrv_sor", NULL);
	debugfs_create_file("forget", 0200, sor_debugfs_dir, NULL,
			    &sor_forget_fops);
	debugfs_create_atomic_t("drop_nacks", 0600, sor_debugfs_dir,
				&sor_drop_nacks);
	debugfs_create_u32("serve_delay_ms", 0600, sor_debugfs_dir,
			   &sor_serve_delay_ms);
	debugfs_create_x64("forge_addr", 0600, sor_debugfs_dir,
			   &sor_forge_addr);
}

void sor_debugfs_exit(void)
{
	debugfs_remove_recursive(sor_debugfs_dir);
}
