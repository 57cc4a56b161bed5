#!/bin/sh
# tests/tui/states.sh: the console says what the CLI says.  With a run at
# a gate, a paused run, a running one and a completed one, in a real
# terminal at 80x24 and 200x60 (and in the C locale): the Workflows view
# shows each run's state with its glyph, the header counts runs by those
# same states, the run view's header of the run at the gate says waiting,
# and the / filter finds it by the word the list shows.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"

engine_start
rm -f "$T_DIR/go"
cat >"$T_DIR/gate.json" <<'J'
{"start": {"tool": "noop", "next": "g"},
 "g": {"gate": {"message": "Ship?"}, "next": "end"},
 "end": {"tool": "noop"}}
J
cat >"$T_DIR/long.json" <<J
{"start": {"name": "work", "on_interrupt": "fail",
  "shell": "i=0; while [ ! -f $T_DIR/go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done"}}
J
run_sluice run "$T_DIR/gate.json" --name shipit
gate=$OUT
wait_for step_is "$gate" g waiting
ok $? "run $gate waits at its gate"
run_sluice run "$T_DIR/long.json" --name held
held=$OUT
wait_for step_is "$held" work running
run_sluice pause "$held"
expect_rc 0 "run $held is paused"
run_sluice run "$T_DIR/long.json" --name busy
busy=$OUT
wait_for step_is "$busy" work running
ok $? "run $busy is running"

for size in 80x24 200x60; do
	scr_start "$size"
	scr_ok "^$gate +shipit +◆ waiting " "$size: a run at a gate: ◆ waiting"
	scr_ok "^$held +held +‖ paused " "$size: a paused run: ‖ paused"
	scr_ok "^$busy +busy +▶ running " "$size: a running run: ▶ running"
	scr_ok "1 running  1 waiting  1 paused  [0-9]+ failed" \
	    "$size: the header counts runs by the same states"
	scr_keys /
	scr_type "waiting"
	scr_keys Enter
	scr_ok "^$gate +shipit +◆ waiting" "$size: /waiting finds the run at the gate"
	scr_gone_ok "^$busy +busy" "$size: ... and only it"
	scr_keys Enter
	scr_ok "^#$gate shipit +◆ waiting" "$size: its run view's header says waiting"
	scr_keys Escape
	scr_keys Escape
	scr_ok "^$busy +busy" "$size: Esc clears the filter"
	scr_stop
done

scr_start 80x24 LC_ALL=C LANG=C --
scr_ok "^$gate +shipit +\? waiting " "C locale: ? waiting"
scr_ok "^$held +held += paused " "C locale: = paused"
scr_stop

# The run moves on: the words follow.
run_sluice approve "$(step_id "$gate" g)" -m go
wait_for wf_is "$gate" completed
run_sluice resume "$held"
scr_start 80x24
scr_ok "^$gate +shipit +✓ completed " "approved: ✓ completed"
scr_ok "^$held +held +▶ running " "resumed: ▶ running"
scr_ok "2 running  0 waiting  [0-9]+ failed" "the header follows"
scr_stop
touch "$T_DIR/go"
wait_for wf_is "$held" completed
wait_for wf_is "$busy" completed
scr_sanitizers_ok "no sanitizer report"

done_testing
