/* SPDX-License-Identifier: MIT */
/*
 * IPv4 endpoints as programs give them: AF_INET, or an AF_INET6 socket's
 * IPv4-mapped address (a dual-stack socket bound to :: talks IPv4 this
 * way, as iperf3 and nginx's "listen [::]" do).
 */
#ifndef EUSRV_USOR_INADDR_H
#define EUSRV_USOR_INADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

/*
 * The IPv4 endpoint in A (LEN bytes) into OUT: an AF_INET address, an
 * IPv4-mapped AF_INET6 one, or with ANY_OK also the IPv6 wildcard (as
 * INADDR_ANY).  False for anything else, OUT untouched.
 */
bool usor_v4_of(const struct sockaddr *a, socklen_t len, bool any_ok,
	       struct sockaddr_in *out);

/*
 * IN as FAMILY presents it (AF_INET as is, AF_INET6 IPv4-mapped) into
 * OUT; returns its length.
 */
socklen_t usor_v4_as(int family, const struct sockaddr_in *in,
		    struct sockaddr_storage *out);

#endif /* EUSRV_USOR_INADDR_H */
