/*
 * The management network hub (see mgmt_hub.h): socket I/O around the
 * framing and switching of mgmt_switch.c.
 */
#define _GNU_SOURCE
#include "mgmt_hub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unix_sock.h"

static void vb_hub_port_close(struct vb_hub_port *p, const char *why)
{
	struct vb_hub *hub = p->hub;

	if (p->dead)
		return;
	log_info("mgmt hub: port %u closed (%s), %llu frames dropped",
		 p->id, why, (unsigned long long)p->dropped);
	p->dead = true;
	ev_del(hub->loop, &p->h);
	close(p->h.fd);
	p->h.fd = -1;
	vb_switch_forget(&hub->sw, p->id);
	hub->nr_ports--;
}

/* Write as much of the output ring as the socket takes now. */
static void vb_hub_port_flush(struct vb_hub_port *p)
{
	long n = vb_framed_tx_flush(&p->tx);

	if (n < 0)
		vb_hub_port_close(p, strerror((int)-n));
}

/* Queue one frame for P, or drop it if P's buffer is full. */
static void vb_hub_port_send(struct vb_hub_port *p, const uint8_t *frame,
			     uint32_t len)
{
	long n;

	if (p->dead)
		return;
	n = vb_framed_tx_send(&p->tx, frame, len);
	if (n == -ENOBUFS) {
		p->dropped++;
		if (log_ratelimit_ok(&p->rl, evloop_now_ms()))
			log_warn("mgmt hub: port %u not reading, output full: frame dropped (%llu so far)",
				 p->id, (unsigned long long)p->dropped);
	} else if (n < 0) {
		vb_hub_port_close(p, strerror((int)-n));
	}
}

static void vb_hub_switch_frame(struct vb_hub_port *in, const uint8_t *frame,
				uint32_t len)
{
	struct vb_hub *hub = in->hub;
	uint32_t out = vb_switch_route(&hub->sw, in->id, frame, len);
	struct vb_hub_port *p;

	for (p = hub->ports; p; p = p->next) {
		if (p == in || p->dead)
			continue;
		if (out == MGMT_PORT_NONE || out == p->id)
			vb_hub_port_send(p, frame, len);
	}
}

static void vb_hub_rx_frame(void *opaque, const uint8_t *frame, uint32_t len)
{
	vb_hub_switch_frame(opaque, frame, len);
}

static void vb_hub_rx_malformed(void *opaque, uint32_t bad_len)
{
	struct vb_hub_port *p = opaque;

	if (log_ratelimit_ok(&p->rl, evloop_now_ms()))
		log_warn("mgmt hub: port %u sent a frame length of %u (valid %u..%u): frame dropped",
			 p->id, bad_len, MGMT_FRAME_MIN, MGMT_FRAME_MAX);
}

static const struct vb_framed_rx_ops vb_hub_rx_ops = {
	.frame = vb_hub_rx_frame,
	.malformed = vb_hub_rx_malformed,
};

static void vb_hub_port_read(struct vb_hub_port *p)
{
	struct vb_hub *hub = p->hub;
	int err = vb_framed_rx_read(&p->rx, &p->h, hub->rbuf, sizeof(hub->rbuf),
				    &vb_hub_rx_ops, p);

	if (err)
		vb_hub_port_close(p, vb_framed_rx_why(err));
}

static void vb_hub_port_event(struct ev_handler *h, uint32_t events)
{
	struct vb_hub_port *p = container_of(h, struct vb_hub_port, h);

	if (p->dead)
		return;
	if (events & EPOLLOUT)
		vb_hub_port_flush(p);
	if (!p->dead && (events & EPOLLIN)) {
		vb_hub_port_read(p);
		return;
	}
	if (!p->dead && (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)))
		vb_hub_port_close(p, "connection closed");
}

static void vb_hub_listen_event(struct ev_handler *h, uint32_t events)
{
	struct vb_hub *hub = container_of(h, struct vb_hub, listen);
	struct vb_hub_port *p;
	int fd, err;

	(void)events;
	fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR &&
		    log_ratelimit_ok(&hub->rl, evloop_now_ms()))
			log_warn("mgmt hub %s: accept: %s", hub->path,
				 strerror(errno));
		return;
	}
	if (hub->nr_ports >= MGMT_MAX_PORTS) {
		if (log_ratelimit_ok(&hub->rl, evloop_now_ms()))
			log_warn("mgmt hub %s: refused a connection: %u ports in use",
				 hub->path, hub->nr_ports);
		close(fd);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p || vb_framed_tx_init(&p->tx, MGMT_TXBUF_SIZE, hub->loop, &p->h)) {
		log_warn("mgmt hub %s: refused a connection: out of memory",
			 hub->path);
		if (p)
			vb_framed_tx_fini(&p->tx);
		free(p);
		close(fd);
		return;
	}
	p->hub = hub;
	p->h.fd = fd;
	p->h.fn = vb_hub_port_event;
	/* Ids are never 0 (MGMT_PORT_NONE) and not reused soon. */
	if (++hub->next_id == MGMT_PORT_NONE)
		++hub->next_id;
	p->id = hub->next_id;
	vb_switch_rx_init(&p->rx);
	err = ev_add(hub->loop, &p->h, EPOLLIN | EPOLLRDHUP);
	if (err) {
		log_warn("mgmt hub %s: epoll: %s", hub->path, strerror(-err));
		vb_framed_tx_fini(&p->tx);
		free(p);
		close(fd);
		return;
	}
	p->next = hub->ports;
	hub->ports = p;
	hub->nr_ports++;
	log_info("mgmt hub: port %u connected", p->id);
}

int vb_hub_init(struct vb_hub *hub, struct evloop *loop, const char *dir)
{
	int len, fd, err;

	memset(hub, 0, sizeof(*hub));
	hub->loop = loop;
	hub->listen.fd = -1;
	hub->listen.fn = vb_hub_listen_event;
	vb_switch_init(&hub->sw);
	len = snprintf(hub->path, sizeof(hub->path), "%s/mgmt.sock", dir);
	if (len < 0 || (size_t)len >= sizeof(hub->path)) {
		log_err("mgmt hub socket: path under %s too long", dir);
		hub->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = unix_listen(hub->path, "mgmt hub socket");
	if (fd < 0) {
		hub->path[0] = '\0';
		return fd;
	}
	hub->listen.fd = fd;
	err = ev_add(loop, &hub->listen, EPOLLIN);
	if (err) {
		log_err("mgmt hub socket %s: epoll: %s", hub->path,
			strerror(-err));
		vb_hub_fini(hub);
	}
	return err;
}

void vb_hub_reap(struct vb_hub *hub)
{
	struct vb_hub_port **pp = &hub->ports, *p;

	while ((p = *pp)) {
		if (!p->dead) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		vb_framed_tx_fini(&p->tx);
		free(p);
	}
}

void vb_hub_fini(struct vb_hub *hub)
{
	struct vb_hub_port *p;

	for (p = hub->ports; p; p = p->next)
		vb_hub_port_close(p, "board model exiting");
	vb_hub_reap(hub);
	if (hub->listen.fd >= 0) {
		ev_del(hub->loop, &hub->listen);
		close(hub->listen.fd);
		hub->listen.fd = -1;
	}
	if (hub->path[0])
		unlink(hub->path);
	hub->path[0] = '\0';
}
