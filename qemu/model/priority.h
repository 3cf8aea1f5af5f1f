/*
 * The model's CPU priority.  On the board the engines are logic beside
 * the CPUs; here they are this process, and it needs a host core to move
 * anything.  How it should take one depends on what the nodes' vCPUs do:
 *
 * - A reader that spins keeps its vCPU on a core; with every core held
 *   so, the model waits for a vCPU's time slice, and the reader's spin
 *   runs out.  Preempting a vCPU that spins costs nothing, so the model
 *   runs real-time (SCHED_FIFO) while most conditional writes to other
 *   nodes' inboxes are skipped (their readers had not armed: they spin or
 *   are busy).
 * - While most are taken the readers sleep (servers waiting in epoll):
 *   a vCPU that rings the model has work to finish, and a model that
 *   preempts it costs that work.  The model runs SCHED_BATCH then, which
 *   never preempts on wake-up: it runs when a core comes free, as the
 *   board's engine would run beside the CPUs.  But a batch model also
 *   turns spinners into sleepers (their spin runs out before it comes),
 *   so it goes batch only on many writes, and after PRIO_BATCH_PROBE
 *   windows of batch it is ordinary for one, to look.
 * - Ordinary otherwise, with too few writes to judge, and when the model
 *   was busy nearly all of a window (real-time only shortens wake-ups:
 *   no load, a rogue node's included, has a real-time process hold a
 *   core).
 *
 * docs/performance.md has the figures.
 */
#ifndef EUSRV_MODEL_PRIORITY_H
#define EUSRV_MODEL_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

/* How often the counts are judged, and how many make a judgement. */
#define PRIO_WINDOW_US		20000U
#define PRIO_MIN_CONDS		8U
/* Busy for more than this many tenths of a window: ordinary. */
#define PRIO_MAX_BUSY_TENTHS	9U
/*
 * Batch begins only on this many taken in a window: an adaptive reader's
 * pauses (a few writes, all taken) must not hide its spin.
 */
#define PRIO_BATCH_MIN_TAKEN	48U
/* After this many windows of batch, one ordinary window. */
#define PRIO_BATCH_PROBE	10U

enum vb_prio_class {
	VB_PRIO_ORDINARY,		/* SCHED_OTHER */
	VB_PRIO_BATCH,			/* SCHED_BATCH */
	VB_PRIO_RT,			/* SCHED_FIFO, priority 1 */
};

struct vb_prio {
	bool enabled;			/* false: always ordinary */
	bool rt_ok;			/* false: SCHED_FIFO was refused */
	enum vb_prio_class cls;		/* the class now */
	unsigned int batch_windows;	/* windows judged in batch since it began */
	uint64_t start_us;		/* this window's start */
	uint64_t taken, skipped;	/* the totals at its start */
	uint64_t cpu_us;		/* the model's CPU time at its start */
	struct log_ratelimit rl;	/* of the switches' log lines */
};

/*
 * The rule, for P in its class now, on one window of WINDOW_US in which
 * the model ran BUSY_US and TAKEN and SKIPPED conditional writes were
 * made: real-time when at least two thirds were skipped, staying so while
 * at least half are; batch when at least two thirds, and at least
 * PRIO_BATCH_MIN_TAKEN, were taken, staying so while at least half are
 * (vb_prio_round() makes every PRIO_BATCH_PROBE+1-th window ordinary);
 * ordinary on fewer than PRIO_MIN_CONDS, when the model ran more than
 * PRIO_MAX_BUSY_TENTHS of the window, and otherwise.
 */
enum vb_prio_class vb_prio_want(const struct vb_prio *p, uint64_t taken,
				uint64_t skipped, uint64_t busy_us,
				uint64_t window_us);

void vb_prio_init(struct vb_prio *p, bool enabled, uint64_t now_us);

/* A window ended at NOW_US: time for vb_prio_round() (never if off). */
static inline bool vb_prio_due(const struct vb_prio *p, uint64_t now_us)
{
	return p->enabled && now_us - p->start_us >= PRIO_WINDOW_US;
}

/*
 * At the end of a window (vb_prio_due): TAKEN and SKIPPED are the running
 * totals; the rule is applied to them and to the model's CPU time.  A
 * refused SCHED_FIFO (no CAP_SYS_NICE, no RLIMIT_RTPRIO) is logged once
 * and never asked for again.
 */
void vb_prio_round(struct vb_prio *p, uint64_t now_us, uint64_t taken,
		   uint64_t skipped);
/* Back to an ordinary process, at exit. */
void vb_prio_fini(struct vb_prio *p);

#endif /* EUSRV_MODEL_PRIORITY_H */
