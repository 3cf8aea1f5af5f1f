/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor CONNECT (sor_connect.c). */
#ifndef EUSRV_SOR_CONNECT_H
#define EUSRV_SOR_CONNECT_H

#include "sor_setup.h"

int sor_connect(struct sor_ctl *ctl, struct eusrv_sor_connect *rq,
		struct eusrv_sor_connect __user *out);

#endif /* EUSRV_SOR_CONNECT_H */
