#!/bin/bash
# What the patched glibc cannot or must not intercept, on a board started
# with --libc=patched (docs/glibc.md):
#  - a dynamically linked client goes over RDMA (the control);
#  - a statically linked client (Debian's libc.a inside) and a client that
#    connects with syscall(SYS_connect, ...) talk to the same server over
#    plain TCP: correct data, no connection over RDMA opened;
#  - on nodes booted without eusrv_sor, programs under the patched libc do
#    what they do under Debian's libc (kept by the stage-1 init in
#    /usr/lib/eusrv/debian-libc): same exit status, same output.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

build_prog_as sor-test-static sor-test -static -lpthread
static=$prog
build_prog_as sor-test-raw sor-test -DSOR_TEST_RAW_CONNECT -lpthread
raw=$prog
build_prog sor-test -lpthread

board_up "2 nodes boot with the patched libc" -n 2 --libc=patched
books_baseline node0 node1

debian=/usr/lib/eusrv/debian-libc
plain="$debian/ld-linux-x86-64.so.2 --library-path $debian"

# The server: under the patched libc, with the driver, on node0.
on node0 "$prog serve 7610 >/tmp/sor-serve.log 2>&1 &"
sleep 1

# client NAME OPENED CMD: CMD (a sor-test client run on node1) succeeds, and
# both nodes opened OPENED ("some" or "none") connections over RDMA.
client() {
	local name=$1 want=$2 out rc a b
	shift 2
	snap
	out=$(on node1 "$*" 2>&1)
	rc=$?
	a=$(delta "$s0" node0 conns_opened) || a=
	b=$(delta "$s1" node1 conns_opened) || b=
	if [ $rc -ne 0 ]; then
		not_ok "$name # exit $rc"
		diag "$out"
	elif [ -z "$a" ] || [ -z "$b" ] || ! scoped_both 7610; then
		not_ok "$name # eusrvctl stats or conns unreadable on a node"
	elif [ "$want" = some ] && [ "$n0" -ge 1 ] && [ "$n1" -ge 1 ]; then
		ok "$name: over RDMA ($n0 and $n1 connections to port 7610)"
	elif [ "$want" = none ] && [ "$a" -eq 0 ] && [ "$b" -eq 0 ]; then
		ok "$name: over TCP (no connection over RDMA opened)"
	else
		not_ok "$name # wanted $want over RDMA, opened $a and $b, $n0 and $n1 to port 7610"
	fi
}

client "dynamically linked client" some "$prog integrity node0 7610 1000000"
client "statically linked client" none "$static integrity node0 7610 1000000"
client "syscall(SYS_connect) client" none "$raw integrity node0 7610 1000000"
on node0 'pkill -f "sor-tes[t] serve"' >/dev/null 2>&1
books_balanced node0 node1

# Without the driver: the patched libc against Debian's.  Every program
# that listened or connected under the patched libc holds the driver open
# (the node's command agent too), so the nodes boot without it.
board stop >/dev/null 2>&1
board_up "2 nodes boot with the patched libc, without eusrv_sor" -n 2 \
	--libc=patched --no-module eusrv_sor
check "no /dev/eusrv_sor on node1" on node1 '! test -e /dev/eusrv_sor'
on node0 "$prog serve 7610 >/tmp/sor-serve.log 2>&1 &"
sleep 1
# same NAME CMD: CMD on node1 gives the same exit status and output (first
# two words of each line: no timings) under the patched libc and Debian's.
same() {
	local name=$1 cmd=$2 a b ra rb
	a=$(on node1 "$cmd" 2>&1)
	ra=$?
	b=$(on node1 "$plain $cmd" 2>&1)
	rb=$?
	a=$(printf '%s\n' "$a" | cut -d' ' -f1-2)
	b=$(printf '%s\n' "$b" | cut -d' ' -f1-2)
	if [ $ra -eq $rb ] && [ "$a" = "$b" ]; then
		ok "no driver: $name: as with Debian's libc (exit $ra)"
	else
		not_ok "no driver: $name: as with Debian's libc # exit $ra vs $rb"
		diag "patched: $a"
		diag "debian: $b"
	fi
}
for t in integrity dup fork calls nonblock halfclose; do
	same "sor-test $t" "$prog $t node0 7610"
done
same "getent hosts" "/usr/bin/getent hosts node0 node1"
same "python3 sockets" "/usr/bin/python3 -c 'import socket, os, stat
s = socket.create_connection((\"node0\", 7610))
s.sendall(b\"x\")
print(s.getpeername()[1], s.family, s.type,
      stat.S_ISSOCK(os.fstat(s.fileno()).st_mode))
s.close()'"
same "nc to a closed port" "/usr/bin/nc -z node0 7999; echo \$?"
same "curl to a closed port" "/usr/bin/curl -sS http://node0:7999/"
on node0 'pkill -f "sor-test serve"' >/dev/null 2>&1
check "board stop" board stop
tap_done
