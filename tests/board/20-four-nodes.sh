#!/bin/bash
# Four nodes: boot, modules, and all-to-all mailbox traffic at once.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
board_suite_begin

N=4
COUNT=5000
board_up "4 nodes boot" -n $N

for i in $(seq 0 $((N - 1))); do
	check "node$i: modules loaded" on node$i 'grep -q "^eusrv_mbox " /proc/modules'
	on node$i eusrv-mbox reset >/dev/null
done
kver=$(on node3 uname -r)
if [ "$kver" = "$(ls /lib/modules | grep -- '-amd64$' | sort -V | tail -n 1)" ]; then
	ok "node3 runs Debian's kernel ($kver)"
else
	not_ok "node3 runs Debian's kernel # got '$kver'"
fi

# Every node floods every other node at the same time.
pids=()
for i in $(seq 0 $((N - 1))); do
	cmd=
	for j in $(seq 0 $((N - 1))); do
		[ "$i" = "$j" ] && continue
		cmd="$cmd eusrv-mbox flood $j -c $COUNT & "
	done
	on node$i "$cmd wait" >"$BUILD/all2all.$i" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
[ $rc -eq 0 ] && ok "all-to-all floods complete" || not_ok "all-to-all floods complete"

for i in $(seq 0 $((N - 1))); do
	stats=$(on node$i eusrv-mbox stats)
	good=1
	for j in $(seq 0 $((N - 1))); do
		[ "$i" = "$j" ] && continue
		line=$(printf '%s\n' "$stats" | grep "^seq src=$j ")
		if [ "$(kv received "$line")" != $COUNT ] ||
			[ "$(kv dup "$line")" != 0 ] || [ "$(kv gap "$line")" != 0 ]; then
			good=0
			diag "node$i from node$j: $line"
		fi
	done
	[ $good = 1 ] && ok "node$i got $COUNT messages from each other node, in order" ||
		not_ok "node$i got $COUNT messages from each other node, in order"
done

# A ping-pong on every pair (both directions happen through the sweep).
for i in $(seq 0 $((N - 1))); do
	j=$(((i + 1) % N))
	check "ping-pong node$i -> node$j" on node$i eusrv-mbox ping $j -c 500
done

check "board stop" board stop
tap_done
