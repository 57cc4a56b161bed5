#!/bin/sh
# tests/screen-lib.sh: drive the console from a key script, sourced after
# tests/lib.sh (and tests/engine-lib.sh when a test uses both).  No
# terminal, no tmux: the console runs with $SLUICE_SCRIPT (src/ui/script.c)
# on curses' virtual screen.  Its script is a FIFO this shell writes as
# the test goes, so the console runs (and is the engine) while the test
# acts from the shell, as with tmux; each case waits for the screen in
# the console, which dumps it and says so on its stdout (another FIFO
# read here): nothing polls.  The functions mirror tests/tui-lib.sh's:
#
#   scr_start [COLSxROWS] [VAR=VAL...] -- ARGS...   the console,
#                              "$SLUICE" --db "$DB" ARGS (default 100x30)
#   scr_start_cmd [COLSxROWS] [VAR=VAL...] -- CMD ARGS...   a command
#                              that runs the console
#   scr_keys [-l] KEYS...      keys by tmux's names (Enter, Escape, Up,
#                              C-l, j...), or with -l text
#   scr_type TEXT              the same as scr_keys -l TEXT
#   scr_wait REGEX [TIMEOUT]   until a line matches (grep -E); 1 if none
#                              did in time
#   scr_wait_gone REGEX [TIMEOUT]   until no line matches
#   scr_ok REGEX DESC [TIMEOUT]     one TAP case: a line matches in time
#   scr_gone_ok REGEX DESC [TIMEOUT]   one TAP case: no line matches
#   scr_check DESC CODE        one TAP case: sh CODE's status, with the
#                              screen now in the file $SCR_SCREEN and its
#                              text in $SCR_LAST
#   scr_screen                 the screen now, one line per row
#   scr_resize COLSxROWS       the screen's new size
#   scr_stop                   the end of the script (:quit): the console
#                              quits; its exit status in $SCR_STATUS
#   scr_pid                    the console's pid
#   scr_sanitizers_ok DESC     one TAP case: no ASan/UBSan report
#   scr_open_row WF STEP       the run view of WF filtered to STEP, Enter
#                              on its row
#   scr_open_step WF STEP      the same, awaiting the step's details
#   scr_approve STEP WF TEXT   y on gate STEP of run WF in the gates
#                              view, with TEXT as the comment
#
# After each wait, $SCR_LAST holds the screen it ended on.  The console
# gets TERM=xterm-256color, LANG and LC_ALL C.UTF-8 unless the VAR=VAL
# arguments say otherwise, and sanitizer reports go to $T_DIR.  The
# functions work on the console named by $SCR_S (default "main"): set it
# to another name to run a second console beside it (two at most).

# A console that quits before its script ends must not kill the test.
trap '' PIPE

SCR_N=0
SCR_S=main
SCR_DIR=
SCR_PID=
SCR_STATUS=
SCR_LAST=
SCR_K=0
_scr_cur=main

# scr_switch: the state of the console $SCR_S in SCR_DIR, SCR_PID and
# SCR_K (the one before saved), and its descriptors: main's script and
# stdout on 9 and 8, the other's on 7 and 6 ($_scr_in, $_scr_ack; the
# other pair in $_scr_oin, $_scr_oack).
scr_switch() {
	if [ "$_scr_cur" != "$SCR_S" ]; then
		eval "_scr_${_scr_cur}_dir=\$SCR_DIR"
		eval "_scr_${_scr_cur}_pid=\$SCR_PID"
		eval "_scr_${_scr_cur}_k=\$SCR_K"
		eval "SCR_DIR=\${_scr_${SCR_S}_dir:-}"
		eval "SCR_PID=\${_scr_${SCR_S}_pid:-}"
		eval "SCR_K=\${_scr_${SCR_S}_k:-0}"
		_scr_cur=$SCR_S
	fi
	if [ "$SCR_S" = main ]; then
		_scr_in=9 _scr_ack=8 _scr_oin=7 _scr_oack=6
	else
		_scr_in=7 _scr_ack=6 _scr_oin=9 _scr_oack=8
	fi
}

# scr_line TEXT: one line of the script, to the console now.
scr_line() {
	scr_switch
	printf '%s\n' "$*" >>"$SCR_DIR/script"
	printf '%s\n' "$*" >&"$_scr_in" 2>/dev/null
}

# scr_opts [COLSxROWS] [VAR=VAL...] --: the size in $_scr_size, the
# environment (quoted for eval) in $_scr_env, and how many arguments
# that was in $_scr_nopt.
scr_opts() {
	_scr_size=100x30
	_scr_env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
	_scr_nopt=0
	case ${1:-} in
	[0-9]*x[0-9]*) _scr_size=$1; shift; _scr_nopt=1 ;;
	esac
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		_scr_env="$_scr_env $(printf "'%s'" "$(printf '%s' "$1" |
		    sed "s/'/'\\\\''/g")")"
		shift
		_scr_nopt=$((_scr_nopt + 1))
	done
	[ $# -gt 0 ] && _scr_nopt=$((_scr_nopt + 1))
}

# scr_start [COLSxROWS] [VAR=VAL...] -- ARGS...: start the console.
scr_start() {
	scr_opts "$@"
	shift "$_scr_nopt"
	scr_spawn "$SLUICE" --db "${DB:-$SLUICE_DB}" "$@"
}

# scr_start_cmd [COLSxROWS] [VAR=VAL...] -- CMD ARGS...: any command
# that runs the console (env -u SLUICE_DB "$SLUICE", say).
scr_start_cmd() {
	scr_opts "$@"
	shift "$_scr_nopt"
	scr_spawn "$@"
}

# scr_spawn CMD ARGS...: what scr_start and scr_start_cmd share, with
# scr_opts' size and environment.
scr_spawn() {
	scr_stop		# the one before, if any
	scr_switch
	SCR_N=$((SCR_N + 1))
	SCR_DIR=$T_DIR/scr-$SCR_N
	rm -rf "$SCR_DIR"
	mkdir -p "$SCR_DIR"
	mkfifo "$SCR_DIR/in" "$SCR_DIR/ack" || return 1
	: >"$SCR_DIR/script"
	# Each open of a FIFO waits for the other end: the console's
	# stdout first (ours to read), then its script (ours to write).
	# The other console's descriptors are closed in this one (its
	# script would not end while this one held it open), and exec
	# keeps $! the console's pid.
	eval "exec env -u LINES -u COLUMNS $_scr_env \
	    ASAN_OPTIONS=\"log_path=\$T_DIR/san-asan\${ASAN_OPTIONS:+:\$ASAN_OPTIONS}\" \
	    UBSAN_OPTIONS=\"log_path=\$T_DIR/san-ubsan:print_stacktrace=1\${UBSAN_OPTIONS:+:\$UBSAN_OPTIONS}\" \
	    SLUICE_SCRIPT=\"\$SCR_DIR/in\" SLUICE_SCRIPT_DIR=\"\$SCR_DIR\" \
	    \"\$@\" $_scr_oin>&- $_scr_oack<&-" \
	    </dev/null >"$SCR_DIR/ack" 2>"$SCR_DIR/err" &
	SCR_PID=$!
	eval "exec $_scr_ack<\"\$SCR_DIR/ack\""
	eval "exec $_scr_in>\"\$SCR_DIR/in\""
	scr_line ":resize $_scr_size"
}

# scr_pid: the console's pid.
scr_pid() {
	scr_switch
	echo "$SCR_PID"
}

# scr_keys [-l] KEYS...: keys by name, or with -l literal text.
scr_keys() {
	if [ "${1:-}" = "-l" ]; then
		shift
		scr_line ":type $*"
	else
		scr_line ":key $*"
	fi
}

# scr_type TEXT: type TEXT as it is.
scr_type() {
	scr_line ":type $*"
}

# scr_resize COLSxROWS: the screen's new size.
scr_resize() {
	scr_line ":resize $1"
}

# scr_sync: the screen as it is once the lines before are done, in
# $SCR_SCREEN and $SCR_LAST; 1 if the console has gone.
scr_sync() {
	scr_switch
	SCR_K=$((SCR_K + 1))
	SCR_SCREEN=$SCR_DIR/s$SCR_K.screen
	scr_line ":dump s$SCR_K"
	scr_line ":echo s$SCR_K"
	SCR_LAST=
	while IFS= read -r _scr_a <&"$_scr_ack"; do
		[ "$_scr_a" = "s$SCR_K" ] || continue
		SCR_LAST=$(cat "$SCR_SCREEN")
		return 0
	done
	echo "# the console has gone; what it said:"
	sed 's/^/#   /' "$SCR_DIR/err"
	return 1
}

# scr_screen: the screen now, one line per row.
scr_screen() {
	scr_sync >/dev/null && printf '%s\n' "$SCR_LAST"
}

# scr_await MODE REGEX TIMEOUT: wait in the console until a line matches
# (MODE match) or none does (gone); 0 if it did, the screen in $SCR_LAST.
scr_await() {
	scr_line ":timeout ${3:-${TUI_TIMEOUT:-10}}"
	if [ "$1" = match ]; then
		scr_line ":wait $2"
	else
		scr_line ":wait-gone $2"
	fi
	scr_sync || return 1
	if printf '%s\n' "$SCR_LAST" | grep -Eq -- "$2"; then
		[ "$1" = match ]
	else
		[ "$1" = gone ]
	fi
}

# scr_diag WHAT: the last screen as TAP diagnostics.
scr_diag() {
	echo "# $1; the screen:"
	printf '%s\n' "$SCR_LAST" | sed 's/^/#   |/'
}

# scr_wait REGEX [TIMEOUT]: until a line of the screen matches REGEX.
scr_wait() {
	scr_await match "$1" "${2:-}" && return 0
	scr_diag "no line matched /$1/ within ${2:-${TUI_TIMEOUT:-10}} s"
	return 1
}

# scr_wait_gone REGEX [TIMEOUT]: until no line of the screen matches.
scr_wait_gone() {
	scr_await gone "$1" "${2:-}" && return 0
	scr_diag "a line still matched /$1/ after ${2:-${TUI_TIMEOUT:-10}} s"
	return 1
}

# scr_ok REGEX DESC [TIMEOUT]: one case: a line matches within TIMEOUT.
scr_ok() {
	if scr_await match "$1" "${3:-}"; then
		ok 0 "$2"
	else
		ok 1 "$2"
		scr_diag "no line matched /$1/ within ${3:-${TUI_TIMEOUT:-10}} s"
	fi
}

# scr_gone_ok REGEX DESC [TIMEOUT]: one case: no line matches in time.
scr_gone_ok() {
	if scr_await gone "$1" "${3:-}"; then
		ok 0 "$2"
	else
		ok 1 "$2"
		scr_diag "a line still matched /$1/ after ${3:-${TUI_TIMEOUT:-10}} s"
	fi
}

# scr_check DESC CODE: one case, CODE's status on the screen now.
scr_check() {
	if scr_sync && ( eval "$2" ); then
		ok 0 "$1"
	else
		ok 1 "$1"
		scr_diag "$2 failed"
	fi
}

# scr_stop: end the script; the console quits (its status in
# $SCR_STATUS) and its stdout is read to the end.
scr_stop() {
	scr_switch
	[ -n "$SCR_PID" ] || return 0
	# :quit, since a program started meanwhile (engine_start) may
	# hold the FIFO open too, and its end would never come.
	scr_line ":quit"
	eval "exec $_scr_in>&-"
	wait "$SCR_PID"
	SCR_STATUS=$?
	eval "exec $_scr_ack<&-"
	SCR_PID=
}

# scr_open_row WORKFLOW STEP: the Workflows view filtered to WORKFLOW,
# its run view filtered to STEP, then Enter on that step's row.  Each
# stage is awaited on the screen before the next key (keys read in one
# batch would act on rows not read yet); 1 if one did not come.
scr_open_row() {
	scr_keys 1 Escape /
	scr_type "$1"
	scr_keys Enter
	scr_wait "filter: $1 " || return 1
	scr_keys Enter
	scr_wait "^#[0-9]+ $1 " || return 1
	scr_keys /
	scr_type "$2"
	scr_keys Enter
	scr_wait "filter: $2 " || return 1
	scr_keys Enter
}

# scr_open_step WORKFLOW STEP: scr_open_row, awaiting the step's details.
scr_open_step() {
	scr_open_row "$1" "$2" || return 1
	scr_wait "^  step +[0-9]+, key " || return 1
	scr_wait "^. $2  [a-z]+( |\$)" || return 1
}

# scr_approve STEP WF TEXT: the gates view filtered to gate STEP (of run
# WF), then y with TEXT as the comment; 1 if the gate is not listed.
scr_approve() {
	scr_keys 2 Escape /
	scr_type "$1"
	scr_keys Enter
	scr_wait "^$1 +$2 " || return 1
	scr_keys y
	scr_type "$3"
	scr_keys Enter
}

# scr_sanitizers_ok DESC: one case: no sanitizer report was written.
scr_sanitizers_ok() {
	scr_stop		# its report is written as it exits
	_scr_f=$(ls "$T_DIR"/san-* 2>/dev/null)
	if [ -z "$_scr_f" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		for _scr_x in $_scr_f; do
			echo "# $_scr_x:"
			sed 's/^/#   /' "$_scr_x" | head -40
		done
	fi
}
