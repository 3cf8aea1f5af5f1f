#!/bin/bash
# Two nodes and their AXI CDMA engines: the module binds, checked copies
# both ways from 1 byte to 1 MiB and tens of MB in total with the receiver
# finding nothing wrong, both nodes copying at once, a transfer to an
# undecodable address failed and recovered from, unload and reload.  The
# model runs with --cdma-pg034: the engines take only PG034's interrupt
# acknowledgement (1s written to CDMASR), and count any use of the virtual
# board's own as a programming error (checked at the end).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
board_suite_begin

board_up "2 nodes boot" -n 2 --cdma-pg034

for n in node0 node1; do
	check "$n: eusrv_cdma loaded and bound" \
		on $n 'grep -q "^eusrv_cdma " /proc/modules && ls /sys/bus/platform/drivers/eusrv-cdma/ | grep -q eusrv-cdma && test -c /dev/eusrv_cdma'
	on $n eusrv-cdma reset >/dev/null
done

# copy SRC DST SIZE COUNT [OPTIONS]: checked copies; the output goes to $out.
copy() {
	local src=$1 dst=$2 size=$3 count=$4
	shift 4
	out=$(on node$src eusrv-cdma copy $dst -s $size -c $count "$@" 2>&1)
	local rc=$?
	diag "$out"
	[ $rc -eq 0 ] && [ "$(kv done "$out")" = "$count" ] &&
		[ "$(kv bad "$out")" = 0 ] && [ "$(kv failed "$out")" = 0 ]
}

for size in 1 7 4096 65536 1048576; do
	count=64
	[ $size -eq 1048576 ] && count=40
	if copy 0 1 $size $count; then
		ok "node0 -> node1: $count copies of $size bytes, all checked good"
	else
		not_ok "node0 -> node1: $count copies of $size bytes"
	fi
	if copy 1 0 $size $count; then
		ok "node1 -> node0: $count copies of $size bytes, all checked good"
	else
		not_ok "node1 -> node0: $count copies of $size bytes"
	fi
done
if copy 0 0 100000 50; then
	ok "node0 -> node0 (itself): 50 copies"
else
	not_ok "node0 -> node0 (itself)"
fi

# Throughput, unchecked and checked, 64 MiB each.
for opt in -n ""; do
	if copy 0 1 1048576 64 $opt; then
		ok "node0 -> node1: 64 MiB${opt:+ unchecked}, $(kv mbytes_per_s "$out") MB/s"
	else
		not_ok "node0 -> node1: 64 MiB${opt:+ unchecked}"
	fi
done

# Both nodes at once, more transfers than the ring holds.
on node0 eusrv-cdma copy 1 -s 16384 -c 2000 >"$BUILD/cdma.0" 2>&1 &
p0=$!
on node1 eusrv-cdma copy 0 -s 16384 -c 2000 >"$BUILD/cdma.1" 2>&1 &
p1=$!
wait $p0
r0=$?
wait $p1
r1=$?
diag "$(cat "$BUILD/cdma.0" "$BUILD/cdma.1")"
if [ $r0 -eq 0 ] && [ $r1 -eq 0 ]; then
	ok "both nodes copy at once: 2 x 2000 copies, all checked good"
else
	not_ok "both nodes copy at once # rc=$r0/$r1"
fi

# The receivers counted every copy and nothing bad.
for n in 0 1; do
	st=$(on node$n eusrv-cdma stats)
	bad=$(printf '%s\n' "$st" | sed -n 's/^rx src=.* bad=//p' | sort -n | tail -n 1)
	good=$(printf '%s\n' "$st" | sed -n 's/^rx src=[0-9]* good=\([0-9]*\) .*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	diag "node$n: receiver good=$good worst bad=${bad:-0}"
	if [ "${bad:-0}" = 0 ] && [ "$good" -gt 2000 ]; then
		ok "node$n: the receiver checked $good copies, none bad"
	else
		not_ok "node$n: the receiver found bad copies (bad=${bad:-?} good=$good)"
	fi
done

# An undecodable address: the engine fails it, the driver resets and goes on.
out=$(on node0 eusrv-cdma badaddr 2>&1)
rc=$?
diag "$out"
if [ $rc -eq 0 ] && [ "$(kv error "$out")" = -5 ] && [ "$(kv resets "$out")" -ge 1 ]; then
	ok "bad address: the transfer fails with EIO, the engine was reset"
else
	not_ok "bad address: the transfer fails with EIO, the engine was reset"
fi
st=$(on node0 eusrv-cdma stats)
if [ "$(printf '%s\n' "$st" | sed -n 's/^hw_errors=//p')" -ge 1 ] &&
	[ "$(printf '%s\n' "$st" | sed -n 's/^failed=//p')" = 1 ]; then
	ok "bad address: counted by the engine and the driver"
else
	not_ok "bad address: counted by the engine and the driver"
	printf '%s\n' "$st" | sed 's/^/# /'
fi
if copy 0 1 65536 100; then
	ok "after the bad address: copies work again"
else
	not_ok "after the bad address: copies work again"
fi
check "node1 -> node0 after node0's error" copy 1 0 4096 100

# Malformed requests: their errno, no oops.
check "bad arguments are refused" on node0 \
	'! eusrv-cdma copy 5 -c 1 2>/dev/null && ! eusrv-cdma copy 1 -s 2000000 2>/dev/null && ! eusrv-cdma badaddr -a 0x0f0000000000 2>/dev/null'

# Unload and reload: the board glue (unbinds the engine), then the driver.
kdir=$NODE_BUILD/kmod
check "node1: unload and reload the board glue" on node1 \
	"rmmod eusrv_board && insmod $kdir/eusrv_board.ko && test -d /sys/bus/platform/drivers/eusrv-cdma"
users=$(on node1 "awk '\$1 == \"eusrv_cdma\" { print \$4 }' /proc/modules" | tr ',' ' ' | sed 's/-//')
diag "eusrv_cdma users: ${users:-none}"
check "node1: unload and reload eusrv_cdma (and its users)" on node1 \
	"rmmod eusrv_board && for m in $users; do rmmod \$m || exit 1; done && rmmod eusrv_cdma &&
	 insmod $kdir/eusrv_cdma.ko && for m in $users; do insmod $kdir/\$m.ko || exit 1; done &&
	 insmod $kdir/eusrv_board.ko"
if copy 0 1 65536 50 && copy 1 0 65536 50; then
	ok "copies both ways after the reload"
else
	not_ok "copies both ways after the reload"
fi
# Every interrupt above acknowledged the PG034 way: no programming error.
for n in 0 1; do
	st=$(on node$n eusrv-cdma stats 2>&1)
	if [ "$(kv hw_bad_cnt "$st")" = 0 ]; then
		ok "node$n: interrupts acknowledged as PG034 has it (no programming error counted)"
	else
		not_ok "node$n: interrupts acknowledged as PG034 has it # hw_bad_cnt=$(kv hw_bad_cnt "$st") hw_bad_last=$(kv hw_bad_last "$st")"
	fi
done

check "no kernel warning on either node" on node0 '! dmesg | grep -q "WARNING\|BUG\|Oops"'
check "no kernel warning on node1" on node1 '! dmesg | grep -q "WARNING\|BUG\|Oops"'

check "board stop" board stop
tap_done
