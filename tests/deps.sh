#!/bin/sh
# Install every Debian package the project needs; a no-op when all are there.
set -eu

pkgs="build-essential gcc make pkg-config qemu-system-x86 qemu-utils
busybox-static linux-headers-amd64 kmod cpio iproute2 procps psmisc
sparse cppcheck util-linux coreutils iputils-ping
linux-source-6.1 xz-utils dt-schema device-tree-compiler python3-yaml
flex bison bc libssl-dev python3 gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu
redis-server redis-tools iperf3 sockperf nginx-light curl netcat-openbsd
ethtool wrk memcached libmemcached-tools postgresql gnuplot-nox
glibc-source gawk patch"

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
export DEBIAN_FRONTEND=noninteractive
# The servers (redis, nginx) run only inside the board's nodes: keep their
# packages from starting them on the host.
rc=/usr/sbin/policy-rc.d
if [ ! -e "$rc" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$rc" && chmod +x "$rc"
	trap 'rm -f "$rc"' EXIT
fi
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
