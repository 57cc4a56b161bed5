#!/bin/sh
# tests/tui/smoke.sh: the terminal harness (tests/tui-lib.sh) on its own,
# then the console in it: sluice with no command opens the console, whose
# header names the engine (this console, or an engine that runs
# elsewhere), q quits with status 0 and the terminal settings as they
# were (stty -g before and after), in UTF-8 and in the C locale.  A
# console attaching to another engine needs no terminal: it runs from a
# key script (tests/screen-lib.sh).

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/tui-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

# --- the harness ------------------------------------------------------------

# shellcheck disable=SC2016 # expanded by the shell in the pane
tui_start_cmd 40x10 FOO='a b' -- sh -c '
	echo "size $(stty size) $TERM"
	echo "lc $LC_ALL foo $FOO ${LINES:-no} ${COLUMNS:-no}"
	trap "echo winch \$(stty size)" WINCH
	while :; do sleep 0.02; done'
tui_ok '^size 10 40 xterm-256color$' \
    "harness: the size and TERM reach the program"
tui_ok '^lc C.UTF-8 foo a b no no$' \
    "harness: the locale and environment too, LINES and COLUMNS not"
tui_resize 60x15
tui_ok '^winch 15 60$' "harness: a resize reaches the program as SIGWINCH"
is "$(tui_tmux display-message -p -t "$TUI_S" '#{pane_width}x#{pane_height}')" \
    60x15 "harness: the pane has the new size (no status line)"
tui_alive
ok $? "harness: tui_alive while the program runs"
tui_pid_alive "$(tui_pid)"
ok $? "harness: tui_pid names a live process"

tui_start_cmd 30x5 LC_ALL=C -- sh -c 'echo "lc $LC_ALL"; stty -echo; cat'
tui_ok '^lc C$' "harness: a test chooses the locale"
tui_type "it's \"typed\" as is"
tui_keys Enter
tui_ok "^it's \"typed\" as is$" "harness: literal text and key names arrive"
tui_gone_ok '^nothing like this$' "harness: tui_gone_ok"
tui_keys C-d
tui_wait_exit 5
ok $? "harness: the program exits at end of input"
is "$TUI_STATUS" 0 "harness: its exit status is read"

tui_start_cmd -- sh -c 'exit 7'
tui_wait_exit 5
is "$TUI_STATUS" 7 "harness: a non-zero exit status is read"

tui_start_cmd -- sh -c 'trap "exit 5" INT; echo ready
	while :; do sleep 0.02; done'
tui_wait '^ready$'
tui_keys C-c
tui_wait_exit 5
is "$TUI_STATUS" 5 "harness: Ctrl-C reaches the program, its status too"
tui_wait 'never shown' 0.1 >"$T_DIR/diag"
ok $((! $?)) "harness: tui_wait fails at its deadline"
grep -q '^# no line matched /never shown/ within 0.1 s; the screen' \
    "$T_DIR/diag"
ok $? "harness: ... and prints the screen as diagnostics"

# shellcheck disable=SC2016
tui_start_cmd -- sh -c 'trap "echo \$\$ >\"$1/hup\"; exit 1" HUP
	echo ready; while :; do sleep 0.02; done' sh "$T_DIR"
tui_wait '^ready$'
pid=$(tui_pid)
tui_kill_pane
wait_for test -s "$T_DIR/hup"
ok $? "harness: closing the terminal sends the program SIGHUP"
is "$(cat "$T_DIR/hup" 2>/dev/null)" "$pid" "harness: ... that program"
wait_for dead "$pid"
ok $? "harness: ... and it is gone"

# --- the console: this console runs the engine -------------------------------

run_sluice --tools "$TOP_SRCDIR/share/tools.json" template save db-backup \
    "$TOP_SRCDIR/share/templates/db-backup.json"
expect_rc 0 "a database with one template"

# shellcheck disable=SC2016
tui_start_cmd 100x30 -- sh -c 'stty -g >"$1/before"; "$2" --db "$3"; rc=$?
	stty -g >"$1/after"; exit $rc' sh "$T_DIR" "$SLUICE" "$SLUICE_DB"
tui_ok 'sluice.*engine: ' "sluice with no command opens the console"
tui_ok 'engine: this console' "with no engine running, the console runs it"
tui_alive
ok $? "the console is running"
tui_keys q
tui_wait_exit 5
ok $? "q quits"
is "$TUI_STATUS" 0 "... with status 0"
[ -s "$T_DIR/before" ] && [ -s "$T_DIR/after" ]
ok $? "stty -g read before and after"
is "$(cat "$T_DIR/after" 2>/dev/null)" "$(cat "$T_DIR/before" 2>/dev/null)" \
    "the terminal settings are as they were"
q_is "SELECT coalesce(pid, '') FROM engine" "" \
    "the console let go of the engine lease"

# --- the C locale: ASCII only -----------------------------------------------

tui_start 80x24 LANG=C LC_ALL=C --
tui_ok 'engine: this console' "in the C locale the console opens"
tui_screen | LC_ALL=C grep -n '[^ -~]' >"$T_DIR/nonascii"
ok $((! $?)) "... and draws in ASCII only"
[ -s "$T_DIR/nonascii" ] && sed 's/^/#   /' "$T_DIR/nonascii"
tui_keys q
tui_wait_exit 5
is "$TUI_STATUS" 0 "... and q quits"

# --- another process is the engine ------------------------------------------

# Attaching needs no terminal: a key script drives this console
# (tests/screen-lib.sh).
engine_start
scr_start 100x30 --
scr_ok "engine: pid $EPID on " "with an engine running, the console attaches"
tui_pid_alive "$(scr_pid)"
ok $? "the attached console is running"
scr_keys q
scr_stop
is "$SCR_STATUS" 0 "q quits the attached console"
alive "$EPID"
ok $? "... and leaves the engine running"
engine_stop
is "$ERC" 0 "that engine stops cleanly"

tui_sanitizers_ok "no sanitizer reports"

done_testing
