/*
 * The management network hub on DIR/mgmt.sock: accepts QEMU stream-netdev
 * connections (any number up to MGMT_MAX_PORTS) and switches frames between
 * them with mgmt_switch.  All I/O is non-blocking; a peer that does not
 * read loses frames once its bounded output buffer is full, and never
 * holds up the others.
 */
#ifndef EUSRV_MODEL_MGMT_HUB_H
#define EUSRV_MODEL_MGMT_HUB_H

#include <stdint.h>
#include <sys/un.h>

#include "evloop.h"
#include "framed.h"
#include "log.h"
#include "mgmt_switch.h"

/* Connections served at once; memory per connection is bounded. */
#define MGMT_MAX_PORTS		256U
/* Output buffer per connection: a few maximal frames. */
#define MGMT_TXBUF_SIZE		(4U * (MGMT_FRAME_MAX + MGMT_LEN_SIZE))
/* Bytes read from one connection per loop round. */
#define MGMT_READ_CHUNK		65536U

struct vb_hub;

struct vb_hub_port {
	struct ev_handler h;
	struct vb_hub *hub;
	uint32_t id;
	bool dead;
	struct vb_hub_port *next;
	struct vb_framed_tx tx;		/* MGMT_TXBUF_SIZE bytes */
	uint64_t dropped;
	struct log_ratelimit rl;
	struct vb_switch_rx rx;
};

struct vb_hub {
	struct evloop *loop;
	struct ev_handler listen;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct vb_switch sw;
	struct vb_hub_port *ports;
	unsigned int nr_ports;
	uint32_t next_id;
	struct log_ratelimit rl;
	uint8_t rbuf[MGMT_READ_CHUNK];
};

/* Listen on DIR/mgmt.sock; 0 or -errno (logged). */
int vb_hub_init(struct vb_hub *hub, struct evloop *loop, const char *dir);
/* Free connections closed during the last round (after dispatch). */
void vb_hub_reap(struct vb_hub *hub);
/* Close everything and remove the socket. */
void vb_hub_fini(struct vb_hub *hub);

#endif /* EUSRV_MODEL_MGMT_HUB_H */
