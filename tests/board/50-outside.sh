#!/bin/bash
# The outside host: `qemu/board start --outside` boots it next to two nodes,
# `qemu/board exec outside` reaches it, its line NIC is on the shared MAC
# (the model sees the peer), the model's control socket answers, and `stop`
# leaves nothing behind.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export EUSRV_BOARD_DIR=${EUSRV_BOARD_DIR:-/dev/shm/eusrv-nic}
. "$TOP/tests/board/lib.sh"
board_suite_begin

board_up "2 nodes and the outside host boot" -n 2 --outside

out=$(board exec outside ip -br addr 2>&1)
rc=$?
diag "$out"
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^eth0 .*198\.19\.1\.1/24'; then
	ok "outside: ip -br addr shows eth0 198.19.1.1/24"
else
	not_ok "outside: ip -br addr shows eth0 198.19.1.1/24 # rc=$rc"
fi
check "outside: host name is outside" board exec outside '[ "$(hostname)" = outside ]'
check "node0: 'outside' resolves to the shared NIC's address" \
	on node0 '[ "$(getent hosts outside | cut -d" " -f1)" = 198.19.1.1 ]'
check "outside reaches node1 on the management network" \
	board exec outside 'ping -c 1 -W 5 198.18.0.11'
check "the model has the line peer connected" \
	grep -q 'line peer connected' "$EUSRV_BOARD_DIR/model.log"
check "the model's control socket answers" board model help
check "the control socket refuses a bad command" \
	sh -c '! "$0" model no-such-command 2>/dev/null' "$TOP/qemu/board"

board stop >/dev/null 2>&1
if [ -e "$EUSRV_BOARD_DIR" ] || [ -n "$(board_processes_left "$EUSRV_BOARD_DIR")" ]; then
	not_ok "stop removes the board, the outside host included"
else
	ok "stop removes the board, the outside host included"
fi
tap_done
