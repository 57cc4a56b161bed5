#!/bin/sh
# tests/cli/when.sh: a step's "when" condition.  False skips the step
# ("when was false") and the run goes on as if it completed with a null
# result; true runs it as usual.  Checked for process steps, built-ins,
# gates, wait steps, for-each steps and sub-workflows; a retry is not
# checked again; a bad condition, a reference to no step, and "when" in
# a for-each's "do" are refused by check with their path; after kill -9
# of the engine a skipped gate stays skipped and the run goes on.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# rows WF: name|status|error of every row of a workflow, in order.
rows() {
	q "SELECT name || '|' || status || '|' || coalesce(error, '')
	    FROM workflow_steps WHERE workflow_id = $1 ORDER BY id"
}

# --- false skips, true runs ---------------------------------------------------

cat >"$T_DIR/when.json" <<'EOF'
{"start": {"tool": "echo", "args": {"go": "{{input.go}}"}, "next": "maybe"},
 "maybe": {"run": ["echo", "ran"], "when": "input.go == \"yes\"",
   "next": "after"},
 "after": {"tool": "echo", "args": {"seen": "{{steps.maybe.result}}"},
   "done": true}}
EOF
run_sluice check "$T_DIR/when.json"
expect_rc 0 "a flow with when is valid"
wait_run "$T_DIR/when.json" -i go=no
expect_rc 0 "a run whose when is false completes"
is "$(rows "$ID")" "start|done|
maybe|skipped|when was false
after|done|" "the step is skipped with the reason; its successor goes on"
is "$(col "$ID" maybe result_json)" null "a skipped step's result is null"
is "$(col "$ID" after result_json)" '{"seen":null}' \
    "its successor sees the null result"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'maybe' AND pid IS NOT NULL" 0 "nothing was started"
wait_run "$T_DIR/when.json" -i go=yes
expect_rc 0 "a run whose when is true completes"
is "$(rows "$ID")" "start|done|
maybe|done|
after|done|" "the step runs when its condition holds"

# when reads earlier results; a branch after a skipped step sees null.
cat >"$T_DIR/results.json" <<'EOF'
{"start": {"tool": "echo", "args": {"n": 3}, "next": "big"},
 "big": {"tool": "echo", "args": {"r": "big"}, "when": "steps.start.result.n > 5",
   "branch": [{"if": "result == nil", "then": "was_skipped"},
              {"else": "was_run"}]},
 "was_skipped": {"tool": "noop", "done": true},
 "was_run": {"tool": "noop", "done": true}}
EOF
wait_run "$T_DIR/results.json"
expect_rc 0 "when reads an earlier step's result"
is "$(rows "$ID")" "start|done|
big|skipped|when was false
was_skipped|done|" "a branch after a skipped step takes its null result"

# --- gates, wait steps, for-each, sub-workflows --------------------------------

cat >"$T_DIR/kinds.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["g", "w", "fe", "sub"]},
 "g": {"when": "input.on == true", "gate": {"message": "ok?"}, "join": "end"},
 "w": {"when": "input.on == true", "wait": {}, "join": "end"},
 "fe": {"when": "input.on == true", "foreach": ["a", "b"],
   "do": {"tool": "echo", "args": {"i": "{{item}}"}}, "join": "end"},
 "sub": {"when": "input.on == true", "workflow": "child", "join": "end"},
 "end": {"tool": "noop", "done": true}}
EOF
cat >"$T_DIR/child.json" <<'EOF'
{"start": {"tool": "noop", "done": true}}
EOF
run_sluice template save child "$T_DIR/child.json"
expect_rc 0 "a child template"
wait_run "$T_DIR/kinds.json" -i on:=false
expect_rc 0 "a run of skipped gate, wait, for-each and sub-workflow completes"
q_is "SELECT group_concat(name || '|' || status, ' ') FROM (SELECT name,
    status FROM workflow_steps WHERE workflow_id = $ID
    AND name IN ('g', 'w', 'fe', 'sub') ORDER BY name)" \
    "fe|skipped g|skipped sub|skipped w|skipped" \
    "each kind of step is skipped, never waiting or started"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND item_of IS NOT NULL" 0 "a skipped for-each starts no item"
q_is "SELECT count(*) FROM workflows WHERE parent_id IS NOT NULL" 0 \
    "a skipped sub-workflow starts no child"

engine_start
run_sluice run "$T_DIR/kinds.json" -i on:=true
ID=$OUT
wait_for step_is "$ID" g waiting
ok $? "a gate whose when holds waits for people"
wait_for step_is "$ID" w waiting
ok $? "so does a wait step"
run_sluice cancel "$ID" -m done
wait_for wf_is "$ID" cancelled

# --- kill -9: a skipped gate stays skipped ----------------------------------------

cat >"$T_DIR/crash2.json" <<'EOF'
{"start": {"tool": "sleep", "args": {"seconds": 1}, "next": "g"},
 "g": {"when": "input.on == true", "gate": {}, "next": "slow"},
 "slow": {"run": ["sleep", "30"], "next": "end"},
 "end": {"tool": "noop", "done": true}}
EOF
run_sluice run "$T_DIR/crash2.json" -i on:=false
ID=$OUT
wait_for step_is "$ID" slow running
ok $? "the gate was skipped and the run went on"
engine_crash
engine_start
wait_for step_is "$ID" slow running
ok $? "after kill -9 the run goes on past the skipped gate"
is "$(q "SELECT status || '|' || error FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'g'")" "skipped|when was false" \
    "the gate is skipped once, with its reason"
run_sluice cancel "$ID" -m done
wait_for wf_is "$ID" cancelled
engine_stop

# --- a retry is not checked again --------------------------------------------

cat >"$T_DIR/retry.json" <<EOF
{"start": {"when": "input.on == true",
   "run": ["sh", "-c", "n=\$(cat $T_DIR/tries 2>/dev/null || echo 0); echo \$((n+1)) >$T_DIR/tries; [ \$n -ge 1 ]"],
   "retry": {"max_attempts": 2, "backoff": ["0s"]}, "done": true}}
EOF
wait_run "$T_DIR/retry.json" -i on:=true
expect_rc 0 "a step whose when held retries and completes"
q_is "SELECT group_concat(status, ' ') FROM workflow_steps
    WHERE workflow_id = $ID" "failed done" "its retry ran, not skipped"

# --- check --------------------------------------------------------------------

cat >"$T_DIR/bad.json" <<'EOF'
{"start": {"tool": "noop", "when": "input.x ==", "next": "b"},
 "b": {"tool": "noop", "when": "steps.nope.result == 1", "next": "c"},
 "c": {"tool": "noop", "when": 3, "next": "d"},
 "d": {"foreach": [1], "do": {"tool": "noop", "when": "true == true"}}}
EOF
run_sluice check "$T_DIR/bad.json"
expect_rc 2 "bad when fields are refused"
like "$ERR" '$.start.when' "a bad condition is refused at its path"
like "$ERR" '$.b.when' "a condition naming no step is refused at its path"
like "$ERR" 'nope' "and names the step"
like "$ERR" '$.c.when' "a when that is not a string is refused"
like "$ERR" "\"when\" has no place in \"do\"" \
    "when in a for-each's do is refused, saying where it goes"

done_testing
