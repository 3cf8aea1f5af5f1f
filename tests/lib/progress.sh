# shellcheck shell=sh
# Progress of long steps (sourced by sh and bash scripts; POSIX sh).  A step
# that can take more than a minute (a cold build, a download, an unpack)
# says how far it is:
#
#   progress_start STAGE TOTAL UNIT MEASURE
#   the step ...
#   progress_stop
#
# progress_start starts a background reporter that, every
# $EUSRV_PROGRESS_INTERVAL seconds (default 20, or 2 on a terminal),
# evaluates the shell command MEASURE, which prints a count (and optionally,
# after a space, a note), and writes one line to stderr:
#
#   # STAGE: 1234/5678 UNIT (21%), 2m40s
#   # STAGE: 1234 UNIT so far, 2m40s          (TOTAL empty or 0: not known)
#
# UNIT "bytes" is shown in MiB, UNIT "percent" as the count itself followed
# by %.  On a terminal the line is redrawn in place and cleared at the end.
# A step shorter than the interval prints nothing.  The lines are TAP
# comments: tests/run merges a suite's stderr into its TAP stream.
# EUSRV_PROGRESS_INTERVAL=0 turns the reports off.
#
# The reporter never touches the step or its exit status.  progress_stop
# ends it (and is harmless when none runs): call it after the step, on its
# failure path, and in an EXIT trap.  progress_start also traps INT, TERM
# and HUP to stop it and then die of the signal as before, and the reporter
# ends by itself within a second when the shell that started it is gone.

_progress_pid=

# progress_lines FILE ERE: how many lines of FILE match ERE (0 if none).
# In the C locale: thirty times faster on a build log than in UTF-8.
progress_lines() {
	LC_ALL=C grep -cE -e "$2" "$1" 2>/dev/null || :
}

# progress_bytes PATH...: the bytes (apparent size) of the files under PATH.
progress_bytes() {
	du -scb "$@" 2>/dev/null | tail -n 1 | cut -f 1
}

# progress_last FILE KEY: the count recorded under KEY by progress_save
# (the last good run's), or nothing.
progress_last() {
	sed -n "s/^$2 \([0-9][0-9]*\)\$/\1/p" "$1" 2>/dev/null | tail -n 1
}

# progress_save FILE KEY COUNT: record COUNT for the next run's TOTAL.
progress_save() {
	{
		grep -v "^$2 " "$1" 2>/dev/null
		echo "$2 $3"
	} >"$1.tmp.$$" && mv "$1.tmp.$$" "$1"
}

# _progress_line STAGE TOTAL UNIT COUNT NOTE SECONDS
_progress_line() {
	_pl_n=$4 _pl_t=$2
	case $3 in
	bytes)
		_pl_amount="$((_pl_n / 1048576))"
		[ "$_pl_t" -gt 0 ] && _pl_amount="$_pl_amount/$((_pl_t / 1048576))"
		_pl_amount="$_pl_amount MiB" ;;
	percent)
		_pl_amount="$_pl_n%"
		_pl_t=0 ;;
	*)
		_pl_amount=$_pl_n
		[ "$_pl_t" -gt 0 ] && _pl_amount="$_pl_amount/$_pl_t"
		_pl_amount="$_pl_amount $3" ;;
	esac
	if [ "$_pl_t" -le 0 ]; then
		[ "$3" = percent ] || _pl_amount="$_pl_amount so far"
	elif [ "$_pl_n" -le "$_pl_t" ]; then
		_pl_amount="$_pl_amount ($((_pl_n * 100 / _pl_t))%)"
	else
		_pl_amount="$_pl_amount (more than last time)"
	fi
	printf '# %s: %s%s, %dm%02ds' "$1" "$_pl_amount" "${5:+, $5}" \
		$(($6 / 60)) $(($6 % 60))
}

# _progress_ids: set _self and _pp to the pid and parent pid of the shell
# that runs it, from the kernel (a subshell's $$ and $PPID are its parent
# shell's).  The reporter's parent pid changes when the shell that started
# it is gone: an orphan is handed to another process at once.
_progress_ids() {
	read -r _pp </proc/self/stat || return 1
	_self=${_pp%% *}
	_pp=${_pp##*) }
	_pp=${_pp#* }
	_pp=${_pp%% *}
}

# _progress_report STAGE TOTAL UNIT MEASURE INTERVAL PARENT: the reporter
# (a background subshell of the shell whose pid is PARENT).
_progress_report() {
	set +eu
	_pr_tty=
	[ -t 2 ] && _pr_tty=1
	_pr_sleep=
	trap '[ -z "$_pr_sleep" ] || kill "$_pr_sleep" 2>/dev/null
		[ -z "$_pr_tty" ] || printf "\r\033[K" >&2
		exit 0' TERM
	trap - INT HUP EXIT
	_pr_start=$(date +%s)
	_pr_next=$((_pr_start + $5))
	while _progress_ids && [ "$_pp" = "$6" ]; do
		# Sleep in the background, so that TERM ends the wait at once.
		sleep 1 &
		_pr_sleep=$!
		wait "$_pr_sleep"
		_pr_sleep=
		_pr_now=$(date +%s)
		[ "$_pr_now" -ge "$_pr_next" ] || continue
		_pr_next=$((_pr_now + $5))
		_pr_out=$(eval "$4" 2>/dev/null)
		_pr_out=${_pr_out#"${_pr_out%%[!	 ]*}"}
		_pr_n=${_pr_out%%[!0-9]*}
		_pr_note=
		case $_pr_out in *' '*) _pr_note=${_pr_out#* } ;; esac
		_pr_line=$(_progress_line "$1" "$2" "$3" "${_pr_n:-0}" \
			"$_pr_note" $((_pr_now - _pr_start)))
		if [ -n "$_pr_tty" ]; then
			printf '\r%s\033[K' "$_pr_line" >&2
		else
			printf '%s\n' "$_pr_line" >&2
		fi
	done
}

# progress_start STAGE TOTAL UNIT MEASURE: report on the step that follows
# (see the top of this file); stops the previous report, if any.
progress_start() {
	progress_stop
	_ps_interval=${EUSRV_PROGRESS_INTERVAL:-}
	if [ -z "$_ps_interval" ]; then
		_ps_interval=20
		[ -t 2 ] && _ps_interval=2
	fi
	[ "$_ps_interval" -gt 0 ] 2>/dev/null || return 0
	for _ps_sig in INT TERM HUP; do
		# shellcheck disable=SC2064
		trap "progress_stop; trap - $_ps_sig; _progress_ids; kill -s $_ps_sig \$_self" $_ps_sig
	done
	_progress_ids || return 0
	_ps_total=$2
	case $_ps_total in '' | *[!0-9]*) _ps_total=0 ;; esac
	# Not on stdout: a caller's output may be read by a command
	# substitution, which would wait for the reporter too.
	_progress_report "$1" "$_ps_total" "$3" "$4" "$_ps_interval" "$_self" \
		</dev/null >/dev/null &
	_progress_pid=$!
}

# progress_stop: end the report, if one runs, and wait for it to be gone.
progress_stop() {
	[ -n "${_progress_pid:-}" ] || return 0
	kill "$_progress_pid" 2>/dev/null || :
	wait "$_progress_pid" 2>/dev/null || :
	_progress_pid=
}
