#!/bin/sh
# Install every Debian package the project needs; a no-op when all are there.
#   tests/deps.sh [PACKAGE...]   those packages instead (make deps-bench)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/progress.sh"

pkgs="${*:-build-essential gcc make pkg-config qemu-system-x86 qemu-utils
busybox-static linux-headers-amd64 kmod cpio iproute2 procps psmisc
sparse cppcheck util-linux coreutils iputils-ping
linux-source-6.1 xz-utils dt-schema device-tree-compiler python3-yaml
flex bison bc libssl-dev python3 gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu
qemu-system-arm mmdebstrap qemu-user-static arch-test
redis-server redis-tools iperf3 sockperf nginx-light curl netcat-openbsd
ethtool wrk memcached libmemcached-tools postgresql gnuplot-nox
glibc-source gawk patch gcc-i686-linux-gnu
libc6-dev-i386-cross libc6-dev-armhf-cross libc6-dev-arm64-cross}"

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
# Progress: apt's own (APT::Status-Fd), the last line of which says what it
# does ("dlstatus:3:41.5:Retrieving file 3 of 9", "pmstatus:gcc:62.5:Unpacking
# gcc"), as a percentage and what it is at.
status=$(mktemp)
made_rc=
trap 'progress_stop; rm -f "$status" ${made_rc:+"$made_rc"}' EXIT
apt_status() {
	tail -n 1 "$status" | awk -F: '{
		pct = int($3 + 0)
		what = $1 == "pmstatus" ? "installing" : "downloading"
		sub(/^[^:]*:[^:]*:[^:]*:/, "")
		print pct, what ": " $0
	}'
}
# The servers (redis, nginx) run only inside the board's nodes: keep their
# packages from starting them on the host.
rc=/usr/sbin/policy-rc.d
if [ ! -e "$rc" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$rc" && chmod +x "$rc"
	made_rc=$rc
fi
progress_start "deps: apt-get update" 0 percent apt_status
apt-get update -q -o APT::Status-Fd=3 3>"$status" >/dev/null
# shellcheck disable=SC2086
progress_start "deps: apt-get install ($(echo $missing | wc -w) packages)" 0 percent apt_status
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends -o APT::Status-Fd=3 $missing \
	3>"$status" >/dev/null
progress_stop
