/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: a blocking CONNECT's file and mapping, made early (sor_early.c). */
#ifndef EUSRV_SOR_EARLY_H
#define EUSRV_SOR_EARLY_H

#include "sor_conn.h"

struct file;

struct sor_early {
	struct file *file;		/* NULL once installed or dropped */
	unsigned long addr;		/* the mapping in the caller, 0: none */
	unsigned long len;
};

int sor_early_open(struct sor_early *ef, struct sor_conn *c, u32 flags,
		   bool map);
int sor_early_rings(struct sor_early *ef, struct sor_conn *c,
		    const struct sor_owner *owner);
int sor_early_ready(struct sor_early *ef, u32 flags,
		    struct eusrv_sor_info *info);
void sor_early_install(struct sor_early *ef, int fd);
void sor_early_drop(struct sor_early *ef);

#endif /* EUSRV_SOR_EARLY_H */
