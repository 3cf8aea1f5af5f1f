#!/bin/sh
# mkinitramfs.sh KERNEL_DIR: print the path of the node initramfs, building
# it first if needed.  It holds busybox, the modules needed to mount the
# host's root over 9p under an overlay, and the stage-1 init; it is cached
# under $EUSRV_CACHE keyed by the hash of all of those.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
kdir=$1
abi=$(cat "$kdir/abi")
cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
busybox=/bin/busybox
# A kernel of another architecture comes with its own (fetch-kernel-armhf.sh).
[ -x "$kdir/bin/busybox" ] && busybox=$kdir/bin/busybox
[ -x "$busybox" ] || {
	echo "mkinitramfs: $busybox missing (install busybox-static)" >&2
	exit 1
}

# The modules that mount the host root, and phylib's that eusrv_eth needs
# (node-init insmods the project's modules, which resolves no dependency),
# with their dependencies first, in the order modprobe would load them.
wanted="virtio_pci virtio_net 9pnet_virtio 9p overlay libphy mdio_devres"
files=
for m in $wanted; do
	deps=$(modprobe -d "$kdir" -S "$abi" --show-depends "$m") || {
		echo "mkinitramfs: module $m not found in $kdir" >&2
		exit 1
	}
	for f in $(printf '%s\n' "$deps" | sed -n 's/^insmod //p'); do
		case " $files " in *" $f "*) ;; *) files="$files $f" ;; esac
	done
done

# shellcheck disable=SC2086
key=$(cat "$0" "$here/init" "$busybox" $files | sha256sum | cut -c1-16)
out=$cache/initramfs-$abi-$key.cpio.gz
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

root=$(mktemp -d)
tmp=
trap 'rm -rf "$root" ${tmp:+"$tmp"}' EXIT
mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" \
	"$root/dev" "$root/lower" "$root/upper" "$root/newroot"
cp "$busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
chmod 755 "$root/init"
for f in $files; do
	cp "$f" "$root/lib/modules/"
done
for f in $files; do
	basename "$f" .ko
done >"$root/lib/modules/load-order"
mkdir -p "$cache"
# A launcher building the same image at the same time renames the same
# content over it: no lock needed.
tmp=$(mktemp "$out.XXXXXX")
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
echo "$out"
