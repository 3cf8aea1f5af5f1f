# Sockets over RDMA in user space (included by ../Makefile): the preload
# library, the wrapper that uses it, and eusrvctl.
include sor/core.mk
SOR_HDRS	:= $(wildcard sor/*.h) ../kmod/include/uapi/eusrv/sor.h
SOR_LIB		:= $(BUILD)/lib/libeusrv-preload.so
SOR_BINS	:= $(SOR_LIB) $(BUILD)/bin/eusrv-run $(BUILD)/bin/eusrvctl
BINS		+= $(SOR_BINS)
# Defined before ../Makefile's "all": keep that the default goal.
.DEFAULT_GOAL	:= all

# abi64-check.c: the layouts the library spells for a 32-bit ABI's
# 64-bit-time calls, against libc's headers built for them.
$(SOR_LIB): $(SOR_CORE) sor/preload.c sor/abi64-check.c $(SOR_HDRS) sor/core.mk | $(BUILD)/lib
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
		-D_TIME_BITS=64 -fsyntax-only sor/abi64-check.c
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared \
		-fvisibility=hidden -Wl,-z,defs -Wl,-z,now $(LDFLAGS) \
		-o $@ $(SOR_CORE) sor/preload.c -ldl -lpthread

$(BUILD)/bin/eusrv-run: sor/eusrv-run | $(BUILD)/bin
	install -m 0755 $< $@

$(BUILD)/bin/eusrvctl: tools/eusrvctl.c sor/peers.c sor/peers.h $(TOOL_LIB) \
		../kmod/include/uapi/eusrv/sor.h | $(BUILD)/bin
	$(CC) $(EUSRV_CFLAGS) $(CFLAGS) $(LDFLAGS) -Ilib -o $@ $< sor/peers.c lib/tool_util.c

$(BUILD)/lib:
	mkdir -p $@
