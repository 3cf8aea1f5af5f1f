# Shared by the sockets-over-RDMA board suites (sourced after lib.sh): the
# driver's counters on node0 and node1, to tell RDMA from TCP.

# stat NODE KEY: one counter of eusrvctl stats.
stat() {
	on "$1" eusrvctl stats 2>/dev/null | sed -n "s/^$2=//p"
}

# snap: remember both nodes' counters.
snap() {
	s0=$(on node0 eusrvctl stats 2>/dev/null)
	s1=$(on node1 eusrvctl stats 2>/dev/null)
}

# delta TEXT_BEFORE NODE KEY: growth of KEY on NODE since TEXT_BEFORE.
delta() {
	local before now
	before=$(printf '%s\n' "$1" | sed -n "s/^$3=//p")
	now=$(stat "$2" "$3")
	echo $(( ${now:-0} - ${before:-0} ))
}

# over_rdma NAME BYTES: since the last snap, both nodes together sent and
# received at least BYTES over RDMA in at least one CDMA transfer.
over_rdma() {
	local name=$1 bytes=$2 sent rcvd xfers
	sent=$(( $(delta "$s0" node0 bytes_sent) + $(delta "$s1" node1 bytes_sent) ))
	rcvd=$(( $(delta "$s0" node0 bytes_rcvd) + $(delta "$s1" node1 bytes_rcvd) ))
	xfers=$(( $(delta "$s0" node0 transfers) + $(delta "$s1" node1 transfers) ))
	if [ "$sent" -ge "$bytes" ] && [ "$rcvd" -ge "$bytes" ] && [ "$xfers" -ge 1 ]; then
		ok "$name: over RDMA (sent=$sent rcvd=$rcvd transfers=$xfers >= $bytes bytes)"
	else
		not_ok "$name: over RDMA # sent=$sent rcvd=$rcvd transfers=$xfers, wanted >= $bytes"
	fi
}

# opened NAME N: since the last snap, both nodes opened at least N
# connections over RDMA.
opened() {
	local a b
	a=$(delta "$s0" node0 conns_opened)
	b=$(delta "$s1" node1 conns_opened)
	if [ "$a" -ge "$2" ] && [ "$b" -ge "$2" ]; then
		ok "$1: over RDMA ($a and $b connections opened >= $2)"
	else
		not_ok "$1: over RDMA # opened $a and $b, wanted >= $2"
	fi
}
