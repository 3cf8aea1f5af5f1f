// SPDX-License-Identifier: MIT
/*
 * eusrv-exec: the host side of `qemu/board exec`.  Sends one shell command
 * to a node's agent over the loopback-forwarded control port and relays its
 * output; exits with the command's status.
 *
 * Exit status: the command's (124 if the agent killed it at its timeout);
 * otherwise 254 if the agent cannot be reached or does not start the command
 * within --start-timeout (used while a node boots), 255 if the connection
 * broke or the agent broke the protocol, 124 if the agent fell silent past
 * the timeout.  As a command may exit with any of these, --fail-fd names a
 * descriptor that receives one word ("unreachable", "lost", "silent") when
 * the status is eusrv-exec's own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "io_util.h"

#define EXIT_USAGE		2
#define EXIT_UNREACHABLE	254
#define EXIT_LOST		255
#define DEFAULT_TIMEOUT_S	600
#define CONNECT_TIMEOUT_MS	5000
/*
 * From connecting to the agent's "started" frame.  QEMU's user network
 * accepts the host side at once and holds it while the guest does not
 * answer, so this is what tells "not up yet" apart from a running command.
 */
#define START_TIMEOUT_S		60
/* Past the command's own timeout, the agent gets this long to report. */
#define GRACE_S			15
/* poll() takes an int of milliseconds: wait in slices of at most this. */
#define POLL_SLICE_MS		60000

static const char *name = "node";
static int fail_fd = -1;

/* Report a failure of eusrv-exec itself; returns STATUS to exit with. */
__attribute__((format(printf, 3, 4)))
static int fail(int status, const char *word, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "eusrv-exec: %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (fail_fd >= 0)
		dprintf(fail_fd, "%s\n", word);
	return status;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_to(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct pollfd p;
	int s, err = 0;
	socklen_t len = sizeof(err);

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno != EINPROGRESS)
		goto fail;
	p = (struct pollfd){ .fd = s, .events = POLLOUT };
	if (poll(&p, 1, CONNECT_TIMEOUT_MS) != 1)
		goto fail;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
		goto fail;
	fcntl(s, F_SETFL, 0);
	return s;
fail:
	close(s);
	return -1;
}

/* Read exactly len bytes before the deadline; -1 on EOF/error, -2 timeout. */
static int recv_by(int s, void *buf, size_t len, int64_t deadline_ms)
{
	char *p = buf;

	while (len) {
		struct pollfd pf = { .fd = s, .events = POLLIN };
		int64_t left = deadline_ms - now_ms();
		ssize_t n;

		if (left <= 0)
			return -2;
		n = poll(&pf, 1, left > POLL_SLICE_MS ? POLL_SLICE_MS : (int)left);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n <= 0)
			continue;
		n = read(s, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: eusrv-exec --port PORT [--name NODE] [--timeout SEC]\n"
		"                  [--start-timeout SEC] [--fail-fd FD] [--] COMMAND...\n"
		"       eusrv-exec --free-port\n"
		"Runs COMMAND with /bin/sh -c on a node's agent (see qemu/board exec).\n");
}

static int free_port(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(sa);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0) {
		perror("eusrv-exec: free port");
		return 1;
	}
	printf("%d\n", ntohs(sa.sin_port));
	close(s);
	return 0;
}

/* Parse a whole number in 1..max; 0 if bad. */
static unsigned long parse_number(const char *what, const char *arg,
				  unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > max) {
		fprintf(stderr, "eusrv-exec: bad %s '%s' (1..%lu)\n", what, arg,
			max);
		return 0;
	}
	return v;
}

/* The words of the command joined by spaces, as ssh does; NULL if too long. */
static char *join_words(char **words, int count, size_t *len)
{
	size_t total = 0;
	char *cmd, *p;
	int i;

	for (i = 0; i < count; i++)
		total += strlen(words[i]) + 1;
	if (total - 1 > AGENT_MAX_CMD)
		return NULL;
	cmd = malloc(total);
	if (!cmd)
		return NULL;
	for (p = cmd, i = 0; i < count; i++) {
		size_t n = strlen(words[i]);

		memcpy(p, words[i], n);
		p += n;
		*p++ = ' ';
	}
	p[-1] = '\0';
	*len = total - 1;
	return cmd;
}

static int send_request(int s, const char *cmd, size_t len, uint32_t timeout_s)
{
	struct agent_req req = {
		.magic = htonl(AGENT_MAGIC),
		.version = htons(AGENT_VERSION),
		.timeout_s = htonl(timeout_s),
		.cmd_len = htonl((uint32_t)len),
	};

	if (write_full(s, &req, sizeof(req)) < 0 || write_full(s, cmd, len) < 0)
		return -1;
	return 0;
}

/*
 * Relay the agent's frames until its exit frame; returns the exit status
 * eusrv-exec itself ends with.
 */
static int relay_frames(int s, uint32_t timeout_s, uint32_t start_timeout_s)
{
	static char buf[AGENT_MAX_FRAME];
	int64_t start_by = now_ms() + (int64_t)start_timeout_s * 1000;
	int64_t done_by = now_ms() + ((int64_t)timeout_s + GRACE_S) * 1000;
	bool started = false;

	for (;;) {
		int64_t deadline = started ? done_by : start_by;
		struct agent_frame f;
		uint32_t len = 0, code;
		int r = recv_by(s, &f, sizeof(f), deadline);

		if (r == 0) {
			len = ntohl(f.len);
			if (len > AGENT_MAX_FRAME)
				return fail(EXIT_LOST, "lost",
					    "bad frame from the agent (%u bytes)", len);
			r = recv_by(s, buf, len, deadline);
		}
		if (r == -2 && !started)
			return fail(EXIT_UNREACHABLE, "unreachable",
				    "agent did not answer within %u s",
				    start_timeout_s);
		if (r == -2)
			return fail(AGENT_EXIT_TIMEOUT, "silent",
				    "no answer within %u s, giving up",
				    timeout_s + GRACE_S);
		/* Not started: QEMU accepted for the guest, nobody listens. */
		if (r < 0 && !started)
			return fail(EXIT_UNREACHABLE, "unreachable",
				    "agent not reachable (connection closed)");
		if (r < 0)
			return fail(EXIT_LOST, "lost",
				    "connection lost (VM exited?)");
		switch (f.type) {
		case AGENT_F_STARTED:
			started = true;
			break;
		case AGENT_F_STDOUT:
		case AGENT_F_STDERR:
			if (!started)
				return fail(EXIT_LOST, "lost",
					    "output before the command started");
			write_full(f.type == AGENT_F_STDOUT ? 1 : 2, buf, len);
			break;
		case AGENT_F_ERROR:
			/* Before the start it is a refusal, and the agent hangs up. */
			if (!started)
				return fail(EXIT_LOST, "lost", "agent refused: %.*s",
					    (int)len, buf);
			fprintf(stderr, "eusrv-exec: %s: %.*s\n", name, (int)len, buf);
			break;
		case AGENT_F_EXIT:
			if (!started || len != sizeof(code))
				return fail(EXIT_LOST, "lost",
					    "bad exit frame (%u bytes)", len);
			memcpy(&code, buf, sizeof(code));
			return (int)(ntohl(code) & 0xff);
		default:
			return fail(EXIT_LOST, "lost", "unknown frame type %u",
				    f.type);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "start-timeout", required_argument, NULL, 's' },
		{ "fail-fd", required_argument, NULL, 'F' },
		{ "free-port", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t timeout_s = DEFAULT_TIMEOUT_S, start_timeout_s = START_TIMEOUT_S;
	unsigned long v;
	int port = 0, c, s, rc;
	size_t cmd_len;
	char *cmd;

	while ((c = getopt_long(argc, argv, "+p:n:t:s:F:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = (int)parse_number("port", optarg, 65535);
			if (!port)
				return EXIT_USAGE;
			break;
		case 'n':
			name = optarg;
			break;
		case 't':
		case 's':
			v = parse_number(c == 't' ? "timeout" : "start timeout",
					 optarg, AGENT_MAX_TIMEOUT_S);
			if (!v)
				return EXIT_USAGE;
			if (c == 't')
				timeout_s = (uint32_t)v;
			else
				start_timeout_s = (uint32_t)v;
			break;
		case 'F':
			/* 0 is stdin, never a place for the verdict. */
			fail_fd = (int)parse_number("descriptor", optarg, INT32_MAX);
			if (!fail_fd)
				return EXIT_USAGE;
			break;
		case 'f':
			return free_port();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!port || optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = join_words(argv + optind, argc - optind, &cmd_len);
	if (!cmd) {
		fprintf(stderr, "eusrv-exec: %s: command longer than %u bytes\n",
			name, AGENT_MAX_CMD);
		return EXIT_USAGE;
	}

	s = connect_to(port);
	if (s < 0) {
		free(cmd);
		return fail(EXIT_UNREACHABLE, "unreachable",
			    "agent not reachable on port %d", port);
	}
	if (send_request(s, cmd, cmd_len, timeout_s) < 0)
		rc = fail(EXIT_UNREACHABLE, "unreachable",
			  "agent not reachable: %s", strerror(errno));
	else
		rc = relay_frames(s, timeout_s, start_timeout_s);
	free(cmd);
	close(s);
	return rc;
}
