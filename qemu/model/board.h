/*
 * The board: its nodes, the BAR2 shared memory (a memfd holding every
 * node's register window), the information pages, the nodes' RAM files
 * mapped into the model, and the decoding of global addresses.
 */
#ifndef EUSRV_MODEL_BOARD_H
#define EUSRV_MODEL_BOARD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <eusrv/board_hw.h>

/* The model maps RAM in pages; RAM must end below the register windows. */
#define BOARD_RAM_ALIGN		4096ULL
#define BOARD_RAM_MAX		EUSRV_GA_BLOCKS

struct board_node {
	unsigned int id;
	int ram_fd;
	void *ram;			/* ram_size bytes, shared with QEMU */
	char ram_path[PATH_MAX];
};

struct board {
	unsigned int nr_nodes;
	uint64_t ram_size;
	/*
	 * Each node's RAM's first physical address: per node, since a board
	 * may mix ISAs (QEMU's ARM virt machine has its RAM at 1 GiB, a PC
	 * at 0); a global address's local part is the node's own.
	 */
	uint64_t ram_base[EUSRV_MAX_NODES];
	int shm_fd;			/* EUSRV_BAR2_SIZE bytes memfd */
	void *shm;
	uint32_t nodes_up;		/* bit n: node n attached */
	bool axidma_pg021;		/* AXI DMA: PG021's acknowledgement only */
	bool cdma_pg034;		/* CDMA: PG034's acknowledgement only */
	struct board_node nodes[EUSRV_MAX_NODES];
};

/*
 * Create the shared memory and the RAM files DIR/node<n>.ram, fill the
 * information pages.  Returns 0 or -errno (the reason is logged).
 */
int board_init(struct board *b, const char *dir, unsigned int nr_nodes,
	       uint64_t ram_size);
/* Unmap everything; REMOVE_FILES also deletes the RAM files. */
void board_fini(struct board *b, bool remove_files);

/* Register page PAGE (EUSRV_PAGE_*) of node NODE's window in BAR2. */
void *board_page(const struct board *b, unsigned int node, uint32_t page);

/* Mark a node attached or not; every information page follows. */
void board_set_up(struct board *b, unsigned int node, bool up);

enum board_ga_kind {
	BOARD_GA_RAM = 1,		/* node RAM, host points into it */
	BOARD_GA_REGS,			/* node register window */
};

struct board_ga {
	enum board_ga_kind kind;
	unsigned int node;
	uint64_t offset;		/* in the node's RAM or window */
	void *host;			/* len bytes the model may access */
};

/*
 * Decode the access [GA, GA + LEN) to one node's RAM or register window.
 * Returns 0, or -EFAULT (a decode error) when LEN is 0, bits 63:48 are set,
 * the node does not exist, or the range is not wholly inside RAM or the
 * register window.  Whether the node is attached is the caller's concern.
 */
int board_decode(const struct board *b, uint64_t ga, uint64_t len,
		 struct board_ga *out);

/* Host pointer for LEN bytes of node RAM at GA, or NULL (decode error). */
void *board_ram_ptr(const struct board *b, uint64_t ga, uint64_t len);

#endif /* EUSRV_MODEL_BOARD_H */
