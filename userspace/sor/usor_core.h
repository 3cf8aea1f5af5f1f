/* SPDX-License-Identifier: MIT */
/*
 * The interception core of sockets over RDMA: what a front end (the
 * LD_PRELOAD library now, the patched libc later) gives it and calls.
 *
 * The core never calls a libc function that it might itself intercept, nor
 * any libc function at all except through the table below, which the front
 * end fills: the preload library with dlsym(RTLD_NEXT, ...), glibc with its
 * internal syscall wrappers.  The core has no constructors: it starts on
 * first use (thread-safe, no locks that a signal handler could find held).
 *
 * Each usor_* entry point has the semantics of the libc call of the same
 * name, errno included, for every descriptor: descriptors that are not
 * connections over RDMA go to the real call after one table lookup.
 */
#ifndef EUSRV_USOR_CORE_H
#define EUSRV_USOR_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

/*
 * A 32-bit ABI's 64-bit-time timespec, as its time64 calls take it
 * (glibc's struct __timespec64: 32 bits of nanoseconds beside 32 of
 * padding).  sor/abi64-check.c holds it against libc's own.
 */
struct usor_timespec64 {
	int64_t tv_sec;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	int32_t pad;
	int32_t tv_nsec;
#else
	int32_t tv_nsec;
	int32_t pad;
#endif
};

/*
 * The start of a 32-bit ABI's 64-bit-time struct stat, as far as st_mode
 * (glibc's struct __stat64_t64, of __fstat64_time64 & co.), checked the
 * same way.
 */
struct usor_stat_t64 {
	uint64_t st_dev;
	uint64_t st_ino;
	mode_t st_mode;
};

/* The real operations.  Variadic libc calls get fixed signatures here. */
struct usor_real {
	int (*connect)(int fd, const struct sockaddr *addr, socklen_t len);
	int (*bind)(int fd, const struct sockaddr *addr, socklen_t len);
	int (*listen)(int fd, int backlog);
	int (*accept4)(int fd, struct sockaddr *addr, socklen_t *len, int flags);
	int (*close)(int fd);
	int (*close_range)(unsigned int first, unsigned int last, int flags);
	ssize_t (*read)(int fd, void *buf, size_t n);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
	ssize_t (*readv)(int fd, const struct iovec *iov, int iovcnt);
	ssize_t (*writev)(int fd, const struct iovec *iov, int iovcnt);
	ssize_t (*recvfrom)(int fd, void *buf, size_t n, int flags,
			    struct sockaddr *addr, socklen_t *len);
	ssize_t (*sendto)(int fd, const void *buf, size_t n, int flags,
			  const struct sockaddr *addr, socklen_t len);
	ssize_t (*recvmsg)(int fd, struct msghdr *msg, int flags);
	ssize_t (*sendmsg)(int fd, const struct msghdr *msg, int flags);
	ssize_t (*sendfile)(int out, int in, off_t *off, size_t n);
	int (*sendmmsg)(int fd, struct mmsghdr *vec, unsigned int vlen, int flags);
	int (*recvmmsg)(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
			struct timespec *timeout);
	int (*shutdown)(int fd, int how);
	int (*getsockopt)(int fd, int level, int name, void *val, socklen_t *len);
	int (*setsockopt)(int fd, int level, int name, const void *val,
			  socklen_t len);
	int (*getsockname)(int fd, struct sockaddr *addr, socklen_t *len);
	int (*getpeername)(int fd, struct sockaddr *addr, socklen_t *len);
	int (*dup)(int fd);
	int (*dup3)(int fd, int newfd, int flags);	/* flags 0: dup2 */
	int (*fcntl)(int fd, int cmd, uintptr_t arg);
	int (*ioctl)(int fd, unsigned long req, void *arg);
	/* The same, a cancellation point: the blocking waits of recv/send. */
	int (*ioctl_wait)(int fd, unsigned long req, void *arg);
	/*
	 * Around ioctl_wait: the thread holds reference C meanwhile; if it
	 * exits in the wait (cancelled), call usor_wait_abandoned(C) then.
	 */
	void (*wait_begin)(void *c);
	void (*wait_end)(void);
	int (*open)(const char *path, int flags);
	int (*fstat)(int fd, struct stat *st);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*clock_gettime)(clockid_t clk, struct timespec *ts);
	const char *(*getenv)(const char *name);
	int (*raise)(int sig);
	int (*sched_yield)(void);
	pid_t (*gettid)(void);	/* cheap: the ring locks ask it every time */
	pid_t (*getpid)(void);	/* the kernel's answer, never a cached one */
	/* A new socket (opts.c answers some options with one made for it). */
	int (*socket)(int domain, int type, int protocol);
	/*
	 * The large-file and 64-bit-time calls, for the usor_*64 entry
	 * points below (a front end that has none of those needs none of
	 * these).  On a 64-bit ABI the first three are the calls above.
	 */
	int (*fcntl64)(int fd, int cmd, uintptr_t arg);
	ssize_t (*pread64)(int fd, void *buf, size_t n, int64_t off);
	ssize_t (*sendfile64)(int out, int in, int64_t *off, size_t n);
	ssize_t (*recvmsg64)(int fd, struct msghdr *msg, int flags);
	int (*recvmmsg64)(int fd, struct mmsghdr *vec, unsigned int vlen,
			  int flags, struct usor_timespec64 *timeout);
};

/*
 * Hand the core its real operations; the table must stay valid for ever.
 * Called once by the front end before any other call (may be called again
 * with the same table).
 */
void usor_set_real(const struct usor_real *real);

/* Fork hooks (pthread_atfork in the preload library, fork() in libc). */
void usor_fork_prepare(void);
void usor_fork_parent(void);
void usor_fork_child(void);

/* Intercepted calls. */
int usor_connect(int fd, const struct sockaddr *addr, socklen_t len);
int usor_listen(int fd, int backlog);
int usor_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int usor_close(int fd);
int usor_close_range(unsigned int first, unsigned int last, int flags);
/* closefrom(LOW) is about to close LOW and up (it cannot fail). */
void usor_closefrom_before(int low);
int usor_dup(int fd);
int usor_dup3(int fd, int newfd, int flags);
int usor_dup2(int fd, int newfd);
int usor_fcntl(int fd, int cmd, uintptr_t arg);
ssize_t usor_read(int fd, void *buf, size_t n);
ssize_t usor_write(int fd, const void *buf, size_t n);
ssize_t usor_readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t usor_writev(int fd, const struct iovec *iov, int iovcnt);
ssize_t usor_recvfrom(int fd, void *buf, size_t n, int flags,
		     struct sockaddr *addr, socklen_t *len);
ssize_t usor_sendto(int fd, const void *buf, size_t n, int flags,
		   const struct sockaddr *addr, socklen_t len);
ssize_t usor_recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t usor_sendmsg(int fd, const struct msghdr *msg, int flags);
int usor_sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags);
int usor_recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		 struct timespec *timeout);
ssize_t usor_sendfile(int out, int in, off_t *off, size_t n);
int usor_shutdown(int fd, int how);
int usor_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int usor_setsockopt(int fd, int level, int name, const void *val,
		   socklen_t len);
int usor_getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int usor_getpeername(int fd, struct sockaddr *addr, socklen_t *len);
int usor_fstat(int fd, struct stat *st);
/*
 * The same calls under their large-file names (fcntl64: struct flock64;
 * sendfile64: a 64-bit offset) and, on a 32-bit ABI, the 64-bit-time
 * ones (__recvmsg64: its control messages; __recvmmsg64: its timeout).
 */
int usor_fcntl64(int fd, int cmd, uintptr_t arg);
ssize_t usor_sendfile64(int out, int in, int64_t *off, size_t n);
ssize_t usor_recvmsg64(int fd, struct msghdr *msg, int flags);
int usor_recvmmsg64(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		    struct usor_timespec64 *timeout);

/* Whether FD is a connection over RDMA in this process. */
int usor_is_conn(int fd);
/* The st_mode that fstat & co. report for FD, given the real one. */
mode_t usor_stat_mode(int fd, mode_t mode);

/* A thread cancelled in a wait (usor_real.wait_begin) has exited. */
void usor_wait_abandoned(void *c);

#endif /* EUSRV_USOR_CORE_H */
