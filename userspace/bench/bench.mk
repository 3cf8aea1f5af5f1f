# Benchmark programs (included by ../Makefile).
BENCH_LIB	:= bench/bench_net.c bench/bench_net.h lib/io_util.c lib/io_util.h
BENCH_BINS	:= $(BUILD)/bin/eusrv-pingpong $(BUILD)/bin/eusrv-stream
# The peers make bench compares with (docs/performance.md): SMC-R through
# eusrv-smc-run (libeusrv-smc.so, eusrv-smc-setup), rsockets through
# eusrv-rsocket-run.
PEER_BINS	:= $(BUILD)/bin/eusrv-smc-setup $(BUILD)/bin/eusrv-smc-run \
		   $(BUILD)/bin/eusrv-rsocket-run $(BUILD)/lib/libeusrv-smc.so
# eusrv-rdma-qpstate needs libibverbs' headers (libibverbs-dev, make deps-bench);
# without them it is left out and make bench says so.
ifneq ($(wildcard /usr/include/infiniband/verbs.h),)
PEER_BINS	+= $(BUILD)/bin/eusrv-rdma-qpstate
endif
BINS		+= $(BENCH_BINS) $(PEER_BINS)

$(BUILD)/bin/eusrv-%: bench/eusrv-%.c $(BENCH_LIB) | $(BUILD)/bin
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) $(LDFLAGS) -Ilib -o $@ $< bench/bench_net.c lib/io_util.c

$(BUILD)/bin/eusrv-smc-setup: bench/eusrv-smc-setup.c | $(BUILD)/bin
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(BUILD)/bin/eusrv-rdma-qpstate: bench/eusrv-rdma-qpstate.c | $(BUILD)/bin
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -libverbs

$(BUILD)/bin/eusrv-smc-run $(BUILD)/bin/eusrv-rsocket-run: $(BUILD)/bin/%: bench/% | $(BUILD)/bin
	install -m 0755 $< $@

$(BUILD)/lib/libeusrv-smc.so: bench/smc-preload.c | $(BUILD)/lib
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) -fPIC -shared -fvisibility=hidden \
		-Wl,-z,defs $(LDFLAGS) -o $@ $< -ldl
