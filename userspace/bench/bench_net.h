/* SPDX-License-Identifier: MIT */
/*
 * The socket plumbing the benchmark programs share: ordinary blocking TCP
 * sockets through the plain socket API, so that the programs run unchanged
 * over TCP or, under eusrv-run or the patched libc, over RDMA.
 */
#ifndef EUSRV_BENCH_NET_H
#define EUSRV_BENCH_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Sockets made from now on ask for BYTES of SO_SNDBUF and SO_RCVBUF. */
void bench_set_buffers(int bytes);
/* Listen on PORT (all IPv4 addresses); -1 with a message on stderr. */
int bench_listen(uint16_t port);
/* Connect to HOST:PORT (name or dotted quad); -1 with a message. */
int bench_connect(const char *host, uint16_t port);
/* The same, and the time the successful connect() call took into *NS. */
int bench_connect_timed(const char *host, uint16_t port, uint64_t *ns);
/*
 * Accept on PORT and run HANDLE on each connection: in a child process per
 * client (one after the other in this process with EUSRV_BENCH_PLAIN=1, see
 * bench_net.c), or once in this process if ONCE.  Returns only on error (1) or,
 * with ONCE, with 0 if HANDLE returned 0.
 */
int bench_serve(uint16_t port, bool once, int (*handle)(int fd));
/*
 * The role word both programs start with: "server", or "client HOST" (HOST
 * into *HOST).  1 for a server, 0 for a client, -1 for neither; optind is
 * left at the first option.
 */
int bench_role(int argc, char **argv, const char **host);
/* Monotonic time in nanoseconds. */
uint64_t bench_now_ns(void);
/* A decimal number in [MIN, MAX] with an optional K/M suffix (x1024). */
int bench_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Whether the N bytes at A and B are the same (memcmp() == 0, but quicker). */
bool bench_same(const void *a, const void *b, size_t n);
/* Sort N samples and return the P-quantile (0..1), nearest rank. */
uint64_t bench_quantile(uint64_t *v, size_t n, double p);

#endif /* EUSRV_BENCH_NET_H */
