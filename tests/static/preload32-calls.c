// SPDX-License-Identifier: MIT
/*
 * A 32-bit program's calls through the preload library where the kernel
 * has no /dev/eusrv_sor (tests/static/preload-abi runs it for armhf under
 * qemu-arm): built with _FILE_OFFSET_BITS=64 and _TIME_BITS=64, it calls
 * the large-file and 64-bit-time names, and each must reach the library
 * and then libc's call of the same name, with the same layouts: a lock
 * past 4 GiB (struct flock64), the size of a sparse file past 4 GiB
 * (struct __stat64_t64), sendfile from an offset past 4 GiB, recvmmsg's
 * 64-bit timeout written back.  (Not SO_RCVTIMEO_NEW: qemu-arm 7.2 does
 * not take it; suite 70's _TIME_BITS=64 clients do on armhf nodes.)
 * Prints one line a check, "ok ..." or "not ok ...", and exits 1 if any
 * failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#define GIB (1024LL * 1024 * 1024)

static int failed;

static void say(int good, const char *what)
{
	printf("%s %s\n", good ? "ok" : "not ok", what);
	if (!good)
		failed = 1;
}

/* Whether the library defines NAME (the program's calls reach it). */
static int in_library(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	Dl_info di;

	return p && dladdr(p, &di) && di.dli_fname &&
	       strstr(di.dli_fname, "libeusrv-preload.so");
}

static void check_names(void)
{
	static const char *const names[] = {
		"fcntl64", "__fcntl_time64", "__fstat64_time64", "sendfile64",
		"__recvmmsg64", "__recvmsg64", "__sendmsg64", "__sendmmsg64",
		"__getsockopt64", "__setsockopt64", "fstat64", "fstatat64",
	};
	char what[80];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(what, sizeof(what), "%s is the library's", names[i]);
		say(in_library(names[i]), what);
	}
}

/* A sparse file of 5 GiB with "past4g" at 4 GiB + 16. */
static int sparse_file(void)
{
	char path[] = "/tmp/preload32-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, 5 * GIB) ||
	    pwrite(fd, "past4g", 6, 4 * GIB + 16) != 6) {
		close(fd);
		return -1;
	}
	return fd;
}

static void check_lock(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			   .l_start = 4 * GIB + 8, .l_len = 8 };
	char proc[64];
	int other;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	other = open(proc, O_RDWR);
	if (other < 0 || fcntl(fd, F_OFD_SETLK, &l)) {
		say(0, "fcntl F_OFD_SETLK past 4 GiB");
		return;
	}
	memset(&l, 0, sizeof(l));
	l.l_type = F_WRLCK;
	l.l_whence = SEEK_SET;
	l.l_start = 4 * GIB;
	l.l_len = 64;
	say(!fcntl(other, F_OFD_GETLK, &l) && l.l_type == F_WRLCK &&
	    l.l_start == 4 * GIB + 8 && l.l_len == 8,
	    "fcntl F_OFD_GETLK sees the lock past 4 GiB (struct flock64)");
	close(other);
}

static void check_stat(int fd, int sock)
{
	struct stat st;

	say(!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == 5 * GIB,
	    "fstat: a regular file of 5 GiB (64-bit time's struct stat)");
	say(!fstatat(sock, "", &st, AT_EMPTY_PATH) && S_ISSOCK(st.st_mode),
	    "fstatat AT_EMPTY_PATH: a socket");
}

static void check_sendfile(int fd, int sv[2])
{
	off_t off = 4 * GIB + 16;
	char buf[8] = "";

	say(sendfile(sv[0], fd, &off, 6) == 6 && off == 4 * GIB + 22 &&
	    read(sv[1], buf, sizeof(buf)) == 6 && !memcmp(buf, "past4g", 6),
	    "sendfile from 4 GiB + 16: its bytes, the offset moved on");
}

static void check_mmsg(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec tmo = { .tv_sec = 5, .tv_nsec = 0 };
	char b0[4], b1[4];
	struct iovec v[2] = { { b0, sizeof(b0) }, { b1, sizeof(b1) } };
	struct mmsghdr m[2];
	socklen_t l = sizeof(a);
	int u = socket(AF_INET, SOCK_DGRAM, 0), n;

	memset(m, 0, sizeof(m));
	m[0].msg_hdr.msg_iov = &v[0];
	m[0].msg_hdr.msg_iovlen = 1;
	m[1].msg_hdr.msg_iov = &v[1];
	m[1].msg_hdr.msg_iovlen = 1;
	if (u < 0 || bind(u, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(u, (struct sockaddr *)&a, &l) ||
	    sendto(u, "one", 3, 0, (struct sockaddr *)&a, l) != 3 ||
	    sendto(u, "two", 3, 0, (struct sockaddr *)&a, l) != 3) {
		say(0, "recvmmsg: a UDP socket with two datagrams");
		return;
	}
	n = recvmmsg(u, m, 2, 0, &tmo);
	say(n == 2 && m[0].msg_len == 3 && m[1].msg_len == 3 &&
	    !memcmp(b0, "one", 3) && !memcmp(b1, "two", 3) &&
	    tmo.tv_sec >= 4 && tmo.tv_sec <= 5 && tmo.tv_nsec >= 0 &&
	    tmo.tv_nsec < 1000000000,
	    "recvmmsg: two datagrams, the 64-bit timeout written back");
	close(u);
}

int main(void)
{
	int fd = sparse_file(), sv[2];

	_Static_assert(sizeof(time_t) == 8 && sizeof(off_t) == 8,
		       "built with _TIME_BITS=64 and _FILE_OFFSET_BITS=64");
	if (fd < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("preload32-calls: set-up");
		return 1;
	}
	check_names();
	check_lock(fd);
	check_stat(fd, sv[0]);
	check_sendfile(fd, sv);
	check_mmsg();
	return failed;
}
