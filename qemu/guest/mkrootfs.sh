#!/bin/sh
# mkrootfs.sh ARCH: print the directory of the root file system that nodes
# of the Debian architecture ARCH (armhf, arm64) boot from, building it first if
# needed.  x86-64 nodes share the host's root; nodes of another ISA cannot,
# so they get a small Debian of their own, made by mmdebstrap from Debian's
# packages (foreign maintainer scripts run through qemu-user-static and
# binfmt_misc).  It is cached as $EUSRV_CACHE/rootfs/<arch>-<key>/, <key>
# the hash of this script (which holds the package list); a rebuild takes a
# few minutes, a cached one nothing.  QEMU exports it read-only over 9p.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/progress.sh"

arch=${1:-}
case $arch in
armhf) qarch=arm ;;
arm64) qarch=aarch64 ;;
*)
	echo "mkrootfs: usage: mkrootfs.sh armhf|arm64" >&2
	exit 2
	;;
esac
cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
# Where Debian's packages come from: the host's mirror of the release.
mirror=${EUSRV_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
# What node-init, the agent, the board suites and the tools need beyond
# Debian's essential set: modules, addresses, ps, ping, nm (the symbol
# check of suite 10), awk, ethtool (the shared NIC's suite 80); then the
# unmodified programs the sockets over RDMA suites run (70: nc, iperf3,
# redis, sockperf, nginx and curl, and python3 for a helper) and the
# servers of make bench (memcached with memaslap, PostgreSQL with
# pgbench), as tests/deps.sh installs them on the host for the x86 nodes.
pkgs="bash kmod iproute2 procps iputils-ping binutils mawk psmisc ethtool
util-linux findutils grep sed coreutils netcat-openbsd
iperf3 redis-server redis-tools sockperf nginx-light curl python3-minimal
memcached libmemcached-tools postgresql"
LOCK_TIMEOUT=1800

key=$(sha256sum <"$0" | cut -c1-16)
dir=$cache/rootfs/$arch-$key
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
command -v mmdebstrap >/dev/null || {
	echo "mkrootfs: mmdebstrap missing (make deps)" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || {
	echo "mkrootfs: building the $arch root file system needs root" >&2
	exit 1
}
mkdir -p "$cache/rootfs"
exec 9>"$dir.lock"
flock -w "$LOCK_TIMEOUT" 9 || {
	echo "mkrootfs: $dir.lock still held after $LOCK_TIMEOUT s" >&2
	exit 1
}
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

# Foreign programs run through QEMU's user mode: its binfmt_misc entry
# (qemu-user-static ships it; no service registers it in a container).
bm=/proc/sys/fs/binfmt_misc
if [ ! -e "$bm/register" ]; then
	mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null || true
fi
if [ ! -e "$bm/qemu-$qarch" ]; then
	conf=/usr/lib/binfmt.d/qemu-$qarch.conf
	[ -f "$conf" ] || {
		echo "mkrootfs: $conf missing (qemu-user-static: make deps)" >&2
		exit 1
	}
	grep -v '^#' "$conf" >"$bm/register" || {
		echo "mkrootfs: cannot register qemu-$qarch with binfmt_misc" >&2
		exit 1
	}
fi

tmp=$dir.tmp
rm -rf "$tmp" "$dir"
trap 'progress_stop; rm -rf "$tmp"' EXIT
log=$cache/rootfs/$arch-$key.log
# Progress: mmdebstrap's log lines (the chroot's /proc makes its size useless).
progress_start "mkrootfs: mmdebstrap $arch" 0 lines "progress_lines '$log' ."
# Documentation and translations are of no use on a node.
# shellcheck disable=SC2086,SC2016
if ! mmdebstrap --mode=root --variant=minbase --architectures="$arch" \
	--include="$(echo $pkgs | tr ' ' ,)" \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
	"$suite" "$tmp" "deb $mirror $suite main" "deb $mirror $suite-updates main" \
	>"$log" 2>&1; then
	progress_stop
	echo "mkrootfs: mmdebstrap failed (the end of $log):" >&2
	tail -n 15 "$log" >&2
	exit 1
fi
progress_stop
touch "$tmp/.complete"
mv "$tmp" "$dir"
echo "$dir"
