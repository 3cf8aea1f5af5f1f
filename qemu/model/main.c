/*
 * eusrv-board-model: the host process of the virtual EUROSERVER board.
 * Parses the command line, sets up the board, the ivshmem server and the
 * management hub, runs the single event loop until SIGTERM or SIGINT, then
 * removes its sockets and ready file and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <eusrv/board_hw.h>

#include "blocks.h"
#include "board.h"
#include "evloop.h"
#include "ivshmem_server.h"
#include "log.h"
#include "mgmt_hub.h"
#include "nic.h"
#include "priority.h"

#define PROG			"eusrv-board-model"
#define EXIT_USAGE		2
#define READY_FILE		"model.ready"
#define LOCK_FILE		"model.lock"
#define DIR_MODE		0755
/* Longest name the model creates in DIR ("/ivshmem-node15.sock"). */
#define LONGEST_SOCKET_NAME	"/ivshmem-node" "99" ".sock"
_Static_assert(EUSRV_MAX_NODES <= 100, "node numbers have at most 2 digits");

struct options {
	const char *dir;
	unsigned int nodes;
	uint64_t ram_size;
	const char *log;
	/* --ram-base: one for every node, or one per node. */
	uint64_t ram_base[EUSRV_MAX_NODES];
	unsigned int nr_bases;
	bool axidma_pg021;
	bool cdma_pg034;
	bool ordinary;
};

struct model {
	struct evloop loop;
	struct ev_handler sig;
	struct board board;
	struct vb_blocks blocks;
	struct ivs_server ivs;
	struct vb_hub hub;
	struct vb_nic nic;
	struct vb_prio prio;
	char ready_path[PATH_MAX];
	char lock_path[PATH_MAX];
	int lock_fd;
	bool stop;
};

static void model_usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " --dir DIR --nodes N --ram-size BYTES [--log FILE] [--foreground]\n"
		"\n"
		"The board model of the virtual EUROSERVER board: the ivshmem server and\n"
		"the FPGA blocks of N nodes, and the management network hub.\n"
		"\n"
		"  --dir DIR         state directory (created if missing): node<n>.ram,\n"
		"                    ivshmem-node<n>.sock, mgmt.sock, model.ready\n"
		"  --nodes N         number of nodes, 1..%u\n"
		"  --ram-size BYTES  RAM of each node, a multiple of %llu; suffixes K, M, G\n"
		"  --ram-base ADDR[,ADDR...]\n"
		"                    where the nodes' RAM starts in their physical\n"
		"                    address space (0; QEMU's ARM virt machine: 1G):\n"
		"                    one address for every node, or one per node\n"
		"                    (node0's first) for a board of mixed ISAs\n"
		"  --log FILE        append the log to FILE instead of stderr\n"
		"  --axidma-pg021    the AXI DMA engines take only PG021's interrupt\n"
		"                    acknowledgement (write 1s to DMASR), not the\n"
		"                    virtual board's SR_CLR registers\n"
		"  --cdma-pg034      the same for the CDMA engines (PG034: write 1s to\n"
		"                    CDMASR)\n"
		"  --ordinary        stay an ordinary process: never batch while the\n"
		"                    nodes' readers sleep nor real-time while they spin\n"
		"                    (priority.h)\n"
		"  --foreground      run in the foreground (always the case; accepted so\n"
		"                    that launchers may say so)\n"
		"  --help            this text\n"
		"\n"
		"Runs until SIGTERM or SIGINT, then removes its sockets and exits 0.\n"
		"\n"
		"       " PROG " --control DIR COMMAND\n"
		"sends COMMAND to the model running in DIR (control.sock; 'help').\n",
		EUSRV_MAX_NODES, BOARD_RAM_ALIGN);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help'.\n", stderr);
	return -EINVAL;
}

/* A decimal number with an optional binary suffix K, M or G. */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		end++;
		break;
	case 'm': case 'M':
		shift = 20;
		end++;
		break;
	case 'g': case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/*
 * --ram-base's value: addresses separated by commas, each page-aligned and
 * below the blocks' window.  Whether there are as many as nodes is checked
 * once --nodes is known.
 */
static int parse_ram_bases(const char *s, struct options *o)
{
	char item[32];
	const char *comma;
	size_t len;
	uint64_t *base;

	for (o->nr_bases = 0;; s = comma + 1) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (o->nr_bases == EUSRV_MAX_NODES || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, len);
		item[len] = '\0';
		base = &o->ram_base[o->nr_bases++];
		if (parse_size(item, base) || *base % BOARD_RAM_ALIGN ||
		    *base >= EUSRV_GA_BLOCKS)
			return -EINVAL;
		if (!comma)
			return 0;
	}
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_DIR = 256, OPT_NODES, OPT_RAM, OPT_LOG, OPT_FG, OPT_HELP,
	       OPT_PG021, OPT_PG034, OPT_RAM_BASE, OPT_ORDINARY };
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "ram-size", required_argument, NULL, OPT_RAM },
		{ "ram-base", required_argument, NULL, OPT_RAM_BASE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "foreground", no_argument, NULL, OPT_FG },
		{ "axidma-pg021", no_argument, NULL, OPT_PG021 },
		{ "cdma-pg034", no_argument, NULL, OPT_PG034 },
		{ "ordinary", no_argument, NULL, OPT_ORDINARY },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	bool have_nodes = false, have_ram = false;
	unsigned long n;
	unsigned int i;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIR:
			if (!*optarg)
				return usage_error("--dir: empty directory name");
			o->dir = optarg;
			break;
		case OPT_NODES:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno ||
			    n < 1 || n > EUSRV_MAX_NODES)
				return usage_error("--nodes: '%s' is not a node count between 1 and %u",
						   optarg, EUSRV_MAX_NODES);
			o->nodes = (unsigned int)n;
			have_nodes = true;
			break;
		case OPT_RAM:
			if (parse_size(optarg, &o->ram_size))
				return usage_error("--ram-size: '%s' is not a size in bytes (digits, optional K, M or G)",
						   optarg);
			if (!o->ram_size || o->ram_size % BOARD_RAM_ALIGN ||
			    o->ram_size > BOARD_RAM_MAX)
				return usage_error("--ram-size: %s must be a non-zero multiple of %llu up to %llu bytes",
						   optarg, BOARD_RAM_ALIGN,
						   (unsigned long long)BOARD_RAM_MAX);
			have_ram = true;
			break;
		case OPT_RAM_BASE:
			if (parse_ram_bases(optarg, o))
				return usage_error("--ram-base: '%s' is not up to %u multiples of %llu below %llu, separated by commas",
						   optarg, EUSRV_MAX_NODES,
						   BOARD_RAM_ALIGN,
						   (unsigned long long)EUSRV_GA_BLOCKS);
			break;
		case OPT_LOG:
			if (!*optarg)
				return usage_error("--log: empty file name");
			o->log = optarg;
			break;
		case OPT_FG:
			break;
		case OPT_PG021:
			o->axidma_pg021 = true;
			break;
		case OPT_PG034:
			o->cdma_pg034 = true;
			break;
		case OPT_ORDINARY:
			o->ordinary = true;
			break;
		case OPT_HELP:
			model_usage(stdout);
			exit(0);
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->dir)
		return usage_error("--dir is required");
	if (!have_nodes)
		return usage_error("--nodes is required");
	if (!have_ram)
		return usage_error("--ram-size is required");
	if (o->nr_bases > 1 && o->nr_bases != o->nodes)
		return usage_error("--ram-base: %u addresses for %u nodes (one for every node, or one per node)",
				   o->nr_bases, o->nodes);
	/* One address (or none: 0) is every node's. */
	for (i = o->nr_bases > 1 ? o->nr_bases : 1; i < o->nodes; i++)
		o->ram_base[i] = o->ram_base[0];
	for (i = 0; i < o->nodes; i++)
		if (o->ram_size > EUSRV_GA_BLOCKS - o->ram_base[i])
			return usage_error("--ram-base: node%u's RAM would reach the blocks' window at %llu",
					   i, (unsigned long long)EUSRV_GA_BLOCKS);
	if (strlen(o->dir) + strlen(LONGEST_SOCKET_NAME) >=
	    sizeof(((struct sockaddr_un *)0)->sun_path))
		return usage_error("--dir: '%s' is too long for UNIX socket paths (at most %zu characters)",
				   o->dir,
				   sizeof(((struct sockaddr_un *)0)->sun_path) -
				   strlen(LONGEST_SOCKET_NAME) - 1);
	return 0;
}

/* DIR must be a directory; create it (one level) if it does not exist. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT || mkdir(dir, DIR_MODE) < 0) {
			fprintf(stderr, PROG ": --dir %s: %s\n", dir,
				strerror(errno));
			return -errno;
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, PROG ": --dir %s: not a directory\n", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		fprintf(stderr, PROG ": --dir %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * One model per directory: a second one would truncate the RAM files of
 * running nodes.  The lock goes away with the process, even on a crash.
 */
static int lock_dir(struct model *m, const char *dir)
{
	int len = snprintf(m->lock_path, sizeof(m->lock_path), "%s/" LOCK_FILE,
			   dir);

	if (len < 0 || (size_t)len >= sizeof(m->lock_path)) {
		m->lock_path[0] = '\0';
		return -ENAMETOOLONG;
	}
	m->lock_fd = open(m->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (m->lock_fd < 0) {
		fprintf(stderr, PROG ": lock file %s: %s\n", m->lock_path,
			strerror(errno));
		m->lock_path[0] = '\0';
		return -errno;
	}
	if (flock(m->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int err = -errno;

		if (errno == EWOULDBLOCK)
			fprintf(stderr, PROG ": --dir %s: another board model is running there\n",
				dir);
		else
			fprintf(stderr, PROG ": lock file %s: %s\n",
				m->lock_path, strerror(errno));
		close(m->lock_fd);
		m->lock_fd = -1;
		m->lock_path[0] = '\0';	/* not ours to remove */
		return err;
	}
	return 0;
}

static void model_ivs_attach(void *opaque, unsigned int node,
			     const int irq_fds[EUSRV_NR_VECTORS])
{
	vb_blocks_attach(opaque, node, irq_fds);
}

static void model_ivs_detach(void *opaque, unsigned int node)
{
	vb_blocks_detach(opaque, node);
}

static void model_ivs_kick(void *opaque, unsigned int node, unsigned int vector)
{
	vb_blocks_kick(opaque, node, vector);
}

static const struct ivs_callbacks ivs_cb = {
	.attach = model_ivs_attach,
	.detach = model_ivs_detach,
	.kick = model_ivs_kick,
};

static void signal_event(struct ev_handler *h, uint32_t events)
{
	struct model *m = container_of(h, struct model, sig);
	struct signalfd_siginfo si;

	(void)events;
	if (read(h->fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	log_info("%s received: shutting down", strsignal((int)si.ssi_signo));
	m->stop = true;
}

/* SIGTERM and SIGINT, delivered through the signalfd only. */
static void exit_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
}

static int signals_setup(struct model *m)
{
	sigset_t set;
	int err;

	exit_signals(&set);
	m->sig.fn = signal_event;
	m->sig.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (m->sig.fd < 0)
		return -errno;
	err = ev_add(&m->loop, &m->sig, EPOLLIN);
	return err;
}

/* DIR/model.ready, holding our pid, appears atomically. */
static int ready_create(struct model *m, const char *dir)
{
	char tmp[PATH_MAX];
	int fd, len;

	snprintf(m->ready_path, sizeof(m->ready_path), "%s/" READY_FILE, dir);
	len = snprintf(tmp, sizeof(tmp), "%s/." READY_FILE ".tmp", dir);
	if (len < 0 || (size_t)len >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0 ||
	    close(fd) < 0 || rename(tmp, m->ready_path) < 0) {
		int err = -errno;

		log_err("ready file %s: %s", m->ready_path, strerror(errno));
		unlink(tmp);
		m->ready_path[0] = '\0';
		return err;
	}
	return 0;
}

static struct model model;

int main(int argc, char **argv)
{
	struct model *m = &model;
	struct options o;
	bool have_blocks = false, have_ivs = false, have_hub = false;
	bool have_board = false, have_nic = false;
	uint64_t taken, skipped, now;
	unsigned int i;
	int err, status = 1;
	sigset_t set;

	/*
	 * From the start, so that a SIGTERM while setting up still ends in a
	 * clean exit (it waits in the signalfd) and never leaves files behind.
	 */
	exit_signals(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* Writes to a vanished peer must be errors, not deaths. */
	signal(SIGPIPE, SIG_IGN);

	/* Client of a running model's control socket (docs/hardware.md). */
	if (argc == 4 && !strcmp(argv[1], "--control"))
		return vb_nic_control_client(argv[2], argv[3]);
	if (parse_options(argc, argv, &o))
		return EXIT_USAGE;
	if (check_dir(o.dir))
		return EXIT_USAGE;
	if (o.log) {
		err = log_open(o.log);
		if (err) {
			fprintf(stderr, PROG ": --log %s: %s\n", o.log,
				strerror(-err));
			return EXIT_USAGE;
		}
	}
	m->lock_fd = -1;
	if (lock_dir(m, o.dir)) {
		log_close();
		return 1;
	}
	m->sig.fd = -1;
	err = evloop_init(&m->loop);
	if (err) {
		log_err("epoll_create: %s", strerror(-err));
		goto out;
	}
	err = signals_setup(m);
	if (err) {
		log_err("signal handling setup: %s", strerror(-err));
		goto out;
	}
	err = board_init(&m->board, o.dir, o.nodes, o.ram_size);
	if (err)
		goto out;
	have_board = true;
	memcpy(m->board.ram_base, o.ram_base, sizeof(o.ram_base));
	for (i = 0; i < o.nodes; i++)
		log_info("node%u: RAM at physical address %#" PRIx64, i,
			 o.ram_base[i]);
	m->board.axidma_pg021 = o.axidma_pg021;
	m->board.cdma_pg034 = o.cdma_pg034;
	err = vb_blocks_init(&m->blocks, &m->board, &m->loop);
	if (err)
		goto out;
	have_blocks = true;
	err = vb_nic_init(&m->nic, &m->board, &m->blocks, &m->loop, o.dir);
	if (err)
		goto out;
	have_nic = true;
	err = ivs_init(&m->ivs, &m->loop, o.dir, o.nodes, m->board.shm_fd,
		       &ivs_cb, &m->blocks);
	if (err)
		goto out;
	have_ivs = true;
	err = vb_hub_init(&m->hub, &m->loop, o.dir);
	if (err)
		goto out;
	have_hub = true;
	err = ready_create(m, o.dir);
	if (err)
		goto out;
	log_info("board model ready: %u nodes, %" PRIu64 " bytes RAM each, state in %s",
		 o.nodes, o.ram_size, o.dir);
	vb_prio_init(&m->prio, !o.ordinary, evloop_now_us());

	while (!m->stop) {
		err = evloop_run_once(&m->loop,
				      vb_blocks_busy(&m->blocks) ||
				      vb_nic_busy(&m->nic) ? 0 : -1);
		if (err < 0) {
			log_err("epoll_wait: %s", strerror(-err));
			goto out;
		}
		vb_blocks_round(&m->blocks);
		vb_nic_round(&m->nic);
		vb_hub_reap(&m->hub);
		now = evloop_now_us();
		if (vb_prio_due(&m->prio, now)) {
			vb_blocks_far_conds(&m->blocks, &taken, &skipped);
			vb_prio_round(&m->prio, now, taken, skipped);
		}
	}
	status = 0;
out:
	vb_prio_fini(&m->prio);
	if (m->ready_path[0])
		unlink(m->ready_path);
	if (have_hub)
		vb_hub_fini(&m->hub);
	if (have_ivs)
		ivs_fini(&m->ivs);
	if (have_nic)
		vb_nic_fini(&m->nic);
	if (have_blocks)
		vb_blocks_fini(&m->blocks);
	if (have_board)
		board_fini(&m->board, true);
	if (m->sig.fd >= 0)
		close(m->sig.fd);
	evloop_fini(&m->loop);
	log_info("board model exiting with status %d", status);
	log_close();
	if (m->lock_path[0])
		unlink(m->lock_path);
	close(m->lock_fd);
	return status;
}
