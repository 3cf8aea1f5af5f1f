// SPDX-License-Identifier: MIT
/*
 * eusrv-smc-setup: the two settings SMC-R needs on a node whose RoCE device
 * is Soft-RoCE (rdma_rxe), done over the smc module's generic netlink
 * families (what smc-tools' smc_pnet and smcr ueid do; Debian bookworm has
 * no smc-tools package):
 *
 *   eusrv-smc-setup pnet PNETID NETDEV IBDEV [PORT]
 *       put NETDEV and port PORT (1) of IBDEV under one PNETID: rxe has no
 *       get_netdev operation, so without this entry SMC finds no RoCE
 *       device for a connection over NETDEV and falls back to TCP
 *   eusrv-smc-setup ueid EID
 *       add a user-defined EID: SMC-R version 2 (RoCE v2, the only GID type
 *       rxe has) is proposed only by a node with an EID, and accepted only
 *       with one in common; x86 has no system EID
 *
 * An entry that is already there is not an error.  Needs CAP_NET_ADMIN and
 * the smc module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* include/uapi/linux/smc.h (as in Linux 6.1) */
#define PNET_FAMILY	"SMC_PNETID"
#define PNET_ADD	2
#define PNET_A_NAME	1
#define PNET_A_ETHNAME	2
#define PNET_A_IBNAME	3
#define PNET_A_IBPORT	4
#define GEN_FAMILY	"SMC_GEN_NETLINK"
#define GEN_ADD_UEID	10
#define GEN_A_EID	1
#define EID_LEN		32

static const char *prog = "eusrv-smc-setup";

struct req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[512];
};

static void put_attr(struct req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void start(struct req *r, uint16_t family, uint8_t cmd, uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = family;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->g.cmd = cmd;
	r->g.version = version;
}

/*
 * Send R and read the answer.  Returns 0 or -errno from the kernel's ack;
 * with FAMILY_ID set, the family id a CTRL_CMD_GETFAMILY answer carries.
 */
static int talk(int fd, struct req *r, uint16_t *family_id)
{
	char ans[8192];
	struct nlmsghdr *h;
	ssize_t n;

	if (send(fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, ans, sizeof(ans), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)ans; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (family_id && h->nlmsg_type == GENL_ID_CTRL) {
				char *p = (char *)NLMSG_DATA(h) + GENL_HDRLEN;
				int left = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

				while (left >= NLA_HDRLEN) {
					struct nlattr *a = (struct nlattr *)p;

					if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
						break;
					if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
						memcpy(family_id, p + NLA_HDRLEN, sizeof(*family_id));
					left -= NLA_ALIGN(a->nla_len);
					p += NLA_ALIGN(a->nla_len);
				}
			}
		}
	}
}

static int family(int fd, const char *name, uint16_t *id)
{
	struct req r;
	int rc;

	start(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	*id = 0;
	rc = talk(fd, &r, id);
	if (!rc && !*id)
		rc = -ENOENT;
	if (rc)
		fprintf(stderr, "%s: generic netlink family %s: %s%s\n", prog, name,
			strerror(-rc), rc == -ENOENT ? " (is the smc module loaded?)" : "");
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: %s pnet PNETID NETDEV IBDEV [PORT]\n"
		"       %s ueid EID\n", prog, prog);
	return 2;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct req r;
	uint16_t id;
	int fd, rc;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "pnet") ? argc != 5 && argc != 6 :
	    !strcmp(argv[1], "ueid") ? argc != 3 : 1)
		return usage();
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: netlink: %s\n", prog, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "pnet")) {
		uint8_t port = 1;

		if (argc == 6) {
			char *end;
			long v = strtol(argv[5], &end, 10);

			if (*end || v < 1 || v > 2)
				return usage();
			port = (uint8_t)v;
		}
		if (family(fd, PNET_FAMILY, &id))
			return 1;
		start(&r, id, PNET_ADD, 1);
		put_attr(&r, PNET_A_NAME, argv[2], strlen(argv[2]) + 1);
		put_attr(&r, PNET_A_ETHNAME, argv[3], strlen(argv[3]) + 1);
		put_attr(&r, PNET_A_IBNAME, argv[4], strlen(argv[4]) + 1);
		put_attr(&r, PNET_A_IBPORT, &port, 1);
	} else {
		char eid[EID_LEN + 1];
		size_t len = strlen(argv[2]);

		if (len > EID_LEN) {
			fprintf(stderr, "%s: an EID has at most %d characters\n", prog, EID_LEN);
			return 2;
		}
		/* The kernel takes exactly 32 characters, blank-padded. */
		memset(eid, ' ', EID_LEN);
		memcpy(eid, argv[2], len);
		eid[EID_LEN] = 0;
		if (family(fd, GEN_FAMILY, &id))
			return 1;
		start(&r, id, GEN_ADD_UEID, 1);
		put_attr(&r, GEN_A_EID, eid, sizeof(eid));
	}
	rc = talk(fd, &r, NULL);
	close(fd);
	if (rc && rc != -EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[1], strerror(-rc));
		return 1;
	}
	return 0;
}
