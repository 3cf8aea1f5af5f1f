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
 *   /sys/kernel/debug/eusrv_sor/inject	write "NODE MSG": MSG (a 64-bit
 *					mailbox word, 0x for hex) goes as
 *					it is to NODE's mailbox, from this
 *					node; the send's error if any
 *   /sys/kernel/debug/eusrv_sor/inject_write
 *					write "ID OFFSET VALUE": this
 *					node's engine stores the 32-bit
 *					VALUE at byte OFFSET (4-aligned)
 *					of the peer's receive block of our
 *					connection ID (header, kernel page,
 *					data); waits for the store, gives
 *					its error if any
 *
 * so that a test can prove the peer never waits for ever on it (RST,
 * PROBE: docs/protocol.md sections 2 and 5), that a lost NACK is resent
 * (section 6), that a connect() a signal interrupts behaves as TCP's, and
 * that a client refuses or survives a hostile ADDR, and a peer survives a
 * rogue node's messages and engine writes (section 7).  inject_write
 * takes only a connection that is open, has the peer's address and has
 * not begun its end (ENOTCONN else): only then is the peer sure to hold
 * the block still, so that the store lands in the peer's ring, never in
 * memory the peer freed.  Root only.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <eusrv/cdma.h>
#include <eusrv/mbox.h>

#include "sor_file.h"
#include "sor_mem.h"
#include "sor_nack.h"
#include "sor_retire.h"
#include "sor_serve.h"

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
	ret = sor_retire_forget(id);
	return ret ? ret : (ssize_t)count;
}

static const struct file_operations sor_forget_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sor_forget_write,
	.llseek = no_llseek,
};

/* How long an injection waits for room in the mailbox or the engine. */
#define SOR_INJECT_TIMEOUT_MS	200U
/* "ID OFFSET VALUE" and the like: room for three 64-bit numbers in hex. */
#define SOR_INJECT_LEN		80U

/*
 * The N numbers of a write (base 0: 0x for hex), separated by blanks:
 * exactly N, nothing else.  -EINVAL for anything else.
 */
static int sor_inject_nums(const char __user *ubuf, size_t count, u64 *v,
			   unsigned int n)
{
	char buf[SOR_INJECT_LEN], *p, *tok;
	unsigned int i = 0;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	p = strim(buf);
	while ((tok = strsep(&p, " \t"))) {
		if (!*tok)
			continue;
		if (i == n || kstrtou64(tok, 0, &v[i]))
			return -EINVAL;
		i++;
	}
	return i == n ? 0 : -EINVAL;
}

/* inject: "NODE MSG", MSG sent as it is from this node to NODE. */
static ssize_t sor_inject_msg_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	u64 v[2];
	int ret;

	ret = sor_inject_nums(buf, count, v, 2);
	if (ret)
		return ret;
	if (v[0] >= eusrv_mbox_nodes() || !eusrv_msg_type(v[1]))
		return -EINVAL;
	ret = eusrv_mbox_send_wait((unsigned int)v[0], v[1],
				   msecs_to_jiffies(SOR_INJECT_TIMEOUT_MS));
	return ret ? ret : (ssize_t)count;
}

static const struct file_operations sor_inject_msg_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sor_inject_msg_write,
	.llseek = no_llseek,
};

/* The outcome of one injected store: the engine's error, if any. */
struct sor_inject_done {
	int err;
};

static void sor_inject_failed(void *ctx, int err)
{
	struct sor_inject_done *d = ctx;

	WRITE_ONCE(d->err, err);
}

/*
 * The global address of byte OFF of the peer's receive block of C, if
 * the peer holds that block for sure: C is open, has the peer's ADDR,
 * and neither side has begun the end (after our NACK, or our answer to
 * the peer's, the peer may free it).
 */
static int sor_inject_target(struct sor_conn *c, u64 off, u64 *ga)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (!c->have_addr || !sor_st_open(c->state) || c->nack_pending ||
	    c->reply_owed)
		ret = -ENOTCONN;
	else if (off + sizeof(u32) > SOR_RCV_DATA_OFF + (u64)c->snd_size)
		ret = -EINVAL;
	else
		*ga = c->peer_hdr_ga + off;
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/*
 * inject_write: "ID OFFSET VALUE", the 32-bit VALUE stored by the engine
 * at OFFSET of the peer's receive block of our connection ID (its ring
 * is our send ring's size): one store descriptor, as the engine stores a
 * transfer's new tail; the write waits until it is done.
 */
static ssize_t sor_inject_store_write(struct file *file,
				      const char __user *buf, size_t count,
				      loff_t *ppos)
{
	struct sor_inject_done done = { 0 };
	struct eusrv_cdma_xfer x = {
		.nr_put = 1, .failed = sor_inject_failed, .ctx = &done,
	};
	struct sor_conn *c;
	u64 v[3];
	int ret;

	ret = sor_inject_nums(buf, count, v, 3);
	if (ret)
		return ret;
	if (v[0] >= EUSRV_SOR_MAX_CONNS || v[1] % sizeof(u32) ||
	    v[1] >= SOR_RCV_DATA_OFF + (1ULL << EUSRV_SOR_RING_MAX_SHIFT) ||
	    v[2] > U32_MAX)
		return -EINVAL;
	c = sor_conn_get((unsigned int)v[0]);
	if (!c)
		return -ENOENT;
	ret = sor_inject_target(c, v[1], &x.put[0].dst);
	if (!ret) {
		x.put[0].val = (u32)v[2];
		ret = eusrv_cdma_submit(&x, msecs_to_jiffies(SOR_INJECT_TIMEOUT_MS));
	}
	if (!ret) {
		/* Done or failed once this returns: DONE is on our stack. */
		eusrv_cdma_sync(&done);
		ret = READ_ONCE(done.err);
	}
	sor_conn_put(c);
	return ret ? ret : (ssize_t)count;
}

static const struct file_operations sor_inject_store_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sor_inject_store_write,
	.llseek = no_llseek,
};

DEFINE_SHOW_ATTRIBUTE(sor_pool);

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
	debugfs_create_file("inject", 0200, sor_debugfs_dir, NULL,
			    &sor_inject_msg_fops);
	debugfs_create_file("inject_write", 0200, sor_debugfs_dir, NULL,
			    &sor_inject_store_fops);
	debugfs_create_file("pool", 0400, sor_debugfs_dir, NULL, &sor_pool_fops);
	debugfs_create_bool("pool_fill_off", 0600, sor_debugfs_dir,
			    &sor_pool_fill_off);
}

void sor_debugfs_exit(void)
{
	debugfs_remove_recursive(sor_debugfs_dir);
}
