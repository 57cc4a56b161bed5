#!/bin/sh
# tests/tui/terminal.sh: the console and its terminal.  Resizes down to
# 40x10 (and below the minimum, to a notice) and up to 200x60; UTF-8
# glyphs and ASCII ones in the C locale; wide names kept aligned; NO_COLOR;
# the terminal as it was after q (stty -g); a terminal closed under a
# console that runs the engine with a step running: it goes on headless,
# without spinning; quitting with steps running asks first.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/tui-lib.sh"

cat >"$T_DIR/quick.json" <<'J'
{"start": {"tool": "echo", "args": {"x": 1}}}
J
cat >"$T_DIR/long.json" <<'J'
{"start": {"name": "long", "shell": "sleep 30", "on_interrupt": "fail"}}
J

run_sluice run --wait "$T_DIR/quick.json" --name "plain"
expect_rc 0 "a completed run"
run_sluice run --wait "$T_DIR/quick.json" --name "デプロイ本番"
expect_rc 0 "a completed run with a wide name"

# --- sizes ---------------------------------------------------------------
tui_start 80x24
tui_ok 'engine: this console' "80x24: the header"
tui_ok '^2 +デプロイ本番 +✓ completed' "80x24: the runs, UTF-8 glyphs"
# Display columns up to the status glyph, per row: the same for both.
cols=$(tui_screen | grep '✓ completed' | sed 's/✓.*//' | LC_ALL=C.UTF-8 wc -L)
w1=$(tui_screen | grep '^1 ' | sed 's/✓.*//' | LC_ALL=C.UTF-8 wc -L)
w2=$(tui_screen | grep '^2 ' | sed 's/✓.*//' | LC_ALL=C.UTF-8 wc -L)
is "$w2" "$w1" "a wide (CJK) name keeps the columns aligned ($cols)"
for size in 100x30 200x60 60x20 40x10; do
	tui_resize "$size"
	tui_ok 'engine: this console' "$size: the header after a resize"
	tui_ok '^1 +plain' "$size: the rows after a resize"
	tui_ok 'Enter open' "$size: the footer after a resize"
done
tui_resize 30x6
tui_ok 'needs 40x8' "30x6: a notice of the size it needs"
tui_resize 120x40
tui_ok '^1 +plain' "back to 120x40: the view again"
tui_keys 2
tui_ok 'No gate is waiting' "a key works after all that"
tui_keys 1
tui_wait '^1 +plain'

# --- C locale -----------------------------------------------------------------
tui_start 80x24 LC_ALL=C LANG=C --
tui_ok '^1 +plain +\+ completed' "the C locale: ASCII glyphs"
tui_ok '^2 +\?+ +\+ completed' "... and names it cannot show as ?"

# --- NO_COLOR -----------------------------------------------------------------
tui_start 80x24 NO_COLOR=1 --
tui_wait '^1 +plain'
tui_tmux capture-pane -e -p -t "$TUI_S" >"$T_DIR/esc"
grep -q "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*38;5" \
    "$T_DIR/esc"
ok $((! $?)) "NO_COLOR: no colour on screen"
tui_start 80x24
tui_wait '^1 +plain'
tui_tmux capture-pane -e -p -t "$TUI_S" >"$T_DIR/esc"
grep -q "$(printf '\033')\[[0-9;]*3[0-7]m\|$(printf '\033')\[[0-9;]*38;5" \
    "$T_DIR/esc"
ok $? "without NO_COLOR: colours"

# --- the terminal as it was -----------------------------------------------------
# shellcheck disable=SC2016
tui_start_cmd 80x24 -- sh -c 'stty -g >"$1/before"; "$2" --db "$3";
	stty -g >"$1/after"; echo "quit $?"; sleep 30' sh "$T_DIR" "$SLUICE" \
    "$SLUICE_DB"
tui_wait '^1 +plain'
tui_keys q
tui_ok '^quit 0$' "q quits with status 0"
is "$(cat "$T_DIR/after")" "$(cat "$T_DIR/before")" \
    "stty -g is the same before and after"

# --- quitting with steps running ------------------------------------------------
tui_start 80x24
tui_wait 'engine: this console'
run_sluice run "$T_DIR/long.json"
L=$(printf '%s' "$OUT" | tail -n 1)
wait_for step_is "$L" long running
ok $? "a long step runs in the console's engine"
tui_keys q
tui_ok 'steps? (is|are) running' "q asks first when steps are running"
tui_keys n
tui_gone_ok 'steps? (is|are) running' "n: the console stays"
tui_keys 2
tui_ok 'No gate is waiting' "... and still takes keys"
ok "$(tui_alive; echo $?)" "... and still runs"

# --- the terminal goes away -----------------------------------------------------
pid=$(tui_pid)
ENGINES="$ENGINES $pid"
tui_kill_pane
wait_for file_has "$SLUICE_DB.engine.log" "the terminal went away"
ok $? "a closed terminal: the console's engine goes on headless"
tui_pid_alive "$pid"
ok $? "... in the same process"
t0=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
sleep 1
t1=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
ok $(((t1 - t0) * 100 / $(getconf CLK_TCK) > 20)) \
    "... not spinning on the dead terminal ($((t1 - t0)) ticks in 1 s)"
step_is "$L" long running
ok $? "the running step goes on (SIGHUP interrupts nothing)"
kill -TERM "$pid"
wait_for file_has "$SLUICE_DB.engine.log" "signal again to interrupt"
ok $? "SIGTERM: the headless engine says it waits for the running step"
kill -TERM "$pid"
n=0
while tui_pid_alive "$pid" && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
tui_pid_alive "$pid"
ok $((! $?)) "two SIGTERMs stop the headless engine, interrupting the step"
engine_drain
wait_for wf_ended "$L"
ok $? "the next engine handles it (on_interrupt: fail)"
q_is "SELECT status FROM workflows WHERE id = $L" failed \
    "... which fails it"
is "$ERC" 0 "... and then exits (--drain)"

tui_sanitizers_ok "no sanitizer report from the consoles"
done_testing
