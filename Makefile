# eusrv: sockets over RDMA, a shared NIC and a virtual EUROSERVER board.
#
#   make          build everything into build/
#   make deps     install the Debian packages the project needs (idempotent)
#   make check    run every test; ends with "N passed, N failed, N skipped"
#   make armhf    cross-build what 32-bit ARM nodes run into build/armhf
#   make arm64    the same for 64-bit ARM nodes, into build/arm64
#   make check-arm  the board suites that pass on armhf nodes (check-arm64: arm64)
#   make check-mixed  board suites on an x86_64 node beside an armhf one
#   make run      boot a two-node virtual board and show a mailbox round trip
#   make bench    measure the board's transports side by side (tables)
#   make fuzz     the sockets-over-RDMA driver under random use by nobody
#                 for FUZZ_SECONDS (1800; FUZZ_SEED=N replays a run)
#   make kunit    build the KUnit suites into a UML kernel (cached) and run them
#   make glibc    build the glibc with sockets over RDMA (cached; docs/glibc.md)
#   make glibc-armhf, glibc-arm64  the same for ARM nodes
#   make clean    remove build products

TOP	:= $(abspath .)
BUILD	:= $(TOP)/build
export TOP BUILD

SUBDIRS	:= qemu kmod userspace

.PHONY: all deps deps-bench check check-arm check-arm64 check-mixed armhf arm64 run bench fuzz kunit glibc glibc-unpatched glibc-armhf glibc-arm64 clean $(SUBDIRS)

all: $(SUBDIRS)

$(SUBDIRS):
	$(MAKE) -C $@

deps:
	sh tests/deps.sh

# What only make bench's peers need (rsockets over Soft-RoCE).
deps-bench:
	sh userspace/bench/peers-deps.sh

check: deps all glibc glibc-unpatched
	tests/run

# Nodes of another ISA (qemu/board start --arch=armhf, arm64): the modules
# against Debian's armmp (arm64) kernel (fetched and cached with its headers), the node
# agent and the tools, with Debian's cross compiler.
armhf: deps all
	qemu/guest/cross-build.sh armhf

arm64: deps all
	qemu/guest/cross-build.sh arm64

# The board suites on ARM nodes (TCG), outside `make check` (about 45
# minutes each, 20-25 of them suite 70): those that pass there.  Suite 20
# not on armhf: its point of node1's engine message refused by node3's
# full FIFO failed in 2 of 4 runs there (development.md); 76 and 77's
# second half are x86's.  The outside host of 50 and 80 is an x86 PC on
# every board.  The first run also fetches the
# kernel and builds the root file system (a few minutes, cached in
# ~/.cache/eusrv).
ARM_COMMON_SUITES := tests/board/10-two-nodes.sh tests/board/15-memdebug.sh \
	tests/board/30-node-dies.sh tests/board/40-cdma.sh \
	tests/board/50-outside.sh tests/board/80-nic.sh \
	tests/board/60-sor-driver.sh tests/board/65-sor-fuzz.sh \
	tests/board/66-sor-rogue.sh tests/board/70-sor-apps.sh \
	tests/board/78-sor-crossings.sh
ARM_SUITES := $(ARM_COMMON_SUITES) tests/board/75-sor-apps-libc.sh
ARM64_SUITES := $(ARM_SUITES) tests/board/20-four-nodes.sh
check-arm: deps all armhf glibc-armhf
	EUSRV_ARCH=armhf tests/run $(ARM_SUITES)

check-arm64: deps all arm64 glibc-arm64
	EUSRV_ARCH=arm64 tests/run $(ARM64_SUITES)

# Boards of mixed ISAs, node0 x86_64 and node1 armhf (16-21 minutes, 10
# of them the application suite 70), then suite 60 again the other way
# round (its clients run on node0; 2-4 minutes): the wire formats (mailbox
# messages, CDMA descriptors, the sockets-over-RDMA rings and handshakes)
# must not depend on a node's word size or RAM base.
MIXED_SUITES := tests/board/10-two-nodes.sh tests/board/40-cdma.sh \
	tests/board/60-sor-driver.sh tests/board/70-sor-apps.sh
check-mixed: deps all armhf
	EUSRV_ARCH=x86_64,armhf tests/run $(MIXED_SUITES)
	EUSRV_ARCH=armhf,x86_64 tests/run tests/board/60-sor-driver.sh

run: deps all
	qemu/run-demo

bench: deps deps-bench all
	userspace/bench/run-bench

# The board suite tests/board/65-sor-fuzz.sh, longer than `make check` runs
# it (120 s), and outside tests/run, whose suites stop at 30 minutes.
FUZZ_SECONDS ?= 1800
fuzz: deps all
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/board/65-sor-fuzz.sh

kunit: deps
	tests/kunit/run

# Debian's glibc 2.36 with glibc-patches/series (and without it, for the
# comparison of glibc's own tests), cached in ~/.cache/eusrv/glibc by the
# hash of their inputs: a quarter of an hour each the first time.
glibc: deps
	glibc-patches/build

glibc-unpatched: deps
	glibc-patches/build --unpatched

# The patched glibc for ARM nodes (qemu/board start --arch=armhf
# --libc=patched), cross-built with Debian's compiler for that ISA.
glibc-armhf: deps
	glibc-patches/build --arch=armhf

glibc-arm64: deps
	glibc-patches/build --arch=arm64

clean:
	for d in $(SUBDIRS); do $(MAKE) -C $$d clean; done
	rm -rf $(BUILD)
