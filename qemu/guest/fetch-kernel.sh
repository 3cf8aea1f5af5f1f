#!/bin/sh
# Print the directory holding the node kernel, fetching it first if needed.
#
# Nodes boot Debian's own kernel: the linux-image package whose ABI matches
# the installed linux-headers-amd64 (what the modules are built against).
# It is unpacked, with depmod run, under $EUSRV_CACHE/kernel/<abi>/.
set -eu

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
	echo "fetch-kernel: linux-headers-amd64 is not installed (make deps)" >&2
	exit 1
}
# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> 6.1.0-56-amd64
abi=$(printf '%s\n' "$dep" | sed -n 's/.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
[ -n "$abi" ] || {
	echo "fetch-kernel: cannot tell the kernel ABI from '$dep'" >&2
	exit 1
}
dir=$cache/kernel/$abi
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-kernel: downloading linux-image-$abi" >&2
(cd "$tmp" && timeout 600 apt-get download -q "linux-image-$abi" >/dev/null 2>&1) || {
	echo "fetch-kernel: apt-get download linux-image-$abi failed" >&2
	exit 1
}
rm -rf "$dir"
mkdir -p "$dir"
dpkg-deb -x "$tmp"/linux-image-*.deb "$dir"
depmod -b "$dir" "$abi"
echo "$abi" >"$dir/abi"
touch "$dir/.complete"
echo "$dir"
