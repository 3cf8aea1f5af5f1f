/* Process helpers for the end-to-end tests (see proc.h). */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

/* Polling interval of the waits (the tests are the only pollers). */
#define POLL_US		2000

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

pid_t start_model(const char *bin, const char *dir, unsigned int nodes,
		  uint64_t ram, const char *ram_base)
{
	char nodes_s[16], ram_s[32], logp[256], errp[256];
	pid_t pid;

	snprintf(nodes_s, sizeof(nodes_s), "%u", nodes);
	snprintf(ram_s, sizeof(ram_s), "%" PRIu64, ram);
	snprintf(logp, sizeof(logp), "%s/model.log", dir);
	snprintf(errp, sizeof(errp), "%s/model.stderr", dir);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd;

		/* The model may create DIR; its stderr file needs it now. */
		mkdir(dir, 0755);
		fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(bin, bin, "--dir", dir, "--nodes", nodes_s, "--ram-size",
		      ram_s, "--log", logp, "--foreground",
		      ram_base ? "--ram-base" : (char *)NULL, ram_base,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

int wait_exit(pid_t pid, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		usleep(POLL_US);
	} while (now_ms() < end);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

bool wait_file(const char *dir, const char *name, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	do {
		if (access(p, F_OK) == 0)
			return true;
		usleep(POLL_US);
	} while (now_ms() < end);
	return false;
}
