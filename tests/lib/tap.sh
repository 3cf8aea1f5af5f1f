# TAP helpers for the shell test scripts (sourced, not executed).
# Each script prints "ok N - name" / "not ok N - name # reason" and a plan.

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# check NAME CMD...: one test point from a command's exit status; the
# command's output is shown as TAP comments when it fails.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		rc=$?
		not_ok "$name # exit $rc"
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/# /'
	fi
}

# kv KEY TEXT: value of the first KEY=value field in TEXT.
kv() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# tap_done: the plan, after the points a suite's library has every suite
# end with (tap_last_points, if defined: the board suites' kernel check).
tap_done() {
	if command -v tap_last_points >/dev/null; then
		tap_last_points
	fi
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
