# The interception core's sources, relative to userspace/: the preload
# library (sor.mk), its sanitizer build (tests/host/Makefile) and libc
# (glibc-patches/build) all take the list from here.  A new file here
# also needs its socket/sor-*.c line in glibc-patches/0001.
SOR_CORE	:= sor/peers.c sor/fdtab.c sor/ring.c sor/inaddr.c sor/real.c \
		   sor/conn.c sor/fork.c sor/ctl.c sor/opts.c sor/face.c \
		   sor/pending.c sor/parked.c sor/fdops.c sor/setup.c \
		   sor/sockops.c
