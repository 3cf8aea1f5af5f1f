# Benchmark programs (included by ../Makefile).
BENCH_LIB	:= bench/bench_net.c bench/bench_net.h lib/io_util.c lib/io_util.h
BENCH_BINS	:= $(BUILD)/bin/eusrv-pingpong $(BUILD)/bin/eusrv-stream
BINS		+= $(BENCH_BINS)

$(BUILD)/bin/eusrv-%: bench/eusrv-%.c $(BENCH_LIB) | $(BUILD)/bin
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) $(LDFLAGS) -Ilib -o $@ $< bench/bench_net.c lib/io_util.c
