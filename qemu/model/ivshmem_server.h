/*
 * The ivshmem server for all nodes: one listening UNIX socket per node
 * (DIR/ivshmem-node<n>.sock), at most one connection each.  On connect it
 * sends QEMU's ivshmem-doorbell setup (protocol version, the node's peer
 * id, the BAR2 memfd, then EUSRV_NR_VECTORS kick eventfds as peer
 * EUSRV_MODEL_PEER and EUSRV_NR_VECTORS interrupt eventfds as the node's
 * own) and reports attach, kick and detach through callbacks.
 */
#ifndef EUSRV_MODEL_IVSHMEM_SERVER_H
#define EUSRV_MODEL_IVSHMEM_SERVER_H

#include <sys/un.h>

#include <eusrv/board_hw.h>

#include "evloop.h"
#include "log.h"

/* Protocol version of QEMU's ivshmem server protocol. */
#define IVS_PROTOCOL_VERSION	0

struct ivs_callbacks {
	/* IRQ_FDS: the node's interrupt eventfds, valid until detach. */
	void (*attach)(void *opaque, unsigned int node,
		       const int irq_fds[EUSRV_NR_VECTORS]);
	void (*detach)(void *opaque, unsigned int node);
	void (*kick)(void *opaque, unsigned int node, unsigned int vector);
};

struct ivs_node;

struct ivs_kick {
	struct ev_handler h;		/* the kick eventfd, -1 if detached */
	struct ivs_node *node;
	unsigned int vector;
};

struct ivs_node {
	struct ivs_server *srv;
	unsigned int id;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct ev_handler listen;
	struct ev_handler conn;		/* -1 while no VM is connected */
	struct ivs_kick kick[EUSRV_NR_VECTORS];
	int irq_fd[EUSRV_NR_VECTORS];
	struct log_ratelimit rl;	/* refused connections */
};

struct ivs_server {
	struct evloop *loop;
	int shm_fd;
	unsigned int nr_nodes;
	const struct ivs_callbacks *cb;
	void *opaque;
	struct ivs_node nodes[EUSRV_MAX_NODES];
};

/*
 * Listen on DIR/ivshmem-node<n>.sock for each node.  Returns 0 or -errno
 * (logged), e.g. -EADDRINUSE if another process serves a socket already.
 */
int ivs_init(struct ivs_server *s, struct evloop *loop, const char *dir,
	     unsigned int nr_nodes, int shm_fd, const struct ivs_callbacks *cb,
	     void *opaque);
/* Disconnect every node (with detach callbacks) and remove the sockets. */
void ivs_fini(struct ivs_server *s);

#endif /* EUSRV_MODEL_IVSHMEM_SERVER_H */
