#!/bin/sh
# tests/tui-lib.sh: drive the console in a terminal, sourced after
# tests/lib.sh (and after tests/engine-lib.sh when a test uses both).
#
# Each test script gets a private tmux server (socket sluice-test-PID, no
# configuration file, no status line, panes kept after their program
# exits so its last screen can still be read), killed at exit even when
# the test fails.  A test starts the console in a detached session of a
# given size, sends keys, and waits for screen content (capture-pane) with
# a deadline, never for a fixed time:
#
#   tui_start [COLSxROWS] [VAR=VAL...] -- ARGS...   "$SLUICE" --db "$DB" ARGS
#   tui_start_cmd [COLSxROWS] [VAR=VAL...] -- CMD ARGS...   any command
#   tui_keys [-l] KEYS...      send-keys: tmux key names (Enter, Escape,
#                              C-l, PageDown, Up, j...), or with -l text
#   tui_type TEXT              the same as tui_keys -l TEXT
#   tui_screen [-e]            the screen, one line per row (-e: with
#                              the escape sequences of colours and
#                              attributes)
#   tui_wait REGEX [TIMEOUT]   until a line matches (grep -E); else print
#                              the screen as TAP diagnostics and return 1
#   tui_wait_gone REGEX [TIMEOUT]   until no line matches
#   tui_ok REGEX DESC [TIMEOUT]     one TAP case: a line matches in time
#   tui_gone_ok REGEX DESC [TIMEOUT]   one TAP case: no line matches
#   tui_resize COLSxROWS       resize the terminal (SIGWINCH)
#   tui_pid                    the pid of the program
#   tui_alive                  the program has not exited
#   tui_wait_exit [TIMEOUT]    until it exits; its status in $TUI_STATUS
#   tui_kill_pane              close the terminal under the program (the
#                              kernel sends it SIGHUP); its pid stays in
#                              $TUI_PID for tui_pid_alive
#   tui_pid_alive PID          a live process (not a zombie)
#   tui_stop                   end the session (and its program) if any;
#                              a console gone headless is stopped too
#   tui_reap PID               stop PID if it went on headless
#   tui_sanitizers_ok DESC     one TAP case: no ASan/UBSan report was
#                              written by a program started here
#
# $DB defaults to $SLUICE_DB.  TIMEOUT is in seconds (default $TUI_TIMEOUT,
# 10).  The terminal gets TERM=xterm-256color, LANG and LC_ALL C.UTF-8
# unless the VAR=VAL arguments say otherwise (LC_ALL=C for an ASCII
# terminal), and no LINES or COLUMNS (ncurses would believe them over the
# terminal's real size).  A small sh around the program records its pid
# and exit status (tmux does not always learn the status), and
# ASAN_OPTIONS and UBSAN_OPTIONS send sanitizer reports to files in
# $T_DIR, since the screen would hide them.  The functions work on the
# session named by $TUI_S (default "main"): set it to run two consoles
# side by side.

command -v tmux >/dev/null 2>&1 || skip_all "tmux is not installed"

# tmux 2.9 brought resize-window and window-size manual.
_tui_v=$(tmux -V 2>/dev/null |
    sed -n 's/^tmux[^0-9]*\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p')
# shellcheck disable=SC2086 # split into major and minor
set -- $_tui_v
if [ $# -ne 2 ] || [ "$1" -lt 2 ] || { [ "$1" -eq 2 ] && [ "$2" -lt 9 ]; }
then
	skip_all "tmux 2.9 or later is needed ($(tmux -V 2>/dev/null))"
fi
# The window size is a window option since tmux 3.1, a session option
# before.
TUI_WSIZE_OPT=
if [ "$1" -gt 3 ] || { [ "$1" -eq 3 ] && [ "$2" -ge 1 ]; }; then
	TUI_WSIZE_OPT=-w
fi
set --

unset TMUX TMUX_PANE
TUI_SOCK=sluice-test-$$
TUI_S=main
TUI_TIMEOUT=${TUI_TIMEOUT:-10}
TUI_POLL=0.03
TUI_PID=
TUI_STATUS=
TUI_LAST=

# Run the previous EXIT action (lib.sh's, or engine-lib.sh's) after ours.
trap >"$T_DIR/traps"
_tui_prev=$(sed -n 's/^trap -- \(.*\) EXIT$/\1/p' "$T_DIR/traps")
eval "_tui_prev=${_tui_prev:-''}"
trap 'tui_cleanup; eval "$_tui_prev"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# tui_tmux ARGS...: a command to this test's private tmux server.
tui_tmux() {
	tmux -L "$TUI_SOCK" -f /dev/null "$@"
}

# tui_cleanup: kill the server and every program still in its panes
# (and any console gone on headless: tui_reap), and remove its socket
# (tmux leaves it behind).
tui_cleanup() {
	tui_tmux kill-server >/dev/null 2>&1
	for _tui_f in "$T_DIR"/tui-*.pid; do
		[ -f "$_tui_f" ] && tui_reap "$(cat "$_tui_f" 2>/dev/null)"
	done
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TUI_SOCK"
	return 0
}

# tui_reap PID: after its terminal has gone, wait briefly for the program
# to exit; a console that hosted the engine with work in flight goes on
# headless instead (sluice(1), Headless), and is stopped as "sluice
# engine" is: SIGTERM, then a second one interrupting its steps (which
# stay "running" for the next engine, as after a crash).  So the next
# console a test opens, and the end of a test, find no engine left
# behind.  Tests of the headless engine itself use tui_kill_pane.
tui_reap() {
	[ -n "$1" ] || return 0
	# A console gone headless has a session of its own (setsid):
	# no need to wait the second out for it.
	_tui_n=0
	while tui_pid_alive "$1" && ! tui_own_session "$1" &&
	    [ "$_tui_n" -lt 20 ]; do
		_tui_n=$((_tui_n + 1))
		sleep 0.05
	done
	tui_pid_alive "$1" || return 0
	# SIGTERM again every 0.2 s until it has gone: two sent closer
	# together than its loop reads them would count as one.  More
	# than two do nothing more (the kill grace is not restarted).
	_tui_n=0
	while tui_pid_alive "$1" && [ "$_tui_n" -lt 300 ]; do
		[ $((_tui_n % 4)) -eq 0 ] && kill -TERM "$1" 2>/dev/null
		_tui_n=$((_tui_n + 1))
		sleep 0.05
	done
	tui_pid_alive "$1" && kill -9 "$1" 2>/dev/null
	return 0
}

# tui_own_session PID: PID leads a session of its own (a console that
# went on headless called setsid(); one in a pane is in the pane's).
tui_own_session() {
	[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null |
	    cut -d' ' -f4)" = "$1" ]
}

# tui_quote WORD: WORD quoted for sh.
tui_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# tui_size COLSxROWS: set TUI_COLS and TUI_ROWS; 1 when malformed.
tui_size() {
	case $1 in
	*[!0-9x]*|*x*x*) return 1 ;;
	[0-9]*x[0-9]*) ;;
	*)	return 1 ;;
	esac
	TUI_COLS=${1%x*}
	TUI_ROWS=${1#*x}
}

# tui_start [COLSxROWS] [VAR=VAL...] -- ARGS...: the console ("$SLUICE"
# --db "$DB" ARGS) in a new session of that size (default 100x30).
tui_start() {
	_tui_pre=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		_tui_pre="$_tui_pre $(tui_quote "$1")"
		shift
	done
	[ $# -gt 0 ] && shift
	_tui_cmd="$(tui_quote "$SLUICE") --db $(tui_quote "${DB:-$SLUICE_DB}")"
	for _tui_a in "$@"; do
		_tui_cmd="$_tui_cmd $(tui_quote "$_tui_a")"
	done
	eval "tui_spawn $_tui_pre -- $_tui_cmd"
}

# tui_start_cmd [COLSxROWS] [VAR=VAL...] -- CMD ARGS...: any command, e.g.
# sh -c '...' around the console.
tui_start_cmd() {
	tui_spawn "$@"
}

# tui_spawn: what tui_start and tui_start_cmd share.
tui_spawn() {
	TUI_COLS=100
	TUI_ROWS=30
	if [ $# -gt 0 ] && tui_size "$1"; then
		shift
	fi
	_tui_asan="log_path=$T_DIR/san-asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	_tui_u="log_path=$T_DIR/san-ubsan:print_stacktrace=1"
	_tui_u="$_tui_u${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	_tui_env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
	_tui_env="$_tui_env ASAN_OPTIONS=$(tui_quote "$_tui_asan")"
	_tui_env="$_tui_env UBSAN_OPTIONS=$(tui_quote "$_tui_u")"
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		case $1 in
		[A-Za-z_]*=*) _tui_env="$_tui_env $(tui_quote "$1")" ;;
		*)	echo "# tui_start: not VAR=VAL or COLSxROWS: $1"
			return 1 ;;
		esac
		shift
	done
	if [ $# -lt 2 ]; then
		echo "# tui_start: usage: [COLSxROWS] [VAR=VAL...] -- CMD..."
		return 1
	fi
	shift
	# The pane runs sh, which runs the program and writes its exit
	# status to a file: tmux does not always learn it (its pane_dead
	# can come without pane_dead_status).  A second sh writes the
	# program's pid, then execs it.  sh survives SIGINT and SIGQUIT
	# (Ctrl-C reaches the program, not the status) but dies of
	# SIGHUP, so a closed terminal still hangs up the program.
	_tui_f=$T_DIR/tui-$TUI_S
	tui_stop		# before the pid file goes: tui_reap needs it
	rm -f "$_tui_f.pid" "$_tui_f.status"
	_tui_cmd="unset LINES COLUMNS TMUX TMUX_PANE; trap : INT QUIT; env"
	_tui_cmd="$_tui_cmd $_tui_env sh -c 'echo \$\$ >\"\$0\"; exec \"\$@\"'"
	_tui_cmd="$_tui_cmd $(tui_quote "$_tui_f.pid")"
	for _tui_a in "$@"; do
		_tui_cmd="$_tui_cmd $(tui_quote "$_tui_a")"
	done
	_tui_cmd="$_tui_cmd; echo \$? >$(tui_quote "$_tui_f.status")"
	TUI_PID=
	TUI_STATUS=
	# A placeholder first, so that the options hold before the program
	# writes its first byte; then the program takes its place, all in
	# one command list (one round trip).  The window size is set for
	# the session's window: set globally, tmux 3.3a crashes at the
	# next new-session once the last session has gone.
	# shellcheck disable=SC2086 # -w or nothing
	if ! tui_tmux new-session -d -s "$TUI_S" -x "$TUI_COLS" \
	    -y "$TUI_ROWS" 'exec cat' \; \
	    set-option -s exit-empty off \; \
	    set-option -g remain-on-exit on \; \
	    set-option -g status off \; \
	    set-option -g default-shell /bin/sh \; \
	    set-option $TUI_WSIZE_OPT -t "$TUI_S" window-size manual \; \
	    resize-window -t "$TUI_S" -x "$TUI_COLS" -y "$TUI_ROWS" \; \
	    respawn-pane -k -t "$TUI_S" "$_tui_cmd"; then
		echo "# tui_start: tmux could not start: $_tui_cmd"
		return 1
	fi
	_tui_n=$(awk -v t="$TUI_TIMEOUT" -v p="$TUI_POLL" \
	    'BEGIN { printf "%d", t / p + 1 }')
	while [ ! -s "$_tui_f.pid" ] && [ ! -f "$_tui_f.status" ]; do
		_tui_n=$((_tui_n - 1))
		if [ "$_tui_n" -le 0 ]; then
			echo "# tui_start: the program did not start: $_tui_cmd"
			return 1
		fi
		sleep "$TUI_POLL"
	done
	TUI_PID=$(tui_pid)
}

# tui_keys [-l] KEYS...: send keys to the console, one key name per
# argument, or with -l the arguments as literal text.
tui_keys() {
	if [ "${1:-}" = "-l" ]; then
		shift
		tui_tmux send-keys -t "$TUI_S" -l -- "$*"
	else
		tui_tmux send-keys -t "$TUI_S" -- "$@"
	fi
}

# tui_type TEXT: type TEXT as it is.
tui_type() {
	tui_keys -l "$*"
}

# tui_screen [-e]: what the terminal shows now, one line per row (with
# -e, colours and attributes as escape sequences).
tui_screen() {
	tui_tmux capture-pane -p "$@" -t "$TUI_S"
}

# tui_poll MODE REGEX TIMEOUT: poll the screen until a line matches (MODE
# match) or none does (MODE gone); the last screen in $TUI_LAST.
tui_poll() {
	_tui_n=$(awk -v t="${3:-$TUI_TIMEOUT}" -v p="$TUI_POLL" \
	    'BEGIN { printf "%d", t / p + 1 }')
	while :; do
		TUI_LAST=$(tui_screen 2>&1)
		if printf '%s\n' "$TUI_LAST" | grep -Eq -- "$2"; then
			[ "$1" = match ] && return 0
		else
			[ "$1" = gone ] && return 0
		fi
		_tui_n=$((_tui_n - 1))
		[ "$_tui_n" -le 0 ] && return 1
		sleep "$TUI_POLL"
	done
}

# tui_diag WHAT: the last screen as TAP diagnostics, saying what was
# awaited.
tui_diag() {
	echo "# $1; the screen (${TUI_COLS}x${TUI_ROWS}):"
	printf '%s\n' "$TUI_LAST" | sed 's/^/#   |/'
}

# tui_wait REGEX [TIMEOUT]: until a line of the screen matches REGEX.
tui_wait() {
	tui_poll match "$1" "${2:-}" && return 0
	tui_diag "no line matched /$1/ within ${2:-$TUI_TIMEOUT} s"
	return 1
}

# tui_wait_gone REGEX [TIMEOUT]: until no line of the screen matches.
tui_wait_gone() {
	tui_poll gone "$1" "${2:-}" && return 0
	tui_diag "a line still matched /$1/ after ${2:-$TUI_TIMEOUT} s"
	return 1
}

# tui_ok REGEX DESC [TIMEOUT]: one case: a line matches within TIMEOUT.
tui_ok() {
	if tui_poll match "$1" "${3:-}"; then
		ok 0 "$2"
	else
		ok 1 "$2"
		tui_diag "no line matched /$1/ within ${3:-$TUI_TIMEOUT} s"
	fi
}

# tui_gone_ok REGEX DESC [TIMEOUT]: one case: no line matches in time.
tui_gone_ok() {
	if tui_poll gone "$1" "${3:-}"; then
		ok 0 "$2"
	else
		ok 1 "$2"
		tui_diag "a line still matched /$1/ after ${3:-$TUI_TIMEOUT} s"
	fi
}

# tui_resize COLSxROWS: give the terminal a new size (the program gets
# SIGWINCH).
tui_resize() {
	tui_size "$1" || { echo "# tui_resize: not COLSxROWS: $1"; return 1; }
	tui_tmux resize-window -t "$TUI_S" -x "$TUI_COLS" -y "$TUI_ROWS"
}

# tui_pid: the pid of the program in the pane.
tui_pid() {
	cat "$T_DIR/tui-$TUI_S.pid" 2>/dev/null
}

# tui_alive: the program in the pane has not exited.
tui_alive() {
	[ ! -f "$T_DIR/tui-$TUI_S.status" ] && tui_pid_alive "$(tui_pid)"
}

# tui_wait_exit [TIMEOUT]: until the pane's program exits; its exit status
# in $TUI_STATUS, as sh gives it (128 + N after signal N; empty when the
# terminal went first).  1 (and a diagnostic) if it is still running.
tui_wait_exit() {
	_tui_n=$(awk -v t="${1:-$TUI_TIMEOUT}" -v p="$TUI_POLL" \
	    'BEGIN { printf "%d", t / p + 1 }')
	while tui_alive; do
		_tui_n=$((_tui_n - 1))
		if [ "$_tui_n" -le 0 ]; then
			TUI_LAST=$(tui_screen 2>&1)
			tui_diag "still running after ${1:-$TUI_TIMEOUT} s"
			return 1
		fi
		sleep "$TUI_POLL"
	done
	# The program is gone; sh writes the status a moment later.
	_tui_n=50
	while [ ! -s "$T_DIR/tui-$TUI_S.status" ] && [ "$_tui_n" -gt 0 ] &&
	    tui_tmux has-session -t "$TUI_S" 2>/dev/null; do
		_tui_n=$((_tui_n - 1))
		sleep "$TUI_POLL"
	done
	TUI_STATUS=$(cat "$T_DIR/tui-$TUI_S.status" 2>/dev/null)
	return 0
}

# tui_kill_pane: close the terminal under the program, as when its
# terminal window is closed: the session goes, and the pty with it; the
# kernel hangs up the sh around the program, and as that sh dies, the
# program (in the terminal's foreground process group) gets SIGHUP.  Its
# pid stays in $TUI_PID.
tui_kill_pane() {
	TUI_PID=$(tui_pid)
	tui_tmux kill-session -t "$TUI_S"
}

# tui_pid_alive PID: a live process (a zombie counts as dead).
tui_pid_alive() {
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
	_tui_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$_tui_st" ] && [ "$_tui_st" != Z ]
}

# tui_stop: end the session, if there is one (a program still running
# gets SIGHUP).
tui_stop() {
	# The last session goes with the whole server: tmux 3.3a may crash
	# at the next new-session once its last session was killed.
	# One round trip says whether there is a session, how many, and
	# the server's pid (#{pid}).
	_tui_ls=$(tui_tmux list-sessions -F '#{pid} #{session_name}' \
	    2>/dev/null)
	printf '%s\n' "$_tui_ls" | grep -qFx -- "${_tui_ls%% *} $TUI_S" ||
	    return 0
	_tui_stop_pid=$(tui_pid)
	if [ "$(printf '%s\n' "$_tui_ls" | wc -l)" -gt 1 ]; then
		tui_tmux kill-session -t "$TUI_S"
	else
		tui_tmux kill-server >/dev/null 2>&1
		# Until its process has gone: a new-session that reaches
		# the dying server fails.  (Not until its socket has gone:
		# tmux leaves the socket behind, and the next new-session
		# starts a server on it anew.)
		_tui_n=0
		while tui_pid_alive "${_tui_ls%% *}"; do
			_tui_n=$((_tui_n + 1))
			[ $_tui_n -ge 100 ] && break
			sleep 0.02
		done
	fi
	tui_reap "$_tui_stop_pid"
	return 0
}

# tui_sanitizers_ok DESC: one case: no sanitizer report from a program
# started by tui_start (they go to $T_DIR/san-*, unseen on the screen).
tui_sanitizers_ok() {
	_tui_f=$(ls "$T_DIR"/san-* 2>/dev/null)
	if [ -z "$_tui_f" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		for _tui_x in $_tui_f; do
			echo "# $_tui_x:"
			sed 's/^/#   /' "$_tui_x" | head -40
		done
	fi
}
