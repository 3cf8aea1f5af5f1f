// SPDX-License-Identifier: MIT
/*
 * The control file and the peers, opened and read on first use, and what
 * the core asks of them: the process-wide state (usor_state_get()), the
 * addresses of a node.  Without the driver everything stays on TCP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>

#include "usor_atomic.h"
#include "usor_internal.h"

/* The control file is moved to the first free descriptor from here, out
 * of the way of programs that expect low numbers. */
#define CTL_FD_MIN	256
#define MAX_SPIN_US	1000000LL

enum { ST_NEW, ST_INIT, ST_READY, ST_ABSENT };

static int init_state = ST_NEW;
static struct usor_state state = { .ctl = -1, .node = -1 };
static __thread int in_init;
static char peers_buf[USOR_PEERS_MAX_FILE];

static void say(const char *a, const char *b)
{
	/* One write: messages of concurrent processes do not interleave. */
	char line[USOR_PEERS_MAX_LINE + 256];
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	static const char pfx[] = "eusrv: ";

	if (sizeof(pfx) - 1 + la + lb + 1 > sizeof(line))
		return;
	memcpy(line, pfx, sizeof(pfx) - 1);
	memcpy(line + sizeof(pfx) - 1, a, la);
	if (lb)
		memcpy(line + sizeof(pfx) - 1 + la, b, lb);
	line[sizeof(pfx) - 1 + la + lb] = '\n';
	if (usor_r->write(2, line, sizeof(pfx) + la + lb) < 0)
		return;
}

static void report_peers(void *arg, const char *msg)
{
	(void)arg;
	say(msg, NULL);
}

static void read_peers(void)
{
	const char *path = usor_r->getenv(USOR_PEERS_ENV);
	size_t len = 0;
	int fd;

	if (!path || !*path)
		path = USOR_PEERS_PATH;
	fd = usor_r->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(path, ": cannot open; every connection stays on TCP");
		return;
	}
	for (;;) {
		ssize_t n = usor_r->read(fd, peers_buf + len, sizeof(peers_buf) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(peers_buf)) {
			say(path, ": too long; only its beginning is used");
			break;
		}
	}
	usor_r->close(fd);
	usor_peers_parse(&state.peers, peers_buf, len, path, report_peers, NULL);
}

static int64_t parse_spin(void)
{
	const char *s = usor_r->getenv("EUSRV_SPIN_US");
	int64_t v = 0;

	if (!s || !*s)
		return USOR_SPIN_ADAPTIVE;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > MAX_SPIN_US)
			v = MAX_SPIN_US;
	}
	if (*s) {
		say("EUSRV_SPIN_US is not a number of microseconds; not spinning", NULL);
		return 0;
	}
	return v * USOR_NS_PER_US;
}

/* Open the control file; -1 if the driver is not there. */
static int open_ctl(void)
{
	int fd = usor_r->open(EUSRV_SOR_DEVICE, O_RDWR | O_CLOEXEC), hi;

	if (fd < 0)
		return -1;
	if (fd < CTL_FD_MIN) {
		hi = usor_r->fcntl(fd, F_DUPFD_CLOEXEC, CTL_FD_MIN);
		if (hi >= 0) {
			usor_r->close(fd);
			fd = hi;
		}
	}
	return fd;
}

static void init(void)
{
	struct eusrv_sor_stats st;
	int saved = errno, fd;

	usor_conn_setup();
	usor_table_own();
	fd = open_ctl();
	if (fd < 0) {
		USOR_STORE_REL(&init_state, ST_ABSENT);
		errno = saved;
		return;
	}
	memset(&st, 0, sizeof(st));
	if (usor_r->ioctl(fd, EUSRV_SOR_STATS, &st) == 0)
		state.node = (int)st.node;
	state.spin_ns = parse_spin();
	read_peers();
	USOR_STORE_REL(&state.ctl, fd);
	USOR_STORE_REL(&init_state, ST_READY);
	errno = saved;
}

bool usor_absent(void)
{
	return USOR_LOAD(&init_state) == ST_ABSENT;
}

const struct usor_state *usor_state_get(void)
{
	int s = USOR_LOAD_ACQ(&init_state);

	while (s != ST_READY) {
		if (s == ST_ABSENT)
			return NULL;
		if (s == ST_NEW &&
		    __atomic_compare_exchange_n(&init_state, &s, ST_INIT, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			in_init = 1;
			init();
			in_init = 0;
		} else if (s == ST_INIT) {
			if (in_init)
				return NULL;	/* a signal handler inside init() */
			usor_r->sched_yield();
		}
		s = USOR_LOAD_ACQ(&init_state);
	}
	/* The program closed our control file: open another one. */
	if (USOR_LOAD_ACQ(&state.ctl) < 0) {
		int saved = errno, fd = open_ctl(), none = -1;

		errno = saved;
		if (fd < 0)
			return NULL;
		if (!__atomic_compare_exchange_n(&state.ctl, &none, fd, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			usor_r->close(fd);
	}
	return &state;
}

void usor_ctl_gone(int fd)
{
	int ctl = USOR_LOAD(&state.ctl);

	if (fd >= 0 && fd == ctl)
		__atomic_compare_exchange_n(&state.ctl, &ctl, -1, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

int usor_ctl_fd(void)
{
	return USOR_LOAD_ACQ(&state.ctl);
}

uint32_t usor_node_addr(const struct usor_state *st, uint32_t node)
{
	const struct usor_peer *p = usor_peers_node(&st->peers, node);

	return p ? p->addr[0] : 0;
}

uint32_t usor_node_addr_like(const struct usor_state *st, uint32_t node,
			     uint32_t of, uint32_t addr)
{
	const struct usor_peer *p = usor_peers_node(&st->peers, node);
	const struct usor_peer *o = usor_peers_node(&st->peers, of);
	uint32_t i;

	if (!p)
		return 0;
	for (i = 0; o && i < o->naddr; i++)
		if (o->addr[i] == addr)
			return i < p->naddr ? p->addr[i] : p->addr[0];
	return p->addr[0];
}
