/*
 * Unit tests of the board model's priority rule (qemu/model/priority.c):
 * when the model goes real-time and back, on windows of counts.
 */
#include <stdio.h>

#include "priority.h"
#include "tap.h"

/* The rule on a window of PRIO_WINDOW_US in which the model ran 1 ms. */
static bool want(bool rt, uint64_t taken, uint64_t skipped)
{
	return vb_prio_want_rt(rt, taken, skipped, 1000, PRIO_WINDOW_US);
}

int main(void)
{
	ok(!want(false, 0, 0), "no writes: ordinary");
	ok(!want(false, 0, PRIO_MIN_CONDS - 1),
	   "fewer than PRIO_MIN_CONDS, all skipped: ordinary");
	ok(want(false, 0, PRIO_MIN_CONDS), "PRIO_MIN_CONDS, all skipped: real-time");
	ok(want(false, 10, 20), "two thirds skipped: real-time");
	ok(!want(false, 10, 19), "under two thirds skipped: stays ordinary");
	ok(want(true, 10, 10), "real-time: half skipped keeps it");
	ok(!want(true, 11, 10), "real-time: under half skipped ends it");
	ok(!want(true, 0, PRIO_MIN_CONDS - 1), "real-time: too few writes end it");
	ok(!want(false, 1000, 0), "every reader armed (asleep): ordinary");
	ok(!want(false, UINT64_MAX, UINT64_MAX) &&
	   want(false, 1, UINT64_MAX) && !want(true, UINT64_MAX, 1),
	   "counts near UINT64_MAX do not wrap");
	ok(!vb_prio_want_rt(false, 0, 100, PRIO_WINDOW_US / 10 * PRIO_MAX_BUSY_TENTHS + 1,
			    PRIO_WINDOW_US) &&
	   !vb_prio_want_rt(true, 0, 100, PRIO_WINDOW_US, PRIO_WINDOW_US),
	   "all skipped but the model busy more than PRIO_MAX_BUSY_TENTHS of the window: ordinary");
	ok(vb_prio_want_rt(false, 0, 100, PRIO_WINDOW_US / 10 * PRIO_MAX_BUSY_TENTHS,
			   PRIO_WINDOW_US) &&
	   vb_prio_want_rt(true, 0, 100, PRIO_WINDOW_US / 2, PRIO_WINDOW_US),
	   "all skipped, the model busy up to PRIO_MAX_BUSY_TENTHS of the window: real-time");
	return tap_done();
}
