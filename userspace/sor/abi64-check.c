// SPDX-License-Identifier: MIT
/*
 * Built (syntax only) with _FILE_OFFSET_BITS=64 and _TIME_BITS=64 beside
 * the preload library: on a 32-bit ABI libc's headers then give the
 * structures of the 64-bit-time calls, which the library, built without,
 * has to spell itself (usor_core.h).  Nothing to check on a
 * 64-bit ABI, whose time is 64-bit already.
 */
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "usor_core.h"

#if __TIMESIZE != 64
_Static_assert(sizeof(time_t) == 8, "_TIME_BITS=64 took");
_Static_assert(sizeof(struct timespec) == sizeof(struct usor_timespec64),
	       "timespec64 size");
_Static_assert(offsetof(struct timespec, tv_sec) ==
	       offsetof(struct usor_timespec64, tv_sec), "timespec64 tv_sec");
_Static_assert(offsetof(struct timespec, tv_nsec) ==
	       offsetof(struct usor_timespec64, tv_nsec), "timespec64 tv_nsec");
_Static_assert(offsetof(struct stat, st_mode) ==
	       offsetof(struct usor_stat_t64, st_mode), "__stat64_t64 st_mode");
_Static_assert(sizeof(((struct stat *)0)->st_mode) ==
	       sizeof(((struct usor_stat_t64 *)0)->st_mode), "st_mode size");
#endif
