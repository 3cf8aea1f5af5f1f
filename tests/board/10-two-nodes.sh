#!/bin/bash
# Two nodes: boot, modules, management network, mailbox ping-pong with every
# message checked, a flood that overflows a FIFO, module unload and reload.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
board_suite_begin

board_up "2 nodes boot" -n 2

for n in node0 node1; do
	check "$n: eusrv modules loaded" \
		on $n 'grep -q "^eusrv_mbox " /proc/modules && grep -q "^eusrv_board " /proc/modules'
	check "$n: mailbox bound to the ivshmem device" \
		on $n 'ls /sys/bus/platform/drivers/eusrv-mbox/ | grep -q eusrv-mbox'
done
check "node0 reaches node1 by name on the management network" \
	on node0 ping -c 1 -W 5 node1

# 100,000 round trips, each reply checked against its request.
out=$(on node0 eusrv-mbox ping 1 -c 100000 2>&1)
rc=$?
diag "$out"
if [ $rc -eq 0 ] && [ "$(kv count "$out")" = 100000 ] &&
	[ "$(kv errors "$out")" = 0 ]; then
	ok "ping-pong node0 -> node1: 100000 messages, all checked"
else
	not_ok "ping-pong node0 -> node1 # rc=$rc"
fi
check "ping-pong node1 -> node0" on node1 eusrv-mbox ping 0 -c 2000

# Flood node1 while it stops draining its FIFO now and then: the FIFO fills,
# refuses node0's stores, node0 keeps them and posts them again when told
# of room, and every message still arrives once, in order.
on node0 eusrv-mbox reset >/dev/null
on node1 eusrv-mbox reset >/dev/null
on node0 eusrv-mbox flood 1 -c 200000 >"$BUILD/flood.out" 2>&1 &
fpid=$!
for _ in 1 2 3 4 5; do
	on node1 eusrv-mbox pause 150 >/dev/null
	sleep 0.3
done
wait $fpid
frc=$?
fout=$(cat "$BUILD/flood.out")
diag "$fout"
rx=$(on node1 eusrv-mbox stats)
tx=$(on node0 eusrv-mbox stats)
seq=$(printf '%s\n' "$rx" | grep '^seq src=0 ')
diag "$seq"
if [ $frc -eq 0 ] && [ "$(kv failed "$fout")" = 0 ] &&
	[ "$(kv received "$seq")" = 200000 ] && [ "$(kv dup "$seq")" = 0 ] &&
	[ "$(kv gap "$seq")" = 0 ]; then
	ok "flood: 200000 messages, none lost or duplicated"
else
	not_ok "flood: 200000 messages, none lost or duplicated"
fi
full=$(printf '%s\n' "$rx" | sed -n 's/^full_cnt=//p')
diag "receiver full_cnt=$full; sender: $(printf '%s\n' "$tx" |
	grep -E '^(tx_busy_cnt|room_cnt|tx_refused|tx_held|tx_resent|rooms|backlog|tx_wait_cnt|tx_full)=' | tr '\n' ' ')"
if [ "${full:-0}" -gt 0 ] && [ "$(kv tx_busy_cnt "$tx")" -gt 0 ] &&
	[ "$(kv tx_refused "$tx")" -gt 0 ] && [ "$(kv tx_resent "$tx")" -gt 0 ] &&
	[ "$(kv rooms "$tx")" -gt 0 ]; then
	ok "flood: the overflow is visible (FIFO full events, refused stores resent on room)"
else
	not_ok "flood: the overflow is visible"
fi
if [ "$(kv backlog "$tx")" = 0 ] && [ "$(kv tx_wait_cnt "$tx")" = 0 ] &&
	[ "$(kv tx_full "$tx")" = 0 ]; then
	ok "flood: no store waited or timed out, nothing left kept"
else
	not_ok "flood: no store waited or timed out, nothing left kept"
fi

# Kept messages go out by themselves: node1 stops draining, node0 queues
# 180 messages and returns at once (64 fill the FIFO, the rest are refused
# and kept).  Once node1 drains, the room event posts what the outbound
# queue takes; the rest must follow as it empties, with no sender waiting
# and nothing else sent.
on node0 eusrv-mbox reset >/dev/null
on node1 eusrv-mbox reset >/dev/null
on node1 eusrv-mbox pause 1000 >/dev/null
fout=$(on node0 eusrv-mbox flood 1 -c 180 --no-flush 2>&1)
diag "$fout"
for _ in $(seq 50); do
	seq=$(on node1 eusrv-mbox stats | grep '^seq src=0 ')
	[ "$(kv received "$seq")" = 180 ] && break
	sleep 0.2
done
tx=$(on node0 eusrv-mbox stats)
diag "$seq; sender: $(printf '%s\n' "$tx" | grep -E '^(tx_refused|tx_held|tx_resent|backlog)=' | tr '\n' ' ')"
if [ "$(kv received "$seq")" = 180 ] && [ "$(kv gap "$seq")" = 0 ] &&
	[ "$(kv dup "$seq")" = 0 ] && [ "$(kv backlog "$tx")" = 0 ] &&
	[ $(($(kv tx_refused "$tx") + $(kv tx_held "$tx"))) -gt 64 ]; then
	ok "kept messages go out with no sender waiting (180 of 180 in order)"
else
	not_ok "kept messages go out with no sender waiting"
fi

# Bad input from user space: malformed ioctls get their errno, no oops.
build_prog mbox-badioctl
if out=$(on node0 "$prog" 2>&1); then
	ok "malformed ioctls on /dev/eusrv_mbox are refused ($(printf '%s\n' "$out" | grep -c '^ok') cases)"
else
	not_ok "malformed ioctls on /dev/eusrv_mbox are refused"
	printf '%s\n' "$out" | grep -v '^ok' | sed 's/^/# /'
fi

# Unload and reload while idle, in both orders, then traffic again.
kdir=$NODE_BUILD/kmod
# The testers first: they use the drivers' exports.
check "node1: unload and reload the modules" on node1 \
	"rmmod eusrv_sor eusrv_cdma_diag eusrv_mbox_diag && rmmod eusrv_cdma &&
	 rmmod eusrv_board && rmmod eusrv_mbox &&
	 insmod $kdir/eusrv_mbox.ko && insmod $kdir/eusrv_board.ko &&
	 insmod $kdir/eusrv_cdma.ko && insmod $kdir/eusrv_sor.ko &&
	 insmod $kdir/eusrv_mbox_diag.ko && insmod $kdir/eusrv_cdma_diag.ko"
check "node0: unload in the other order and reload" on node0 \
	"rmmod eusrv_sor eusrv_cdma_diag eusrv_mbox_diag && rmmod eusrv_cdma &&
	 rmmod eusrv_mbox && rmmod eusrv_board &&
	 insmod $kdir/eusrv_board.ko && insmod $kdir/eusrv_mbox.ko &&
	 insmod $kdir/eusrv_mbox_diag.ko && insmod $kdir/eusrv_cdma.ko &&
	 insmod $kdir/eusrv_cdma_diag.ko && insmod $kdir/eusrv_sor.ko"
check "ping-pong after reload" on node0 eusrv-mbox ping 1 -c 1000

# The running kernel's names (its System.map is a stub in Debian's package),
# the modules' own aside: none is one of ours (tests/static/module-symbols).
check "node0: no global symbol of the modules is a name of the running kernel" on node0 \
	"awk '\$4 !~ /^\\[eusrv_/ { print \$3 }' /proc/kallsyms | sort -u >/tmp/kernel-names &&
	 test \$(wc -l </tmp/kernel-names) -gt 10000 &&
	 $TOP/tests/static/module-symbols $NODE_BUILD/kmod /tmp/kernel-names"

check "board stop" board stop
tap_done
