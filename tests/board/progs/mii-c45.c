// SPDX-License-Identifier: MIT
/*
 * Clause-45 PHY registers through a network interface's MII ioctls
 * (SIOCGMIIPHY, SIOCGMIIREG, SIOCSMIIREG), as the kernel's phylib serves
 * them for an attached PHY:
 *
 *   mii-c45 IFNAME phy                      the PHY's address (SIOCGMIIPHY)
 *   mii-c45 IFNAME PRTAD DEVAD REG          read: prints 0x%04x
 *   mii-c45 IFNAME PRTAD DEVAD REG VALUE    write
 *
 * Numbers are decimal or 0x-hexadecimal.  Exit status 1 on a failed ioctl.
 */
#include <errno.h>
#include <linux/mdio.h>
#include <linux/mii.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned long num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "mii-c45: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct ifreq ifr;
	struct mii_ioctl_data *mii = (struct mii_ioctl_data *)&ifr.ifr_data;
	unsigned long cmd;
	int fd;

	if (argc != 3 && argc != 5 && argc != 6) {
		fprintf(stderr, "usage: mii-c45 IFNAME phy | IFNAME PRTAD DEVAD REG [VALUE]\n");
		return 2;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (argc == 3) {
		if (strcmp(argv[2], "phy")) {
			fprintf(stderr, "mii-c45: '%s': expected 'phy'\n", argv[2]);
			return 2;
		}
		cmd = SIOCGMIIPHY;
	} else {
		mii->phy_id = MDIO_PHY_ID_C45 | num(argv[2], 31) << 5 | num(argv[3], 31);
		mii->reg_num = num(argv[4], 0xffff);
		if (argc == 6) {
			mii->val_in = num(argv[5], 0xffff);
			cmd = SIOCSMIIREG;
		} else {
			cmd = SIOCGMIIREG;
		}
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("mii-c45: socket");
		return 1;
	}
	if (ioctl(fd, cmd, &ifr) < 0) {
		fprintf(stderr, "mii-c45: %s: %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	if (cmd == SIOCGMIIPHY)
		printf("%u\n", mii->phy_id);
	else if (cmd == SIOCGMIIREG)
		printf("0x%04x\n", mii->val_out);
	return 0;
}
