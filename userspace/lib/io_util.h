/* SPDX-License-Identifier: MIT */
/* Whole-buffer reads and writes on descriptors, retrying EINTR. */
#ifndef EUSRV_IO_UTIL_H
#define EUSRV_IO_UTIL_H

#include <stddef.h>

/* 0 on success, -1 with errno set; read_full sets errno = EPIPE at EOF. */
int write_full(int fd, const void *buf, size_t len);
int read_full(int fd, void *buf, size_t len);

#endif
