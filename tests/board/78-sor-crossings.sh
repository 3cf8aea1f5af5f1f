#!/bin/bash
# shellcheck disable=SC2154 # a_*, b_*, d_*: set by eval (conn_x, deltas); prog: build_prog
# The crossings of the sockets-over-RDMA data path (docs/protocol.md
# section 4), counted by the drivers, on two nodes: 1,000 checked 16-byte
# round trips (tests/board/progs/sor-xcount.c) with
#  - a sleeping reader (blocking echo server, client that does not spin):
#    per one-way message 1 doorbell, 1 interrupt, at most 2 system calls;
#  - spinning readers (EUSRV_SPIN_US on both sides): 1 doorbell, no
#    interrupt, 1 system call;
#  - an echo server under a level-triggered and under an edge-triggered
#    epoll: per request and response 2 doorbells, 2 interrupts, and no
#    wake-up that found nothing (the server's thread sleeps once per
#    request, the driver counts no empty wake-up);
#  - an edge-triggered epoll server whose client spins, on 10 connections
#    of 1,000 round trips: none may hang.  Such a poller reports what is
#    there and then sleeps without looking again, so a wake-up lost while
#    data lands as it arms hangs the loop; a client that spins answers at
#    once and makes that moment likely (before the arm was kept set there,
#    one connection in two hung).
# And the board model's priority (qemu/model/priority.h): batch while the
# readers sleep, real-time while they spin, batch again when they sleep.
# The connection's own counters (eusrvctl conns --closed, this test's port)
# are exact; the nodes' interrupts (eusrvctl stats) also count keepalives,
# so they get a small allowance.  Counts, not timings: this is a test.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/board/lib.sh"
. "$TOP/tests/board/sor-lib.sh"
board_suite_begin

build_prog sor-xcount
board_up "2 nodes boot" -n 2
books_baseline node0 node1

N=1000
DIR=${EUSRV_BOARD_DIR:-/dev/shm/eusrv-board}

# prio_lines CLASS: how often the board model has gone CLASS (its log).
prio_lines() {
	grep -c "priority: $1 (" "$DIR/model.log"
}

# prio_check NAME WANT RT0 BATCH0: since RT0 and BATCH0 (prio_lines
# before the run) the model went WANT (real-time or batch) and not the
# other; real-time is skipped where the model may not run so.
prio_check() {
	local rt batch
	rt=$(($(prio_lines real-time) - $3))
	batch=$(($(prio_lines batch) - $4))
	if [ "$2" = real-time ] && grep -q 'priority: never real-time here' "$DIR/model.log"; then
		ok "$1: the board model's priority # SKIP it may not run real-time here"
	elif [ "$2" = real-time ] && [ "$rt" -gt 0 ]; then
		ok "$1: the board model went real-time ($rt times)"
	elif [ "$2" = batch ] && [ "$batch" -gt 0 ] && [ "$rt" -eq 0 ]; then
		ok "$1: the board model went batch, never real-time ($batch times)"
	else
		not_ok "$1: the board model goes $2 # real-time $rt times, batch $batch times"
	fi
}

# conn_x NODE PORT: this test's connection on PORT (the newest record with
# it as local or peer port): its x_* counters as shell assignments.
conn_x() {
	on "$1" eusrvctl conns --closed 2>/dev/null | awk -v port="$2" '
		/^(rdma|closed) / && ($0 ~ ":" port " " || $0 ~ ":" port "$") {
			line = $0
			if (!found) {
				found = 1
				n = split(line, f, " ")
				for (i = 1; i <= n; i++)
					if (f[i] ~ /^x_[a-z_]+=[0-9]+$/)
						print f[i]
			}
		}
		END { exit !found }'
}

# ratio A B: A/B with three decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'
}

# le A B: A <= B (decimals).
le() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# run NAME PORT MODE SPIN: one loop of N round trips, both sides spinning
# SPIN microseconds (EUSRV_SPIN_US; 0: they sleep at once); sets, per one-way
# message (or per request for an epoll server), db, irq, calls, and
# empty (empty wake-ups in total), swake (the server's wake-ups per
# request), nirq (both nodes' interrupts, keepalives included).
run() {
	local name=$1 port=$2 mode=$3 spin=$4 out sout x0 x1 m
	local env="EUSRV_SPIN_US=$spin "
	on node0 "${env}eusrv-run $prog server $port $mode >/tmp/xcount-$port.log 2>&1 &"
	listening node0 "$port"
	snap
	if ! out=$(on node1 "${env}eusrv-run $prog client 198.18.0.10 $port $N 16" 2>&1) ||
		! printf '%s\n' "$out" | grep -q "^checked=$N$"; then
		not_ok "$name: $N round trips checked"
		diag "$out"
		return 1
	fi
	ok "$name: $N round trips, every reply checked"
	sleep 1
	sout=$(on node0 "cat /tmp/xcount-$port.log")
	x0=$(conn_x node0 "$port") && x1=$(conn_x node1 "$port") &&
		deltas mbox_irqs cdma_irqs || {
		not_ok "$name: the connection's counters on both nodes"
		return 1
	}
	# shellcheck disable=SC2046
	eval $(printf '%s\n' "$x0" | sed 's/^x_/a_/')
	# shellcheck disable=SC2046
	eval $(printf '%s\n' "$x1" | sed 's/^x_/b_/')
	m=$((2 * N))
	case $mode in lt|et) m=$N ;; esac
	db=$(ratio $((a_doorbells + b_doorbells)) $m)
	irq=$(ratio $((a_irqs + b_irqs)) $m)
	calls=$(ratio $((a_pushes + a_waits + a_credits + a_lock_calls + b_pushes + b_waits + b_credits + b_lock_calls)) $m)
	empty=$((a_empty_wakes + b_empty_wakes))
	nirq=$(ratio $((d_mbox_irqs + d_cdma_irqs)) $m)
	swake=$(printf '%s\n' "$sout" | sed -n 's/^wakeups=[0-9]* per=//p')
	diag "$name: per $( [ $m = $N ] && echo request || echo 'one-way message'): doorbells $db, interrupts $irq (nodes: $nirq), data-path calls $calls, empty wake-ups $empty, server wake-ups per request ${swake:-?}, poll looks that found nothing $((a_poll_empty + b_poll_empty))"
}

# The bounds allow the connection's set-up and close (a NACK each way).
rt0=$(prio_lines real-time) batch0=$(prio_lines batch)
if run "sleeping reader" 7801 block 0; then
	le "$db" 1.01 && ok "sleeping reader: 1 doorbell per one-way message ($db)" ||
		not_ok "sleeping reader: 1 doorbell per one-way message # $db"
	le "$irq" 1.01 && le "$nirq" 1.05 &&
		ok "sleeping reader: at most 1 interrupt per one-way message ($irq; nodes $nirq)" ||
		not_ok "sleeping reader: at most 1 interrupt per one-way message # $irq; nodes $nirq"
	le "$calls" 2.01 && ok "sleeping reader: at most 2 system calls per one-way message ($calls)" ||
		not_ok "sleeping reader: at most 2 system calls per one-way message # $calls"
	[ "$empty" -eq 0 ] && ok "sleeping reader: no empty wake-up" ||
		not_ok "sleeping reader: no empty wake-up # $empty"
	prio_check "sleeping reader" batch "$rt0" "$batch0"
fi

rt0=$(prio_lines real-time) batch0=$(prio_lines batch)
if run "spinning readers" 7802 block 100000; then
	le "$db" 1.01 && ok "spinning readers: 1 doorbell per one-way message ($db)" ||
		not_ok "spinning readers: 1 doorbell per one-way message # $db"
	le "$irq" 0.02 && ok "spinning readers: no interrupt ($irq per one-way message)" ||
		not_ok "spinning readers: no interrupt # $irq per one-way message"
	le "$calls" 1.02 && ok "spinning readers: 1 system call per one-way message ($calls)" ||
		not_ok "spinning readers: 1 system call per one-way message # $calls"
	prio_check "spinning readers" real-time "$rt0" "$batch0"
fi

for t in "lt 7803 level" "et 7804 edge"; do
	set -- $t
	rt0=$(prio_lines real-time) batch0=$(prio_lines batch)
	if run "$3-triggered epoll server" "$2" "$1" 0; then
		le "$db" 2.02 && ok "$3-triggered epoll: 2 doorbells per request ($db)" ||
			not_ok "$3-triggered epoll: 2 doorbells per request # $db"
		le "$irq" 2.02 && le "$nirq" 2.1 &&
			ok "$3-triggered epoll: at most 2 interrupts per request ($irq; nodes $nirq)" ||
			not_ok "$3-triggered epoll: at most 2 interrupts per request # $irq; nodes $nirq"
		[ "$empty" -eq 0 ] && [ -n "$swake" ] && le "$swake" 1.01 &&
			ok "$3-triggered epoll: no wake-up that reports nothing (server $swake per request)" ||
			not_ok "$3-triggered epoll: no wake-up that reports nothing # driver $empty, server ${swake:-?} per request"
		prio_check "$3-triggered epoll" batch "$rt0" "$batch0"
	fi
done

# et_no_hang I: connection I of the edge-triggered loop with a spinning
# client; one that is not done in 60 s is a hang: both nodes' state and
# both programs' stacks are dumped before they are killed.
et_no_hang() {
	local port=$((7810 + $1)) t

	on node0 "EUSRV_SPIN_US=0 eusrv-run $prog server $port et >/tmp/xcount-$port.log 2>&1 &"
	listening node0 "$port"
	on node1 "EUSRV_SPIN_US=100000 eusrv-run $prog client 198.18.0.10 $port $N 16 \
		>/tmp/xcount-c$port.log 2>&1 & echo \$! >/tmp/xcount-c$port.pid" >/dev/null
	for t in $(seq 60); do
		on node1 "kill -0 \$(cat /tmp/xcount-c$port.pid) 2>/dev/null" >/dev/null 2>&1 || break
		sleep 1
	done
	if on node1 "grep -q '^checked=$N$' /tmp/xcount-c$port.log" >/dev/null 2>&1; then
		return 0
	fi
	diag "connection $1 (port $port): $(on node1 "cat /tmp/xcount-c$port.log" 2>&1 | tr '\n' ' ')"
	dump_state
	diag "stacks: $(on node1 "cat /proc/\$(cat /tmp/xcount-c$port.pid)/stack" 2>&1 | tr '\n' ' ') | $(
		on node0 "cat /proc/\$(pgrep -f 'sor-xcoun[t] server $port')/stack" 2>&1 | tr '\n' ' ')"
	on node1 "kill \$(cat /tmp/xcount-c$port.pid)" >/dev/null 2>&1
	on node0 "pkill -f 'sor-xcoun[t] server $port'" >/dev/null 2>&1
	return 1
}

hung=
for i in $(seq 10); do
	et_no_hang "$i" || { hung=$i; break; }
done
[ -z "$hung" ] && ok "edge-triggered epoll, spinning client: 10 connections of $N round trips, none hung" ||
	not_ok "edge-triggered epoll, spinning client: 10 connections of $N round trips # connection $hung hung"

books_balanced node0 node1
check "board stop" board stop
tap_done
