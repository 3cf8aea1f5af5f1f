// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: sockets over RDMA between the nodes of a EUROSERVER board
 * (D4.2 section 3.3, docs/protocol.md).  This file: the module, the
 * control file /dev/eusrv_sor and its ioctls (uapi/eusrv/sor.h).
 *
 * The service is node-wide (one mailbox, one CDMA engine per node), so the
 * control device exists as soon as the module is loaded.  The platform
 * driver below only matches the device-tree node of the binding
 * eusrv,sockets-over-rdma-1.0, so that the module is loaded on a board
 * that describes it; on the virtual board the boot loads it by name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <eusrv/cdma.h>
#include <eusrv/mbox.h>

#include "sor_conn.h"
#include "sor_data.h"
#include "sor_file.h"
#include "sor_keepalive.h"
#include "sor_nack.h"
#include "sor_rx.h"
#include "sor_accept.h"
#include "sor_connect.h"
#include "sor_listen.h"
#include "sor_retire.h"
#include "sor_serve.h"

static LIST_HEAD(sor_ctls);
static DEFINE_MUTEX(sor_ctls_lock);

static int sor_ctl_open(struct inode *inode, struct file *file)
{
	struct sor_ctl *ctl = kzalloc(sizeof(*ctl), GFP_KERNEL_ACCOUNT);

	if (!ctl)
		return -ENOMEM;
	mutex_init(&ctl->mutex);
	INIT_LIST_HEAD(&ctl->listeners);
	ctl->pid = task_tgid_nr(current);
	ctl->uid = current_euid();
	mutex_lock(&sor_ctls_lock);
	list_add_tail(&ctl->link, &sor_ctls);
	mutex_unlock(&sor_ctls_lock);
	file->private_data = ctl;
	return 0;
}

static int sor_ctl_release(struct inode *inode, struct file *file)
{
	struct sor_ctl *ctl = file->private_data;

	sor_listen_ctl_gone(ctl);
	mutex_lock(&sor_ctls_lock);
	list_del(&ctl->link);
	mutex_unlock(&sor_ctls_lock);
	mutex_destroy(&ctl->mutex);
	kfree(ctl);
	return 0;
}

static int sor_ctl_note(struct sor_ctl *ctl, const struct eusrv_sor_note *n)
{
	if (!n->reason || n->reason > EUSRV_SOR_R_MAX || n->reserved ||
	    n->err < 0 || n->err > 4095)
		return -EINVAL;
	mutex_lock(&ctl->mutex);
	ctl->notes[ctl->note_next] = *n;
	ctl->note_next = (ctl->note_next + 1) % EUSRV_SOR_MAX_NOTES;
	if (ctl->note_count < EUSRV_SOR_MAX_NOTES)
		ctl->note_count++;
	mutex_unlock(&ctl->mutex);
	sor_count(SOR_S_NOTES);
	return 0;
}

/* Whether the caller may see what process owns something of user UID. */
static bool sor_may_see_owner(kuid_t uid)
{
	return uid_eq(uid, current_euid()) || capable(CAP_NET_ADMIN);
}

struct sor_list_arg {
	struct eusrv_sor_conn_stat *out;
	u32 room;
	u32 total;
};

static void sor_list_one(struct sor_conn *c, void *p)
{
	struct sor_list_arg *a = p;

	if (a->total++ < a->room)
		sor_conn_stat(c, &a->out[a->total - 1]);
}

/* As ss: the processes behind other users' connections stay hidden. */
static void sor_list_hide(struct eusrv_sor_conn_stat *out, u32 n)
{
	bool all = capable(CAP_NET_ADMIN);
	u32 i;

	for (i = 0; i < n && !all; i++)
		if (!uid_eq(make_kuid(&init_user_ns, out[i].uid), current_euid()))
			out[i].pid = 0;
}

/* The notes of every control file: how many in total, up to ROOM copied. */
static u32 sor_list_notes(struct eusrv_sor_note_rec *out, u32 room)
{
	struct sor_ctl *ctl;
	u32 total = 0, i;

	mutex_lock(&sor_ctls_lock);
	list_for_each_entry(ctl, &sor_ctls, link) {
		mutex_lock(&ctl->mutex);
		for (i = 0; i < ctl->note_count; i++, total++) {
			unsigned int k = (ctl->note_next + EUSRV_SOR_MAX_NOTES -
					  ctl->note_count + i) % EUSRV_SOR_MAX_NOTES;

			if (total < room) {
				out[total].pid = ctl->pid;
				out[total].reserved = 0;
				out[total].note = ctl->notes[k];
				if (!sor_may_see_owner(ctl->uid)) {
					out[total].pid = 0;
					out[total].note.fd = -1;
				}
			}
		}
		mutex_unlock(&ctl->mutex);
	}
	mutex_unlock(&sor_ctls_lock);
	return total;
}

#define SOR_MAX_LIST_NOTES	(EUSRV_SOR_MAX_NOTES * 1024U)

static long sor_ctl_list(void __user *arg)
{
	struct eusrv_sor_list l;
	struct sor_list_arg a = {};
	struct eusrv_sor_note_rec *notes = NULL;
	long ret = 0;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if ((l.count && !l.conns) || (l.note_count && !l.notes) ||
	    l.note_count > SOR_MAX_LIST_NOTES || (l.flags & ~EUSRV_SOR_LIST_CLOSED))
		return -EINVAL;
	a.room = min_t(u32, l.count, EUSRV_SOR_MAX_CONNS + EUSRV_SOR_HISTORY);
	if (a.room) {
		a.out = kvcalloc(a.room, sizeof(*a.out), GFP_KERNEL_ACCOUNT);
		if (!a.out)
			return -ENOMEM;
	}
	if (l.note_count) {
		notes = kvcalloc(l.note_count, sizeof(*notes), GFP_KERNEL_ACCOUNT);
		if (!notes) {
			ret = -ENOMEM;
			goto out;
		}
	}
	sor_conn_for_each(sor_list_one, &a);
	l.closed = 0;
	if (l.flags & EUSRV_SOR_LIST_CLOSED) {
		l.closed = sor_conn_history(a.out + min(a.total, a.room),
					    a.room - min(a.total, a.room));
		a.total += l.closed;
	}
	l.total = a.total;
	sor_list_hide(a.out, min(a.total, a.room));
	l.note_total = sor_list_notes(notes, l.note_count);
	if (a.room &&
	    copy_to_user(u64_to_user_ptr(l.conns), a.out,
			 array_size(min(a.total, a.room), sizeof(*a.out))))
		ret = -EFAULT;
	else if (l.note_count &&
		 copy_to_user(u64_to_user_ptr(l.notes), notes,
			      array_size(min(l.note_total, l.note_count),
					 sizeof(*notes))))
		ret = -EFAULT;
	else if (copy_to_user(arg, &l, sizeof(l)))
		ret = -EFAULT;
out:
	kvfree(notes);
	kvfree(a.out);
	return ret;
}

/* The crossings summed over every connection, and the blocks' own. */
static void sor_ctl_crossings(struct eusrv_sor_stats *st)
{
	struct eusrv_mbox_crossings mx = {};
	struct eusrv_cdma_crossings cx = {};
	unsigned int i;

	sor_crossings_read(sor_xstats, &st->x);
	eusrv_mbox_get_crossings(&mx);
	eusrv_cdma_get_crossings(&cx);
	st->mbox_doorbells = mx.doorbells;
	st->cdma_doorbells = cx.doorbells;
	st->mbox_irqs = mx.irqs;
	st->mbox_irq_rx = mx.irq_rx;
	st->mbox_irq_txdone = mx.irq_txdone;
	st->mbox_irq_room = mx.irq_room;
	st->mbox_irq_none = mx.irq_none;
	st->cdma_irqs = cx.irqs;
	st->cdma_irq_ioc = cx.irq_ioc;
	st->cdma_irq_dly = cx.irq_dly;
	st->cdma_irq_err = cx.irq_err;
	for (i = 0; i < SOR_MSG_TYPES; i++) {
		st->msgs_sent[i] = atomic64_read(&sor_msgs_sent[i]);
		st->msgs_rcvd[i] = atomic64_read(&sor_msgs_rcvd[i]);
	}
}

static long sor_ctl_stats(void __user *arg)
{
	struct eusrv_sor_stats *st;
	int node = sor_node();
	long ret;

	/* Too big for the stack. */
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->node = node < 0 ? 0 : node;
	st->conns = sor_conn_count();
	st->conns_opened = atomic64_read(&sor_stats[SOR_S_OPENED]);
	st->conns_refused = atomic64_read(&sor_stats[SOR_S_REFUSED]);
	st->connect_failed = atomic64_read(&sor_stats[SOR_S_CONNECT_FAILED]);
	st->bytes_sent = atomic64_read(&sor_stats[SOR_S_BYTES_SENT]);
	st->bytes_rcvd = atomic64_read(&sor_stats[SOR_S_BYTES_RCVD]);
	st->transfers = atomic64_read(&sor_stats[SOR_S_TRANSFERS]);
	st->transfer_errors = atomic64_read(&sor_stats[SOR_S_XFER_ERRORS]);
	st->credits_sent = atomic64_read(&sor_stats[SOR_S_CREDITS_SENT]);
	st->credits_rcvd = atomic64_read(&sor_stats[SOR_S_CREDITS_RCVD]);
	st->nacks_sent = atomic64_read(&sor_stats[SOR_S_NACKS_SENT]);
	st->nacks_rcvd = atomic64_read(&sor_stats[SOR_S_NACKS_RCVD]);
	st->nack_resends = atomic64_read(&sor_stats[SOR_S_NACK_RESENDS]);
	st->bad_messages = atomic64_read(&sor_stats[SOR_S_BAD_MSG]);
	st->bad_user = atomic64_read(&sor_stats[SOR_S_BAD_USER]);
	st->peer_resets = atomic64_read(&sor_stats[SOR_S_PEER_RESETS]);
	st->notes = atomic64_read(&sor_stats[SOR_S_NOTES]);
	st->nodes_up = sor_ka_nodes_up();
	st->arms_sent = atomic64_read(&sor_stats[SOR_S_ARMS_SENT]);
	st->data_irqs = atomic64_read(&sor_stats[SOR_S_DATA_IRQS]);
	st->resets_sent = atomic64_read(&sor_stats[SOR_S_RESETS_SENT]);
	st->resets_rcvd = atomic64_read(&sor_stats[SOR_S_RESETS_RCVD]);
	st->probes_sent = atomic64_read(&sor_stats[SOR_S_PROBES_SENT]);
	st->quarantined = sor_quar_bytes() + sor_conn_fencing_bytes();
	st->locks_freed = atomic64_read(&sor_stats[SOR_S_LOCKS_FREED]);
	st->ring_bytes = sor_pool_bytes_out();
	st->charged_pages = sor_charged_pages();
	st->listeners = sor_listen_count();
	sor_ctl_crossings(st);
	ret = copy_to_user(arg, st, sizeof(*st)) ? -EFAULT : 0;
	kfree(st);
	return ret;
}

static long sor_ctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sor_ctl *ctl = file->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct eusrv_sor_listen listen;
		struct eusrv_sor_connect connect;
		struct eusrv_sor_accept accept;
		struct eusrv_sor_note note;
	} u;

	switch (cmd) {
	case EUSRV_SOR_LISTEN:
	case EUSRV_SOR_UNLISTEN:
		if (copy_from_user(&u.listen, uarg, sizeof(u.listen)))
			return -EFAULT;
		return cmd == EUSRV_SOR_LISTEN ? sor_listen(ctl, &u.listen) :
		       sor_unlisten(ctl, &u.listen);
	case EUSRV_SOR_CONNECT:
		if (copy_from_user(&u.connect, uarg, sizeof(u.connect)))
			return -EFAULT;
		return sor_connect(ctl, &u.connect, uarg);
	case EUSRV_SOR_ACCEPT:
		if (copy_from_user(&u.accept, uarg, sizeof(u.accept)))
			return -EFAULT;
		return sor_accept(ctl, &u.accept);
	case EUSRV_SOR_NOTE:
		if (copy_from_user(&u.note, uarg, sizeof(u.note)))
			return -EFAULT;
		return sor_ctl_note(ctl, &u.note);
	case EUSRV_SOR_LIST:
		return sor_ctl_list(uarg);
	case EUSRV_SOR_STATS:
		return sor_ctl_stats(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations sor_ctl_fops = {
	.owner = THIS_MODULE,
	.open = sor_ctl_open,
	.release = sor_ctl_release,
	.unlocked_ioctl = sor_ctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice sor_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "eusrv_sor",
	.fops = &sor_ctl_fops,
	.mode = 0666,
};

static int sor_probe(struct platform_device *pdev)
{
	dev_info(&pdev->dev, "sockets over RDMA on %s\n", EUSRV_SOR_DEVICE);
	return 0;
}

static const struct of_device_id sor_of_match[] = {
	{ .compatible = "eusrv,sockets-over-rdma-1.0" },
	{ }
};
MODULE_DEVICE_TABLE(of, sor_of_match);

static struct platform_driver sor_driver = {
	.driver = {
		.name = "eusrv-sor",
		.of_match_table = sor_of_match,
	},
	.probe = sor_probe,
};

static void sor_teardown(void)
{
	sor_debugfs_exit();
	sor_ka_stop();
	sor_rx_exit();
	sor_serve_exit();
	sor_conn_exit();
	sor_retire_all();
	sor_quar_exit();
	sor_pool_exit();
	destroy_workqueue(sor_wq);
}

static int __init sor_init(void)
{
	int ret;

	sor_wq = alloc_workqueue("eusrv_sor", WQ_UNBOUND, 0);
	if (!sor_wq)
		return -ENOMEM;
	ret = sor_pool_init();
	if (ret) {
		destroy_workqueue(sor_wq);
		return ret;
	}
	ret = sor_serve_init();
	if (!ret) {
		ret = sor_rx_init();
		if (ret)
			sor_serve_exit();
	}
	if (ret) {
		sor_pool_exit();
		destroy_workqueue(sor_wq);
		return ret;
	}
	sor_ka_start();
	sor_debugfs_init();
	ret = misc_register(&sor_misc);
	if (ret)
		goto fail;
	ret = platform_driver_register(&sor_driver);
	if (ret) {
		misc_deregister(&sor_misc);
		goto fail;
	}
	return 0;
fail:
	sor_teardown();
	return ret;
}
module_init(sor_init);

static void __exit sor_exit(void)
{
	platform_driver_unregister(&sor_driver);
	misc_deregister(&sor_misc);
	sor_teardown();
}
module_exit(sor_exit);

MODULE_DESCRIPTION("EUROSERVER sockets over RDMA");
MODULE_LICENSE("GPL");
