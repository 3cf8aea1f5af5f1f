/*
 * Access to registers in the ivshmem shared memory, which the guests read
 * and write concurrently: every access is a single atomic load or store of
 * the register's width, with the ordering the caller names.  Offsets are
 * always compile-time register offsets or ring indices reduced modulo the
 * ring depth, so an access never leaves its 4 KiB page.
 */
#ifndef EUSRV_MODEL_REGS_H
#define EUSRV_MODEL_REGS_H

#include <stdbool.h>
#include <stdint.h>

static inline uint32_t *reg32(void *page, uint32_t off)
{
	return (uint32_t *)(void *)((char *)page + off);
}

static inline uint64_t *reg64(void *page, uint32_t off)
{
	return (uint64_t *)(void *)((char *)page + off);
}

static inline uint32_t rd32(void *page, uint32_t off)
{
	return __atomic_load_n(reg32(page, off), __ATOMIC_RELAXED);
}

/* Load that orders the loads after it (a node's index, then its entries). */
static inline uint32_t rd32_acquire(void *page, uint32_t off)
{
	return __atomic_load_n(reg32(page, off), __ATOMIC_ACQUIRE);
}

static inline uint64_t rd64(void *page, uint32_t off)
{
	return __atomic_load_n(reg64(page, off), __ATOMIC_RELAXED);
}

static inline void wr16(void *page, uint32_t off, uint16_t v)
{
	__atomic_store_n((uint16_t *)(void *)((char *)page + off), v,
			 __ATOMIC_RELAXED);
}

static inline void wr32(void *page, uint32_t off, uint32_t v)
{
	__atomic_store_n(reg32(page, off), v, __ATOMIC_RELAXED);
}

/* Store that publishes the stores before it (entries, then the index). */
static inline void wr32_release(void *page, uint32_t off, uint32_t v)
{
	__atomic_store_n(reg32(page, off), v, __ATOMIC_RELEASE);
}

static inline void wr64(void *page, uint32_t off, uint64_t v)
{
	__atomic_store_n(reg64(page, off), v, __ATOMIC_RELAXED);
}

/*
 * A bad register value is counted when first seen, not again while the
 * node leaves it as it is (the model re-reads registers often).  *SEEN and
 * *LAST hold the bad value last counted; true if VALUE is to be counted.
 */
static inline bool reg_bad_is_new(bool *seen, uint32_t *last, uint32_t value)
{
	if (*seen && *last == value)
		return false;
	*seen = true;
	*last = value;
	return true;
}

#endif /* EUSRV_MODEL_REGS_H */
