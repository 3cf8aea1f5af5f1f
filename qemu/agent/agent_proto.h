/* SPDX-License-Identifier: MIT */
/*
 * Wire protocol between `qemu/board exec` (eusrv-exec, on the host) and the
 * node agent (eusrv-agent, PID 1 in every node VM), over the node's
 * loopback-only control network.  All integers are big-endian.
 *
 *   host -> node: struct agent_req, then cmd_len bytes of shell command
 *   node -> host: frames (struct agent_frame + len bytes): AGENT_F_STARTED
 *                 once the command runs, output, and finally one
 *                 AGENT_F_EXIT frame whose payload is a be32 exit status
 */
#ifndef EUSRV_AGENT_PROTO_H
#define EUSRV_AGENT_PROTO_H

#include <stdint.h>

#define AGENT_PORT		7000
#define AGENT_MAGIC		0x45584543U	/* "EXEC" */
#define AGENT_VERSION		1U
#define AGENT_MAX_CMD		(64U * 1024)
#define AGENT_MAX_FRAME		(64U * 1024)
#define AGENT_MAX_TIMEOUT_S	(24U * 3600)

struct agent_req {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint32_t timeout_s;	/* 0: none */
	uint32_t cmd_len;
};

enum agent_frame_type {
	AGENT_F_STDOUT = 1,
	AGENT_F_STDERR = 2,
	AGENT_F_EXIT = 3,	/* be32: exit code, or 128 + signal */
	AGENT_F_ERROR = 4,	/* text: the agent could not run the command */
	AGENT_F_STARTED = 5,	/* empty: the command is running */
};

struct agent_frame {
	uint8_t type;
	uint8_t reserved[3];
	uint32_t len;
};

/* Exit status the agent reports when it killed a command at its timeout. */
#define AGENT_EXIT_TIMEOUT	124
/* Exit status when the agent could not tell how the command ended. */
#define AGENT_EXIT_LOST		255

#endif /* EUSRV_AGENT_PROTO_H */
