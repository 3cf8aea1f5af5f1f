/*
 * The transmit side of a framed stream (QEMU's stream netdev: a 4-byte
 * big-endian length, then the frame) on a non-blocking socket: a bounded
 * byte ring of queued frames, written out as the socket takes them, with
 * EPOLLOUT asked for only while bytes wait.  Used by the management hub's
 * ports and by the shared NIC's line side.
 */
#ifndef EUSRV_MODEL_FRAMED_H
#define EUSRV_MODEL_FRAMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evloop.h"

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
