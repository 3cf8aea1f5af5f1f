/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor ACCEPT (sor_accept.c). */
#ifndef EUSRV_SOR_ACCEPT_H
#define EUSRV_SOR_ACCEPT_H

#include "sor_setup.h"

int sor_accept(struct sor_ctl *ctl, const struct eusrv_sor_accept *rq);

#endif /* EUSRV_SOR_ACCEPT_H */
