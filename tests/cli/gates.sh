#!/bin/sh
# tests/cli/gates.sh: gates: approve and reject with comments, the
# refusals (not waiting, not an approver, a second vote, allow_self) with
# their exit codes and audit rows, approvers by name and @group, quorum
# progress, gate timeouts that reject or escalate (also across an engine
# restart), decisions with no engine, and on_interrupt ask after a crash.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# last_audit COLUMNS: columns of the newest audit row.
last_audit() {
	q "SELECT $1 FROM audit ORDER BY id DESC LIMIT 1"
}

me=$(id -un)
grp=$(id -gn)
other=nobody-else-$$
[ "$me" != "$other" ] || skip_all "cannot find a name that is not mine"
tty=$(tty </dev/null 2>/dev/null || echo -)
host=$(uname -n)

engine_start

# --- approve and reject ---------------------------------------------------------

cat >"$T_DIR/gate.json" <<'EOF'
{"start": {"tool": "noop", "next": "g"},
 "g": {"gate": {"message": "Ship {{input.v}}?"},
   "branch": [{"if": "result == \"approved\"", "then": "yes"},
              {"if": "result == \"rejected\"", "then": "no"}]},
 "yes": {"tool": "noop"}, "no": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/gate.json" -i v=1.2
id=$OUT
wait_for step_is "$id" g waiting
ok $? "a gate waits"
g=$(step_id "$id" g)
run_sluice gates --json
like "$OUT" "\"step_id\": $g" "the gate is in the approval queue"
like "$OUT" '"message": "Ship 1.2?"' "its message is interpolated"
run_sluice approve "$g" -m "looks good"
expect_rc 0 "approve"
is "$OUT" "approved step $g (g)" "approve says so"
is "$ERR" "" "no warning: an engine runs"
wait_for wf_is "$id" completed
ok $? "the approved workflow completes"
is "$(col "$id" g "status || '|' || result_json")" 'done|"approved"' \
    "the gate row is done with result approved"
is "$(col "$id" yes status)" done "the branch on approved is taken"
is "$(last_audit "action || '|' || who || '|' || target || '|' ||
    workflow_id || '|' || step_id || '|' || comment || '|' || host")" \
    "approve|$me|step $g g|$id|$g|looks good|$host" \
    "the approval is audited with who, where and the comment"
q_is "SELECT who, decision, comment FROM approvals WHERE step_id = $g" \
    "$me|approve|looks good" "the vote is recorded"

run_sluice approve "$g"
expect_rc 4 "approving a gate that is no longer waiting is refused"
is "$ERR" "sluice: step $g (g) is not waiting for a decision: it is done" \
    "it says the step is done"
is "$(last_audit "action || '|' || comment")" \
    "approve-refused|step $g (g) is not waiting for a decision: it is done" \
    "the refusal is audited with its reason"
run_sluice approve 99999
expect_rc 3 "approve of an unknown step"
is "$ERR" "sluice: no step 99999" "it names the step"
run_sluice approve "$g" -m
expect_rc 2 "approve -m with no text is a usage error"

run_sluice run "$T_DIR/gate.json" -i v=2
id=$OUT
wait_for step_is "$id" g waiting
g=$(step_id "$id" g)
before=$(db_digest)
run_sluice reject "$g"
expect_rc 2 "reject without -m is a usage error"
is "$(db_digest)" "$before" "and writes nothing"
run_sluice reject "$g" -m "not today"
expect_rc 0 "reject with a reason"
is "$OUT" "rejected step $g (g)" "reject says so"
wait_for wf_is "$id" completed
ok $? "a gate with a branch goes on when rejected"
is "$(col "$id" g "status || '|' || result_json || '|' || error")" \
    "done|\"rejected\"|rejected by $me: not today" \
    "the gate row is done with result rejected and who rejected it"
is "$(col "$id" no status)" done "the branch on rejected is taken"
is "$(last_audit "action || '|' || who || '|' || comment")" \
    "reject|$me|not today" "the rejection is audited"

cat >"$T_DIR/plain.json" <<'EOF'
{"start": {"gate": {"message": "ok?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/plain.json"
id=$OUT
wait_for step_is "$id" start waiting
g=$(step_id "$id" start)
run_sluice reject "$g" -m "bad idea"
expect_rc 0 "reject a gate with no branch"
wait_for wf_ended "$id"
q_is "SELECT status, error FROM workflows WHERE id = $id" \
    "failed|gate start: rejected by $me: bad idea" \
    "a rejected gate with no branch fails the workflow"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id
    AND name = 'after'" 0 "nothing after it runs"

# --- approvers ---------------------------------------------------------------------

gate_flow() {
	cat >"$T_DIR/g.json" <<EOF
{"start": {"gate": {"message": "decide", $1}}}
EOF
	run_sluice run "$T_DIR/g.json"
	id=$OUT
	wait_for step_is "$id" start waiting
	g=$(step_id "$id" start)
}

gate_flow "\"approvers\": [\"$other\", \"@no-such-group-$$\"]"
run_sluice approve "$g" -m "let me"
expect_rc 4 "someone not among the approvers is refused"
is "$ERR" "sluice: $me is not an approver of gate start (step $g): approvers are $other, @no-such-group-$$" \
    "it says who may approve"
is "$(last_audit "action || '|' || who || '|' || step_id || '|' || comment")" \
    "approve-refused|$me|$g|$me is not an approver of gate start (step $g): approvers are $other, @no-such-group-$$" \
    "the refusal is audited"
run_sluice reject "$g" -m "no"
expect_rc 4 "a non-approver cannot reject either"
is "$(last_audit action)" "reject-refused" "the refused reject is audited"
q_is "SELECT count(*) FROM approvals WHERE step_id = $g" 0 "no vote was recorded"
is "$(col "$id" start status)" waiting "the gate still waits"
run_sluice cancel "$id"

gate_flow "\"approvers\": [\"$other\", \"$me\"]"
run_sluice approve "$g"
expect_rc 0 "an approver by name may approve"
wait_for wf_is "$id" completed
ok $? "and the gate opens"

gate_flow "\"approvers\": [\"@$grp\"]"
run_sluice approve "$g"
expect_rc 0 "a member of an approver @group may approve"
wait_for wf_is "$id" completed
ok $? "and the gate opens"

# --- quorum ---------------------------------------------------------------------------

gate_flow '"quorum": 2'
run_sluice gates --json
like "$OUT" '"quorum": 2' "the queue shows the quorum"
run_sluice approve "$g" -m first
expect_rc 0 "a first approval of a quorum-2 gate"
is "$OUT" "approved step $g (start): 1 of 2 approvals" "it says how many so far"
run_sluice gates --json
like "$OUT" '"approvals": 1' "the queue shows one approval"
is "$(col "$id" start status)" waiting "the gate still waits"
run_sluice approve "$g" -m again
expect_rc 4 "a second approval by the same person is refused"
is "$ERR" "sluice: $me already approved gate start (step $g)" "it says so"
is "$(last_audit "action || '|' || comment")" \
    "approve-refused|$me already approved gate start (step $g)" "the refusal is audited"
run_sluice reject "$g" -m "changed my mind"
expect_rc 4 "a person who approved cannot also reject"
q_is "SELECT count(*) FROM approvals WHERE step_id = $g" 1 "one vote is recorded"
is "$(col "$id" start status)" waiting "the gate still waits for a second person"
run_sluice cancel "$id" -m done
expect_rc 0 "cancel the workflow with a waiting gate"
is "$(col "$id" start status)" cancelled "the gate row is cancelled"
run_sluice gates --json
unlike "$OUT" "\"step_id\": $g," "and leaves the queue"

# --- allow_self ------------------------------------------------------------------------

gate_flow '"allow_self": false'
run_sluice approve "$g" -m mine
expect_rc 4 "the person who started the workflow may not approve (allow_self false)"
is "$ERR" "sluice: allow_self is false and $me started workflow $id: the starter may not approve its gates" \
    "it says why"
is "$(last_audit "action || '|' || who || '|' || comment")" \
    "approve-refused|$me|allow_self is false and $me started workflow $id: the starter may not approve its gates" \
    "the refusal is audited"
is "$(col "$id" start status)" waiting "the gate still waits"
run_sluice reject "$g" -m "withdrawn"
expect_rc 0 "the starter may still reject"
wait_for wf_is "$id" failed
ok $? "the rejection fails the workflow"

gate_flow '"allow_self": true'
run_sluice approve "$g"
expect_rc 0 "allow_self true lets the starter approve"

# --- gate timeouts -----------------------------------------------------------------------

cat >"$T_DIR/gto.json" <<'EOF'
{"start": {"gate": {"message": "quick", "timeout": "300ms"}}}
EOF
run_sluice run "$T_DIR/gto.json"
id=$OUT
wait_for wf_ended "$id"
ok $? "an unanswered gate times out"
q_is "SELECT status, error FROM workflows WHERE id = $id" \
    "failed|gate start: timed out waiting for approval" \
    "on_timeout reject (the default) fails the workflow"
is "$(col "$id" start "status || '|' || result_json || '|' || error")" \
    'done|"rejected"|timed out waiting for approval' \
    "the gate row is rejected by the timeout"
q_is "SELECT count(*) FROM timers WHERE workflow_id = $id" 0 \
    "no timer is left"

cat >"$T_DIR/gtob.json" <<'EOF'
{"start": {"gate": {"message": "quick", "timeout": "300ms", "on_timeout": "reject"},
   "branch": [{"if": "result == \"rejected\"", "then": "fallback"}]},
 "fallback": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/gtob.json"
id=$OUT
wait_for wf_ended "$id"
is "$(q "SELECT status FROM workflows WHERE id = $id")/$(col "$id" fallback status)" \
    "completed/done" "a branch on the rejected result handles a timeout"

cat >"$T_DIR/esc.json" <<'EOF'
{"start": {"gate": {"message": "quick", "timeout": "300ms", "on_timeout": "escalate"}},
 "escalate": {"gate": {"message": "escalated"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/esc.json"
id=$OUT
wait_for step_is "$id" escalate waiting
ok $? "on_timeout STEP starts the escalation step"
is "$(col "$id" start "status || '|' || error")" \
    "cancelled|timed out waiting for approval; escalated to escalate" \
    "the timed-out gate row is cancelled, saying where it escalated"
run_sluice approve "$(step_id "$id" escalate)"
expect_rc 0 "approve the escalation gate"
wait_for wf_is "$id" completed
ok $? "the workflow goes on from the escalation"

# A gate timer survives an engine restart and fires at once when overdue.
cat >"$T_DIR/gtor.json" <<'EOF'
{"start": {"gate": {"message": "later", "timeout": "500ms"}}}
EOF
run_sluice run "$T_DIR/gtor.json"
id=$OUT
wait_for step_is "$id" start waiting
engine_stop
q_is "SELECT kind FROM timers WHERE workflow_id = $id" gate_timeout \
    "the gate's timeout is a stored timer"
overdue() {
	[ "$(q "SELECT due_at < CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
	    FROM timers WHERE workflow_id = $id")" = 1 ]
}
wait_for overdue
ok $? "the timer falls due while no engine runs"
is "$(col "$id" start status)" waiting "nothing fires without an engine"
engine_start
wait_for wf_ended "$id"
ok $? "the next engine fires the overdue timer"
q_is "SELECT error FROM workflows WHERE id = $id" \
    "gate start: timed out waiting for approval" "the gate timed out"

# --- offline decisions ---------------------------------------------------------------------

run_sluice run "$T_DIR/plain.json"
id=$OUT
wait_for step_is "$id" start waiting
g=$(step_id "$id" start)
engine_stop
run_sluice approve "$g" -m "offline"
expect_rc 0 "approve with no engine"
is "$OUT" "approved step $g (start)" "it says so"
like "$ERR" "warning: no engine is running" "and warns that nothing runs"
is "$(col "$id" after status)" ready "the next step is ready, not run"
engine_start
wait_for wf_is "$id" completed
ok $? "the engine runs it when it starts"

# --- on_interrupt ask ---------------------------------------------------------------------

cat >"$T_DIR/ask.json" <<EOF
{"start": {"shell": "echo x >>$T_DIR/ask.runs; if [ \$SLUICE_ATTEMPT -eq 1 ]; then echo \$\$ >$T_DIR/ask.pid; exec sleep 30; fi; echo again",
  "on_interrupt": "ask", "next": "after"},
 "after": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/ask.json"
id=$OUT
wait_for test -s "$T_DIR/ask.pid"
ok $? "the step runs"
ap=$(cat "$T_DIR/ask.pid")
engine_crash
engine_start
wait_for step_is "$id" start waiting
ok $? "after a crash the step waits for a decision"
wait_for dead "$ap"
ok $? "the leftover process was killed"
a=$(step_id "$id" start)
run_sluice gates --json
like "$OUT" "\"step_id\": $a" "the question is in the approval queue"
like "$OUT" '"message": "step start was running when the engine stopped; approve to run it again, reject to fail it"' \
    "it asks whether to run the step again"
run_sluice approve "$a" -m "run it"
expect_rc 0 "approve running it again"
wait_for wf_is "$id" completed
ok $? "the step runs again and the workflow completes"
q_is "SELECT attempt, status, result_json FROM workflow_steps WHERE
    workflow_id = $id AND name = 'start' ORDER BY id" "1|cancelled|
2|done|\"again\"" "the approved row itself ran (attempt 2)"
is "$(wc -l <"$T_DIR/ask.runs" | tr -d ' ')" 2 "the step ran twice in all"
is "$(last_audit "action || '|' || step_id || '|' || comment")" \
    "approve|$a|run it" "the decision is audited"

engine_stop

# --- the site's allow_self default ---------------------------------------------------

# Site policy is read only from the site's file; a user's own file
# cannot relax it (a policy key there is ignored with a warning).
printf '{"allow_self": false}\n' >"$SLUICE_SITE_CONFIG"
printf '{"allow_self": true}\n' >"$XDG_CONFIG_HOME/sluice/config.json"
engine_start
cat >"$T_DIR/g.json" <<'EOF'
{"start": {"gate": {"message": "site"}, "next": "b"},
 "b": {"gate": {"message": "mine", "allow_self": true}}}
EOF
run_sluice run "$T_DIR/g.json"
id=$OUT
like "$ERR" 'config.json: $.allow_self is site policy, ignored here' \
    "a user's allow_self is ignored, with a warning"
rm -f "$XDG_CONFIG_HOME/sluice/config.json"
wait_for step_is "$id" start waiting
g=$(step_id "$id" start)
is "$(q "SELECT json_extract(gate_json, '\$.allow_self') FROM workflow_steps WHERE id = $g")" \
    "0" "the site default is fixed on the gate row when it is created"
run_sluice approve "$g"
expect_rc 4 "site allow_self false keeps the starter from approving"
is "$ERR" "sluice: allow_self is false and $me started workflow $id: the starter may not approve its gates" \
    "it says why"
run_sluice skip "$g" -m "site rule"
expect_rc 4 "nor can the starter skip the gate instead"
is "$ERR" "sluice: allow_self is false and $me started workflow $id: the starter may not skip its gates" \
    "skip says the same rule"
is "$(last_audit "action || '|' || step_id || '|' || comment")" \
    "skip-refused|$g|allow_self is false and $me started workflow $id: the starter may not skip its gates" \
    "the refused skip is audited"
engine_stop
# The rule stays on the row: with the site default back to true, the
# gate created under false still refuses the starter.
rm -f "$SLUICE_SITE_CONFIG" "$XDG_CONFIG_HOME/sluice/config.json"
run_sluice approve "$g"
expect_rc 4 "the stored rule holds whatever the applying process's config says"
run_sluice cancel "$id"
expect_rc 0 "cancelled"

done_testing
