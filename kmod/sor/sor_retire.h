/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: a connection leaves the id table (sor_retire.c). */
#ifndef EUSRV_SOR_RETIRE_H
#define EUSRV_SOR_RETIRE_H

#include "sor_conn.h"

void sor_retire_try(struct sor_conn *c);
int sor_retire_forget(unsigned int id);
void sor_retire_all(void);

#endif /* EUSRV_SOR_RETIRE_H */
