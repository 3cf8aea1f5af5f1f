// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupts free memory of a running node through its RAM file (qemu/board
 * backs each node's RAM with $EUSRV_BOARD_DIR/nodeN.ram, shared), where only
 * the kernel's memory debugging can find it: tests/board/15-memdebug.sh
 * runs it on the host.
 *
 *   ram-poke pages RAMFILE COUNT    a byte of COUNT free pages (page
 *                                   poisoning fills them with 0xaa) set to 0
 *   ram-poke objects RAMFILE COUNT  a byte of COUNT free 64-byte slab objects
 *                                   (SLUB's poison: 63 times 0x6b, then 0xa5)
 *                                   set to 0
 *
 * Prints how many it corrupted; exits 1 if none, 2 on a usage error.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE		4096UL
#define PAGE_POISON	0xaa	/* mm/page_poison.c */
#define POISON_FREE	0x6b	/* include/linux/poison.h */
#define POISON_END	0xa5
#define OBJECT		64UL
#define LOW_SKIP	(16UL << 20)	/* firmware and the kernel's image */

/* Whether all N bytes at P are C. */
static int all(const unsigned char *p, size_t n, unsigned char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/*
 * Free pages, spread over the RAM: a node allocating memory soon meets
 * some of them.
 */
static unsigned long poke_pages(unsigned char *ram, size_t size, unsigned long count)
{
	size_t pages = size / PAGE, step, i;
	unsigned long done = 0;

	step = pages / (count * 4) ? pages / (count * 4) : 1;
	for (i = LOW_SKIP / PAGE; i < pages && done < count; i += step) {
		unsigned char *p = ram + i * PAGE;

		if (all(p, PAGE, PAGE_POISON)) {
			p[100] = 0;
			done++;
		}
	}
	return done;
}

/*
 * Free objects of the 64-byte caches, whole: the byte before is not poison
 * (a red zone), so that no larger object's tail is taken for one.
 */
static unsigned long poke_objects(unsigned char *ram, size_t size, unsigned long count)
{
	unsigned long done = 0;
	size_t i;

	for (i = LOW_SKIP; i + OBJECT <= size && done < count; i += 8) {
		unsigned char *p = ram + i;

		if (p[-1] == POISON_FREE || p[OBJECT - 1] != POISON_END ||
		    !all(p, OBJECT - 1, POISON_FREE))
			continue;
		p[7] = 0;
		done++;
		i += OBJECT - 8;
	}
	return done;
}

int main(int argc, char **argv)
{
	unsigned long count, done;
	unsigned char *ram;
	struct stat st;
	int fd;

	if (argc != 4 || (strcmp(argv[1], "pages") && strcmp(argv[1], "objects")) ||
	    !(count = strtoul(argv[3], NULL, 0))) {
		fprintf(stderr, "usage: ram-poke pages|objects RAMFILE COUNT\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size <= LOW_SKIP) {
		perror(argv[2]);
		return 1;
	}
	ram = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ram == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (!strcmp(argv[1], "pages"))
		done = poke_pages(ram, st.st_size, count);
	else
		done = poke_objects(ram, st.st_size, count);
	printf("%lu\n", done);
	munmap(ram, st.st_size);
	close(fd);
	return done ? 0 : 1;
}
