/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection ids of one node (docs/protocol.md section 1): 0..4094, 4095
 * meaning "none".  A bitmap with a rotating cursor, so that a freed id is
 * reused as late as possible (a late message then meets no connection
 * rather than a new one).  The caller serialises; no hardware, no state
 * beyond the structure.
 */
#ifndef EUSRV_SOR_IDS_H
#define EUSRV_SOR_IDS_H

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/types.h>

#define SOR_IDS_MAX		4095U	/* EUSRV_SOR_MAX_CONNS */

struct sor_ids {
	DECLARE_BITMAP(used, SOR_IDS_MAX);
	unsigned int next;	/* where the next search starts */
	unsigned int count;
};

static inline void sor_ids_init(struct sor_ids *ids)
{
	bitmap_zero(ids->used, SOR_IDS_MAX);
	ids->next = 0;
	ids->count = 0;
}

/* A free id, marked used: 0..4094, or -EAGAIN when all are taken. */
static inline int sor_ids_alloc(struct sor_ids *ids)
{
	unsigned long id;

	if (ids->count >= SOR_IDS_MAX)
		return -EAGAIN;
	id = find_next_zero_bit(ids->used, SOR_IDS_MAX, ids->next);
	if (id >= SOR_IDS_MAX)
		id = find_first_zero_bit(ids->used, SOR_IDS_MAX);
	if (id >= SOR_IDS_MAX)
		return -EAGAIN;		/* count was wrong: cannot happen */
	__set_bit(id, ids->used);
	ids->count++;
	ids->next = (id + 1) % SOR_IDS_MAX;
	return (int)id;
}

static inline bool sor_ids_in_use(const struct sor_ids *ids, unsigned int id)
{
	return id < SOR_IDS_MAX && test_bit(id, ids->used);
}

/* Free ID; false (and no change) if it was not in use. */
static inline bool sor_ids_free(struct sor_ids *ids, unsigned int id)
{
	if (!sor_ids_in_use(ids, id))
		return false;
	__clear_bit(id, ids->used);
	ids->count--;
	return true;
}

#endif /* EUSRV_SOR_IDS_H */
