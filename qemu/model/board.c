/*
 * The board (see board.h): shared memory, information pages, node RAM and
 * global address decoding.
 */
#define _GNU_SOURCE
#include "board.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "regs.h"

/* Bits of a global address above the node number must be zero. */
#define GA_VALID_MASK \
	((EUSRV_GA_NODE_MASK << EUSRV_GA_NODE_SHIFT) | EUSRV_GA_LOCAL_MASK)

_Static_assert(EUSRV_MAX_NODES * EUSRV_NODE_WINDOW <= EUSRV_BAR2_SIZE,
	       "every node's window fits BAR2");

void *board_page(const struct board *b, unsigned int node, uint32_t page)
{
	return (char *)b->shm + EUSRV_NODE_WINDOW_OFF(node) + page;
}

static void info_fill(struct board *b, unsigned int node)
{
	void *info = board_page(b, node, EUSRV_PAGE_INFO);

	wr32(info, EUSRV_INFO_VERSION, EUSRV_INFO_VERSION_VALUE);
	wr32(info, EUSRV_INFO_NODE_ID, node);
	wr32(info, EUSRV_INFO_NODE_COUNT, b->nr_nodes);
	wr64(info, EUSRV_INFO_RAM_SIZE, b->ram_size);
	wr32(info, EUSRV_INFO_MODEL_PEER, EUSRV_MODEL_PEER);
	wr32(info, EUSRV_INFO_BLOCKS, EUSRV_BLOCK_MBOX | EUSRV_BLOCK_CDMA | EUSRV_BLOCK_DMA | EUSRV_BLOCK_MAC);
	wr32(info, EUSRV_INFO_NODES_UP, b->nodes_up);
	/* Magic last: a reader that sees it sees a filled page. */
	wr32_release(info, EUSRV_INFO_MAGIC, EUSRV_INFO_MAGIC_VALUE);
}

void board_set_up(struct board *b, unsigned int node, bool up)
{
	unsigned int n;

	if (node >= b->nr_nodes)
		return;
	if (up)
		b->nodes_up |= 1U << node;
	else
		b->nodes_up &= ~(1U << node);
	for (n = 0; n < b->nr_nodes; n++)
		wr32_release(board_page(b, n, EUSRV_PAGE_INFO),
			     EUSRV_INFO_NODES_UP, b->nodes_up);
}

static int shm_create(struct board *b)
{
	b->shm_fd = memfd_create("eusrv-bar2", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (b->shm_fd < 0) {
		log_err("BAR2 shared memory: memfd_create: %s", strerror(errno));
		return -errno;
	}
	if (ftruncate(b->shm_fd, EUSRV_BAR2_SIZE) < 0) {
		log_err("BAR2 shared memory: ftruncate: %s", strerror(errno));
		return -errno;
	}
	/* No node may resize it under the model's mapping (SIGBUS). */
	if (fcntl(b->shm_fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		log_err("BAR2 shared memory: sealing: %s", strerror(errno));
		return -errno;
	}
	b->shm = mmap(NULL, EUSRV_BAR2_SIZE, PROT_READ | PROT_WRITE,
		      MAP_SHARED, b->shm_fd, 0);
	if (b->shm == MAP_FAILED) {
		b->shm = NULL;
		log_err("BAR2 shared memory: mmap: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int ram_create(struct board *b, struct board_node *n, const char *dir)
{
	int len = snprintf(n->ram_path, sizeof(n->ram_path), "%s/node%u.ram",
			   dir, n->id);

	if (len < 0 || (size_t)len >= sizeof(n->ram_path)) {
		log_err("node%u RAM file: path too long under %s", n->id, dir);
		n->ram_path[0] = '\0';
		return -ENAMETOOLONG;
	}
	/*
	 * A new file, not a truncated old one: a new board starts with zeroed
	 * RAM, and a process still mapping the old file (a VM left over from
	 * a crashed model) keeps its pages instead of getting SIGBUS.
	 */
	if (unlink(n->ram_path) < 0 && errno != ENOENT) {
		log_err("node%u RAM file %s: removing the old one: %s", n->id,
			n->ram_path, strerror(errno));
		n->ram_path[0] = '\0';
		return -errno;
	}
	n->ram_fd = open(n->ram_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			 0600);
	if (n->ram_fd < 0) {
		log_err("node%u RAM file %s: %s", n->id, n->ram_path,
			strerror(errno));
		n->ram_path[0] = '\0';
		return -errno;
	}
	if (ftruncate(n->ram_fd, (off_t)b->ram_size) < 0) {
		log_err("node%u RAM file %s: ftruncate to %llu bytes: %s",
			n->id, n->ram_path, (unsigned long long)b->ram_size,
			strerror(errno));
		return -errno;
	}
	n->ram = mmap(NULL, b->ram_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      n->ram_fd, 0);
	if (n->ram == MAP_FAILED) {
		n->ram = NULL;
		log_err("node%u RAM file %s: mmap: %s", n->id, n->ram_path,
			strerror(errno));
		return -errno;
	}
	return 0;
}

int board_init(struct board *b, const char *dir, unsigned int nr_nodes,
	       uint64_t ram_size)
{
	unsigned int i;
	int err;

	memset(b, 0, sizeof(*b));
	b->shm_fd = -1;
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		b->nodes[i].id = i;
		b->nodes[i].ram_fd = -1;
	}
	if (nr_nodes < 1 || nr_nodes > EUSRV_MAX_NODES || !ram_size ||
	    ram_size % BOARD_RAM_ALIGN || ram_size > BOARD_RAM_MAX) {
		log_err("board: invalid geometry (%u nodes, %llu bytes RAM)",
			nr_nodes, (unsigned long long)ram_size);
		return -EINVAL;
	}
	b->nr_nodes = nr_nodes;
	b->ram_size = ram_size;

	err = shm_create(b);
	for (i = 0; !err && i < nr_nodes; i++)
		err = ram_create(b, &b->nodes[i], dir);
	if (err) {
		board_fini(b, true);
		return err;
	}
	for (i = 0; i < nr_nodes; i++)
		info_fill(b, i);
	return 0;
}

void board_fini(struct board *b, bool remove_files)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		struct board_node *n = &b->nodes[i];

		if (n->ram)
			munmap(n->ram, b->ram_size);
		n->ram = NULL;
		if (n->ram_fd >= 0)
			close(n->ram_fd);
		n->ram_fd = -1;
		if (remove_files && n->ram_path[0])
			unlink(n->ram_path);
		n->ram_path[0] = '\0';
	}
	if (b->shm)
		munmap(b->shm, EUSRV_BAR2_SIZE);
	b->shm = NULL;
	if (b->shm_fd >= 0)
		close(b->shm_fd);
	b->shm_fd = -1;
}

int board_decode(const struct board *b, uint64_t ga, uint64_t len,
		 struct board_ga *out)
{
	unsigned int node = EUSRV_GA_NODE(ga);
	uint64_t local = EUSRV_GA_LOCAL(ga);
	uint64_t base, off;

	if (!len || (ga & ~GA_VALID_MASK) || node >= b->nr_nodes)
		return -EFAULT;
	base = b->ram_base[node];
	if (local >= base && local - base < b->ram_size &&
	    len <= b->ram_size - (local - base)) {
		out->kind = BOARD_GA_RAM;
		out->node = node;
		out->offset = local - base;
		out->host = (char *)b->nodes[node].ram + out->offset;
		return 0;
	}
	if (local < EUSRV_GA_BLOCKS)
		return -EFAULT;
	off = local - EUSRV_GA_BLOCKS;
	if (off < EUSRV_NODE_WINDOW && len <= EUSRV_NODE_WINDOW - off) {
		out->kind = BOARD_GA_REGS;
		out->node = node;
		out->offset = off;
		out->host = (char *)board_page(b, node, 0) + off;
		return 0;
	}
	return -EFAULT;
}

void *board_ram_ptr(const struct board *b, uint64_t ga, uint64_t len)
{
	struct board_ga d;

	if (board_decode(b, ga, len, &d) || d.kind != BOARD_GA_RAM)
		return NULL;
	return d.host;
}
