// SPDX-License-Identifier: MIT
/*
 * eusrv-cdma: the node's AXI CDMA engine from the command line, through the
 * diagnostics device of eusrv_cdma.ko: checked copies to a node with their
 * throughput, a transfer to an undecodable address (error and recovery),
 * counters.  Results are key=value so that scripts can read them.
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

#include <uapi/eusrv/cdma_diag.h>

#include "tool_util.h"

#define DEV_PATH	"/dev/eusrv_cdma"
#define DEF_COUNT	100U
#define DEF_LEN		65536U
/* Copies per ioctl: bounds the time one call takes. */
#define COPY_BATCH	10000U

static const char *prog = "eusrv-cdma";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"  copy NODE [-s BYTES] [-c COUNT] [-S SEED] [-n] [-t TIMEOUT_MS]\n"
		"        COUNT copies (default %u) of BYTES (1..%u, default %u) into\n"
		"        NODE's buffer, each checked by NODE (-n: not checked);\n"
		"        prints the receiver's verdicts and the throughput\n"
		"  badaddr [-a GLOBAL_ADDR] [-t TIMEOUT_MS]\n"
		"        one transfer to an address that decodes to nothing: the\n"
		"        engine must fail it and the driver recover\n"
		"  stats      engine, driver and receiver counters\n"
		"  reset      zero the driver's and the receiver's counters\n"
		"NODE is a node number or nodeN.  Exit status: 0 success, 1 failure, 2 usage.\n",
		prog, DEF_COUNT, EUSRV_CDMA_DIAG_MAX_LEN, DEF_LEN);
}

static const char *reason(int err)
{
	switch (err) {
	case ENODEV:
		return "no CDMA engine bound";
	case ETIMEDOUT:
		return "timed out";
	case EINVAL:
		return "invalid argument (node not on this board?)";
	default:
		return strerror(err);
	}
}

static int cmd_copy(int fd, uint32_t node, uint32_t len, uint32_t count,
		    uint32_t seed, uint32_t flags, uint32_t timeout_ms)
{
	uint64_t done = 0, good = 0, bad = 0, failed = 0, bytes = 0, ns = 0;
	uint32_t left = count;
	int err = 0;

	while (left) {
		struct eusrv_cdma_copy c = {
			.node = node,
			.len = len,
			.count = left < COPY_BATCH ? left : COPY_BATCH,
			.seed = seed,
			.flags = flags,
			.timeout_ms = timeout_ms,
		};

		if (ioctl(fd, EUSRV_CDMA_IOC_COPY, &c) < 0)
			err = errno;
		done += c.done;
		good += c.good;
		bad += c.bad;
		failed += c.failed;
		bytes += c.bytes;
		ns += c.elapsed_ns;
		if (err)
			break;
		left -= c.count;
		seed++;
	}
	printf("copy node=%u len=%u count=%u done=%" PRIu64 " good=%" PRIu64
	       " bad=%" PRIu64 " failed=%" PRIu64 " bytes=%" PRIu64
	       " seconds=%.6f mbytes_per_s=%.1f\n",
	       node, len, count, done, good, bad, failed, bytes, ns / 1e9,
	       ns ? bytes / (ns / 1e9) / 1e6 : 0.0);
	if (err) {
		fprintf(stderr, "%s: copy to node %u: %s after %" PRIu64 " copies\n",
			prog, node, reason(err), done);
		return 1;
	}
	if (done != count || bad || failed ||
	    (!(flags & EUSRV_CDMA_DIAG_F_NOVERIFY) && good != count)) {
		fprintf(stderr, "%s: copy to node %u: %" PRIu64 " bad, %" PRIu64
			" failed, %" PRIu64 " of %u checked good\n", prog, node, bad,
			failed, good, count);
		return 1;
	}
	return 0;
}

static int cmd_badaddr(int fd, uint64_t addr, uint32_t timeout_ms)
{
	struct eusrv_cdma_badaddr a = { .addr = addr, .timeout_ms = timeout_ms };

	if (ioctl(fd, EUSRV_CDMA_IOC_BADADDR, &a) < 0) {
		fprintf(stderr, "%s: badaddr: %s\n", prog, reason(errno));
		return 1;
	}
	printf("badaddr addr=%#" PRIx64 " error=%d resets=%u\n", addr, a.error,
	       a.resets);
	if (a.error != -EIO) {
		fprintf(stderr, "%s: badaddr: the transfer did not fail with EIO\n", prog);
		return 1;
	}
	return 0;
}

static int cmd_stats(int fd)
{
	struct eusrv_cdma_stats s;
	unsigned int i;

	if (ioctl(fd, EUSRV_CDMA_IOC_STATS, &s) < 0) {
		fprintf(stderr, "%s: stats: %s\n", prog, reason(errno));
		return 1;
	}
	printf("node=%u\nnodes=%u\nsr=%#x\n", s.node_id, s.nodes, s.sr);
	printf("hw_bytes=%" PRIu64 "\nhw_descs=%u\nhw_msgs=%u\nhw_errors=%u\n"
	       "hw_waits=%u\nhw_bad_cnt=%u\nhw_bad_last=%u\n", (uint64_t)s.hw_bytes,
	       s.hw_descs, s.hw_msgs, s.hw_errors, s.hw_waits, s.hw_bad_cnt,
	       s.hw_bad_last);
	printf("hw_refused=%u\n", s.hw_refused);
	printf("last_err_sr=%#x\nlast_err_desc=%#" PRIx64 "\n", s.last_err_sr,
	       (uint64_t)s.last_err_desc);
	printf("xfers=%" PRIu64 "\ncompleted=%" PRIu64 "\nfailed=%" PRIu64
	       "\ncancelled=%" PRIu64 "\nrestarted=%" PRIu64 "\nresets=%" PRIu64
	       "\nring_waits=%" PRIu64 "\nirqs=%" PRIu64 "\n",
	       (uint64_t)s.xfers, (uint64_t)s.completed, (uint64_t)s.failed,
	       (uint64_t)s.cancelled, (uint64_t)s.restarted, (uint64_t)s.resets,
	       (uint64_t)s.ring_waits, (uint64_t)s.irqs);
	printf("resent=%" PRIu64 "\n", (uint64_t)s.resent);
	for (i = 0; i < EUSRV_CDMA_DIAG_MAX_NODES; i++)
		if (s.rx_good[i] || s.rx_bad[i])
			printf("rx src=%u good=%" PRIu64 " bad=%" PRIu64 "\n", i,
			       (uint64_t)s.rx_good[i], (uint64_t)s.rx_bad[i]);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t node = 0, len = DEF_LEN, count = DEF_COUNT, seed = 1, flags = 0;
	uint32_t timeout_ms = 0;
	uint64_t addr = 0;
	const char *cmd;
	int fd, opt, ret;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	argv++;
	argc--;
	if (!strcmp(cmd, "copy")) {
		if (argc < 2 || !tool_parse_node(argv[1], EUSRV_CDMA_DIAG_MAX_NODES, &node)) {
			fprintf(stderr, "%s: copy: NODE missing or bad (try --help)\n", prog);
			return 2;
		}
		argv++;
		argc--;
	} else if (strcmp(cmd, "badaddr") && strcmp(cmd, "stats") && strcmp(cmd, "reset")) {
		fprintf(stderr, "%s: unknown command '%s' (try --help)\n", prog, cmd);
		return 2;
	}
	while ((opt = getopt(argc, argv, "s:c:S:nt:a:")) != -1) {
		bool good;

		switch (opt) {
		case 's':
			good = tool_parse_u32(optarg, 1, EUSRV_CDMA_DIAG_MAX_LEN, &len);
			break;
		case 'c':
			good = tool_parse_u32(optarg, 1, UINT32_MAX, &count);
			break;
		case 'S':
			good = tool_parse_u32(optarg, 0, UINT32_MAX, &seed);
			break;
		case 'n':
			flags |= EUSRV_CDMA_DIAG_F_NOVERIFY;
			good = true;
			break;
		case 't':
			good = tool_parse_u32(optarg, 0, EUSRV_CDMA_DIAG_MAX_TIMEOUT_MS,
					 &timeout_ms);
			break;
		case 'a':
			good = tool_parse_u64(optarg, UINT64_MAX, &addr);
			break;
		default:
			usage(stderr);
			return 2;
		}
		if (!good) {
			fprintf(stderr, "%s: bad value '%s' for -%c (try --help)\n", prog,
				optarg, opt);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}
	fd = tool_open_dev(prog, DEV_PATH, " (is eusrv_cdma loaded?)");
	if (fd < 0)
		return 1;
	if (!strcmp(cmd, "copy")) {
		ret = cmd_copy(fd, node, len, count, seed, flags, timeout_ms);
	} else if (!strcmp(cmd, "badaddr")) {
		ret = cmd_badaddr(fd, addr, timeout_ms);
	} else if (!strcmp(cmd, "stats")) {
		ret = cmd_stats(fd);
	} else {
		ret = ioctl(fd, EUSRV_CDMA_IOC_RESET) < 0;
		if (ret)
			fprintf(stderr, "%s: reset: %s\n", prog, reason(errno));
	}
	close(fd);
	return ret;
}
