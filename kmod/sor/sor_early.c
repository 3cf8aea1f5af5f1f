// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a blocking CONNECT's connection file, made and mapped into
 * the caller while the server's answer is on its way (EUSRV_SOR_F_MAP),
 * so that what connect() spends on them once the answer is in is only
 * putting the file in the caller's table.
 *
 * Until the set-up is over the file is CONNECT's alone: it is in no
 * descriptor table, its mapping is not inherited by fork and fills in no
 * page on a fault (sor_mmap.c), so the pages that mmap itself mapped are
 * the only ones that can point at the rings.  If the server's ACCEPT
 * chose other sizes, those go before the rings are replaced.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>

#include "sor_client.h"
#include "sor_early.h"
#include "sor_file.h"

/* Map EF's file as user space would (sor_file_mmap), in the caller. */
static int sor_early_map(struct sor_early *ef, struct sor_conn *c)
{
	unsigned long len = sor_map_len(c), addr;

	addr = vm_mmap(ef->file, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	ef->addr = addr;
	ef->len = len;
	return 0;
}

/*
 * Whether the mapping at EF's address is still the one we made: the
 * caller's other threads may have unmapped or moved it meanwhile, and
 * what they put there instead is not ours to undo.  mmap lock held.
 */
static struct vm_area_struct *sor_early_vma(struct sor_early *ef)
{
	struct vm_area_struct *vma = vma_lookup(current->mm, ef->addr);

	return vma && vma->vm_file == ef->file && vma->vm_start == ef->addr ?
	       vma : NULL;
}

/*
 * Undo the mapping: every page of the file mapped anywhere in the caller
 * is unmapped (a thread may have moved or split the mapping), and the
 * mapping at our address removed if it is still ours.
 */
static void sor_early_unmap(struct sor_early *ef)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool ours;

	if (!ef->addr)
		return;
	mmap_read_lock(mm);
	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end))
		if (vma->vm_file == ef->file)
			zap_vma_ptes(vma, vma->vm_start,
				     vma->vm_end - vma->vm_start);
	ours = sor_early_vma(ef);
	mmap_read_unlock(mm);
	if (ours)
		vm_munmap(ef->addr, ef->len);
	ef->addr = 0;
}

/*
 * C's file, and with MAP its mapping, for a blocking CONNECT whose ConnRQ
 * is out (FLAGS: the file's EUSRV_SOR_F_*).  A mapping that cannot be
 * made is left to user space (info.map_addr 0); 0, or the file's error.
 */
int sor_early_open(struct sor_early *ef, struct sor_conn *c, u32 flags,
		   bool map)
{
	ef->addr = 0;
	ef->file = sor_file_new(c, flags);
	if (IS_ERR(ef->file)) {
		int ret = PTR_ERR(ef->file);

		ef->file = NULL;
		return ret;
	}
	if (map) {
		WRITE_ONCE(c->early_map, true);
		sor_early_map(ef, c);
	}
	return 0;
}

/*
 * The rings as the server's ACCEPT sized them (sor_client_rings), charged
 * to OWNER: if that replaces them, the mapping goes first and is made
 * again after.  0, -EDQUOT or -ENOMEM.
 */
int sor_early_rings(struct sor_early *ef, struct sor_conn *c,
		    const struct sor_owner *owner)
{
	unsigned long flags;
	bool same;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	same = c->snd_size == 1U << c->snd_shift &&
	       c->rcv_size == 1U << c->rcv_shift;
	spin_unlock_irqrestore(&c->lock, flags);
	if (same || !ef->addr)
		return sor_client_rings(c, owner);
	sor_early_unmap(ef);
	ret = sor_client_rings(c, owner);
	if (!ret)
		sor_early_map(ef, c);
	return ret;
}

/*
 * The set-up is over: the mapping is the caller's to keep (inherited by
 * fork from now on, as its own mmap would be), and where it is goes to
 * INFO.  A descriptor for the file, reserved, or the error.
 */
int sor_early_ready(struct sor_early *ef, u32 flags,
		    struct eusrv_sor_info *info)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int fd;

	fd = sor_file_fd(flags);
	if (fd < 0)
		return fd;
	if (ef->addr) {
		mmap_write_lock(mm);
		vma = sor_early_vma(ef);
		if (vma)
			vma->vm_flags &= ~VM_DONTCOPY;
		mmap_write_unlock(mm);
	}
	info->map_addr = ef->addr;
	return fd;
}

/* FD (from sor_early_ready) gets the file: it is the caller's now. */
void sor_early_install(struct sor_early *ef, int fd)
{
	fd_install(fd, ef->file);
	ef->file = NULL;
	ef->addr = 0;
}

/* The set-up failed, or the caller could not be told: nothing stays. */
void sor_early_drop(struct sor_early *ef)
{
	if (!ef->file)
		return;
	sor_early_unmap(ef);
	fput(ef->file);
	ef->file = NULL;
}
