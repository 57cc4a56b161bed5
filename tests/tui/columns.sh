#!/bin/sh
# tests/tui/columns.sh: an operator's screen shows what it holds.  Columns
# are as wide as the rows on screen need, so long names show whole where
# there is room and are cut only where there is not; footers list only
# the keys that work on the selected row, most important first, ending
# with "? help"; m shows every message whole and Y copies the last echoed
# command to the clipboard with OSC 52 (tmux's set-clipboard takes it).
# At 80x24 and 200x60, from key scripts (tests/screen-lib.sh); the
# clipboard alone needs a terminal (tmux).

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"
# The clipboard (OSC 52) needs a terminal: tmux.
. "$TOP_SRCDIR/tests/tui-lib.sh"

long=rebuild-the-payments-search-index-in-every-region
cat >"$T_DIR/long.json" <<'EOF'
{"start": {"tool": "noop", "next": "warm-the-caches-of-every-edge-node"},
 "warm-the-caches-of-every-edge-node": {"tool": "noop", "next": "go"},
 "go": {"gate": {"message": "the caches are warm: switch traffic over?"},
        "next": "switch"},
 "switch": {"tool": "noop"}}
EOF
run_sluice template save "$long" "$T_DIR/long.json"
expect_rc 0 "a template with a long name"
run_sluice run "$long" --name "$long-for-the-quarterly-audit"
wf=$OUT

scr_start 200x60 --
scr_wait "^$wf .*◆ waiting"
scr_ok "^$wf +$long-for-the-quarterly-audit +" \
    "200x60: the Workflows view shows a long run name whole"
scr_ok " go +root " "200x60: ... and its current step"
scr_keys 3
scr_ok "^$long +1 " "200x60: the Templates view shows a long template name whole"
scr_keys 2
scr_ok 'the caches are warm: switch traffic over\?' \
    "200x60: the Gates view shows the whole message"
scr_ok 'Enter open +y approve +n reject' \
    "200x60: the Gates footer starts with what decides the gate"
scr_ok '\? help$' "200x60: ... and ends with ? help"
scr_keys 1 Enter
scr_wait '◆ go +gate'
scr_ok '^Enter open +y approve +n reject' \
    "200x60: on the waiting gate the run view's footer offers y and n"
scr_keys g
scr_ok '^Enter open +R retry +c cancel' \
    "200x60: on a finished step it does not"
scr_gone_ok 'y approve' "200x60: ... no y approve"
scr_gone_ok ' s skip' "200x60: ... and no s skip"
scr_keys Enter
scr_ok '^✓ start +done' "200x60: Enter shows the step"
scr_gone_ok '/ filter' "200x60: the step details do not offer / (it does nothing there)"
scr_keys q q 5
scr_ok "workflow $wf $long-for-the-quarterly-audit" \
    "200x60: the Audit view shows the whole target"
scr_stop

scr_start 80x24 --
scr_ok "^$wf +rebuild-the-payments" "80x24: the run is listed, its name cut"
scr_ok '…' "80x24: a cut shows …"
scr_ok '\? (help|more keys)$' "80x24: the footer ends in ? help or ? more keys, not …"
scr_gone_ok '[^?] [a-z]+…$' "80x24: no footer word is cut"
# A command wider than the screen: the message line cuts it, m shows it.
scr_keys 3 v
scr_ok "template history rebuild-the-pay.*…\$" \
    "80x24: v echoes its command, cut at the screen's edge"
scr_keys m
scr_ok "^[0-9:]+ +sluice .*template history" "80x24: m opens the messages"
scr_ok "^$long\$|history $long\$" \
    "80x24: the whole command is there, wrapped"
scr_stop

# Y writes OSC 52 to the terminal: tmux's set-clipboard takes it.
tui_start 80x24 --
tui_wait "^$wf +rebuild-the-payments"
tui_keys 3 v
tui_wait "template history rebuild-the-pay"
tui_tmux set -g set-clipboard on
tui_keys Y
tui_ok 'copied to the clipboard \(OSC 52\)' "80x24: Y says it copied"
is "$(tui_tmux show-buffer 2>/dev/null | sed 's/--db [^ ]* //')" \
    "sluice template history $long" \
    "80x24: the terminal received the whole command (tmux's buffer)"
tui_stop

done_testing
