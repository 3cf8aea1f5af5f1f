// SPDX-License-Identifier: MIT
/*
 * IPv4 endpoints in AF_INET and IPv4-mapped AF_INET6 form: what the
 * interception core accepts as an IPv4 peer or listener, and how it gives
 * addresses back to a dual-stack socket.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <string.h>

#include "inaddr.h"
#include "tap.h"

static struct sockaddr_in6 v6(const char *s, unsigned short port)
{
	struct sockaddr_in6 a;

	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(port);
	inet_pton(AF_INET6, s, &a.sin6_addr);
	return a;
}

int main(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET }, out;
	struct sockaddr_in6 a6;
	struct sockaddr_storage ss;
	char buf[INET6_ADDRSTRLEN];
	socklen_t l;

	in.sin_port = htons(80);
	inet_pton(AF_INET, "198.18.0.10", &in.sin_addr);
	ok(usor_v4_of((struct sockaddr *)&in, sizeof(in), false, &out) &&
	   out.sin_addr.s_addr == in.sin_addr.s_addr && out.sin_port == htons(80),
	   "AF_INET as is");
	ok(!usor_v4_of((struct sockaddr *)&in, sizeof(in) - 1, false, &out),
	   "AF_INET too short");
	ok(!usor_v4_of(NULL, sizeof(in), true, &out), "no address");

	a6 = v6("::ffff:198.18.0.11", 7200);
	memset(&out, 0xa5, sizeof(out));
	ok(usor_v4_of((struct sockaddr *)&a6, sizeof(a6), false, &out) &&
	   out.sin_family == AF_INET && out.sin_port == htons(7200) &&
	   !strcmp(inet_ntop(AF_INET, &out.sin_addr, buf, sizeof(buf)), "198.18.0.11") &&
	   !memcmp(out.sin_zero, "\0\0\0\0\0\0\0\0", 8),
	   "IPv4-mapped AF_INET6 gives the IPv4 address and port, zero padding");
	ok(!usor_v4_of((struct sockaddr *)&a6, sizeof(a6) - 1, false, &out),
	   "AF_INET6 too short");

	a6 = v6("::", 5201);
	ok(!usor_v4_of((struct sockaddr *)&a6, sizeof(a6), false, &out),
	   "IPv6 wildcard is no peer");
	ok(usor_v4_of((struct sockaddr *)&a6, sizeof(a6), true, &out) &&
	   out.sin_addr.s_addr == htonl(INADDR_ANY) && out.sin_port == htons(5201),
	   "IPv6 wildcard is INADDR_ANY for a listener");

	a6 = v6("2001:db8::1", 80);
	ok(!usor_v4_of((struct sockaddr *)&a6, sizeof(a6), true, &out),
	   "a native IPv6 address is not IPv4");
	a6 = v6("::1", 80);
	ok(!usor_v4_of((struct sockaddr *)&a6, sizeof(a6), true, &out),
	   "IPv6 loopback is not IPv4");

	l = usor_v4_as(AF_INET, &in, &ss);
	ok(l == sizeof(in) && ss.ss_family == AF_INET &&
	   !memcmp(&ss, &in, sizeof(in)), "AF_INET presented as is");
	l = usor_v4_as(AF_INET6, &in, &ss);
	memcpy(&a6, &ss, sizeof(a6));
	ok(l == sizeof(a6) && a6.sin6_family == AF_INET6 &&
	   a6.sin6_port == htons(80) && IN6_IS_ADDR_V4MAPPED(&a6.sin6_addr) &&
	   !strcmp(inet_ntop(AF_INET6, &a6.sin6_addr, buf, sizeof(buf)),
		   "::ffff:198.18.0.10") && !a6.sin6_flowinfo && !a6.sin6_scope_id,
	   "AF_INET6 presents the IPv4-mapped address");
	ok(usor_v4_of((struct sockaddr *)&ss, l, false, &out) &&
	   out.sin_addr.s_addr == in.sin_addr.s_addr && out.sin_port == in.sin_port,
	   "round trip");
	return tap_done();
}
