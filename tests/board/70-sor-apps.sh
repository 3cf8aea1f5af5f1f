#!/bin/bash
# Sockets over RDMA with real programs: two nodes, unmodified programs under
# eusrv-run (nc, iperf3, redis, sockperf, nginx + curl, eusrv-stream -b) and our own
# (tests/board/progs/sor-test.c: integrity, fork, threads, dup, epoll,
# non-blocking, half-close, the call surface, close with unread data, the
# peer killed, 1,000 connections at once, 10,000 connect/close cycles, a
# program scribbling over its ring header, a connection handed to an
# exec'd image (inetd-style on fd 0/1, a server re-exec'ing itself, a
# client's child) or passed with SCM_RIGHTS, the rings' locks never held
# across a wait (a non-blocking recv or one in a signal handler beside a
# blocked one), the driver's read(2) beside the library's recv, each byte
# once, and ring memory within RLIMIT_MEMLOCK).  After each, the driver's
# records of the test's own connections (port, serial) on both nodes must
# show at least the data moved or the connections made: it went over
# RDMA, not TCP.  Then: a destination that is not in the
# peers file stays on TCP with the reason shown by eusrvctl, and without the
# driver everything still works over TCP.
#
# EUSRV_SOR_LIBC=patched (suite 75): the same with the patched glibc
# installed in the nodes (qemu/board start --libc=patched) and the programs
# run as they are, without eusrv-run or any LD_PRELOAD.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

# client_point NAME PORT BYTES PATTERN CMD: CMD on node1 exits 0 and prints
# PATTERN (grep -E; the point names what matched), and what it moved went
# over RDMA on PORT (at least BYTES each way).  False if CMD failed.
client_point() {
	local name=$1 port=$2 bytes=$3 pat=$4 out rc
	snap
	out=$(on node1 "$5" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "$pat"; then
		ok "$name: $(printf '%s\n' "$out" | grep -Eo "$pat" | head -n 1)"
	else
		not_ok "$name # exit $rc"
		diag "$out"
		rc=1
	fi
	over_rdma "$name" "$bytes" "$port"
	return $rc
}

build_prog sor-test -lpthread
# On a 32-bit ISA the same clients also built for 64-bit file offsets and
# time, as Debian's own programs are (_FILE_OFFSET_BITS=64) and as a
# _TIME_BITS=64 program is: they call the library's other names (fcntl64,
# sendfile64, __fstat64_time64, __recvmmsg64, __setsockopt64 with
# SO_RCVTIMEO_NEW, ...).
prog_t64=
if [ "$EUSRV_ARCH" = armhf ]; then
	plain_prog=$prog
	build_prog_as sor-test-t64 sor-test -lpthread -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
	prog_t64=$prog
	prog=$plain_prog
fi

# run: what the programs are started with; plain: what runs a program that
# must not take part (Debian's libc, kept by the stage-1 init, when the
# node's own is the patched one).
libc=${EUSRV_SOR_LIBC:-preload}
case $libc in
preload)
	run="eusrv-run "
	plain=
	board_up "2 nodes boot" -n 2 ;;
patched)
	run=
	debian=/usr/lib/eusrv/debian-libc
	plain="$debian/$(isa_ldso "$(node_isa node0)") --library-path $debian "
	board_up "2 nodes boot with the patched libc" -n 2 --libc=patched
	for n in node0 node1; do
		check "$n: the system libc is the patched build, no LD_PRELOAD" \
			on $n "$(isa_libdir "$(node_isa $n)")/libc.so.6 | grep eusrv-patched &&
				[ -z \"\${LD_PRELOAD:-}\" ] && [ ! -e /etc/ld.so.preload ]"
	done ;;
*)
	not_ok "EUSRV_SOR_LIBC must be preload or patched, not '$EUSRV_SOR_LIBC'"
	tap_done
	exit 1 ;;
esac

driver=yes
for n in node0 node1; do
	if ! on $n 'test -c /dev/eusrv_sor' >/dev/null 2>&1; then
		driver=no
	fi
done
if [ $driver = no ]; then
	not_ok "eusrv_sor loaded on both nodes (no /dev/eusrv_sor: nothing can go over RDMA)"
fi
books_baseline node0 node1

for n in 0 1; do
	out=$(on node$n eusrvctl peers 2>&1)
	if printf '%s\n' "$out" | grep -q "^node=$n self=yes up=" &&
		printf '%s\n' "$out" | grep -Eq "^node=$((1 - n)) self=no up=yes addrs=198\.18\.0\.1$((1 - n))(,|$)"; then
		ok "node$n: eusrvctl peers: both nodes, this one is self"
	else
		not_ok "node$n: eusrvctl peers: both nodes, this one is self"
		diag "$out"
	fi
done

if [ $driver = yes ]; then
	# Our programs: a forking server on node0, clients on node1.
	on node0 "${run}$prog serve 7600 >/tmp/sor-serve.log 2>&1 &"
	# One process with many small connections (epoll) on 7700.
	on node0 "${run}$prog serve-many 7700 >/tmp/sor-serve-many.log 2>&1 &"
	# An echo server whose accept() a signal interrupts every millisecond.
	on node0 "${run}$prog serve-sig 7620 >/tmp/sor-serve-sig.log 2>&1 &"
	# An echo server whose listener the driver does not know (TCP only).
	on node0 "${run}$prog serve-tcp 7650 >/tmp/sor-serve-tcp.log 2>&1 &"
	listening node0 7600 7700 7620 7650
	# client PROG NAME MODE [ARG]: PROG MODE node0 PORT [ARG] on node1, as
	# the point NAME, then its data or connections over RDMA.
	client() {
		local bin=$1 name=$2 port=7600 tmo=300 out rc
		shift 2
		case $1 in many|cycles|scribble|resized) port=7700 ;; sigcycles) port=7620 ;; esac
		snap
		# 10000 set-ups take 160 s on a quiet host with memory
		# debugging, twice that on a busy one.
		[ "$1" = cycles ] && tmo=900
		out=$(EXEC_TIMEOUT=$tmo on node1 "${run}$bin $1 node0 $port ${2:-}" 2>&1)
		rc=$?
		if [ $rc -eq 0 ]; then
			ok "$name $*: $(printf '%s\n' "$out" | tail -n 1)"
		else
			not_ok "$name $* # exit $rc"
			diag "$out"
		fi
		case $1 in
		integrity) over_rdma "$name $1" $((2 * $2)) $port ;;
		epoll) over_rdma "$name $1" $((2 * $2)) $port ;;
		halfclose) over_rdma "$name $1" "$2" $port ;;
		closeflush) over_rdma "$name $1" $((10 * $2)) $port ;;
		slowread|splice) over_rdma "$name $1" $((2 * $2)) $port ;;
		inetd|reexec|execclient|passfd) over_rdma "$name $1" $((2 * $2)) $port ;;
		fork) over_rdma "$name $1" $((2000 * 64)) $port ;;
		threads) over_rdma "$name $1" $((4 * 3000 * 64)) $port ;;
		calls) over_rdma "$name $1" 300 $port ;;
		unread|peerkill|scribble) opened "$name $1" 1 $port ;;
		many|cycles|sigcycles|resized) opened "$name $1" "$2" $port ;;
		*) over_rdma "$name $1" 1 $port ;;
		esac
	}
	# 10000 connect/close cycles on x86 nodes; ARM nodes (TCG: 160 ms a
	# cycle on armhf beside another board) do 1000.
	cycles=10000
	[ "$EUSRV_ARCH" = x86_64 ] || cycles=1000
	for t in "integrity 8388608" "fork" "threads" "dup" "epoll 4194304" \
		"nonblock" "halfclose 3000000" "calls" "unread" "peerkill" \
		"many 1000" "cycles $cycles" "scribble" "closeflush 200000" "closestall 400000" \
		"inetd 1000000" "reexec 1000000" "execclient 200000" "passfd 200000" \
		"signals" "shutrd" "sigcycles 300" "async 50" "preopts" "linger0" \
		"locks" "slowread 16777216" "vfork" "cancel 20" "mmsg" \
		"splice 1048576" "sockopts" "resized 20"; do
		# shellcheck disable=SC2086 # a mode and its argument
		client "$prog" sor-test $t
	done
	# The modes whose calls have a large-file or 64-bit-time name:
	# fstat, fcntl, the options' timeouts, recvmsg/recvmmsg with their
	# timeout, sendfile at an offset (splice), descriptors handed over.
	if [ -n "$prog_t64" ]; then
		for t in "integrity 1048576" "dup" "calls" "preopts" "mmsg" \
			"splice 1048576" "passfd 200000" "sockopts"; do
			# shellcheck disable=SC2086
			client "$prog_t64" "sor-test (_TIME_BITS=64)" $t
		done
	fi

	# accept() out of descriptors: EMFILE, the client kept for the next
	# accept(); a closed listener drops the one that waited (sor-test.c,
	# serve-emfile and emfile).
	on node0 "${run}$prog serve-emfile 7640 >/tmp/sor-emfile.log 2>&1 &"
	listening node0 7640
	out=$(on node1 "${run}$prog emfile node0 7640" 2>&1)
	rc=$?
	sleep 1
	srv=$(on node0 'cat /tmp/sor-emfile.log' 2>&1)
	if [ $rc -eq 0 ] && printf '%s\n' "$srv" | grep -q '^emfile: accept() out of descriptors'; then
		ok "accept() out of descriptors: EMFILE, the client waits: $(printf '%s\n' "$out" | tail -n 1)"
	else
		not_ok "accept() out of descriptors: EMFILE, the client waits # client exit $rc"
		diag "client: $out"
		diag "server: $srv"
	fi

	# A slow server (its driver serves each ConnRQ 600 ms late) and a
	# signal 200 ms into connect(): SA_RESTART goes on over RDMA, without
	# it connect() says EINTR and goes on over TCP.  Then a hostile
	# server's forged ADDR: refused when it reaches past its memory
	# window (TCP instead), a failed transfer when it only lies past its
	# RAM.  Each program checks the path it took itself.
	#
	# Non-blocking connect(): EINPROGRESS before the (1 s late) server
	# answers, EPOLLOUT and SO_ERROR 0 once set up, over RDMA; against a
	# listener unknown to the driver (serve-tcp on 7650) it turns to TCP
	# in the background (and survives the program closing the library's
	# descriptor of the socket); with nobody listening, EPOLLERR and
	# ECONNREFUSED as TCP gives; the TCP connect is the program's own
	# (under a seccomp filter forbidding connect(2), SO_ERROR says EPERM);
	# 20 closed while setting up leave no connection behind on either node.
	dbg=/sys/kernel/debug/eusrv_sor
	# with_knob KNOB VALUE PORT MODE [ARG]: sor-test MODE [ARG] on node1
	# against node0:PORT, node0's driver knob KNOB at VALUE meanwhile.
	with_knob() {
		local knob=$1 val=$2 port=$3 out rc what
		shift 3
		what="sor-test $* ($knob $val)"
		snap
		if ! on node0 "echo $val >$dbg/$knob"; then
			not_ok "$what: node0 $dbg/$knob = $val"
			return 1
		fi
		out=$(on node1 "${run}$prog $1 node0 $port ${2:-}" 2>&1)
		rc=$?
		on node0 "echo 0 >$dbg/$knob"
		if [ $rc -eq 0 ]; then
			ok "$what: $(printf '%s\n' "$out" | tail -n 1)"
		else
			not_ok "$what # exit $rc"
			diag "$out"
		fi
		return $rc
	}
	with_knob serve_delay_ms 600 7600 sigconnect &&
		over_rdma "sor-test sigconnect" 65536 7600
	with_knob serve_delay_ms 600 7600 intrconnect
	# connect() maps the rings while it waits; a child forked then does
	# not get the mapping.
	with_knob serve_delay_ms 600 7600 forkconnect
	with_knob forge_addr 0x7fffff0000 7600 badaddr 0
	with_knob forge_addr 0x7ffff00000 7600 badaddr 1
	with_knob serve_delay_ms 1000 7600 bgconnect
	with_knob serve_delay_ms 0 7650 bgfallback
	with_knob serve_delay_ms 0 7650 bgfallback 1
	with_knob serve_delay_ms 0 7699 bgrefused
	with_knob serve_delay_ms 0 7650 bgseccomp
	with_knob serve_delay_ms 1000 7600 bgclose 20
	left=
	for _ in $(seq 30); do
		left=$(for n in node0 node1; do on $n eusrvctl conns 2>&1 |
			grep -E '^rdma .*state=(CONNECTING|ACCEPTING|ESTABLISHED) .*:7600 '; done)
		[ -z "$left" ] && break
		sleep 0.5
	done
	if [ -z "$left" ]; then
		ok "sor-test bgclose: no connection left on either node"
	else
		not_ok "sor-test bgclose: no connection left on either node"
		diag "$left"
	fi

	# Rings count against their user's locked-memory limit: with 32 KiB
	# (a connection of 4 KiB rings takes 5 pages), one connection of
	# nobody's goes over RDMA and the other two over TCP, each echo
	# checked; the same for a server run by nobody, its clients root's.
	asnobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# memlock_one WHAT NODE PORT CLIENT_PREFIX: three connections from
	# node1 to PORT, of which NODE opened exactly one over RDMA.
	memlock_one() {
		local what=$1 n=$2 out rc d
		snap
		out=$(on node1 "$4${run}$prog many node0 $3 3" 2>&1)
		rc=$?
		deltas conns_opened && eval "d=\$d${n}_conns_opened"
		if [ $rc -eq 0 ] && [ "${d:-}" = 1 ]; then
			ok "$what RLIMIT_MEMLOCK 32 KiB: 1 of 3 connections over RDMA, the others over TCP, all echoed"
		else
			not_ok "$what RLIMIT_MEMLOCK 32 KiB: 1 of 3 connections over RDMA # exit $rc, node$n opened ${d:-?}"
			diag "$out"
		fi
	}
	memlock_one "client's" 1 7700 "prlimit --memlock=32768 $asnobody "
	on node0 "prlimit --memlock=32768 $asnobody ${run}$prog serve-many 7710 >/dev/null 2>&1 &"
	listening node0 7710
	memlock_one "server's" 0 7710 ""

	# A live connection is visible in eusrvctl conns on both nodes (the
	# client's side is set up last: looked for until it is, 15 s at most,
	# as a loaded host took more than the 1.5 s once waited here).
	# both_listed: the conns of node1 (C1) and node0 (C0) show it.
	both_listed() {
		printf '%s\n' "$c1" | grep -q '^rdma .*state=ESTABLISHED .*peer=198.18.0.10:7600 peer_node=0' &&
			printf '%s\n' "$c0" | grep -q '^rdma .*state=ESTABLISHED .*local=198.18.0.10:7600 .*peer_node=1'
	}
	on node1 "(sleep 20 | ${run}nc node0 7600 >/dev/null 2>&1) >/dev/null 2>&1 &"
	for _ in $(seq 30); do
		c1=$(on node1 eusrvctl conns 2>&1)
		c0=$(on node0 eusrvctl conns 2>&1)
		both_listed && break
		sleep 0.5
	done
	if both_listed; then
		ok "eusrvctl conns: the connection on both nodes, ESTABLISHED"
	else
		not_ok "eusrvctl conns: the connection on both nodes, ESTABLISHED"
		diag "node1: $c1"
		diag "node0: $c0"
	fi
	# As ss: another user sees the connection, not the process behind it.
	cn=$(on node1 "setpriv --reuid=65534 --regid=65534 --clear-groups eusrvctl conns" 2>&1)
	if printf '%s\n' "$c1" | grep -q '^rdma .*peer=198.18.0.10:7600 .* uid=0 pid=[1-9]' &&
		printf '%s\n' "$cn" | grep -q '^rdma .*peer=198.18.0.10:7600 .* uid=0 pid=0 ' &&
		! printf '%s\n' "$cn" | grep -q '^rdma .*peer=198.18.0.10:7600 .* pid=[1-9]'; then
		ok "eusrvctl conns as another user: the connection, without its process"
	else
		not_ok "eusrvctl conns as another user: the connection, without its process"
		diag "nobody: $cn"
	fi
	on node1 'pkill -f "[n]c node0 7600"' >/dev/null 2>&1

	# nc both ways, checked by sha256.
	for spec in "node1 node0 1" "node1 node0 1048589" "node1 node0 67108864" \
		"node0 node1 16777216"; do
		set -- $spec
		from=$1 to=$2 size=$3 port=$((7100 + RANDOM % 100))
		on "$from" "head -c $size /dev/urandom >/tmp/nc.in && sha256sum </tmp/nc.in >/tmp/nc.sha"
		on "$to" "${run}nc -l -N $port >/tmp/nc.out 2>/dev/null </dev/null &"
		listening "$to" "$port"
		snap
		if on "$from" "${run}nc -N ${to/node/198.18.0.1} $port </tmp/nc.in" >/dev/null 2>&1; then
			sleep 1
			a=$(on "$from" cat /tmp/nc.sha)
			b=$(on "$to" "sha256sum </tmp/nc.out")
			if [ -n "$a" ] && [ "$a" = "$b" ]; then
				ok "nc $from -> $to: $size bytes, sha256 equal"
			else
				not_ok "nc $from -> $to: $size bytes, sha256 equal # $a vs $b"
			fi
		else
			not_ok "nc $from -> $to: $size bytes # client failed"
		fi
		over_rdma "nc $size bytes" "$size" "$port"
	done

	# iperf3
	on node0 "${run}iperf3 -s -D -p 7200 --logfile /tmp/iperf3.log"
	listening node0 7200
	snap
	out=$(on node1 "${run}iperf3 -c node0 -p 7200 -t 3 -f m" 2>&1)
	rc=$?
	bytes=$(printf '%s\n' "$out" | awk '/receiver/ {print $5, $6}')
	if [ $rc -eq 0 ] && [ -n "$bytes" ]; then
		ok "iperf3 node1 -> node0: $(printf '%s\n' "$out" | grep receiver | tr -s ' ')"
	else
		not_ok "iperf3 node1 -> node0 # exit $rc"
		diag "$out"
	fi
	over_rdma "iperf3" 1000000 7200

	# redis-server + redis-benchmark
	on node0 "${run}redis-server --port 7300 --bind 0.0.0.0 --protected-mode no \
		--save '' --appendonly no --daemonize yes --logfile /tmp/redis.log"
	listening node0 7300
	snap
	out=$(on node1 "${run}redis-benchmark -h node0 -p 7300 -q -n 2000 -t set,get,incr,lpush,lpop" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'requests per second')" -ge 5 ]; then
		ok "redis-benchmark -n 2000 against redis-server on node0"
		diag "$(printf '%s\n' "$out" | tr '\r' '\n' | grep 'per second')"
	else
		not_ok "redis-benchmark -n 2000 # exit $rc"
		diag "$out"
	fi
	over_rdma "redis" $((5 * 2000 * 20)) 7300

	# sockperf ping-pong and throughput
	on node0 "${run}sockperf server --tcp -i 0.0.0.0 -p 7400 --daemonize >/dev/null 2>&1"
	listening node0 7400
	client_point "sockperf ping-pong" 7400 64000 'avg-latency=[0-9.]*' \
		"${run}sockperf ping-pong --tcp -i 198.18.0.10 -p 7400 -t 3 -m 64"
	client_point "sockperf throughput" 7400 1000000 'BandWidth is [0-9.]* MBps' \
		"${run}sockperf throughput --tcp -i 198.18.0.10 -p 7400 -t 3 -m 1400"

	# eusrv-stream -b: SO_SNDBUF/SO_RCVBUF before listen and connect
	# choose 1 MiB rings on both ends (the client reports its send ring
	# as sndbuf=); every byte checked.
	on node0 "${run}eusrv-stream server -p 7420 -1 -b 1M >/tmp/stream.log 2>&1 &"
	listening node0 7420
	client_point "eusrv-stream -b 1M" 7420 1000000 'MBps=[0-9.]* verified=yes sndbuf=1048576$' \
		"${run}eusrv-stream client node0 -p 7420 -t 2 -b 1M" ||
		diag "$(on node0 cat /tmp/stream.log 2>&1)"

	# nginx serving a large file (sendfile) to curl
	on node0 "mkdir -p /tmp/www && head -c 20000000 /dev/urandom >/tmp/www/big &&
		sha256sum </tmp/www/big >/tmp/www/big.sha &&
		printf '%s\n' 'daemon on; worker_processes 2; pid /tmp/nginx.pid;' \
		'error_log /tmp/nginx.err;' 'events { worker_connections 64; }' \
		'http { access_log off; sendfile on; server { listen 7500; root /tmp/www; } }' \
		>/tmp/nginx.conf && ${run}nginx -c /tmp/nginx.conf"
	listening node0 7500
	snap
	a=$(on node0 cat /tmp/www/big.sha)
	b=$(on node1 "${run}curl -sS -o - http://node0:7500/big | sha256sum" 2>&1)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "nginx -> curl: 20 MB file (sendfile), sha256 equal"
	else
		not_ok "nginx -> curl: 20 MB file # $a vs $b"
	fi
	over_rdma "nginx" 20000000 7500
	on node0 'kill $(cat /tmp/nginx.pid)' >/dev/null 2>&1

	# A registration outlives no listening socket: a program under eusrv-run
	# listens on 7800 and closes it, then a plain nc (no eusrv-run, or
	# Debian's libc) listens there; a client under eusrv-run must reach that nc over TCP, not get
	# set up over RDMA towards a program that cannot read the rings.
	on node0 "${run}python3 -c 'import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"\", 7800))
s.listen()
s.close()
time.sleep(8)' >/dev/null 2>&1 &"
	sleep 1
	on node0 "${plain}\$(command -v nc) -l -N 7800 >/tmp/stale.out 2>/dev/null </dev/null &"
	sleep 0.5
	snap
	on node1 "echo hello-stale | ${run}nc -N node0 7800" >/dev/null 2>&1
	sleep 0.5
	got=$(on node0 cat /tmp/stale.out)
	a=$(delta "$s0" node0 conns_opened) || a="unreadable"
	if [ "$got" = hello-stale ] && [ "$a" = 0 ]; then
		ok "a closed listener's registration is not used: a later plain listener gets the data over TCP"
	else
		not_ok "a closed listener's registration is not used # got '$got', $a RDMA connections opened"
	fi

	# Not a board peer: a peers file without node0 keeps it on TCP.
	on node1 "echo '1 198.18.0.11' >/tmp/peers.no0"
	on node1 "(sleep 10 | EUSRV_PEERS=/tmp/peers.no0 ${run}nc node0 7600 >/dev/null 2>&1) >/dev/null 2>&1 &"
	# Up to 8 s for nc to start and connect on a loaded host.
	for i in $(seq 16); do
		sleep 0.5
		c1=$(on node1 eusrvctl conns 2>&1)
		printf '%s\n' "$c1" | grep -q '^tcp .*peer=198.18.0.10:7600 ' && break
	done
	if printf '%s\n' "$c1" | grep -q '^tcp .*peer=198.18.0.10:7600 reason="not a board peer"'; then
		ok "a destination not in the peers file stays on TCP: eusrvctl conns says why"
	else
		not_ok "a destination not in the peers file stays on TCP, reason shown"
		diag "$c1"
	fi
	on node1 'pkill -f "[n]c node0 7600"' >/dev/null 2>&1

	# Every program gone (the brackets keep pkill off the shell that runs
	# it), the driver holds nothing any more.
	for n in node0 node1; do
		on $n 'pkill -f "sor-tes[t] serve"; pkill -x redis-server; pkill -x iperf3
			pkill -x sockperf; pkill -x nginx; pkill -x nc
			pkill -x eusrv-stream; true' >/dev/null 2>&1
	done
	books_balanced node0 node1
fi

# Without the driver: everything over TCP, programs still work.
if [ $driver = yes ] && [ $libc = patched ]; then
	# Every program of a node that listened or connected under the
	# patched libc (the node's command agent too) holds the driver open:
	# a node without it is one booted without it.
	board stop >/dev/null 2>&1
	board_up "2 nodes boot with the patched libc, without eusrv_sor" -n 2 \
		--libc=patched --no-module eusrv_sor
elif [ $driver = yes ]; then
	on node0 'pkill -f "sor-test serve"; pkill -f "sor-test serve-many"; pkill redis-server; pkill iperf3; pkill sockperf' >/dev/null 2>&1
	sleep 1
	check "node1: unload eusrv_sor" on node1 rmmod eusrv_sor
fi
on node0 "$prog serve 7601 >/tmp/sor-serve-tcp.log 2>&1 &"
listening node0 7601
check "no driver on node1: sor-test integrity over TCP${run:+ under eusrv-run}" \
	on node1 "${run}$prog integrity node0 7601 1000000"
out=$(on node1 eusrvctl stats 2>&1)
if [ $? -ne 0 ] && printf '%s\n' "$out" | grep -q 'is eusrv_sor loaded'; then
	ok "no driver: eusrvctl says so clearly"
else
	not_ok "no driver: eusrvctl says so clearly"
	diag "$out"
fi
if [ $driver = yes ] && [ $libc = preload ]; then
	check "node1: reload eusrv_sor" on node1 "insmod $NODE_BUILD/kmod/eusrv_sor.ko"
fi

check "board stop" board stop
tap_done
