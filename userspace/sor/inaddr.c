// SPDX-License-Identifier: MIT
/* IPv4 endpoints in AF_INET and IPv4-mapped AF_INET6 form. */
#include <string.h>

#include "inaddr.h"

bool usor_v4_of(const struct sockaddr *a, socklen_t len, bool any_ok,
	       struct sockaddr_in *out)
{
	struct sockaddr_in6 s6;

	if (!a || len < (socklen_t)sizeof(sa_family_t))
		return false;
	if (a->sa_family == AF_INET) {
		if (len < (socklen_t)sizeof(*out))
			return false;
		memcpy(out, a, sizeof(*out));
		return true;
	}
	if (a->sa_family != AF_INET6 || len < (socklen_t)sizeof(s6))
		return false;
	memcpy(&s6, a, sizeof(s6));
	if (IN6_IS_ADDR_V4MAPPED(&s6.sin6_addr)) {
		memset(out, 0, sizeof(*out));
		out->sin_family = AF_INET;
		out->sin_port = s6.sin6_port;
		memcpy(&out->sin_addr, &s6.sin6_addr.s6_addr[12], 4);
		return true;
	}
	if (any_ok && IN6_IS_ADDR_UNSPECIFIED(&s6.sin6_addr)) {
		memset(out, 0, sizeof(*out));
		out->sin_family = AF_INET;
		out->sin_port = s6.sin6_port;
		out->sin_addr.s_addr = htonl(INADDR_ANY);
		return true;
	}
	return false;
}

socklen_t usor_v4_as(int family, const struct sockaddr_in *in,
		    struct sockaddr_storage *out)
{
	struct sockaddr_in6 s6;

	memset(out, 0, sizeof(*out));
	if (family != AF_INET6) {
		memcpy(out, in, sizeof(*in));
		((struct sockaddr_in *)out)->sin_family = AF_INET;
		return sizeof(*in);
	}
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_port = in->sin_port;
	s6.sin6_addr.s6_addr[10] = 0xff;
	s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &in->sin_addr, 4);
	memcpy(out, &s6, sizeof(s6));
	return sizeof(s6);
}
