/*
 * The shared NIC wired into the model (see nic.h).
 */
#define _GNU_SOURCE
#include "nic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "blocks.h"
#include "unix_sock.h"

/* ---- MAC ops ----------------------------------------------------------- */

static void vb_nic_op_raise(void *opaque, unsigned int node,
			    unsigned int vector)
{
	struct vb_nic *nic = opaque;

	vb_blocks_raise(nic->blocks, node, vector);
}

static uint64_t vb_nic_op_now_us(void *opaque)
{
	(void)opaque;
	return evloop_now_us();
}

static void vb_nic_line_close(struct vb_nic *nic, const char *why);

static void vb_nic_line_flush(struct vb_nic *nic)
{
	long n = vb_framed_tx_flush(&nic->line_tx);

	if (n < 0)
		vb_nic_line_close(nic, strerror((int)-n));
	else if (n > 0)
		nic->line_progress_us = evloop_now_us();
}

static bool vb_nic_op_line_send(void *opaque, const uint8_t *frame, size_t len)
{
	struct vb_nic *nic = opaque;
	long n;

	if (nic->line.fd < 0)
		return false;
	n = vb_framed_tx_send(&nic->line_tx, frame, (uint32_t)len);
	if (n == -ENOBUFS)
		return false;
	if (nic->line_rate_bps) {
		uint64_t now = evloop_now_us();

		if (nic->line_free_us < now)
			nic->line_free_us = now;
		nic->line_free_us += (uint64_t)len * 8U * 1000000U / nic->line_rate_bps;
	}
	if (n < 0)
		vb_nic_line_close(nic, strerror((int)-n));
	else if (n > 0)
		nic->line_progress_us = evloop_now_us();
	return true;
}

/* A paced line still busy with what it took: the timer waits for it. */
static bool vb_nic_line_paced(const struct vb_nic *nic, uint64_t now)
{
	return nic->line_rate_bps &&
	       nic->line_free_us > now + NIC_LINE_PACE_SLACK_US;
}

/*
 * Full while the line is paced and busy, or while the peer has a backlog
 * (NIC_LINE_BACKLOG) and takes it.
 */
static bool vb_nic_op_line_full(void *opaque)
{
	struct vb_nic *nic = opaque;

	if (nic->line.fd >= 0 && vb_nic_line_paced(nic, evloop_now_us()))
		return true;
	if (nic->line.fd < 0 || nic->line_tx.len < NIC_LINE_BACKLOG)
		return false;
	return evloop_now_us() - nic->line_progress_us < NIC_LINE_STALL_US;
}

static const struct vb_mac_ops nic_mac_ops = {
	.raise = vb_nic_op_raise,
	.line_send = vb_nic_op_line_send,
	.now_us = vb_nic_op_now_us,
	.line_full = vb_nic_op_line_full,
};

/* ---- The MAC as a block of every node (blocks.c) ------------------------ */

static void vb_nic_block_attach(void *opaque, unsigned int node)
{
	struct vb_nic *nic = opaque;

	vb_mac_attach(&nic->mac, node);
}

static void vb_nic_block_detach(void *opaque, unsigned int node)
{
	struct vb_nic *nic = opaque;

	vb_mac_detach(&nic->mac, node);
}

static void vb_nic_block_kick(void *opaque, unsigned int node,
			      unsigned int vector)
{
	struct vb_nic *nic = opaque;

	vb_mac_kick(&nic->mac, node, vector);
}

static const struct vb_block_ops nic_block_ops = {
	.attach = vb_nic_block_attach,
	.detach = vb_nic_block_detach,
	.kick = vb_nic_block_kick,
};

/* ---- Line side --------------------------------------------------------- */

static void vb_nic_line_close(struct vb_nic *nic, const char *why)
{
	if (nic->line.fd < 0)
		return;
	log_info("shared MAC: line peer gone (%s)", why);
	ev_del(nic->loop, &nic->line);
	close(nic->line.fd);
	nic->line.fd = -1;
	vb_framed_tx_reset(&nic->line_tx);
	vb_mac_line_peer(&nic->mac, false);
}

static void vb_nic_line_rx_frame(void *opaque, const uint8_t *frame,
				 uint32_t len)
{
	struct vb_nic *nic = opaque;

	vb_mac_line_rx(&nic->mac, frame, len);
}

static void vb_nic_line_rx_malformed(void *opaque, uint32_t bad_len)
{
	struct vb_nic *nic = opaque;

	if (log_ratelimit_ok(&nic->rl, evloop_now_ms()))
		log_warn("shared MAC: line peer sent a frame length of %u: dropped",
			 bad_len);
}

static const struct vb_framed_rx_ops vb_nic_line_rx_ops = {
	.frame = vb_nic_line_rx_frame,
	.malformed = vb_nic_line_rx_malformed,
};

static void vb_nic_line_event(struct ev_handler *h, uint32_t events)
{
	struct vb_nic *nic = container_of(h, struct vb_nic, line);
	int err;

	if (events & EPOLLOUT)
		vb_nic_line_flush(nic);
	if (nic->line.fd < 0)
		return;
	if (!(events & EPOLLIN)) {
		if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))
			vb_nic_line_close(nic, "connection closed");
		return;
	}
	err = vb_framed_rx_read(nic->line_rx, h, nic->rbuf, sizeof(nic->rbuf),
				&vb_nic_line_rx_ops, nic);
	if (err)
		vb_nic_line_close(nic, vb_framed_rx_why(err));
}

static void vb_nic_line_listen_event(struct ev_handler *h, uint32_t events)
{
	struct vb_nic *nic = container_of(h, struct vb_nic, line_listen);
	int fd, sndbuf;

	(void)events;
	fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (nic->line.fd >= 0) {
		log_warn("shared MAC: refused a second line peer");
		close(fd);
		return;
	}
	/* A small socket buffer keeps the backlog where the scheduler is. */
	sndbuf = NIC_LINE_BACKLOG;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		log_warn("shared MAC: line peer: SO_SNDBUF: %s", strerror(errno));
	nic->line.fd = fd;
	vb_framed_tx_reset(&nic->line_tx);
	nic->line_progress_us = evloop_now_us();
	vb_switch_rx_init(nic->line_rx);
	if (ev_add(nic->loop, &nic->line, EPOLLIN | EPOLLRDHUP)) {
		close(fd);
		nic->line.fd = -1;
		return;
	}
	log_info("shared MAC: line peer connected");
	vb_mac_line_peer(&nic->mac, true);
}

/* ---- Control socket ---------------------------------------------------- */

static const struct {
	const char *name;
	enum vb_axidma_inject_kind kind;
} inj_kinds[] = {
	{ "slave", VB_AXIDMA_INJ_DMA_SLV },
	{ "decode", VB_AXIDMA_INJ_DMA_DEC },
	{ "internal", VB_AXIDMA_INJ_DMA_INT },
	{ "sg-slave", VB_AXIDMA_INJ_SG_SLV },
	{ "sg-decode", VB_AXIDMA_INJ_SG_DEC },
	{ "sg-internal", VB_AXIDMA_INJ_SG_INT },
};

static void vb_nic_ctl_command(struct vb_nic *nic, char *line, char *out,
			       size_t outsz)
{
	char *argv[6];
	int argc = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " \t\r", &save); tok && argc < 6;
	     tok = strtok_r(NULL, " \t\r", &save))
		argv[argc++] = tok;
	if (argc == 0 || !strcmp(argv[0], "help")) {
		snprintf(out, outsz,
			 "ok commands: dma-error NODE mm2s|s2mm [slave|decode|internal|sg-slave|sg-decode|sg-internal]; phy-link up|down; line-rate MBIT (0: unpaced)\n");
		return;
	}
	if (!strcmp(argv[0], "dma-error") && (argc == 3 || argc == 4)) {
		enum vb_axidma_inject_kind kind = VB_AXIDMA_INJ_DMA_SLV;
		unsigned long node;
		unsigned int ch;
		char *end;
		size_t i;

		node = strtoul(argv[1], &end, 10);
		if (*end || !*argv[1] || node >= nic->mac.board->nr_nodes) {
			snprintf(out, outsz, "error: no node '%s'\n", argv[1]);
			return;
		}
		if (!strcmp(argv[2], "mm2s")) {
			ch = VB_AXIDMA_TX;
		} else if (!strcmp(argv[2], "s2mm")) {
			ch = VB_AXIDMA_RX;
		} else {
			snprintf(out, outsz, "error: channel must be mm2s or s2mm\n");
			return;
		}
		if (argc == 4) {
			for (i = 0; i < sizeof(inj_kinds) / sizeof(inj_kinds[0]); i++)
				if (!strcmp(argv[3], inj_kinds[i].name))
					break;
			if (i == sizeof(inj_kinds) / sizeof(inj_kinds[0])) {
				snprintf(out, outsz, "error: unknown error kind '%s'\n",
					 argv[3]);
				return;
			}
			kind = inj_kinds[i].kind;
		}
		vb_mac_inject(&nic->mac, (unsigned int)node, ch, kind);
		log_info("control: node%lu %s: next descriptor fails (%s)", node,
			 argv[2], argc == 4 ? argv[3] : "slave");
		snprintf(out, outsz, "ok\n");
		return;
	}
	if (!strcmp(argv[0], "phy-link") && argc == 2 &&
	    (!strcmp(argv[1], "up") || !strcmp(argv[1], "down"))) {
		vb_mac_force_link_down(&nic->mac, !strcmp(argv[1], "down"));
		snprintf(out, outsz, "ok\n");
		return;
	}
	if (!strcmp(argv[0], "line-rate") && argc == 2) {
		unsigned long mbit;
		char *end;

		errno = 0;
		mbit = strtoul(argv[1], &end, 10);
		if (*end || !*argv[1] || errno || mbit > 10000) {
			snprintf(out, outsz, "error: line-rate takes 0..10000 (Mbit/s)\n");
			return;
		}
		nic->line_rate_bps = mbit * 1000000ULL;
		nic->line_free_us = 0;
		log_info("control: line paced at %lu Mbit/s", mbit);
		snprintf(out, outsz, "ok\n");
		return;
	}
	snprintf(out, outsz, "error: bad command (try help)\n");
}

static void vb_nic_ctl_close(struct vb_nic *nic, struct vb_nic_ctl_conn *c)
{
	ev_del(nic->loop, &c->h);
	close(c->h.fd);
	c->h.fd = -1;
}

static void vb_nic_ctl_event(struct ev_handler *h, uint32_t events)
{
	struct vb_nic_ctl_conn *c = container_of(h, struct vb_nic_ctl_conn, h);
	struct vb_nic *nic = c->nic;
	char out[256], *nl;
	ssize_t n;

	(void)events;
	n = recv(h->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		vb_nic_ctl_close(nic, c);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	nl = strchr(c->buf, '\n');
	if (!nl) {
		if (c->len < sizeof(c->buf) - 1)
			return;
		snprintf(out, sizeof(out), "error: line too long\n");
	} else {
		*nl = '\0';
		vb_nic_ctl_command(nic, c->buf, out, sizeof(out));
	}
	if (send(h->fd, out, strlen(out), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    log_ratelimit_ok(&nic->rl, evloop_now_ms()))
		log_warn("control: reply: %s", strerror(errno));
	vb_nic_ctl_close(nic, c);
}

static void vb_nic_ctl_listen_event(struct ev_handler *h, uint32_t events)
{
	struct vb_nic *nic = container_of(h, struct vb_nic, ctl_listen);
	unsigned int i;
	int fd;

	(void)events;
	fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < NIC_CTL_MAX; i++)
		if (nic->ctl[i].h.fd < 0)
			break;
	if (i == NIC_CTL_MAX) {
		close(fd);
		return;
	}
	nic->ctl[i].h.fd = fd;
	nic->ctl[i].len = 0;
	if (ev_add(nic->loop, &nic->ctl[i].h, EPOLLIN | EPOLLRDHUP)) {
		close(fd);
		nic->ctl[i].h.fd = -1;
	}
}

int vb_nic_control_client(const char *dir, const char *cmd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[1024];
	ssize_t n;
	size_t got = 0;
	int fd, len;

	len = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/control.sock", dir);
	if (len < 0 || (size_t)len >= sizeof(sa.sun_path)) {
		fprintf(stderr, "control: path too long\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "control: %s: %s\n", sa.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (dprintf(fd, "%s\n", cmd) < 0) {
		fprintf(stderr, "control: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	while (got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	fputs(buf, strncmp(buf, "ok", 2) ? stderr : stdout);
	return strncmp(buf, "ok", 2) ? 1 : 0;
}

/* ---- Timer and rounds -------------------------------------------------- */

static void vb_nic_arm(struct vb_nic *nic)
{
	uint64_t t = vb_mac_next_deadline(&nic->mac), stall;
	int err;

	/* A stalled peer releases the scheduler even if nothing else happens. */
	if (nic->line.fd >= 0 && nic->line_tx.len >= NIC_LINE_BACKLOG) {
		stall = nic->line_progress_us + NIC_LINE_STALL_US + 1;
		if (!t || stall < t)
			t = stall;
	}
	if (nic->line.fd >= 0 && vb_nic_line_paced(nic, evloop_now_us())) {
		stall = nic->line_free_us - NIC_LINE_PACE_SLACK_US;
		if (!t || stall < t)
			t = stall;
	}

	if (t == nic->timer_armed_us)
		return;
	nic->timer_armed_us = t;
	err = evloop_timer_set_us(nic->timer.fd, t);
	if (err)
		log_err("shared MAC: timer: %s", strerror(-err));
}

static void vb_nic_timer_event(struct ev_handler *h, uint32_t events)
{
	struct vb_nic *nic = container_of(h, struct vb_nic, timer);
	uint64_t exp;

	(void)events;
	if (read(h->fd, &exp, sizeof(exp)) < 0)
		return;
	nic->timer_armed_us = 0;
	vb_mac_timer(&nic->mac);
}

void vb_nic_round(struct vb_nic *nic)
{
	vb_mac_round(&nic->mac);
	vb_nic_arm(nic);
}

bool vb_nic_busy(const struct vb_nic *nic)
{
	return vb_mac_busy(&nic->mac);
}

static int vb_nic_listen_on(struct vb_nic *nic, struct ev_handler *h,
			    char *path, size_t size, const char *dir,
			    const char *name,
			    void (*fn)(struct ev_handler *, uint32_t))
{
	int len = snprintf(path, size, "%s/%s", dir, name), fd, err;

	if (len < 0 || (size_t)len >= size) {
		path[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = unix_listen(path, name);
	if (fd < 0) {
		path[0] = '\0';
		return fd;
	}
	h->fd = fd;
	h->fn = fn;
	err = ev_add(nic->loop, h, EPOLLIN);
	return err;
}

int vb_nic_init(struct vb_nic *nic, struct board *board,
		struct vb_blocks *blocks, struct evloop *loop, const char *dir)
{
	unsigned int i;
	int err;

	memset(nic, 0, sizeof(*nic));
	nic->loop = loop;
	nic->blocks = blocks;
	nic->timer.fd = -1;
	nic->line.fd = -1;
	nic->line.fn = vb_nic_line_event;
	nic->line_listen.fd = -1;
	nic->ctl_listen.fd = -1;
	for (i = 0; i < NIC_CTL_MAX; i++) {
		nic->ctl[i].h.fd = -1;
		nic->ctl[i].h.fn = vb_nic_ctl_event;
		nic->ctl[i].nic = nic;
	}
	vb_mac_init(&nic->mac, board, &nic_mac_ops, nic);
	nic->line_rx = malloc(sizeof(*nic->line_rx));
	if (!nic->line_rx ||
	    vb_framed_tx_init(&nic->line_tx, NIC_LINE_TXBUF, loop, &nic->line)) {
		vb_nic_fini(nic);
		return -ENOMEM;
	}
	nic->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	nic->timer.fn = vb_nic_timer_event;
	if (nic->timer.fd < 0 || ev_add(loop, &nic->timer, EPOLLIN)) {
		err = -errno;
		log_err("shared MAC: timer: %s", strerror(errno));
		vb_nic_fini(nic);
		return err;
	}
	err = vb_nic_listen_on(nic, &nic->line_listen, nic->line_path,
			       sizeof(nic->line_path), dir, "line.sock",
			       vb_nic_line_listen_event);
	if (!err)
		err = vb_nic_listen_on(nic, &nic->ctl_listen, nic->ctl_path,
				       sizeof(nic->ctl_path), dir, "control.sock",
				       vb_nic_ctl_listen_event);
	if (err) {
		log_err("shared MAC: sockets in %s: %s", dir, strerror(-err));
		vb_nic_fini(nic);
		return err;
	}
	/* The kicks of the nodes' AXI DMA channels and MAC ports. */
	err = vb_blocks_add(blocks, 1U << EUSRV_VEC_DMA_MM2S |
			    1U << EUSRV_VEC_DMA_S2MM | 1U << EUSRV_VEC_MAC,
			    &nic_block_ops, nic);
	if (err < 0) {
		log_err("shared MAC: wiring into the blocks: %s", strerror(-err));
		vb_nic_fini(nic);
		return err;
	}
	return 0;
}

static void vb_nic_close_handler(struct vb_nic *nic, struct ev_handler *h)
{
	if (h->fd < 0)
		return;
	ev_del(nic->loop, h);
	close(h->fd);
	h->fd = -1;
}

void vb_nic_fini(struct vb_nic *nic)
{
	unsigned int i;

	for (i = 0; i < NIC_CTL_MAX; i++)
		vb_nic_close_handler(nic, &nic->ctl[i].h);
	vb_nic_close_handler(nic, &nic->line);
	vb_nic_close_handler(nic, &nic->line_listen);
	vb_nic_close_handler(nic, &nic->ctl_listen);
	vb_nic_close_handler(nic, &nic->timer);
	if (nic->line_path[0])
		unlink(nic->line_path);
	if (nic->ctl_path[0])
		unlink(nic->ctl_path);
	nic->line_path[0] = nic->ctl_path[0] = '\0';
	free(nic->line_rx);
	vb_framed_tx_fini(&nic->line_tx);
	nic->line_rx = NULL;
}
