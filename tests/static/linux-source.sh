#!/bin/sh
# Print the directory of Debian's linux-source-6.1 tree (unpacked from the
# installed package's tarball), unpacking it first if needed.  Cached under
# $EUSRV_CACHE keyed by the package version; only the parts a caller names
# (default: checkpatch's files, or "all" for the whole tree) are unpacked.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/progress.sh"

cache=${EUSRV_CACHE:-$HOME/.cache/eusrv}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || {
	echo "linux-source: $tarball missing (make deps)" >&2
	exit 1
}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
dir=$cache/linux-source-$ver
parts=${*:-scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch}

# unpack [MEMBER...]: tar -x of the tarball (all of it, or the members) into
# $dir.  Even a few members take the whole archive to find: progress is the
# archive's bytes read (tar's checkpoint number, every 1000 records of 10 KiB,
# in a file) against its uncompressed size.
unpack() {
	ck=$(mktemp)
	trap 'progress_stop; rm -f "$ck"' EXIT
	progress_start "linux-source: unpacking $tarball" \
		"$(xz --robot --list "$tarball" | awk '$1 == "totals" { print $5 }')" bytes \
		"echo \$(((\$(cat '$ck' 2>/dev/null) + 0) * 10240))"
	# shellcheck disable=SC2016 # (expanded by tar's shell)
	PROGRESS_CK=$ck tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		--checkpoint=1000 --checkpoint-action='exec=echo $TAR_CHECKPOINT >"$PROGRESS_CK"' \
		"$@" || { rc=$?; progress_stop; return $rc; }
	progress_stop
}

# "all": the whole tree, e.g. to configure and prepare kernels from it.
# Callers may run at the same time: one unpacks, the others wait.
if [ "$parts" = all ]; then
	if [ ! -f "$dir/.unpacked-all" ]; then
		mkdir -p "$dir"
		(
			flock -w 1800 8 || exit 1
			[ -f "$dir/.unpacked-all" ] && exit 0
			unpack &&
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
	unpack $missing
fi
echo "$dir"
