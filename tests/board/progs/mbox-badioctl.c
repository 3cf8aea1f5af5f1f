// SPDX-License-Identifier: MIT
/*
 * Bad input from user space to /dev/eusrv_mbox: every malformed ioctl must
 * fail with the documented errno (and never oops the node).  Runs on a node
 * of a two-node board; prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/eusrv/mbox_diag.h>

#define PEER		1U
#define KERNEL_PTR	0xffff800000000000ULL

static int n, failures;

/* WANT 0: the call must succeed; otherwise it must fail with errno WANT. */
static void expect(const char *what, long ret, int want)
{
	int err = errno;

	n++;
	if ((want == 0 && ret >= 0) || (ret < 0 && err == want)) {
		printf("ok %d - %s\n", n, what);
		return;
	}
	failures++;
	printf("not ok %d - %s # returned %ld, errno %s, wanted %s\n", n, what,
	       ret, ret < 0 ? strerror(err) : "-", want ? strerror(want) : "success");
}

int main(void)
{
	struct eusrv_mbox_ping p;
	struct eusrv_mbox_flood f;
	uint32_t ms, samples[4];
	int fd = open("/dev/eusrv_mbox", O_RDWR);

	if (fd < 0) {
		perror("mbox-badioctl: /dev/eusrv_mbox");
		return 1;
	}
	expect("unknown command", ioctl(fd, _IO(EUSRV_MBOX_IOC_MAGIC, 99), 0), ENOTTY);
	expect("another driver's command", ioctl(fd, 0x5401, 0), ENOTTY);
	expect("ping: NULL argument", ioctl(fd, EUSRV_MBOX_IOC_PING, NULL), EFAULT);

	memset(&p, 0, sizeof(p));
	p.node = PEER;
	p.samples = (uintptr_t)samples;
	expect("ping: count 0", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.count = EUSRV_MBOX_DIAG_MAX_PING + 1;
	expect("ping: count above the limit", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.count = 1;
	p.flags = 1;
	expect("ping: unknown flags", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.flags = 0;
	p.reserved = 7;
	expect("ping: reserved field set", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.reserved = 0;
	p.node = EUSRV_MBOX_DIAG_MAX_NODES + 83;
	expect("ping: node not on the board", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.node = PEER;
	p.timeout_ms = EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS + 1;
	expect("ping: timeout above the limit", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EINVAL);
	p.timeout_ms = 0;
	p.count = 4;
	p.samples = 16;
	expect("ping: unmapped sample buffer", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EFAULT);
	p.samples = KERNEL_PTR;
	expect("ping: kernel sample buffer", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), EFAULT);
	p.samples = (uintptr_t)samples;
	expect("ping: a good request still works", ioctl(fd, EUSRV_MBOX_IOC_PING, &p), 0);

	memset(&f, 0, sizeof(f));
	f.node = EUSRV_MBOX_DIAG_MAX_NODES;
	f.count = 1;
	expect("flood: node not on the board", ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f), EINVAL);
	f.node = PEER;
	f.flags = 2;
	expect("flood: unknown flags", ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f), EINVAL);
	f.flags = 0;
	f.timeout_ms = EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS + 1;
	expect("flood: timeout above the limit", ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f), EINVAL);
	f.timeout_ms = 0;
	f.count = 0;
	expect("flood: zero messages is a no-op", ioctl(fd, EUSRV_MBOX_IOC_FLOOD, &f), 0);
	expect("flood: unmapped argument", ioctl(fd, EUSRV_MBOX_IOC_FLOOD, (void *)8), EFAULT);
	expect("stats: unmapped argument", ioctl(fd, EUSRV_MBOX_IOC_STATS, (void *)8), EFAULT);
	ms = 0;
	expect("pause: 0 ms", ioctl(fd, EUSRV_MBOX_IOC_PAUSE, &ms), EINVAL);
	ms = EUSRV_MBOX_DIAG_MAX_PAUSE_MS + 1;
	expect("pause: above the limit", ioctl(fd, EUSRV_MBOX_IOC_PAUSE, &ms), EINVAL);
	expect("pause: unmapped argument", ioctl(fd, EUSRV_MBOX_IOC_PAUSE, (void *)8), EFAULT);
	expect("read() is not offered", read(fd, samples, sizeof(samples)), EINVAL);
	printf("1..%d\n", n);
	close(fd);
	return failures != 0;
}
