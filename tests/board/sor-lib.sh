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

# over_rdma NAME BYTES: since the last snap, both nodes together sent and
# received at least BYTES over RDMA in at least one CDMA transfer.
over_rdma() {
	local name=$1 bytes=$2
	if ! deltas bytes_sent bytes_rcvd transfers; then
		not_ok "$name: over RDMA # eusrvctl stats unreadable on a node"
		return
	fi
	if [ "$d_bytes_sent" -ge "$bytes" ] && [ "$d_bytes_rcvd" -ge "$bytes" ] &&
		[ "$d_transfers" -ge 1 ]; then
		ok "$name: over RDMA (sent=$d_bytes_sent rcvd=$d_bytes_rcvd transfers=$d_transfers >= $bytes bytes)"
	else
		not_ok "$name: over RDMA # sent=$d_bytes_sent rcvd=$d_bytes_rcvd transfers=$d_transfers, wanted >= $bytes"
	fi
}

# opened NAME N: since the last snap, both nodes opened at least N
# connections over RDMA.
opened() {
	if ! deltas conns_opened; then
		not_ok "$1: over RDMA # eusrvctl stats unreadable on a node"
		return
	fi
	if [ "$d0_conns_opened" -ge "$2" ] && [ "$d1_conns_opened" -ge "$2" ]; then
		ok "$1: over RDMA ($d0_conns_opened and $d1_conns_opened connections opened >= $2)"
	else
		not_ok "$1: over RDMA # opened $d0_conns_opened and $d1_conns_opened, wanted >= $2"
	fi
}
