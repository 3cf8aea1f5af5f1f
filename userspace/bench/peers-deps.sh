#!/bin/sh
# The Debian packages of make bench's peers (userspace/bench/peers.sh),
# installed by `make bench` (make deps-bench) through tests/deps.sh.
# librdmacm1: rsockets' librspreload; ibverbs-providers: the user-space
# Soft-RoCE provider; libibverbs-dev: builds eusrv-rdma-qpstate;
# rdmacm-utils: rstream and rping, to check rsockets by hand.  SMC-R needs
# no package: smc-tools is not in Debian bookworm, and eusrv-smc-run and
# eusrv-smc-setup do its work.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$top/tests/deps.sh" librdmacm1 ibverbs-providers libibverbs-dev rdmacm-utils
