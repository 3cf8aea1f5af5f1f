/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the eusrv_sor board programs of this folder share (each is built
 * alone by lib.sh's build_prog and includes this by its quoted name):
 *
 *   result(), expect_err()  "ok <what>" / "not ok <what>: <why>" lines,
 *                           counted in failures (sor-driver-test,
 *                           sor-abuse-test)
 *   ctl_open()              the control file, or exit 2
 *   connect_from()          CONNECT from the socket the request names,
 *                           closed after
 *   now()                   CLOCK_MONOTONIC in seconds
 *   rnd(), below(), coin()  a splitmix64 random source whose state rs the
 *                           program seeds (sor-fuzz, sor-rogue: a seed
 *                           replays the choices)
 *
 * Static inline: a program that uses only some of them is not warned of
 * the others (-Wall -Wextra -Werror).
 */
#ifndef SOR_PROGS_H
#define SOR_PROGS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <uapi/eusrv/sor.h>

static int failures;

static inline void result(int good, const char *what, const char *why)
{
	if (good) {
		printf("ok %s\n", what);
	} else {
		printf("not ok %s: %s\n", what, why);
		failures++;
	}
	fflush(stdout);
}

/* RET, errno: the call failed with ERR. */
static inline void expect_err(int ret, int err, const char *what)
{
	char why[96];
	int e = errno;

	snprintf(why, sizeof(why), "returned %d errno %d (%s), wanted errno %d",
		 ret, e, strerror(e), err);
	result(ret < 0 && e == err, what, why);
}

static inline int ctl_open(void)
{
	int fd = open(EUSRV_SOR_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror(EUSRV_SOR_DEVICE);
		exit(2);
	}
	return fd;
}

/*
 * CONNECT RQ on control file CTL; RQ->fd, the program's bound socket, is
 * closed after (the driver holds it).  The connection file, or -1 with
 * errno the CONNECT's.
 */
static inline int connect_from(int ctl, struct eusrv_sor_connect *rq)
{
	int r, e;

	r = ioctl(ctl, EUSRV_SOR_CONNECT, rq);
	e = errno;
	close(rq->fd);
	errno = e;
	return r;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rs;	/* the random source's state: the seed */

static inline uint64_t rnd(void)	/* splitmix64 */
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. N - 1 (0 for N 0). */
static inline uint32_t below(uint64_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

/* True with PCT percent. */
static inline bool coin(unsigned int pct)
{
	return below(100) < pct;
}

#endif
