#!/bin/sh
# tests/tui/request-id.sh: the console's actions carry request ids, as the
# command line's do (tests/cli/request-id.sh).  A console attached to an
# engine approves a gate; the engine is kill -9'd where
# SLUICE_TEST_HOLD (test builds only) stops it.  Between the commit and
# the answer ("answer"): the console keeps drawing, says it waits for the
# engine, and once the next engine (here the console itself, taking
# over) can tell, says "applied"; the gate's successor ran once.  After
# the request was read and before it was applied ("apply"): it says "not
# applied (nothing changed; give the command again)", and nothing was
# recorded.  Scripted screens, no tmux.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

"$SLUICE" --version | grep -q 'test clock' ||
    skip_all "needs a build with --enable-test-clock (SLUICE_TEST_HOLD)"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

cat >"$T_DIR/gate.json" <<'EOF'
{"go": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF

# gate_run: a run recorded with no engine (it starts with the next one);
# its id in $WF.
gate_run() {
	run_sluice run "$T_DIR/gate.json"
	WF=$OUT
}

# --- killed between the commit and the answer: applied ----------------------

gate_run
held_engine answer
ok $? "an engine that stops after its next commit, before answering"
wait_for step_is "$WF" go waiting
ok $? "the run's gate waits"
gate=$(step_id "$WF" go)
requests=$(q "SELECT count(*) FROM requests")

scr_start 200x30 --
scr_ok "engine: pid $EPID on " "the console attaches to the engine"
scr_approve "$gate" "$WF" ok
ok $? "the console approves the gate"
wait_for stopped "$EPID"
ok $? "the engine committed the approval and stopped before answering"
q_is "SELECT count(*) FROM requests" $((requests + 1)) \
    "the approval's request id is recorded with it"
rid=$(q "SELECT id FROM requests ORDER BY rowid DESC LIMIT 1")
engine_crash
scr_ok "approve $gate -m ok: approved .*\\(request $rid: applied\\)" \
    "once an engine can tell (the console, taking over), it says applied, naming the request" 15
scr_ok "engine: this console" "the console took over the engine"
wait_for wf_is "$WF" completed
ok $? "the run goes on to its end"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $WF AND
    name = 'after'" 1 "the gate's successor ran once"
q_is "SELECT count(*) FROM audit WHERE action = 'approve'" 1 \
    "the approval is audited once"
scr_keys m
scr_ok "approve $gate -m ok: the engine went away before it answered; waiting for the engine" \
    "meanwhile it said it was waiting for the engine"
scr_keys q
scr_stop
is "$SCR_STATUS" 0 "the console quits cleanly"

# --- killed after reading the request, before applying it: not applied -----

gate_run
held_engine apply
ok $? "an engine that stops on its next command, before applying it"
wait_for step_is "$WF" go waiting
ok $? "a new run's gate waits"
gate=$(step_id "$WF" go)
requests=$(q "SELECT count(*) FROM requests")
audit=$(q "SELECT max(id) FROM audit")

scr_start 200x30 --
scr_ok "engine: pid $EPID on " "the console attaches to the engine"
scr_approve "$gate" "$WF" ok
ok $? "the console approves the gate"
wait_for stopped "$EPID"
ok $? "the engine read the approval and stopped before applying it"
engine_crash
scr_ok "approve $gate -m ok: request [0-9a-f]+: not applied \\(nothing changed; give the command again\\)" \
    "once an engine can tell, it says not applied" 15
step_is "$WF" go waiting
ok $? "the gate still waits"
q_is "SELECT count(*) FROM requests" "$requests" "no request was recorded"
q_is "SELECT count(*) FROM audit WHERE id > $audit AND action = 'approve'" 0 \
    "no approval was audited"
scr_approve "$gate" "$WF" ok
scr_ok "approve $gate -m ok: approved" "given again, the approval is applied"
wait_for wf_is "$WF" completed
ok $? "and the run completes"
scr_sanitizers_ok "no sanitizer report from the console"

done_testing
