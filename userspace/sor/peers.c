// SPDX-License-Identifier: MIT
/*
 * The peers file parser.  Pure: no I/O, no allocation, no libc calls but
 * memcpy/memset, so that it runs inside libc and in the host tests alike.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <string.h>

#include "peers.h"

/* A message being built in a fixed buffer (truncated if too long). */
struct msg {
	char buf[USOR_PEERS_MAX_LINE + 128];
	size_t len;
};

static void msg_add(struct msg *m, const char *s, size_t n)
{
	if (n > sizeof(m->buf) - 1 - m->len)
		n = sizeof(m->buf) - 1 - m->len;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static void msg_str(struct msg *m, const char *s)
{
	msg_add(m, s, strlen(s));
}

static void msg_uint(struct msg *m, unsigned long v)
{
	char d[24];
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	msg_add(m, d + i, sizeof(d) - i);
}

char *usor_ipv4_str(uint32_t addr, char out[16])
{
	const unsigned char *b = (const unsigned char *)&addr;
	struct msg m;
	int i;

	m.len = 0;
	m.buf[0] = '\0';
	for (i = 0; i < 4; i++) {
		if (i)
			msg_add(&m, ".", 1);
		msg_uint(&m, b[i]);
	}
	memcpy(out, m.buf, m.len + 1);
	return out;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A decimal number of at most MAXDIG digits in [S, E), at most MAX. */
static int parse_dec(const char *s, const char *e, unsigned int max,
		     unsigned int maxdig, unsigned int *out)
{
	unsigned int v = 0;

	if (s == e || (size_t)(e - s) > maxdig)
		return -1;
	/* No leading zeros: "010" would be octal to inet_aton. */
	if (*s == '0' && e - s > 1)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* A dotted quad in [S, E) to network order. */
static int parse_ipv4(const char *s, const char *e, uint32_t *addr)
{
	unsigned char b[4];
	unsigned int v;
	int i;

	for (i = 0; i < 4; i++) {
		const char *dot = s;

		while (dot < e && *dot != '.')
			dot++;
		if ((i < 3) != (dot < e))
			return -1;
		if (parse_dec(s, dot, 255, 3, &v))
			return -1;
		b[i] = (unsigned char)v;
		s = dot + 1;
	}
	memcpy(addr, b, sizeof(*addr));
	return 0;
}

int usor_peers_find(const struct usor_peers *p, uint32_t addr)
{
	uint32_t i, j;

	for (i = 0; i < p->count; i++)
		for (j = 0; j < p->peer[i].naddr; j++)
			if (p->peer[i].addr[j] == addr)
				return (int)p->peer[i].node;
	return -1;
}

const struct usor_peer *usor_peers_node(const struct usor_peers *p, uint32_t node)
{
	uint32_t i;

	for (i = 0; i < p->count; i++)
		if (p->peer[i].node == node)
			return &p->peer[i];
	return NULL;
}

/* One line [S, E) without its newline; NULL if good, else why not. */
static const char *parse_line(struct usor_peers *p, const char *s, const char *e,
			      struct usor_peer *out)
{
	const char *w;
	unsigned int node;
	uint32_t addr, k;

	memset(out, 0, sizeof(*out));
	while (s < e && is_space(*s))
		s++;
	w = s;
	while (s < e && !is_space(*s))
		s++;
	if (s - w > 4 && !memcmp(w, "node", 4))
		w += 4;
	if (parse_dec(w, s, USOR_PEERS_MAX_NODES - 1, 2, &node))
		return "the node is not a number from 0 to 63";
	if (usor_peers_node(p, node))
		return "the node is listed twice";
	out->node = node;
	for (;;) {
		while (s < e && is_space(*s))
			s++;
		if (s == e)
			break;
		w = s;
		while (s < e && !is_space(*s))
			s++;
		if (parse_ipv4(w, s, &addr))
			return "not an IPv4 address (a.b.c.d)";
		if (out->naddr == USOR_PEERS_MAX_ADDRS)
			return "more than 8 addresses";
		if (usor_peers_find(p, addr) >= 0)
			return "the address belongs to another node";
		for (k = 0; k < out->naddr; k++)
			if (out->addr[k] == addr)
				return "the address is listed twice";
		out->addr[out->naddr++] = addr;
	}
	if (!out->naddr)
		return "no address";
	return NULL;
}

uint32_t usor_peers_parse(struct usor_peers *p, const char *buf, size_t len,
			 const char *name, usor_peers_report_fn *report, void *arg)
{
	const char *s = buf, *end = buf + len;
	unsigned long lineno = 0;

	memset(p, 0, sizeof(*p));
	while (s < end) {
		const char *e = s, *c, *why = NULL;
		struct usor_peer peer;

		memset(&peer, 0, sizeof(peer));
		while (e < end && *e != '\n')
			e++;
		lineno++;
		/* Comments: from '#' to the end of the line. */
		for (c = s; c < e && *c != '#'; c++)
			;
		{
			const char *t = s;

			while (t < c && is_space(*t))
				t++;
			if (t == c)
				goto next;	/* empty or comment only */
		}
		if (e - s > (long)USOR_PEERS_MAX_LINE)
			why = "line too long";
		else if (p->count == USOR_PEERS_MAX_NODES)
			why = "more than 64 nodes";
		else
			why = parse_line(p, s, c, &peer);
		if (why) {
			p->bad_lines++;
			if (report) {
				struct msg m;

				m.len = 0;
				m.buf[0] = '\0';
				msg_str(&m, name);
				msg_add(&m, ":", 1);
				msg_uint(&m, lineno);
				msg_str(&m, ": ");
				msg_str(&m, why);
				msg_str(&m, "; line ignored: ");
				msg_add(&m, s, (size_t)(c - s));
				report(arg, m.buf);
			}
		} else {
			p->peer[p->count++] = peer;
		}
next:
		s = e + 1;
	}
	return p->count;
}
