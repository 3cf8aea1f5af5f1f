/*
 * A framed stream on a non-blocking socket (see framed.h).
 */
#include "framed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

int vb_framed_rx_read(struct vb_switch_rx *rx, const struct ev_handler *h,
		      uint8_t *buf, size_t size,
		      const struct vb_framed_rx_ops *ops, void *opaque)
{
	size_t pos = 0, used;
	ssize_t n;

	n = recv(h->fd, buf, size, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return VB_FRAMED_EOF;
	while (pos < (size_t)n && h->fd >= 0) {
		switch (vb_switch_rx_feed(rx, buf + pos, (size_t)n - pos, &used)) {
		case MGMT_RX_FRAME:
			ops->frame(opaque, rx->frame, rx->len);
			break;
		case MGMT_RX_MALFORMED:
			ops->malformed(opaque, rx->bad_len);
			break;
		case MGMT_RX_MORE:
			break;
		}
		pos += used;
	}
	return 0;
}

const char *vb_framed_rx_why(int err)
{
	return err == VB_FRAMED_EOF ? "connection closed" : strerror(-err);
}

int vb_framed_tx_init(struct vb_framed_tx *t, size_t size, struct evloop *loop,
		      struct ev_handler *h)
{
	memset(t, 0, sizeof(*t));
	t->loop = loop;
	t->h = h;
	t->size = size;
	t->buf = malloc(size);
	return t->buf ? 0 : -ENOMEM;
}

void vb_framed_tx_fini(struct vb_framed_tx *t)
{
	free(t->buf);
	t->buf = NULL;
}

void vb_framed_tx_reset(struct vb_framed_tx *t)
{
	t->head = 0;
	t->len = 0;
	t->want_out = false;
}

static void vb_framed_tx_want_out(struct vb_framed_tx *t, bool on)
{
	if (t->h->fd < 0 || t->want_out == on)
		return;
	t->want_out = on;
	ev_mod(t->loop, t->h, EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0));
}

long vb_framed_tx_flush(struct vb_framed_tx *t)
{
	long sent = 0;

	while (t->len && t->h->fd >= 0) {
		size_t chunk = t->size - t->head;
		ssize_t n;

		if (chunk > t->len)
			chunk = t->len;
		n = send(t->h->fd, t->buf + t->head, chunk,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		sent += n;
		t->head = (t->head + (size_t)n) % t->size;
		t->len -= (size_t)n;
	}
	vb_framed_tx_want_out(t, t->len != 0);
	return sent;
}

static void vb_framed_tx_put(struct vb_framed_tx *t, const uint8_t *data,
			     size_t n)
{
	size_t tail = (t->head + t->len) % t->size;
	size_t first = t->size - tail;

	if (first > n)
		first = n;
	memcpy(t->buf + tail, data, first);
	memcpy(t->buf, data + first, n - first);
	t->len += n;
}

long vb_framed_tx_send(struct vb_framed_tx *t, const uint8_t *frame,
		       uint32_t len)
{
	uint8_t hdr[MGMT_LEN_SIZE];

	if (t->size - t->len < MGMT_LEN_SIZE + (size_t)len)
		return -ENOBUFS;
	vb_switch_put_len(hdr, len);
	vb_framed_tx_put(t, hdr, sizeof(hdr));
	vb_framed_tx_put(t, frame, len);
	return t->want_out ? 0 : vb_framed_tx_flush(t);
}
