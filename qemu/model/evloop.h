/*
 * The model's single event loop: an epoll set of file descriptors, each
 * with a handler embedded in its owner's struct.  No threads, no polling:
 * the loop sleeps in epoll_wait unless some owner has deferred work.
 */
#ifndef EUSRV_MODEL_EVLOOP_H
#define EUSRV_MODEL_EVLOOP_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_MSEC		1000000ULL
#define MSEC_PER_SEC		1000ULL

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct ev_handler {
	/* Called with the epoll event bits (EPOLLIN, EPOLLOUT, EPOLLHUP...). */
	void (*fn)(struct ev_handler *h, uint32_t events);
	int fd;
};

struct evloop {
	int epfd;
};

int evloop_init(struct evloop *loop);
void evloop_fini(struct evloop *loop);

/* Watch H->fd for EVENTS (level-triggered); returns -errno on failure. */
int ev_add(struct evloop *loop, struct ev_handler *h, uint32_t events);
int ev_mod(struct evloop *loop, struct ev_handler *h, uint32_t events);
void ev_del(struct evloop *loop, struct ev_handler *h);

/*
 * Wait up to TIMEOUT_MS (-1: forever, 0: just look) and dispatch the ready
 * handlers.  Handlers must tolerate a stale event for an fd that another
 * handler closed in the same round: owners keep handler storage valid
 * until the round ends and mark closed handlers with fd = -1.
 */
int evloop_run_once(struct evloop *loop, int timeout_ms);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t evloop_now_ms(void);
/* Monotonic clock in microseconds. */
uint64_t evloop_now_us(void);
/*
 * Arm the CLOCK_MONOTONIC timerfd FD to expire once at T_US (absolute,
 * microseconds); 0 disarms it.  0 or -errno.
 */
int evloop_timer_set_us(int fd, uint64_t t_us);

#endif /* EUSRV_MODEL_EVLOOP_H */
