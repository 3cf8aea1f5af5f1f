# eusrv: sockets over RDMA, a shared NIC and a virtual EUROSERVER board.
#
#   make          build everything into build/
#   make deps     install the Debian packages the project needs (idempotent)
#   make check    run every test; ends with "N passed, N failed"
#   make run      boot a two-node virtual board and show a mailbox round trip
#   make bench    measure the board's transports side by side (tables)
#   make kunit    build the KUnit suites into a UML kernel (cached) and run them
#   make clean    remove build products

TOP	:= $(abspath .)
BUILD	:= $(TOP)/build
export TOP BUILD

SUBDIRS	:= qemu kmod userspace

.PHONY: all deps check run bench kunit clean $(SUBDIRS)

all: $(SUBDIRS)

$(SUBDIRS):
	$(MAKE) -C $@

deps:
	sh tests/deps.sh

check: deps all
	tests/run

run: deps all
	qemu/run-demo

bench: deps all
	userspace/bench/run-bench

kunit: deps
	tests/kunit/run

clean:
	for d in $(SUBDIRS); do $(MAKE) -C $$d clean; done
	rm -rf $(BUILD)
