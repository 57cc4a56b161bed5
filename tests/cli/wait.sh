#!/bin/sh
# tests/cli/wait.sh: wait steps, finished from outside.  complete with a
# result (by id and as WORKFLOW:NAME, from --result and from stdin) that
# later steps read; fail with a reason; the refusals (not a wait step,
# not waiting, not in "by", approve on a wait step, bad --result JSON,
# no reason) with their exit codes, audit rows and nothing written;
# wait steps stay out of the approval queue; timeouts that fail or
# escalate, also across an engine restart; and a step finished while no
# engine runs, finished when one starts.

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

engine_start

# --- complete --------------------------------------------------------------------

cat >"$T_DIR/cb.json" <<'EOF'
{"start": {"tool": "echo", "args": {"ticket": "T-{{workflow.id}}"}, "next": "ticket"},
 "ticket": {"wait": {"message": "ticket {{steps.start.result.ticket}} closed?"},
   "next": "after"},
 "after": {"tool": "echo", "args": {"closed_by": "{{steps.ticket.result.by}}",
   "all": "{{steps.ticket.result}}"}}}
EOF
run_sluice check "$T_DIR/cb.json"
expect_rc 0 "a flow with a wait step is valid"
run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
ok $? "a wait step waits"
w=$(step_id "$id" ticket)
is "$(col "$id" ticket "kind || '|' || tool")" "wait|wait" \
    "its row is of kind wait"
is "$(col "$id" ticket "json_extract(gate_json, '\$.message')")" \
    "ticket T-$id closed?" "its message is interpolated when it starts waiting"
run_sluice gates --json
unlike "$OUT" "\"step_id\": $w" "a wait step is not in the approval queue"
run_sluice show "$id"
like "$OUT" "waiting" "show says it waits"
like "$OUT" "sluice complete $w" "show says how to finish it"
run_sluice show --json "$id"
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.wait.message') FROM d,
    json_each(json_extract(d.j, '\$.steps')) WHERE json_extract(value,
    '\$.name') = 'ticket'")" "ticket T-$id closed?" \
    "show --json has the wait step's message"

run_sluice approve "$w"
expect_rc 4 "approve on a wait step is refused"
is "$ERR" "sluice: step $w (ticket) is a wait step, finished from outside, not a gate: use sluice complete $w (or sluice fail $w -m REASON)" \
    "it says to use complete"
is "$(last_audit "action")" "approve-refused" "the refusal is audited"

before=$(db_digest)
run_sluice complete "$w" --result '{"by": "alice",'
expect_rc 2 "a bad --result is a usage error"
like "$ERR" "sluice: complete: --result: line 1, column" \
    "it says where the JSON is bad"
is "$(db_digest)" "$before" "and writes nothing"
run_sluice complete "$id:nosuch"
expect_rc 3 "complete of an unknown step name"
is "$ERR" "sluice: workflow $id has no step \"nosuch\" (yet)" "it names it"
run_sluice complete 99999
expect_rc 3 "complete of an unknown step id"
is "$ERR" "sluice: no step 99999" "it names the id"
run_sluice complete "x:ticket"
expect_rc 2 "a bad WORKFLOW:NAME is a usage error"

run_sluice complete "$id:ticket" --result '{"by": "alice", "n": 3}' -m "closed in the tracker"
expect_rc 0 "complete WORKFLOW:NAME"
is "$OUT" "completed step $w (ticket)" "complete says so"
wait_for wf_is "$id" completed
ok $? "the workflow goes on and completes"
is "$(col "$id" ticket "status || '|' || result_json")" \
    'done|{"by":"alice","n":3}' "the wait row is done with the result"
is "$(col "$id" after "json_extract(result_json, '\$.closed_by')")" alice \
    "a later step reads {{steps.ticket.result.by}}"
is "$(last_audit "action || '|' || who || '|' || target || '|' || comment")" \
    "complete|$me|step $w ticket|closed in the tracker" \
    "complete is audited with who and the comment"
run_sluice complete "$w"
expect_rc 4 "complete of a finished wait step is refused"
is "$ERR" "sluice: step $w (ticket) is not waiting to be finished: it is done" \
    "it says it is done"
is "$(last_audit "action")" "complete-refused" "the refusal is audited"

# --result - reads the result from stdin.
run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
w=$(step_id "$id" ticket)
printf '[1, 2,\n  {"x": null}]\n' | "$SLUICE" complete "$w" --result - \
    >"$T_DIR/out" 2>"$T_DIR/err"
is "$?" 0 "complete --result - reads stdin"
wait_for wf_is "$id" completed
is "$(col "$id" ticket result_json)" '[1,2,{"x":null}]' "the result is stdin's JSON"

run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
w=$(step_id "$id" ticket)
printf '{\n "a": tru\n}' | "$SLUICE" complete "$w" --result - \
    >"$T_DIR/out" 2>"$T_DIR/err"
is "$?" 2 "bad JSON on stdin is a usage error"
like "$(cat "$T_DIR/err")" "--result (stdin): line 2, column" \
    "it says the line and column"
head -c 300000 /dev/zero | tr '\0' ' ' >"$T_DIR/big"
"$SLUICE" complete "$w" --result - <"$T_DIR/big" >"$T_DIR/out" 2>"$T_DIR/err"
is "$?" 2 "a result over the input limit is refused"
like "$(cat "$T_DIR/err")" "larger than the limit of 256 KiB" "it names the limit"
is "$(col "$id" ticket status)" waiting "the step still waits"

# --- fail --------------------------------------------------------------------

run_sluice fail "$w"
expect_rc 2 "fail without -m is a usage error"
run_sluice fail "$w" -m "  "
expect_rc 4 "fail with a blank reason is refused"
is "$(last_audit "action")" "fail-refused" "on the record"
run_sluice fail "$w" -m "the tracker rejected it"
expect_rc 0 "fail a wait step"
is "$OUT" "failed step $w (ticket)" "fail says so"
wait_for wf_is "$id" failed
ok $? "the workflow fails"
is "$(col "$id" ticket "status || '|' || error")" \
    "failed|failed by $me: the tracker rejected it" \
    "the wait row failed with the reason"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id AND
    name = 'ticket'" 1 "a failed wait step is not tried again"
is "$(last_audit "action || '|' || comment")" \
    "fail|the tracker rejected it" "fail is audited with the reason"

# A failure handled by a branch on exit_code... is not one: a branch on the
# result never sees a failed wait step, so the workflow fails as above.

# --- who may finish it --------------------------------------------------------------

cat >"$T_DIR/by.json" <<EOF
{"start": {"wait": {"by": ["$other"]}}}
EOF
run_sluice run "$T_DIR/by.json"
id=$OUT
wait_for step_is "$id" start waiting
w=$(step_id "$id" start)
before=$(db_digest)
run_sluice complete "$w"
expect_rc 4 "someone not in \"by\" may not complete it"
is "$ERR" "sluice: $me may not complete wait step start (step $w): it may be finished by $other" \
    "the refusal names who may"
is "$(last_audit "action || '|' || who || '|' || comment")" \
    "complete-refused|$me|$me may not complete wait step start (step $w): it may be finished by $other" \
    "the refusal is audited"
run_sluice skip "$w" -m "go on"
expect_rc 4 "nor skip it"
is "$(col "$id" start status)" waiting "the step still waits"

cat >"$T_DIR/grp.json" <<EOF
{"start": {"wait": {"by": ["$other", "@$grp"]}}}
EOF
run_sluice run "$T_DIR/grp.json"
id=$OUT
wait_for step_is "$id" start waiting
run_sluice complete "$id:start" --result '"ok"'
expect_rc 0 "a member of a group in \"by\" may complete it"
wait_for wf_is "$id" completed
ok $? "and the workflow completes"

# The site's operators: with no "by", only they may finish it.  The rule
# is fixed on the row when it starts waiting; the names are the site's.
cat >"$T_DIR/ops.json" <<'EOF'
{"start": {"wait": {}}}
EOF
echo "{\"operators\": [\"$me\"]}" >"$SLUICE_SITE_CONFIG"
engine_stop
engine_start
run_sluice run "$T_DIR/ops.json"
id=$OUT
wait_for step_is "$id" start waiting
w=$(step_id "$id" start)
q_is "SELECT json_extract(gate_json, '\$.operators') FROM workflow_steps
    WHERE id = $w" 1 "with no \"by\", the operators rule is fixed on the row"
echo "{\"operators\": [\"$other\"]}" >"$SLUICE_SITE_CONFIG"
engine_stop
engine_start
run_sluice complete "$w"
expect_rc 4 "with no \"by\", someone not an operator may not complete it"
is "$ERR" "sluice: $me may not complete wait step start (step $w): it names nobody in \"by\", so only operators may ($other)" \
    "the refusal says only operators may"
rm -f "$SLUICE_SITE_CONFIG"
engine_stop
engine_start
run_sluice complete "$w"
expect_rc 0 "with the site naming no operators, anyone may"

# --- skip, by the right to finish it ---------------------------------------------

run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
w=$(step_id "$id" ticket)
run_sluice skip "$w" -m "done by hand"
expect_rc 0 "someone who may finish a wait step may skip it"
wait_for wf_is "$id" completed
is "$(col "$id" ticket "status || '|' || result_json")" "skipped|null" \
    "it is skipped with a null result"

# --- timeouts --------------------------------------------------------------------

cat >"$T_DIR/to.json" <<'EOF'
{"start": {"wait": {"message": "quick", "timeout": "300ms"}}}
EOF
run_sluice run "$T_DIR/to.json"
id=$OUT
wait_for wf_ended "$id"
ok $? "an unfinished wait step times out"
is "$(col "$id" start "status || '|' || error")" \
    "failed|timed out waiting to be finished" "it fails, saying why"
q_is "SELECT status FROM workflows WHERE id = $id" failed \
    "on_timeout fail (the default) fails the workflow"

cat >"$T_DIR/esc.json" <<'EOF'
{"start": {"wait": {"timeout": "300ms", "on_timeout": "page"}},
 "page": {"tool": "echo", "args": {"paged": true}}}
EOF
run_sluice check "$T_DIR/esc.json"
expect_rc 0 "on_timeout naming a step is valid"
run_sluice run "$T_DIR/esc.json"
id=$OUT
wait_for wf_ended "$id"
is "$(q "SELECT status FROM workflows WHERE id = $id")/$(col "$id" page status)" \
    "completed/done" "on_timeout STEP starts that step instead"
is "$(col "$id" start "status || '|' || error")" \
    "cancelled|timed out waiting to be finished; escalated to page" \
    "the timed-out row is cancelled, saying where it escalated"

# The timer is stored: it survives an engine restart (stopped well
# within its 1.5 s).
cat >"$T_DIR/tor.json" <<'EOF'
{"start": {"wait": {"timeout": "1.5s"}}}
EOF
run_sluice run "$T_DIR/tor.json"
id=$OUT
wait_for step_is "$id" start waiting
engine_stop
q_is "SELECT kind FROM timers WHERE workflow_id = $id" wait_timeout \
    "the wait step's timeout is a stored timer"
overdue() {
	[ "$(q "SELECT due_at < CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
	    FROM timers WHERE workflow_id = $id")" = 1 ]
}
wait_for overdue
is "$(col "$id" start status)" waiting "nothing fires without an engine"
engine_start
wait_for wf_ended "$id"
ok $? "the next engine fires the overdue timer"
is "$(col "$id" start error)" "timed out waiting to be finished" "it timed out"

# A completed wait step's timer is gone (one far off: it cannot have fired).
cat >"$T_DIR/tolong.json" <<'EOF'
{"start": {"wait": {"timeout": "1h"}}}
EOF
run_sluice run "$T_DIR/tolong.json"
id=$OUT
wait_for step_is "$id" start waiting
run_sluice complete "$id:start"
q_is "SELECT count(*) FROM timers WHERE workflow_id = $id" 0 \
    "completing it removes its timer"

# --- no engine, then a crash ------------------------------------------------------

run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
w=$(step_id "$id" ticket)
engine_crash
run_sluice complete "$w" --result '{"by": "offline"}'
expect_rc 0 "complete with no engine"
is "$OUT" "completed step $w (ticket)" "it says so"
like "$ERR" "warning: no engine is running" "and warns that nothing runs yet"
is "$(col "$id" ticket status)/$(col "$id" after status)" "done/ready" \
    "the wait row is done and the next step ready, not run"
engine_start
wait_for wf_is "$id" completed
ok $? "the next engine finishes the workflow"
is "$(col "$id" after "json_extract(result_json, '\$.closed_by')")" offline \
    "with the result given while no engine ran"

# A wait step outlives a crash of the engine: it still waits, and is
# finished as before once another engine runs.
run_sluice run "$T_DIR/cb.json"
id=$OUT
wait_for step_is "$id" ticket waiting
engine_crash
engine_start
is "$(col "$id" ticket status)" waiting "after a crash the wait step still waits"
run_sluice complete "$id:ticket" --result '{"by": "after-crash"}'
expect_rc 0 "and can be completed"
wait_for wf_is "$id" completed
ok $? "the workflow completes after the crash"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id AND
    name = 'ticket'" 1 "the wait step was not made again"

engine_stop
done_testing
