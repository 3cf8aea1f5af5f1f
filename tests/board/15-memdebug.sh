#!/bin/bash
# The nodes' kernel memory debugging (qemu/board start, MEMDEBUG), on by
# default for every suite: the nodes boot with it (slab caches red-zoned,
# poisoned and checked, the kmalloc caches recording their users, page
# poisoning), and what it finds is kernel trouble that fails the command
# (qemu/board exec: status 125) with the report named.  Free memory of a
# running node is corrupted through its RAM file (progs/ram-poke.c): a
# free slab object, found when node1 validates its caches, and free pages,
# found when node0 allocates them.  The trouble is this suite's doing
# (trouble_expected); tests/board/selftest checks that anything else fails
# a suite.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
board_suite_begin
DIR=${EUSRV_BOARD_DIR:-/dev/shm/eusrv-board}

if [ "${EUSRV_MEMDEBUG:-1}" = 0 ]; then
	echo "1..0 # SKIP the memory debugging is off (EUSRV_MEMDEBUG=0)"
	exit 0
fi
build_host_prog ram-poke
board_up "2 nodes boot" -n 2

for n in node0 node1; do
	check "$n: booted with slub_debug and page_poison" \
		on $n 'grep -q "slub_debug=.*page_poison=1" /proc/cmdline'
done
# Every cache is checked; the kmalloc caches (the drivers' memory) also
# record who allocated and freed each object.
# kmalloc-64; arm64's 6.1 has no kmalloc cache below 128 bytes (its DMA
# alignment).
kcache=kmalloc-64
[ "$(node_isa node0)" = arm64 ] && kcache=kmalloc-128
check "node0: $kcache red-zoned, poisoned, checked, its users recorded" \
	on node0 "cd /sys/kernel/slab/$kcache &&"'
		[ "$(cat red_zone poison sanity_checks store_user)" = "$(printf "1\n1\n1\n1")" ]'
check "node0: dentry red-zoned, poisoned, checked" \
	on node0 'cd /sys/kernel/slab/dentry &&
		[ "$(cat red_zone poison sanity_checks store_user)" = "$(printf "1\n1\n1\n0")" ]'
check "node0: page poisoning on" \
	on node0 'dmesg | grep -q "CONFIG_PAGE_POISONING is on"'

# poked NAME NODE PATTERN MODE CMD: ram-poke MODE corrupts free memory of
# NODE, CMD on NODE then meets it: CMD's exec fails with 125, naming
# NODE's report (PATTERN).
poked() {
	local name=$1 n=$2 pat=$3 mode=$4 cmd=$5 got out rc
	if ! got=$("$prog" "$mode" "$DIR/$n.ram" "${POKES:-20}" 2>&1); then
		not_ok "$name # ram-poke $mode: $got"
		return
	fi
	out=$(on "$n" "$cmd" 2>&1)
	rc=$?
	if [ $rc -eq 125 ] && printf '%s\n' "$out" | grep -Eq "^board: $n kernel: .*$pat"; then
		ok "$name ($got corrupted): exec fails with 125, the report named"
	else
		not_ok "$name ($got corrupted) # exec status $rc"
	fi
	diag "$(printf '%s\n' "$out" | grep -E "^board: $n kernel: .*$pat" | head -n 3)"
}
poked "node1: a free slab object overwritten" node1 \
	'BUG [^ ]+ \(Tainted: [^)]*\): Poison overwritten' objects \
	'for f in /sys/kernel/slab/*/validate; do echo 1 >"$f"; done'
POKES=2000 poked "node0: free pages overwritten" node0 \
	'pagealloc: (memory corruption|single bit error)' pages \
	'dd if=/dev/zero of=/tmp/fill bs=1M count=400 2>/dev/null; rm -f /tmp/fill'
trouble_expected node0 node1
# A report, not a crash: the nodes go on (every command now fails with 125).
for n in node0 node1; do
	out=$(on $n 'echo alive' 2>/dev/null)
	if [ "$out" = alive ]; then
		ok "$n runs on after the reports"
	else
		not_ok "$n runs on after the reports # $out"
	fi
done

out=$(board trouble 2>&1)
if [ $? -eq 125 ] && printf '%s\n' "$out" | grep -q "^  node1| .*First byte 0x0 instead of 0x6b"; then
	ok "qemu/board trouble: node1's first report in full"
else
	not_ok "qemu/board trouble: node1's first report in full"
	diag "$(printf '%s\n' "$out" | head -n 40)"
fi

check "board stop" board stop
tap_done
