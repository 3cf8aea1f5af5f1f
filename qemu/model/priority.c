/* The model's CPU priority follows the readers: see priority.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "priority.h"

bool vb_prio_want_rt(bool rt, uint64_t taken, uint64_t skipped,
		     uint64_t busy_us, uint64_t window_us)
{
	if (busy_us > window_us / 10 * PRIO_MAX_BUSY_TENTHS)
		return false;
	if (skipped < PRIO_MIN_CONDS && taken < PRIO_MIN_CONDS - skipped)
		return false;
	return rt ? skipped >= taken : skipped / 2 >= taken;
}

static int vb_prio_set(bool rt)
{
	struct sched_param sp = { .sched_priority = rt ? 1 : 0 };
	/* Nothing the model might start inherits it. */
	int policy = rt ? SCHED_FIFO | SCHED_RESET_ON_FORK : SCHED_OTHER;

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
	p->start_us = now_us;
	p->cpu_us = vb_prio_cpu_us();
}

void vb_prio_round(struct vb_prio *p, uint64_t now_us, uint64_t taken,
		   uint64_t skipped)
{
	uint64_t t = taken - p->taken, s = skipped - p->skipped, cpu, busy, window;
	bool want;
	int err;

	cpu = vb_prio_cpu_us();
	busy = cpu - p->cpu_us;
	window = now_us - p->start_us;
	want = vb_prio_want_rt(p->rt, t, s, busy, window);
	p->start_us = now_us;
	p->taken = taken;
	p->skipped = skipped;
	p->cpu_us = cpu;
	if (want == p->rt)
		return;
	err = vb_prio_set(want);
	if (err) {
		log_info("priority: staying an ordinary process (SCHED_FIFO: %s)",
			 strerror(-err));
		p->enabled = false;
		return;
	}
	p->rt = want;
	if (log_ratelimit_ok(&p->rl, now_us / 1000))
		log_info("priority: %s (%" PRIu64 " taken, %" PRIu64 " skipped, busy %" PRIu64 " of %" PRIu64 " us)",
			 want ? "real-time" : "ordinary", t, s, busy, window);
}

void vb_prio_fini(struct vb_prio *p)
{
	if (p->rt && !vb_prio_set(false))
		p->rt = false;
}
