/* SPDX-License-Identifier: MIT */
/*
 * The atomic accesses the core's lock-free parts use on words shared
 * between threads (and with the kernel, for the ring headers): acquire
 * loads of what another side publishes, release stores of what this side
 * publishes, relaxed loads where only the value matters.
 */
#ifndef EUSRV_USOR_ATOMIC_H
#define EUSRV_USOR_ATOMIC_H

#define USOR_LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define USOR_LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define USOR_STORE_REL(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* EUSRV_USOR_ATOMIC_H */
