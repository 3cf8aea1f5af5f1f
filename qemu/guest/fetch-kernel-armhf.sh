#!/bin/sh
# Print the directory holding the armhf node kernel, fetching it first if
# needed (fetch-kernel.sh armhf runs this).
#
# armhf nodes boot Debian's own armmp kernel of the release the x86 nodes
# boot: the same ABI (6.1.0-N) when Debian's armhf index offers it, else the
# one linux-image-armmp depends on (a mirror's armhf index may lag behind
# its amd64 one).  Downloaded with a private apt state under
# $EUSRV_CACHE/apt-armhf (the host's sources, armhf and amd64 indexes; the
# host's own apt configuration is left alone) and unpacked, with depmod run,
# under $EUSRV_CACHE/kernel/<abi>/, together with
#   usr/src/linux-headers-<abi>/  its headers, to build the modules against
#       (ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-), whose scripts are
#       the amd64 linux-kbuild-6.1 of the same version, unpacked beside;
#   bin/busybox  Debian's static armhf busybox, for the node's initramfs.
# Debian's amd64 modpost knows the host's device table layouts only (it
# rejects an ARM module's of_device_id table), so the headers' modpost is
# the one of Debian's linux-source-6.1 prepared for ARM: the tree
# tests/static/cross-build prepares, $EUSRV_CACHE/kbuild-<ver>-arm-*.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/progress.sh"

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
DOWNLOAD_TIMEOUT=900
LOCK_TIMEOUT=900
apt_dir=$cache/apt-armhf

dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
	echo "fetch-kernel: linux-headers-amd64 is not installed (make deps)" >&2
	exit 1
}
# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> 6.1.0-56
base=$(printf '%s\n' "$dep" | sed -n 's/.*linux-headers-\([^ ,]*\)-amd64.*/\1/p')
[ -n "$base" ] || {
	echo "fetch-kernel: cannot tell the kernel ABI from '$dep'" >&2
	exit 1
}
# The last ABI chosen for this x86 ABI, once fetched.
pick=$cache/kernel/armhf-for-$base
if [ -f "$pick" ]; then
	abi=$(cat "$pick")
	if [ -f "$cache/kernel/$abi/.complete" ] && [ -f "$cache/kernel/$abi/.modpost" ]; then
		echo "$cache/kernel/$abi"
		exit 0
	fi
fi

mkdir -p "$cache/kernel" "$apt_dir/lists/partial" "$apt_dir/archives/partial"
exec 9>"$cache/kernel/armhf.lock"
flock -w "$LOCK_TIMEOUT" 9 || {
	echo "fetch-kernel: $cache/kernel/armhf.lock still held after $LOCK_TIMEOUT s" >&2
	exit 1
}
touch "$apt_dir/status"
# apt ARGS...: apt-get/apt-cache with the private state.
set -- -o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
	-o APT::Architectures::=armhf \
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status="$apt_dir/status" \
	-o Dir::Cache="$apt_dir" -o Dir::Cache::archives="$apt_dir/archives" \
	-o Debug::NoLocking=1
echo "fetch-kernel: apt-get update (armhf indexes, in $apt_dir)" >&2
# An index that fails (a mirror in sync) leaves the others usable.
timeout "$DOWNLOAD_TIMEOUT" apt-get "$@" -q update >"$apt_dir/update.log" 2>&1 ||
	grep '^E:' "$apt_dir/update.log" | sed 's/^/fetch-kernel: note: /' >&2

abi=$base-armmp
if ! apt-cache "$@" show "linux-image-$abi:armhf" >/dev/null 2>&1; then
	abi=$(apt-cache "$@" depends linux-image-armmp:armhf 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ :]*-armmp\).*/\1/p' | head -n 1)
	[ -n "$abi" ] || {
		echo "fetch-kernel: no armmp kernel in Debian's armhf index" >&2
		exit 1
	}
	echo "fetch-kernel: note: no linux-image-$base-armmp for armhf; taking $abi" >&2
fi
ver=$(apt-cache "$@" show "linux-image-$abi:armhf" | sed -n 's/^Version: //p' | head -n 1)
dir=$cache/kernel/$abi
hdr=$dir/usr/src/linux-headers-$abi
tmp=$(mktemp -d)
trap 'progress_stop; rm -rf "$tmp"' EXIT

# arm_modpost: put an ARM modpost into the unpacked kbuild tools.
arm_modpost() {
	src=$("$here/../../tests/static/linux-source.sh" all) || {
		echo "fetch-kernel: no linux-source-6.1 (make deps)" >&2
		exit 1
	}
	sver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	obj=$cache/kbuild-$sver-arm-multi_v7_defconfig
	if [ ! -f "$obj/.prepared" ]; then
		echo "fetch-kernel: preparing linux-source-$sver for ARM (modpost)" >&2
		rm -rf "$obj"
		mkdir -p "$obj"
		{ make -s -C "$src" O="$obj" ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- \
			multi_v7_defconfig &&
			make -s -C "$src" O="$obj" ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- \
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
debs="linux-image-$abi:armhf linux-headers-$abi:armhf
linux-headers-${abi%-armmp}-common linux-kbuild-6.1:amd64=$ver busybox-static:armhf"
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
