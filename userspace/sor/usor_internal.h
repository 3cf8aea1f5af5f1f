/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the interception core share, one section a file.
 * The files call each other one way only, each only those above it:
 *   fdtab.c ring.c peers.c inaddr.c   (their own headers; no libc calls)
 *   real.c     the front end's table of real operations
 *   conn.c     connection objects: memory, mapping, release
 *   fork.c     whose table it is (fork, vfork)
 *   ctl.c      the control file, the peers, the process-wide state
 *   opts.c     a connection's socket options
 *   face.c     a connection's socket face; adopting connections
 *   pending.c  a non-blocking connect()'s background set-up
 *   fdops.c    close and the dup family
 *   setup.c    connect, listen, accept
 *   sockops.c  the socket calls on a connection (data, options, names)
 */
#ifndef EUSRV_USOR_INTERNAL_H
#define EUSRV_USOR_INTERNAL_H

#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "fdtab.h"
#include "peers.h"
#include "ring.h"
#include "usor_core.h"

/* Time units (timeouts, spin budgets, clocks). */
#define USOR_NS_PER_S	1000000000LL
#define USOR_NS_PER_US	1000LL
#define USOR_US_PER_S	1000000LL

/*
 * The socket options an accepted connection keeps (opts.c), in its face
 * (below), a slot each: an int set with 4 bytes in a word with its key,
 * other values up to USOR_OPT_MAX bytes in a larger slot.  A client
 * connection keeps none: the driver holds its socket.
 */
#define USOR_MAX_INTS	160
#define USOR_MAX_OPTS	12
#define USOR_OPT_MAX	40

struct usor_opt {
	uint32_t key;		/* opts.c's key of level and name; 0 free */
	uint32_t seq;		/* odd while the value is written */
	uint32_t len;		/* of the value; 0 none */
	uint32_t reserved;
	unsigned char val[USOR_OPT_MAX];
};

struct usor_conn {
	/* Lifetime (fdtab.c). */
	unsigned int refs;
	unsigned int busy;
	unsigned int index;

	/* The mapping and the rings. */
	void *map;
	unsigned long map_len;
	struct usor_ring snd;
	struct usor_ring rcv;

	/* Who: ids, addresses (network order), what the driver said. */
	uint32_t id, node, peer_node, peer_id;
	int family;		/* the socket's: AF_INET6 shows IPv4-mapped */
	struct sockaddr_in local;
	struct sockaddr_in peer;

	/*
	 * A non-blocking connect()'s set-up (pending.c): USOR_PEND_*, atomic.
	 * Until it is over the rings are not mapped and the socket calls go
	 * to the socket's own descriptor TCP_FD (-1 none), which stays the
	 * connection's if set-up fails and the driver turns to TCP.
	 */
	unsigned int pending;
	int tcp_fd;
	int tcp_fl;		/* O_NONBLOCK as last given to TCP_FD */
	unsigned int tcp_busy;	/* a thread (re)takes TCP_FD */
	uint64_t tcp_dev;	/* what TCP_FD is: the program may close */
	uint64_t tcp_ino;	/* or replace it behind our back */

	/* State kept by the core (atomic). */
	unsigned int shut;	/* USOR_X_SHUT_RD once shutdown(SHUT_RD) */
	int64_t rcvtimeo_ns;	/* -1: none; 0: never waits */
	int64_t sndtimeo_ns;

	/* What answers its other socket options (opts.c): USOR_KIND_*. */
	unsigned int kind;
	/* Kept with its face (struct usor_face says what they are). */
	uint64_t cookie;
	int syn_ttl;
	int syn_ifindex;
};

/* ---- real.c ---------------------------------------------------------------- */

/* The real operations, once usor_set_real() ran. */
extern const struct usor_real *usor_r;

/* Errors: set errno from a negative errno value and return -1. */
long usor_fail(long neg_errno);

/* ---- conn.c ---------------------------------------------------------------- */

/* Give the descriptor table its memory and its release of an object. */
void usor_conn_setup(void);
/* Map connection file CFD: a new object with one reference, or NULL. */
struct usor_conn *usor_conn_map(int cfd);
/* The same with the layout CONNECT gave (no INFO call). */
struct usor_conn *usor_conn_map_info(int cfd, const struct eusrv_sor_info *in);
/*
 * Map the rings of connection file CFD into C, and say what the driver
 * told of them in INFO: 0, or -1 with errno.
 */
int usor_conn_map_rings(struct usor_conn *c, int cfd,
			struct eusrv_sor_info *info);
/* Whether T is still the socket's descriptor that C took. */
bool usor_tcp_fd_still(const struct usor_conn *c, int t);

/* ---- fork.c ---------------------------------------------------------------- */

/* The table describes this process's descriptors (start, fork child). */
void usor_table_own(void);
/*
 * Whether this is a vfork (or CLONE_VM) child running in its parent's
 * memory: its descriptors are its own, the table is the parent's, so it
 * must not change the table (it dup2s and closes before exec).
 */
bool usor_table_borrowed(void);

/* ---- ctl.c ----------------------------------------------------------------- */

/* Process-wide state. */
struct usor_state {
	int ctl;		/* control file, -1 none */
	int node;		/* this node (driver), -1 unknown */
	int64_t spin_ns;
	struct usor_peers peers;
};

/*
 * The control file and the peers, opened/read on first use: NULL when the
 * driver is not loaded (then everything stays on TCP).
 */
const struct usor_state *usor_state_get(void);
/* Quick: the driver is known to be absent (after the first try). */
bool usor_absent(void);
/* The control file as it stands (-1 none; usor_state_get() opens it). */
int usor_ctl_fd(void);
/* The program closed or replaced descriptor FD: was it our control file? */
void usor_ctl_gone(int fd);
/* First address of NODE in the peers file (network order), or 0. */
uint32_t usor_node_addr(const struct usor_state *st, uint32_t node);
/*
 * The address of NODE that talks to ADDR, one of node OF's: the one in
 * the same place of NODE's peers line as ADDR in OF's (a node's second
 * address talks to another's second address: the same network), or
 * NODE's first when ADDR is not one of OF's or NODE has fewer addresses.
 */
uint32_t usor_node_addr_like(const struct usor_state *st, uint32_t node,
			     uint32_t of, uint32_t addr);

/* ---- opts.c ---------------------------------------------------------------- */

/*
 * What answers the socket options a connection does not implement itself:
 * a client's own TCP socket, which the driver keeps (EUSRV_SOR_SOCKET), or
 * for an accepted connection a TCP socket made for the call and given the
 * options the connection keeps (struct usor_face opts).  UNKNOWN until the
 * driver was asked.
 */
#define USOR_KIND_UNKNOWN	0U
#define USOR_KIND_CLIENT	1U
#define USOR_KIND_SERVER	2U

/*
 * getsockopt and setsockopt on connection C, whose file is CFD (no errno:
 * 0 or a negative one).  Each answers, length included, as a TCP socket
 * between the same addresses would.
 */
int usor_conn_getopt(struct usor_conn *c, int cfd, int level, int name,
		     void *val, socklen_t *len);
int usor_conn_setopt(struct usor_conn *c, int cfd, int level, int name,
		     const void *val, socklen_t len);
/*
 * C takes the place of the socket FD (C's file is CFD): what C keeps
 * itself comes from FD (timeouts, SO_LINGER, SO_COOKIE); an accepted
 * connection (SERVER) also keeps the options FD has from its listener.
 */
void usor_conn_import(struct usor_conn *c, int fd, int cfd, bool server);
/* What a client connection keeps of its socket, as CONNECT told it. */
void usor_conn_import_connect(struct usor_conn *c, const struct eusrv_sor_connect *rq);

/* ---- face.c ---------------------------------------------------------------- */

/*
 * The socket face of a connection, as kept in its mapped send header page
 * (EUSRV_SOR_USER_OFF): what a process that inherits the descriptor
 * across exec, or receives it with SCM_RIGHTS, needs to serve it as the
 * same socket.  Written by the process that changes it, read (and
 * checked: any process may have written it) on adoption.
 */
#define USOR_FACE_MAGIC	0x32534f46U	/* "FOS2" */

struct usor_face {
	/* Written whole by usor_face_save(), magic last. */
	uint32_t magic;		/* USOR_FACE_MAGIC once complete */
	int32_t family;
	struct sockaddr_in local;
	struct sockaddr_in peer;
	uint32_t shut;
	uint32_t reserved;
	int64_t rcvtimeo_ns;
	int64_t sndtimeo_ns;
	uint64_t cookie;	/* SO_COOKIE of the socket it replaced; 0 unknown */
	/*
	 * An accepted connection's IP_MULTICAST_TTL (IPV6_MULTICAST_HOPS): the
	 * TTL of its SYN, as TCP keeps it; 0 unknown.  IPV6_MULTICAST_IF: the
	 * interface the SYN came in on, its local address's.
	 */
	int32_t syn_ttl;
	int32_t syn_ifindex;
	/*
	 * The options an accepted connection keeps (opts.c): live, shared by
	 * every process that maps it, written slot by slot, never by
	 * usor_face_save().  ints: key << 32 | value, 0 free.
	 */
	uint64_t ints[USOR_MAX_INTS];
	struct usor_opt opts[USOR_MAX_OPTS];
};

/* The face in C's page (C mapped). */
struct usor_face *usor_face_of(struct usor_conn *c);
/* Keep C's face in its page (after any change of it). */
void usor_face_save(struct usor_conn *c);
/*
 * FD is a connection this process did not create (inherited across exec,
 * received with SCM_RIGHTS): map it, restore its face, enter it in the
 * table.  Returns it with a reference, or NULL (errno unchanged) when FD
 * is not a connection.
 */
struct usor_conn *usor_adopt(int fd);

/* ---- pending.c ------------------------------------------------------------- */

#define USOR_PEND_NONE		0U	/* established: mapped */
#define USOR_PEND_CONNECTING	1U
#define USOR_PEND_BUSY		2U	/* a thread is looking */
#define USOR_PEND_TCP		3U	/* set-up failed: TCP for good */

/*
 * A connection whose set-up was going on (USOR_PEND_CONNECTING): look
 * again (one thread at a time); returns the new USOR_PEND_* state.
 */
unsigned int usor_settle(struct usor_conn *c, int fd);
/*
 * The descriptor of connection file FD's socket that C serves its socket
 * calls with, taken again if the program closed or replaced it: -1 none.
 */
int usor_tcp_fd_of(struct usor_conn *c, int fd);
/*
 * The connection at *FD with a reference, as usor_fd_get(); but one whose
 * set-up is still going on or turned to TCP is no connection to the
 * caller: NULL, with *FD now the socket's own descriptor for the real
 * call.
 */
struct usor_conn *usor_fd_route(int *fd);
/*
 * The same for the data calls, which wait while set-up goes on (or fail
 * with EAGAIN if non-blocking): NULL with *FD USOR_FD_FAILED and errno set
 * then (for a descriptor that is USOR_FD_FAILED itself, EBADF).
 */
struct usor_conn *usor_fd_route_io(int *fd);
#define USOR_FD_FAILED	INT_MIN

/* ---- parked.c -------------------------------------------------------------- */

/*
 * Park NFD, accepted on listener LFD, whose connection could not be
 * claimed for a per-call error; false if it cannot be kept (then close
 * it).  errno is unchanged.
 */
bool usor_park(int lfd, int nfd);
/* A socket parked on listener LFD, or -1 (errno unchanged). */
int usor_unpark(int lfd);
/* Descriptors FIRST..LAST are closed or replaced (close, dup2, ...). */
void usor_park_gone(unsigned int first, unsigned int last);
void usor_park_fork_child(void);

/* ---- sockops.c ------------------------------------------------------------- */

/* The ring ops of a connection. */
extern const struct usor_kops usor_kops_dev;
struct usor_kctx {
	int fd;
	struct usor_conn *c;
};

#endif /* EUSRV_USOR_INTERNAL_H */
