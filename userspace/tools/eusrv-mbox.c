// SPDX-License-Identifier: MIT
/*
 * eusrv-mbox: the node's mailbox from the command line, through the
 * diagnostics device of eusrv_mbox.ko: kernel-to-kernel ping-pong with
 * round-trip statistics, numbered floods checked by the receiver, counters
 * and a FIFO pause.  Results are key=value so that scripts can read them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <eusrv/board_hw.h>
#include <uapi/eusrv/mbox_diag.h>

#include "tool_util.h"

#define DEV_PATH	"/dev/eusrv_mbox"
#define DEF_COUNT	1000U
/* Round trips per ioctl: bounds the time one call takes. */
#define PING_BATCH	100000U
#define NS_PER_US	1e3
#define P50		0.50
#define P99		0.99

static const char *prog = "eusrv-mbox";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"  ping NODE [-c COUNT] [-t TIMEOUT_MS]   COUNT round trips to NODE (default %u),\n"
		"                                         every reply checked; TIMEOUT_MS per\n"
		"                                         round trip (default %u)\n"
		"  flood NODE [-c COUNT] [-t TIMEOUT_MS] [--no-flush]\n"
		"                                         COUNT numbered messages to NODE as fast\n"
		"                                         as the queue takes them (default %u);\n"
		"                                         --no-flush: return once all are queued\n"
		"  stats                                  mailbox, driver and per-source counters\n"
		"  reset                                  zero the counters and sequence numbers\n"
		"  pause MS                               stop draining the inbound FIFO for MS ms\n"
		"                                         (1..%u)\n"
		"NODE is a node number or nodeN.  Exit status: 0 success, 1 failure, 2 usage.\n",
		prog, DEF_COUNT, EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS, DEF_COUNT,
		EUSRV_MBOX_DIAG_MAX_PAUSE_MS);
}

/* A decimal number in [MIN, MAX], digits only. */
static const char *status_name(uint32_t status)
{
	switch (status) {
	case EUSRV_MBOX_ST_FULL:
		return "its FIFO stayed full until the store timed out";
	case EUSRV_MBOX_ST_DECERR:
		return "no such node (decode error)";
	case EUSRV_MBOX_ST_DISABLED:
		return "its mailbox is disabled (driver not loaded?)";
	default:
		return "unknown completion status";
	}
}

/* Why an ioctl on the mailbox failed, for messages. */
static const char *ioctl_reason(int err)
{
	if (err == ENODEV)
		return "no mailbox bound (is eusrv_board loaded?)";
	return strerror(err);
}

static int get_stats(int fd, struct eusrv_mbox_stats *s, const char *what)
{
	if (ioctl(fd, EUSRV_MBOX_IOC_STATS, s) < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, ioctl_reason(errno));
		return -1;
	}
	return 0;
}

/* NODE must be on this board; says why not. */
static int check_node(int fd, const char *cmd, uint32_t node)
{
	struct eusrv_mbox_stats s;
	char what[64];

	snprintf(what, sizeof(what), "%s node %u", cmd, node);
	if (get_stats(fd, &s, what))
		return -1;
	if (node >= s.nodes) {
		fprintf(stderr, "%s: %s: not on this board (nodes 0..%u)\n", prog,
			what, s.nodes - 1);
		return -1;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The value at quantile Q (0..1] of N sorted samples, nearest rank. */
static uint32_t quantile(const uint32_t *v, size_t n, double q)
{
	double r = q * (double)n;
	size_t rank = (size_t)r;

	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static void ping_failed(uint32_t node, const struct eusrv_mbox_ping *p,
			uint32_t done, uint32_t timeout_ms, int err)
{
	fprintf(stderr, "%s: ping node %u: ", prog, node);
	if (err == ETIMEDOUT && p->tx_status == 0)
		fprintf(stderr, "timed out after %u ms (no reply to message %u)\n",
			timeout_ms, done);
	else if (p->tx_status)
		fprintf(stderr, "message %u not delivered: %s\n", done,
			status_name(p->tx_status));
	else
		fprintf(stderr, "%s after %u round trips\n", ioctl_reason(err), done);
}

static int cmd_ping(int fd, uint32_t node, uint32_t count, uint32_t timeout_ms)
{
	uint32_t done = 0, errors = 0, *samples = NULL;
	int ret = 0;

	if (check_node(fd, "ping", node))
		return 1;
	while (done < count) {
		uint32_t n = count - done < PING_BATCH ? count - done : PING_BATCH;
		struct eusrv_mbox_ping p = {
			.node = node,
			.count = n,
			.timeout_ms = timeout_ms,
		};
		uint32_t *grown;

		/* Grown batch by batch: memory follows the run's progress. */
		grown = realloc(samples, ((size_t)done + n) * sizeof(*samples));
		if (!grown) {
			fprintf(stderr, "%s: ping node %u: no memory for %u samples\n",
				prog, node, done + n);
			ret = 1;
			break;
		}
		samples = grown;
		p.samples = (uintptr_t)(samples + done);
		if (ioctl(fd, EUSRV_MBOX_IOC_PING, &p) < 0) {
			int err = errno;

			done += p.done;
			errors += p.errors;
			ping_failed(node, &p, done, timeout_ms, err);
			ret = 1;
			break;
		}
		done += p.done;
		errors += p.errors;
	}
	if (done) {
		qsort(samples, done, sizeof(*samples), cmp_u32);
		printf("ping node=%u count=%u errors=%u rtt_min_us=%.1f rtt_median_us=%.1f rtt_p99_us=%.1f rtt_max_us=%.1f\n",
		       node, done, errors, samples[0] / NS_PER_US,
		       quantile(samples, done, P50) / NS_PER_US,
		       quantile(samples, done, P99) / NS_PER_US,
		       samples[done - 1] / NS_PER_US);
	}
	if (errors) {
		fprintf(stderr, "%s: ping node %u: %u wrong replies (payload or source)\n",
			prog, node, errors);
		ret = 1;
	}
	free(samples);
	return ret;
}

static int cmd_flood(int fd, uint32_t node, uint32_t count, uint32_t timeout_ms,
		     uint32_t flags)
{
	struct eusrv_mbox_flood f = {
		.node = node,
		.count = count,
		.timeout_ms = timeout_ms,
		.flags = flags,
	};
	int ret, err;

	if (check_node(fd, "flood", node))
		return 1;
	ret = ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f);
	err = errno;
	printf("flood node=%u sent=%u waits=%u failed=%u\n", node, f.sent,
	       f.waits, f.failed);
	if (ret < 0) {
		if (err == ETIMEDOUT)
			fprintf(stderr, "%s: flood node %u: outbound queue stuck for %u ms after %u messages\n",
				prog, node, timeout_ms, f.sent);
		else
			fprintf(stderr, "%s: flood node %u: %s after %u messages\n",
				prog, node, ioctl_reason(err), f.sent);
		return 1;
	}
	if (f.failed) {
		fprintf(stderr, "%s: flood node %u: %u messages not delivered: %s\n",
			prog, node, f.failed, status_name(f.tx_status));
		return 1;
	}
	return 0;
}

static int cmd_stats(int fd)
{
	struct eusrv_mbox_stats s;
	unsigned int i;

	if (get_stats(fd, &s, "stats"))
		return 1;
	printf("node=%u\nnodes=%u\n", s.node_id, s.nodes);
	printf("rx_total=%" PRIu64 "\ntx_total=%" PRIu64 "\n",
	       (uint64_t)s.rx_total, (uint64_t)s.tx_total);
	printf("full_cnt=%u\ntx_wait_cnt=%u\ntx_err_cnt=%u\nbad_cnt=%u\nbad_last=%u\n",
	       s.full_cnt, s.tx_wait_cnt, s.tx_err_cnt, s.bad_cnt, s.bad_last);
	printf("tx_busy_cnt=%u\nroom_cnt=%u\n", s.tx_busy_cnt, s.room_cnt);
	printf("rx_msgs=%" PRIu64 "\nrx_unhandled=%" PRIu64 "\nrx_invalid=%" PRIu64
	       "\nrx_bad_src=%" PRIu64 "\nrx_resync=%" PRIu64 "\n",
	       (uint64_t)s.rx_msgs, (uint64_t)s.rx_unhandled,
	       (uint64_t)s.rx_invalid, (uint64_t)s.rx_bad_src,
	       (uint64_t)s.rx_resync);
	printf("tx_msgs=%" PRIu64 "\ntx_busy=%" PRIu64 "\ntx_full=%" PRIu64
	       "\ntx_decerr=%" PRIu64 "\ntx_disabled=%" PRIu64
	       "\ntx_bad_status=%" PRIu64 "\n",
	       (uint64_t)s.tx_msgs, (uint64_t)s.tx_busy, (uint64_t)s.tx_full,
	       (uint64_t)s.tx_decerr, (uint64_t)s.tx_disabled,
	       (uint64_t)s.tx_bad_status);
	printf("tx_refused=%" PRIu64 "\ntx_held=%" PRIu64 "\ntx_resent=%" PRIu64
	       "\nrooms=%" PRIu64 "\nbacklog=%" PRIu64 "\n",
	       (uint64_t)s.tx_refused, (uint64_t)s.tx_held,
	       (uint64_t)s.tx_resent, (uint64_t)s.rooms, (uint64_t)s.backlog);
	printf("ping_stale=%" PRIu64 "\npong_unsent=%" PRIu64 "\npong_failed=%" PRIu64 "\n",
	       (uint64_t)s.ping_stale, (uint64_t)s.pong_unsent,
	       (uint64_t)s.pong_failed);
	for (i = 0; i < s.nodes && i < EUSRV_MBOX_DIAG_MAX_NODES; i++) {
		const struct eusrv_mbox_seq_stats *q = &s.seq[i];

		printf("seq src=%u received=%" PRIu64 " dup=%" PRIu64 " gap=%" PRIu64
		       " late=%" PRIu64, i, (uint64_t)q->received, (uint64_t)q->dup,
		       (uint64_t)q->gap, (uint64_t)q->late);
		if (q->received)
			printf(" last=%" PRIu64 "\n", (uint64_t)q->last);
		else
			printf(" last=none\n");
	}
	return 0;
}

static int cmd_reset(int fd)
{
	if (ioctl(fd, EUSRV_MBOX_IOC_RESET) < 0) {
		fprintf(stderr, "%s: reset: %s\n", prog, ioctl_reason(errno));
		return 1;
	}
	return 0;
}

static int cmd_pause(int fd, uint32_t ms)
{
	if (ioctl(fd, EUSRV_MBOX_IOC_PAUSE, &ms) < 0) {
		fprintf(stderr, "%s: pause %u ms: %s\n", prog, ms, ioctl_reason(errno));
		return 1;
	}
	return 0;
}

enum cmd { CMD_PING, CMD_FLOOD, CMD_STATS, CMD_RESET, CMD_PAUSE };

static const struct {
	const char *name;
	enum cmd cmd;
	unsigned int args;	/* positional arguments */
	bool opts;		/* takes -c and -t */
} cmds[] = {
	{ "ping", CMD_PING, 1, true },
	{ "flood", CMD_FLOOD, 1, true },
	{ "stats", CMD_STATS, 0, false },
	{ "reset", CMD_RESET, 0, false },
	{ "pause", CMD_PAUSE, 1, false },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-flush", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t count = DEF_COUNT, timeout_ms = 0, arg = 0, flood_flags = 0;
	unsigned int i, c = 0;
	int fd, opt, ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0])) {
		fprintf(stderr, "%s: unknown command '%s' (try --help)\n", prog, argv[1]);
		return 2;
	}
	c = i;

	/* Options may come before or after the positional argument. */
	argv++;
	argc--;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:t:h", longopts, NULL)) != -1) {
		if ((opt == 'c' || opt == 't') && !cmds[c].opts) {
			fprintf(stderr, "%s: %s takes no option -%c (try --help)\n",
				prog, cmds[c].name, opt);
			return 2;
		}
		switch (opt) {
		case 'c':
			if (!tool_parse_u32(optarg, 1, UINT32_MAX, &count)) {
				fprintf(stderr, "%s: %s: bad count '%s' (1..%u)\n", prog,
					cmds[c].name, optarg, UINT32_MAX);
				return 2;
			}
			break;
		case 't':
			if (!tool_parse_u32(optarg, 1, EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS,
					&timeout_ms)) {
				fprintf(stderr, "%s: %s: bad timeout '%s' (1..%u ms)\n",
					prog, cmds[c].name, optarg,
					EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS);
				return 2;
			}
			break;
		case 'n':
			if (cmds[c].cmd != CMD_FLOOD) {
				fprintf(stderr, "%s: %s takes no option --no-flush (try --help)\n",
					prog, cmds[c].name);
				return 2;
			}
			flood_flags |= EUSRV_MBOX_FLOOD_NOFLUSH;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: %s: option '%s' needs a value\n", prog,
				cmds[c].name, argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "%s: %s: bad option '%s' (try --help)\n", prog,
				cmds[c].name, argv[optind - 1]);
			return 2;
		}
	}
	if ((unsigned int)(argc - optind) != cmds[c].args) {
		fprintf(stderr, "%s: %s: expected %u argument%s (try --help)\n", prog,
			cmds[c].name, cmds[c].args, cmds[c].args == 1 ? "" : "s");
		return 2;
	}
	if (cmds[c].cmd == CMD_PAUSE &&
	    !tool_parse_u32(argv[optind], 1, EUSRV_MBOX_DIAG_MAX_PAUSE_MS, &arg)) {
		fprintf(stderr, "%s: pause: bad duration '%s' (1..%u ms)\n", prog,
			argv[optind], EUSRV_MBOX_DIAG_MAX_PAUSE_MS);
		return 2;
	}
	if (cmds[c].opts && !tool_parse_node(argv[optind], EUSRV_MBOX_DIAG_MAX_NODES, &arg)) {
		fprintf(stderr, "%s: %s: bad node '%s' (0..%u or nodeN)\n", prog,
			cmds[c].name, argv[optind], EUSRV_MBOX_DIAG_MAX_NODES - 1);
		return 2;
	}
	if (!timeout_ms)
		timeout_ms = EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS;

	fd = tool_open_dev(prog, DEV_PATH, " (is eusrv_mbox loaded?)");
	if (fd < 0)
		return 1;
	switch (cmds[c].cmd) {
	case CMD_PING:
		ret = cmd_ping(fd, arg, count, timeout_ms);
		break;
	case CMD_FLOOD:
		ret = cmd_flood(fd, arg, count, timeout_ms, flood_flags);
		break;
	case CMD_STATS:
		ret = cmd_stats(fd);
		break;
	case CMD_RESET:
		ret = cmd_reset(fd);
		break;
	case CMD_PAUSE:
	default:
		ret = cmd_pause(fd, arg);
		break;
	}
	close(fd);
	return ret;
}
