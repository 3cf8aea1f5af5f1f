# Shared by the board suites (sourced): start/stop a board and run on nodes.
. "$TOP/tests/lib/tap.sh"
BUILD=${BUILD:-$TOP/build}
export TOP BUILD
# The nodes' ISAs: EUSRV_ARCH, what qemu/board start takes as its default
# --arch: one ISA, or a list of which node n has the (n mod length)th
# (make check-arm sets armhf, make check-mixed x86_64,armhf).  NODE_ISAS
# has each of them once.
EUSRV_ARCH=${EUSRV_ARCH:-x86_64}
IFS=, read -ra NODE_ISAS <<<"$EUSRV_ARCH"
mapfile -t NODE_ISAS < <(printf '%s\n' "${NODE_ISAS[@]}" | awk '!seen[$0]++')
export EUSRV_ARCH

# isa_build ISA: where what nodes of ISA run is built (make armhf and make
# arm64 cross-build into $BUILD/armhf, $BUILD/arm64).
isa_build() {
	case $1 in
	x86_64) echo "$BUILD" ;;
	*) echo "$BUILD/$1" ;;
	esac
}

# isa_cc ISA [32]: what builds programs for nodes of ISA; with 32, 32-bit
# ones: Debian's i686 cross compiler for x86 nodes (gcc-multilib would take
# the place of the ARM cross compilers: they conflict), the armhf one for
# ARM nodes.
isa_cc() {
	case $1${2:+/$2} in
	x86_64) echo cc ;;
	x86_64/32) echo i686-linux-gnu-gcc ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	*) echo arm-linux-gnueabihf-gcc ;;
	esac
}

# isa_libdir ISA, isa_ldso ISA: where a node of ISA has its C library
# (Debian's multiarch directory) and the name of its dynamic loader.
isa_libdir() {
	case $1 in
	x86_64) echo /lib/x86_64-linux-gnu ;;
	arm64) echo /lib/aarch64-linux-gnu ;;
	*) echo /lib/arm-linux-gnueabihf ;;
	esac
}

isa_ldso() {
	case $1 in
	x86_64) echo ld-linux-x86-64.so.2 ;;
	arm64) echo ld-linux-aarch64.so.1 ;;
	*) echo ld-linux-armhf.so.3 ;;
	esac
}

# node_isa NODE: the ISA of NODE (node0, node1, ...), by qemu/board's rule.
node_isa() {
	local list
	IFS=, read -ra list <<<"$EUSRV_ARCH"
	echo "${list[${1#node} % ${#list[@]}]}"
}

# NODE_BUILD: the build of the node's ISA as the nodes name it in the
# commands the suites run on them (the modules they reload, the programs
# of build_prog).  On a board of one ISA its build, at the same path on
# the host and the nodes; on a mixed board the link each node's init
# makes to its own build (qemu/guest/node-init).
if [ ${#NODE_ISAS[@]} -eq 1 ]; then
	NODE_BUILD=$(isa_build "${NODE_ISAS[0]}")
else
	NODE_BUILD=/run/eusrv/build
fi

# Kernel trouble (a panic, oops, BUG, WARNING, a memory debugging report:
# qemu/board's KERNEL_TROUBLE) on any node's console fails the suite, in
# its last point (trouble_point), wherever it showed: a command run with
# `on` that got status 125 may be one whose caller looks at its output
# only, and a report can also come between commands (a background worker)
# or as the board stops.  What was found is kept in files of $trouble_dir,
# since `on` and `board stop` often run in a command substitution:
#   reported  the trouble lines qemu/board printed (consoles gone with it);
#   first     the first command that heard of it (status 125);
#   excused   nodes whose trouble the suite caused on purpose.
trouble_dir=
trouble_pointed=

board() {
	if [ "${1:-}" = stop ] && [ -n "$trouble_dir" ]; then
		board_stop_keeping_trouble
		return
	fi
	"$TOP/qemu/board" "$@"
}

# board_processes_left DIR: the VMs and board models still running whose
# command line names DIR, one pid a line.  By name as well as by command
# line: the shell or harness that started the suite may name DIR too.
board_processes_left() {
	local pid comm
	for pid in $(pgrep -f -- "$1( |/|\$)"); do
		read -r comm 2>/dev/null <"/proc/$pid/comm" || continue
		case $comm in
		qemu-system-* | eusrv-board-mod*) echo "$pid" ;;
		esac
	done
}

# board_stop_keeping_trouble: qemu/board stop; the trouble it reports
# (status 125) goes to the suite's last point rather than into the status,
# so that one report fails one point, not also every "board stop".
board_stop_keeping_trouble() {
	local out rc
	validate_slabs
	out=$("$TOP/qemu/board" stop 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" >&2
	if [ $rc -eq 125 ]; then
		keep_trouble "$out"
		rc=0
	fi
	# The next board's nodes are new: none of them is excused.
	rm -f "$trouble_dir/excused"
	return $rc
}

# validate_slabs: before the board goes, every running node checks each
# of its slab caches whole (SLUB's validate: the red zones and poison of
# every object, the free lists), so that a write into a freed object that
# nothing allocated again since is reported too.  Only with the memory
# debugging (qemu/board start), which gives objects red zones and poison;
# about a second a node.
validate_slabs() {
	local st n
	st=$("$TOP/qemu/board" status 2>/dev/null) || return 0
	printf '%s\n' "$st" | grep -q '^kernel memory debugging: off' && return 0
	for n in $(printf '%s\n' "$st" | sed -n 's/^\(node[0-9]\): running .*/\1/p'); do
		"$TOP/qemu/board" exec --timeout 60 "$n" \
			'for f in /sys/kernel/slab/*/validate; do echo 1 >"$f"; done' >/dev/null 2>&1
	done
}

# keep_trouble OUTPUT: qemu/board's trouble lines in OUTPUT ("board: NODE
# kernel: ..." and a first report's "  NODE| ...") of nodes not excused,
# for the suite's last point; those kept before (a report seen while the
# board ran and again as it stopped) only once.
keep_trouble() {
	local excused='' d=$trouble_dir
	[ -n "$d" ] || return 0
	[ -s "$d/excused" ] && excused=$(paste -sd '|' "$d/excused")
	touch "$d/seen"
	printf '%s\n' "$1" |
		grep -E "^(board: [a-z0-9]+ kernel: |board: [a-z0-9]+'s console from|  [a-z0-9]+\| )" |
		{ if [ -n "$excused" ]; then
			grep -vE "^(board: |  )($excused)( kernel: |'s console|\| )"
		else
			cat
		fi; } | grep -vxF -f "$d/seen" | tee -a "$d/seen" >>"$d/reported"
}

# trouble_expected NODE...: the trouble on NODE's console so far and until
# the board stops is the suite's doing (a deliberate panic), not a failure.
trouble_expected() {
	[ -n "$trouble_dir" ] || return 0
	printf '%s\n' "$@" >>"$trouble_dir/excused"
	rm -f "$trouble_dir/first"
}

# trouble_point: the point every board suite ends with (tap_done calls it
# before the plan): no node's kernel reported trouble while the suite ran.
trouble_point() {
	local out
	[ -n "$trouble_dir" ] || return 0
	# A board still up (the suite ends without stopping it): its consoles.
	if "$TOP/qemu/board" status >/dev/null 2>&1; then
		out=$("$TOP/qemu/board" trouble 2>&1)
		[ $? -eq 125 ] && keep_trouble "$out"
	fi
	trouble_pointed=1
	if [ ! -s "$trouble_dir/reported" ]; then
		ok "no kernel trouble on any node"
		return
	fi
	not_ok "no kernel trouble on any node"
	[ -s "$trouble_dir/first" ] &&
		diag "first heard of by: $(cat "$trouble_dir/first")"
	diag "$(head -n 80 "$trouble_dir/reported")"
	# Reported once: what the board's stop may find later is new.
	: >"$trouble_dir/reported"
}

# tap.sh's tap_done calls this before it prints the plan.
tap_last_points() {
	trouble_point
}

# board_suite_end: the EXIT trap.  The board goes (its trouble kept); what
# only that showed, after the last point, fails the suite all the same: a
# bail-out once the plan is out, else the point (a suite that ends without
# its plan has failed anyway).
board_suite_end() {
	local rc=$?
	board stop >/dev/null 2>&1
	if [ -n "$trouble_dir" ] && [ -s "$trouble_dir/reported" ]; then
		if [ -n "$trouble_pointed" ]; then
			echo "Bail out! kernel trouble on a node after the suite's last point"
			diag "$(head -n 80 "$trouble_dir/reported")"
		else
			trouble_point
		fi
		[ $rc -ne 0 ] || rc=1
	fi
	rm -rf "$trouble_dir"
	exit $rc
}

# on NODE CMD: run a shell command on a node with a bounded time.  Status
# 125 (the command succeeded, but a node's kernel reported trouble) names
# the command in the suite's last point, whatever the caller makes of it.
on() {
	local rc
	node=$1
	shift
	board exec --timeout "${EXEC_TIMEOUT:-300}" "$node" "$@"
	rc=$?
	if [ $rc -eq 125 ] && [ -n "$trouble_dir" ] && [ ! -s "$trouble_dir/first" ]; then
		echo "on $node $*" >"$trouble_dir/first"
	fi
	return $rc
}

# A suite always leaves no board behind, whatever happens to it, and ends
# with the point that no node's kernel reported trouble.  A board left
# over from another run is stopped before this suite's record begins.
board_suite_begin() {
	trap board_suite_end EXIT
	board stop >/dev/null 2>&1
	trouble_dir=$(mktemp -d "${TMPDIR:-/tmp}/eusrv-trouble.XXXXXX") || trouble_dir=
}

# board_up NAME ARGS...: `qemu/board start ARGS` as test NAME, with the last
# line of its report as a diagnostic; a board that does not come up ends
# the suite.
board_up() {
	local name=$1 out rc
	shift
	out=$(board start "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		# Trouble while booting (status 125) is the suite's too.
		[ $rc -eq 125 ] && keep_trouble "$out"
		not_ok "$name"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/# /'
		tap_done
		exit 1
	fi
	ok "$name"
	diag "$(printf '%s\n' "$out" | tail -n 1)"
}

# build_prog NAME [CC ARGS...]: tests/board/progs/NAME.c built for each
# ISA of the board into its build's tests/board/NAME, which the nodes name
# $prog ($NODE_BUILD/tests/board/NAME: each node runs its own ISA's); a
# failed build ends the suite.
build_prog() {
	build_prog_for '' "$1" "$@"
}

# build_prog_as BIN NAME [CC ARGS...]: the same, built as BIN (a variant:
# other flags, -static).
build_prog_as() {
	build_prog_for '' "$@"
}

# build_prog32 BIN NAME [CC ARGS...]: the same for a 32-bit program on
# each node (isa_cc ISA 32), for the kernel's compat paths.
build_prog32() {
	build_prog_for 32 "$@"
}

# build_prog_for BITS BIN NAME [CC ARGS...]: build_prog_as's work, with
# isa_cc ISA BITS.
build_prog_for() {
	local bits=$1 bin=$2 name=$3 out isa dir
	shift 3
	for isa in "${NODE_ISAS[@]}"; do
		dir=$(isa_build "$isa")/tests/board
		mkdir -p "$dir"
		if ! out=$($(isa_cc "$isa" "$bits") -std=gnu11 -Wall -Wextra -Werror -O2 \
			-I"$TOP/kmod/include" -o "$dir/$bin" "$TOP/tests/board/progs/$name.c" "$@" 2>&1); then
			not_ok "build $name${bits:+ ($bits-bit)} for $isa nodes"
			diag "$out"
			tap_done
			exit 1
		fi
	done
	prog=$NODE_BUILD/tests/board/$bin
}

# build_host_prog NAME [CC ARGS...]: the same for a program the suite runs
# on the host (whatever the nodes' ISAs), built with cc into
# $BUILD/tests/board/NAME (isa_build x86_64).
build_host_prog() {
	local NODE_ISAS=(x86_64) NODE_BUILD=$BUILD

	build_prog_as "$1" "$@"
}
