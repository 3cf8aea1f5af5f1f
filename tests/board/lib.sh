# Shared by the board suites (sourced): start/stop a board and run on nodes.
. "$TOP/tests/lib/tap.sh"
BUILD=${BUILD:-$TOP/build}
export TOP BUILD

board() {
	"$TOP/qemu/board" "$@"
}

# on NODE CMD: run a shell command on a node with a bounded time.
on() {
	node=$1
	shift
	board exec --timeout "${EXEC_TIMEOUT:-300}" "$node" "$@"
}

# A suite always leaves no board behind, whatever happens to it.
board_suite_begin() {
	trap 'board stop >/dev/null 2>&1' EXIT
	board stop >/dev/null 2>&1
}
