// SPDX-License-Identifier: MIT
/*
 * The peers file parser of the sockets-over-RDMA interception core: good
 * files, and every kind of malformed line reported once and ignored.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "peers.h"
#include "tap.h"

static char reports[16][640];
static int nreports;

static void report(void *arg, const char *msg)
{
	(void)arg;
	if (nreports < 16)
		snprintf(reports[nreports], sizeof(reports[0]), "%s", msg);
	nreports++;
}

static uint32_t ip(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static uint32_t parse(struct usor_peers *p, const char *text)
{
	nreports = 0;
	return usor_peers_parse(p, text, strlen(text), "peers", report, NULL);
}

/* One malformed line between two good ones: reported with its reason. */
static void bad(const char *line, const char *why)
{
	static struct usor_peers p;
	char text[1024];

	snprintf(text, sizeof(text), "0 10.0.0.1\n%s\n2 10.0.0.3\n", line);
	parse(&p, text);
	ok(p.count == 2 && p.bad_lines == 1 && nreports == 1 &&
	   strstr(reports[0], "peers:2: ") && strstr(reports[0], why),
	   "malformed \"%.40s\": ignored, reported once (%s)", line,
	   nreports ? reports[0] : "no report");
}

int main(void)
{
	static struct usor_peers p;
	char a[16], text[80 * 70];
	const struct usor_peer *e;
	int i;

	ok(parse(&p, "") == 0 && nreports == 0, "empty file: no nodes");
	ok(parse(&p, "# only a comment\n\n   \t\n") == 0 && nreports == 0,
	   "comments and blank lines");
	parse(&p, "# board\n0 198.18.0.10\n1\t198.18.0.11 10.1.0.11 # second NIC\n"
		  "node2 198.18.0.12\r\n  3   198.18.0.13  ");
	ok(p.count == 4 && p.bad_lines == 0 && nreports == 0,
	   "four nodes, tabs, CRLF, trailing comment, nodeN, no final newline");
	e = usor_peers_node(&p, 1);
	ok(e && e->naddr == 2 && e->addr[0] == ip("198.18.0.11") &&
	   e->addr[1] == ip("10.1.0.11"), "node 1 has two addresses, in order");
	ok(usor_peers_find(&p, ip("10.1.0.11")) == 1 &&
	   usor_peers_find(&p, ip("198.18.0.13")) == 3 &&
	   usor_peers_find(&p, ip("198.18.0.14")) == -1 &&
	   usor_peers_find(&p, ip("127.0.0.1")) == -1,
	   "addresses map to their node; others to none");
	ok(usor_peers_node(&p, 2) && !usor_peers_node(&p, 4), "node lookup");
	ok(!strcmp(usor_ipv4_str(ip("198.18.0.255"), a), "198.18.0.255") &&
	   !strcmp(usor_ipv4_str(ip("0.0.0.0"), a), "0.0.0.0"), "address printing");
	parse(&p, "63 1.2.3.4 1.2.3.5 1.2.3.6 1.2.3.7 1.2.3.8 1.2.3.9 1.2.3.10 1.2.3.11\n");
	ok(p.count == 1 && p.peer[0].node == 63 && p.peer[0].naddr == 8,
	   "node 63 with 8 addresses");

	bad("x 10.0.0.2", "node is not a number");
	bad("64 10.0.0.2", "node is not a number");
	bad("01 10.0.0.2", "node is not a number");
	bad("-1 10.0.0.2", "node is not a number");
	bad("1", "no address");
	bad("1 # comment only", "no address");
	bad("1 10.0.0", "not an IPv4");
	bad("1 10.0.0.256", "not an IPv4");
	bad("1 10.0.0.1.1", "not an IPv4");
	bad("1 10.0.0.01", "not an IPv4");
	bad("1 10..0.1", "not an IPv4");
	bad("1 node1", "not an IPv4");
	bad("1 ::1", "not an IPv4");
	bad("1 10.0.0.1", "belongs to another node");
	bad("1 10.0.0.9 10.0.0.9", "listed twice");
	bad("0 10.0.0.9", "node is listed twice");
	bad("1 1.1.1.1 1.1.1.2 1.1.1.3 1.1.1.4 1.1.1.5 1.1.1.6 1.1.1.7 1.1.1.8 1.1.1.9",
	    "more than 8");
	{
		char longl[700];

		memset(longl, ' ', sizeof(longl));
		memcpy(longl, "1 10.0.0.2", 10);
		longl[sizeof(longl) - 1] = '\0';
		bad(longl, "too long");
	}

	text[0] = '\0';
	for (i = 0; i < 65; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%d 10.2.%d.1\n", i % 64 == i ? i : 0, i);
	parse(&p, text);
	ok(p.count == 64 && p.bad_lines == 1 && nreports == 1,
	   "65th node line refused (at most 64 nodes)");

	/* Binary junk does not crash the parser and counts as bad lines. */
	{
		char junk[256];

		for (i = 0; i < (int)sizeof(junk); i++)
			junk[i] = (char)(i * 37 + 11);
		nreports = 0;
		usor_peers_parse(&p, junk, sizeof(junk), "junk", report, NULL);
		ok(p.count == 0 && p.bad_lines > 0 && nreports == (int)p.bad_lines,
		   "binary junk: %u bad lines, no nodes", p.bad_lines);
	}
	nreports = 0;
	usor_peers_parse(&p, "x\n", 2, "quiet", NULL, NULL);
	ok(p.bad_lines == 1 && nreports == 0, "no report function: still counted");
	return tap_done();
}
