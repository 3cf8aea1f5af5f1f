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

# board_up NAME ARGS...: `qemu/board start ARGS` as test NAME, with the last
# line of its report as a diagnostic; a board that does not come up ends
# the suite.
board_up() {
	local name=$1 out
	shift
	if ! out=$(board start "$@" 2>&1); then
		not_ok "$name"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
		tap_done
		exit 1
	fi
	ok "$name"
	diag "$(printf '%s\n' "$out" | tail -n 1)"
}

# build_prog NAME [CC ARGS...]: tests/board/progs/NAME.c built into
# $BUILD/tests/board/NAME, which becomes $prog; a failed build ends the
# suite.
build_prog() {
	build_prog_as "$1" "$@"
}

# build_prog_as BIN NAME [CC ARGS...]: the same, built into
# $BUILD/tests/board/BIN (a variant: other flags, -static).
build_prog_as() {
	local name=$2 out bin=$BUILD/tests/board/$1
	shift 2
	mkdir -p "$BUILD/tests/board"
	if ! out=$(cc -std=gnu11 -Wall -Wextra -Werror -O2 -I"$TOP/kmod/include" \
		-o "$bin" "$TOP/tests/board/progs/$name.c" "$@" 2>&1); then
		not_ok "build $name"
		diag "$out"
		tap_done
		exit 1
	fi
	prog=$bin
}
