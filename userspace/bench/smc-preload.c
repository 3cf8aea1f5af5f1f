// SPDX-License-Identifier: MIT
/*
 * libeusrv-smc.so: a program's TCP sockets made SMC sockets (AF_SMC), as
 * smc-tools' smc_run does, for `make bench` on systems without smc-tools
 * (Debian bookworm has no package of it).  Preloaded by eusrv-smc-run.
 *
 * Every socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) becomes
 * socket(AF_SMC, same type and flags, SMCPROTO_SMC or SMCPROTO_SMC6); the
 * kernel's SMC then uses SMC-R when both ends are SMC sockets and a RoCE
 * device serves the route, and TCP (its fallback) otherwise.  Where AF_SMC
 * is not there (no smc module), the TCP socket is made as asked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#ifndef AF_SMC
#define AF_SMC		43
#endif
#define SMCPROTO_SMC	0	/* net/smc/smc.h */
#define SMCPROTO_SMC6	1

typedef int (*socket_fn)(int, int, int);

__attribute__((visibility("default")))
int socket(int domain, int type, int protocol)
{
	static socket_fn real;
	int fd, saved;

	if (!real) {
		real = (socket_fn)dlsym(RTLD_NEXT, "socket");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	if ((domain != AF_INET && domain != AF_INET6) ||
	    (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_STREAM ||
	    (protocol && protocol != IPPROTO_TCP))
		return real(domain, type, protocol);
	saved = errno;
	fd = real(AF_SMC, type, domain == AF_INET ? SMCPROTO_SMC : SMCPROTO_SMC6);
	if (fd >= 0)
		return fd;
	errno = saved;
	return real(domain, type, protocol);
}
