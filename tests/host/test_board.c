/*
 * Unit tests of qemu/model/board.c: the BAR2 shared memory and information
 * pages, the node RAM files and their mapping, and global address decoding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <eusrv/board_hw.h>

#include "board.h"
#include "log.h"
#include "mbox_drv.h"
#include "tap.h"

#define NODES		3U
#define RAM_SIZE	(1024U * 1024U)

/* Blocks every board has (others, e.g. the CDMA, may be added). */
#define BLOCKS_NIC	(EUSRV_BLOCK_MBOX | EUSRV_BLOCK_DMA | EUSRV_BLOCK_MAC)

static struct board b;

static uint32_t info(unsigned int node, uint32_t off)
{
	return drv_rd32(board_page(&b, node, EUSRV_PAGE_INFO), off);
}

static void test_info(void)
{
	unsigned int n;
	bool good = true;

	for (n = 0; n < NODES; n++)
		good &= info(n, EUSRV_INFO_MAGIC) == EUSRV_INFO_MAGIC_VALUE &&
			info(n, EUSRV_INFO_VERSION) == EUSRV_INFO_VERSION_VALUE &&
			info(n, EUSRV_INFO_NODE_ID) == n &&
			info(n, EUSRV_INFO_NODE_COUNT) == NODES &&
			drv_rd64(board_page(&b, n, EUSRV_PAGE_INFO),
				 EUSRV_INFO_RAM_SIZE) == RAM_SIZE &&
			info(n, EUSRV_INFO_MODEL_PEER) == EUSRV_MODEL_PEER &&
			(info(n, EUSRV_INFO_BLOCKS) & BLOCKS_NIC) == BLOCKS_NIC &&
			info(n, EUSRV_INFO_NODES_UP) == 0;
	ok(good, "info: every node's page has magic, version, id, count, RAM size, peer, blocks");
	ok(info(NODES, EUSRV_INFO_MAGIC) == 0,
	   "info: windows of nodes the board does not have stay empty");

	board_set_up(&b, 2, true);
	board_set_up(&b, 0, true);
	good = true;
	for (n = 0; n < NODES; n++)
		good &= info(n, EUSRV_INFO_NODES_UP) == 0x5;
	ok(good, "info: NODES_UP follows attaches in every page");
	board_set_up(&b, 2, false);
	board_set_up(&b, 7, true);	/* no such node: ignored */
	good = true;
	for (n = 0; n < NODES; n++)
		good &= info(n, EUSRV_INFO_NODES_UP) == 0x1;
	ok(good, "info: and detaches; nodes the board lacks are ignored");
}

static void test_shm(void)
{
	struct stat st;

	ok(fstat(b.shm_fd, &st) == 0 && st.st_size == EUSRV_BAR2_SIZE,
	   "shm: the memfd is EUSRV_BAR2_SIZE bytes");
	ok(ftruncate(b.shm_fd, EUSRV_BAR2_SIZE / 2) < 0 && errno == EPERM,
	   "shm: nobody can shrink it under the model's mapping (sealed)");
}

static void test_ram(const char *dir)
{
	char path[256];
	struct stat st;
	uint32_t v = 0x12345678, r = 0;
	uint8_t *p;
	int fd;

	snprintf(path, sizeof(path), "%s/node1.ram", dir);
	ok(stat(path, &st) == 0 && st.st_size == RAM_SIZE,
	   "ram: node1.ram exists with the RAM size");
	p = board_ram_ptr(&b, EUSRV_GA(1, 0x1000), sizeof(v));
	ok(p != NULL, "ram: a global address in node1 RAM resolves");
	if (p)
		memcpy(p, &v, sizeof(v));
	fd = open(path, O_RDONLY);
	ok(fd >= 0 && pread(fd, &r, sizeof(r), 0x1000) == sizeof(r) && r == v,
	   "ram: a store through the pointer lands in the RAM file");
	if (fd >= 0)
		close(fd);
}

static void test_decode(void)
{
	static const struct {
		uint64_t ga, len;
		const char *what;
	} bad[] = {
		{ EUSRV_GA(0, 0), 0, "zero length" },
		{ EUSRV_GA(0, RAM_SIZE), 1, "first byte after RAM" },
		{ EUSRV_GA(0, RAM_SIZE - 4), 8, "access straddling the end of RAM" },
		{ EUSRV_GA(0, 0), RAM_SIZE + 1, "longer than RAM" },
		{ EUSRV_GA(0, 8), UINT64_MAX, "length that wraps around" },
		{ EUSRV_GA(NODES, 0), 1, "node past the board's last" },
		{ EUSRV_GA(255, 0), 1, "node 255" },
		{ EUSRV_GA(0, 0) | 1ULL << 48, 1, "bit 48 set" },
		{ EUSRV_GA(0, 0) | 1ULL << 63, 1, "bit 63 set" },
		{ EUSRV_GA(0, EUSRV_GA_BLOCKS - 1), 1, "just below the register window" },
		{ EUSRV_GA(0, EUSRV_GA_BLOCKS + EUSRV_NODE_WINDOW), 1,
		  "just after the register window" },
		{ EUSRV_GA(0, EUSRV_GA_BLOCKS + EUSRV_NODE_WINDOW - 4), 8,
		  "straddling the window's end" },
		{ EUSRV_GA(0, EUSRV_GA_LOCAL_MASK), 1, "last local address" },
		{ UINT64_MAX, 1, "all ones" },
	};
	struct board_ga d;
	unsigned int i;
	bool all = true;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = board_decode(&b, bad[i].ga, bad[i].len, &d);

		if (rc != -EFAULT) {
			all = false;
			tap_diag("decoded: %s", bad[i].what);
		}
	}
	ok(all, "decode: %zu kinds of bad address are decode errors",
	   sizeof(bad) / sizeof(bad[0]));

	ok(board_decode(&b, EUSRV_GA(2, RAM_SIZE - 8), 8, &d) == 0 &&
	   d.kind == BOARD_GA_RAM && d.node == 2 && d.offset == RAM_SIZE - 8 &&
	   d.host == (uint8_t *)b.nodes[2].ram + RAM_SIZE - 8,
	   "decode: the last 8 bytes of node2 RAM");
	ok(board_decode(&b, EUSRV_GA(0, 0), RAM_SIZE, &d) == 0 &&
	   d.kind == BOARD_GA_RAM && d.host == b.nodes[0].ram,
	   "decode: all of node0 RAM in one access");
	ok(board_decode(&b, EUSRV_MBOX_INBOX_GA(1), 8, &d) == 0 &&
	   d.kind == BOARD_GA_REGS && d.node == 1 &&
	   d.offset == EUSRV_PAGE_MBOX + EUSRV_MBOX_INBOX &&
	   d.host == (uint8_t *)board_page(&b, 1, EUSRV_PAGE_MBOX) + EUSRV_MBOX_INBOX,
	   "decode: node1's INBOX is in its register window");
	ok(board_decode(&b, EUSRV_GA(1, EUSRV_GA_BLOCKS), EUSRV_NODE_WINDOW, &d) == 0 &&
	   d.kind == BOARD_GA_REGS,
	   "decode: the whole register window");
	ok(board_ram_ptr(&b, EUSRV_MBOX_INBOX_GA(1), 8) == NULL,
	   "decode: board_ram_ptr refuses register addresses");
	ok(board_ram_ptr(&b, EUSRV_GA(1, RAM_SIZE), 1) == NULL,
	   "decode: board_ram_ptr refuses addresses past RAM");
}

/* RAM that starts at 1 GiB (--ram-base, ARM's virt machine). */
static void test_decode_ram_base(void)
{
	const uint64_t base = 1ULL << 30;
	struct board_ga d;

	b.ram_base[1] = base;
	ok(board_decode(&b, EUSRV_GA(1, base), 8, &d) == 0 &&
	   d.kind == BOARD_GA_RAM && d.node == 1 && d.offset == 0 &&
	   d.host == b.nodes[1].ram,
	   "ram base: the base is the RAM file's first byte");
	ok(board_decode(&b, EUSRV_GA(1, base + RAM_SIZE - 8), 8, &d) == 0 &&
	   d.offset == RAM_SIZE - 8,
	   "ram base: the last 8 bytes of RAM");
	ok(board_decode(&b, EUSRV_GA(1, base - 8), 8, &d) == -EFAULT &&
	   board_decode(&b, EUSRV_GA(1, base - 4), 8, &d) == -EFAULT &&
	   board_decode(&b, EUSRV_GA(1, 0), 8, &d) == -EFAULT,
	   "ram base: below the base (and straddling it) is no RAM");
	ok(board_decode(&b, EUSRV_GA(1, base + RAM_SIZE - 4), 8, &d) == -EFAULT,
	   "ram base: straddling the RAM's end is no RAM");
	b.ram_base[1] = 0;
}

/*
 * A board of mixed ISAs: node1's RAM at 1 GiB, node0's and node2's at 0.
 * Each address is decoded against the base of the node it names.
 */
static void test_decode_mixed_bases(void)
{
	const uint64_t base = 1ULL << 30, at = 0x2000;
	struct board_ga d;

	b.ram_base[1] = base;
	ok(board_decode(&b, EUSRV_GA(1, base + at), 8, &d) == 0 &&
	   d.node == 1 && d.offset == at &&
	   d.host == (uint8_t *)b.nodes[1].ram + at &&
	   board_decode(&b, EUSRV_GA(0, at), 8, &d) == 0 &&
	   d.node == 0 && d.offset == at &&
	   d.host == (uint8_t *)b.nodes[0].ram + at &&
	   board_decode(&b, EUSRV_GA(2, at), 8, &d) == 0 &&
	   d.node == 2 && d.offset == at,
	   "mixed bases: the same RAM offset through each node's own base");
	ok(board_decode(&b, EUSRV_GA(1, at), 8, &d) == -EFAULT,
	   "mixed bases: node0's local address on node1 (below its base) is no RAM");
	ok(board_decode(&b, EUSRV_GA(0, base + at), 8, &d) == -EFAULT &&
	   board_decode(&b, EUSRV_GA(2, base), 8, &d) == -EFAULT,
	   "mixed bases: node1's local address on node0 and node2 (past their RAM) is no RAM");
	ok(board_decode(&b, EUSRV_GA(0, RAM_SIZE - 8), 8, &d) == 0 &&
	   board_decode(&b, EUSRV_GA(1, base + RAM_SIZE - 8), 8, &d) == 0 &&
	   board_decode(&b, EUSRV_GA(0, RAM_SIZE - 4), 8, &d) == -EFAULT &&
	   board_decode(&b, EUSRV_GA(1, base + RAM_SIZE - 4), 8, &d) == -EFAULT,
	   "mixed bases: each node's RAM ends RAM size past its own base");
	ok(board_decode(&b, EUSRV_MBOX_INBOX_GA(1), 8, &d) == 0 &&
	   d.kind == BOARD_GA_REGS && d.node == 1,
	   "mixed bases: the register window does not move with the base");
	b.ram_base[1] = 0;
}

static void test_bad_geometry(const char *dir)
{
	struct board bb;

	ok(board_init(&bb, dir, 0, RAM_SIZE) == -EINVAL,
	   "init: 0 nodes refused");
	ok(board_init(&bb, dir, EUSRV_MAX_NODES + 1, RAM_SIZE) == -EINVAL,
	   "init: too many nodes refused");
	ok(board_init(&bb, dir, 1, RAM_SIZE + 1) == -EINVAL,
	   "init: RAM size not a page multiple refused");
	ok(board_init(&bb, dir, 1, EUSRV_GA_BLOCKS + BOARD_RAM_ALIGN) == -EINVAL,
	   "init: RAM reaching the register windows refused");
	ok(board_init(&bb, "/nonexistent/dir", 1, RAM_SIZE) < 0,
	   "init: unusable directory reported");
}

int main(void)
{
	char dir[] = "/tmp/eusrv-test-board-XXXXXX";
	char path[300];
	unsigned int n;

	if (!mkdtemp(dir))
		tap_bail("mkdtemp failed");
	snprintf(path, sizeof(path), "%s/log", dir);
	if (log_open(path))
		tap_bail("cannot open %s", path);
	if (board_init(&b, dir, NODES, RAM_SIZE))
		tap_bail("board_init failed");
	test_info();
	test_shm();
	test_ram(dir);
	test_decode();
	test_decode_ram_base();
	test_decode_mixed_bases();
	test_bad_geometry(dir);
	board_fini(&b, true);
	snprintf(path, sizeof(path), "%s/node0.ram", dir);
	ok(access(path, F_OK) < 0, "fini: the RAM files are removed");
	for (n = 0; n < NODES; n++) {
		snprintf(path, sizeof(path), "%s/node%u.ram", dir, n);
		unlink(path);
	}
	log_close();
	snprintf(path, sizeof(path), "%s/log", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
