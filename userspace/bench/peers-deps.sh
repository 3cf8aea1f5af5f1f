#!/bin/sh
# The Debian packages of make bench's peers (userspace/bench/peers.sh),
# installed by `make bench` (make deps-bench); a no-op when all are there.
# librdmacm1: rsockets' librspreload; ibverbs-providers: the user-space
# Soft-RoCE provider; libibverbs-dev: builds eusrv-rdma-qpstate;
# rdmacm-utils: rstream and rping, to check rsockets by hand.  SMC-R needs
# no package: smc-tools is not in Debian bookworm, and eusrv-smc-run and
# eusrv-smc-setup do its work.
set -eu
pkgs="librdmacm1 ibverbs-providers libibverbs-dev rdmacm-utils"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing (run as root)" >&2
	exit 1
fi
echo "deps: apt-get install$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
