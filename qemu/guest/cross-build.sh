#!/bin/sh
# cross-build.sh ARCH: build what a node of the Debian architecture ARCH
# (armhf, arm64) runs into $BUILD/ARCH (make armhf): the modules against that
# node kernel's headers (fetch-kernel.sh ARCH), the node agent, the tools and
# the benchmark programs, with Debian's cross compiler.  The layout is the
# one of $BUILD for x86 nodes: kmod/*.ko, bin/, lib/.  Incremental: the
# module sources are copied into $BUILD/ARCH/kmod-src (kbuild builds in the
# source directory) only when newer, and make does the rest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$TOP/build}

arch=${1:-}
case $arch in
armhf) karch=arm cross=arm-linux-gnueabihf- ;;
arm64) karch=arm64 cross=aarch64-linux-gnu- ;;
*)
	echo "cross-build: usage: cross-build.sh armhf|arm64" >&2
	exit 2
	;;
esac
command -v "${cross}gcc" >/dev/null || {
	echo "cross-build: ${cross}gcc missing (make deps)" >&2
	exit 1
}
out=$BUILD/$arch
kdir=$("$here/fetch-kernel.sh" "$arch")
abi=$(cat "$kdir/abi")
hdr=$kdir/usr/src/linux-headers-$abi

src=$out/kmod-src
mkdir -p "$src"
cd "$TOP/kmod"
if ! files=$(git ls-files 2>/dev/null) || [ -z "$files" ]; then
	files=$(find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name MODULES \))
fi
printf '%s\n' "$files" | xargs cp -pu --parents -t "$src"
cd "$TOP"
make -s -C "$src" KDIR="$hdr" ARCH="$karch" CROSS_COMPILE="$cross" BUILD="$out"
make -s -C "$TOP/qemu/agent" CC="${cross}gcc" BUILD="$out"
# The programs a node runs (not those of make bench's peers, which need
# the host's libraries), and the preload library with eusrv-run (on armhf
# it also takes the large-file and 64-bit-time calls: preload.c).
make -s -C "$TOP/userspace" CC="${cross}gcc" BUILD="$out" \
	"$out/bin/eusrv-mbox" "$out/bin/eusrv-cdma" "$out/bin/eusrvctl" \
	"$out/bin/eusrv-pingpong" "$out/bin/eusrv-stream" \
	"$out/lib/libeusrv-preload.so" "$out/bin/eusrv-run"
echo "$abi" >"$out/kernel-abi"
