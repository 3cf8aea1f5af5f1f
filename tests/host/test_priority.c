/*
 * Unit tests of the board model's priority rule (qemu/model/priority.c):
 * when the model goes batch, real-time and back, on windows of counts.
 */
#include <stdio.h>
#include <string.h>

#include "priority.h"
#include "tap.h"

/* The rule for a model in CLS on a window of PRIO_WINDOW_US, BUSY_US busy. */
static enum vb_prio_class want_at(enum vb_prio_class cls, uint64_t taken,
				  uint64_t skipped, uint64_t busy_us)
{
	struct vb_prio p;

	vb_prio_init(&p, true, 0);
	p.cls = cls;
	return vb_prio_want(&p, taken, skipped, busy_us, PRIO_WINDOW_US);
}

/* ... of 1 ms busy. */
static enum vb_prio_class want(enum vb_prio_class cls, uint64_t taken,
			       uint64_t skipped)
{
	return want_at(cls, taken, skipped, 1000);
}

/* ... all of 100 writes skipped. */
static enum vb_prio_class want_busy(enum vb_prio_class cls, uint64_t busy_us)
{
	return want_at(cls, 0, 100, busy_us);
}

/*
 * The classes the model goes through over ROUNDS windows of TAKEN and
 * SKIPPED writes each, as letters (o, b, r); vb_prio_round() really
 * switches, so only what an unprivileged process may do is asked of it.
 */
static void walk(uint64_t taken, uint64_t skipped, unsigned int rounds,
		 char *out)
{
	struct vb_prio p;
	unsigned int i;

	vb_prio_init(&p, true, 0);
	for (i = 0; i < rounds; i++) {
		vb_prio_round(&p, (i + 1) * (uint64_t)PRIO_WINDOW_US,
			      (i + 1) * taken, (i + 1) * skipped);
		out[i] = "obr"[p.cls];
	}
	out[rounds] = '\0';
	vb_prio_fini(&p);
}

int main(void)
{
	char seen[32];

	ok(want(VB_PRIO_ORDINARY, 0, 0) == VB_PRIO_ORDINARY, "no writes: ordinary");
	ok(want(VB_PRIO_ORDINARY, 0, PRIO_MIN_CONDS - 1) == VB_PRIO_ORDINARY,
	   "fewer than PRIO_MIN_CONDS, all skipped: ordinary");
	ok(want(VB_PRIO_ORDINARY, PRIO_MIN_CONDS - 1, 0) == VB_PRIO_ORDINARY &&
	   want(VB_PRIO_BATCH, PRIO_MIN_CONDS - 1, 0) == VB_PRIO_ORDINARY,
	   "fewer than PRIO_MIN_CONDS, all taken: ordinary");
	ok(want(VB_PRIO_ORDINARY, 0, PRIO_MIN_CONDS) == VB_PRIO_RT,
	   "PRIO_MIN_CONDS, all skipped: real-time");
	ok(want(VB_PRIO_ORDINARY, PRIO_BATCH_MIN_TAKEN - 1, 0) == VB_PRIO_ORDINARY,
	   "fewer than PRIO_BATCH_MIN_TAKEN, all taken: ordinary");
	ok(want(VB_PRIO_ORDINARY, PRIO_BATCH_MIN_TAKEN, 0) == VB_PRIO_BATCH,
	   "PRIO_BATCH_MIN_TAKEN, all taken: batch");
	ok(want(VB_PRIO_BATCH, PRIO_MIN_CONDS, 0) == VB_PRIO_BATCH,
	   "batch: PRIO_MIN_CONDS, all taken, keep it");
	ok(want(VB_PRIO_ORDINARY, 10, 20) == VB_PRIO_RT, "two thirds skipped: real-time");
	ok(want(VB_PRIO_ORDINARY, 10, 19) == VB_PRIO_ORDINARY,
	   "under two thirds skipped: stays ordinary");
	ok(want(VB_PRIO_ORDINARY, 100, 50) == VB_PRIO_BATCH, "two thirds taken: batch");
	ok(want(VB_PRIO_ORDINARY, 99, 50) == VB_PRIO_ORDINARY,
	   "under two thirds taken: stays ordinary");
	ok(want(VB_PRIO_RT, 10, 10) == VB_PRIO_RT, "real-time: half skipped keeps it");
	ok(want(VB_PRIO_RT, 11, 10) == VB_PRIO_ORDINARY,
	   "real-time: under half skipped ends it");
	ok(want(VB_PRIO_RT, 100, 50) == VB_PRIO_BATCH,
	   "real-time: two thirds taken: batch");
	ok(want(VB_PRIO_BATCH, 10, 10) == VB_PRIO_BATCH, "batch: half taken keeps it");
	ok(want(VB_PRIO_BATCH, 10, 11) == VB_PRIO_ORDINARY,
	   "batch: under half taken ends it");
	ok(want(VB_PRIO_BATCH, 10, 20) == VB_PRIO_RT,
	   "batch: two thirds skipped: real-time");
	ok(want(VB_PRIO_RT, 0, PRIO_MIN_CONDS - 1) == VB_PRIO_ORDINARY &&
	   want(VB_PRIO_BATCH, PRIO_MIN_CONDS - 1, 0) == VB_PRIO_ORDINARY,
	   "real-time or batch: too few writes end it");
	ok(want(VB_PRIO_ORDINARY, UINT64_MAX, UINT64_MAX) == VB_PRIO_ORDINARY &&
	   want(VB_PRIO_ORDINARY, 1, UINT64_MAX) == VB_PRIO_RT &&
	   want(VB_PRIO_RT, UINT64_MAX, 1) == VB_PRIO_BATCH,
	   "counts near UINT64_MAX do not wrap");
	ok(want_busy(VB_PRIO_ORDINARY, PRIO_WINDOW_US / 10 * PRIO_MAX_BUSY_TENTHS + 1) ==
	   VB_PRIO_ORDINARY && want_busy(VB_PRIO_RT, PRIO_WINDOW_US) == VB_PRIO_ORDINARY,
	   "all skipped but the model busy more than PRIO_MAX_BUSY_TENTHS of the window: ordinary");
	ok(want_busy(VB_PRIO_ORDINARY, PRIO_WINDOW_US / 10 * PRIO_MAX_BUSY_TENTHS) ==
	   VB_PRIO_RT && want_busy(VB_PRIO_RT, PRIO_WINDOW_US / 2) == VB_PRIO_RT,
	   "all skipped, the model busy up to PRIO_MAX_BUSY_TENTHS of the window: real-time");

	/* Ten windows of batch, then one ordinary one to look, and again. */
	walk(100, 1, 2 * PRIO_BATCH_PROBE + 2, seen);
	ok(!strcmp(seen, "bbbbbbbbbbobbbbbbbbbbo"),
	   "sleeping readers: batch, ordinary every PRIO_BATCH_PROBE+1-th window (%s)",
	   seen);
	walk(1, 0, 4, seen);
	ok(!strcmp(seen, "oooo"), "at rest: ordinary (%s)", seen);
	return tap_done();
}
