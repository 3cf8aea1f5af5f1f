/* A fake ivshmem client for the end-to-end tests (see ivs_client.h). */
#define _GNU_SOURCE
#include "ivs_client.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(struct ivs_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct ivs_client *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	ivs_close(c);
	return -1;
}

static int unix_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One message: 1, 0 on EOF, -1 on error or timeout. */
static int recv_msg(int sock, int timeout_ms, int64_t *value, int *fd)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	uint64_t le;
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	if (poll(&pfd, 1, timeout_ms) != 1)
		return -1;
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	if (n == 0)
		return 0;
	if (n != (ssize_t)sizeof(le))
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	*value = (int64_t)le64toh(le);
	return 1;
}

void ivs_client_init(struct ivs_client *c)
{
	unsigned int v;

	memset(c, 0, sizeof(*c));
	c->sock = -1;
	c->shm_fd = -1;
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		c->kick_fd[v] = c->irq_fd[v] = -1;
}

int ivs_connect(struct ivs_client *c, const char *path, int timeout_ms)
{
	unsigned int v;
	int64_t val;
	int fd;

	ivs_client_init(c);
	c->sock = unix_connect(path);
	if (c->sock < 0)
		return fail(c, "connect %s: %s", path, strerror(errno));
	if (recv_msg(c->sock, timeout_ms, &c->version, &fd) != 1 || fd >= 0)
		return fail(c, "no version message");
	if (recv_msg(c->sock, timeout_ms, &c->id, &fd) != 1 || fd >= 0)
		return fail(c, "no id message");
	if (recv_msg(c->sock, timeout_ms, &val, &c->shm_fd) != 1 || val != -1 ||
	    c->shm_fd < 0)
		return fail(c, "no shared memory message");
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if (recv_msg(c->sock, timeout_ms, &val, &c->kick_fd[v]) != 1 ||
		    val != EUSRV_MODEL_PEER || c->kick_fd[v] < 0)
			return fail(c, "no model vector %u", v);
	for (v = 0; v < EUSRV_NR_VECTORS; v++)
		if (recv_msg(c->sock, timeout_ms, &val, &c->irq_fd[v]) != 1 ||
		    val != c->id || c->irq_fd[v] < 0)
			return fail(c, "no own vector %u", v);
	c->shm = mmap(NULL, EUSRV_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->shm_fd, 0);
	if (c->shm == MAP_FAILED) {
		c->shm = NULL;
		return fail(c, "mmap: %s", strerror(errno));
	}
	return 0;
}

void ivs_close(struct ivs_client *c)
{
	unsigned int v;

	if (c->shm)
		munmap(c->shm, EUSRV_BAR2_SIZE);
	c->shm = NULL;
	if (c->shm_fd >= 0)
		close(c->shm_fd);
	c->shm_fd = -1;
	for (v = 0; v < EUSRV_NR_VECTORS; v++) {
		if (c->kick_fd[v] >= 0)
			close(c->kick_fd[v]);
		if (c->irq_fd[v] >= 0)
			close(c->irq_fd[v]);
		c->kick_fd[v] = c->irq_fd[v] = -1;
	}
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
}

void *ivs_page(struct ivs_client *c, unsigned int node, uint32_t page)
{
	return (char *)c->shm + EUSRV_NODE_WINDOW_OFF(node) + page;
}

void ivs_kick(struct ivs_client *c, unsigned int vector)
{
	uint64_t one = 1;

	if (write(c->kick_fd[vector], &one, sizeof(one)) != sizeof(one))
		perror("ivs_kick");
}

bool ivs_wait_irq(struct ivs_client *c, unsigned int vector, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->irq_fd[vector], .events = POLLIN };
	uint64_t count;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return false;
	return read(c->irq_fd[vector], &count, sizeof(count)) == sizeof(count);
}

int ivs_expect_refused(const char *path, int timeout_ms)
{
	int sock = unix_connect(path), fd, rc;
	int64_t val;

	if (sock < 0)
		return -1;
	rc = recv_msg(sock, timeout_ms, &val, &fd);
	if (fd >= 0)
		close(fd);
	close(sock);
	return rc == 0 ? 0 : -1;
}
