/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor connection set-up (sor_setup.c): listeners and control files,
 * ConnRQ/ConnRPL, ACCEPT and CONNECT (blocking or in the background).
 */
#ifndef EUSRV_SOR_SETUP_H
#define EUSRV_SOR_SETUP_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "sor_conn.h"

/*
 * Registrations one control file may hold: each holds its socket, closed
 * or not, so without a bound one process could pin a socket per port.
 */
#define SOR_CTL_MAX_LISTENERS	1024U

/* A control file (/dev/eusrv_sor, one per process). */
struct sor_ctl {
	struct mutex mutex;		/* listeners, notes */
	struct list_head listeners;	/* struct sor_listener.ctl_link */
	unsigned int nr_listeners;	/* ... at most SOR_CTL_MAX_LISTENERS */
	struct list_head link;		/* on the list of control files */
	pid_t pid;
	kuid_t uid;			/* opener's effective uid */
	unsigned int note_next;
	unsigned int note_count;
	struct eusrv_sor_note notes[EUSRV_SOR_MAX_NOTES];
};

/* sor_setup.c */
void sor_rx_connrq(unsigned int src, unsigned int client_id, u64 msg);
void sor_rx_connrpl(struct sor_conn *c, unsigned int src, u64 msg);
int sor_setup_connect(struct sor_ctl *ctl, struct eusrv_sor_connect *rq,
		      struct eusrv_sor_connect __user *out);
int sor_setup_accept(struct sor_ctl *ctl, const struct eusrv_sor_accept *rq);
int sor_setup_listen(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
int sor_setup_unlisten(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq);
void sor_setup_ctl_gone(struct sor_ctl *ctl);
u32 sor_setup_listeners(void);
void sor_setup_timer(struct sor_conn *c);
void sor_setup_bg(struct sor_conn *c);
void sor_setup_bg_release(struct sor_conn *c);
void sor_setup_bg_free(struct sor_conn *c);
void sor_setup_drop_dummy(struct sor_conn *c);
void sor_setup_dummy(struct sor_conn *c);

/*
 * What set-up needs of the file layer above it: the connection file (and
 * its descriptor) CONNECT and ACCEPT hand over.  Registered by the
 * module's init (sor_setup_init).
 */
struct sor_setup_ops {
	int (*file_open)(struct sor_conn *c, u32 flags);
	void (*file_info)(struct sor_conn *c, struct eusrv_sor_info *in);
};

int sor_setup_init(const struct sor_setup_ops *ops);
void sor_setup_exit(void);

/* Fault injection (sor_debugfs.c): a slow server, ms each ConnRQ waits. */
extern u32 sor_serve_delay_ms;
/* ... a hostile server: the frame its ADDR names instead of its own (0: its own). */
extern u64 sor_forge_addr;

#endif /* EUSRV_SOR_SETUP_H */
