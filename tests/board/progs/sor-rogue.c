// SPDX-License-Identifier: GPL-2.0
/*
 * A rogue node (docs/protocol.md section 7), run as root on node0 against
 * node1 by tests/board/66-sor-rogue.sh:
 *
 *   sor-rogue [-l LOG] [-g GAP_US] [-x OP,...] SEED SECONDS VICTIM PORT
 *
 * For SECONDS it holds up to NSLOT connections of its own to the echo
 * service (sor-test serve) on node VICTIM's PORT and runs random
 * operations (acts[], -x leaves some out) through the debugfs knobs
 * `inject` (a 64-bit message as it is) and `inject_write` (a 32-bit store
 * by our engine into the victim's receive block of one of our
 * connections).  It judges nothing and never waits unbounded.  A message
 * or store that may end the victim's side of a connection (naming both
 * its ids, a header store, KEEPALIVE(reset)) goes only to one with no
 * data of ours in flight and taints it: nothing is written into it or on
 * it any more, since the victim may free its ring at once (a store of
 * ours there would be the hardware's reach, not a driver bug).  Each
 * operation is logged to LOG (/tmp/sor-rogue.log) before it runs, flushed.
 * SEED (0: the clock) replays the choices, not the timing.  Exit status:
 * 0 after SECONDS, 2 bad arguments or no knobs, 3 stuck for 60 s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <uapi/eusrv/sor.h>
#include <eusrv/sor_msg.h>

#include "sor-progs.h"

#define NSLOT	6
#define NCLOSED	32
#define NHIST	256
#define DATA	8192U		/* SOR_RCV_DATA_OFF; the kernel tail at 4096 */
#define DBG	"/sys/kernel/debug/eusrv_sor/"
#define N_OF(a)	(sizeof(a) / sizeof((a)[0]))
#define STUCK_S	60

enum { FREE, LIVE, TAINTED };

/* One of our connections to the victim's service. */
struct slot {
	int st, fd;
	uint32_t id, peer, snd_size, rcv_size;
	uint32_t out, in;	/* stream positions: bytes written ('E' too), read */
};

static struct {
	struct slot s[NSLOT];
	uint32_t closed[NCLOSED][2];	/* ids (ours, the peer's) of closed ones */
	uint64_t hist[NHIST];
	unsigned int nclosed, nhist;
	int victim, port, dmsg, dwr, ctl;
	bool down;			/* the victim is down, as far as we know */
	uint32_t last_peer, phantoms;	/* the victim's newest id we know */
	FILE *log;
	double op_start;
	unsigned long nops, sent, refused, skipped, stores, store_err, opens,
		open_err, closes, echoes, lost, taints;
} R;

/* A line of the log, flushed: "#N T what", T this node's uptime (s). */
static void say(const char *fmt, ...)
{
	va_list ap;

	fprintf(R.log, "#%lu %.3f ", R.nops, now());
	va_start(ap, fmt);
	vfprintf(R.log, fmt, ap);
	va_end(ap);
	fputc('\n', R.log);
	fflush(R.log);
}

/* Once a second: an operation running for STUCK_S is a hang. */
static void on_alarm(int sig)
{
	static const char m[] = "sor-rogue: stuck in an operation for 60 s (the log's last line)\n";

	(void)sig;
	if (now() - R.op_start > STUCK_S) {
		(void)!write(2, m, sizeof(m) - 1);
		_exit(3);
	}
}

/* ---- our connections ---------------------------------------------------- */

/* No data of ours in flight: every byte we wrote came back. */
static bool idle(const struct slot *s)
{
	return s->out == s->in + 1;
}

static struct slot *pick_slot(int st, bool quiet)
{
	unsigned int i, k = below(NSLOT);

	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &R.s[(k + i) % NSLOT];

		if (s->st == st && (!quiet || idle(s)))
			return s;
	}
	return NULL;
}

/* CONNECT from a bound socket of ours; the connection file or -1. */
static int connect_victim(struct eusrv_sor_connect *rq)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = -1, ctl = open(EUSRV_SOR_DEVICE, O_RDWR | O_CLOEXEC);

	rq->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ctl >= 0 && rq->fd >= 0 && !bind(rq->fd, (void *)&sin, sizeof(sin)))
		fd = ioctl(ctl, EUSRV_SOR_CONNECT, rq);
	if (rq->fd >= 0)
		close(rq->fd);	/* the driver holds it */
	if (ctl >= 0)
		close(ctl);
	return fd;
}

/* A connection to the echo service: SO_LINGER {1, 0}, non-blocking, 'E' sent. */
static void conn_open(struct slot *s)
{
	struct eusrv_sor_connect rq = {
		.node = (uint32_t)R.victim, .port = (uint16_t)R.port,
		.timeout_ms = 2000, .snd_shift = (uint8_t)(12 + below(7)),
		.rcv_shift = (uint8_t)(12 + below(7)),
	};
	struct eusrv_sor_info in;
	uint32_t one = 1;
	int fd;

	say("open shifts %u/%u", rq.snd_shift, rq.rcv_shift);
	fd = connect_victim(&rq);
	if (fd >= 0 && (ioctl(fd, EUSRV_SOR_INFO, &in) ||
			ioctl(fd, EUSRV_SOR_LINGER, &one) ||
			fcntl(fd, F_SETFL, O_NONBLOCK) || write(fd, "E", 1) != 1)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		R.open_err++;
		say("open failed: %s", strerror(errno));
		return;
	}
	*s = (struct slot){ .st = LIVE, .fd = fd, .id = in.id, .peer = in.peer_id,
			    .snd_size = in.snd_size, .rcv_size = in.rcv_size,
			    .out = 1 };
	R.opens++;
	R.last_peer = in.peer_id;
	R.phantoms = 0;
	say("opened id %u peer %u sizes %u/%u", s->id, s->peer, s->snd_size,
	    s->rcv_size);
}

static void conn_close(struct slot *s)
{
	say("close id %u peer %u (%s)", s->id, s->peer,
	    s->st == TAINTED ? "tainted" : "clean");
	close(s->fd);
	R.closed[R.nclosed % NCLOSED][0] = s->id;
	R.closed[R.nclosed++ % NCLOSED][1] = s->peer;
	R.closes++;
	s->st = FREE;
}

/* Bytes out, then what comes back for at most 300 ms; a failure closes it. */
static void act_echo(void)
{
	static unsigned char buf[8192];
	struct slot *s = pick_slot(LIVE, false);
	double end = now() + 0.3;
	size_t n = 1 + below(sizeof(buf));
	const char *dead = NULL;
	ssize_t r;

	if (!s)
		return;
	say("echo id %u out %u in %u len %zu", s->id, s->out, s->in, n);
	if (idle(s)) {
		memset(buf, (int)below(256), n);
		r = write(s->fd, buf, n);
		if (r > 0)
			s->out += (uint32_t)r;
		else if (errno != EAGAIN)
			dead = strerror(errno);
	}
	while (!dead && !idle(s) && now() < end) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(s->fd, buf, sizeof(buf));
		if (r > 0)
			s->in += (uint32_t)r;
		else if (!r || errno != EAGAIN)
			dead = r ? strerror(errno) : "EOF";
	}
	R.echoes++;
	if (dead) {
		R.lost++;
		say("echo id %u: %s", s->id, dead);
		conn_close(s);
	}
}

/* ---- messages ------------------------------------------------------------- */

/* Whether MSG, from us, may end the victim's side of S (both ids named). */
static bool msg_names(uint64_t msg, const struct slot *s)
{
	unsigned int type = eusrv_msg_type(msg);

	if (type == EUSRV_SOR_MSG_KEEPALIVE)
		return !eusrv_msg_conn(msg) && !(eusrv_msg_payload(msg) & (0xfffULL << 32)) &&
		       eusrv_sor_ka_kind(msg) == EUSRV_SOR_KA_RESET;
	if (eusrv_msg_conn(msg) != s->peer || type < EUSRV_SOR_MSG_CONNRPL ||
	    type > EUSRV_SOR_MSG_LAST)
		return false;
	if (type == EUSRV_SOR_MSG_NACK)
		return (msg & EUSRV_SOR_NACK_ID_MASK) == s->id;
	return eusrv_sor_from_decode(msg) == s->id;
}

/* Whether MSG may go (it names no connection with data in flight); taints. */
static bool msg_guard(uint64_t msg)
{
	unsigned int i;

	for (i = 0; i < NSLOT; i++)
		if (R.s[i].st == LIVE && !idle(&R.s[i]) && msg_names(msg, &R.s[i]))
			return false;
	for (i = 0; i < NSLOT; i++)
		if (R.s[i].st == LIVE && msg_names(msg, &R.s[i])) {
			R.s[i].st = TAINTED;
			R.taints++;
		}
	return true;
}

static const char *const type_names[16] = {
	"0", "CONNRQ", "CONNRPL", "CREDIT", "DATA", "SENT", "FIN", "NACK",
	"KEEPALIVE", "ARM", "PROBE", "RST", "CDMA_DIAG", "SEQ", "PING", "PONG",
};

/* MSG to the victim's mailbox through `inject`; WHY says how it was made. */
static void send_msg(uint64_t msg, const char *why)
{
	char line[64];
	int n;

	if (!msg_guard(msg)) {
		R.skipped++;
		return;
	}
	say("msg %#018" PRIx64 " %s to=%u from=%u pos=%u (%s)", msg,
	    type_names[eusrv_msg_type(msg)], eusrv_msg_conn(msg),
	    eusrv_sor_from_decode(msg), eusrv_sor_pos_decode(msg), why);
	n = snprintf(line, sizeof(line), "%d %#" PRIx64 "\n", R.victim, msg);
	if (write(R.dmsg, line, (size_t)n) != n) {
		R.refused++;
		say("msg refused: %s", strerror(errno));
		return;
	}
	R.sent++;
	R.hist[R.nhist++ % NHIST] = msg;
}

/* A stream position near BASE (a real one), or far from it. */
static uint32_t near_pos(uint32_t base, uint32_t size)
{
	static const int32_t d[] = { 0, 1, -1, 2, -2, 64, -64, 4096, -4096 };

	switch (below(8)) {
	case 0: return base + size;
	case 1: return base + size + 1;
	case 2: return base - size;
	case 3: return base + size / 2;
	case 4: return base ^ 0x80000000U;
	case 5: return (uint32_t)rnd();
	default: return base + (uint32_t)d[below(N_OF(d))];
	}
}

/* Ids for a message, TO the victim's and FROM ours; the slot they come from. */
static struct slot *pick_ids(uint32_t *to, uint32_t *from)
{
	struct slot *s = NULL;
	unsigned int k = below(6);

	if (k < 2)		/* a live connection's, as its driver would */
		s = pick_slot(coin(50) ? TAINTED : LIVE, true);
	if (k == 2 && R.nclosed) {	/* a closed one's: a replay */
		k = below(R.nclosed < NCLOSED ? R.nclosed : NCLOSED);
		*to = R.closed[k][1];
		*from = R.closed[k][0];
		return NULL;
	}
	if (k != 3 && !s)
		s = pick_slot(LIVE, false);
	*to = s ? s->peer : below(4096);
	*from = s ? s->id : below(4096);
	if (s && coin(30)) {	/* swapped, neighbouring */
		*to = coin(50) ? s->id : s->peer + below(7) - 3;
		*from = coin(50) ? s->peer : s->id + below(7) - 3;
	}
	return s;
}

static unsigned int any_shift(void)
{
	return coin(80) ? 12 + below(10) : below(32);
}

/*
 * An ADDR frame of ours: past our RAM, at the window's end, beyond it;
 * never in our RAM (1 GiB), where the victim's data would land.
 */
static uint64_t any_frame(void)
{
	switch (below(4)) {
	case 0: return 0x100000ULL + below(0x100000);
	case 1: return 0x7ffffffULL - below(600);
	case 2: return 0x8000000ULL + below(0x8000000);
	default: return 0x40000ULL + below(EUSRV_SOR_ADDR_FRAME_MASK - 0x40000);
	}
}

/* (b) a well-formed message of a random type, for ids near the real ones. */
static void act_formed(void)
{
	unsigned int type = EUSRV_SOR_MSG_FIRST + below(EUSRV_SOR_MSG_LAST);
	bool rcv = type == EUSRV_SOR_MSG_CREDIT || type == EUSRV_SOR_MSG_ARM;
	uint32_t to, from;
	struct slot *s = pick_ids(&to, &from);
	uint64_t m;

	if (type == EUSRV_SOR_MSG_CONNRQ)
		m = eusrv_sor_msg_connrq(coin(50) ? from : below(4096),
					 (uint16_t)(coin(70) ? (uint32_t)R.port : rnd()),
					 (uint16_t)rnd(), any_shift(), any_shift());
	else if (type == EUSRV_SOR_MSG_CONNRPL && coin(50))
		m = eusrv_sor_msg_accept(to, from, any_shift(), any_shift());
	else if (type == EUSRV_SOR_MSG_CONNRPL)
		m = eusrv_sor_msg_addr(to, from, any_frame() << 12);
	else if (type == EUSRV_SOR_MSG_NACK)
		m = eusrv_sor_msg_nack(to, coin(90) ? 1 + below(2) : below(16),
				       coin(50) ? 0 : below(256),
				       coin(90) ? from : EUSRV_SOR_NO_ID);
	else if (type == EUSRV_SOR_MSG_KEEPALIVE)
		m = eusrv_sor_msg_keepalive(below(5), (uint32_t)rnd());
	else if (type == EUSRV_SOR_MSG_PROBE)
		m = eusrv_sor_msg_probe(to, from, coin(90) ? 1 + below(2) : below(16));
	else if (type == EUSRV_SOR_MSG_RST)
		m = eusrv_sor_msg_rst(to, from);
	else	/* CREDIT, ARM: our receive head; DATA, SENT, FIN: our tail */
		m = eusrv_sor_msg_pos(type, to, from,
				      near_pos(s ? (rcv ? s->in : s->out) : 0,
					       s ? (rcv ? s->rcv_size : s->snd_size) : 4096));
	if (coin(10))	/* a reserved bit set, or a field's bit flipped */
		m ^= 1ULL << below(48);
	send_msg(m, "formed");
}

/* (a) any 64 bits, mostly of the driver's types (0 is never sent). */
static void act_random(void)
{
	uint64_t m = rnd();

	if (coin(70))
		m = (m & ~(0xfULL << 60)) |
		    ((uint64_t)(1 + below(EUSRV_SOR_MSG_LAST)) << 60);
	if (!(m >> 60))
		m |= 1ULL << 60;
	send_msg(m, "random");
}

/*
 * (b) too: a connection of nobody's.  ConnRQ from an id we do not use,
 * then ADDR to the ids the victim may give it (the next after the newest
 * we know), so that it may be established with no client behind it.
 */
static void act_phantom(void)
{
	uint32_t x = 3000 + below(1000), g = R.last_peer + 1 + R.phantoms++, i;

	send_msg(eusrv_sor_msg_connrq(x, (uint16_t)R.port,
				      (uint16_t)(1024 + below(60000)),
				      12 + below(7), 12 + below(7)), "phantom");
	usleep(1000 * below(50));
	for (i = 0; i < 3; i++)
		send_msg(eusrv_sor_msg_addr(g + i - 1, x, any_frame() << 12),
			 "phantom");
}

/* (c) up to 8 earlier messages again, in a shuffled order. */
static void act_replay(void)
{
	unsigned int n = 1 + below(8), have, i, j;
	uint64_t pick[8], t;

	have = R.nhist < NHIST ? R.nhist : NHIST;
	for (i = 0; have && i < n; i++)
		pick[i] = R.hist[below(have)];
	for (i = n - 1; have && i > 0; i--) {
		j = below(i + 1);
		t = pick[i];
		pick[i] = pick[j];
		pick[j] = t;
	}
	for (i = 0; have && i < n; i++)
		send_msg(pick[i], "replay");
}

/* ---- engine stores -------------------------------------------------------- */

/*
 * An offset in S's peer block: a header word (tail, head, lock, size ...),
 * the kernel tail, anywhere in those pages; or in the data, or one the
 * knob refuses (unaligned, past the block).
 */
static uint32_t store_offset(const struct slot *s, bool hdr)
{
	static const uint32_t w[] = { 0, 64, 128, 192, 196, 200, 204, 4092, 4096 };

	if (hdr)
		return coin(60) ? w[below(N_OF(w))] : below(DATA) & ~3U;
	switch (below(8)) {
	case 0: return 1 + below(DATA + s->snd_size);
	case 1: return DATA + s->snd_size + 4 * below(64);
	default: return DATA + (below(s->snd_size) & ~3U);
	}
}

static uint32_t store_value(const struct slot *s)
{
	static const uint32_t v[] = {
		0, 1, 4096, 0x7fffffff, 0x80000000, 0xffffffff,
		EUSRV_SOR_LOCK_WAITERS | 1,
		EUSRV_SOR_LOCK_WAITERS | EUSRV_SOR_LOCK_KERNEL | 1,
	};

	switch (below(4)) {
	case 0: return v[below(N_OF(v))];
	case 1: return near_pos(s->out, s->snd_size);
	case 2: return s->snd_size - below(2);
	default: return (uint32_t)rnd();
	}
}

/* (d) a store into a clean connection's peer block; a header store taints. */
static void act_store(void)
{
	bool hdr = coin(25);
	struct slot *s = pick_slot(LIVE, hdr);
	uint32_t off, val;
	char line[64];
	int n;

	if (!s)
		return;
	off = store_offset(s, hdr);
	val = store_value(s);
	if (off < DATA) {
		s->st = TAINTED;
		R.taints++;
	}
	say("store id %u peer %u off %u val %#x", s->id, s->peer, off, val);
	n = snprintf(line, sizeof(line), "%u %u %u\n", s->id, off, val);
	R.stores++;
	if (write(R.dwr, line, (size_t)n) != n) {
		R.store_err++;
		say("store refused: %s", strerror(errno));
	}
}

/* (e) open a connection into a free slot, or close one with nothing in flight. */
static void act_churn(void)
{
	struct slot *s = pick_slot(FREE, false);
	unsigned int i, tainted = 0;

	for (i = 0; i < NSLOT; i++)
		tainted += R.s[i].st == TAINTED;
	if (s && (coin(70) || !tainted)) {
		conn_open(s);
		return;
	}
	s = pick_slot(TAINTED, false);
	if (!s || coin(20))
		s = pick_slot(LIVE, true);
	if (s)
		conn_close(s);
}

/* ---- main ----------------------------------------------------------------- */

/* Say when the victim is taken for down (it crashed?) and up again. */
static void watch_victim(void)
{
	struct eusrv_sor_stats st;
	bool down;

	if (ioctl(R.ctl, EUSRV_SOR_STATS, &st))
		return;
	down = !(st.nodes_up & (1ULL << R.victim));
	if (down != R.down) {
		say("victim node%d %s", R.victim, down ? "DOWN" : "up again");
		printf("sor-rogue: node%d %s at operation #%lu\n", R.victim,
		       down ? "down" : "up again", R.nops);
		fflush(stdout);
	}
	R.down = down;
}

static const struct act {
	const char *name;
	unsigned int weight;
	void (*fn)(void);
} acts[] = {
	{ "random", 15, act_random }, { "formed", 27, act_formed },
	{ "phantom", 3, act_phantom }, { "replay", 10, act_replay },
	{ "store", 15, act_store }, { "echo", 20, act_echo },
	{ "churn", 10, act_churn },
};
static bool skip[N_OF(acts)];

static void one_op(void)
{
	unsigned int i, total = 0, k;

	for (i = 0; i < N_OF(acts); i++)
		total += skip[i] ? 0 : acts[i].weight;
	k = below(total);
	R.op_start = now();
	R.nops++;
	for (i = 0; i < N_OF(acts); k -= skip[i] ? 0 : acts[i].weight, i++)
		if (!skip[i] && k < acts[i].weight) {
			acts[i].fn();
			return;
		}
}

/* -x NAME,...: those operations are left out; -1 for a name not in acts[]. */
static int skip_acts(char *list)
{
	unsigned int i;
	char *name;

	while ((name = strsep(&list, ","))) {
		for (i = 0; i < N_OF(acts) && strcmp(name, acts[i].name); i++)
			;
		if (i == N_OF(acts))
			return -1;
		skip[i] = true;
	}
	return 0;
}

static int setup(int argc, char **argv, unsigned long *gap)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 1, 0 }, { 1, 0 } };
	const char *log = "/tmp/sor-rogue.log";
	int o;

	while ((o = getopt(argc, argv, "l:g:x:")) != -1) {
		if (o == 'l')
			log = optarg;
		else if (o == 'g')
			*gap = strtoul(optarg, NULL, 0);
		else if (o != 'x' || skip_acts(optarg))
			return -1;
	}
	if (argc - optind != 4)
		return -1;
	R.dmsg = open(DBG "inject", O_WRONLY | O_CLOEXEC);
	R.dwr = open(DBG "inject_write", O_WRONLY | O_CLOEXEC);
	R.ctl = open(EUSRV_SOR_DEVICE, O_RDWR | O_CLOEXEC);
	R.log = fopen(log, "w");
	if (R.dmsg < 0 || R.dwr < 0 || R.ctl < 0 || !R.log) {
		perror(R.log ? DBG "inject*" : log);
		return -1;
	}
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long gap = 2000;
	double t0, end;
	unsigned int i;

	if (setup(argc, argv, &gap)) {
		fprintf(stderr, "usage: sor-rogue [-l LOG] [-g GAP_US] [-x OP,...] SEED SECONDS VICTIM PORT\n");
		return 2;
	}
	rs = strtoull(argv[optind], NULL, 0);
	if (!rs)
		rs = (uint64_t)(now() * 1e9) ^ (uint64_t)getpid();
	R.victim = atoi(argv[optind + 2]);
	R.port = atoi(argv[optind + 3]);
	printf("sor-rogue: %d: seed=%" PRIu64 " victim=node%d port %d, %s s\n",
	       (int)getpid(), rs, R.victim, R.port, argv[optind + 1]);
	fflush(stdout);
	say("seed %" PRIu64, rs);
	t0 = R.op_start = now();
	end = t0 + atof(argv[optind + 1]);
	for (i = 0; i < NSLOT / 2; i++)
		conn_open(&R.s[i]);
	while (now() < end) {
		one_op();
		if (!(R.nops % 32))
			watch_victim();
		if (gap)
			usleep((useconds_t)gap);
	}
	R.op_start = now();
	for (i = 0; i < NSLOT; i++)
		if (R.s[i].st != FREE)
			conn_close(&R.s[i]);
	say("end");
	printf("sor-rogue: %d: %lu operations in %.0f s: messages sent=%lu "
	       "refused=%lu skipped=%lu, stores=%lu refused=%lu, connections "
	       "opened=%lu failed=%lu closed=%lu tainted=%lu, echoes=%lu lost=%lu\n",
	       (int)getpid(), R.nops, now() - t0, R.sent, R.refused, R.skipped,
	       R.stores, R.store_err, R.opens, R.open_err, R.closes, R.taints,
	       R.echoes, R.lost);
	return 0;
}
