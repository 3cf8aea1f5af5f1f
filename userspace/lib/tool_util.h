/* SPDX-License-Identifier: MIT */
/* What the command-line tools share: their device, their numbers. */
#ifndef EUSRV_TOOL_UTIL_H
#define EUSRV_TOOL_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Open PATH read-write; on failure say so on stderr as PROG, with HINT
 * added when the device does not exist (its module is not loaded).
 */
int tool_open_dev(const char *prog, const char *path, const char *hint);
/* An unsigned number, decimal or 0x hex, in [0, MAX] / [MIN, MAX]. */
bool tool_parse_u64(const char *s, uint64_t max, uint64_t *out);
bool tool_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* A node: "3" or "node3", below NODES. */
bool tool_parse_node(const char *s, uint32_t nodes, uint32_t *node);

#endif
