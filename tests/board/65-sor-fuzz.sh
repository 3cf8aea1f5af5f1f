#!/bin/bash
# The eusrv_sor driver's user interface under random use
# (tests/board/progs/sor-fuzz.c) by an unprivileged user, on two nodes at
# once (node0 toward node1, node1 toward node0), for FUZZ_SECONDS (120; `make
# fuzz`: 1800), while a real service runs beside it: sor-test's echo server
# on node1, and on node0 a client echoing 2 MB a round through it, every
# byte checked, each round's connections looked up in the driver's records
# (over RDMA, not TCP).  Afterwards: each fuzzer ran to its end and exited
# 0 (no hang: every call it makes is bounded), the service still answers,
# every echo round was right and over RDMA, the driver's books balance on
# both nodes once the service is gone, and no node's kernel reported
# trouble.  The seeds
# come from the time and are printed; FUZZ_SEED=N replays a run's choices
# (node0 uses N, node1 N + 1).  Each fuzzer's log, one line per operation
# before it runs, is kept in $BUILD/test-logs/sor-fuzz-NODE.log.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

SECS=${FUZZ_SECONDS:-120}
SEED=${FUZZ_SEED:-$(date +%s%N)}
FPORTS=5650,5651	# each fuzzer listens (and registers) there
CLOSED=5659		# nobody listens there
SVC=5670		# the echo service on node1
# nobody, with room for a few dozen connections of rings in locked memory
NOBODY="prlimit --memlock=$((64 << 20)) setpriv --reuid=nobody --regid=nogroup --clear-groups"
logs=$BUILD/test-logs
echo_dir=/tmp/sor-fuzz-echo
mkdir -p "$logs"

build_prog sor-test -lpthread
sortest=$prog
build_prog sor-fuzz
fuzz=$prog
diag "seed $SEED (node0 $SEED, node1 $((SEED + 1))), $SECS s: FUZZ_SEED=$SEED replays it"

# The echo client (sor-lib.sh's echo_client_script: rounds of `sor-test
# soak`, every byte checked, each round's connections looked up in the
# driver's records).  Written before the board starts: a node may not see
# a file of the host's file system that changes while it runs.
echo_client_script "$BUILD/tests/board/sor-fuzz-echo.sh" $echo_dir "$sortest" $SVC
board_up "2 nodes boot" -n 2 --no-module eusrv_eth
books_baseline node0 node1
for n in node0 node1; do
	check "$n: /dev/eusrv_sor is open to every user (mode 666)" \
		on $n 'test "$(stat -c %a /dev/eusrv_sor)" = 666'
done

# The service: a process group of its own, so that it goes with its children.
echo_service sor-fuzz "$sortest" $SVC
echo_up "the service on node1 answers before the fuzz" node0 "$sortest" $SVC

# The echo client, all through the fuzz.
on node0 "setsid sh $BUILD/tests/board/sor-fuzz-echo.sh >/dev/null 2>&1 </dev/null &" >/dev/null

# fuzz NODE SEED PEER PORTS: the fuzzer as nobody; its status in $logs.
fuzz() {
	EXEC_TIMEOUT=$((SECS + 120)) on "$1" "$NOBODY $fuzz $2 $SECS $3 $FPORTS $4" \
		>"$logs/sor-fuzz-$1.log" 2>&1
	echo $? >"$logs/sor-fuzz-$1.rc"
}
fuzz node0 "$SEED" 1 "$FPORTS,$SVC,$CLOSED" &
fuzz node1 $((SEED + 1)) 0 "$FPORTS,$CLOSED" &
wait

# A node whose kernel oopsed may hang: it holds no command for long.
crashed=
for n in node0 node1; do
	board console $n 2>/dev/null | grep -aqE 'Oops|BUG|general protection' && crashed="$crashed $n"
done
EXEC_TIMEOUT=60
[ -z "$crashed" ] || EXEC_TIMEOUT=15
for n in node0 node1; do
	rc=$(cat "$logs/sor-fuzz-$n.rc")
	log=$logs/sor-fuzz-$n.log
	pid=$(sed -n 's/^sor-fuzz: \([0-9]*\): seed=.*/\1/p' "$log" | head -n 1)
	summary=$(grep -a "^sor-fuzz: ${pid:-x}: " "$log" | grep -v "seed=")
	# 125: it exited 0, but a kernel reported trouble (the last point says so).
	if { [ "$rc" = 0 ] || [ "$rc" = 125 ]; } && printf '%s\n' "$summary" | grep -q ' operations in '; then
		ok "fuzzer on $n ran its $SECS s and exited 0"
		diag "$summary"
	else
		not_ok "fuzzer on $n ran its $SECS s and exited 0 # status $rc"
		diag "$(grep -av '^[0-9]* #' "$log" | tail -n 15)"
	fi
	if [ "$rc" != 0 ]; then
		diag "$n: each process's last operation ($log):"
		diag "$(awk '/^[0-9]+ #/ { last[$1] = $0 } END { for (p in last) print last[p] }' "$log" |
			sort -n | tail -n 20)"
	fi
	# The process an oops names: its last operations, the last the call it died in.
	oops=$(board console $n 2>/dev/null | sed -n 's/.* PID: \([0-9]*\) Comm: .*/\1/p' | head -n 1)
	if [ -n "$oops" ] && grep -aq "^$oops #" "$log"; then
		diag "$n: the oops is in process $oops; its last operations:"
		diag "$(grep -a "^$oops #" "$log" | tail -n 10)"
	fi
done

check "the service on node1 still answers (1 MB echoed and checked)" \
	echo_answers node0 "$sortest" $SVC 1000000

echo_rounds node0 $echo_dir \
	"the echo client checked %d echoed bytes with no error (%d rounds during the fuzz)" \
	"the echo client checked its bytes with no error"

# Nothing may stay behind: the service goes, the fuzzers' connections end.
on node1 'kill -- -$(cat /tmp/sor-fuzz-svc.pid)' >/dev/null 2>&1
books_balanced node0 node1
# lib.sh's last point checks the nodes' kernels where it has one.
if ! type trouble_point >/dev/null 2>&1; then
	trouble=
	for n in node0 node1; do
		trouble="$trouble$(board console $n 2>/dev/null | grep -a -A30 -E 'BUG|Oops|WARNING|general protection')"
	done
	if [ -z "$trouble" ]; then
		ok "no oops, BUG or WARNING on either node's console"
	else
		not_ok "no oops, BUG or WARNING on either node's console"
		diag "$(printf '%s\n' "$trouble" | head -n 80)"
	fi
fi
tap_done
