/*
 * A framed stream (QEMU's stream netdev: a 4-byte big-endian length, then
 * the frame) on a non-blocking socket, as the management hub's ports and
 * the shared NIC's line side speak it.  Receiving: what the socket has is
 * read and cut into frames by struct vb_switch_rx (mgmt_switch.h).
 * Transmitting: a bounded byte ring of queued frames, written out as the
 * socket takes them, with EPOLLOUT asked for only while bytes wait.
 */
#ifndef EUSRV_MODEL_FRAMED_H
#define EUSRV_MODEL_FRAMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evloop.h"
#include "mgmt_switch.h"

/* What vb_framed_rx_read() found: calls for the connection's owner. */
struct vb_framed_rx_ops {
	/* A complete frame of LEN bytes. */
	void (*frame)(void *opaque, const uint8_t *frame, uint32_t len);
	/* A frame length out of range; the bytes it claims are skipped. */
	void (*malformed)(void *opaque, uint32_t bad_len);
};

/* vb_framed_rx_read(): the peer closed the connection. */
#define VB_FRAMED_EOF		1

/*
 * Read what the socket of H has now (at most SIZE bytes, into BUF) and
 * feed it to RX, calling OPS for each frame or bad length, until the bytes
 * are used up or a call closed the connection (h->fd < 0).  Returns 0 (also
 * when there was nothing to read), VB_FRAMED_EOF, or -errno of the read;
 * on either of the last two the caller closes the connection.
 */
int vb_framed_rx_read(struct vb_switch_rx *rx, const struct ev_handler *h,
		      uint8_t *buf, size_t size,
		      const struct vb_framed_rx_ops *ops, void *opaque);

/* A vb_framed_rx_read() result other than 0, as the words for a log. */
const char *vb_framed_rx_why(int err);

struct vb_framed_tx {
	struct evloop *loop;
	struct ev_handler *h;		/* the socket (h->fd, -1: none) */
	uint8_t *buf;			/* ring of size bytes */
	size_t size;
	size_t head;
	size_t len;			/* bytes queued */
	bool want_out;			/* EPOLLOUT requested */
};

/* A ring of SIZE bytes for the socket of H; 0 or -ENOMEM. */
int vb_framed_tx_init(struct vb_framed_tx *t, size_t size, struct evloop *loop,
		      struct ev_handler *h);
void vb_framed_tx_fini(struct vb_framed_tx *t);
/* The connection is new or gone: nothing queued, no EPOLLOUT asked for. */
void vb_framed_tx_reset(struct vb_framed_tx *t);
/*
 * Queue a LEN-byte frame with its length prefix, then write what the
 * socket takes unless it is already waiting for EPOLLOUT.  Returns the
 * bytes written to the socket (>= 0), -ENOBUFS if the frame does not fit
 * (nothing queued), or -errno of a failed send (the caller closes).
 */
long vb_framed_tx_send(struct vb_framed_tx *t, const uint8_t *frame,
		       uint32_t len);
/*
 * Write as much of the ring as the socket takes now; ask for EPOLLOUT
 * while bytes remain.  Returns the bytes written (>= 0) or -errno of a
 * failed send (the caller closes the connection).
 */
long vb_framed_tx_flush(struct vb_framed_tx *t);

#endif /* EUSRV_MODEL_FRAMED_H */
