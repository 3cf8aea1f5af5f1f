# Shared by the sockets-over-RDMA board suites (sourced after lib.sh): the
# driver's counters on node0 and node1, to tell RDMA from TCP.

# stat NODE KEY: one counter of eusrvctl stats; fails (printing nothing)
# when eusrvctl fails or has no such counter, so that an unreadable counter
# never passes for a zero.
stat() {
	local out v
	out=$(on "$1" eusrvctl stats 2>/dev/null) || return 1
	v=$(printf '%s\n' "$out" | sed -n "s/^$2=//p")
	case $v in '' | *[!0-9]*) return 1 ;; esac
	echo "$v"
}

# snap: remember both nodes' counters (empty when unreadable: every delta
# then fails).
snap() {
	s0=$(on node0 eusrvctl stats 2>/dev/null) || s0=
	s1=$(on node1 eusrvctl stats 2>/dev/null) || s1=
}

# delta TEXT_BEFORE NODE KEY: growth of KEY on NODE since TEXT_BEFORE;
# fails when either reading is missing.
delta() {
	local before now
	before=$(printf '%s\n' "$1" | sed -n "s/^$3=//p")
	case $before in '' | *[!0-9]*) return 1 ;; esac
	now=$(stat "$2" "$3") || return 1
	echo $((now - before))
}

# deltas NODE0_KEY...: sets d_KEY to node0's plus node1's growth of each
# KEY since the last snap; fails when any counter is unreadable.
deltas() {
	local k a b
	for k in "$@"; do
		a=$(delta "$s0" node0 "$k") || return 1
		b=$(delta "$s1" node1 "$k") || return 1
		eval "d_$k=\$((a + b)) d0_$k=\$a d1_$k=\$b"
	done
}

# scoped NODE BASE PORT: this test's own connections on NODE, from the
# driver's per-connection records (eusrvctl conns --closed: live ones and
# the last EUSRV_SOR_HISTORY that ended): those established after the
# serial BASE (conns_opened at the last snap) with PORT as their local or
# peer port, each counted once.  Prints "N SENT RCVD TRANSFERS OTHER",
# OTHER being the connections opened since BASE on other ports; fails when
# eusrvctl does.
scoped() {
	local out
	out=$(on "$1" eusrvctl conns --closed 2>/dev/null) || return 1
	printf '%s\n' "$out" | grep -q '^total rdma=' || return 1
	printf '%s\n' "$out" | awk -v base="$2" -v port="$3" '
		/^(rdma|closed) / {
			delete f
			for (i = 2; i <= NF; i++) {
				# key=value fields only: error=... may hold words
				if ($i !~ /=/)
					continue
				k = $i; sub(/=.*/, "", k)
				v = $i; sub(/^[^=]*=/, "", v)
				f[k] = v
			}
			if (f["serial"] + 0 <= base + 0 || seen[f["serial"]]++)
				next
			lp = f["local"]; sub(/.*:/, "", lp)
			rp = f["peer"]; sub(/.*:/, "", rp)
			if (lp == port || rp == port) {
				n++; sent += f["sent"]; rcvd += f["rcvd"]; xf += f["transfers"]
			} else {
				other++
			}
		}
		END { printf "%d %d %d %d %d\n", n, sent, rcvd, xf, other }'
}

# scoped_both PORT: scoped on node0 and node1 since the last snap; sets
# n0 n1 (connections), sent rcvd xfers (both nodes together); fails when a
# node's records or counters cannot be read.
scoped_both() {
	local b0 b1 o0 o1 x
	b0=$(printf '%s\n' "$s0" | sed -n 's/^conns_opened=//p')
	b1=$(printf '%s\n' "$s1" | sed -n 's/^conns_opened=//p')
	[ -n "$b0" ] && [ -n "$b1" ] || return 1
	read -r n0 sent rcvd xfers o0 < <(scoped node0 "$b0" "$1") || return 1
	read -r n1 x y z o1 < <(scoped node1 "$b1" "$1") || return 1
	[ -n "$n0" ] && [ -n "$n1" ] || return 1
	sent=$((sent + x))
	rcvd=$((rcvd + y))
	xfers=$((xfers + z))
}

# records PORT: both nodes' records of PORT, as diagnostics of a failure.
records() {
	local n
	for n in node0 node1; do
		diag "$n (conns_opened before: $(printf '%s\n' "$([ $n = node0 ] && echo "$s0" || echo "$s1")" | sed -n 's/^conns_opened=//p')):"
		diag "$(on $n eusrvctl conns --closed 2>&1 | grep -E ":$1 |^total" | head -n 20)"
	done
}

# over_rdma NAME BYTES PORT: since the last snap, connections of this test
# (port PORT) exist on both nodes and together sent and received at least
# BYTES over RDMA in at least one CDMA transfer.  Only the records the
# driver keeps count: a test that opens more connections than its history
# holds passes the bytes of those it kept.
over_rdma() {
	local name=$1 bytes=$2 port=$3
	if ! scoped_both "$port"; then
		not_ok "$name: over RDMA # eusrvctl conns or stats unreadable on a node"
		return
	fi
	if [ "$n0" -ge 1 ] && [ "$n1" -ge 1 ] && [ "$sent" -ge "$bytes" ] &&
		[ "$rcvd" -ge "$bytes" ] && [ "$xfers" -ge 1 ]; then
		ok "$name: over RDMA (port $port: $n0 + $n1 connections, sent=$sent rcvd=$rcvd transfers=$xfers >= $bytes bytes)"
	else
		not_ok "$name: over RDMA # port $port: $n0 + $n1 connections, sent=$sent rcvd=$rcvd transfers=$xfers, wanted >= $bytes"
		records "$port"
	fi
}

# opened NAME N PORT: since the last snap, both nodes opened at least N
# connections over RDMA (conns_opened), and the records kept of them show
# port PORT: at least min(N, history) on each node.
opened() {
	local want=$2 kept
	kept=$want
	[ "$kept" -le 1024 ] || kept=1024
	if ! deltas conns_opened || ! scoped_both "$3"; then
		not_ok "$1: over RDMA # eusrvctl conns or stats unreadable on a node"
		return
	fi
	if [ "$d0_conns_opened" -ge "$want" ] && [ "$d1_conns_opened" -ge "$want" ] &&
		[ "$n0" -ge "$kept" ] && [ "$n1" -ge "$kept" ]; then
		ok "$1: over RDMA ($d0_conns_opened and $d1_conns_opened connections opened >= $want, port $3 on $n0 and $n1 of the records)"
	else
		not_ok "$1: over RDMA # opened $d0_conns_opened and $d1_conns_opened, port $3 on $n0 and $n1 records, wanted >= $want"
		records "$3"
	fi
}

# The books of the driver: what it holds for connections (connections, ring
# memory a peer may still write, all ring memory, pages charged to users'
# locked memory, LISTEN registrations), all back to 0 once no program
# holds a connection or listens (LISTEN registrations: back to what the
# node had when it booted, books_baseline).  A field the driver does not
# print is not checked (a driver from before it); conns and quarantined
# it always has, so that an unreadable reading never passes.
BOOKS="conns quarantined ring_bytes charged_pages listeners"
BOOKS_ALWAYS="conns quarantined"
BOOKS_WAIT=10	# s for the quarantine to drain and connections to retire
BOOKS_POLL=0.5	# s between readings
# LISTEN registrations each node had before the suite's programs ran
# (books_baseline): under the patched libc the node's command agent, whose
# listen() goes through the library too, may hold one of its own.
declare -A books_base=()

# books_baseline NODE...: remember NODE's LISTEN registrations now, just
# after it booted, as the count its books come back to.
books_baseline() {
	local n out
	for n in "$@"; do
		out=$(on "$n" eusrvctl stats 2>/dev/null) || out=
		books_base[$n]=$(printf '%s\n' "$out" | sed -n 's/^listeners=//p')
	done
}

# unbalanced NODE STATS: the fields of the books in STATS (NODE's eusrvctl
# stats) that are not 0 (listeners: not back to NODE's baseline), or
# missing though the driver always prints them; nothing if the books
# balance.
unbalanced() {
	local k v want
	for k in $BOOKS; do
		v=$(printf '%s\n' "$2" | sed -n "s/^$k=//p")
		want=0
		[ $k = listeners ] && want=${books_base[$1]:-0}
		if [ -z "$v" ]; then
			case " $BOOKS_ALWAYS " in *" $k "*) echo "$k missing" ;; esac
		elif [ "$v" != "$want" ]; then
			echo "$k=$v"
		fi
	done
}

# books_balanced NODE...: one point per NODE, "books balanced on NODE":
# within BOOKS_WAIT s of its programs' ending, eusrvctl stats on NODE shows
# every field of the books at 0.  A failure names the fields that are not,
# and the connections still listed.
books_balanced() {
	local n out left deadline
	for n in "$@"; do
		deadline=$((SECONDS + BOOKS_WAIT))
		while :; do
			# 125: read, but a kernel's trouble, which the suite's last
			# point reports.
			out=$(on "$n" eusrvctl stats 2>/dev/null)
			case $? in
			0 | 125) left=$(unbalanced "$n" "$out") ;;
			*) left="eusrvctl stats failed" ;;
			esac
			[ -n "$left" ] && [ $SECONDS -lt $deadline ] || break
			sleep $BOOKS_POLL
		done
		if [ -z "$left" ]; then
			ok "books balanced on $n"
		else
			not_ok "books balanced on $n # after ${BOOKS_WAIT} s: $(printf '%s\n' "$left" | paste -sd ' ')"
			diag "$(on "$n" 'eusrvctl conns' 2>&1 | head -n 20)"
		fi
	done
}

# The echo service and client that run beside an attack on the driver
# (suites 65 and 66): sor-test's echo server on node1, and on another
# node rounds of `sor-test soak` through it, every byte checked.

# echo_service NAME SORTEST PORT: `SORTEST serve PORT` on node1, a process
# group of its own (its pid in /tmp/NAME-svc.pid, so that
# `kill -- -PID` ends it with its children), its output in
# /tmp/NAME-svc.log.
echo_service() {
	on node1 "setsid sh -c 'echo \$\$ >/tmp/$1-svc.pid; exec eusrv-run $2 serve $3' \
		>/tmp/$1-svc.log 2>&1 </dev/null &" >/dev/null
}

# echo_answers NODE SORTEST PORT BYTES: from NODE, the service on node1's
# PORT echoes BYTES, checked (status 125, a kernel's trouble elsewhere, is
# the suite's last point's).
echo_answers() {
	on "$1" "eusrv-run $2 integrity node1 $3 $4" 2>&1
	case $? in 0 | 125) return 0 ;; *) return 1 ;; esac
}

# echo_up NAME NODE SORTEST PORT: the point NAME, that the service on
# node1's PORT answers NODE (100 kB), given 30 s to come up.
echo_up() {
	local _
	for _ in $(seq 30); do
		echo_answers "$2" "$3" "$4" 100000 >/dev/null && break
		sleep 1
	done
	check "$1" echo_answers "$2" "$3" "$4" 100000
}

# echo_client_script FILE DIR SORTEST PORT: writes FILE, the echo client,
# for `sh FILE` on a node: rounds of `SORTEST soak node1 PORT 2` (2
# connections x 1 MB each way, checked) until DIR/stop.  A round counts as
# over RDMA when the driver's records show both its connections (its pid,
# 1 MB + 1 byte sent, 1 MB received).  DIR/count holds
# "rounds=N rdma=N failed=N", and "end" once the client ended; a failed
# round's output goes to DIR/errors, dated.
echo_client_script() {
	local dir=$2 sortest=$3 port=$4
	# FILE's directory may be the host build's, which only x86 nodes' builds make.
	mkdir -p "$(dirname "$1")"
	cat >"$1" <<EOS
#!/bin/sh
rounds=0 rdma=0 failed=0
rm -rf $dir && mkdir -p $dir
while [ ! -e $dir/stop ]; do
	eusrv-run $sortest soak node1 $port 2 >$dir/last 2>&1 &
	pid=\$!
	if wait \$pid; then
		rounds=\$((rounds + 1))
		n=\$(eusrvctl conns --closed | grep -c "^closed .*:$port .* sent=1048577 rcvd=1048576 .* pid=\$pid ")
		[ "\$n" = 2 ] && rdma=\$((rdma + 1))
	else
		failed=\$((failed + 1))
		{ date; cat $dir/last; } >>$dir/errors
	fi
	echo "rounds=\$rounds rdma=\$rdma failed=\$failed" >$dir/count
done
echo end >>$dir/count
EOS
}

# echo_rounds NODE DIR OK_FORMAT NAME: stops the echo client on NODE (of
# echo_client_script, in DIR) and gives it 60 s to end its round; then two
# points.  Its rounds had no error: OK_FORMAT, a printf format given the
# bytes checked and the rounds, or NAME when it failed (DIR/errors' last
# lines); every round went over RDMA.
echo_rounds() {
	local node=$1 dir=$2 count rounds rdma failed _
	on "$node" "touch $dir/stop" >/dev/null 2>&1
	for _ in $(seq 60); do
		# 125: done, but a kernel reported trouble (the last point's).
		on "$node" "grep -q end $dir/count" >/dev/null 2>&1
		case $? in 0 | 125) break ;; esac
		sleep 1
	done
	count=$(on "$node" "head -n 1 $dir/count" 2>/dev/null)
	rounds=$(kv rounds "$count")
	rdma=$(kv rdma "$count")
	failed=$(kv failed "$count")
	if [ "${rounds:-0}" -ge 1 ] && [ "$failed" = 0 ]; then
		# shellcheck disable=SC2059
		ok "$(printf "$3" $((rounds * 2 * 1048576)) "$rounds")"
	else
		not_ok "$4 # ${count:-no count}"
		diag "$(on "$node" "tail -n 20 $dir/errors" 2>&1)"
	fi
	if [ -n "$rounds" ] && [ "$rdma" = "$rounds" ]; then
		ok "every echo round went over RDMA ($rdma of $rounds)"
	else
		not_ok "every echo round went over RDMA # ${rdma:-?} of ${rounds:-?}"
	fi
}

# listening NODE PORT...: wait (30 s at most) until NODE has a TCP listener
# on every PORT: a server started in the background is ready only then, and
# on a loaded host a fixed pause is not enough.
listening() {
	local n=$1 p
	shift
	for p in "$@"; do
		on "$n" "for i in \$(seq 300); do
			[ -n \"\$(ss -Hltn 'sport = :$p')\" ] && exit 0
			sleep 0.1
		done; exit 1" >/dev/null 2>&1
	done
	return 0
}

# dump_state: both nodes' connections and counters, when something went
# wrong (before anything is killed).
dump_state() {
	local n
	for n in node0 node1; do
		diag "$n eusrvctl conns:"
		on $n 'eusrvctl conns; eusrvctl stats' 2>&1 | sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
	done
}
