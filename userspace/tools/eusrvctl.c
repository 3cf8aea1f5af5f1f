// SPDX-License-Identifier: MIT
/*
 * eusrvctl: sockets over RDMA on this node, through /dev/eusrv_sor: the
 * peers file as the interception core understands it, the connections
 * (one line each, like ss) with the sockets that stayed on TCP and why,
 * and the driver's counters.  Output is key=value, for scripts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/eusrv/sor.h>

#include "../sor/peers.h"
#include "tool_util.h"

static const char *prog = "eusrvctl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND\n"
		"  peers   the peers file as understood (%s or $%s): each node's\n"
		"          addresses, which one is this node, which are up\n"
		"  conns   one line per connection over RDMA on this node, then the\n"
		"          sockets that stayed on TCP with the reason\n"
		"  conns --closed\n"
		"          the same, and after the live connections the last %d that\n"
		"          ended (\"closed\" lines), newest first\n"
		"  stats   every counter of the driver\n"
		"Exit status: 0 success, 1 failure (driver not loaded...), 2 usage.\n",
		prog, USOR_PEERS_PATH, USOR_PEERS_ENV, EUSRV_SOR_HISTORY);
}

static int open_dev(void)
{
	return tool_open_dev(prog, EUSRV_SOR_DEVICE, " (is eusrv_sor loaded? everything stays on TCP)");
}

static void report(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: %s\n", prog, msg);
}

/* Read and parse the peers file; false if it cannot be read. */
static bool load_peers(struct usor_peers *p, const char **path)
{
	static char buf[USOR_PEERS_MAX_FILE];
	const char *env = getenv(USOR_PEERS_ENV);
	size_t len;
	FILE *f;

	*path = env && *env ? env : USOR_PEERS_PATH;
	memset(p, 0, sizeof(*p));
	f = fopen(*path, "re");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, *path, strerror(errno));
		return false;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	usor_peers_parse(p, buf, len, *path, report, NULL);
	return true;
}

static int get_stats(int fd, struct eusrv_sor_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (ioctl(fd, EUSRV_SOR_STATS, s) < 0) {
		fprintf(stderr, "%s: STATS: %s\n", prog, strerror(errno));
		return -1;
	}
	return 0;
}

/* The device, open, and its counters read: the descriptor, or -1 (said). */
static int open_with_stats(struct eusrv_sor_stats *s)
{
	int fd = open_dev();

	if (fd >= 0 && get_stats(fd, s)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int cmd_peers(void)
{
	struct eusrv_sor_stats s;
	struct usor_peers p;
	const char *path;
	bool have_stats = false, up_known;
	uint32_t i, j;
	int fd, rc = 0;

	memset(&s, 0, sizeof(s));
	if (!load_peers(&p, &path))
		rc = 1;
	fd = open_dev();
	if (fd >= 0) {
		have_stats = get_stats(fd, &s) == 0;
		close(fd);
	}
	if (!have_stats)
		rc = 1;
	up_known = have_stats && s.node < 64 && (s.nodes_up >> s.node & 1);
	printf("file=%s nodes=%u bad_lines=%u self=", path, p.count, p.bad_lines);
	if (have_stats)
		printf("%u\n", s.node);
	else
		printf("unknown\n");
	for (i = 0; i < p.count; i++) {
		char a[16];

		printf("node=%u self=%s up=%s addrs=", p.peer[i].node,
		       !have_stats ? "?" : p.peer[i].node == s.node ? "yes" : "no",
		       !up_known ? "?" : (s.nodes_up >> p.peer[i].node & 1) ? "yes" : "no");
		for (j = 0; j < p.peer[i].naddr; j++)
			printf("%s%s", j ? "," : "", usor_ipv4_str(p.peer[i].addr[j], a));
		printf("\n");
	}
	if (have_stats && !usor_peers_node(&p, s.node))
		fprintf(stderr, "%s: this node (%u) is not in %s\n", prog, s.node, path);
	return rc;
}

static const char *state_name(uint32_t st)
{
	switch (st) {
	case EUSRV_SOR_ST_CONNECTING:
		return "CONNECTING";
	case EUSRV_SOR_ST_ACCEPTING:
		return "ACCEPTING";
	case EUSRV_SOR_ST_ESTABLISHED:
		return "ESTABLISHED";
	case EUSRV_SOR_ST_CLOSING:
		return "CLOSING";
	case EUSRV_SOR_ST_PEER_CLOSED:
		return "PEER_CLOSED";
	case EUSRV_SOR_ST_RESET:
		return "RESET";
	case EUSRV_SOR_ST_NACK_WAIT:
		return "NACK_WAIT";
	case EUSRV_SOR_ST_TCP:
		return "TCP";
	default:
		return "UNKNOWN";
	}
}

static const char *reason_name(uint32_t r)
{
	static const char *const names[] = {
		[EUSRV_SOR_R_NOT_PEER] = "not a board peer",
		[EUSRV_SOR_R_REFUSED] = "refused by the peer (no RDMA listener)",
		[EUSRV_SOR_R_TIMEOUT] = "the peer did not answer",
		[EUSRV_SOR_R_UNREACHABLE] = "node absent or down",
		[EUSRV_SOR_R_NO_MEMORY] = "out of memory",
		[EUSRV_SOR_R_MEMLOCK] = "over the locked-memory limit",
		[EUSRV_SOR_R_NOT_IPV4] = "not IPv4",
		[EUSRV_SOR_R_OPTIONS] = "socket options RDMA cannot honour",
		[EUSRV_SOR_R_LOCAL] = "local TCP client",
		[EUSRV_SOR_R_OTHER] = "other",
	};

	if (r >= 1 && r <= EUSRV_SOR_R_MAX)
		return names[r];
	return "unknown";
}

static const char *addr_of(const struct usor_peers *p, uint32_t node, char out[16])
{
	const struct usor_peer *e = usor_peers_node(p, node);

	if (!e)
		return "?";
	return usor_ipv4_str(e->addr[0], out);
}

/* Every crossing counter, as NAME=VALUE with PREFIX, each followed by SEP. */
static void print_crossings(const char *prefix, const struct eusrv_sor_crossings *x,
			    const char *sep)
{
#define X(f) printf("%s" #f "=%" PRIu64 "%s", prefix, (uint64_t)x->f, sep)
	X(doorbells);
	X(irqs);
	X(pushes);
	X(waits);
	X(credits);
	X(lock_calls);
	X(empty_wakes);
	X(poll_empty);
	X(msgs_sent);
	X(msgs_rcvd);
	X(arms);
#undef X
}

/* Protocol messages by type, by their names (docs/protocol.md section 2). */
static void print_msgs(const char *prefix, const __u64 *n)
{
	static const char *const name[16] = {
		[0x1] = "connrq", [0x2] = "connrpl", [0x3] = "credit",
		[0x4] = "data", [0x5] = "sent", [0x6] = "fin", [0x7] = "nack",
		[0x8] = "keepalive", [0x9] = "arm", [0xa] = "probe",
		[0xb] = "rst",
	};
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (name[i])
			printf("%s%s=%" PRIu64 "\n", prefix, name[i], (uint64_t)n[i]);
}

static int cmd_conns(bool closed)
{
	struct eusrv_sor_conn_stat *cs = NULL;
	struct eusrv_sor_note_rec *nr = NULL;
	struct eusrv_sor_stats s;
	struct eusrv_sor_list l;
	struct usor_peers p;
	const char *path;
	uint32_t room = 64, nroom = 64, i, n, nn;
	int fd = open_with_stats(&s);

	if (fd < 0)
		return 1;
	load_peers(&p, &path);
	for (;;) {
		free(cs);
		free(nr);
		cs = calloc(room, sizeof(*cs));
		nr = calloc(nroom, sizeof(*nr));
		if (!cs || !nr) {
			fprintf(stderr, "%s: out of memory\n", prog);
			close(fd);
			return 1;
		}
		memset(&l, 0, sizeof(l));
		l.count = room;
		l.conns = (uintptr_t)cs;
		l.note_count = nroom;
		l.notes = (uintptr_t)nr;
		l.flags = closed ? EUSRV_SOR_LIST_CLOSED : 0;
		if (ioctl(fd, EUSRV_SOR_LIST, &l) < 0) {
			fprintf(stderr, "%s: LIST: %s\n", prog, strerror(errno));
			free(cs);
			free(nr);
			close(fd);
			return 1;
		}
		if (l.total <= room && l.note_total <= nroom)
			break;
		/* More appeared: make room for them and a few more. */
		room = l.total + 64;
		nroom = l.note_total + 64;
	}
	close(fd);
	n = l.total < room ? l.total : room;
	nn = l.note_total < nroom ? l.note_total : nroom;
	for (i = 0; i < n; i++) {
		const struct eusrv_sor_conn_stat *c = &cs[i];
		char la[16], ra[16];

		printf("%s id=%u state=%s local=%s:%u peer=%s:%u peer_node=%u peer_id=%u"
		       " sndq=%u rcvq=%u snd_size=%u rcv_size=%u sent=%" PRIu64
		       " rcvd=%" PRIu64 " transfers=%" PRIu64 " uid=%u pid=%d serial=%" PRIu64,
		       c->closed ? "closed" : "rdma", c->id, state_name(c->state), addr_of(&p, s.node, la), c->lport,
		       addr_of(&p, c->peer_node, ra), c->rport, c->peer_node,
		       c->peer_id, c->snd_queued, c->rcv_queued, c->snd_size,
		       c->rcv_size, (uint64_t)c->bytes_sent,
		       (uint64_t)c->bytes_rcvd, (uint64_t)c->transfers, c->uid, c->pid,
		       (uint64_t)c->serial);
		if (c->so_error)
			printf(" error=%s", strerror(c->so_error));
		print_crossings(" x_", &c->x, "");
		printf("\n");
	}
	for (i = 0; i < nn; i++) {
		const struct eusrv_sor_note *o = &nr[i].note;
		char la[16], ra[16];

		printf("tcp pid=%d fd=%d local=%s:%u peer=%s:%u", nr[i].pid, o->fd,
		       usor_ipv4_str(o->laddr, la), o->lport,
		       usor_ipv4_str(o->raddr, ra), o->rport);
		if (o->err)
			printf(" err=%s", strerror(o->err));
		printf(" reason=\"%s\"\n", reason_name(o->reason));
	}
	if (closed)
		printf("total rdma=%u closed=%u tcp=%u\n", l.total - l.closed,
		       l.closed, l.note_total);
	else
		printf("total rdma=%u tcp=%u\n", l.total, l.note_total);
	free(cs);
	free(nr);
	return 0;
}

static int cmd_stats(void)
{
	struct eusrv_sor_stats s;
	int fd = open_with_stats(&s);

	if (fd < 0)
		return 1;
	close(fd);
#define P(f) printf(#f "=%" PRIu64 "\n", (uint64_t)s.f)
	P(node);
	P(conns);
	P(conns_opened);
	P(conns_refused);
	P(connect_failed);
	P(bytes_sent);
	P(bytes_rcvd);
	P(transfers);
	P(transfer_errors);
	P(credits_sent);
	P(credits_rcvd);
	P(nacks_sent);
	P(nacks_rcvd);
	P(nack_resends);
	P(bad_messages);
	P(bad_user);
	P(peer_resets);
	P(notes);
	P(arms_sent);
	P(data_irqs);
	P(resets_sent);
	P(resets_rcvd);
	P(probes_sent);
	P(locks_freed);
	P(quarantined);
	P(ring_bytes);
	P(charged_pages);
	P(listeners);
	P(mbox_doorbells);
	P(cdma_doorbells);
	P(mbox_irqs);
	P(mbox_irq_rx);
	P(mbox_irq_txdone);
	P(mbox_irq_room);
	P(mbox_irq_none);
	P(cdma_irqs);
	P(cdma_irq_ioc);
	P(cdma_irq_dly);
	P(cdma_irq_err);
#undef P
	print_crossings("x_", &s.x, "\n");
	print_msgs("msgs_sent_", s.msgs_sent);
	print_msgs("msgs_rcvd_", s.msgs_rcvd);
	printf("nodes_up=0x%" PRIx64 "\n", (uint64_t)s.nodes_up);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "peers"))
		return cmd_peers();
	if (argc == 2 && !strcmp(argv[1], "conns"))
		return cmd_conns(false);
	if (argc == 3 && !strcmp(argv[1], "conns") && !strcmp(argv[2], "--closed"))
		return cmd_conns(true);
	if (argc == 2 && !strcmp(argv[1], "stats"))
		return cmd_stats();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
