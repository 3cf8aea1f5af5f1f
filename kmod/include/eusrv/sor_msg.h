/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Sockets over RDMA: the mailbox messages of docs/protocol.md section 2.
 * Pure bit arithmetic on the 64-bit mailbox word of mbox_msg.h, shared by
 * the eusrv_sor driver and its KUnit suite.  Decoders never fail: they
 * return the fields, and the driver judges the values.
 */
#ifndef EUSRV_SOR_MSG_H
#define EUSRV_SOR_MSG_H

#include <linux/types.h>
#include <eusrv/mbox_msg.h>

/* Message types (docs/protocol.md section 2). */
#define EUSRV_SOR_MSG_CONNRQ		0x1U
#define EUSRV_SOR_MSG_CONNRPL		0x2U
#define EUSRV_SOR_MSG_CREDIT		0x3U
#define EUSRV_SOR_MSG_DATA		0x4U
#define EUSRV_SOR_MSG_SENT		0x5U
#define EUSRV_SOR_MSG_FIN		0x6U
#define EUSRV_SOR_MSG_NACK		0x7U
#define EUSRV_SOR_MSG_KEEPALIVE		0x8U
#define EUSRV_SOR_MSG_ARM		0x9U
#define EUSRV_SOR_MSG_PROBE		0xaU
#define EUSRV_SOR_MSG_RST		0xbU
#define EUSRV_SOR_MSG_FIRST		EUSRV_SOR_MSG_CONNRQ
#define EUSRV_SOR_MSG_LAST		EUSRV_SOR_MSG_RST

/* Connection id 4095: "none" (a NACK from a side that has no id). */
#define EUSRV_SOR_NO_ID			0xfffU

/* CONNRQ: 47:32 dport, 31:16 sport, 15:11 snd shift, 10:6 rcv shift. */
#define EUSRV_SOR_RQ_DPORT_SHIFT	32
#define EUSRV_SOR_RQ_SPORT_SHIFT	16
#define EUSRV_SOR_RQ_SND_SHIFT		11
#define EUSRV_SOR_RQ_RCV_SHIFT		6
#define EUSRV_SOR_PORT_MASK		0xffffU
#define EUSRV_SOR_SHIFT_MASK		0x1fU

/* CONNRPL: 47:44 step. */
#define EUSRV_SOR_RPL_STEP_SHIFT	44
#define EUSRV_SOR_RPL_STEP_MASK		0xfU
#define EUSRV_SOR_RPL_ACCEPT		1U
#define EUSRV_SOR_RPL_ADDR		2U
/* ACCEPT: 43:32 server's id, 31:27 c->s ring shift, 26:22 s->c ring shift. */
#define EUSRV_SOR_ACC_ID_SHIFT		32
#define EUSRV_SOR_ACC_CS_SHIFT		27
#define EUSRV_SOR_ACC_SC_SHIFT		22
/* ADDR: 43:32 sender's id, 27:0 page frame (node-local address >> 12). */
#define EUSRV_SOR_ADDR_PAGE_SHIFT	12
#define EUSRV_SOR_ADDR_FRAME_MASK	0xfffffffU

/*
 * CREDIT, DATA, SENT, FIN, ARM: 43:32 the sender's id, 31:0 a stream
 * position.  PROBE: 47:44 kind, 43:32 sender's id.  RST: 43:32 the id the
 * unknown message was addressed to (ours, not in use), 19:12 reason.
 */
#define EUSRV_SOR_POS_MASK		0xffffffffULL
#define EUSRV_SOR_FROM_SHIFT		32
#define EUSRV_SOR_KIND_SHIFT		44
#define EUSRV_SOR_KIND_MASK		0xfU
#define EUSRV_SOR_PROBE_ASK		1U
#define EUSRV_SOR_PROBE_ECHO		2U

/* NACK: 23:20 kind, 19:12 reason (errno), 11:0 sender's id. */
#define EUSRV_SOR_NACK_KIND_SHIFT	20
#define EUSRV_SOR_NACK_KIND_MASK	0xfU
#define EUSRV_SOR_NACK_REASON_SHIFT	12
#define EUSRV_SOR_NACK_REASON_MASK	0xffU
#define EUSRV_SOR_NACK_ID_MASK		0xfffU
#define EUSRV_SOR_NACK_REQUEST		1U
#define EUSRV_SOR_NACK_REPLY		2U

/* KEEPALIVE: 47:44 kind, 31:0 sequence. */
#define EUSRV_SOR_KA_KIND_SHIFT		44
#define EUSRV_SOR_KA_KIND_MASK		0xfU
#define EUSRV_SOR_KA_PROBE		1U
#define EUSRV_SOR_KA_ECHO		2U
/*
 * "I reset every connection with you": sent to a node heard again after
 * it was taken for down, so that both sides forget the same connections.
 */
#define EUSRV_SOR_KA_RESET		3U

static inline __u64 eusrv_sor_field(__u64 payload, unsigned int shift,
				    __u64 mask)
{
	return (payload >> shift) & mask;
}

/* ---- CONNRQ --------------------------------------------------------------- */

static inline __u64 eusrv_sor_msg_connrq(unsigned int client_id, __u16 dport,
					 __u16 sport, unsigned int snd_shift,
					 unsigned int rcv_shift)
{
	__u64 p = ((__u64)dport << EUSRV_SOR_RQ_DPORT_SHIFT) |
		  ((__u64)sport << EUSRV_SOR_RQ_SPORT_SHIFT) |
		  ((__u64)(snd_shift & EUSRV_SOR_SHIFT_MASK) << EUSRV_SOR_RQ_SND_SHIFT) |
		  ((__u64)(rcv_shift & EUSRV_SOR_SHIFT_MASK) << EUSRV_SOR_RQ_RCV_SHIFT);

	return eusrv_msg_make(EUSRV_SOR_MSG_CONNRQ, client_id, p);
}

struct eusrv_sor_connrq {
	__u16 dport;
	__u16 sport;
	unsigned int snd_shift;
	unsigned int rcv_shift;
};

static inline void eusrv_sor_connrq_decode(__u64 msg, struct eusrv_sor_connrq *rq)
{
	__u64 p = eusrv_msg_payload(msg);

	rq->dport = (__u16)eusrv_sor_field(p, EUSRV_SOR_RQ_DPORT_SHIFT,
					   EUSRV_SOR_PORT_MASK);
	rq->sport = (__u16)eusrv_sor_field(p, EUSRV_SOR_RQ_SPORT_SHIFT,
					   EUSRV_SOR_PORT_MASK);
	rq->snd_shift = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_RQ_SND_SHIFT,
						      EUSRV_SOR_SHIFT_MASK);
	rq->rcv_shift = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_RQ_RCV_SHIFT,
						      EUSRV_SOR_SHIFT_MASK);
}

/* ---- CONNRPL -------------------------------------------------------------- */

static inline unsigned int eusrv_sor_rpl_step(__u64 msg)
{
	return (unsigned int)eusrv_sor_field(eusrv_msg_payload(msg),
					     EUSRV_SOR_RPL_STEP_SHIFT,
					     EUSRV_SOR_RPL_STEP_MASK);
}

static inline __u64 eusrv_sor_msg_accept(unsigned int client_id,
					 unsigned int server_id,
					 unsigned int cs_shift,
					 unsigned int sc_shift)
{
	__u64 p = ((__u64)EUSRV_SOR_RPL_ACCEPT << EUSRV_SOR_RPL_STEP_SHIFT) |
		  ((__u64)(server_id & EUSRV_MSG_CONN_MASK) << EUSRV_SOR_ACC_ID_SHIFT) |
		  ((__u64)(cs_shift & EUSRV_SOR_SHIFT_MASK) << EUSRV_SOR_ACC_CS_SHIFT) |
		  ((__u64)(sc_shift & EUSRV_SOR_SHIFT_MASK) << EUSRV_SOR_ACC_SC_SHIFT);

	return eusrv_msg_make(EUSRV_SOR_MSG_CONNRPL, client_id, p);
}

struct eusrv_sor_accept_msg {
	unsigned int server_id;
	unsigned int cs_shift;		/* client -> server ring */
	unsigned int sc_shift;		/* server -> client ring */
};

static inline void eusrv_sor_accept_decode(__u64 msg,
					   struct eusrv_sor_accept_msg *a)
{
	__u64 p = eusrv_msg_payload(msg);

	a->server_id = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_ACC_ID_SHIFT,
						     EUSRV_MSG_CONN_MASK);
	a->cs_shift = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_ACC_CS_SHIFT,
						    EUSRV_SOR_SHIFT_MASK);
	a->sc_shift = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_ACC_SC_SHIFT,
						    EUSRV_SOR_SHIFT_MASK);
}

/* ADDR: the node-local address must be page aligned and below 2^40. */
static inline __u64 eusrv_sor_msg_addr(unsigned int peer_id,
				       unsigned int from_id, __u64 local_addr)
{
	__u64 p = ((__u64)EUSRV_SOR_RPL_ADDR << EUSRV_SOR_RPL_STEP_SHIFT) |
		  ((__u64)(from_id & EUSRV_MSG_CONN_MASK) << EUSRV_SOR_FROM_SHIFT) |
		  ((local_addr >> EUSRV_SOR_ADDR_PAGE_SHIFT) &
		   EUSRV_SOR_ADDR_FRAME_MASK);

	return eusrv_msg_make(EUSRV_SOR_MSG_CONNRPL, peer_id, p);
}

static inline __u64 eusrv_sor_addr_decode(__u64 msg)
{
	return (eusrv_msg_payload(msg) & EUSRV_SOR_ADDR_FRAME_MASK) <<
	       EUSRV_SOR_ADDR_PAGE_SHIFT;
}

/* Whether a node-local address fits the ADDR message (page, 40 bits). */
static inline bool eusrv_sor_addr_encodable(__u64 local_addr)
{
	return !(local_addr & ((1ULL << EUSRV_SOR_ADDR_PAGE_SHIFT) - 1)) &&
	       (local_addr >> EUSRV_SOR_ADDR_PAGE_SHIFT) <= EUSRV_SOR_ADDR_FRAME_MASK;
}

/* The sender's id that a connection message names (all but CONNRQ, NACK). */
static inline unsigned int eusrv_sor_from_decode(__u64 msg)
{
	return (unsigned int)eusrv_sor_field(eusrv_msg_payload(msg),
					     EUSRV_SOR_FROM_SHIFT,
					     EUSRV_MSG_CONN_MASK);
}

/* ---- CREDIT, DATA, SENT, FIN, ARM: a position and the sender's id ------- */

static inline __u64 eusrv_sor_msg_pos(unsigned int type, unsigned int to_id,
				      unsigned int from_id, __u32 pos)
{
	__u64 p = ((__u64)(from_id & EUSRV_MSG_CONN_MASK) << EUSRV_SOR_FROM_SHIFT) |
		  pos;

	return eusrv_msg_make(type, to_id, p);
}

static inline __u32 eusrv_sor_pos_decode(__u64 msg)
{
	return (__u32)(eusrv_msg_payload(msg) & EUSRV_SOR_POS_MASK);
}

/* Bits 47:44 of a position message are zero in a well-formed one. */
static inline bool eusrv_sor_pos_wellformed(__u64 msg)
{
	return !(eusrv_msg_payload(msg) >> EUSRV_SOR_KIND_SHIFT);
}

/* ---- PROBE, RST ----------------------------------------------------------- */

static inline __u64 eusrv_sor_msg_probe(unsigned int to_id,
					unsigned int from_id, unsigned int kind)
{
	__u64 p = ((__u64)(kind & EUSRV_SOR_KIND_MASK) << EUSRV_SOR_KIND_SHIFT) |
		  ((__u64)(from_id & EUSRV_MSG_CONN_MASK) << EUSRV_SOR_FROM_SHIFT);

	return eusrv_msg_make(EUSRV_SOR_MSG_PROBE, to_id, p);
}

static inline unsigned int eusrv_sor_kind_decode(__u64 msg)
{
	return (unsigned int)eusrv_sor_field(eusrv_msg_payload(msg),
					     EUSRV_SOR_KIND_SHIFT,
					     EUSRV_SOR_KIND_MASK);
}

/*
 * RST to the connection TO_ID that sent us a message for UNKNOWN_ID, an id
 * of ours that is not in use or not in use with it (TCP's RST).  It names
 * UNKNOWN_ID as its sender, so the receiver checks it like any message.
 */
static inline __u64 eusrv_sor_msg_rst(unsigned int to_id,
				      unsigned int unknown_id)
{
	return eusrv_sor_msg_pos(EUSRV_SOR_MSG_RST, to_id, unknown_id, 0);
}

/* ---- NACK ----------------------------------------------------------------- */

static inline __u64 eusrv_sor_msg_nack(unsigned int peer_id, unsigned int kind,
				       unsigned int reason,
				       unsigned int sender_id)
{
	__u64 p = ((__u64)(kind & EUSRV_SOR_NACK_KIND_MASK) << EUSRV_SOR_NACK_KIND_SHIFT) |
		  ((__u64)(reason & EUSRV_SOR_NACK_REASON_MASK) << EUSRV_SOR_NACK_REASON_SHIFT) |
		  (sender_id & EUSRV_SOR_NACK_ID_MASK);

	return eusrv_msg_make(EUSRV_SOR_MSG_NACK, peer_id, p);
}

struct eusrv_sor_nack {
	unsigned int kind;
	unsigned int reason;
	unsigned int sender_id;
};

static inline void eusrv_sor_nack_decode(__u64 msg, struct eusrv_sor_nack *n)
{
	__u64 p = eusrv_msg_payload(msg);

	n->kind = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_NACK_KIND_SHIFT,
						EUSRV_SOR_NACK_KIND_MASK);
	n->reason = (unsigned int)eusrv_sor_field(p, EUSRV_SOR_NACK_REASON_SHIFT,
						  EUSRV_SOR_NACK_REASON_MASK);
	n->sender_id = (unsigned int)(p & EUSRV_SOR_NACK_ID_MASK);
}

/* ---- KEEPALIVE ------------------------------------------------------------ */

static inline __u64 eusrv_sor_msg_keepalive(unsigned int kind, __u32 seq)
{
	__u64 p = ((__u64)(kind & EUSRV_SOR_KA_KIND_MASK) << EUSRV_SOR_KA_KIND_SHIFT) |
		  seq;

	return eusrv_msg_make(EUSRV_SOR_MSG_KEEPALIVE, 0, p);
}

static inline unsigned int eusrv_sor_ka_kind(__u64 msg)
{
	return (unsigned int)eusrv_sor_field(eusrv_msg_payload(msg),
					     EUSRV_SOR_KA_KIND_SHIFT,
					     EUSRV_SOR_KA_KIND_MASK);
}

static inline __u32 eusrv_sor_ka_seq(__u64 msg)
{
	return (__u32)(eusrv_msg_payload(msg) & EUSRV_SOR_POS_MASK);
}

#endif /* EUSRV_SOR_MSG_H */
