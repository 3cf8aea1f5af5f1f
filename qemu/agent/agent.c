// SPDX-License-Identifier: MIT
/*
 * eusrv-agent: the command agent inside a node VM (PID 1 after boot).
 *
 * Accepts connections from `qemu/board exec` on the control network, runs
 * each request with /bin/sh -c in a new session, streams stdout and stderr
 * back as frames and ends with the exit status.  The command's process group
 * is killed when the client goes away or its timeout expires.  As PID 1 the
 * agent also reaps every orphan.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "io_util.h"

#define ACCEPT_BACKLOG		16
#define REQ_READ_TIMEOUT_S	10
#define BIND_RETRIES		100
#define BIND_RETRY_US		100000
/* After a timeout kill, how long output may still drain before the exit. */
#define KILL_DRAIN_MS		1000
/* Pause after a failed accept (e.g. out of descriptors) before the next. */
#define ACCEPT_RETRY_US		100000

static void reap_all(int sig)
{
	int saved = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

static int send_frame(int sock, enum agent_frame_type type, const void *data,
		      uint32_t len)
{
	struct agent_frame f = { .type = (uint8_t)type, .len = htonl(len) };

	/* SIGPIPE is ignored: a vanished client is an EPIPE here. */
	if (write_full(sock, &f, sizeof(f)) < 0)
		return -1;
	return len ? write_full(sock, data, len) : 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static pid_t spawn(const char *cmd, int out_w, int err_w)
{
	pid_t pid = fork();
	int null;

	if (pid != 0)
		return pid;

	/* The command's own session: one kill reaches all it started. */
	setsid();
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0 ||
	    dup2(err_w, 2) < 0)
		_exit(127);
	if (chdir("/root") < 0 && chdir("/") < 0)
		_exit(127);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	dprintf(2, "eusrv-agent: /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

static int wait_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Relay one pipe's data; returns false at EOF or error. */
static bool relay(int fd, int sock, enum agent_frame_type type, bool *client_ok)
{
	char buf[AGENT_MAX_FRAME];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (*client_ok && send_frame(sock, type, buf, (uint32_t)n) < 0)
		*client_ok = false;
	return true;
}

/* Refuse a malformed request with the reason; true if refused. */
static bool refuse(int sock, const struct agent_req *req)
{
	uint32_t len = ntohl(req->cmd_len), timeout_s = ntohl(req->timeout_s);
	char msg[128];
	int n;

	if (ntohl(req->magic) != AGENT_MAGIC)
		n = snprintf(msg, sizeof(msg), "bad request: magic 0x%08x",
			     ntohl(req->magic));
	else if (ntohs(req->version) != AGENT_VERSION)
		n = snprintf(msg, sizeof(msg),
			     "bad request: protocol version %u, the agent speaks %u",
			     ntohs(req->version), AGENT_VERSION);
	else if (len == 0 || len > AGENT_MAX_CMD)
		n = snprintf(msg, sizeof(msg),
			     "bad request: command length %u not in 1..%u", len,
			     AGENT_MAX_CMD);
	else if (timeout_s > AGENT_MAX_TIMEOUT_S)
		n = snprintf(msg, sizeof(msg),
			     "bad request: timeout %u s over the limit of %u s",
			     timeout_s, AGENT_MAX_TIMEOUT_S);
	else
		return false;
	if (n >= (int)sizeof(msg))
		n = sizeof(msg) - 1;
	send_frame(sock, AGENT_F_ERROR, msg, (uint32_t)n);
	return true;
}

static void run_session(int sock)
{
	struct timeval tv = { .tv_sec = REQ_READ_TIMEOUT_S };
	struct agent_req req;
	int out[2], err[2], pidfd, status = 0, code;
	bool out_open = true, err_open = true, exited = false;
	bool client_ok = true, timed_out = false;
	int64_t deadline = -1, drain_by = -1;
	uint32_t len, timeout_s;
	char *cmd;
	pid_t pid;

	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (read_full(sock, &req, sizeof(req)) < 0)
		return;
	len = ntohl(req.cmd_len);
	timeout_s = ntohl(req.timeout_s);
	if (refuse(sock, &req))
		return;
	cmd = calloc(1, (size_t)len + 1);
	if (!cmd || read_full(sock, cmd, len) < 0)
		return;
	if (memchr(cmd, '\0', len)) {
		static const char msg[] = "command contains a NUL byte";

		send_frame(sock, AGENT_F_ERROR, msg, sizeof(msg) - 1);
		return;
	}

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return;
	pid = spawn(cmd, out[1], err[1]);
	free(cmd);
	close(out[1]);
	close(err[1]);
	if (pid < 0)
		return;
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0) {
		kill(pid, SIGKILL);
		return;
	}
	if (timeout_s)
		deadline = now_ms() + (int64_t)timeout_s * 1000;
	if (send_frame(sock, AGENT_F_STARTED, NULL, 0) < 0)
		client_ok = false;

	while (out_open || err_open || !exited) {
		struct pollfd p[4] = {
			{ .fd = out_open ? out[0] : -1, .events = POLLIN },
			{ .fd = err_open ? err[0] : -1, .events = POLLIN },
			{ .fd = exited ? -1 : pidfd, .events = POLLIN },
			{ .fd = client_ok ? sock : -1, .events = POLLIN },
		};
		int64_t wake = timed_out ? drain_by : deadline;
		int wait = -1;

		if (wake >= 0) {
			int64_t left = wake - now_ms();

			wait = left > 0 ? (int)left : 0;
		}
		if (poll(p, 4, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents && !relay(out[0], sock, AGENT_F_STDOUT, &client_ok))
			out_open = false;
		if (p[1].revents && !relay(err[0], sock, AGENT_F_STDERR, &client_ok))
			err_open = false;
		if (p[2].revents && waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
		if (p[3].revents) {
			char c;

			/* The client sends nothing after the request: EOF or junk. */
			if (recv(sock, &c, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN)
				client_ok = false;
		}
		if (!client_ok) {
			kill(-pid, SIGKILL);
			break;
		}
		if (deadline >= 0 && !timed_out && now_ms() >= deadline) {
			char msg[80];
			int n = snprintf(msg, sizeof(msg),
					 "timed out after %u s, killed", timeout_s);

			timed_out = true;
			drain_by = now_ms() + KILL_DRAIN_MS;
			kill(-pid, SIGKILL);
			send_frame(sock, AGENT_F_ERROR, msg, (uint32_t)n);
		}
		/*
		 * Whatever escaped the process group may keep the pipes open,
		 * and a process stuck in the kernel outlives SIGKILL: neither
		 * may hold the exit back.
		 */
		if (timed_out && now_ms() >= drain_by)
			break;
	}
	if (!client_ok)
		return;
	if (!exited) {
		/* Killed and not waited for: PID 1 reaps it as an orphan. */
		kill(-pid, SIGKILL);
		if (!timed_out) {
			static const char msg[] = "lost track of the command";

			send_frame(sock, AGENT_F_ERROR, msg, sizeof(msg) - 1);
		}
	}
	code = timed_out ? AGENT_EXIT_TIMEOUT :
	       exited ? wait_code(status) : AGENT_EXIT_LOST;
	code = (int)htonl((uint32_t)code);
	send_frame(sock, AGENT_F_EXIT, &code, sizeof(code));
}

static int listen_on(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, s, i;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "eusrv-agent: bad listen address '%s'\n", addr);
		return -1;
	}
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* The address may still be on its way up: retry for a while. */
	for (i = 0; bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0; i++) {
		if (i == BIND_RETRIES) {
			fprintf(stderr, "eusrv-agent: bind %s:%d: %s\n", addr,
				port, strerror(errno));
			close(s);
			return -1;
		}
		usleep(BIND_RETRY_US);
	}
	if (listen(s, ACCEPT_BACKLOG) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: eusrv-agent [--listen ADDR] [--port PORT]\n"
		   "Runs commands for `qemu/board exec` inside a node.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = reap_all, .sa_flags = SA_RESTART };
	const char *addr = "0.0.0.0";
	int port = AGENT_PORT, c, ls;

	while ((c = getopt_long(argc, argv, "l:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			if (port <= 0 || port > 65535) {
				fprintf(stderr, "eusrv-agent: bad port '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (;;) {
		ls = listen_on(addr, port);
		if (ls >= 0)
			break;
		/* As PID 1 we must never exit: that would panic the node. */
		if (getpid() != 1)
			return 1;
		sleep(1);
	}

	for (;;) {
		int s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		pid_t pid;

		if (s < 0) {
			if (errno != EINTR && errno != ECONNABORTED)
				usleep(ACCEPT_RETRY_US);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			signal(SIGCHLD, SIG_DFL);
			close(ls);
			run_session(s);
			_exit(0);
		}
		close(s);
	}
}
