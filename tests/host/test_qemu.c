/*
 * Interoperability of the board model with QEMU's own ivshmem-doorbell
 * device, driven through QEMU's qtest protocol (no guest is booted): QEMU
 * accepts the model's setup, BAR2 is the model's shared memory, a doorbell
 * to peer EUSRV_MODEL_PEER reaches the model, and messages flow between
 * the QEMU node and a fake node.  Arguments: the model binary; skipped if
 * qemu-system-x86_64 is not installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox_msg.h>

#include "ivs_client.h"
#include "mbox_drv.h"
#include "proc.h"
#include "tap.h"

#define QEMU		"qemu-system-x86_64"
#define RAM_SIZE	(16U * 1024U * 1024U)
#define T_MS		5000
#define QNODE		1U	/* the QEMU node; node 0 is a fake client */
/* Where the test places the device's BARs in guest-physical space. */
#define BAR0_ADDR	0xfe000000U
#define BAR2_ADDR	0xc0000000U
#define PCI_SLOT	4U
#define PCI_CFG_ADDR	0xcf8
#define PCI_CFG_DATA	0xcfc
#define PCI_CFG_ENABLE	0x80000000U
#define PCI_ID		0x00
#define PCI_COMMAND	0x04
#define PCI_BAR0	0x10
#define PCI_BAR2	0x18
#define PCI_BAR2_HI	0x1c
#define PCI_CMD_MEM_MASTER 0x6U
#define CTRL_ON		0x1fU

static char dir[40];
static FILE *qin, *qout;
static pid_t qemu_pid = -1;

static const char *find_qemu(void)
{
	static char path[512];
	const char *p = getenv("PATH");

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(path, sizeof(path), "%.*s/" QEMU, (int)n, p);
		if (access(path, X_OK) == 0)
			return path;
		p += n + (p[n] == ':');
	}
	return NULL;
}

static pid_t start_qemu(const char *qemu)
{
	char mem[128], chr[128], errp[128];
	int in[2], out[2];
	pid_t pid;

	snprintf(mem, sizeof(mem),
		 "memory-backend-file,id=ram,size=%u,mem-path=%s/node%u.ram,share=on",
		 RAM_SIZE, dir, QNODE);
	snprintf(chr, sizeof(chr), "socket,id=ivs,path=%s/ivshmem-node%u.sock",
		 dir, QNODE);
	snprintf(errp, sizeof(errp), "%s/qemu.stderr", dir);
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(qemu, qemu, "-machine", "pc,memory-backend=ram",
		      "-object", mem, "-m", "16M", "-nodefaults",
		      "-no-user-config", "-display", "none", "-S",
		      "-chardev", chr, "-device",
		      "ivshmem-doorbell,chardev=ivs,vectors=8,addr=04.0",
		      "-qtest", "stdio", "-qtest-log", "/dev/null",
		      (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	qin = fdopen(in[1], "w");
	qout = fdopen(out[0], "r");
	return pid;
}

/* One qtest command; its "OK ..." answer's value, or -1 on anything else. */
static int64_t qt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int64_t qt(const char *fmt, ...)
{
	struct pollfd pfd = { .fd = fileno(qout), .events = POLLIN };
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vfprintf(qin, fmt, ap);
	va_end(ap);
	fputc('\n', qin);
	fflush(qin);
	if (poll(&pfd, 1, T_MS) != 1 || !fgets(line, sizeof(line), qout) ||
	    strncmp(line, "OK", 2))
		return -1;
	return line[2] == ' ' ? (int64_t)strtoull(line + 3, NULL, 0) : 0;
}

static void cfg_write(uint32_t reg, uint32_t v)
{
	qt("outl 0x%x 0x%x", PCI_CFG_ADDR, PCI_CFG_ENABLE | PCI_SLOT << 11 | reg);
	qt("outl 0x%x 0x%x", PCI_CFG_DATA, v);
}

static int64_t cfg_read(uint32_t reg)
{
	qt("outl 0x%x 0x%x", PCI_CFG_ADDR, PCI_CFG_ENABLE | PCI_SLOT << 11 | reg);
	return qt("inl 0x%x", PCI_CFG_DATA);
}

/* The QEMU node's view of BAR2: node N's page PAGE, offset OFF. */
static uint64_t bar2(unsigned int n, uint32_t page, uint32_t off)
{
	return BAR2_ADDR + EUSRV_NODE_WINDOW_OFF(n) + page + off;
}

static int64_t q_rd32(uint32_t off)
{
	return qt("readl 0x%" PRIx64, bar2(QNODE, EUSRV_PAGE_MBOX, off));
}

static void q_wr32(uint32_t off, uint32_t v)
{
	qt("writel 0x%" PRIx64 " 0x%x", bar2(QNODE, EUSRV_PAGE_MBOX, off), v);
}

static void q_kick(unsigned int vector)
{
	qt("writel 0x%x 0x%x", BAR0_ADDR + EUSRV_IVSHMEM_REG_DOORBELL,
	   EUSRV_KICK(vector));
}

/* Poll a register of the QEMU node's mailbox page until it is WANT. */
static bool q_wait(uint32_t off, uint32_t want)
{
	uint64_t end = now_ms() + T_MS;

	do {
		if (q_rd32(off) == want)
			return true;
		usleep(2000);
	} while (now_ms() < end);
	return false;
}

static bool wait_info_up(struct ivs_client *c, uint32_t want)
{
	uint64_t end = now_ms() + T_MS;

	do {
		if (drv_rd32(ivs_page(c, 0, EUSRV_PAGE_INFO),
			     EUSRV_INFO_NODES_UP) == want)
			return true;
		usleep(2000);
	} while (now_ms() < end);
	return false;
}

int main(int argc, char **argv)
{
	const char *qemu = find_qemu();
	struct ivs_client c;
	struct eusrv_mbox_fifo_entry e;
	uint64_t end, msg, ga = EUSRV_MBOX_INBOX_GA(0);
	char p[128];
	pid_t model;
	int64_t v, idx;
	bool kicked = false, kick;
	int st;

	if (argc < 2)
		tap_bail("usage: test_qemu PATH-TO-eusrv-board-model");
	if (!qemu) {
		printf("1..0 # SKIP " QEMU " is not installed\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/eusrv-test-qemu-XXXXXX");
	if (!mkdtemp(dir))
		tap_bail("mkdtemp: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	ivs_client_init(&c);

	model = start_model(argv[1], dir, 2, RAM_SIZE, NULL);
	if (!wait_file(dir, "model.ready", T_MS))
		tap_bail("the board model did not start");
	snprintf(p, sizeof(p), "%s/ivshmem-node0.sock", dir);
	if (ivs_connect(&c, p, T_MS))
		tap_bail("fake node0: %s", c.err);
	drv_wr32(ivs_page(&c, 0, EUSRV_PAGE_MBOX), EUSRV_MBOX_CTRL, CTRL_ON);

	qemu_pid = start_qemu(qemu);
	v = cfg_read(PCI_ID);
	if (!ok(v == (EUSRV_IVSHMEM_DEVICE << 16 | EUSRV_IVSHMEM_VENDOR),
		"qemu: ivshmem-doorbell realized with the model's setup (id %#llx)",
		(long long)v))
		tap_bail("QEMU did not come up; see %s/qemu.stderr", dir);
	cfg_write(PCI_BAR0, BAR0_ADDR);
	cfg_write(PCI_BAR2, BAR2_ADDR);
	cfg_write(PCI_BAR2_HI, 0);
	cfg_write(PCI_COMMAND, PCI_CMD_MEM_MASTER);
	ok(qt("readl 0x%x", BAR0_ADDR + EUSRV_IVSHMEM_REG_IVPOSITION) == QNODE,
	   "qemu: IVPOSITION is the node number %u", QNODE);
	ok(qt("readl 0x%" PRIx64, bar2(QNODE, EUSRV_PAGE_INFO, EUSRV_INFO_MAGIC)) ==
	   EUSRV_INFO_MAGIC_VALUE &&
	   qt("readl 0x%" PRIx64, bar2(QNODE, EUSRV_PAGE_INFO, EUSRV_INFO_NODE_ID)) ==
	   QNODE && q_rd32(EUSRV_MBOX_ID) == EUSRV_MBOX_ID_VALUE,
	   "qemu: BAR2 is the model's shared memory (info and mailbox pages)");
	ok(wait_info_up(&c, 0x3), "qemu: the fake node sees the QEMU node up");

	/* QEMU takes the eventfds after realize, asynchronously: retry. */
	end = now_ms() + T_MS;
	while (!kicked && now_ms() < end) {
		q_kick(5);
		usleep(20000);
		kicked = q_rd32(EUSRV_MBOX_BAD_CNT) > 0;
	}
	ok(kicked && q_rd32(EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_KICK,
	   "qemu: a doorbell to peer %u reaches the model (vector 5: BAD_KICK)",
	   EUSRV_MODEL_PEER);

	/* Fake node0 -> QEMU node1. */
	q_wr32(EUSRV_MBOX_CTRL, CTRL_ON);
	msg = eusrv_msg_make(EUSRV_MSG_T_PING, 9, 0xabcdef);
	idx = drv_post(ivs_page(&c, 0, EUSRV_PAGE_MBOX), EUSRV_MBOX_INBOX_GA(QNODE), msg);
	ivs_kick(&c, EUSRV_VEC_MBOX);
	ok(idx == 0 && q_wait(EUSRV_MBOX_RX_PROD, 1) &&
	   q_rd32(EUSRV_MBOX_FIFO) == (uint32_t)msg &&
	   q_rd32(EUSRV_MBOX_FIFO + 4) == (uint32_t)(msg >> 32) &&
	   (q_rd32(EUSRV_MBOX_FIFO + 8) & 0xffff) == 0,
	   "qemu: a message from node0 lands in the QEMU node's FIFO");
	q_wr32(EUSRV_MBOX_RX_CONS, 1);

	/* QEMU node1 -> fake node0, posted through BAR2. */
	msg = eusrv_msg_make(EUSRV_MSG_T_PONG, 9, 0x123);
	q_wr32(EUSRV_MBOX_TXQ + 0, (uint32_t)ga);
	q_wr32(EUSRV_MBOX_TXQ + 4, (uint32_t)(ga >> 32));
	q_wr32(EUSRV_MBOX_TXQ + 8, (uint32_t)msg);
	q_wr32(EUSRV_MBOX_TXQ + 12, (uint32_t)(msg >> 32));
	q_wr32(EUSRV_MBOX_TXQ + 16, EUSRV_MBOX_ST_PENDING);
	q_wr32(EUSRV_MBOX_TX_PROD, 1);
	q_kick(EUSRV_VEC_MBOX);
	if (!ok(q_wait(EUSRV_MBOX_TX_CONS, 1) &&
		q_rd32(EUSRV_MBOX_TXQ + 16) == EUSRV_MBOX_ST_OK,
		"qemu: a store posted by the QEMU node completes OK"))
		tap_diag("TX_PROD %lld TX_CONS %lld status %lld",
			 (long long)q_rd32(EUSRV_MBOX_TX_PROD),
			 (long long)q_rd32(EUSRV_MBOX_TX_CONS),
			 (long long)q_rd32(EUSRV_MBOX_TXQ + 16));
	ok(ivs_wait_irq(&c, EUSRV_VEC_MBOX, T_MS) &&
	   drv_consume(ivs_page(&c, 0, EUSRV_PAGE_MBOX), &e, 1, &kick) == 1 &&
	   e.msg == msg && e.src_node == QNODE,
	   "qemu: node0 is interrupted and reads the message from node %u", QNODE);

	/* The VM dies. */
	kill(qemu_pid, SIGKILL);
	waitpid(qemu_pid, NULL, 0);
	qemu_pid = -1;
	ok(wait_info_up(&c, 0x1), "qemu: a killed VM is marked down");
	idx = drv_post(ivs_page(&c, 0, EUSRV_PAGE_MBOX), EUSRV_MBOX_INBOX_GA(QNODE), 1);
	ivs_kick(&c, EUSRV_VEC_MBOX);
	end = now_ms() + T_MS;
	while (!drv_done(ivs_page(&c, 0, EUSRV_PAGE_MBOX), (uint32_t)idx) &&
	       now_ms() < end)
		usleep(1000);
	ok(drv_status(ivs_page(&c, 0, EUSRV_PAGE_MBOX), (uint32_t)idx) ==
	   EUSRV_MBOX_ST_DECERR, "qemu: stores to it fail with DECERR");

	ivs_close(&c);
	kill(model, SIGTERM);
	st = wait_exit(model, T_MS);
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "qemu: the model exits cleanly afterwards");

	fclose(qin);
	fclose(qout);
	snprintf(p, sizeof(p), "%s/model.log", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/model.stderr", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/qemu.stderr", dir);
	unlink(p);
	rmdir(dir);
	return tap_done();
}
