/* The model's CPU priority follows the readers: see priority.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "priority.h"

static const char *const vb_prio_names[] = {
	[VB_PRIO_ORDINARY] = "ordinary",
	[VB_PRIO_BATCH] = "batch",
	[VB_PRIO_RT] = "real-time",
};

enum vb_prio_class vb_prio_want(const struct vb_prio *p, uint64_t taken,
				uint64_t skipped, uint64_t busy_us,
				uint64_t window_us)
{
	if (busy_us > window_us / 10 * PRIO_MAX_BUSY_TENTHS)
		return VB_PRIO_ORDINARY;
	if (skipped < PRIO_MIN_CONDS && taken < PRIO_MIN_CONDS - skipped)
		return VB_PRIO_ORDINARY;
	if (p->rt_ok && (p->cls == VB_PRIO_RT ? skipped >= taken :
			 skipped / 2 >= taken))
		return VB_PRIO_RT;
	if (p->cls == VB_PRIO_BATCH ? taken >= skipped :
	    taken / 2 >= skipped && taken >= PRIO_BATCH_MIN_TAKEN)
		return VB_PRIO_BATCH;
	return VB_PRIO_ORDINARY;
}

static int vb_prio_set(enum vb_prio_class cls)
{
	struct sched_param sp = { .sched_priority = cls == VB_PRIO_RT };
	int policy = SCHED_OTHER;

	if (cls == VB_PRIO_BATCH)
		policy = SCHED_BATCH;
	else if (cls == VB_PRIO_RT)
		/* Nothing the model might start inherits it. */
		policy = SCHED_FIFO | SCHED_RESET_ON_FORK;
	return sched_setscheduler(0, policy, &sp) ? -errno : 0;
}

/* The model's own CPU time, microseconds. */
static uint64_t vb_prio_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000U + (uint64_t)ts.tv_nsec / 1000U;
}

void vb_prio_init(struct vb_prio *p, bool enabled, uint64_t now_us)
{
	memset(p, 0, sizeof(*p));
	p->enabled = enabled;
	p->rt_ok = true;
	p->cls = VB_PRIO_ORDINARY;
	p->start_us = now_us;
	p->cpu_us = vb_prio_cpu_us();
}

void vb_prio_round(struct vb_prio *p, uint64_t now_us, uint64_t taken,
		   uint64_t skipped)
{
	uint64_t t = taken - p->taken, s = skipped - p->skipped, cpu, busy, window;
	enum vb_prio_class want;
	bool quiet;
	int err;

	cpu = vb_prio_cpu_us();
	busy = cpu - p->cpu_us;
	window = now_us - p->start_us;
	want = vb_prio_want(p, t, s, busy, window);
	p->start_us = now_us;
	p->taken = taken;
	p->skipped = skipped;
	p->cpu_us = cpu;

	/*
	 * A probe's two switches are not news: only what it finds is.  The
	 * window that ended was a probe if batch_windows is still at its end.
	 */
	quiet = p->batch_windows >= PRIO_BATCH_PROBE && want == VB_PRIO_BATCH;
	if (want != VB_PRIO_BATCH || p->cls != VB_PRIO_BATCH) {
		p->batch_windows = 0;
	} else if (++p->batch_windows >= PRIO_BATCH_PROBE) {
		want = VB_PRIO_ORDINARY;
		quiet = true;
	}
	if (want == p->cls)
		return;

	err = vb_prio_set(want);
	if (err && want == VB_PRIO_RT) {
		log_info("priority: never real-time here (SCHED_FIFO: %s)",
			 strerror(-err));
		p->rt_ok = false;
		want = vb_prio_want(p, t, s, busy, window);
		err = want == p->cls ? 0 : vb_prio_set(want);
	}
	if (err) {
		log_info("priority: the rule is off (%s: %s)",
			 vb_prio_names[want], strerror(-err));
		p->enabled = false;
		return;
	}
	p->cls = want;
	if (!quiet && log_ratelimit_ok(&p->rl, now_us / 1000))
		log_info("priority: %s (%" PRIu64 " taken, %" PRIu64 " skipped, busy %" PRIu64 " of %" PRIu64 " us)",
			 vb_prio_names[want], t, s, busy, window);
}

void vb_prio_fini(struct vb_prio *p)
{
	if (p->cls != VB_PRIO_ORDINARY && !vb_prio_set(VB_PRIO_ORDINARY))
		p->cls = VB_PRIO_ORDINARY;
}
