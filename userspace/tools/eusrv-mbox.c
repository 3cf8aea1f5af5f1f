// SPDX-License-Identifier: MIT
/*
 * eusrv-mbox: the node mailbox from the command line (ping-pong with
 * round-trip statistics, checked floods, counters), via /dev/eusrv_mbox.
 * Output is key=value so that scripts and tests can read it.
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

#include <uapi/eusrv/mbox_diag.h>

#define DEV_PATH	"/dev/eusrv_mbox"
/* Round trips per ioctl; longer runs are split into batches. */
#define PING_BATCH	100000U

static const char *prog = "eusrv-mbox";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"  ping NODE [-c COUNT] [-t TIMEOUT_MS]  round trips to NODE, every reply checked\n"
		"  flood NODE [-c COUNT]                 numbered messages to NODE as fast as possible\n"
		"  stats                                 mailbox and driver counters\n"
		"  reset                                 zero the driver's counters and sequences\n"
		"  pause MS                              stop draining the inbound FIFO for MS ms\n"
		"NODE is a number or nodeN.\n", prog);
}

static int open_dev(void)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "%s: %s: %s (is eusrv_mbox loaded?)\n", prog,
			DEV_PATH, strerror(errno));
	return fd;
}

static bool parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!strncmp(s, "node", 4))
		s += 4;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The value at quantile q (0..1) of n sorted samples, nearest rank. */
static uint32_t quantile(const uint32_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static int cmd_ping(int fd, uint32_t node, uint32_t count, uint32_t timeout_ms)
{
	uint32_t *samples = calloc(count, sizeof(*samples));
	uint32_t done = 0, errors = 0;
	int ret = 0;

	if (!samples) {
		fprintf(stderr, "%s: ping: out of memory for %u samples\n", prog, count);
		return 1;
	}
	while (done < count) {
		uint32_t n = count - done < PING_BATCH ? count - done : PING_BATCH;
		struct eusrv_mbox_ping p = {
			.node = node,
			.count = n,
			.timeout_ms = timeout_ms,
			.samples = (uintptr_t)(samples + done),
		};

		if (ioctl(fd, EUSRV_MBOX_IOC_PING, &p) < 0) {
			int e = errno;

			done += p.done;
			errors += p.errors;
			if (e == ETIMEDOUT)
				fprintf(stderr, "%s: ping node %u: no reply within %u ms after %u round trips\n",
					prog, node, timeout_ms ? timeout_ms : 1000, done);
			else if (e == EHOSTUNREACH)
				fprintf(stderr, "%s: ping node %u: the board could not deliver to it (node down or mailbox off) after %u round trips\n",
					prog, node, done);
			else
				fprintf(stderr, "%s: ping node %u: %s after %u round trips\n",
					prog, node, strerror(e), done);
			ret = 1;
			break;
		}
		done += p.done;
		errors += p.errors;
	}
	if (done) {
		qsort(samples, done, sizeof(*samples), cmp_u32);
		printf("ping node=%u count=%u errors=%u rtt_min_us=%.1f rtt_median_us=%.1f rtt_p99_us=%.1f rtt_max_us=%.1f\n",
		       node, done, errors, samples[0] / 1e3,
		       quantile(samples, done, 0.5) / 1e3,
		       quantile(samples, done, 0.99) / 1e3,
		       samples[done - 1] / 1e3);
	}
	if (errors) {
		fprintf(stderr, "%s: ping node %u: %u wrong replies\n", prog, node, errors);
		ret = 1;
	}
	free(samples);
	return ret;
}

static int cmd_flood(int fd, uint32_t node, uint32_t count)
{
	struct eusrv_mbox_flood f = { .node = node, .count = count };
	int ret = ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f);
	int e = errno;

	printf("flood node=%u sent=%u waits=%u failed=%u\n", node, f.sent,
	       f.waits, f.failed);
	if (ret < 0) {
		fprintf(stderr, "%s: flood node %u: %s after %u messages\n", prog,
			node, strerror(e), f.sent);
		return 1;
	}
	if (f.failed) {
		fprintf(stderr, "%s: flood node %u: %u messages not delivered\n",
			prog, node, f.failed);
		return 1;
	}
	return 0;
}

static int cmd_stats(int fd)
{
	struct eusrv_mbox_stats s;
	unsigned int i;

	if (ioctl(fd, EUSRV_MBOX_IOC_STATS, &s) < 0) {
		fprintf(stderr, "%s: stats: %s\n", prog, strerror(errno));
		return 1;
	}
	printf("node=%u\nnodes=%u\n", s.node_id, s.nodes);
	printf("rx_total=%" PRIu64 "\ntx_total=%" PRIu64 "\n", (uint64_t)s.rx_total,
	       (uint64_t)s.tx_total);
	printf("full_cnt=%u\ntx_wait_cnt=%u\ntx_err_cnt=%u\nbad_cnt=%u\nbad_last=%u\n",
	       s.full_cnt, s.tx_wait_cnt, s.tx_err_cnt, s.bad_cnt, s.bad_last);
	printf("rx_msgs=%" PRIu64 "\nrx_unhandled=%" PRIu64 "\nrx_bad_src=%" PRIu64 "\n",
	       (uint64_t)s.rx_msgs, (uint64_t)s.rx_unhandled, (uint64_t)s.rx_bad_src);
	printf("tx_msgs=%" PRIu64 "\ntx_busy=%" PRIu64 "\ntx_failed=%" PRIu64 "\n",
	       (uint64_t)s.tx_msgs, (uint64_t)s.tx_busy, (uint64_t)s.tx_failed);
	for (i = 0; i < s.nodes && i < EUSRV_MBOX_DIAG_MAX_NODES; i++)
		printf("seq src=%u received=%" PRIu64 " dup=%" PRIu64 " gap=%" PRIu64
		       " next=%" PRIu64 "\n", i, (uint64_t)s.seq[i].received,
		       (uint64_t)s.seq[i].dup, (uint64_t)s.seq[i].gap,
		       (uint64_t)s.seq[i].next);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t node = 0, count = 1000, timeout_ms = 0, ms;
	const char *cmd;
	int fd, c, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	argv++;
	argc--;
	if (!strcmp(cmd, "ping") || !strcmp(cmd, "flood") || !strcmp(cmd, "pause")) {
		uint32_t max = !strcmp(cmd, "pause") ? EUSRV_MBOX_DIAG_MAX_PAUSE_MS :
						       EUSRV_MBOX_DIAG_MAX_NODES - 1;

		if (argc < 2 || !parse_u32(argv[1], max, &node)) {
			fprintf(stderr, "%s: %s: bad or missing %s '%s'\n", prog, cmd,
				!strcmp(cmd, "pause") ? "milliseconds" : "node",
				argc < 2 ? "" : argv[1]);
			return 2;
		}
		argv++;
		argc--;
	}
	while ((c = getopt(argc, argv, "c:t:")) != -1) {
		switch (c) {
		case 'c':
			if (!parse_u32(optarg, UINT32_MAX, &count) || !count) {
				fprintf(stderr, "%s: bad count '%s'\n", prog, optarg);
				return 2;
			}
			break;
		case 't':
			if (!parse_u32(optarg, EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS, &timeout_ms)) {
				fprintf(stderr, "%s: bad timeout '%s'\n", prog, optarg);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	fd = open_dev();
	if (fd < 0)
		return 1;
	if (!strcmp(cmd, "ping")) {
		ret = cmd_ping(fd, node, count, timeout_ms);
	} else if (!strcmp(cmd, "flood")) {
		ret = cmd_flood(fd, node, count);
	} else if (!strcmp(cmd, "stats")) {
		ret = cmd_stats(fd);
	} else if (!strcmp(cmd, "reset")) {
		ret = ioctl(fd, EUSRV_MBOX_IOC_RESET) < 0;
		if (ret)
			fprintf(stderr, "%s: reset: %s\n", prog, strerror(errno));
	} else if (!strcmp(cmd, "pause")) {
		ms = node;
		ret = ioctl(fd, EUSRV_MBOX_IOC_PAUSE, &ms) < 0;
		if (ret)
			fprintf(stderr, "%s: pause: %s\n", prog, strerror(errno));
	} else {
		fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
		usage(stderr);
		ret = 2;
	}
	close(fd);
	return ret;
}
