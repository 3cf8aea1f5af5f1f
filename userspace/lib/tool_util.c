// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_util.h"

int tool_open_dev(const char *prog, const char *path, const char *hint)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "%s: %s: %s%s\n", prog, path, strerror(errno),
			errno == ENOENT ? hint : "");
	return fd;
}

bool tool_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() would take a sign or blanks. */
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool tool_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!tool_parse_u64(s, max, &v) || v < min)
		return false;
	*out = (uint32_t)v;
	return true;
}

bool tool_parse_node(const char *s, uint32_t nodes, uint32_t *node)
{
	if (!strncmp(s, "node", strlen("node")))
		s += strlen("node");
	return nodes && tool_parse_u32(s, 0, nodes - 1, node);
}
