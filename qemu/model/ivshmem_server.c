/*
 * The ivshmem server (see ivshmem_server.h).  Each setup message is an
 * 8-byte little-endian int64, some with one file descriptor (SCM_RIGHTS).
 */
#define _GNU_SOURCE
#include "ivshmem_server.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "unix_sock.h"

/* Bytes read and dropped per event if a client ever sends something. */
#define IVS_DISCARD_SIZE	256

/* One setup message: VALUE, and FD unless it is -1. */
static int send_msg(int sock, int64_t value, int fd)
{
	int64_t le = (int64_t)htole64((uint64_t)value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* A fresh socket's buffer holds the whole setup: never blocks. */
	n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(le) ? 0 : -EMSGSIZE;
}

static void node_close_fds(struct ivs_node *n)
{
	struct ivs_server *s = n->srv;
	unsigned int v;

	for (v = 0; v < EUSRV_NR_VECTORS; v++) {
		struct ivs_kick *k = &n->kick[v];

		if (k->h.fd >= 0) {
			ev_del(s->loop, &k->h);
			close(k->h.fd);
		}
		k->h.fd = -1;
		if (n->irq_fd[v] >= 0)
			close(n->irq_fd[v]);
		n->irq_fd[v] = -1;
	}
	if (n->conn.fd >= 0) {
		ev_del(s->loop, &n->conn);
		close(n->conn.fd);
	}
	n->conn.fd = -1;
}

static void node_disconnect(struct ivs_node *n, const char *why)
{
	log_info("node%u: disconnected (%s)", n->id, why);
	n->srv->cb->detach(n->srv->opaque, n->id);
	node_close_fds(n);
}

static void kick_event(struct ev_handler *h, uint32_t events)
{
	struct ivs_kick *k = container_of(h, struct ivs_kick, h);
	struct ivs_node *n = k->node;
	uint64_t count;

	(void)events;
	/* Several doorbells may have coalesced: one kick covers them. */
	if (read(h->fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return;
	n->srv->cb->kick(n->srv->opaque, n->id, k->vector);
}

static void conn_event(struct ev_handler *h, uint32_t events)
{
	struct ivs_node *n = container_of(h, struct ivs_node, conn);
	char buf[IVS_DISCARD_SIZE];
	ssize_t r;

	if (events & EPOLLIN) {
		/* QEMU never talks after setup: drop anything it sends. */
		r = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r > 0)
			return;
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		node_disconnect(n, r == 0 ? "connection closed" :
				strerror(errno));
		return;
	}
	if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
		node_disconnect(n, "connection closed");
}

/* The node's eventfds, watched for kicks; 0 or -errno. */
static int node_eventfds(struct ivs_node *n)
{
	unsigned int v;
	int err;

	for (v = 0; v < EUSRV_NR_VECTORS; v++) {
		n->kick[v].h.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		n->irq_fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (n->kick[v].h.fd < 0 || n->irq_fd[v] < 0)
			return -errno;
		err = ev_add(n->srv->loop, &n->kick[v].h, EPOLLIN);
		if (err)
			return err;
	}
	return ev_add(n->srv->loop, &n->conn, EPOLLIN | EPOLLRDHUP);
}

/* The setup messages, in the order QEMU's ivshmem expects; 0 or -errno. */
static int node_send_setup(struct ivs_node *n)
{
	int sock = n->conn.fd, err;
	unsigned int v;

	err = send_msg(sock, IVS_PROTOCOL_VERSION, -1);
	if (!err)
		err = send_msg(sock, n->id, -1);
	if (!err)
		err = send_msg(sock, -1, n->srv->shm_fd);
	/* The model's vectors first: QEMU's setup ends with its own. */
	for (v = 0; !err && v < EUSRV_NR_VECTORS; v++)
		err = send_msg(sock, EUSRV_MODEL_PEER, n->kick[v].h.fd);
	for (v = 0; !err && v < EUSRV_NR_VECTORS; v++)
		err = send_msg(sock, n->id, n->irq_fd[v]);
	return err;
}

static void listen_event(struct ev_handler *h, uint32_t events)
{
	struct ivs_node *n = container_of(h, struct ivs_node, listen);
	struct ivs_server *s = n->srv;
	int sock, err;

	(void)events;
	sock = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (sock < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("node%u: accept on %s: %s", n->id, n->path,
				 strerror(errno));
		return;
	}
	if (n->conn.fd >= 0) {
		if (log_ratelimit_ok(&n->rl, evloop_now_ms()))
			log_warn("node%u: refused a second connection on %s (node in use)",
				 n->id, n->path);
		close(sock);
		return;
	}
	n->conn.fd = sock;
	err = node_eventfds(n);
	if (err) {
		log_warn("node%u: setting up the connection: %s", n->id,
			 strerror(-err));
		node_close_fds(n);
		return;
	}
	/*
	 * Attach (which resets the node's pages) before the node gets the
	 * shared memory: nothing it writes there may be wiped afterwards.
	 */
	s->cb->attach(s->opaque, n->id, n->irq_fd);
	err = node_send_setup(n);
	if (err) {
		node_disconnect(n, strerror(-err));
		return;
	}
	log_info("node%u: connected", n->id);
}

int ivs_init(struct ivs_server *s, struct evloop *loop, const char *dir,
	     unsigned int nr_nodes, int shm_fd, const struct ivs_callbacks *cb,
	     void *opaque)
{
	unsigned int i, v;
	int err;

	memset(s, 0, sizeof(*s));
	s->loop = loop;
	s->shm_fd = shm_fd;
	s->nr_nodes = nr_nodes;
	s->cb = cb;
	s->opaque = opaque;
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct ivs_node *n = &s->nodes[i];

		n->srv = s;
		n->id = i;
		n->listen.fd = -1;
		n->listen.fn = listen_event;
		n->conn.fd = -1;
		n->conn.fn = conn_event;
		for (v = 0; v < EUSRV_NR_VECTORS; v++) {
			n->kick[v].h.fd = -1;
			n->kick[v].h.fn = kick_event;
			n->kick[v].node = n;
			n->kick[v].vector = v;
			n->irq_fd[v] = -1;
		}
	}
	for (i = 0; i < nr_nodes; i++) {
		struct ivs_node *n = &s->nodes[i];
		int len = snprintf(n->path, sizeof(n->path),
				   "%s/ivshmem-node%u.sock", dir, i);

		if (len < 0 || (size_t)len >= sizeof(n->path)) {
			log_err("node%u ivshmem socket: path under %s too long",
				i, dir);
			n->path[0] = '\0';
			ivs_fini(s);
			return -ENAMETOOLONG;
		}
		err = unix_listen(n->path, "ivshmem socket");
		if (err < 0) {
			n->path[0] = '\0';	/* not ours to remove */
			ivs_fini(s);
			return err;
		}
		n->listen.fd = err;
		err = ev_add(loop, &n->listen, EPOLLIN);
		if (err) {
			log_err("ivshmem socket %s: epoll: %s", n->path,
				strerror(-err));
			ivs_fini(s);
			return err;
		}
	}
	return 0;
}

void ivs_fini(struct ivs_server *s)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct ivs_node *n = &s->nodes[i];

		if (n->conn.fd >= 0)
			node_disconnect(n, "board model exiting");
		if (n->listen.fd >= 0) {
			ev_del(s->loop, &n->listen);
			close(n->listen.fd);
			n->listen.fd = -1;
		}
		if (n->path[0])
			unlink(n->path);
		n->path[0] = '\0';
	}
}
