#!/bin/sh
# tests/cli/subflow.sh: sub-workflows and workflow outputs.  A parent runs
# a child template that waits at a gate; the gate is in the queue with its
# parent named; approving it gives the child's output back to the parent
# step, and the parent's own output to show.  Cancel and pause reach the
# child; a failed child fails its step; a template that calls itself is
# refused at save and check, and at run time by the depth limit.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

cat >"$T_DIR/child.json" <<'EOF'
{"description": "a child with a gate",
 "inputs": {"who": {"required": true}, "n": {"default": 1}},
 "flow": {"start": {"tool": "echo", "args": {"hello": "{{input.who}}"},
   "next": "ok"},
  "ok": {"gate": {"message": "go on for {{input.who}}?"}}},
 "output": {"greeting": "{{steps.start.result.hello}}",
   "n": "{{input.n}}", "gate": "{{steps.ok.result}}"}}
EOF
cat >"$T_DIR/parent.json" <<'EOF'
{"start": {"tool": "echo", "args": {"name": "{{input.name}}"},
   "next": "call"},
 "call": {"workflow": "child", "input": {"who": "{{steps.start.result.name}}"},
   "next": "after"},
 "after": {"tool": "echo", "args": {"got": "{{steps.call.result.greeting}}",
   "n": "{{steps.call.result.n}}"}},
 "output": {"final": "{{steps.after.result}}"}}
EOF

run_sluice template save child "$T_DIR/child.json"
expect_rc 0 "the child template is saved"
run_sluice check "$T_DIR/parent.json"
expect_rc 0 "a flow with a sub-workflow step passes check"
# (its input reads an earlier step's result: the child gets the value)

# --- parent -> child with a gate -> output back to the parent --------------

engine_start
run_sluice run "$T_DIR/parent.json" -i name=bob
expect_rc 0 "the parent starts"
pid=$OUT
wait_for step_is "$pid" call running
cid=$(q "SELECT child_id FROM workflow_steps WHERE workflow_id = $pid
    AND name = 'call'")
ok "$([ -n "$cid" ] && [ "$cid" != "$pid" ]; echo $?)" \
    "the sub-workflow step names its child run"
q_is "SELECT parent_id, parent_step_id = (SELECT id FROM workflow_steps
    WHERE workflow_id = $pid AND name = 'call'), depth, template_name,
    template_version, input_json, created_by = (SELECT created_by FROM
    workflows WHERE id = $pid) FROM workflows WHERE id = $cid" \
    "$pid|1|1|child|1|{\"who\":\"bob\",\"n\":1}|1" \
    "the child records its parent, step, depth, template version and input"
wait_for step_is "$cid" ok waiting
run_sluice gates --json
expect_rc 0 "gates --json"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].workflow_id') || '|' ||
    json_extract(j, '\$[0].message') || '|' ||
    json_extract(j, '\$[0].parent.id') || '|' ||
    json_extract(j, '\$[0].parent.name') FROM d")" \
    "$cid|go on for bob?|$pid|parent" "the child's gate names its parent"
run_sluice gates
like "$OUT" "child (of $pid parent)" "gates names the parent for people"
run_sluice list
like "$OUT" "child (of $pid)" "list marks the child run"
run_sluice list --top --json
is "$(json_query "$OUT" "SELECT group_concat(json_extract(value, '$.id'))
    FROM d, json_each(d.j)")" "$pid" "list --top leaves child runs out"
run_sluice list --json
is "$(json_query "$OUT" "SELECT json_extract(value, '$.parent_id')
    FROM d, json_each(d.j) WHERE json_extract(value, '$.id') = $cid")" \
    "$pid" "list --json gives a child's parent_id"
run_sluice show "$pid"
like "$OUT" "child workflow $cid" "show says which child a step waits for"

gate=$(step_id "$cid" ok)
run_sluice approve "$gate" -m fine
expect_rc 0 "approve the child's gate"
wait_for wf_is "$pid" completed
ok $? "the parent completes once the child does"
run_sluice show --json "$cid"
is "$(json_query "$OUT" "SELECT json(json_extract(j, '$.output')) || '|' ||
    json_extract(j, '$.parent.id') || '|' || json_extract(j, '$.parent.name')
    FROM d")" "{\"greeting\":\"bob\",\"n\":1,\"gate\":\"approved\"}|$pid|parent" \
    "show --json: the child's output and its parent"
run_sluice show --json "$pid"
is "$(json_query "$OUT" "SELECT json(json_extract(j, '$.output')) || '|' ||
    ifnull(json_extract(j, '$.parent'), 'null') || '|' ||
    json(json_extract(j, '$.steps[1].result')) || '|' ||
    json_extract(j, '$.steps[1].child_id') || '|' ||
    json_extract(j, '$.steps[1].kind') FROM d")" \
    "{\"final\":{\"got\":\"bob\",\"n\":1}}|null|{\"greeting\":\"bob\",\"n\":1,\"gate\":\"approved\"}|$cid|workflow" \
    "the parent step's result is the child's output; the parent has its own"
run_sluice show "$cid"
like "$OUT" "parent:   workflow $pid parent" "show names the parent"
like "$OUT" "output:   {\"greeting\":\"bob\"" "show prints the output"

# --- cancel and pause reach the child ---------------------------------------

run_sluice run "$T_DIR/parent.json" -i name=carol
pid=$OUT
wait_for step_is "$pid" call running
cid=$(q "SELECT child_id FROM workflow_steps WHERE workflow_id = $pid
    AND name = 'call'")
wait_for step_is "$cid" ok waiting
run_sluice pause "$pid"
expect_rc 0 "pause the parent"
q_is "SELECT paused FROM workflows WHERE id = $cid" 1 "the child is paused too"
run_sluice resume "$pid"
q_is "SELECT paused FROM workflows WHERE id = $cid" 0 "and resumed with it"
run_sluice cancel "$pid" -m "not today"
expect_rc 0 "cancel the parent"
wait_for wf_is "$cid" cancelled
ok $? "cancelling the parent cancels the child"
q_is "SELECT status FROM workflow_steps WHERE workflow_id = $cid
    AND name = 'ok'" cancelled "the child's gate is cancelled"
q_is "SELECT status, error FROM workflow_steps WHERE workflow_id = $pid
    AND name = 'call'" "cancelled|cancelled" "the parent step is cancelled"
run_sluice gates --json
is "$OUT" "[]" "and the queue is empty"

# --- a failed child fails its step ------------------------------------------

cat >"$T_DIR/bad.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "broken"},
   "retry": {"max_attempts": 1}}}
EOF
run_sluice template save bad "$T_DIR/bad.json"
cat >"$T_DIR/callbad.json" <<'EOF'
{"start": {"workflow": "bad"}}
EOF
run_sluice run "$T_DIR/callbad.json"
pid=$OUT
wait_for wf_ended "$pid"
cid=$(q "SELECT child_id FROM workflow_steps WHERE workflow_id = $pid")
q_is "SELECT status, error FROM workflows WHERE id = $pid" \
    "failed|step start failed: child workflow $cid failed: step start failed: broken" \
    "a failed child fails the step and its run, saying why"
q_is "SELECT count(*) FROM workflows WHERE parent_id = $pid" 1 \
    "a failed child is not started again without a retry policy"

cat >"$T_DIR/callnone.json" <<'EOF'
{"start": {"workflow": "nosuch"}}
EOF
run_sluice run "$T_DIR/callnone.json"
pid=$OUT
wait_for wf_ended "$pid"
q_is "SELECT status, error FROM workflows WHERE id = $pid" \
    "failed|step start failed: no template \"nosuch\"" \
    "a missing template fails the step"
engine_stop

# --- a for-each whose do is a sub-workflow ------------------------------------

cat >"$T_DIR/greet.json" <<'EOF'
{"inputs": {"host": {"required": true}},
 "flow": {"start": {"tool": "echo", "args": {"h": "{{input.host}}"}}},
 "output": {"host": "{{steps.start.result.h}}"}}
EOF
run_sluice template save greet "$T_DIR/greet.json"
cat >"$T_DIR/each.json" <<'EOF'
{"start": {"foreach": ["a", "b", "c"],
   "do": {"workflow": "greet", "input": {"host": "{{item}}"}}}}
EOF
engine_start
run_sluice run --wait "$T_DIR/each.json"
expect_rc 0 "a for-each of sub-workflows completes"
ID=$(q "SELECT max(id) FROM workflows WHERE parent_id IS NULL")
q_is "SELECT result_json FROM workflow_steps WHERE workflow_id = $ID
    AND item_of IS NULL" '[{"host":"a"},{"host":"b"},{"host":"c"}]' \
    "each item is a child run; the step's result is their outputs in order"
q_is "SELECT count(*) FROM workflows WHERE parent_id = $ID" 3 \
    "one child run per item"
engine_stop

# --- templates that call themselves -----------------------------------------

printf '%s\n' '{"start": {"workflow": "loop"}}' >"$T_DIR/loop.json"
run_sluice template save loop "$T_DIR/loop.json"
expect_rc 2 "a template calling itself is refused"
is "$ERR" "sluice: $T_DIR/loop.json: template loop would call itself: loop -> loop" \
    "it shows the loop"
printf '%s\n' '{"start": {"workflow": "tb"}}' >"$T_DIR/ta.json"
printf '%s\n' '{"start": {"workflow": "ta"}}' >"$T_DIR/tb.json"
printf '%s\n' '{"start": {"tool": "noop"}}' >"$T_DIR/tnoop.json"
run_sluice template save tb "$T_DIR/tnoop.json"
run_sluice template save ta "$T_DIR/ta.json"
expect_rc 0 "ta calls tb"
run_sluice template save tb "$T_DIR/tb.json"
expect_rc 2 "tb calling ta, which calls tb, is refused"
like "$ERR" "template tb would call itself: tb -> ta -> tb" "through others"
q_is "SELECT max(v.version) FROM template_versions v JOIN workflow_templates t
    ON t.id = v.template_id WHERE t.name = 'tb'" 1 "and not saved"
# check follows the stored chain a document calls.
sqlite3 "$SLUICE_DB" "UPDATE workflow_templates SET document =
    '{\"start\": {\"workflow\": \"ta\"}}' WHERE name = 'tb'"
run_sluice check "$T_DIR/ta.json"
expect_rc 2 "check reports a loop among the templates a flow calls"
like "$ERR" "call each other in a loop: tb -> ta -> tb" "naming it"

# At run time, a chain that loops stops at the depth limit.
engine_start
run_sluice run ta
pid=$OUT
wait_for wf_ended "$pid"
ok $? "a looping chain ends"
q_is "SELECT count(*) FROM workflows WHERE id >= $pid" 9 \
    "it stops 8 runs deep"
q_is "SELECT status FROM workflows WHERE id = $pid" failed "and fails"
like "$(q "SELECT error FROM workflows WHERE id = $pid + 8")" \
    "more than 8 runs deep" "the deepest says why"
engine_stop

# --- a database from before sub-workflows takes them after its migration ----

export SLUICE_DB="$T_DIR/old.db"
sqlite3 "$SLUICE_DB" <"$TESTS_DATA/schema-v3.sql"
run_sluice template save greet "$T_DIR/greet.json"
expect_rc 0 "a version 3 database is migrated on the first write"
printf '%s\n' '{"start": {"workflow": "greet", "input": {"host": "h"}}}' \
    >"$T_DIR/old.json"
run_sluice run --wait "$T_DIR/old.json"
expect_rc 0 "a sub-workflow step runs in it"
ID=$(q "SELECT max(id) FROM workflows WHERE parent_id IS NULL")
q_is "SELECT kind, child_id IS NOT NULL FROM workflow_steps WHERE
    workflow_id = $ID" "workflow|1" "its row's kind is workflow"
q_is "PRAGMA integrity_check" ok "the migrated schema is sound"
like "$(q "SELECT sql FROM sqlite_schema WHERE name = 'workflow_steps'")" \
    "CHECK (kind GLOB '[a-z]*' AND length(kind) < 10)" \
    "the kind check is the loosened one"
run_sluice show "$ID"
expect_rc 0 "and it reads back"

done_testing
