#!/bin/sh
# Print the directory of Debian's linux-source-6.1 tree (unpacked from the
# installed package's tarball), unpacking it first if needed.  Cached under
# $EUSRV_CACHE keyed by the package version; only the parts a caller names
# (default: checkpatch's files, or "all" for the whole tree) are unpacked.
set -eu

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || {
	echo "linux-source: $tarball missing (make deps)" >&2
	exit 1
}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
dir=$cache/linux-source-$ver
parts=${*:-scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch}

# "all": the whole tree, e.g. to configure and prepare kernels from it.
# Callers may run at the same time: one unpacks, the others wait.
if [ "$parts" = all ]; then
	if [ ! -f "$dir/.unpacked-all" ]; then
		mkdir -p "$dir"
		(
			flock -w 1800 8 || exit 1
			[ -f "$dir/.unpacked-all" ] && exit 0
			tar -xJf "$tarball" -C "$dir" --strip-components=1 &&
				touch "$dir/.unpacked-all"
		) 8>"$dir.lock" || {
			echo "linux-source: unpacking $tarball into $dir failed" >&2
			exit 1
		}
	fi
	echo "$dir"
	exit 0
fi

missing=
for p in $parts; do
	[ -e "$dir/$p" ] || missing="$missing linux-source-6.1/$p"
done
if [ -n "$missing" ]; then
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$dir" --strip-components=1 $missing
fi
echo "$dir"
