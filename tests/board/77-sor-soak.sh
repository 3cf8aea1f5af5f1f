#!/bin/bash
# Sockets over RDMA under load, on each path (eusrv-run, then the patched
# libc installed in the nodes): no connection may hang, every byte is
# checked.
#
#  - soak: 1,000 back-to-back connections (every other one by a
#    non-blocking connect() that sets up in the background) each echoing 1 MB (sor-test
#    soak); one that takes more than 30 s fails and dumps both nodes'
#    `eusrvctl conns`;
#  - stress: connections ending at random points of the transfer in both
#    directions (close with data in flight, shutdown, SIGKILL, the server
#    closing early), every byte that comes back checked, every child must
#    end (sor-test stress);
#  - the peer forgets a connection (debugfs fault injection): a blocked
#    reader and a blocked writer get ECONNRESET within the protocol's
#    bound (PROBE after 1 s of silence, RST back; docs/protocol.md
#    section 5) -- checked against 10 s, a generous multiple of it, so
#    that a loaded machine does not decide the result;
#  - a NACK request lost on the way (debugfs fault injection) is resent:
#    both ends of the connection end cleanly.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

build_prog sor-test -lpthread
SOAK=${EUSRV_SOAK_CONNS:-1000}
STRESS=${EUSRV_STRESS_CONNS:-200}

# forget_test WHO N: sor-test forgotten N from node1; once it is ready, node0
# forgets its side of the connection.
forget_test() {
	local who=$1 n=$2 id out rc t
	on node1 "${run}$prog forgotten node0 7600 $n >/tmp/forget-$who.log 2>&1 &"
	for t in $(seq 50); do
		on node1 "grep -q ready /tmp/forget-$who.log" >/dev/null 2>&1 && break
		sleep 0.2
	done
	id=$(on node0 eusrvctl conns 2>/dev/null |
		sed -n 's/^rdma id=\([0-9]*\) state=ESTABLISHED local=[^ ]*:7600 .*peer_node=1 .*/\1/p' | head -n 1)
	if [ -z "$id" ]; then
		not_ok "forgotten $who: the server's connection is listed on node0"
		dump_state
		return
	fi
	on node0 'mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug' >/dev/null 2>&1
	on node0 "echo $id > /sys/kernel/debug/eusrv_sor/forget"
	out=""
	for t in $(seq 100); do
		out=$(on node1 "cat /tmp/forget-$who.log" 2>/dev/null)
		case $out in *"ok forgotten"*|*"sor-test"*) break ;; esac
		sleep 0.2
	done
	t=$(printf '%s\n' "$out" | sed -n 's/.* after \([0-9.]*\) s$/\1/p')
	if [ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t < 10) }'; then
		ok "forgotten $who: $(printf '%s\n' "$out" | tail -n 1) (bound 1.5 s + a round trip; allowed 10 s)"
	else
		not_ok "forgotten $who: ECONNRESET within 10 s # $(printf '%s' "$out" | tr '\n' ' ')"
		dump_state
	fi
}

# lost_nack: the next NACK request of each node is lost on the way
# (debugfs drop_nacks); the timer resends it, so both ends of the connection end
# cleanly, with no error in either record, instead of one giving up and
# the other being reset by a probe.  Give-up plus probe take about 4 s;
# the records are read after 8 s.
lost_nack_test() {
	local n r out
	snap
	# Whichever end closes first sends the request: lose one on each.
	for n in node0 node1; do
		on $n 'mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
			echo 1 >/sys/kernel/debug/eusrv_sor/drop_nacks' >/dev/null 2>&1
	done
	if ! out=$(on node1 "${run}$prog integrity node0 7600 100000" 2>&1); then
		not_ok "$libc: lost NACK: the echo # $out"
		return
	fi
	sleep 8
	r=ok
	for n in node0 node1; do
		out=$(on $n eusrvctl conns --closed 2>&1 | awk -v base="$(
			printf '%s\n' "$([ $n = node0 ] && echo "$s0" || echo "$s1")" |
				sed -n 's/^conns_opened=//p')" '
			/:7600 / { s = $0; sub(/.*serial=/, "", s); sub(/ .*/, "", s)
				if (s + 0 > base + 0) print }')
		diag "$n: $out"
		if [ "$(printf '%s\n' "$out" | grep -c '^closed ')" != 1 ] ||
			printf '%s\n' "$out" | grep -q 'error='; then
			r=bad
		fi
	done
	for n in node0 node1; do
		on $n 'echo 0 >/sys/kernel/debug/eusrv_sor/drop_nacks' >/dev/null 2>&1
	done
	if [ $r = ok ] && deltas nack_resends && [ "$d_nack_resends" -ge 1 ]; then
		ok "$libc: a lost NACK is resent: both ends closed cleanly ($d_nack_resends resent)"
	else
		not_ok "$libc: a lost NACK is resent: both ends closed cleanly # resends ${d_nack_resends:-?}"
	fi
}

paths=(preload patched)
[ -n "${EUSRV_SOAK_PATHS:-}" ] && read -r -a paths <<<"$EUSRV_SOAK_PATHS"
for libc in "${paths[@]}"; do
	if [ "$libc" = preload ]; then
		run="eusrv-run "
		board_up "2 nodes boot" -n 2
	else
		run=
		board_up "2 nodes boot with the patched libc" -n 2 --libc=patched
	fi
	books_baseline node0 node1
	on node0 "${run}$prog serve 7600 >/tmp/sor-serve.log 2>&1 &"
	sleep 1

	snap
	out=$(EXEC_TIMEOUT=3000 on node1 "${run}$prog soak node0 7600 $SOAK" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$libc: $(printf '%s\n' "$out" | tail -n 1)"
	else
		not_ok "$libc: sor-test soak $SOAK # exit $rc"
		diag "$out"
		dump_state
	fi
	# The driver keeps the last 1024 connections' records: each carried 1 MB
	# each way.
	kept=$SOAK
	[ "$kept" -le 1024 ] || kept=1024
	over_rdma "$libc: soak" $((kept * 1048576)) 7600
	opened "$libc: soak" "$SOAK" 7600

	out=$(EXEC_TIMEOUT=1200 on node1 "${run}$prog stress node0 7600 $STRESS" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$libc: $(printf '%s\n' "$out" | tail -n 1)"
	else
		not_ok "$libc: sor-test stress $STRESS # exit $rc"
		diag "$out"
		dump_state
	fi

	snap
	forget_test "$libc reader" 0
	forget_test "$libc writer" 1
	a=$(delta "$s0" node0 resets_sent) || a=-1
	b=$(delta "$s1" node1 resets_rcvd) || b=-1
	c=$(delta "$s1" node1 probes_sent) || c=-1
	if [ "$a" -ge 2 ] && [ "$b" -ge 2 ] && [ "$c" -ge 1 ]; then
		ok "$libc: the forgotten connections were probed and reset (probes $c, RST sent $a, received $b)"
	else
		not_ok "$libc: probes and RSTs counted # probes_sent=$c resets_sent=$a resets_rcvd=$b"
	fi
	lost_nack_test
	# The server gone (the brackets keep pkill off the shell that runs
	# it), the driver holds nothing any more.
	on node0 'pkill -f "sor-tes[t] serve"' >/dev/null 2>&1
	books_balanced node0 node1
	board stop >/dev/null 2>&1
done
tap_done
