#!/bin/sh
# Install every Debian package the project needs; a no-op when all are there.
set -eu

pkgs="build-essential gcc make pkg-config qemu-system-x86 qemu-utils
busybox-static linux-headers-amd64 kmod cpio iproute2 procps psmisc
sparse cppcheck util-linux coreutils iputils-ping
linux-source-6.1 xz-utils dt-schema device-tree-compiler python3-yaml
flex bison bc libssl-dev python3 gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu"

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
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
