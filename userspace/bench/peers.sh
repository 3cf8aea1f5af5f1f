# shellcheck shell=bash
# shellcheck disable=SC2154 # names, prefix, port: run-bench's arrays
# The peers `make bench` compares sockets over RDMA with (sourced by
# run-bench): what a user would pick instead of our transport on the same
# two nodes, over Soft-RoCE (rdma_rxe on the management link mgmt0):
#
#   rsockets  rdma-core's librspreload (eusrv-rsocket-run), a byte stream
#             over an RDMA RC queue pair
#   smc-r     the kernel's SMC-R (AF_SMC through eusrv-smc-run), version 2
#             over RoCE v2, with a pnet table entry and a user EID
#
# Each peer is checked before use; one that cannot run prints one line
# "bench: PEER not run: CAUSE" and the bench goes on without it.  Uses x,
# add_transport and the names/prefix/addr/port arrays of run-bench.

PEERS_IB=rxe0		# the Soft-RoCE device on each node
PEERS_NETDEV=mgmt0	# the link it runs on
PEERS_PNETID=EUSRVMGMT	# SMC's pnet id for that pair
PEERS_UEID=EUSRV-BENCH	# SMC's user EID, the same on both nodes
PEERS_TIMEOUT=120	# s for one check on a node
peers_names=()		# the peers added as transports

# peers_say PEER CAUSE: the one line for a peer that does not run.
peers_say() { echo "bench: $1 not run: $2"; }

# peers_both CMD: CMD on node0 and node1; prints the first failure's
# "node: last line of output" and fails.
peers_both() {
	local n out
	for n in node0 node1; do
		if ! out=$(x --timeout "$PEERS_TIMEOUT" "$n" "$1" 2>&1); then
			echo "$n: $(printf '%s\n' "$out" | grep . | tail -n 1)"
			return 1
		fi
	done
}

# peers_last TEXT: TEXT's last non-empty line, or that nothing came.
peers_last() {
	local l
	l=$(grep . <<<"$1" | tail -n 1)
	echo "${l:-no output in 60 s}"
}

# peers_rxe_pkts NODE: packets rxe0 sent and received so far ("sent rcvd").
peers_rxe_pkts() {
	x "$1" "rdma statistic show link $PEERS_IB/1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) { if ($i == "sent_pkts") s = $(i + 1); if ($i == "rcvd_pkts") r = $(i + 1) } }
			END { print s + 0, r + 0 }' || echo "0 0"
}

# peers_setup: Soft-RoCE on both nodes, then each peer that can run.
peers_setup() {
	local why
	if ! why=$(peers_both "modprobe rdma_rxe 2>&1 || exit 1
		rdma link show $PEERS_IB >/dev/null 2>&1 ||
			rdma link add $PEERS_IB type rxe netdev $PEERS_NETDEV 2>&1 || exit 1
		rdma link show $PEERS_IB/1 | grep -q 'state ACTIVE' || { echo '$PEERS_IB/1 not ACTIVE'; exit 1; }"); then
		peers_say rsockets "Soft-RoCE could not be brought up ($why)"
		peers_say smc-r "Soft-RoCE could not be brought up ($why)"
		return 0
	fi
	peers_rsockets
	peers_smc
}

peers_rsockets() {
	local why
	if ! why=$(peers_both "eusrv-rsocket-run true 2>&1"); then
		peers_say rsockets "$why"
		return 0
	fi
	# librspreload reaches rxe through rdma-core's user-space provider.
	if ! why=$(peers_both "ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 ||
		{ echo 'no user-space rxe provider (Debian: ibverbs-providers)'; exit 1; }"); then
		peers_say rsockets "$why"
		return 0
	fi
	add_transport rsockets eusrv-rsocket-run node0 7500
	peers_names+=(rsockets)
}

# SMC-R over rxe needs what Linux before 6.13 (Debian bookworm's 6.1) does
# not give: rxe's answer to a QP query without the QP's current state
# (eusrv-rdma-qpstate), and SMC's receive CQ, armed with IB_CQ_SOLICITED_MASK,
# never signals on rxe before Linux 6.5 (docs/performance.md).  Checked
# first, since a failed SMC-R set-up on such a kernel leaves connect() and
# SMC's handshake worker blocked for good.
peers_smc() {
	local why out b a rc
	if ! why=$(peers_both "modprobe smc 2>&1 && eusrv-smc-setup pnet $PEERS_PNETID $PEERS_NETDEV $PEERS_IB 1 &&
		eusrv-smc-setup ueid $PEERS_UEID && command -v eusrv-smc-run >/dev/null"); then
		peers_say smc-r "$why"
		return 0
	fi
	if ! x node0 'command -v eusrv-rdma-qpstate' >/dev/null 2>&1; then
		peers_say smc-r "eusrv-rdma-qpstate not built (libibverbs-dev missing): cannot tell whether SMC-R can use $PEERS_IB"
		return 0
	fi
	rc=0
	out=$(x node0 "eusrv-rdma-qpstate $PEERS_IB" 2>&1) || rc=$?
	if [ "$rc" = 1 ]; then
		peers_say smc-r "$PEERS_IB does not report a QP's current state (eusrv-rdma-qpstate: ${out//$'\n'/ }), so SMC-R's link never becomes sendable (ENOLINK on the first CONFIRM LINK, kernel $(x node0 'uname -r' 2>/dev/null); fixed in Linux 6.13; docs/performance.md)"
		return 0
	elif [ "$rc" != 0 ]; then
		peers_say smc-r "cannot check $PEERS_IB: $(printf '%s\n' "$out" | grep . | tail -n 1)"
		return 0
	fi
	# A connection that must really use SMC-R: packets on rxe0.
	x node0 "eusrv-smc-run eusrv-pingpong server -1 -p 7519 >/tmp/smc-check.log 2>&1 &" || true
	sleep 1
	b=$(peers_rxe_pkts node1)
	if ! out=$(x --timeout 90 node1 "timeout 60 eusrv-smc-run eusrv-pingpong client node0 -p 7519 -n 20 -w 0 -s 16" 2>&1); then
		peers_say smc-r "a checking connection failed: $(printf '%s\n' "$out" | grep . | tail -n 1)"
		return 0
	fi
	a=$(peers_rxe_pkts node1)
	if [ "${a% *}" -le "${b% *}" ]; then
		peers_say smc-r "a checking connection fell back to TCP (no packet on $PEERS_IB)"
		return 0
	fi
	add_transport smc-r eusrv-smc-run node0 7510
	peers_names+=(smc-r)
}

# peers_wait_listening: rsockets listen in the RDMA CM, not in TCP, and the
# first rsocket of a process takes a while under emulation: wait for the
# servers' listeners (30 s).
peers_wait_listening() {
	local i p k
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = rsockets ] || continue
		p=${port[$i]}
		for k in $(seq 30); do
			[ "$(x node0 "rdma res show cm_id" 2>/dev/null | grep -c "LISTEN.*0\.0\.0\.0:\($p\|$((p + 1))\) ")" -ge 2 ] && break
			sleep 1
		done
	done
}

# peers_packets: the RoCE packets node1 sent and received over the whole
# two-node part, to show that the peers' figures are RDMA ones.
peers_packets() {
	[ ${#peers_names[@]} -gt 0 ] || return 0
	echo "   (${peers_names[*]}: $PEERS_IB on node1 sent/received $(peers_rxe_pkts node1 | sed 's| |/|') RoCE packets in all)"
}

# peers_servers PORTBASE PGPORT: the servers of run-bench's servers() under
# each peer, when they start: redis and memcached of their own on node0,
# PostgreSQL's cluster (PGPORT, stopped once the others are measured)
# restarted under the peer.  Prints a table of medians, or for each server
# that does not run the line with its cause.
peers_servers() {
	local pb=$1 pgport=$2 i k p pre peer log cause out
	[ ${#peers_names[@]} -gt 0 ] || return 0
	echo
	echo "== the peers' servers on node0, clients on node1 under the same peer, $ROUNDS rounds: median [spread]"
	for k in "${!peers_names[@]}"; do
		peer=${peers_names[$k]}
		pre=
		for i in "${!names[@]}"; do
			[ "${names[$i]}" = "$peer" ] && pre=${prefix[$i]}
		done
		p=$((pb + 20 + 4 * k))
		# redis-server and memcached under the peer; one that is not
		# running after a few seconds gives its log's last error.
		x node0 "$pre redis-server --port $p --bind 0.0.0.0 --protected-mode no --save '' --appendonly no --logfile '' >/tmp/redis-$p.log 2>&1 &
			$pre memcached -u nobody -p $((p + 1)) -U 0 -v >/tmp/memcached-$p.log 2>&1 &" || true
		x node0 "su postgres -s /bin/sh -c '/usr/lib/postgresql/*/bin/pg_ctl -D /tmp/pg/data -m fast -w stop' >/dev/null 2>&1
			su postgres -s /bin/sh -c '$pre /usr/lib/postgresql/*/bin/postgres -D /tmp/pg/data -p $pgport -c listen_addresses=* -k /tmp/pg >/tmp/pg-$peer.log 2>&1 &'" || true
		sleep 5
		local ok_r=1 ok_m=1 ok_p=1 res_r="" res_m="" res_p=""
		if ! x node0 "pgrep -f '[r]edis-server .*:$p' >/dev/null"; then
			ok_r=0
			log=$(x node0 "cat /tmp/redis-$p.log" 2>/dev/null || true)
			cause=$(grep -m 1 -o 'Guru Meditation: .*#' <<<"$log" || grep -i -m 1 'error\|fail' <<<"$log" || echo "exited")
			echo "bench: $peer: redis-server not run: ${cause%#}"
		fi
		if ! x node0 "pgrep -f '[m]emcached .*-p $((p + 1))' >/dev/null"; then
			ok_m=0
			log=$(x node0 "cat /tmp/memcached-$p.log" 2>/dev/null | grep -iv '^slab class\|^<[0-9]* server listening' || true)
			echo "bench: $peer: memcached not run: $(grep -i -m 2 'fail\|not permitted\|error' <<<"$log" | tr '\n' ' ' | sed 's/ *$//')"
		fi
		for i in $(seq 25); do
			x node0 "pg_isready -q -h /tmp/pg -p $pgport" >/dev/null 2>&1 && break
			sleep 1
		done
		if ! x node0 "pg_isready -q -h /tmp/pg -p $pgport" >/dev/null 2>&1; then
			ok_p=0
			cause=$(x node0 "pg_isready -h /tmp/pg -p $pgport | sed 's/.* - //'; echo '; its children wait in:';
				ps -o wchan:28= --ppid \$(head -n 1 /tmp/pg/data/postmaster.pid)" 2>&1 | tr '\n' ' ' | sed 's/ *$//' || true)
			echo "bench: $peer: PostgreSQL not ready after 30 s under $pre (postmaster: $cause)"
		fi
		# The clients: one bounded try first, whose error is the cause if
		# any (a client under a peer may hang rather than fail).
		if [ $ok_r = 1 ]; then
			out=$(x node1 "timeout 60 $pre redis-benchmark -h node0 -p $p -q -n 2000 -c 8 -t get 2>&1" | tr '\r' '\n' || true)
			grep -q '^GET: ' <<<"$out" || { ok_r=0; echo "bench: $peer: redis-benchmark not run: $(peers_last "$out")"; }
		fi
		if [ $ok_m = 1 ]; then
			out=$(x node1 "timeout 60 $pre memcaslap -s node0:$((p + 1)) -t 2s -T 1 -c 8 2>&1" || true)
			grep -q '^Run time:' <<<"$out" || { ok_m=0; echo "bench: $peer: memaslap not run: $(peers_last "$out")"; }
		fi
		if [ $ok_p = 1 ]; then
			out=$(x node1 "timeout 60 $pre pgbench -h node0 -p $pgport -U postgres -S -c 4 -j 1 -T 2 bench 2>&1" || true)
			grep -q '^tps = ' <<<"$out" || { ok_p=0; echo "bench: $peer: pgbench not run: $(peers_last "$(grep -v '^pgbench (' <<<"$out" | head -n 1)")"; }
		fi
		for _ in $(seq "$ROUNDS"); do
			[ $((ok_r + ok_m + ok_p)) -gt 0 ] || break
			[ $ok_r = 0 ] || res_r+="$(x node1 "$pre redis-benchmark -h node0 -p $p -q -n 20000 -c 8 -t get 2>&1" |
				tr '\r' '\n' | sed -n 's/^GET: \([0-9.]*\) requests per second.*/\1/p' | tail -n 1) "
			[ $ok_m = 0 ] || res_m+="$(x node1 "$pre memcaslap -s node0:$((p + 1)) -t ${SERVER_SECS}s -T 1 -c 8 2>&1" |
				awk '/^Run time:/ { for (i = 1; i < NF; i++) if ($i == "TPS:") t = $(i + 1) } END { print t }') "
			[ $ok_p = 0 ] || res_p+="$(x node1 "$pre pgbench -h node0 -p $pgport -U postgres -S -c 4 -j 1 -T $SERVER_SECS bench 2>&1" |
				sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | tail -n 1) "
		done
		[ $ok_r = 0 ] || printf '%-10s %-34s %s\n' "$peer" "redis-benchmark GET (req/s)" "$(stat "$res_r")"
		[ $ok_m = 0 ] || printf '%-10s %-34s %s\n' "$peer" "memcached memaslap (ops/s)" "$(stat "$res_m")"
		[ $ok_p = 0 ] || printf '%-10s %-34s %s\n' "$peer" "pgbench select-only (tps)" "$(stat "$res_p")"
		# Leave the cluster stopped for the next peer; the others end
		# with the board.
		x node0 "su postgres -s /bin/sh -c '/usr/lib/postgresql/*/bin/pg_ctl -D /tmp/pg/data -m immediate -t 10 -w stop' >/dev/null 2>&1 ||
			kill -9 \$(head -n 1 /tmp/pg/data/postmaster.pid)" >/dev/null 2>&1 || true
	done
}
