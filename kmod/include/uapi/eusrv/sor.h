/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Sockets over RDMA: the interface between the eusrv_sor driver and the
 * interception core in user space (libeusrv-preload.so, the patched libc,
 * eusrvctl).  docs/protocol.md describes the protocol between nodes.
 *
 * Two kinds of files:
 *
 *  - the control file, /dev/eusrv_sor, one per process (opened O_CLOEXEC by
 *    the interception core): registers listeners, starts connections,
 *    matches accepted dummy connections, lists connections and counters;
 *
 *  - one connection file per connection (an anonymous inode), returned by
 *    CONNECT and ACCEPT, which user space puts in place of the socket's
 *    descriptor with dup3().  It has read/write (a correct slow path),
 *    splice both ways, poll, mmap of the two rings, and the connection
 *    ioctls below.  Every
 *    descriptor sharing the file (dup, fork) shares the connection.
 *
 * Every ioctl validates its argument: unknown commands fail with ENOTTY,
 * non-zero reserved fields or flags and out-of-range values with EINVAL.
 */
#ifndef _UAPI_EUSRV_SOR_H
#define _UAPI_EUSRV_SOR_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define EUSRV_SOR_DEVICE		"/dev/eusrv_sor"
#define EUSRV_SOR_MAX_CONNS		4095U	/* ids 0..4094 per node */

/*
 * Ring sizes are powers of two, given as log2: 4 KiB .. 2 MiB, 256 KiB
 * unless SO_SNDBUF/SO_RCVBUF say otherwise.  The sizes of one direction
 * (the sender's send ring and the receiver's receive ring) are always
 * equal: the larger of the two sides' wishes, at most the larger of the
 * server's own two (a client cannot make a listener's user pay for more
 * than it asked for itself).  2 MiB is the most that the receive block,
 * one physically contiguous allocation of the data and two header pages,
 * can be on a kernel whose largest block is 4 MiB (MAX_ORDER 11).
 */
#define EUSRV_SOR_RING_MIN_SHIFT	12U
#define EUSRV_SOR_RING_MAX_SHIFT	21U
#define EUSRV_SOR_RING_DEF_SHIFT	18U

/**
 * struct eusrv_sor_ring_hdr - a ring's header, at the start of its header page
 *
 * The mapping of a connection file: offset 0, length map_len (from
 * EUSRV_SOR_INFO), MAP_SHARED, PROT_READ | PROT_WRITE.
 *
 *   [send header page][send data: snd_size][recv header page][recv data: rcv_size]
 *
 * Positions are free-running 32-bit byte counters; byte p of the stream
 * lives at data[p & (size - 1)].  The header is laid out for two parties,
 * one 64-byte line per writer, so that the two sides never write the same
 * cache line (as AF_XDP's rings):
 *
 *   send ring: tail   - user space (bytes written so far)
 *              head   - kernel (bytes the engine has copied to the peer)
 *   recv ring: tail   - the peer's engine (bytes arrived so far): a
 *                       spinning reader sees data with no system call
 *              head   - user space (bytes consumed so far)
 *   lock              - user space (and LOCK_WAIT/WAKE)
 *   size, flags, need_push, reported - kernel
 *
 * The kernel keeps its own copies of the fields it writes and never reads
 * them back; what user space writes (send tail, recv head) is checked
 * before it drives any transfer (0 <= tail - head <= size, never moving
 * backwards); a bad value fails the connection with EINVAL.  The kernel
 * takes the receive tail from a copy the engine writes in kernel memory,
 * not from this header.
 */
struct eusrv_sor_ring_hdr {
	/** @tail: the producer line */
	__u32 tail;
	/** @reserved0: reserved, the rest of the producer line */
	__u32 reserved0[15];
	/** @head: the consumer line */
	__u32 head;
	/** @reserved1: reserved, the rest of the consumer line */
	__u32 reserved1[15];
	/**
	 * @lock: lock words (D4.2's send and receive locks), both in the send
	 * header: the receive header lies in the block the peer's engine
	 * writes, where the peer could forge a holder.  In the send header,
	 * @lock is the send ring's and @rcv_lock the receive ring's; in
	 * the receive header both are unused.  0 free, else the holder's
	 * thread id (EUSRV_SOR_LOCK_TID, as gettid()
	 * gives it), with EUSRV_SOR_LOCK_WAITERS once someone waits.  Held
	 * only while copying and publishing, never across a wait.  Contended
	 * takers set WAITERS and call EUSRV_SOR_LOCK_WAIT; releasers that saw
	 * WAITERS call EUSRV_SOR_LOCK_WAKE.  The driver's read() and write()
	 * take it too (with EUSRV_SOR_LOCK_KERNEL).  A lock whose holder
	 * no longer exists, is exiting or a zombie, or no longer maps the
	 * connection (it called exec) is freed by LOCK_WAIT.
	 */
	__u32 lock;
	/** @rcv_lock: the receive ring's lock word, as @lock */
	__u32 rcv_lock;
	/** @reserved2: reserved, the rest of the lock line */
	__u32 reserved2[14];
	/** @size: kernel line: data bytes, a power of two */
	__u32 size;
	/** @flags: EUSRV_SOR_RF_* */
	__u32 flags;
	/**
	 * @need_push: send ring: non-zero when the kernel will not look at the
	 * tail by itself: no transfer in flight, or one whose end it learns
	 * only when asked (a lone transfer does not interrupt when it ends);
	 * zero while a transfer's end or the peer's credit will make it look.
	 * After moving the tail, user space issues a full barrier, reads
	 * need_push and calls EUSRV_SOR_PUSH if it is set.  The kernel sets
	 * it, issues a full barrier and reads the tail again, so no write is
	 * missed.
	 */
	__u32 need_push;
	/**
	 * @reported: receive ring: the head the peer knows (the last credit
	 * sent).  The peer may fill the ring up to reported + size; user
	 * space calls EUSRV_SOR_CREDIT when eusrv_sor_credit_due() says the
	 * peer could run short.
	 */
	__u32 reported;
	/** @reserved3: reserved, the rest of the kernel line */
	__u32 reserved3[12];
};

/*
 * The second half of the send header page (EUSRV_SOR_INFO snd_hdr_off) is
 * user space's own: zero when the connection is created, never read or
 * written by the kernel, shared by every process that maps the connection.
 * The interception library keeps the socket's face there (family, names,
 * options), so that it survives exec and travels with SCM_RIGHTS.
 */
#define EUSRV_SOR_USER_OFF	2048
#define EUSRV_SOR_USER_LEN	2048

/*
 * Whether the reader should give the writer credit now: it consumed a
 * quarter of the ring since the last credit and the writer has less than
 * half a ring left by its own knowledge.  Never both false while the
 * writer is out of credit and the reader has emptied the ring, so the
 * stream cannot stall; and no credit per read while the writer has room.
 */
static __inline__ int eusrv_sor_credit_due(__u32 head, __u32 tail,
					   __u32 reported, __u32 size)
{
	return head - reported >= size / 4 &&
	       reported + size - tail < size / 2;
}

/* flags (kernel-written) */
#define EUSRV_SOR_RF_EOF		_BITUL(0)	/* recv: FIN, no data after tail */
#define EUSRV_SOR_RF_ERROR		_BITUL(1)	/* connection failed: see SO_ERROR */
#define EUSRV_SOR_RF_SHUT		_BITUL(2)	/* send: for writing; recv: for reading */
#define EUSRV_SOR_RF_PEER_CLOSED	_BITUL(3)	/* send: peer closed: EPIPE */

/**
 * enum eusrv_sor_state - connection states (EUSRV_SOR_INFO, EUSRV_SOR_LIST)
 * @EUSRV_SOR_ST_CONNECTING: client: ConnRQ sent
 * @EUSRV_SOR_ST_ACCEPTING: server: dummy connect / rings
 * @EUSRV_SOR_ST_ESTABLISHED: the rings carry the stream
 * @EUSRV_SOR_ST_CLOSING: closed here, flushing, then NACK
 * @EUSRV_SOR_ST_PEER_CLOSED: peer's NACK(0) after its FIN
 * @EUSRV_SOR_ST_RESET: failed; so_error says why
 * @EUSRV_SOR_ST_NACK_WAIT: released, waiting for the NACK reply
 * @EUSRV_SOR_ST_TCP: client: set-up failed, the file serves the socket
 */
enum eusrv_sor_state {
	EUSRV_SOR_ST_CONNECTING = 1,
	EUSRV_SOR_ST_ACCEPTING,
	EUSRV_SOR_ST_ESTABLISHED,
	EUSRV_SOR_ST_CLOSING,
	EUSRV_SOR_ST_PEER_CLOSED,
	EUSRV_SOR_ST_RESET,
	EUSRV_SOR_ST_NACK_WAIT,
	EUSRV_SOR_ST_TCP,
};

/* ---- Control file ioctls ------------------------------------------------ */

#define EUSRV_SOR_F_NONBLOCK		_BITUL(0)	/* O_NONBLOCK on the new file */
#define EUSRV_SOR_F_CLOEXEC		_BITUL(1)	/* O_CLOEXEC on the new fd */
/* CONNECT only */
#define EUSRV_SOR_F_INHERIT		_BITUL(2)	/* file flags, linger as FD's */
#define EUSRV_SOR_F_BIND		_BITUL(3)	/* bind FD if it is not */
#define EUSRV_SOR_F_INET6		_BITUL(4)	/* the destination was AF_INET6 */
#define EUSRV_SOR_F_MAP			_BITUL(5)	/* map the rings (blocking) */

/**
 * struct eusrv_sor_listen - argument of EUSRV_SOR_LISTEN and EUSRV_SOR_UNLISTEN
 * @addr: the IPv4 address FD listens on, in network order (0 for any)
 * @port: host order, non-zero
 * @snd_shift: log2 of the send ring's size: 0 = default, else MIN..MAX_SHIFT
 * @rcv_shift: the same for the receive ring
 * @flags: must be 0
 * @fd: the listening socket (not for UNLISTEN)
 *
 * LISTEN: user space listens on PORT with the TCP socket FD and will match
 * accepted connections with ACCEPT.  FD must be a socket of the caller's,
 * listening on PORT in the board's network namespace (the initial one) on
 * an address that a board peer can reach: the wildcard, or a local address
 * that is not loopback; an IPv6 socket only if it takes IPv4 (not
 * IPV6_V6ONLY).  Without a registration on the port, a peer's ConnRQ is
 * refused with ECONNREFUSED and the peer falls back to TCP.  The
 * registration belongs to this control file; UNLISTEN or closing the file
 * drops it, and it stops counting as soon as FD's socket stops listening
 * (closed, or shut down), so that a later listener on the port that is
 * not ours never gets a dummy connection.  A control file holds at most
 * 1024 registrations (ENOBUFS).
 */
struct eusrv_sor_listen {
	__u32 addr;
	__u16 port;
	__u8 snd_shift;
	__u8 rcv_shift;
	__u32 flags;
	__s32 fd;
};

/**
 * struct eusrv_sor_info - a connection as INFO (and CONNECT) report it
 * @state: enum eusrv_sor_state
 * @id: local connection id
 * @node: this node
 * @peer_node: the peer's node
 * @peer_id: the peer's connection id
 * @lport: host order
 * @rport: the peer's port, host order
 * @snd_size: the send ring's data bytes
 * @rcv_size: the receive ring's data bytes
 * @map_len: mmap length
 * @snd_hdr_off: offset of the send header page in the mapping
 * @snd_data_off: offset of the send data
 * @rcv_hdr_off: offset of the receive header page
 * @rcv_data_off: offset of the receive data
 * @map_addr: where a blocking CONNECT with EUSRV_SOR_F_MAP mapped the
 *	rings (map_len bytes, as mmap of the file at offset 0); 0: not
 *	mapped (INFO, or the set-up went on in the background)
 * @reserved: reserved, 0
 */
struct eusrv_sor_info {
	__u32 state;
	__u32 id;
	__u32 node;
	__u32 peer_node;
	__u32 peer_id;
	__u16 lport;
	__u16 rport;
	__u32 snd_size;
	__u32 rcv_size;
	__u64 map_len;
	__u64 snd_hdr_off;
	__u64 snd_data_off;
	__u64 rcv_hdr_off;
	__u64 rcv_data_off;
	__u64 map_addr;
	__u32 reserved[2];
};

/**
 * struct eusrv_sor_connect - argument of EUSRV_SOR_CONNECT
 * @node: the board node to connect to
 * @port: the port there, host order
 * @reserved2: reserved, must be 0
 * @snd_shift: as in struct eusrv_sor_listen: 0 = default
 * @rcv_shift: the same for the receive ring
 * @reserved0: reserved, must be 0
 * @flags: EUSRV_SOR_F_*
 * @timeout_ms: 0 = 2000, at most 60000
 * @fd: the caller's bound TCP socket
 * @addrlen: 0, or the length of ADDR (at most 128)
 * @reserved3: reserved, must be 0: ADDR at the same offset for 32-bit
 *	programs
 * @addr: user pointer: where TCP connects instead
 * @out_flags: out, on success: EUSRV_SOR_F_NONBLOCK, _CLOEXEC of the file
 * @lport: out: FD's local port, host order
 * @reserved4: reserved
 * @laddr: out: FD's IPv4 address, network order; 0 = any
 * @reserved5: reserved
 * @rcvtimeo_ns: out: FD's SO_RCVTIMEO (F_INHERIT), -1 = none
 * @sndtimeo_ns: out: FD's SO_SNDTIMEO (F_INHERIT), -1 = none
 * @info: out: blocking: the connection
 *
 * CONNECT: a connection to PORT on board node NODE from the caller's TCP
 * socket FD, which must be bound (its local port is the connection's, and
 * stays taken until the connection has ended), not connected, and in the
 * board's network namespace.  Blocks until the connection is established
 * or fails (at most timeout_ms, 0 = 2000): returns the new connection
 * file's descriptor, or -1 with ECONNREFUSED (no listener registered
 * there), ETIMEDOUT, EHOSTUNREACH (node absent), ENOMEM (no ring memory),
 * EDQUOT (the rings would pass the caller's RLIMIT_MEMLOCK, or the
 * server's listener's), EINTR.  Any failure means "use TCP instead"; the
 * reason goes to NOTE.
 *
 * With EUSRV_SOR_F_NONBLOCK it returns the file at once, in CONNECTING,
 * and set-up goes on in the background, as a TCP connect() that returned
 * EINPROGRESS: poll says POLLOUT once it is ESTABLISHED (the rings can
 * be mapped then).  If it fails, and ADDR (a struct sockaddr of ADDRLEN
 * bytes, the destination as connect() got it) was given, the file turns
 * into FD's socket (state TCP), still unconnected: user space connects
 * it there itself (EUSRV_SOR_SOCKET gives a descriptor of it), then says
 * so with EUSRV_SOR_TCP_STARTED; until then the file polls readable and
 * writable, afterwards poll, read and write are the socket's.  ADDR must
 * be an AF_INET or AF_INET6 address on PORT (else EINVAL).  Without ADDR
 * a failure ends in RESET with the error (GET_ERROR).
 *
 * So that connect() costs user space one call, CONNECT also does and
 * tells what the library would otherwise ask of FD one call at a time:
 * with EUSRV_SOR_F_BIND an unbound FD is first bound to its family's
 * wildcard address and a free port (as connect() itself would); with
 * EUSRV_SOR_F_INHERIT the new file is non-blocking and close-on-exec as
 * FD is (the caller's NONBLOCK and CLOEXEC are ignored), a connection
 * whose socket had SO_LINGER with a zero time resets when closed, and
 * the socket's receive and send timeouts are reported.  On success the
 * fields after ADDR say what was used: FD's port and IPv4 address (0:
 * any), the file's NONBLOCK and CLOEXEC, the timeouts, and for a
 * blocking CONNECT the connection as INFO gives it (mmap it at once).
 * With EUSRV_SOR_F_MAP a blocking CONNECT maps the rings itself while the
 * server's answer is on its way, and info.map_addr says where: the
 * mapping is the caller's, as one its own mmap of the file would be.
 * (Until CONNECT returns it is not inherited by fork and its pages are
 * not filled in; it is made again if the server chose other sizes.)
 * Whatever the flags: EPROTOTYPE if FD is not a TCP socket,
 * EAFNOSUPPORT if it cannot speak IPv4 to the destination (the
 * destination's family, EUSRV_SOR_F_INET6 for an IPv4-mapped IPv6
 * address, is not FD's; an IPV6_V6ONLY socket; bound to an IPv6-only
 * address), EISCONN if it is connected, connecting or listening: for
 * these, TCP's own connect() gives the answer a program expects.
 */
struct eusrv_sor_connect {
	__u32 node;
	__u16 port;
	__u16 reserved2;
	__u8 snd_shift;
	__u8 rcv_shift;
	__u16 reserved0;
	__u32 flags;
	__u32 timeout_ms;
	__s32 fd;
	__u32 addrlen;
	__u32 reserved3;
	__u64 addr;
	__u32 out_flags;
	__u16 lport;
	__u16 reserved4;
	__u32 laddr;
	__u32 reserved5;
	__s64 rcvtimeo_ns;
	__s64 sndtimeo_ns;
	struct eusrv_sor_info info;
};

/**
 * struct eusrv_sor_accept - argument of EUSRV_SOR_ACCEPT
 * @fd: the accepted TCP socket
 * @flags: EUSRV_SOR_F_*
 * @reserved0: reserved, must be 0
 * @reserved1: reserved, must be 0
 *
 * ACCEPT: FD is a TCP socket that the caller's listener accepted.  If its
 * peer is one of the driver's dummy connections (made only once the RDMA
 * connection is established, so ACCEPT never waits), returns the
 * connection file's descriptor; if it is not, fails with ENOENT (a genuine
 * local TCP client: keep the socket).  Only the holder of the accepted end
 * of a dummy can claim it.  A dummy whose connection failed meanwhile
 * gives the failure (ECONNABORTED, ECONNRESET...); user space then closes
 * the accepted socket and accepts again.  EMFILE, ENFILE and ENOMEM (no
 * descriptor or memory for the file) leave the connection claimable by
 * the same accepted socket: keep it, report the error as accept() does,
 * and ACCEPT again later.
 */
struct eusrv_sor_accept {
	__s32 fd;
	__u32 flags;
	__u32 reserved0;
	__u32 reserved1;
};

/*
 * NOTE: a socket of this process stayed on TCP; the record is kept with
 * the control file (last EUSRV_SOR_MAX_NOTES per file) for eusrvctl.
 */
#define EUSRV_SOR_MAX_NOTES		64U

/**
 * enum eusrv_sor_reason - why a socket stayed on TCP (struct eusrv_sor_note)
 * @EUSRV_SOR_R_NOT_PEER: destination is not a board peer
 * @EUSRV_SOR_R_REFUSED: peer has no RDMA listener / refused
 * @EUSRV_SOR_R_TIMEOUT: peer did not answer
 * @EUSRV_SOR_R_UNREACHABLE: node absent or down
 * @EUSRV_SOR_R_NO_MEMORY: no memory for the connection
 * @EUSRV_SOR_R_NOT_IPV4: IPv6 and other families
 * @EUSRV_SOR_R_OPTIONS: socket options RDMA cannot honour
 * @EUSRV_SOR_R_LOCAL: genuine local TCP client (accept side)
 * @EUSRV_SOR_R_OTHER: none of the others
 * @EUSRV_SOR_R_MEMLOCK: rings over the user's RLIMIT_MEMLOCK
 * @EUSRV_SOR_R_MAX: the highest reason
 */
enum eusrv_sor_reason {
	EUSRV_SOR_R_NOT_PEER = 1,
	EUSRV_SOR_R_REFUSED,
	EUSRV_SOR_R_TIMEOUT,
	EUSRV_SOR_R_UNREACHABLE,
	EUSRV_SOR_R_NO_MEMORY,
	EUSRV_SOR_R_NOT_IPV4,
	EUSRV_SOR_R_OPTIONS,
	EUSRV_SOR_R_LOCAL,
	EUSRV_SOR_R_OTHER,
	EUSRV_SOR_R_MEMLOCK,
	EUSRV_SOR_R_MAX = EUSRV_SOR_R_MEMLOCK,
};

/**
 * struct eusrv_sor_note - argument of EUSRV_SOR_NOTE
 * @fd: the socket's descriptor
 * @reason: enum eusrv_sor_reason
 * @err: errno the driver gave, or 0
 * @laddr: IPv4, network order
 * @raddr: the destination's, IPv4, network order
 * @lport: host order
 * @rport: the destination's port, host order
 * @reserved: reserved, must be 0
 */
struct eusrv_sor_note {
	__s32 fd;
	__u32 reason;
	__s32 err;
	__u32 laddr;
	__u32 raddr;
	__u16 lport;
	__u16 rport;
	__u32 reserved;
};

/**
 * struct eusrv_sor_crossings - the data path's cost counters
 * @doorbells: transfers submitted + messages posted by the CPU
 * @irqs: messages received for it (one interrupt each at most)
 * @pushes: PUSH calls
 * @waits: WAIT calls
 * @credits: CREDIT calls
 * @lock_calls: LOCK_WAIT and LOCK_WAKE calls
 * @empty_wakes: a WAIT that slept woke with nothing it waits for
 * @poll_empty: poll calls after the first (a poll table without a queue
 *	function: a wake-up, or a level-triggered epoll's look after it
 *	reported) that found none of the events asked for
 * @msgs_sent: protocol messages its kernel posted (the engine's DATA and
 *	SENT are conditional: counted where they arrive)
 * @msgs_rcvd: protocol messages received
 * @arms: times a reader asked to be woken by the next data
 * @reserved: reserved, 0
 *
 * What the data path costs, in crossings (docs/protocol.md section 4):
 * doorbells (register writes that start a block of the board), interrupts
 * and system calls.  Per connection in LIST; summed over every connection
 * in STATS, which also has the blocks' own node-wide counts.
 */
struct eusrv_sor_crossings {
	__u64 doorbells;
	__u64 irqs;
	__u64 pushes;
	__u64 waits;
	__u64 credits;
	__u64 lock_calls;
	__u64 empty_wakes;
	__u64 poll_empty;
	__u64 msgs_sent;
	__u64 msgs_rcvd;
	__u64 arms;
	__u64 reserved;
};

/**
 * struct eusrv_sor_conn_stat - per-connection view for eusrvctl conns (LIST)
 * @id: local connection id
 * @peer_node: the peer's node
 * @peer_id: the peer's connection id
 * @state: enum eusrv_sor_state
 * @lport: local port, host order
 * @rport: the peer's port, host order
 * @so_error: positive errno or 0
 * @snd_size: the send ring's data bytes
 * @rcv_size: the receive ring's data bytes
 * @snd_queued: bytes written, not yet received by the peer
 * @rcv_queued: bytes arrived, not yet read
 * @bytes_sent: bytes the engine copied to the peer
 * @bytes_rcvd: bytes that arrived
 * @transfers: CDMA transfers issued
 * @pid: process that created it (tgid)
 * @flags: EUSRV_SOR_RF_* of both rings: recv << 16 | send
 * @serial: the node's count of connections opened (STATS conns_opened) when
 *	this one was established, 0 before: tells one connection from another
 *	over time, and which opened after a STATS reading.
 * @closed: 1: ended, a record of the history (LIST_CLOSED)
 * @uid: owner's effective uid.  As ss, LIST shows every connection to
 *	everyone, but pid only to its owner and CAP_NET_ADMIN (0 else).
 * @x: what its data path cost
 */
struct eusrv_sor_conn_stat {
	__u32 id;
	__u32 peer_node;
	__u32 peer_id;
	__u32 state;
	__u16 lport;
	__u16 rport;
	__s32 so_error;
	__u32 snd_size;
	__u32 rcv_size;
	__u32 snd_queued;
	__u32 rcv_queued;
	__u64 bytes_sent;
	__u64 bytes_rcvd;
	__u64 transfers;
	__s32 pid;
	__u32 flags;
	__u64 serial;
	__u32 closed;
	__u32 uid;
	struct eusrv_sor_crossings x;
};

/* LIST flags */
#define EUSRV_SOR_LIST_CLOSED	_BITUL(0)	/* also the last connections that ended */
#define EUSRV_SOR_HISTORY	1024		/* how many of those are kept */

/**
 * struct eusrv_sor_list - argument of EUSRV_SOR_LIST
 * @count: in: room in conns
 * @total: out: connection records, live and closed
 * @conns: in: user pointer to struct eusrv_sor_conn_stat[count]
 * @note_count: in: room in notes
 * @note_total: out: fallback notes
 * @notes: in: user pointer to struct eusrv_sor_note_rec[note_count]
 * @flags: in: EUSRV_SOR_LIST_*
 * @closed: out: how many of TOTAL are closed records
 *
 * LIST: copies up to COUNT connection records (all connections of the
 * node, then with EUSRV_SOR_LIST_CLOSED the last EUSRV_SOR_HISTORY that
 * ended, newest first; fallback NOTEs of every open control file when
 * NOTES is set) to the user buffers and says how many there are in total.
 * A connection that ends while the list is taken may be in it twice, live
 * and closed: the same serial.
 */
struct eusrv_sor_list {
	__u32 count;
	__u32 total;
	__u64 conns;
	__u32 note_count;
	__u32 note_total;
	__u64 notes;
	__u32 flags;
	__u32 closed;
};

/**
 * struct eusrv_sor_note_rec - a fallback note as LIST gives it
 * @pid: the process of the control file that kept it; this and note.fd
 *	only to the owner and CAP_NET_ADMIN (else 0 and -1)
 * @reserved: reserved, 0
 * @note: the note as EUSRV_SOR_NOTE gave it
 */
struct eusrv_sor_note_rec {
	__s32 pid;
	__u32 reserved;
	struct eusrv_sor_note note;
};

/**
 * struct eusrv_sor_stats - node-wide counters (EUSRV_SOR_STATS)
 * @node: this node
 * @conns: connections now
 * @conns_opened: connections established
 * @conns_refused: ConnRQs this node refused
 * @connect_failed: CONNECTs that failed
 * @bytes_sent: bytes the engine copied to peers
 * @bytes_rcvd: bytes that arrived
 * @transfers: CDMA transfers
 * @transfer_errors: CDMA transfers that failed
 * @credits_sent: window updates (CREDIT messages)
 * @credits_rcvd: window updates received
 * @nacks_sent: NACK messages sent
 * @nacks_rcvd: NACK messages received
 * @nack_resends: NACKs sent again
 * @bad_messages: invalid or unexpected from a peer
 * @bad_user: invalid ring values from user space
 * @peer_resets: connections reset by a dead/silent peer
 * @notes: fallbacks recorded
 * @nodes_up: bit n: node n is up as far as this driver knows (present on
 *	the board, answering keepalives).  This node's own bit is always set,
 *	so a zero field means a driver that does not fill it in.
 * @arms_sent: a reader asked the next data to wake it
 * @data_irqs: DATA notifications received
 * @resets_sent: RST for a connection we do not know
 * @resets_rcvd: RSTs received
 * @probes_sent: "do you still know me?" (PROBE)
 * @quarantined: bytes of rings a peer may still write
 * @locks_freed: ring locks whose holder had died
 * @ring_bytes: ring memory of connections and quarantine
 * @charged_pages: pages charged to users' locked_vm
 * @listeners: LISTEN registrations
 * @reserved: reserved, 0
 * @x: the crossings of every connection, live and ended
 * @mbox_doorbells: the mailbox's doorbells
 * @cdma_doorbells: the engine's doorbells
 * @mbox_irqs: the mailbox's interrupts
 * @mbox_irq_rx: inbound messages to take
 * @mbox_irq_txdone: outbound entries completed
 * @mbox_irq_room: a refusing FIFO has room
 * @mbox_irq_none: nothing to do (already handled)
 * @cdma_irqs: the engine's interrupts
 * @cdma_irq_ioc: threshold reached
 * @cdma_irq_dly: delay timer
 * @cdma_irq_err: an error
 * @msgs_sent: protocol messages posted by the CPU, by type (index:
 *	EUSRV_SOR_MSG_*)
 * @msgs_rcvd: protocol messages received, by type (the engine's, DATA and
 *	SENT, only here)
 *
 * The books, @ring_bytes to @listeners: what the driver holds now.  With
 * no connection open and the quarantine drained, all three are back to 0.
 *
 * The mbox_ and cdma_ fields are the blocks' own counts, node-wide
 * (keepalives and every other user included): doorbells by block,
 * interrupts by what the handler found (one interrupt may have several
 * causes).
 */
struct eusrv_sor_stats {
	__u32 node;
	__u32 conns;
	__u64 conns_opened;
	__u64 conns_refused;
	__u64 connect_failed;
	__u64 bytes_sent;
	__u64 bytes_rcvd;
	__u64 transfers;
	__u64 transfer_errors;
	__u64 credits_sent;
	__u64 credits_rcvd;
	__u64 nacks_sent;
	__u64 nacks_rcvd;
	__u64 nack_resends;
	__u64 bad_messages;
	__u64 bad_user;
	__u64 peer_resets;
	__u64 notes;
	__u64 nodes_up;
	__u64 arms_sent;
	__u64 data_irqs;
	__u64 resets_sent;
	__u64 resets_rcvd;
	__u64 probes_sent;
	__u64 quarantined;
	__u64 locks_freed;
	__u64 ring_bytes;
	__u64 charged_pages;
	__u32 listeners;
	__u32 reserved;
	struct eusrv_sor_crossings x;
	__u64 mbox_doorbells;
	__u64 cdma_doorbells;
	__u64 mbox_irqs;
	__u64 mbox_irq_rx;
	__u64 mbox_irq_txdone;
	__u64 mbox_irq_room;
	__u64 mbox_irq_none;
	__u64 cdma_irqs;
	__u64 cdma_irq_ioc;
	__u64 cdma_irq_dly;
	__u64 cdma_irq_err;
	__u64 msgs_sent[16];
	__u64 msgs_rcvd[16];
};

#define EUSRV_SOR_IOC_MAGIC		0xe5

#define EUSRV_SOR_LISTEN	_IOW(EUSRV_SOR_IOC_MAGIC, 0x01, struct eusrv_sor_listen)
#define EUSRV_SOR_UNLISTEN	_IOW(EUSRV_SOR_IOC_MAGIC, 0x02, struct eusrv_sor_listen)
#define EUSRV_SOR_CONNECT	_IOWR(EUSRV_SOR_IOC_MAGIC, 0x03, struct eusrv_sor_connect)
#define EUSRV_SOR_ACCEPT	_IOW(EUSRV_SOR_IOC_MAGIC, 0x04, struct eusrv_sor_accept)
#define EUSRV_SOR_NOTE		_IOW(EUSRV_SOR_IOC_MAGIC, 0x05, struct eusrv_sor_note)
#define EUSRV_SOR_LIST		_IOWR(EUSRV_SOR_IOC_MAGIC, 0x06, struct eusrv_sor_list)
#define EUSRV_SOR_STATS		_IOR(EUSRV_SOR_IOC_MAGIC, 0x07, struct eusrv_sor_stats)

/* ---- Connection file ioctls ------------------------------------------- */

/* WAIT events */
#define EUSRV_SOR_W_RECV		_BITUL(0)	/* data, EOF or error */
#define EUSRV_SOR_W_SEND		_BITUL(1)	/* space or error */

/* WAIT flags besides EUSRV_SOR_F_NONBLOCK */
#define EUSRV_SOR_F_FILE		_BITUL(1)	/* non-blocking if the file is */

/**
 * struct eusrv_sor_wait - argument of EUSRV_SOR_WAIT
 * @events: EUSRV_SOR_W_* to wait for
 * @flags: EUSRV_SOR_F_NONBLOCK, EUSRV_SOR_F_FILE or 0
 * @timeout_ns: -1 = forever
 * @revents: out: the events that hold
 * @room: W_SEND: wait for this many bytes of room (at most the ring's
 *	size), 0 for any: a small send is copied whole, never interleaved
 *	with another thread's.
 *
 * WAIT: sleep until an event in EVENTS holds, TIMEOUT_NS passes (-1 =
 * forever) or a signal comes (EINTR).  For W_RECV the kernel first asks
 * to be woken by the next data (an arm word the peer's engine reads, no
 * message), and gives credit if the writer could run short.  With
 * EUSRV_SOR_F_NONBLOCK it only reports; with EUSRV_SOR_F_FILE it only
 * reports if the file is O_NONBLOCK, and then fails with EAGAIN if no
 * event holds (so a library need not ask fcntl before it waits).
 * Returns the events that hold (may be 0 on timeout).
 */
struct eusrv_sor_wait {
	__u32 events;
	__u32 flags;
	__s64 timeout_ns;
	__u32 revents;
	__u32 room;
};

#define EUSRV_SOR_LOCK_TID		0x3fffffffU
/* Held by the driver's read() or write() for that thread (never freed). */
#define EUSRV_SOR_LOCK_KERNEL		0x40000000U
#define EUSRV_SOR_LOCK_WAITERS		0x80000000U

/* which lock: the send ring's or the receive ring's */
#define EUSRV_SOR_LOCK_SEND		0U
#define EUSRV_SOR_LOCK_RECV		1U

#define EUSRV_SOR_INFO		_IOR(EUSRV_SOR_IOC_MAGIC, 0x20, struct eusrv_sor_info)
/* PUSH: the send tail moved and need_push was set: transfer what the credit allows. */
#define EUSRV_SOR_PUSH		_IO(EUSRV_SOR_IOC_MAGIC, 0x21)
#define EUSRV_SOR_WAIT		_IOWR(EUSRV_SOR_IOC_MAGIC, 0x22, struct eusrv_sor_wait)
/* SHUTDOWN: SHUT_RD (0), SHUT_WR (1), SHUT_RDWR (2), as shutdown(2). */
#define EUSRV_SOR_SHUTDOWN	_IOW(EUSRV_SOR_IOC_MAGIC, 0x23, __u32)
/* GET_ERROR: the pending error (positive errno or 0), cleared like SO_ERROR. */
#define EUSRV_SOR_GET_ERROR	_IOR(EUSRV_SOR_IOC_MAGIC, 0x24, __s32)
/*
 * LOCK_WAIT sleeps while the lock word is held with WAITERS; a lock whose
 * holder no longer exists (killed while copying) is freed.  LOCK_WAKE
 * wakes one waiter.
 */
#define EUSRV_SOR_LOCK_WAIT	_IOW(EUSRV_SOR_IOC_MAGIC, 0x25, __u32)
#define EUSRV_SOR_LOCK_WAKE	_IOW(EUSRV_SOR_IOC_MAGIC, 0x26, __u32)
/* CREDIT: tell the peer how far the receive head moved (see credit_due). */
#define EUSRV_SOR_CREDIT	_IO(EUSRV_SOR_IOC_MAGIC, 0x27)
/*
 * LINGER: 1 when the program set SO_LINGER {1, 0}: the last close of the
 * connection drops what is queued and resets it (the peer sees
 * ECONNRESET, as TCP's RST); 0 (default): the last close flushes.
 */
#define EUSRV_SOR_LINGER	_IOW(EUSRV_SOR_IOC_MAGIC, 0x28, __u32)
/*
 * SOCKET: a new descriptor (O_CLOEXEC) of the TCP socket a client
 * connection was made from (CONNECT's FD): while the connection is
 * CONNECTING, or after it turned to TCP, user space serves the socket
 * calls on it.  EINVAL for a server connection.
 */
#define EUSRV_SOR_SOCKET	_IO(EUSRV_SOR_IOC_MAGIC, 0x29)
/*
 * TCP_STARTED: user space connect()ed the socket of a connection turned
 * to TCP (see CONNECT); the argument is 0, or the errno that connect()
 * failed with at once (1..511), which becomes the unconnected socket's
 * pending error.  EINVAL if the connection did not turn to TCP, or for
 * another value.
 */
#define EUSRV_SOR_TCP_STARTED	_IOW(EUSRV_SOR_IOC_MAGIC, 0x2a, __s32)

/*
 * The connection file also answers FIONREAD (bytes in the receive ring)
 * and TIOCOUTQ/SIOCOUTQ (bytes written and not yet received by the peer).
 */

#endif /* _UAPI_EUSRV_SOR_H */
