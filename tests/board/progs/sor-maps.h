/* SPDX-License-Identifier: MIT */
/*
 * sor_maps(): the connection files mapped into the calling process, as
 * /proc/self/maps lists them ("anon_inode:[eusrv_sor]"), for the test
 * programs that check what CONNECT and the library leave mapped.
 */
#ifndef SOR_MAPS_H
#define SOR_MAPS_H

#include <stdio.h>
#include <string.h>

/* How many mappings of connection files, *LEN their bytes; -1: no maps. */
static inline int sor_maps(unsigned long *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long a, b;
	char line[512];
	int n = 0;

	*len = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[eusrv_sor]") &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2) {
			n++;
			*len += b - a;
		}
	fclose(f);
	return n;
}

#endif /* SOR_MAPS_H */
