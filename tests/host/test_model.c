/*
 * End-to-end test of the eusrv-board-model binary (path in argv[1] or
 * $EUSRV_BOARD_MODEL): command-line validation, then a running model in a
 * temporary directory driven by fake ivshmem clients (two nodes exchanging
 * messages, back-pressure and timeout, a node going away and coming back, a
 * refused second connection, a node writing garbage), the management hub
 * between stream clients, and a clean exit on SIGTERM and SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox_msg.h>

#include "ivs_client.h"
#include "proc.h"
#include "mbox_drv.h"
#include "tap.h"

#define NODES		3U
#define RAM_SIZE	(16U * 1024U * 1024U)
#define T_READY_MS	10000	/* the model creating model.ready */
#define T_MSG_MS	3000	/* anything the model does on a kick */
#define T_EXIT_MS	5000
#define T_SILENCE_MS	300	/* "nothing arrives" */
#define PINGS		1000U
#define DEPTH		EUSRV_MBOX_FIFO_DEPTH
#define CTRL_ON		(EUSRV_MBOX_CTRL_EN | EUSRV_MBOX_CTRL_ENQ_IE | \
			 EUSRV_MBOX_CTRL_FULL_IE | EUSRV_MBOX_CTRL_TXDONE_IE | \
			 EUSRV_MBOX_CTRL_ERR_IE)

/* Blocks every board has (others, e.g. the CDMA, may be added). */
#define BLOCKS_NIC	(EUSRV_BLOCK_MBOX | EUSRV_BLOCK_DMA | EUSRV_BLOCK_MAC)

static const char *model_bin;
static char dir[40];
static pid_t model_pid = -1;

/* ---- Helpers ------------------------------------------------------------ */

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static bool exists(const char *name)
{
	char p[128];

	path_in(p, sizeof(p), name);
	return access(p, F_OK) == 0;
}

/*
 * Run the model with ARGV (argv[0] ignored), stdout and stderr into
 * OUT; returns the wait status, or -1 if it did not exit in time.
 */
static int run_model(char *const argv[], char *out, size_t outlen)
{
	int pfd[2], status;
	size_t have = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(model_bin, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (have + 1 < outlen &&
	       (n = read(pfd[0], out + have, outlen - have - 1)) > 0)
		have += (size_t)n;
	out[have] = '\0';
	close(pfd[0]);
	status = wait_exit(pid, T_EXIT_MS);
	return status;
}

static bool model_alive(void)
{
	int status;

	return model_pid > 0 && waitpid(model_pid, &status, WNOHANG) == 0;
}

/* Show the end of the model's stderr and log (after a failure). */
static void show_model_output(void)
{
	static const char *const names[] = { "model.stderr", "model.log" };
	char p[128], line[512];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		FILE *f;
		long size;

		path_in(p, sizeof(p), names[i]);
		f = fopen(p, "r");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fseek(f, size > 4000 ? size - 4000 : 0, SEEK_SET);
		tap_diag("--- %s (end)", names[i]);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			tap_diag("%s", line);
		}
		fclose(f);
	}
}

/* NAME (in the test's directory) has a line with TEXT. */
static bool file_has(const char *name, const char *text)
{
	char p[128], line[512];
	bool found = false;
	FILE *f;

	path_in(p, sizeof(p), name);
	f = fopen(p, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

static bool log_has(const char *text)
{
	return file_has("model.log", text);
}

static bool wait_log(const char *text, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	do {
		if (log_has(text))
			return true;
		usleep(2000);
	} while (now_ms() < end);
	return false;
}

/* ---- Node helpers ---------------------------------------------------- */

static struct ivs_client node[NODES];

static void *mbox(unsigned int n)
{
	return ivs_page(&node[n], n, EUSRV_PAGE_MBOX);
}

static uint32_t info(unsigned int n, uint32_t off)
{
	return drv_rd32(ivs_page(&node[n], n, EUSRV_PAGE_INFO), off);
}

static bool connect_node(unsigned int n)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/ivshmem-node%u.sock", dir, n);
	if (ivs_connect(&node[n], p, T_MSG_MS)) {
		tap_diag("node%u: %s", n, node[n].err);
		return false;
	}
	return true;
}

/* Wait until a 32-bit register of node N's page PAGE equals WANT. */
static bool wait_reg(unsigned int n, uint32_t page, uint32_t off, uint32_t want)
{
	uint64_t end = now_ms() + T_MSG_MS;
	void *pg = ivs_page(&node[n], n, page);

	do {
		if (drv_rd32(pg, off) == want)
			return true;
		usleep(500);
	} while (now_ms() < end);
	return false;
}

/* Wait until entry IDX of node N completes; its status, or PENDING. */
static uint32_t wait_done(unsigned int n, uint32_t idx, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	do {
		if (drv_done(mbox(n), idx))
			return drv_status(mbox(n), idx);
		usleep(200);
	} while (now_ms() < end);
	return EUSRV_MBOX_ST_PENDING;
}

static int64_t send_msg(unsigned int from, unsigned int to, uint64_t msg)
{
	int64_t idx = drv_post(mbox(from), EUSRV_MBOX_INBOX_GA(to), msg);

	if (idx >= 0)
		ivs_kick(&node[from], EUSRV_VEC_MBOX);
	return idx;
}

/* send_msg, waiting for room in the outbound queue; -1 on timeout. */
static int64_t send_wait(unsigned int from, unsigned int to, uint64_t msg)
{
	uint64_t end = now_ms() + T_MSG_MS;

	while (!drv_txq_free(mbox(from))) {
		if (now_ms() >= end)
			return -1;
		usleep(200);
	}
	return send_msg(from, to, msg);
}

/* Receive one message on node N, sleeping on its interrupt. */
static bool recv_one(unsigned int n, struct eusrv_mbox_fifo_entry *e)
{
	uint64_t end = now_ms() + T_MSG_MS;
	bool kick;

	for (;;) {
		if (drv_consume(mbox(n), e, 1, &kick)) {
			if (kick)
				ivs_kick(&node[n], EUSRV_VEC_MBOX);
			return true;
		}
		if (now_ms() >= end)
			return false;
		ivs_wait_irq(&node[n], EUSRV_VEC_MBOX, (int)(end - now_ms()));
	}
}

static unsigned int drain_all(unsigned int n)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	unsigned int got, total = 0;
	bool kick;

	while ((got = drv_consume(mbox(n), e, DEPTH, &kick))) {
		total += got;
		if (kick)
			ivs_kick(&node[n], EUSRV_VEC_MBOX);
	}
	return total;
}

static void clear_irqs(unsigned int n)
{
	while (ivs_wait_irq(&node[n], EUSRV_VEC_MBOX, 0))
		;
}

/* ---- Tests: command line --------------------------------------------- */

static void test_options(void)
{
	char longdir[200], tmp[128], out[4096];
	static char *const help[] = { "m", "--help", NULL };
	struct {
		const char *what;
		char *argv[12];
	} bad[] = {
		{ "no options", { "m", NULL } },
		{ "--nodes 0", { "m", "--dir", tmp, "--nodes", "0", "--ram-size", "16M", NULL } },
		{ "--nodes 17", { "m", "--dir", tmp, "--nodes", "17", "--ram-size", "16M", NULL } },
		{ "--nodes abc", { "m", "--dir", tmp, "--nodes", "abc", "--ram-size", "16M", NULL } },
		{ "--nodes 2x", { "m", "--dir", tmp, "--nodes", "2x", "--ram-size", "16M", NULL } },
		{ "--nodes -1", { "m", "--dir", tmp, "--nodes", "-1", "--ram-size", "16M", NULL } },
		{ "--nodes ''", { "m", "--dir", tmp, "--nodes", "", "--ram-size", "16M", NULL } },
		{ "--ram-size 0", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "0", NULL } },
		{ "--ram-size 1000", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "1000", NULL } },
		{ "--ram-size 16Q", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16Q", NULL } },
		{ "--ram-size -4096", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "-4096", NULL } },
		{ "--ram-size 1024G", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "1024G", NULL } },
		{ "--ram-size 99999999999999999999", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "99999999999999999999", NULL } },
		{ "no --dir", { "m", "--nodes", "2", "--ram-size", "16M", NULL } },
		{ "no --nodes", { "m", "--dir", tmp, "--ram-size", "16M", NULL } },
		{ "no --ram-size", { "m", "--dir", tmp, "--nodes", "2", NULL } },
		{ "--dir without a value", { "m", "--nodes", "2", "--ram-size", "16M", "--dir", NULL } },
		{ "--dir a regular file", { "m", "--dir", "/etc/passwd", "--nodes", "2", "--ram-size", "16M", NULL } },
		{ "--dir too long for sockets", { "m", "--dir", longdir, "--nodes", "2", "--ram-size", "16M", NULL } },
		{ "--dir under a missing directory", { "m", "--dir", "/nonexistent/eusrv/x", "--nodes", "2", "--ram-size", "16M", NULL } },
		{ "--log in a missing directory", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--log", "/nonexistent/x.log", NULL } },
		{ "unknown option", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--bogus", NULL } },
		{ "stray argument", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "extra", NULL } },
		{ "--foreground with a value", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--foreground=yes", NULL } },
		{ "--ram-base 4095", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "4095", NULL } },
		{ "--ram-base at the blocks' window", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "512G", NULL } },
		{ "--ram-base with RAM reaching the blocks", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "524280M", NULL } },
		{ "--ram-base 0,1G for 3 nodes", { "m", "--dir", tmp, "--nodes", "3", "--ram-size", "16M", "--ram-base", "0,1G", NULL } },
		{ "--ram-base 0,1G,0 for 2 nodes", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "0,1G,0", NULL } },
		{ "--ram-base 0,,1G", { "m", "--dir", tmp, "--nodes", "3", "--ram-size", "16M", "--ram-base", "0,,1G", NULL } },
		{ "--ram-base 0,1G,", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "0,1G,", NULL } },
		{ "--ram-base 0,1G+1", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "0,1073741825", NULL } },
		{ "--ram-base with node1's RAM reaching the blocks", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "0,524280M", NULL } },
		{ "--ram-base ''", { "m", "--dir", tmp, "--nodes", "2", "--ram-size", "16M", "--ram-base", "", NULL } },
	};
	unsigned int i;
	int st;

	snprintf(tmp, sizeof(tmp), "%s/opts", dir);
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';

	st = run_model(help, out, sizeof(out));
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	   strstr(out, "Usage:") && strstr(out, "--ram-size"),
	   "options: --help prints the usage and exits 0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = run_model(bad[i].argv, out, sizeof(out));
		if (!ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
			strstr(out, "eusrv-board-model: "),
			"options: %s is refused with exit status 2 and a message",
			bad[i].what))
			tap_diag("status %#x, output: %s", st, out);
	}
	ok(access(tmp, F_OK) < 0 || !exists("opts/model.ready"),
	   "options: a refused start leaves no ready file");
}

/*
 * A board of mixed ISAs: one RAM base per node (qemu/board start
 * --arch=x86_64,armhf,x86_64), each node's in the log.  Decoding against
 * them: test_board and test_cdma.
 */
static void test_ram_bases(void)
{
	char sub[80];
	pid_t pid;
	int st;

	snprintf(sub, sizeof(sub), "%s/bases", dir);
	pid = start_model(model_bin, sub, 3, RAM_SIZE, "0,1G,0");
	ok(wait_file(sub, "model.ready", T_READY_MS) &&
	   file_has("bases/model.log", "node0: RAM at physical address 0\n") &&
	   file_has("bases/model.log", "node1: RAM at physical address 0x40000000\n") &&
	   file_has("bases/model.log", "node2: RAM at physical address 0\n"),
	   "ram bases: --ram-base 0,1G,0 gives node1 its RAM at 1 GiB, the others at 0");
	kill(pid, SIGTERM);
	st = wait_exit(pid, T_EXIT_MS);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "ram bases: the model exits cleanly");
}

/* ---- Tests: ivshmem and the mailbox ---------------------------------- */

static void test_start(void)
{
	char p[128];
	struct stat st;
	unsigned int n;
	bool good = true;

	model_pid = start_model(model_bin, dir, NODES, RAM_SIZE, NULL);
	if (!ok(wait_file(dir, "model.ready", T_READY_MS), "start: model.ready appears")) {
		show_model_output();
		tap_bail("the board model did not start");
	}
	for (n = 0; n < NODES; n++) {
		snprintf(p, sizeof(p), "%s/node%u.ram", dir, n);
		good &= stat(p, &st) == 0 && st.st_size == RAM_SIZE;
		snprintf(p, sizeof(p), "%s/ivshmem-node%u.sock", dir, n);
		good &= stat(p, &st) == 0 && S_ISSOCK(st.st_mode);
	}
	ok(good && exists("mgmt.sock"),
	   "start: RAM files of the RAM size, one ivshmem socket per node, mgmt.sock");
	snprintf(p, sizeof(p), "%s/ivshmem-node%u.sock", dir, NODES);
	ok(access(p, F_OK) < 0, "start: no socket for a node the board lacks");
}

static void test_second_model(void)
{
	char out[2048], nodes_s[] = "1", ram_s[] = "16M";
	char *argv[] = { "m", "--dir", dir, "--nodes", nodes_s, "--ram-size",
			 ram_s, NULL };
	int st = run_model(argv, out, sizeof(out));

	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0 &&
	   strstr(out, "another board model"),
	   "start: a second model on the same directory is refused");
	ok(exists("model.ready") && exists("node0.ram") && model_alive(),
	   "start: and leaves the running one alone");
}

static void test_connect(void)
{
	unsigned int n;
	bool good;

	ok(connect_node(0) && connect_node(1),
	   "ivshmem: nodes 0 and 1 get version, id, shared memory and 2x%u eventfds",
	   EUSRV_NR_VECTORS);
	ok(node[0].version == 0 && node[0].id == 0 && node[1].id == 1,
	   "ivshmem: protocol version 0, peer id = node number");
	good = true;
	for (n = 0; n < 2; n++)
		good &= info(n, EUSRV_INFO_MAGIC) == EUSRV_INFO_MAGIC_VALUE &&
			info(n, EUSRV_INFO_VERSION) == EUSRV_INFO_VERSION_VALUE &&
			info(n, EUSRV_INFO_NODE_ID) == n &&
			info(n, EUSRV_INFO_NODE_COUNT) == NODES &&
			drv_rd64(ivs_page(&node[n], n, EUSRV_PAGE_INFO),
				 EUSRV_INFO_RAM_SIZE) == RAM_SIZE &&
			info(n, EUSRV_INFO_MODEL_PEER) == EUSRV_MODEL_PEER &&
			(info(n, EUSRV_INFO_BLOCKS) & BLOCKS_NIC) == BLOCKS_NIC;
	ok(good, "info page: magic, version, node id, count, RAM size, peer, blocks");
	/* The model stores each node's copy in turn: wait for both. */
	ok(wait_reg(0, EUSRV_PAGE_INFO, EUSRV_INFO_NODES_UP, 0x3) &&
	   wait_reg(1, EUSRV_PAGE_INFO, EUSRV_INFO_NODES_UP, 0x3),
	   "info page: NODES_UP = nodes 0 and 1");
	ok(drv_rd32(mbox(0), EUSRV_MBOX_ID) == EUSRV_MBOX_ID_VALUE &&
	   drv_rd32(mbox(0), EUSRV_MBOX_FIFO_SIZE) == EUSRV_MBOX_FIFO_DEPTH &&
	   drv_rd32(mbox(0), EUSRV_MBOX_TXQ_SIZE) == EUSRV_MBOX_TXQ_DEPTH,
	   "mailbox page: ID, FIFO_SIZE, TXQ_SIZE");
}

static void test_message(void)
{
	struct eusrv_mbox_fifo_entry e;
	uint64_t m = eusrv_msg_make(EUSRV_MSG_T_PING, 5, 0x123456);
	int64_t idx;

	drv_wr32(mbox(0), EUSRV_MBOX_CTRL, CTRL_ON);
	drv_wr32(mbox(1), EUSRV_MBOX_CTRL, CTRL_ON);
	idx = send_msg(0, 1, m);
	ok(idx >= 0 && ivs_wait_irq(&node[1], EUSRV_VEC_MBOX, T_MSG_MS),
	   "message: node1's interrupt eventfd fires");
	ok(recv_one(1, &e) && e.msg == m && e.src_node == 0,
	   "message: node1 reads the message with source node 0");
	ok(ivs_wait_irq(&node[0], EUSRV_VEC_MBOX, T_MSG_MS) &&
	   wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_OK,
	   "message: node0 gets its completion interrupt and status OK");
}

static void test_pingpong(void)
{
	struct eusrv_mbox_fifo_entry e;
	unsigned int i, bad = 0;
	uint64_t t0 = now_ms();

	clear_irqs(0);
	clear_irqs(1);
	for (i = 0; i < PINGS && bad == 0; i++) {
		uint64_t ping = eusrv_msg_make(EUSRV_MSG_T_PING, i % EUSRV_MSG_NR_CONNS, i);
		uint64_t pong = eusrv_msg_make(EUSRV_MSG_T_PONG, i % EUSRV_MSG_NR_CONNS, i);

		if (send_msg(0, 1, ping) < 0 || !recv_one(1, &e) ||
		    e.msg != ping || e.src_node != 0)
			bad++;
		else if (send_msg(1, 0, pong) < 0 || !recv_one(0, &e) ||
			 e.msg != pong || e.src_node != 1)
			bad++;
	}
	ok(bad == 0, "ping-pong: %u round trips node0 <-> node1, every message checked",
	   PINGS);
	tap_diag("ping-pong: %.1f us per round trip",
		 (double)(now_ms() - t0) * 1000.0 / PINGS);
	ok(drv_rd64(mbox(1), EUSRV_MBOX_RX_TOTAL) == PINGS + 1 &&
	   drv_rd64(mbox(0), EUSRV_MBOX_RX_TOTAL) == PINGS,
	   "ping-pong: RX_TOTAL counts");
}

static void test_errors(void)
{
	int64_t idx;

	idx = send_msg(0, 2, 1);	/* exists, not connected */
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_DECERR,
	   "errors: a store to a node that is not up -> DECERR");
	idx = send_msg(0, 200, 1);
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_DECERR,
	   "errors: a store to node 200 -> DECERR");
	idx = drv_post(mbox(0), EUSRV_MBOX_INBOX_GA(1) + 2, 1);
	ivs_kick(&node[0], EUSRV_VEC_MBOX);
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_DECERR,
	   "errors: a misaligned INBOX address -> DECERR");
	ok(drv_rd32(mbox(0), EUSRV_MBOX_TX_ERR_CNT) == 3, "errors: TX_ERR_CNT = 3");

	ivs_kick(&node[0], 5);
	ok(wait_reg(0, EUSRV_PAGE_MBOX, EUSRV_MBOX_BAD_CNT, 1) &&
	   drv_rd32(mbox(0), EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_KICK,
	   "errors: a kick on vector 5 (no block) -> BAD_KICK");
	ivs_kick(&node[0], EUSRV_NR_VECTORS - 1);
	ok(wait_reg(0, EUSRV_PAGE_MBOX, EUSRV_MBOX_BAD_CNT, 2),
	   "errors: and on vector %u", EUSRV_NR_VECTORS - 1);
}

static void test_full_timeout(void)
{
	unsigned int i;
	int64_t idx = -1;
	uint64_t t0, dt;
	uint32_t st;

	drain_all(1);
	for (i = 0; i < DEPTH; i++)
		idx = send_wait(0, 1, i);
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_OK,
	   "full: %u messages fill node1's FIFO", DEPTH);
	t0 = now_ms();
	idx = send_wait(0, 1, DEPTH);
	/*
	 * RX_STALLED is stored before the counters (it is the handshake with
	 * the consumer): wait for each, not for the first alone.
	 */
	ok(wait_reg(1, EUSRV_PAGE_MBOX, EUSRV_MBOX_RX_STALLED, 1) &&
	   wait_reg(1, EUSRV_PAGE_MBOX, EUSRV_MBOX_FULL_CNT, 1) &&
	   wait_reg(0, EUSRV_PAGE_MBOX, EUSRV_MBOX_TX_WAIT_CNT, 1) &&
	   drv_status(mbox(0), (uint32_t)idx) == EUSRV_MBOX_ST_PENDING,
	   "full: the next store waits: RX_STALLED, FULL_CNT, TX_WAIT_CNT");
	st = wait_done(0, (uint32_t)idx, 3 * T_MSG_MS);
	dt = now_ms() - t0;
	ok(st == EUSRV_MBOX_ST_FULL && dt + 10 >= EUSRV_MBOX_STORE_TIMEOUT_MS,
	   "full: it fails with ST_FULL after the timeout (%llu ms)",
	   (unsigned long long)dt);
	ok(drv_rd32(mbox(1), EUSRV_MBOX_RX_STALLED) == 0,
	   "full: RX_STALLED cleared afterwards");
	ok(drain_all(1) == DEPTH, "full: node1 then reads exactly the %u that fitted",
	   DEPTH);
}

static void test_backpressure(void)
{
	struct eusrv_mbox_fifo_entry e;
	const unsigned int n = 5 * DEPTH;
	unsigned int sent = 0, got = 0, bad = 0;
	uint32_t waits = drv_rd32(mbox(0), EUSRV_MBOX_TX_WAIT_CNT);
	uint32_t errs = drv_rd32(mbox(0), EUSRV_MBOX_TX_ERR_CNT);
	uint64_t end = now_ms() + 4 * T_MSG_MS;

	/* Fill node1's FIFO and node0's queue before node1 reads anything. */
	while (sent < 2 * DEPTH && send_wait(0, 1,
					      eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, sent)) >= 0)
		sent++;
	ok(sent == 2 * DEPTH && wait_reg(1, EUSRV_PAGE_MBOX, EUSRV_MBOX_RX_STALLED, 1),
	   "back-pressure: %u stores fill the FIFO and the queue, the next one waits",
	   2 * DEPTH);
	/* node1 reads slowly, one message per wake-up, kicking when told. */
	while (got < n && now_ms() < end) {
		while (sent < n && drv_txq_free(mbox(0)))
			if (send_msg(0, 1, eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, sent)) >= 0)
				sent++;
		if (!recv_one(1, &e))
			break;
		if (e.msg != eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, got) || e.src_node != 0)
			bad++;
		got++;
	}
	ok(got == n && bad == 0,
	   "back-pressure: %u messages through a slow reader, in order, none lost (%u)",
	   n, got);
	ok(drv_rd32(mbox(0), EUSRV_MBOX_TX_WAIT_CNT) > waits,
	   "back-pressure: TX_WAIT_CNT counts the waits (%u)",
	   drv_rd32(mbox(0), EUSRV_MBOX_TX_WAIT_CNT) - waits);
	ok(drv_rd32(mbox(0), EUSRV_MBOX_TX_ERR_CNT) == errs,
	   "back-pressure: no store failed");
}

static void test_refused(void)
{
	char p[128];
	struct eusrv_mbox_fifo_entry e;

	snprintf(p, sizeof(p), "%s/ivshmem-node0.sock", dir);
	ok(ivs_expect_refused(p, T_MSG_MS) == 0,
	   "refused: a second connection for node0 is closed without setup");
	ok(send_msg(0, 1, 77) >= 0 && recv_one(1, &e) && e.msg == 77,
	   "refused: node0's first connection still works");
	ok(log_has("refused a second connection"), "refused: and it is logged");
}

static void test_disconnect(void)
{
	unsigned int i;
	int64_t idx = -1;
	struct eusrv_mbox_fifo_entry e;

	drain_all(1);
	for (i = 0; i < DEPTH; i++)
		send_wait(0, 1, i);
	idx = send_wait(0, 1, DEPTH);
	ok(wait_reg(1, EUSRV_PAGE_MBOX, EUSRV_MBOX_RX_STALLED, 1),
	   "disconnect: a store waits on node1's full FIFO");
	ivs_close(&node[1]);
	ok(wait_done(0, (uint32_t)idx, EUSRV_MBOX_STORE_TIMEOUT_MS / 2) ==
	   EUSRV_MBOX_ST_DECERR,
	   "disconnect: node1 goes away: the waiting store fails with DECERR at once");
	ok(wait_reg(0, EUSRV_PAGE_INFO, EUSRV_INFO_NODES_UP, 0x1),
	   "disconnect: NODES_UP drops node1");
	idx = send_msg(0, 1, 1);
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_DECERR,
	   "disconnect: new stores to node1 -> DECERR");

	ok(connect_node(1), "reconnect: node1 connects again");
	ok(wait_reg(0, EUSRV_PAGE_INFO, EUSRV_INFO_NODES_UP, 0x3),
	   "reconnect: NODES_UP has node1 again");
	ok(drv_rd32(mbox(1), EUSRV_MBOX_RX_PROD) == 0 &&
	   drv_rd32(mbox(1), EUSRV_MBOX_CTRL) == 0 &&
	   drv_rd32(mbox(1), EUSRV_MBOX_FULL_CNT) == 0 &&
	   drv_rd64(mbox(1), EUSRV_MBOX_RX_TOTAL) == 0 &&
	   drv_rd32(mbox(1), EUSRV_MBOX_ID) == EUSRV_MBOX_ID_VALUE,
	   "reconnect: node1's mailbox page is reset");
	idx = send_msg(0, 1, 2);
	ok(idx >= 0 && wait_done(0, (uint32_t)idx, T_MSG_MS) == EUSRV_MBOX_ST_DISABLED,
	   "reconnect: DISABLED until node1 enables its mailbox");
	drv_wr32(mbox(1), EUSRV_MBOX_CTRL, CTRL_ON);
	ok(send_msg(0, 1, 3) >= 0 && recv_one(1, &e) && e.msg == 3 && e.src_node == 0 &&
	   send_msg(1, 0, 4) >= 0 && recv_one(0, &e) && e.msg == 4 && e.src_node == 1,
	   "reconnect: messages flow both ways again");
}

/* node1 writes garbage over both mailbox pages and kicks everything. */
static void test_garbage(void)
{
	struct eusrv_mbox_fifo_entry e;
	unsigned int r, i, v;
	uint32_t *w;

	srand(4242);
	for (r = 0; r < 300; r++) {
		for (i = 0; i < 64; i++) {
			w = (uint32_t *)ivs_page(&node[1], rand() % 2, EUSRV_PAGE_MBOX);
			__atomic_store_n(&w[rand() % (EUSRV_PAGE_SIZE / 4)],
					 rand() % 2 ? (uint32_t)rand() :
					 (uint32_t)rand() % 256, __ATOMIC_RELAXED);
		}
		for (v = 0; v < EUSRV_NR_VECTORS; v++) {
			ivs_kick(&node[1], v);
			ivs_kick(&node[0], v);
		}
		if (r % 50 == 0)
			usleep(1000);
	}
	ok(model_alive(), "garbage: the model survives random writes and kicks");
	ok(connect_node(2) && model_alive(),
	   "garbage: and keeps serving: node2 can connect");
	ivs_close(&node[2]);
	ivs_close(&node[0]);
	ivs_close(&node[1]);
	ok(connect_node(0) && connect_node(1) &&
	   wait_reg(0, EUSRV_PAGE_INFO, EUSRV_INFO_NODES_UP, 0x3),
	   "garbage: both nodes reconnect");
	drv_wr32(mbox(0), EUSRV_MBOX_CTRL, CTRL_ON);
	drv_wr32(mbox(1), EUSRV_MBOX_CTRL, CTRL_ON);
	ok(send_msg(0, 1, 5) >= 0 && recv_one(1, &e) && e.msg == 5,
	   "garbage: after reconnecting, messaging works");
}

/* ---- Tests: management hub ------------------------------------------ */

static int mgmt_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mgmt.sock", dir);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static size_t frame(uint8_t *out, const uint8_t *dst, const uint8_t *src,
		    uint32_t len, uint8_t fill)
{
	out[0] = (uint8_t)(len >> 24);
	out[1] = (uint8_t)(len >> 16);
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
	memcpy(out + 4, dst, 6);
	memcpy(out + 10, src, 6);
	out[16] = 0x08;
	out[17] = 0x00;
	memset(out + 18, fill, len - 14);
	return 4 + len;
}

static bool read_full(int fd, uint8_t *buf, size_t n, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (n) {
		int left = (int)(end - now_ms());
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, left) != 1)
			return false;
		r = read(fd, buf, n);
		if (r <= 0)
			return false;
		buf += r;
		n -= (size_t)r;
	}
	return true;
}

/* One frame from the hub: its length, or 0 if none within TIMEOUT_MS. */
static uint32_t recv_frame(int fd, uint8_t *buf, size_t max, int timeout_ms)
{
	uint8_t h[4];
	uint32_t len;

	if (!read_full(fd, h, 4, timeout_ms))
		return 0;
	len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
	if (len > max || !read_full(fd, buf, len, timeout_ms))
		return 0;
	return len;
}

static void test_mgmt(void)
{
	static const uint8_t ma[6] = { 0x52, 0x54, 0, 0x12, 0, 0xa };
	static const uint8_t mb[6] = { 0x52, 0x54, 0, 0x12, 0, 0xb };
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static uint8_t f[70000], r[70000];
	int a = mgmt_connect(), b = mgmt_connect(), c = -1, d = -1;
	unsigned int i, got;
	size_t n;
	bool good;

	if (!ok(a >= 0 && b >= 0, "mgmt: two stream clients connect")) {
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
		return;
	}
	n = frame(f, bc, ma, 60, 0x11);
	ok(write_all(a, f, n) && recv_frame(b, r, sizeof(r), T_MSG_MS) == 60 &&
	   !memcmp(r, f + 4, 60),
	   "mgmt: a broadcast from A reaches B unchanged");
	n = frame(f, ma, mb, 100, 0x22);
	ok(write_all(b, f, n) && recv_frame(a, r, sizeof(r), T_MSG_MS) == 100 &&
	   !memcmp(r, f + 4, 100),
	   "mgmt: B's unicast to A's learnt address reaches A");

	c = mgmt_connect();
	n = frame(f, mb, ma, 1514, 0x33);
	write_all(a, f, n);
	ok(recv_frame(b, r, sizeof(r), T_MSG_MS) == 1514 && !memcmp(r, f + 4, 1514),
	   "mgmt: A's unicast to B's learnt address reaches B");
	n = frame(f, bc, ma, 64, 0x44);
	write_all(a, f, n);
	ok(c >= 0 && recv_frame(c, r, sizeof(r), T_MSG_MS) == 64 && r[20] == 0x44,
	   "mgmt: a third client C did not see the unicast, only the next broadcast");
	recv_frame(b, r, sizeof(r), T_MSG_MS);

	/* A frame written in pieces. */
	n = frame(f, mb, ma, 200, 0x55);
	good = true;
	for (i = 0; i < n; i += 7) {
		good &= write_all(a, f + i, n - i < 7 ? n - i : 7);
		usleep(100);
	}
	ok(good && recv_frame(b, r, sizeof(r), T_MSG_MS) == 200 && r[199] == 0x55,
	   "mgmt: a frame written 7 bytes at a time arrives whole");

	/* Malformed lengths from C are dropped; the stream stays usable. */
	memset(f, 0, 4);
	write_all(c, f, 4);			/* length 0 */
	f[0] = 0;
	f[1] = 1;
	f[2] = 0;
	f[3] = 0x20;				/* 65568 > the maximum */
	write_all(c, f, 4);
	memset(f + 4, 0xee, 65568);
	write_all(c, f + 4, 65568);
	n = frame(f, bc, mb, 80, 0x66);
	memcpy(f + 10, (const uint8_t[]){ 0x52, 0x54, 0, 0x12, 0, 0xc }, 6);
	write_all(c, f, n);
	ok(recv_frame(a, r, sizeof(r), T_MSG_MS) == 80 && r[30] == 0x66,
	   "mgmt: lengths 0 and 65568 are dropped, C's next frame gets through");
	recv_frame(b, r, sizeof(r), T_MSG_MS);
	ok(log_has("frame length of 65568"), "mgmt: the malformed length is logged");

	/* D never reads: its frames are dropped, B still gets everything. */
	d = mgmt_connect();
	good = true;
	for (i = 0, got = 0; i < 100; i++) {
		n = frame(f, bc, ma, 60000, (uint8_t)i);
		good &= write_all(a, f, n);
		got += recv_frame(b, r, sizeof(r), T_MSG_MS) == 60000 && r[100] == (uint8_t)i;
		recv_frame(c, r, sizeof(r), T_MSG_MS);
	}
	ok(d >= 0 && good && got == 100,
	   "mgmt: 100 broadcasts of 60000 bytes reach B while D does not read");
	ok(log_has("not reading, output full"), "mgmt: the drops for D are logged");

	/* A closed client is forgotten; the others go on. */
	close(b);
	wait_log("closed (connection closed), ", T_MSG_MS);
	n = frame(f, mb, ma, 60, 0x77);
	write_all(a, f, n);
	ok(recv_frame(c, r, sizeof(r), T_MSG_MS) == 60 && r[20] == 0x77,
	   "mgmt: once B is gone, frames for B's address are flooded again");
	close(a);
	close(c);
	close(d);
	ok(model_alive(), "mgmt: the model is still running");
}

/* ---- Tests: shutdown ------------------------------------------------- */

static void test_sigterm(void)
{
	static const char *const gone[] = {
		"ivshmem-node0.sock", "ivshmem-node1.sock", "ivshmem-node2.sock",
		"mgmt.sock", "model.ready", "model.lock", "node0.ram",
	};
	unsigned int i;
	bool clean = true;
	uint8_t byte;
	int st;

	kill(model_pid, SIGTERM);
	st = wait_exit(model_pid, T_EXIT_MS);
	model_pid = -1;
	if (!ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"SIGTERM: the model exits with status 0 (status %#x)", st))
		show_model_output();
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		if (exists(gone[i])) {
			clean = false;
			tap_diag("left behind: %s", gone[i]);
		}
	}
	ok(clean, "SIGTERM: sockets, ready file, lock and RAM files are removed");
	ok(read(node[0].sock, &byte, 1) == 0, "SIGTERM: the nodes see their connection close");
	ok(log_has("exiting with status 0"), "SIGTERM: the exit is logged");
}

static void test_sigint(void)
{
	char d2[80];
	pid_t pid;
	int st;

	snprintf(d2, sizeof(d2), "%s/int", dir);
	pid = start_model(model_bin, d2, 1, RAM_SIZE, NULL);
	ok(wait_file(d2, "model.ready", T_READY_MS), "SIGINT: a one-node model starts");
	kill(pid, SIGINT);
	st = wait_exit(pid, T_EXIT_MS);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	   !wait_file(d2, "model.ready", 0) && !wait_file(d2, "mgmt.sock", 0),
	   "SIGINT: clean exit 0");
}

static void cleanup(void)
{
	static const char *const names[] = {
		"model.log", "model.stderr", "opts/model.log", "int/model.log",
		"int/model.stderr", "int/model.lock", "bases/model.log",
		"bases/model.stderr", "bases/model.lock",
	};
	char p[128];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_in(p, sizeof(p), names[i]);
		unlink(p);
	}
	path_in(p, sizeof(p), "opts");
	rmdir(p);
	path_in(p, sizeof(p), "int");
	rmdir(p);
	path_in(p, sizeof(p), "bases");
	rmdir(p);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	unsigned int n;

	model_bin = argc > 1 ? argv[1] : getenv("EUSRV_BOARD_MODEL");
	if (!model_bin || access(model_bin, X_OK))
		tap_bail("usage: test_model PATH-TO-eusrv-board-model (or $EUSRV_BOARD_MODEL)");
	snprintf(dir, sizeof(dir), "/tmp/eusrv-test-model-XXXXXX");
	if (!mkdtemp(dir))
		tap_bail("mkdtemp: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	for (n = 0; n < NODES; n++)
		ivs_client_init(&node[n]);

	test_options();
	test_ram_bases();
	test_start();
	test_second_model();
	test_connect();
	test_message();
	test_pingpong();
	test_errors();
	test_full_timeout();
	test_backpressure();
	test_refused();
	test_disconnect();
	test_garbage();
	test_mgmt();
	test_sigterm();
	test_sigint();

	for (n = 0; n < NODES; n++)
		ivs_close(&node[n]);
	if (model_pid > 0) {
		kill(model_pid, SIGKILL);
		waitpid(model_pid, NULL, 0);
	}
	cleanup();
	return tap_done();
}
