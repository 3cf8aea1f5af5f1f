// SPDX-License-Identifier: MIT
/*
 * eusrv-exec: the host side of `qemu/board exec`.  Sends one shell command
 * to a node's agent over the loopback-forwarded control port and relays its
 * output; exits with the command's status.
 *
 * Exit status: the command's, 124 on timeout, 254 if the agent cannot be
 * reached (used while a node boots), 255 if the connection broke mid-command.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "io_util.h"

#define EXIT_UNREACHABLE	254
#define EXIT_LOST		255
#define CONNECT_TIMEOUT_MS	5000
/* Past the command's own timeout, the agent gets this long to report. */
#define GRACE_S			15

static const char *name = "node";

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
		struct timespec ts;
		struct pollfd pf = { .fd = s, .events = POLLIN };
		int64_t left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		left = deadline_ms - ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
		if (left <= 0)
			return -2;
		n = poll(&pf, 1, left > 60000 ? 60000 : (int)left);
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
		"usage: eusrv-exec --port PORT [--name NODE] [--timeout SEC] -- COMMAND\n"
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "free-port", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long timeout_s = 600;
	int port = 0, c, s, i;
	struct agent_req req;
	struct timespec ts;
	int64_t deadline;
	size_t cmd_len = 0;
	char *cmd, *end;

	while ((c = getopt_long(argc, argv, "+p:n:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			name = optarg;
			break;
		case 't':
			errno = 0;
			timeout_s = strtoul(optarg, &end, 10);
			if (errno || *end || timeout_s == 0 ||
			    timeout_s > AGENT_MAX_TIMEOUT_S) {
				fprintf(stderr, "eusrv-exec: bad timeout '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			return free_port();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (port <= 0 || port > 65535 || optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++)
		cmd_len += strlen(argv[i]) + 1;
	if (cmd_len - 1 > AGENT_MAX_CMD) {
		fprintf(stderr, "eusrv-exec: %s: command longer than %u bytes\n",
			name, AGENT_MAX_CMD);
		return 2;
	}
	cmd = calloc(1, cmd_len);
	if (!cmd)
		return 2;
	for (i = optind; i < argc; i++) {
		if (i > optind)
			strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	cmd_len = strlen(cmd);

	s = connect_to(port);
	if (s < 0) {
		fprintf(stderr, "eusrv-exec: %s: agent not reachable on port %d\n",
			name, port);
		return EXIT_UNREACHABLE;
	}
	req = (struct agent_req){
		.magic = htonl(AGENT_MAGIC),
		.version = htons(AGENT_VERSION),
		.timeout_s = htonl((uint32_t)timeout_s),
		.cmd_len = htonl((uint32_t)cmd_len),
	};
	if (write_full(s, &req, sizeof(req)) < 0 || write_full(s, cmd, cmd_len) < 0) {
		fprintf(stderr, "eusrv-exec: %s: agent not reachable: %s\n", name,
			strerror(errno));
		return EXIT_UNREACHABLE;
	}
	free(cmd);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
		   ((int64_t)timeout_s + GRACE_S) * 1000;
	for (bool started = false;;) {
		static char buf[AGENT_MAX_FRAME];
		struct agent_frame f;
		uint32_t len = 0;
		int r = recv_by(s, &f, sizeof(f), deadline);

		if (r == 0) {
			len = ntohl(f.len);
			if (len > AGENT_MAX_FRAME) {
				fprintf(stderr, "eusrv-exec: %s: bad frame from agent\n", name);
				return EXIT_LOST;
			}
			r = recv_by(s, buf, len, deadline);
		}
		if (r == -2) {
			fprintf(stderr, "eusrv-exec: %s: no answer within %lu s, giving up\n",
				name, timeout_s + GRACE_S);
			return AGENT_EXIT_TIMEOUT;
		}
		if (r < 0) {
			/* Not started: slirp accepted, but nobody listens yet. */
			if (!started) {
				fprintf(stderr, "eusrv-exec: %s: agent not reachable (connection closed)\n",
					name);
				return EXIT_UNREACHABLE;
			}
			fprintf(stderr, "eusrv-exec: %s: connection lost (VM exited?)\n", name);
			return EXIT_LOST;
		}
		switch (f.type) {
		case AGENT_F_STARTED:
			started = true;
			break;
		case AGENT_F_STDOUT:
			write_full(1, buf, len);
			break;
		case AGENT_F_STDERR:
			write_full(2, buf, len);
			break;
		case AGENT_F_ERROR:
			fprintf(stderr, "eusrv-exec: %s: %.*s\n", name, (int)len, buf);
			break;
		case AGENT_F_EXIT: {
			uint32_t code;

			if (len != sizeof(code)) {
				fprintf(stderr, "eusrv-exec: %s: bad exit frame\n", name);
				return EXIT_LOST;
			}
			memcpy(&code, buf, sizeof(code));
			return (int)(ntohl(code) & 0xff);
		}
		default:
			fprintf(stderr, "eusrv-exec: %s: unknown frame type %u\n", name, f.type);
			return EXIT_LOST;
		}
	}
}
