/* The model's epoll event loop (see evloop.h). */
#include "evloop.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Events handled per epoll_wait; more just wait for the next round. */
#define EVLOOP_MAX_EVENTS	64

int evloop_init(struct evloop *loop)
{
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	return loop->epfd < 0 ? -errno : 0;
}

void evloop_fini(struct evloop *loop)
{
	if (loop->epfd >= 0)
		close(loop->epfd);
	loop->epfd = -1;
}

static int ev_ctl(struct evloop *loop, int op, struct ev_handler *h,
		  uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	return epoll_ctl(loop->epfd, op, h->fd, &ev) < 0 ? -errno : 0;
}

int ev_add(struct evloop *loop, struct ev_handler *h, uint32_t events)
{
	return ev_ctl(loop, EPOLL_CTL_ADD, h, events);
}

int ev_mod(struct evloop *loop, struct ev_handler *h, uint32_t events)
{
	return ev_ctl(loop, EPOLL_CTL_MOD, h, events);
}

void ev_del(struct evloop *loop, struct ev_handler *h)
{
	if (h->fd >= 0)
		epoll_ctl(loop->epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

int evloop_run_once(struct evloop *loop, int timeout_ms)
{
	struct epoll_event evs[EVLOOP_MAX_EVENTS];
	int n, i;

	n = epoll_wait(loop->epfd, evs, EVLOOP_MAX_EVENTS, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		struct ev_handler *h = evs[i].data.ptr;

		if (h->fd >= 0)
			h->fn(h, evs[i].events);
	}
	return n;
}

uint64_t evloop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MSEC_PER_SEC +
	       (uint64_t)ts.tv_nsec / NSEC_PER_MSEC;
}

uint64_t evloop_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000U;
}

int evloop_timer_set_us(int fd, uint64_t t_us)
{
	struct itimerspec its = {
		.it_value.tv_sec = (time_t)(t_us / 1000000ULL),
		.it_value.tv_nsec = (long)(t_us % 1000000ULL * 1000ULL),
	};

	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ? -errno : 0;
}
