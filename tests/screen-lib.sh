#!/bin/sh
# tests/screen-lib.sh: drive the console from a key script, sourced after
# tests/lib.sh (and tests/engine-lib.sh when a test uses both).  No
# terminal, no tmux: the console runs with $SLUICE_SCRIPT (src/ui/script.c)
# on curses' virtual screen, reads its keys from a script written here,
# and dumps the screen to files that the cases then read.  The functions
# mirror tests/tui-lib.sh's, so a test reads the same either way; the
# script only runs at scr_stop, so a test cannot act between keys (a
# run_sluice while the console is open): such tests stay in tmux.
#
#   scr_start [COLSxROWS] [VAR=VAL...] -- ARGS...   a new script for
#                              "$SLUICE" --db "$DB" ARGS (default 100x30)
#   scr_keys [-l] KEYS...      keys by tmux's names (Enter, Escape, Up,
#                              C-l, j...), or with -l text
#   scr_type TEXT              the same as scr_keys -l TEXT
#   scr_wait REGEX [TIMEOUT]   until a line matches (grep -E)
#   scr_wait_gone REGEX [TIMEOUT]   until no line matches
#   scr_ok REGEX DESC [TIMEOUT]     one TAP case: a line matches in time
#   scr_gone_ok REGEX DESC [TIMEOUT]   one TAP case: no line matches
#   scr_check DESC CODE        one TAP case: sh CODE, run at scr_stop
#                              with the screen as it is now (after the
#                              waits before it) in the file $SCR_SCREEN
#                              and its text in $SCR_LAST
#   scr_resize COLSxROWS       the screen's new size
#   scr_stop                   run the script (the console quits at its
#                              end), then report its cases; the console's
#                              exit status in $SCR_STATUS
#   scr_sanitizers_ok DESC     one TAP case: no ASan/UBSan report
#
# The console gets TERM=xterm-256color, LANG and LC_ALL C.UTF-8 unless the
# VAR=VAL arguments say otherwise, and sanitizer reports go to $T_DIR.

SCR_N=0
SCR_DIR=
SCR_STATUS=

# scr_line TEXT: one line of the script.
scr_line() {
	printf '%s\n' "$*" >>"$SCR_DIR/script"
}

# scr_start [COLSxROWS] [VAR=VAL...] -- ARGS...: begin a script.
scr_start() {
	scr_stop		# the script before, if not run yet
	SCR_N=$((SCR_N + 1))
	SCR_DIR=$T_DIR/scr-$SCR_N
	rm -rf "$SCR_DIR"
	mkdir -p "$SCR_DIR"
	: >"$SCR_DIR/script"
	: >"$SCR_DIR/cases"
	: >"$SCR_DIR/env"
	: >"$SCR_DIR/args"
	_scr_size=100x30
	case ${1:-} in
	[0-9]*x[0-9]*) _scr_size=$1; shift ;;
	esac
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		printf '%s\n' "$1" >>"$SCR_DIR/env"
		shift
	done
	[ $# -gt 0 ] && shift
	for _scr_a in "$@"; do
		printf '%s\n' "$_scr_a" >>"$SCR_DIR/args"
	done
	scr_line ":resize $_scr_size"
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

# scr_timeout [SECS]: the bound of the next wait.
scr_timeout() {
	scr_line ":timeout ${1:-${TUI_TIMEOUT:-10}}"
}

# scr_wait REGEX [TIMEOUT]: until a line matches.
scr_wait() {
	scr_timeout "${2:-}"
	scr_line ":wait $1"
}

# scr_wait_gone REGEX [TIMEOUT]: until no line matches.
scr_wait_gone() {
	scr_timeout "${2:-}"
	scr_line ":wait-gone $1"
}

# scr_case MODE REGEX DESC TIMEOUT: wait, dump, and remember the case.
scr_case() {
	scr_timeout "${4:-}"
	if [ "$1" = match ]; then
		scr_line ":wait $2"
	else
		scr_line ":wait-gone $2"
	fi
	_scr_c=$(($(wc -l <"$SCR_DIR/cases") + 1))
	scr_line ":dump c$_scr_c"
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$SCR_DIR/cases"
}

# scr_check DESC CODE: one case, CODE's status on this screen at scr_stop.
scr_check() {
	_scr_c=$(($(wc -l <"$SCR_DIR/cases") + 1))
	scr_line ":dump c$_scr_c"
	printf '%s\t%s\t%s\n' check "$(printf '%s' "$2" | tr '\n' ' ')" \
	    "$1" >>"$SCR_DIR/cases"
}

# scr_ok REGEX DESC [TIMEOUT]: one case: a line matches within TIMEOUT.
scr_ok() {
	scr_case match "$1" "$2" "${3:-}"
}

# scr_gone_ok REGEX DESC [TIMEOUT]: one case: no line matches in time.
scr_gone_ok() {
	scr_case gone "$1" "$2" "${3:-}"
}

# scr_run: run the console on the script; its status in $SCR_STATUS.
scr_run() {
	set --
	while IFS= read -r _scr_a; do
		set -- "$@" "$_scr_a"
	done <"$SCR_DIR/args"
	_scr_env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
	while IFS= read -r _scr_a; do
		_scr_env="$_scr_env $(printf "'%s'" "$(printf '%s' "$_scr_a" |
		    sed "s/'/'\\\\''/g")")"
	done <"$SCR_DIR/env"
	eval "env -u LINES -u COLUMNS $_scr_env \
	    ASAN_OPTIONS=\"log_path=\$T_DIR/san-asan\${ASAN_OPTIONS:+:\$ASAN_OPTIONS}\" \
	    UBSAN_OPTIONS=\"log_path=\$T_DIR/san-ubsan:print_stacktrace=1\${UBSAN_OPTIONS:+:\$UBSAN_OPTIONS}\" \
	    SLUICE_SCRIPT=\"\$SCR_DIR/script\" SLUICE_SCRIPT_DIR=\"\$SCR_DIR\" \
	    \"\$SLUICE\" --db \"\${DB:-\$SLUICE_DB}\" \"\$@\"" \
	    </dev/null >"$SCR_DIR/out" 2>"$SCR_DIR/err"
	SCR_STATUS=$?
}

# scr_stop: run the script, then one TAP case for each scr_ok and
# scr_gone_ok, read from the screen dumped when its wait ended.
scr_stop() {
	[ -n "$SCR_DIR" ] || return 0
	scr_run
	_scr_c=0
	while IFS='	' read -r _scr_mode _scr_re _scr_desc; do
		_scr_c=$((_scr_c + 1))
		_scr_f=$SCR_DIR/c$_scr_c.screen
		if [ ! -f "$_scr_f" ]; then
			ok 1 "$_scr_desc"
			echo "# no screen: the script ended before (status" \
			    "$SCR_STATUS)"
			sed 's/^/#   /' "$SCR_DIR/err"
			continue
		fi
		if [ "$_scr_mode" = check ]; then
			SCR_SCREEN=$_scr_f
			SCR_LAST=$(cat "$_scr_f")
			( eval "$_scr_re" ) </dev/null
			_scr_r=$?
			ok "$_scr_r" "$_scr_desc"
			[ "$_scr_r" -eq 0 ] || sed 's/^/#   |/' "$_scr_f"
			continue
		fi
		if grep -Eq -- "$_scr_re" "$_scr_f"; then
			_scr_r=0
		else
			_scr_r=1
		fi
		[ "$_scr_mode" = gone ] && _scr_r=$((1 - _scr_r))
		ok "$_scr_r" "$_scr_desc"
		if [ "$_scr_r" -ne 0 ]; then
			if [ "$_scr_mode" = match ]; then
				echo "# no line matched /$_scr_re/; the screen:"
			else
				echo "# a line still matched /$_scr_re/; the" \
				    "screen:"
			fi
			sed 's/^/#   |/' "$_scr_f"
		fi
	done <"$SCR_DIR/cases"
	SCR_DIR=
}

# scr_sanitizers_ok DESC: one case: no sanitizer report was written.
scr_sanitizers_ok() {
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
