#!/bin/sh
# Print the directory holding the node kernel, fetching it first if needed.
#
# Nodes boot Debian's own kernel: the linux-image package whose ABI matches
# the installed linux-headers-amd64 (what the modules are built against).
# It is unpacked, with depmod run, under $EUSRV_CACHE/kernel/<abi>/.  Next to
# the compressed boot/vmlinuz-<abi>, boot/vmlinux-<abi> is the same kernel
# uncompressed: QEMU starts it directly at its PVH entry point, which spares
# every node the BIOS real-mode boot and the xz decompression (~4 s of TCG).
#
# fetch-kernel.sh armhf|arm64: the same for ARM nodes (fetch-kernel-arm.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-x86_64} in
x86_64) ;;
armhf | arm64) exec "$here/fetch-kernel-arm.sh" "$1" ;;
*)
	echo "fetch-kernel: no node kernel for architecture '$1'" >&2
	exit 2
	;;
esac
. "$here/../../tests/lib/progress.sh"

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
# Whole seconds apt-get may take to download the package.
DOWNLOAD_TIMEOUT=600
# Seconds to wait for another launcher that is filling the same cache.
LOCK_TIMEOUT=900
# ELF note type of the PVH 32-bit entry point (XEN_ELFNOTE_PHYS32_ENTRY).
PVH_NOTE=0x00000012

# shellcheck source=qemu/guest/x86-abi.sh
. "$here/x86-abi.sh"
abi=$(x86_abi) || exit 1
dir=$cache/kernel/$abi
vmlinuz=$dir/boot/vmlinuz-$abi
vmlinux=$dir/boot/vmlinux-$abi
if [ -f "$dir/.complete" ] && [ -f "$dir/.pvh-checked" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache/kernel"
exec 9>"$dir.lock"
flock -w "$LOCK_TIMEOUT" 9 || {
	echo "fetch-kernel: $dir.lock still held after $LOCK_TIMEOUT s" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'progress_stop; rm -rf "$tmp"' EXIT

if [ ! -f "$dir/.complete" ]; then
	echo "fetch-kernel: downloading linux-image-$abi" >&2
	# Progress: the bytes in $tmp against the package's size.
	size=$(apt-get --print-uris download "linux-image-$abi" 2>/dev/null |
		awk 'NR == 1 { print $3 }') || size=
	progress_start "fetch-kernel: downloading linux-image-$abi" "$size" bytes \
		"progress_bytes '$tmp'"
	(cd "$tmp" && timeout "$DOWNLOAD_TIMEOUT" apt-get download -q \
		"linux-image-$abi" >"$tmp/apt.log" 2>&1) || {
		progress_stop
		echo "fetch-kernel: apt-get download linux-image-$abi failed:" >&2
		tail -n 5 "$tmp/apt.log" >&2
		exit 1
	}
	progress_stop
	rm -rf "$dir"
	mkdir -p "$dir"
	size=$(dpkg-deb -f "$tmp"/linux-image-*.deb Installed-Size 2>/dev/null) || size=
	progress_start "fetch-kernel: unpacking linux-image-$abi" "$((${size:-0} * 1024))" bytes \
		"progress_bytes '$dir'"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$dir"
	progress_stop
	depmod -b "$dir" "$abi"
	echo "$abi" >"$dir/abi"
	touch "$dir/.complete"
	rm -f "$dir/.pvh-checked"
fi

# The bzImage header says where the compressed kernel is: setup sectors at
# 0x1f1 (0 means 4), payload offset and length at 0x248/0x24c, relative to
# the protected-mode code that follows the setup sectors.
if [ ! -f "$dir/.pvh-checked" ]; then
	le32() {	# le32 FILE OFFSET
		od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '
	}
	sects=$(od -An -t u1 -j $((0x1f1)) -N 1 "$vmlinuz" | tr -d ' ')
	[ "$sects" -eq 0 ] && sects=4
	off=$(((sects + 1) * 512 + $(le32 "$vmlinuz" $((0x248)))))
	len=$(le32 "$vmlinuz" $((0x24c)))
	tail -c +$((off + 1)) "$vmlinuz" | head -c "$len" >"$tmp/payload"
	# The build appends the uncompressed size to the payload.
	size=$(le32 "$tmp/payload" $((len - 4)))
	magic=$(od -An -t x1 -N 4 "$tmp/payload" | tr -d ' ')
	case $magic in
	fd377a58) unpack="xz -dc --single-stream" ;;
	1f8b*) unpack="gzip -dc" ;;
	28b52ffd) unpack="zstd -dcq" ;;
	*) unpack= ;;
	esac
	rm -f "$vmlinux"
	# The decompressors may complain about that size after the stream;
	# what counts is an image of the right size with a PVH entry point.
	[ -z "$unpack" ] || $unpack <"$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || true
	if [ -s "$tmp/vmlinux" ] && [ "$(stat -c %s "$tmp/vmlinux")" = "$size" ] &&
		readelf -n "$tmp/vmlinux" 2>/dev/null | grep -q "$PVH_NOTE"; then
		mv "$tmp/vmlinux" "$vmlinux"
	fi
	[ -f "$vmlinux" ] ||
		echo "fetch-kernel: no PVH-bootable vmlinux in $vmlinuz; nodes boot the bzImage (slower)" >&2
	touch "$dir/.pvh-checked"
fi
echo "$dir"
