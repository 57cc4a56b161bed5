#!/bin/sh
# tests/tui/mouse.sh: the mouse in the console: a click selects a row, a
# double click opens it, the wheel scrolls; --no-mouse and SLUICE_MOUSE=0
# leave the mouse to the terminal (to select text).  Key scripts send the
# events the terminal's reader hands on (tests/screen-lib.sh), at 80x24
# and 200x60; then a real terminal (tmux) sends xterm's SGR mouse
# reports, read through curses as a mouse is.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

db_init
cat >"$T_DIR/ok.json" <<'EOF2'
{"start": {"tool": "noop", "next": "finish"}, "finish": {"tool": "noop"}}
EOF2
i=1
while [ "$i" -le 30 ]; do
	run_sluice run "$T_DIR/ok.json" --name "run-$i"
	i=$((i + 1))
done
# Newest first: run-30 on the first row (screen row 2), run-28 on row 4.

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_wait '^30 +run-30 +✓ completed' 20 || true
	scr_line ":click 4 5"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Run 28 run-28 ' \
	    "$size: a click selects the row under it (Enter opens it)"
	scr_keys q
	scr_line ":double-click 3 20"
	scr_ok '^(sluice [^ ]+ · )?Run 29 run-29 ' \
	    "$size: a double click opens the row"
	# The run view: a header of four rows, the titles, start, finish.
	scr_line ":double-click 6 2"
	scr_ok '^(sluice [^ ]+ · )?Step [0-9]+ finish, run 29' \
	    "$size: ... in the run view too: a step's details"
	scr_keys q q g
	scr_line ":wheel down"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Run 27 run-27 ' \
	    "$size: a notch of the wheel moves three rows down"
	scr_keys q
	scr_line ":wheel up"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Run 30 run-30 ' "$size: ... and up"
	scr_keys q
	scr_line ":click 0 5"
	scr_line ":click $((${size#*x} - 2)) 5"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Run 30 run-30 ' \
	    "$size: a click on the header or the footer selects nothing"
	scr_keys q ?
	scr_line ":wheel down"
	scr_ok 'rows 4-' "$size: the wheel scrolls the help"
	scr_keys q
done

# Off: the clicks are the terminal's.
for how in "-- --no-mouse" "SLUICE_MOUSE=0 --"; do
	# shellcheck disable=SC2086 # the words are the options
	scr_start 80x24 $how
	scr_wait '^[0-9]+ +run-30 ' || true
	scr_line ":double-click 4 5"
	scr_line ":wheel down"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Run 30 run-30 ' \
	    "${how#-- }: clicks and the wheel do nothing"
done

# The help says what the mouse does, and when it is off.
scr_start 200x60 --
scr_keys ? G
scr_ok '^  a click selects a row, a double click opens it, the wheel' \
    "the help says what the mouse does"
scr_start 200x60 -- --no-mouse
scr_keys ? G
scr_ok '^  off \(--no-mouse or SLUICE_MOUSE=0\)' "... and that it is off"

scr_sanitizers_ok "no sanitizer report from the consoles"

# A real terminal: tmux passes xterm's SGR reports (ESC [ < b ; x ; y M,
# then m on release; x and y from 1) to the console's curses.
. "$TOP_SRCDIR/tests/tui-lib.sh"
for size in 80x24 200x60; do
	tui_start "$size" --
	tui_wait '^[0-9]+ +run-30 ' || true
	# A double click on run-28 (row 4, from 0: 5 from 1).
	tui_keys -l "$(printf '\033[<0;6;5M\033[<0;6;5m\033[<0;6;5M\033[<0;6;5m')"
	tui_ok '^(sluice [^ ]+ · )?Run 28 run-28 ' \
	    "$size tmux: a double click opens the run under it"
	tui_keys q
	tui_wait '^[0-9]+ +run-30 ' || true
	# The wheel down (button 65), then Enter.
	tui_keys -l "$(printf '\033[<65;6;5M')"
	tui_keys Enter
	tui_ok '^(sluice [^ ]+ · )?Run 25 run-25 ' \
	    "$size tmux: the wheel moves the cursor three rows (from run-28)"
	tui_keys q
	tui_stop
done
# Whether the console asked the terminal for mouse reports, as tmux
# saw it: with --no-mouse or SLUICE_MOUSE=0 it did not, so the terminal
# keeps selecting text.
tui_start 80x24 --
tui_wait '^[0-9]+ +run-30 ' || true
is "$(tui_tmux display-message -p -t "$TUI_S" '#{mouse_any_flag}')" 1 \
    "tmux: the console asks for mouse reports"
tui_stop
tui_start 80x24 -- --no-mouse
tui_wait '^[0-9]+ +run-30 ' || true
is "$(tui_tmux display-message -p -t "$TUI_S" '#{mouse_any_flag}')" 0 \
    "tmux: with --no-mouse it does not"
tui_stop
tui_start 80x24 SLUICE_MOUSE=0 --
tui_wait '^[0-9]+ +run-30 ' || true
is "$(tui_tmux display-message -p -t "$TUI_S" '#{mouse_any_flag}')" 0 \
    "tmux: nor with SLUICE_MOUSE=0"
tui_stop
tui_sanitizers_ok "no sanitizer report from the consoles in tmux"
done_testing
