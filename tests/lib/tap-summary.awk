# The one TAP consumer of tests/run: reads one suite's output and prints
#   - a "# tally: ..." line for every problem of the stream as a whole and for
#     every skipped point (with its reason), then
#   - one last line "P F S T": points passed, failed, skipped and TODO.
#
#   awk -v status=RC -f tap-summary.awk LOG
#
# Only lines that start in the first column count (KUnit's and the host
# tests' nested output is indented or re-emitted).  A point is "ok" or
# "not ok", with an optional number that must follow the previous one; a
# "# SKIP" directive on an "ok" is a skip, a "# TODO" on either is a TODO,
# and a "# SKIP" on a "not ok" is still a failure.  Exactly one plan
# ("1..N", first or last) must be present and match the points; "1..0 # SKIP
# why" skips the whole suite.  A malformed stream (plan missing, wrong or
# misplaced, points misnumbered), "Bail out!" and a non-zero exit status
# each count as a failure, even when every point passed; a failing exit
# status is not counted again when a point already failed.

# A malformed stream counts as one failure however many ways it is wrong.
function problem(msg) {
	print "# tally: not ok - " msg
	if (!malformed)
		failed++
	malformed = 1
}

# The directive of a point line ("SKIP", "TODO" or ""), and its reason.
function directive(line,    i, rest, word) {
	reason = ""
	i = match(line, /#[ \t]*([Ss][Kk][Ii][Pp]|[Tt][Oo][Dd][Oo])/)
	if (!i)
		return ""
	rest = substr(line, i + 1)
	sub(/^[ \t]*/, "", rest)
	word = toupper(substr(rest, 1, 4))
	reason = substr(rest, 5)
	sub(/^[^ \t]*[ \t]*/, "", reason)	# "SKIPPED:" and the like
	return word
}

BEGIN {
	passed = failed = skipped = todo = 0
	points = 0
	plans = 0
	plan = -1
	plan_at = -1
	bailed = ""
	misnumbered = ""
}

/^Bail out!/ {
	bailed = $0
	next
}

/^1\.\.[0-9]+/ {
	plans++
	plan = substr($0, 4) + 0
	plan_at = points
	if (plan == 0) {
		if (directive($0) == "SKIP") {
			print "# tally: skipped - whole suite: " (reason == "" ? "no reason given" : reason)
			skipped++
		} else {
			problem("plan 1..0 without a # SKIP reason")
		}
	}
	next
}

/^(not )?ok([ \t]|$)/ {
	points++
	bad = /^not /
	line = $0
	sub(/^(not )?ok[ \t]*/, "", line)
	if (match(line, /^[0-9]+/)) {
		num = substr(line, 1, RLENGTH) + 0
		if (num != points && misnumbered == "")
			misnumbered = "point " points " is numbered " num
	}
	d = directive($0)
	if (d == "TODO") {
		todo++
	} else if (bad) {
		failed++
	} else if (d == "SKIP") {
		skipped++
		desc = $0
		sub(/[ \t]*#[ \t]*[Ss][Kk][Ii][Pp].*/, "", desc)
		sub(/^ok[ \t]*[0-9]*[ \t]*-?[ \t]*/, "", desc)
		print "# tally: skipped - " desc ": " (reason == "" ? "no reason given" : reason)
	} else {
		passed++
	}
	next
}

END {
	if (plans == 0)
		problem("no plan (1..N): the suite ended early")
	else if (plans > 1)
		problem(plans " plans in one stream")
	else if (plan > 0 && plan != points)
		problem("planned " plan " points, ran " points)
	else if (plan == 0 && points > 0)
		problem("planned 0 points, ran " points)
	if (plans == 1 && plan_at > 0 && points > plan_at)
		problem("the plan stands between points " plan_at " and " plan_at + 1)
	if (misnumbered != "")
		problem("points out of sequence: " misnumbered)
	if (bailed != "") {
		print "# tally: not ok - " bailed
		failed++
	}
	# A failing point already explains a failing exit status.
	if (status != 0 && failed == 0) {
		print "# tally: not ok - exited with status " status
		failed++
	}
	print passed, failed, skipped, todo
}
