// SPDX-License-Identifier: MIT
/*
 * libeusrv-preload.so: the interception core in front of an unmodified
 * program (LD_PRELOAD, see eusrv-run).  This file only fills the core's
 * table of real operations with the next definitions (dlsym RTLD_NEXT) and
 * defines the interposed libc symbols; the core does the rest.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "usor_core.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * A 32-bit ABI (glibc's __TIMESIZE 32) has the large-file calls apart
 * (fcntl64, fstat64, ...: what programs built with _FILE_OFFSET_BITS=64
 * call) and since glibc 2.34 the 64-bit-time ones (__recvmmsg64, ...:
 * _TIME_BITS=64); on a 64-bit ABI the first are the same calls and the
 * second do not exist.
 */
#define TIME32_ABI (__TIMESIZE != 64)

/* The real variadic calls, behind fixed signatures. */
static int (*next_fcntl)(int, int, ...);
static int (*next_fcntl64)(int, int, ...);
static int (*next_ioctl)(int, unsigned long, ...);
static int (*next_open)(const char *, int, ...);
static int (*next_dup2)(int, int);
static int (*next_dup3)(int, int, int);
static void (*next_closefrom)(int);
static int (*next_fxstat)(int, int, struct stat *);
static int (*next_fxstat64)(int, int, struct stat64 *);
static int (*next_fstat64)(int, struct stat64 *);
static int (*next_fstatat)(int, const char *, struct stat *, int);
static int (*next_fstatat64)(int, const char *, struct stat64 *, int);
#if TIME32_ABI
static int (*next_fstat_t64)(int, struct usor_stat_t64 *);
static int (*next_fstatat_t64)(int, const char *, struct usor_stat_t64 *, int);
#endif
static int (*next_statx)(int, const char *, int, unsigned int, struct statx *);
static void (*next_chk_fail)(void);

static int fcntl_fixed(int fd, int cmd, uintptr_t arg)
{
	return next_fcntl(fd, cmd, arg);
}

static int fcntl64_fixed(int fd, int cmd, uintptr_t arg)
{
	return next_fcntl64(fd, cmd, arg);
}

static int ioctl_fixed(int fd, unsigned long req, void *arg)
{
	return next_ioctl(fd, req, arg);
}

/*
 * The blocking waits are cancellation points, as the calls they serve
 * are: asynchronous cancellation for the time of the system call, as
 * glibc's own wrappers do (the reference the thread holds goes with the
 * wait key's destructor when it exits).
 */
static int ioctl_cancel(int fd, unsigned long req, void *arg)
{
	int old, r, e;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	r = next_ioctl(fd, req, arg);
	e = errno;
	pthread_setcanceltype(old, NULL);
	errno = e;
	return r;
}

static int open_fixed(const char *path, int flags)
{
	return next_open(path, flags);
}

static int dup3_fixed(int fd, int newfd, int flags)
{
	return flags ? next_dup3(fd, newfd, flags) : next_dup2(fd, newfd);
}

static const char *getenv_fixed(const char *name)
{
	return getenv(name);
}

/* A fortified call was given a length beyond its buffer. */
static void chk_fail(void)
{
	next_chk_fail();
	abort();
}

static struct usor_real preload_real;
static int ready;	/* 0 no, 1 resolving, 2 yes */

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	return p;
}

/* Each thread's id, asked of the kernel once (the ring locks use it). */
static __thread pid_t tid_cache;

static pid_t cached_gettid(void)
{
	if (!tid_cache)
		tid_cache = (pid_t)syscall(SYS_gettid);
	return tid_cache;
}

/* What a thread cancelled in a wait leaves behind (usor_real.wait_begin). */
static pthread_key_t preload_wait_key;

static void wait_begin(void *c)
{
	pthread_setspecific(preload_wait_key, c);
}

static void wait_end(void)
{
	pthread_setspecific(preload_wait_key, NULL);
}

static pid_t preload_getpid(void)
{
	return (pid_t)syscall(SYS_getpid);
}

static void fork_child(void)
{
	tid_cache = 0;	/* the child's one thread has an id of its own */
	usor_fork_child();
}

#define NEXT(field, name) (*(void **)&preload_real.field = next(name))

/* The next library's calls that the library's own ops go to as they are. */
static void resolve_next(void)
{
	NEXT(connect, "connect");
	NEXT(bind, "bind");
	NEXT(listen, "listen");
	NEXT(accept4, "accept4");
	NEXT(close, "close");
	NEXT(close_range, "close_range");
	NEXT(read, "read");
	NEXT(write, "write");
	NEXT(pread, "pread");
	NEXT(readv, "readv");
	NEXT(writev, "writev");
	NEXT(recvfrom, "recvfrom");
	NEXT(sendto, "sendto");
	NEXT(recvmsg, "recvmsg");
	NEXT(sendmsg, "sendmsg");
	NEXT(sendmmsg, "sendmmsg");
	NEXT(recvmmsg, "recvmmsg");
	NEXT(sendfile, "sendfile");
	NEXT(shutdown, "shutdown");
	NEXT(getsockopt, "getsockopt");
	NEXT(setsockopt, "setsockopt");
	NEXT(getsockname, "getsockname");
	NEXT(getpeername, "getpeername");
	NEXT(dup, "dup");
	NEXT(fstat, "fstat");
	NEXT(mmap, "mmap");
	NEXT(munmap, "munmap");
	NEXT(clock_gettime, "clock_gettime");
	NEXT(raise, "raise");
	NEXT(sched_yield, "sched_yield");
	NEXT(socket, "socket");
	NEXT(pread64, "pread64");
	NEXT(sendfile64, "sendfile64");
#if TIME32_ABI
	NEXT(recvmsg64, "__recvmsg64");
	NEXT(recvmmsg64, "__recvmmsg64");
	*(void **)&next_fstat_t64 = next("__fstat64_time64");
	*(void **)&next_fstatat_t64 = next("__fstatat64_time64");
#endif
}

/* The calls the library's ops take from here, each fixed for its use. */
static void resolve_fixed(void)
{
	preload_real.gettid = cached_gettid;
	preload_real.getpid = preload_getpid;
	*(void **)&next_fcntl = next("fcntl");
	*(void **)&next_fcntl64 = next("fcntl64");
	*(void **)&next_ioctl = next("ioctl");
	*(void **)&next_open = next("open");
	*(void **)&next_dup2 = next("dup2");
	*(void **)&next_dup3 = next("dup3");
	*(void **)&next_closefrom = next("closefrom");
	*(void **)&next_fxstat = next("__fxstat");
	*(void **)&next_fxstat64 = next("__fxstat64");
	*(void **)&next_fstat64 = next("fstat64");
	*(void **)&next_fstatat = next("fstatat");
	*(void **)&next_fstatat64 = next("fstatat64");
	*(void **)&next_statx = next("statx");
	*(void **)&next_chk_fail = next("__chk_fail");
	preload_real.fcntl = fcntl_fixed;
	preload_real.fcntl64 = fcntl64_fixed;
	preload_real.ioctl = ioctl_fixed;
	preload_real.ioctl_wait = ioctl_cancel;
	preload_real.wait_begin = wait_begin;
	preload_real.wait_end = wait_end;
	preload_real.open = open_fixed;
	preload_real.dup3 = dup3_fixed;
	preload_real.getenv = getenv_fixed;
}

static void resolve(void)
{
	int saved = errno, s = 0;

	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) == 2)
		return;
	if (!__atomic_compare_exchange_n(&ready, &s, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) != 2)
			sched_yield();
		return;
	}
	resolve_next();
	resolve_fixed();
	pthread_key_create(&preload_wait_key, usor_wait_abandoned);
	usor_set_real(&preload_real);
	pthread_atfork(usor_fork_prepare, usor_fork_parent, fork_child);
	__atomic_store_n(&ready, 2, __ATOMIC_RELEASE);
	errno = saved;
}

/* Whether PATH is "" (may be NULL, whatever the headers say). */
static bool empty_path(const char *path)
{
	__asm__("" : "+r"(path));
	return !path || !*path;
}

#define R()	do { if (__builtin_expect(__atomic_load_n(&ready, __ATOMIC_ACQUIRE) != 2, 0)) resolve(); } while (0)

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	R();
	return usor_connect(fd, addr, len);
}

EXPORT int listen(int fd, int backlog)
{
	R();
	return usor_listen(fd, backlog);
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	R();
	return usor_accept4(fd, addr, len, 0);
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	R();
	return usor_accept4(fd, addr, len, flags);
}

EXPORT int close(int fd)
{
	R();
	return usor_close(fd);
}

EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	R();
	return usor_close_range(first, last, flags);
}

EXPORT void closefrom(int low)
{
	R();
	usor_closefrom_before(low);
	next_closefrom(low);
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	R();
	return usor_read(fd, buf, n);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	R();
	if (n > buflen)
		chk_fail();
	return usor_read(fd, buf, n);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	R();
	return usor_write(fd, buf, n);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	R();
	return usor_readv(fd, iov, iovcnt);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	R();
	return usor_writev(fd, iov, iovcnt);
}

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	R();
	return usor_recvfrom(fd, buf, n, flags, NULL, NULL);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	R();
	if (n > buflen)
		chk_fail();
	return usor_recvfrom(fd, buf, n, flags, NULL, NULL);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			struct sockaddr *addr, socklen_t *len)
{
	R();
	return usor_recvfrom(fd, buf, n, flags, addr, len);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen,
			      int flags, struct sockaddr *addr, socklen_t *len)
{
	R();
	if (n > buflen)
		chk_fail();
	return usor_recvfrom(fd, buf, n, flags, addr, len);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	R();
	return usor_recvmsg(fd, msg, flags);
}

#if TIME32_ABI
EXPORT ssize_t __recvmsg64(int fd, struct msghdr *msg, int flags)
{
	R();
	return usor_recvmsg64(fd, msg, flags);
}

EXPORT int __recvmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen,
			int flags, struct usor_timespec64 *timeout)
{
	R();
	return usor_recvmmsg64(fd, vec, vlen, flags, timeout);
}
#endif

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	R();
	return usor_sendto(fd, buf, n, flags, NULL, 0);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
		      const struct sockaddr *addr, socklen_t len)
{
	R();
	return usor_sendto(fd, buf, n, flags, addr, len);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	R();
	return usor_sendmsg(fd, msg, flags);
}

EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	R();
	return usor_sendmmsg(fd, vec, vlen, flags);
}

EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		    struct timespec *timeout)
{
	R();
	return usor_recvmmsg(fd, vec, vlen, flags, timeout);
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	R();
	return usor_sendfile(out, in, off, n);
}

EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t n)
{
	R();
	return usor_sendfile64(out, in, off, n);
}

EXPORT int shutdown(int fd, int how)
{
	R();
	return usor_shutdown(fd, how);
}

EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	R();
	return usor_getsockopt(fd, level, name, val, len);
}

EXPORT int setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	R();
	return usor_setsockopt(fd, level, name, val, len);
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	R();
	return usor_getsockname(fd, addr, len);
}

EXPORT int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	R();
	return usor_getpeername(fd, addr, len);
}

#if TIME32_ABI
/*
 * 64-bit-time names that are the same function in glibc as the plain
 * ones: a _TIME_BITS=64 program differs only in the option names it
 * passes (SO_RCVTIMEO_NEW, SO_TIMESTAMP_NEW, ...), which the core tells
 * apart itself.
 */
EXPORT ssize_t __sendmsg64(int fd, const struct msghdr *msg, int flags)
	__attribute__((alias("sendmsg")));
EXPORT int __sendmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen,
			int flags) __attribute__((alias("sendmmsg")));
EXPORT int __getsockopt64(int fd, int level, int name, void *val,
			  socklen_t *len) __THROW __attribute__((alias("getsockopt")));
EXPORT int __setsockopt64(int fd, int level, int name, const void *val,
			  socklen_t len) __THROW __attribute__((alias("setsockopt")));
#endif

EXPORT int dup(int fd)
{
	R();
	return usor_dup(fd);
}

EXPORT int dup2(int fd, int newfd)
{
	R();
	return usor_dup2(fd, newfd);
}

EXPORT int dup3(int fd, int newfd, int flags)
{
	R();
	if (fd == newfd) {
		errno = EINVAL;
		return -1;
	}
	return usor_dup3(fd, newfd, flags);
}

/*
 * fcntl and its large-file name (struct flock64; the same call on a
 * 64-bit ABI): the one argument a command takes, if any, as a word.
 */
#define FCNTL(name, call)					\
EXPORT int name(int fd, int cmd, ...)				\
{								\
	va_list ap;						\
	uintptr_t arg;						\
								\
	R();							\
	va_start(ap, cmd);					\
	arg = va_arg(ap, uintptr_t);				\
	va_end(ap);						\
	return call(fd, cmd, arg);				\
}

FCNTL(fcntl, usor_fcntl)
FCNTL(fcntl64, usor_fcntl64)

#if TIME32_ABI
/* _TIME_BITS=64's name of fcntl64 (F_GETOWN_EX & co. are the same). */
EXPORT int __fcntl_time64(int fd, int cmd, ...) __attribute__((alias("fcntl64")));
#endif

/* R of a stat call on FD that filled *MODE: a connection shows as a socket. */
static int stat_done(int r, int fd, mode_t *mode)
{
	if (r == 0)
		*mode = usor_stat_mode(fd, *mode);
	return r;
}

/* The same for a call on (DFD, PATH, FLAGS): DFD itself if PATH is "". */
static int stat_at_done(int r, int dfd, const char *path, int flags,
			mode_t *mode)
{
	if ((flags & AT_EMPTY_PATH) && empty_path(path))
		return stat_done(r, dfd, mode);
	return r;
}

EXPORT int fstat(int fd, struct stat *st)
{
	R();
	return usor_fstat(fd, st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	R();
	return stat_done(next_fstat64(fd, st), fd, &st->st_mode);
}

EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	R();
	return stat_done(next_fxstat(ver, fd, st), fd, &st->st_mode);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	R();
	return stat_done(next_fxstat64(ver, fd, st), fd, &st->st_mode);
}

EXPORT int fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	R();
	return stat_at_done(next_fstatat(dfd, path, st, flags), dfd, path,
			    flags, &st->st_mode);
}

EXPORT int fstatat64(int dfd, const char *path, struct stat64 *st, int flags)
{
	R();
	return stat_at_done(next_fstatat64(dfd, path, st, flags), dfd, path,
			    flags, &st->st_mode);
}

#if TIME32_ABI
EXPORT int __fstat64_time64(int fd, struct usor_stat_t64 *st)
{
	R();
	return stat_done(next_fstat_t64(fd, st), fd, &st->st_mode);
}

EXPORT int __fstatat64_time64(int dfd, const char *path, struct usor_stat_t64 *st,
			      int flags)
{
	R();
	return stat_at_done(next_fstatat_t64(dfd, path, st, flags), dfd, path,
			    flags, &st->st_mode);
}
#endif

EXPORT int statx(int dfd, const char *path, int flags, unsigned int mask,
		 struct statx *stx)
{
	int r;

	R();
	r = next_statx(dfd, path, flags, mask, stx);
	if (r == 0 && (flags & AT_EMPTY_PATH) && empty_path(path))
		stx->stx_mode = (uint16_t)usor_stat_mode(dfd, stx->stx_mode);
	return r;
}
