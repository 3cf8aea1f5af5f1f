/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor ring memory, below the connection core: the pool of zeroed
 * blocks (sor_pool.c), the quarantine of blocks a peer may still write
 * (sor_quarantine.c) and the charge on the owner's locked memory
 * (sor_charge.c).
 */
#ifndef EUSRV_SOR_MEM_H
#define EUSRV_SOR_MEM_H

#include <linux/types.h>

#include "sor_base.h"

struct cred;
struct seq_file;
struct user_struct;

/*
 * Whom ring memory is charged to, and up to how many pages (sor_charge.c).
 * The references are on the credentials that name the user: free_uid() is
 * not exported by every kernel the driver loads in (Debian's 6.1 before
 * 6.1.0-56), put_cred() is.
 */
struct sor_owner {
	const struct cred *cred;	/* referenced */
	struct user_struct *user;	/* cred's */
	unsigned long limit;		/* pages, or RLIM_INFINITY */
};

/* A charge held: PAGES on USER's locked_vm. */
struct sor_charge_acct {
	const struct cred *cred;	/* referenced */
	struct user_struct *user;	/* cred's */
	unsigned long pages;
};

void sor_charge_owner(struct sor_owner *o);
void sor_charge_owner_copy(struct sor_owner *to, const struct sor_owner *from);
void sor_charge_owner_put(struct sor_owner *o);
unsigned long sor_charge_pages(u32 snd, u32 rcv);
int sor_charge(struct sor_charge_acct *ch, const struct sor_owner *o,
	       unsigned long pages, gfp_t gfp);
void sor_uncharge(struct sor_charge_acct *ch);
u64 sor_charged_pages(void);

/* sor_pool.c */
/*
 * Pages of the largest block the pool keeps (a receive block of the
 * default size): what a bitmap of the pages that may hold data covers.
 */
#define SOR_POOL_MAX_PAGES	((SOR_RCV_DATA_OFF >> PAGE_SHIFT) + \
				 (1U << (EUSRV_SOR_RING_DEF_SHIFT - PAGE_SHIFT)))
void *sor_pool_get(size_t len, gfp_t gfp);
void sor_pool_put(void *p, size_t len, const unsigned long *dirty);
u64 sor_pool_bytes_out(void);
extern bool sor_pool_fill_off;
int sor_pool_init(void);
int sor_pool_show(struct seq_file *m, void *v);
void sor_pool_exit(void);

/* sor_quarantine.c */
/* A forgotten connection's block (debugfs `forget`): held this long. */
#define SOR_QUAR_FORGOTTEN_MS	10000U
void sor_quar_add(unsigned int node, void *blk, size_t len, unsigned int hold_ms);
void sor_quar_node_gone(unsigned int node);
void sor_quar_tick(void);
u64 sor_quar_bytes(void);
void sor_quar_exit(void);

#endif /* EUSRV_SOR_MEM_H */
