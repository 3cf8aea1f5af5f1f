#!/bin/sh
# fetch-kernel-arm.sh ARCH: print the directory holding the node kernel of
# the Debian architecture ARCH (armhf, arm64), fetching it first if needed
# (fetch-kernel.sh ARCH runs this).
#
# ARM nodes boot Debian's own kernel (armhf: the armmp flavour, arm64: arm64)
# of the release the x86 nodes boot: the same ABI (6.1.0-N) when Debian's
# index for ARCH offers it, else the one linux-image-<flavour> depends on (a
# mirror's index of one architecture may lag behind its amd64 one).
# Downloaded with a private apt state under $EUSRV_CACHE/apt-<arch> (the
# host's sources, the amd64 and ARCH indexes: apt drops a whole source
# when one of its indexes fails; the host's own apt configuration is left
# alone) and unpacked, with depmod run, under
# $EUSRV_CACHE/kernel/<abi>/, together with
#   usr/src/linux-headers-<abi>/  its headers, to build the modules against
#       (ARCH=arm or arm64, CROSS_COMPILE=arm-linux-gnueabihf- or
#       aarch64-linux-gnu-), whose scripts are the amd64 linux-kbuild-6.1
#       of the same version, unpacked beside;
#   bin/busybox  Debian's static busybox of ARCH, for the node's initramfs.
# Debian's amd64 modpost knows the host's device table layouts only (it
# rejects an ARM module's of_device_id table), so the headers' modpost is
# the one of Debian's linux-source-6.1 prepared for the architecture: the
# trees tests/static/cross-build prepares, $EUSRV_CACHE/kbuild-<ver>-arm*-*.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/progress.sh"

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
DOWNLOAD_TIMEOUT=900
LOCK_TIMEOUT=900

arch=${1:-}
case $arch in
armhf) flavour=armmp karch=arm cross=arm-linux-gnueabihf- config=multi_v7_defconfig ;;
arm64) flavour=arm64 karch=arm64 cross=aarch64-linux-gnu- config=defconfig ;;
*)
	echo "fetch-kernel: usage: fetch-kernel-arm.sh armhf|arm64" >&2
	exit 2
	;;
esac
apt_dir=$cache/apt-$arch

# shellcheck source=qemu/guest/x86-abi.sh
. "$here/x86-abi.sh"
base=$(x86_abi) || exit 1
base=${base%-amd64}	# 6.1.0-56
# The last ABI chosen for this x86 ABI, once fetched.
pick=$cache/kernel/$arch-for-$base
if [ -f "$pick" ]; then
	abi=$(cat "$pick")
	if [ -f "$cache/kernel/$abi/.complete" ] && [ -f "$cache/kernel/$abi/.modpost" ]; then
		echo "$cache/kernel/$abi"
		exit 0
	fi
fi

mkdir -p "$cache/kernel" "$apt_dir/lists/partial" "$apt_dir/archives/partial"
exec 9>"$cache/kernel/arm.lock"
flock -w "$LOCK_TIMEOUT" 9 || {
	echo "fetch-kernel: $cache/kernel/arm.lock still held after $LOCK_TIMEOUT s" >&2
	exit 1
}
touch "$apt_dir/status"
# apt ARGS...: apt-get/apt-cache with the private state.
set -- -o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
	-o APT::Architectures::="$arch" \
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status="$apt_dir/status" \
	-o Dir::Cache="$apt_dir" -o Dir::Cache::archives="$apt_dir/archives" \
	-o Debug::NoLocking=1
echo "fetch-kernel: apt-get update (the indexes, in $apt_dir)" >&2
# An index that fails (a mirror in sync) leaves the others usable.
timeout "$DOWNLOAD_TIMEOUT" apt-get "$@" -q update >"$apt_dir/update.log" 2>&1 ||
	grep '^E:' "$apt_dir/update.log" | sed 's/^/fetch-kernel: note: /' >&2

abi=$base-$flavour
if ! apt-cache "$@" show "linux-image-$abi:$arch" >/dev/null 2>&1; then
	abi=$(apt-cache "$@" depends "linux-image-$flavour:$arch" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\([0-9][^ :]*-$flavour\).*/\1/p" | head -n 1)
	[ -n "$abi" ] || {
		echo "fetch-kernel: no $flavour kernel in Debian's $arch index" >&2
		exit 1
	}
	echo "fetch-kernel: note: no linux-image-$base-$flavour for $arch; taking $abi" >&2
fi
ver=$(apt-cache "$@" show "linux-image-$abi:$arch" | sed -n 's/^Version: //p' | head -n 1)
dir=$cache/kernel/$abi
hdr=$dir/usr/src/linux-headers-$abi
tmp=$(mktemp -d)
trap 'progress_stop; rm -rf "$tmp"' EXIT

# arm_modpost: put a modpost for ARCH into the unpacked kbuild tools.
arm_modpost() {
	src=$("$here/../../tests/static/linux-source.sh" all) || {
		echo "fetch-kernel: no linux-source-6.1 (make deps)" >&2
		exit 1
	}
	sver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	obj=$cache/kbuild-$sver-$karch-$config
	if [ ! -f "$obj/.prepared" ]; then
		echo "fetch-kernel: preparing linux-source-$sver for $karch (modpost)" >&2
		rm -rf "$obj"
		mkdir -p "$obj"
		{ make -s -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" "$config" &&
			make -s -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" \
				-j"$(nproc)" modules_prepare; } >"$tmp/prep.log" 2>&1 || {
			echo "fetch-kernel: preparing $obj failed:" >&2
			tail -n 10 "$tmp/prep.log" >&2
			exit 1
		}
		touch "$obj/.prepared"
	fi
	mod=$hdr/scripts/mod
	[ -f "$mod/modpost.debian" ] || mv "$mod/modpost" "$mod/modpost.debian"
	cp "$obj/scripts/mod/modpost" "$mod/modpost"
	touch "$dir/.modpost"
}

if [ -f "$dir/.complete" ]; then
	[ -f "$dir/.modpost" ] || arm_modpost
	echo "$abi" >"$pick"
	echo "$dir"
	exit 0
fi
debs="linux-image-$abi:$arch linux-headers-$abi:$arch
linux-headers-${abi%-"$flavour"}-common linux-kbuild-6.1:amd64=$ver busybox-static:$arch"
# shellcheck disable=SC2086
echo "fetch-kernel: downloading" $debs >&2
# shellcheck disable=SC2086
size=$(apt-get "$@" --print-uris download $debs 2>/dev/null |
	awk '{ s += $3 } END { print s + 0 }') || size=
progress_start "fetch-kernel: downloading linux-image-$abi" "$size" bytes \
	"progress_bytes '$tmp'"
# shellcheck disable=SC2086
(cd "$tmp" && timeout "$DOWNLOAD_TIMEOUT" apt-get "$@" download -q $debs \
	>"$tmp/apt.log" 2>&1) || {
	progress_stop
	echo "fetch-kernel: apt-get download failed:" >&2
	tail -n 5 "$tmp/apt.log" >&2
	exit 1
}
progress_stop
rm -rf "$dir"
mkdir -p "$dir/unpack"
for d in "$tmp"/*.deb; do
	case ${d##*/} in
	busybox-static_*) dpkg-deb -x "$d" "$dir/unpack" ;;
	*) dpkg-deb -x "$d" "$dir" ;;
	esac
done
mkdir -p "$dir/bin"
mv "$dir/unpack/bin/busybox" "$dir/bin/busybox"
rm -rf "$dir/unpack"
# The headers include their common part by its installed path.
sed -i "s|/usr/src/linux-headers-|$dir/usr/src/linux-headers-|" "$hdr/Makefile"
[ -x "$hdr/scripts/basic/fixdep" ] || {
	echo "fetch-kernel: $hdr/scripts: no host kbuild tools" >&2
	exit 1
}
depmod -b "$dir" "$abi"
echo "$abi" >"$dir/abi"
touch "$dir/.complete"
arm_modpost
echo "$abi" >"$pick"
echo "$dir"
