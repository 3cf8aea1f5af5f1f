/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Mailbox message layout (D4.2 section 3.3): a 64-bit word with the message
 * type in bits 63:60, a connection id in bits 59:48 and a 48-bit payload.
 * Pure arithmetic, shared by the drivers, the board model and the tests.
 */
#ifndef EUSRV_MBOX_MSG_H
#define EUSRV_MBOX_MSG_H

#include <linux/types.h>

#define EUSRV_MSG_TYPE_SHIFT		60
#define EUSRV_MSG_TYPE_MASK		0xfULL
#define EUSRV_MSG_CONN_SHIFT		48
#define EUSRV_MSG_CONN_MASK		0xfffULL
#define EUSRV_MSG_PAYLOAD_MASK		((1ULL << EUSRV_MSG_CONN_SHIFT) - 1)

#define EUSRV_MSG_NR_TYPES		16U
#define EUSRV_MSG_NR_CONNS		4096U

/* Message types.  0 is never sent, so a zeroed FIFO slot is recognisable. */
#define EUSRV_MSG_T_INVALID		0x0U
#define EUSRV_MSG_T_CDMA_DIAG		0xcU	/* board diagnostics: CDMA copies */
#define EUSRV_MSG_T_SEQ		0xdU	/* board diagnostics: flood */
#define EUSRV_MSG_T_PING		0xeU	/* board diagnostics: ping */
#define EUSRV_MSG_T_PONG		0xfU	/* board diagnostics: echo */

static inline __u64 eusrv_msg_make(unsigned int type, unsigned int conn,
				   __u64 payload)
{
	return ((__u64)(type & EUSRV_MSG_TYPE_MASK) << EUSRV_MSG_TYPE_SHIFT) |
	       ((__u64)(conn & EUSRV_MSG_CONN_MASK) << EUSRV_MSG_CONN_SHIFT) |
	       (payload & EUSRV_MSG_PAYLOAD_MASK);
}

static inline unsigned int eusrv_msg_type(__u64 msg)
{
	return (unsigned int)((msg >> EUSRV_MSG_TYPE_SHIFT) & EUSRV_MSG_TYPE_MASK);
}

static inline unsigned int eusrv_msg_conn(__u64 msg)
{
	return (unsigned int)((msg >> EUSRV_MSG_CONN_SHIFT) & EUSRV_MSG_CONN_MASK);
}

static inline __u64 eusrv_msg_payload(__u64 msg)
{
	return msg & EUSRV_MSG_PAYLOAD_MASK;
}

#endif /* EUSRV_MBOX_MSG_H */
