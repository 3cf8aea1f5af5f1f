/*
 * The shared NIC in the running model: the MAC (mac.c) wired to the event
 * loop, a timerfd for its timers, the line side on DIR/line.sock (one QEMU
 * stream-netdev peer: the outside host) and the model's control socket
 * DIR/control.sock (test hooks: DMA error injection, link down/up).
 */
#ifndef EUSRV_MODEL_NIC_H
#define EUSRV_MODEL_NIC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "evloop.h"
#include "framed.h"
#include "log.h"
#include "mac.h"
#include "mgmt_switch.h"

/* Bytes buffered towards the line peer before frames are dropped. */
#define NIC_LINE_TXBUF		(256U * 1024U)
/*
 * Line back-pressure: with this much waiting for the peer (here and in the
 * socket, whose send buffer is kept as small), the MAC's scheduler stops
 * taking frames from the ports.  The queue then builds in the nodes' rings,
 * where the round robin shares the line, not in one FIFO towards the peer.
 */
#define NIC_LINE_BACKLOG	(32U * 1024U)
/*
 * A peer that takes nothing for this long holds up nobody: the scheduler
 * runs again and frames for the line are dropped, frames between nodes go.
 */
#define NIC_LINE_STALL_US	100000U
/*
 * A paced line (control command line-rate) takes a frame while it is busy
 * for less than this, so that frames go out back to back.
 */
#define NIC_LINE_PACE_SLACK_US	500U
/* Control connections open at once, and the longest command line. */
#define NIC_CTL_MAX		4U
#define NIC_CTL_LINE		256U

struct vb_blocks;

struct vb_nic_ctl_conn {
	struct ev_handler h;
	struct vb_nic *nic;
	char buf[NIC_CTL_LINE];
	size_t len;
};

struct vb_nic {
	struct vb_mac mac;
	struct evloop *loop;
	struct vb_blocks *blocks;
	struct ev_handler timer;
	uint64_t timer_armed_us;
	/* Line side. */
	struct ev_handler line_listen;
	struct ev_handler line;		/* fd -1: no peer */
	char line_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct vb_switch_rx *line_rx;
	struct vb_framed_tx line_tx;	/* NIC_LINE_TXBUF bytes */
	uint64_t line_progress_us;	/* the peer last took bytes */
	uint64_t line_rate_bps;		/* line pacing (control line-rate), 0: none */
	uint64_t line_free_us;		/* a paced line is busy until then */
	/* Control socket. */
	struct ev_handler ctl_listen;
	char ctl_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct vb_nic_ctl_conn ctl[NIC_CTL_MAX];
	struct log_ratelimit rl;
	uint8_t rbuf[65536];
};

int vb_nic_init(struct vb_nic *nic, struct board *board,
		struct vb_blocks *blocks, struct evloop *loop, const char *dir);
void vb_nic_fini(struct vb_nic *nic);
/* End of a loop round: transmit scheduler, interrupts, timer. */
void vb_nic_round(struct vb_nic *nic);
bool vb_nic_busy(const struct vb_nic *nic);

/* Client: send CMD to DIR/control.sock, print the answer; exit status. */
int vb_nic_control_client(const char *dir, const char *cmd);

#endif /* EUSRV_MODEL_NIC_H */
