// SPDX-License-Identifier: MIT
/*
 * The front end's table of real operations (usor_core.h), which is all
 * the core ever calls of libc, and the core's way of failing a call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>

#include "usor_atomic.h"
#include "usor_internal.h"

const struct usor_real *usor_r;

long usor_fail(long neg_errno)
{
	errno = (int)-neg_errno;
	return -1;
}

void usor_set_real(const struct usor_real *real)
{
	USOR_STORE_REL(&usor_r, real);
}
