#!/bin/bash
# The eusrv_sor driver through its raw ioctls (tests/board/progs/
# sor-driver-test.c), no interception library: on two nodes, LISTEN + a
# plain TCP listener on node1, CONNECT from node0, ACCEPT matching the dummy
# connection, data of 1 B .. 5 MB both ways through the mapped rings and
# read()/write() (checked, wrapping the rings), poll, EOF, a refused
# CONNECT, who may LISTEN and ACCEPT (reachable listeners only, only the
# accepted end of a dummy claims it, not from another network namespace),
# malformed ioctls and a hostile ring tail, the ring pool emptied by its
# shrinker and its returned blocks reused with the refill held, then node1
# frozen and
# later killed under a blocked WAIT (ECONNRESET within 3 s each time; after
# the thaw node1 has reset its side too) and the module unloaded and
# reloaded on node0.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

PORT=5601
build_prog sor-driver-test

board_up "2 nodes boot" -n 2

for n in node0 node1; do
	check "$n: eusrv_sor loaded, /dev/eusrv_sor present" \
		on $n 'grep -q "^eusrv_sor " /proc/modules && test -c /dev/eusrv_sor'
done

# run_report NAME NODE ARGS...: runs the test program on NODE (as the
# user $RUN_AS names, if set: a setpriv prefix), one TAP line
# per "ok"/"not ok" line it prints (in this shell, so that failures count),
# and a failure if it exits non-zero or printed no point at all (a crash
# that drops the rest).
run_report() {
	local name=$1 node=$2 out rc
	shift 2
	# shellcheck disable=SC2086 # RUN_AS is a command prefix, split on purpose
	out=$(on "$node" ${RUN_AS:-} "$prog" "$@" 2>&1)
	rc=$?
	report "$name" "$out"
	if [ "$rc" -ne 0 ] || [ "$npoints" -eq 0 ]; then
		not_ok "$name: $prog $* exited with status $rc after $npoints points"
	fi
}

# report NAME OUTPUT: one TAP line per "ok"/"not ok" line of OUTPUT, the
# rest as diagnostics; sets npoints.
report() {
	local l
	npoints=0
	while IFS= read -r l; do
		case $l in
		"ok "*) ok "$1: ${l#ok }"; npoints=$((npoints + 1)) ;;
		"not ok "*) not_ok "$1: ${l#not ok }"; npoints=$((npoints + 1)) ;;
		*) diag "$l" ;;
		esac
	done <<<"$2"
}

run_report "node0 badioctl" node0 badioctl
run_report "node0 refused" node0 refused 1 $PORT
run_report "node0 guard" node0 guard 1 $((PORT + 7))

# serve_on_node1 MODE PORT OUT: "$prog MODE PORT" in the background on
# node1, its output in OUT, once it says it is listening (or 10 s passed).
serve_on_node1() {
	on node1 "$prog $1 $2 >$3 2>&1 &" >/dev/null
	for _ in $(seq 50); do
		on node1 "grep -q listening $3" >/dev/null 2>&1 && return
		sleep 0.2
	done
}

# The server on node1 stays up (holding later connections) until killed.
serve_on_node1 server $PORT /tmp/sor-server.out
run_report "client" node0 client 1 $PORT

# Ring memory of closed connections reaches new ones zeroed, though the
# pool zeroes only the pages a connection may have written.
SCRUB=$((PORT + 13))
serve_on_node1 scrub-server $SCRUB /tmp/sor-scrub.out
run_report "node0 scrub" node0 scrub 1 $SCRUB
on node1 "pkill -f 'sor-driver-test scrub-server'" >/dev/null 2>&1

# The ring pool keeps blocks for a burst and gives them all back under
# memory pressure (its shrinker, here through drop_caches).  Then, with
# its refill held (debugfs pool_fill_off), every ring comes either fresh
# or from a block that came back and was zeroed by the connection that
# took it: still only zeroed rings.
dbg=/sys/kernel/debug/eusrv_sor
check "node1: the ring pool keeps at least 32 blocks of each size" \
	on node1 "awk '\$8 < 32 { bad = 1 } END { exit bad || NR != 2 }' $dbg/pool"
sleep 1
for n in node0 node1; do
	check "$n: drop_caches empties the ring pool (its shrinker)" \
		on $n "echo 2 >/proc/sys/vm/drop_caches && echo Y >$dbg/pool_fill_off &&
			awk '\$4 || \$6 || \$8 { bad = 1 } END { exit bad || NR != 2 }' $dbg/pool"
done
serve_on_node1 scrub-server $SCRUB /tmp/sor-scrub2.out
run_report "node0 scrub, refill held" node0 scrub 1 $SCRUB
on node1 "pkill -f 'sor-driver-test scrub-server'" >/dev/null 2>&1
sleep 1
check "node1: with the refill held, blocks came back and none was made ready" \
	on node1 "awk '\$4 || !\$6 { bad = 1 } END { exit bad || NR != 2 }' $dbg/pool"
for n in node0 node1; do
	on $n "echo N >$dbg/pool_fill_off" >/dev/null
done

# A server that closes its accepted sockets without ACCEPT: the clients
# hear at once, as over TCP; the server's side goes with them.
DROP=$((PORT + 15))
serve_on_node1 drop-server $DROP /tmp/sor-drop.out
run_report "node0 dropped" node0 dropped 1 $DROP
on node1 "pkill -f 'sor-driver-test drop-server'" >/dev/null 2>&1
# The server reports its first connection once the client has closed it.
for _ in $(seq 100); do
	on node1 'grep -q "every block checked" /tmp/sor-server.out' >/dev/null 2>&1 && break
	sleep 0.2
done
out=$(on node1 'cat /tmp/sor-server.out')
report "server" "$out"
if ! printf '%s\n' "$out" | grep -q "every block checked"; then
	not_ok "server: reported its first connection within 20 s"
fi
# CONNECT's own socket checks, implicit bind and report, against the
# server above (it holds the connections it does not serve).
run_report "node0 sockcheck" node0 sockcheck 1 $PORT

# The limits, as an unprivileged user, with the server above still up:
# ring sizes (the largest to a closed port, then every call on the file;
# a remote wish capped by the listener), RLIMIT_MEMLOCK, the per-user
# bound on connections (lowered for the test), and a set-up that turned
# to TCP giving its id and rings back.
prog_driver=$prog
build_prog sor-abuse-test
RUN_AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
CLOSED=$((PORT + 9))
run_report "node0 rings" node0 rings 1 $PORT $CLOSED
run_report "node0 memlock" node0 memlock 1 $CLOSED
maxp=/sys/module/eusrv_sor/parameters/max_user_conns
max=$(on node0 "cat $maxp")
check "node0: max_user_conns is 1024 by default" test "$max" = 1024
on node0 "echo 8 >$maxp" >/dev/null
run_report "node0 userconns" node0 userconns 1 $CLOSED 8
on node0 "echo $max >$maxp" >/dev/null
run_report "node0 tcpfree" node0 tcpfree 1 $CLOSED

# conns NODE: how many connections NODE has (STATS conns).
conns() {
	on "$1" 'eusrvctl stats' 2>/dev/null | sed -n 's/^conns=//p'
}

# A client whose rings ACCEPT grows past its limit gives up (EDQUOT):
# the server's side, reset before any ACCEPT claimed it, goes too.
before=$(conns node1)
run_report "node0 grow" node0 grow 1 $PORT 3
for _ in $(seq 20); do
	after=$(conns node1)
	[ "${after:-x}" = "$before" ] && break
	sleep 0.5
done
if [ "${after:-x}" = "$before" ]; then
	ok "node1: the server sides of the 3 given-up set-ups are gone ($before connections)"
else
	not_ok "node1: the server sides of the 3 given-up set-ups are gone # $before before, ${after:-?} after"
fi

# The same interface for a 32-bit program on the 64-bit kernel: one layout
# (CONNECT's TCP address is where the kernel reads it), LIST, INFO, mmap.
# A static program of each node's 32-bit ISA (lib.sh's isa_cc: i686 on x86
# nodes, armhf on ARM nodes); on 32-bit ARM nodes it is a native one.
prog_abuse=$prog
build_prog32 sor-abuse-test-32 sor-abuse-test -static
run_report "node0 32-bit rings" node0 rings 1 $PORT $CLOSED
run_report "node0 32-bit tcpfree" node0 tcpfree 1 $CLOSED
prog=$prog_abuse

# wait_line NODE FILE PATTERN: up to 10 s for PATTERN in FILE on NODE.
wait_line() {
	for _ in $(seq 50); do
		on "$1" "grep -q '$3' $2" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

# Two listeners on one port of node1, on two of its addresses: a service
# (root) on its board address, and nobody on another address, registered
# first.  ConnRQ does not say which address the client asked for, so
# neither may take board clients: nobody must never get the service's.
HPORT=$((PORT + 11))
A1=$(on node1 "ip -4 -o addr show scope global" | awk '{ sub("/.*", "", $4); print $4; exit }')
on node1 "ip addr add 10.99.0.1/32 dev lo" >/dev/null
on node1 "$RUN_AS $prog squat 10.99.0.1 $HPORT 6 >/tmp/squat.out 2>&1 &" >/dev/null
wait_line node1 /tmp/squat.out listening
on node1 "$prog squat $A1 $HPORT 6 >/tmp/service.out 2>&1 &" >/dev/null
wait_line node1 /tmp/service.out listening
out=$(on node0 "$prog tries 1 $HPORT 3" 2>&1)
diag "$out"
wait_line node1 /tmp/squat.out claimed
squat=$(on node1 'cat /tmp/squat.out')
diag "squatter on 10.99.0.1: $squat; service on $A1: $(on node1 'cat /tmp/service.out')"
if printf '%s\n' "$squat" | grep -q '^claimed 0$'; then
	ok "a listener on another address of the port gets none of the service's RDMA clients"
else
	not_ok "a listener on another address of the port gets none of the service's RDMA clients"
fi
RUN_AS=
prog=$prog_driver

# conns_show NAME NODE PATTERN [ARG]: `eusrvctl conns ARG` on NODE works
# and one of its lines matches PATTERN (extended regular expression).
conns_show() {
	local out
	if out=$(on "$2" "eusrvctl conns ${4:-}" 2>&1) &&
		printf '%s\n' "$out" | grep -Eq "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diag "$out"
	fi
}

# The client's connections have ended: their records stay in the history.
conns_show "node0: the ended connections are kept with what they carried (eusrvctl conns --closed)" \
	node0 "^closed .*:$PORT peer_node=1 .* sent=[1-9][0-9]* .*serial=[1-9]" --closed

stats=$(on node0 eusrvctl stats 2>&1)
diag "$(printf '%s\n' "$stats" | tr '\n' ' ')"
bad_user=$(printf '%s\n' "$stats" | sed -n 's/^bad_user=//p')
if [ "${bad_user:-0}" -ge 1 ]; then
	ok "node0: the hostile tail is counted (bad_user=$bad_user)"
else
	not_ok "node0: the hostile tail is counted # bad_user=${bad_user:-?}"
fi

# hold_reset WHAT CMD...: a call on node0 blocked on a connection to node1
# ends with ECONNRESET after CMD does something to node1.  The contract is
# 3 s (keepalive); the bound checked is three times that, so that a loaded
# host (TCG, command channel latency) cannot fail it while a connection that
# is never reset still does.  While it is held, LIST shows the connection.
hold_reset() {
	local what=$1 out t0 t1 secs
	shift
	on node0 "$prog hold 1 $PORT >/tmp/sor-hold.out 2>&1 &" >/dev/null
	for _ in $(seq 50); do
		on node0 'grep -q holding /tmp/sor-hold.out' >/dev/null 2>&1 && break
		sleep 0.2
	done
	conns_show "$what: LIST (eusrvctl conns) shows the held connection" \
		node0 '^rdma .*state=ESTABLISHED .*peer_node=1 '
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	for _ in $(seq 100); do
		on node0 'grep -q error= /tmp/sor-hold.out' >/dev/null 2>&1 && break
		sleep 0.2
	done
	t1=$(date +%s.%N)
	out=$(on node0 'cat /tmp/sor-hold.out')
	secs=$(echo "$t1 - $t0" | bc)
	diag "$out (after ${secs}s)"
	if printf '%s\n' "$out" | grep -q "^error=104$" && [ "$(echo "$secs < 9" | bc)" = 1 ]; then
		ok "$what: blocked WAIT ends with ECONNRESET (${secs}s, contract 3 s, bound 9 s)"
	else
		not_ok "$what: blocked WAIT ends with ECONNRESET # ${secs}s"
	fi
}

# A non-blocking CONNECT to a node that is up but silent (frozen just
# before) returns its file at once instead of holding the caller; set-up
# ends at its deadline in the background.
out=$(on node0 "$prog nbconnect 1 $PORT" 2>&1 & sleep 0.3; board freeze node1 >/dev/null 2>&1; wait)
board thaw node1 >/dev/null 2>&1
report "node0 nbconnect" "$out"
[ "$npoints" -gt 0 ] || not_ok "node0 nbconnect: no result # $out"
sleep 1

# quarantined NODE: the bytes of receive rings NODE holds for peers that
# may still write them (STATS quarantined).
quarantined() {
	on "$1" 'eusrvctl stats' 2>/dev/null | sed -n 's/^quarantined=//p'
}

# quarantine_drains WHAT NODE...: within 10 s every NODE holds nothing
# for a peer any more.
quarantine_drains() {
	local what=$1 n q left
	shift
	for n in "$@"; do
		for _ in $(seq 20); do
			q=$(quarantined "$n")
			[ "${q:-x}" = 0 ] && break
			sleep 0.5
		done
		if [ "${q:-x}" = 0 ]; then
			ok "$what: $n holds no ring for a peer any more"
		else
			not_ok "$what: $n holds no ring for a peer any more # quarantined=${q:-?}"
		fi
	done
}

# Silent, not dead: keepalives find it; when it comes back it is told to
# drop its side of the connections too.  Meanwhile node0 keeps the reset
# connection's receive ring (node1's engine may still write it once it
# runs again), and frees it only once node1 has answered; node1 frees its
# own once node0 has confirmed it (neither may hold it for good).
hold_reset "peer node frozen" board freeze node1
for _ in $(seq 10); do
	q=$(quarantined node0)
	[ "${q:-0}" -gt 0 ] && break
	sleep 0.5
done
if [ "${q:-0}" -gt 0 ]; then
	ok "node1 frozen: node0 holds the reset connection's ring for it (quarantined=$q)"
else
	not_ok "node1 frozen: node0 holds the reset connection's ring for it # quarantined=${q:-?}"
fi
check "board thaw node1" board thaw node1
quarantine_drains "node1 thawed" node0 node1
sleep 2
if ! out=$(on node1 'eusrvctl conns' 2>&1); then
	not_ok "node1 thawed: eusrvctl conns # failed"
	diag "$out"
elif ! printf '%s\n' "$out" | grep -q '^total rdma='; then
	not_ok "node1 thawed: eusrvctl conns printed no total"
	diag "$out"
elif printf '%s\n' "$out" | grep -q '^rdma .*state=ESTABLISHED .*peer_node=0 '; then
	not_ok "node1 thawed: its side of the connections with node0 is reset too"
	diag "$out"
else
	ok "node1 thawed: its side of the connections with node0 is reset too"
fi

hold_reset "peer node killed" board kill node1
quarantine_drains "node1 killed" node0
# node0's connections with the dead node retire, their rings go.
books_balanced node0

kdir=$NODE_BUILD/kmod
check "node0: unload and reload eusrv_sor" on node0 \
	"rmmod eusrv_sor && insmod $kdir/eusrv_sor.ko && test -c /dev/eusrv_sor"
run_report "node0 after reload" node0 badioctl

check "board stop" board stop
tap_done
