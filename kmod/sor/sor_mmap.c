// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection files: the mapping of a connection's rings into
 * the process (its layout: uapi/eusrv/sor.h and sor_file.h), a page at a
 * time as it is touched, each page noted for the pool to zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>

#include "sor_fallback.h"
#include "sor_file.h"

/*
 * The page at offset OFF of C's mapping, noted in the bitmap of the block
 * it belongs to (the pages to zero when the block goes back to the pool);
 * NULL past the end.  The file keeps the connection, so the memory, while
 * it is mapped, and the parts do not move once set-up is over.  Lock held.
 */
static void *sor_map_page_locked(struct sor_conn *c, u64 off)
{
	u64 i;

	/* Rings given back (a set-up that turned to TCP) map nothing. */
	if (!c->snd_hdr || !c->snd_data || !c->rcv_blk)
		return NULL;
	if (off < sor_map_snd_data(c))
		return (void *)c->snd_hdr + off;
	if (off < sor_map_rcv_hdr(c)) {
		i = (off - sor_map_snd_data(c)) >> PAGE_SHIFT;
		if (i < SOR_POOL_MAX_PAGES)
			__set_bit(i, c->snd_dirty);
		return c->snd_data + (off - sor_map_snd_data(c));
	}
	if (off >= sor_map_len(c))
		return NULL;
	/* The receive block: header page, kernel page (not mapped), data. */
	i = (off - sor_map_rcv_hdr(c)) >> PAGE_SHIFT;
	if (i)
		i += (SOR_RCV_DATA_OFF >> PAGE_SHIFT) - 1;
	if (i < SOR_POOL_MAX_PAGES)
		__set_bit(i, c->rcv_dirty);
	return c->rcv_blk + (i << PAGE_SHIFT);
}

/*
 * A page at a time, as user space touches it: a connection that moves
 * little data maps (and dirties) little, and the pool zeroes only that.
 */
static vm_fault_t sor_file_fault(struct vm_fault *vmf)
{
	struct sor_conn *c = vmf->vma->vm_file->private_data;
	unsigned long flags;
	void *p;

	spin_lock_irqsave(&c->lock, flags);
	/* CONNECT's own early mapping: the rings may still be replaced. */
	p = c->state == EUSRV_SOR_ST_CONNECTING ? NULL :
	    sor_map_page_locked(c, (u64)vmf->pgoff << PAGE_SHIFT);
	spin_unlock_irqrestore(&c->lock, flags);
	if (!p)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address,
			      sor_conn_ring_phys(p) >> PAGE_SHIFT);
}

static const struct vm_operations_struct sor_file_vm_ops = {
	.fault = sor_file_fault,
};

/*
 * Map at once the pages every connection touches: both headers (the
 * library reads them before connect() or accept() returns) and the first
 * page of each ring, so that none of them costs a fault.
 */
static int sor_file_premap(struct sor_conn *c, struct vm_area_struct *vma)
{
	const u64 off[] = {
		0, sor_map_snd_data(c), sor_map_rcv_hdr(c), sor_map_rcv_data(c)
	};
	unsigned long flags;
	unsigned int i;
	void *p;
	int ret;

	for (i = 0; i < ARRAY_SIZE(off); i++) {
		if (off[i] >= vma->vm_end - vma->vm_start)
			break;
		spin_lock_irqsave(&c->lock, flags);
		p = sor_map_page_locked(c, off[i]);
		spin_unlock_irqrestore(&c->lock, flags);
		if (!p)
			return -EAGAIN;
		ret = remap_pfn_range(vma, vma->vm_start + off[i],
				      sor_conn_ring_phys(p) >> PAGE_SHIFT,
				      PAGE_SIZE, vma->vm_page_prot);
		if (ret)
			return ret;
	}
	return 0;
}

int sor_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct sor_conn *c = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	bool connecting;

	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	/*
	 * The ring sizes are final once set-up is over, and only then; a
	 * blocking CONNECT maps its file before (sor_early.c), and keeps
	 * that mapping from a fork's child until it is over.
	 */
	connecting = READ_ONCE(c->state) == EUSRV_SOR_ST_CONNECTING;
	if (READ_ONCE(c->tcp) || sor_fallback_setting_up(c->bg) ||
	    (connecting && !READ_ONCE(c->early_map)))
		return -EAGAIN;
	if (vma->vm_pgoff || len > sor_map_len(c))
		return -EINVAL;
	sor_ulock_note_ns(c);
	/* As remap_pfn_range() would have it, the pages filled in by faults. */
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	if (connecting)
		vma->vm_flags |= VM_DONTCOPY;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_ops = &sor_file_vm_ops;
	return sor_file_premap(c, vma);
}
