#!/bin/sh
# tests/cli/foreach.sh: for-each steps through the command line: the
# rolling restart of 20 demo hosts in canary batches [1, "25%", "100%"]
# with max_failures 1 and on_budget_spent "ask" (it stops after the second
# failure, asks, and retry runs exactly the two failed hosts); gates
# between batches; the result in item order; on_budget_spent "fail"
# (running items finish, waiting ones are not run, the step fails) and an
# operator's retry of that run (only failed and never-run items run);
# empty arrays; items refused at run time naming the step; skip of an
# item; cancel of one item; show --json nesting items under their step;
# items that run a sub-workflow; items read in place from the input
# (nested paths, keys with dots or escapes) beside steps, labels,
# conditions and the output reading other members of it; a for-each's
# gates in the queue (step and label) under the site's allow_self rule.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# item_pid RUN: the first item of run RUN has its pid recorded.
item_pid() {
	[ -n "$(q "SELECT pid FROM workflow_steps WHERE workflow_id = $1
	    AND item_index = 0")" ]
}

# items_with WF STATUS: labels of a workflow's item rows in STATUS, by id.
items_with() {
	q "SELECT group_concat(label, ' ') FROM (SELECT label FROM
	    workflow_steps WHERE workflow_id = $1 AND item_index IS NOT NULL
	    AND status = '$2' ORDER BY id)"
}

# gate_waiting WF LABEL: the for-each gate LABEL of WF waits.
gate_waiting() {
	[ -n "$(gate_id "$1" "$2")" ]
}

# gate_id WF LABEL: the waiting for-each gate LABEL of WF.
gate_id() {
	q "SELECT id FROM workflow_steps WHERE workflow_id = $1 AND
	    status = 'waiting' AND item_of IS NOT NULL AND item_index IS NULL
	    AND label LIKE '$2%'"
}

# fe_quiet WF: no item of WF is ready or running.
fe_quiet() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $1
	    AND item_index IS NOT NULL AND status IN ('ready', 'running')")" = 0 ]
}

export SLUICE_TOOLS="$TOP_SRCDIR/share/tools.json"
export SLUICE_DEMO_SECONDS=0

# --- the rolling restart ----------------------------------------------------

run_sluice template save rolling-restart \
    "$TOP_SRCDIR/share/templates/rolling-restart.json"
expect_rc 0 "the rolling-restart template saves"

SLUICE_DEMO_FAIL="web-04 web-09" engine_start
run_sluice template run rolling-restart -i service=nginx
expect_rc 0 "a rolling restart of the 20 demo hosts starts"
id=$OUT
wait_for gate_waiting "$id" "before batch 2"
ok $? "after the canary, a gate asks before batch 2"
is "$(items_with "$id" done)" "web-01" "batch 1 is the canary alone"
is "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id
    AND item_index IS NOT NULL AND status = 'pending'")" 19 \
    "the other 19 hosts wait for their turn"
g=$(gate_id "$id" "before batch 2")
run_sluice gates --json
like "$OUT" "batch 1 of 3 finished" "the gate's message says what finished"
like "$OUT" "next: batch 2 of 3, 5 items from web-02" \
    "and what comes next"
run_sluice approve "$g"
expect_rc 0 "approve the second batch"
wait_for gate_waiting "$id" "before batch 3"
ok $? "after batch 2, a gate asks before batch 3"
is "$(items_with "$id" done)" "web-01 web-02 web-03 web-05 web-06" \
    "batch 2 is 25% of the hosts (5): four done"
is "$(items_with "$id" failed)" "web-04" "and one failed, within the budget"
run_sluice gates --json
like "$OUT" "1 failed so far" "the gate says a host failed"
run_sluice approve "$(gate_id "$id" "before batch 3")"
wait_for gate_waiting "$id" "failure budget"
ok $? "the second failure spends the budget: a gate asks"
wait_for fe_quiet "$id"
is "$(items_with "$id" failed)" "web-04 web-09" "web-04 and web-09 failed"
waiting=$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id
    AND item_index IS NOT NULL AND status = 'pending'")
[ "$waiting" -ge 9 ]
ok $? "the rollout stopped after the second failure ($waiting hosts not started)"
run_sluice gates --json
like "$OUT" '2 of 20 items failed (web-04, web-09), more than the 1 allowed' \
    "the budget gate names the failed hosts"
like "$OUT" "sluice retry $id" "and says how to retry them"
is "$(q "SELECT status FROM workflows WHERE id = $id")" running \
    "the run waits at the gate"

# The hosts come back: the engine runs again without the failures.
engine_stop
engine_start
run_sluice retry "$id"
expect_rc 0 "retry: the failed items run again"
is "$OUT" "retrying 2 failed items of restart in workflow $id: web-04, web-09" \
    "retry names exactly the two failed hosts"
wait_for wf_is "$id" completed
ok $? "the rolling restart completes"
is "$(q "SELECT group_concat(label, ' ') FROM (SELECT label FROM workflow_steps
    WHERE workflow_id = $id AND item_index IS NOT NULL AND attempt = 2
    ORDER BY id)")" "web-04 web-09" \
    "the retry re-ran exactly those two hosts"
is "$(q "SELECT count(*) FROM (SELECT item_index FROM workflow_steps
    WHERE workflow_id = $id AND item_index IS NOT NULL AND status = 'done'
    GROUP BY item_index HAVING count(*) = 1)")" 20 \
    "every host is done exactly once"
is "$(q "SELECT json_array_length(result_json) || ' ' ||
    json_extract(result_json, '\$[0].host') || ' ' ||
    json_extract(result_json, '\$[19].host') FROM workflow_steps
    WHERE workflow_id = $id AND name = 'restart' AND items IS NOT NULL
    AND status = 'done'")" "20 web-01 web-20" \
    "the step's result is the hosts' results in item order"
q_is "SELECT action || ' ' || comment FROM audit WHERE workflow_id = $id
    AND action = 'retry'" "retry web-04, web-09" "the retry is audited"
run_sluice retry "$id"
expect_rc 4 "a completed run has nothing to retry"

# show --json nests the items and gates under the for-each.
run_sluice show --json "$id"
expect_rc 0 "show --json"
printf '%s\n' "$OUT" >"$T_DIR/show.json"
is "$(sqlite3 :memory: "SELECT json_array_length(readfile('$T_DIR/show.json'),
    '$.steps')")" 2 "steps: the for-each and the report"
is "$(sqlite3 :memory: "SELECT json_extract(readfile('$T_DIR/show.json'),
    '$.steps[0].foreach.items') || ' ' ||
    json_array_length(readfile('$T_DIR/show.json'), '$.steps[0].items') || ' ' ||
    json_extract(readfile('$T_DIR/show.json'), '$.steps[0].items[3].label') ||
    ' ' || json_extract(readfile('$T_DIR/show.json'),
    '$.steps[0].items[3].index') || ' ' ||
    json_array_length(readfile('$T_DIR/show.json'), '$.steps[0].gates')")" \
    "20 22 web-04 3 3" \
    "items (every row, with label and index) and gates nest under their step"
is "$(sqlite3 :memory: "SELECT json_extract(readfile('$T_DIR/show.json'),
    '$.steps[0].foreach.done') || ' ' || json_extract(
    readfile('$T_DIR/show.json'), '$.steps[0].foreach.failed') || ' ' ||
    json_extract(readfile('$T_DIR/show.json'), '$.steps[0].foreach.batch') ||
    '/' || json_extract(readfile('$T_DIR/show.json'),
    '$.steps[0].foreach.batches')")" "20 0 3/3" \
    "the for-each's tally: done, failed, batch"

# --- on_budget_spent fail, and an operator's retry ---------------------------

cat >"$T_DIR/fail.json" <<'EOF'
{"start": {"foreach": ["a", "b", "c", "d", "e", "f"],
  "do": {"shell": "case \" $BAD \" in *\" $H \"*) exit 3;; esac; sleep 0.3; echo \"\\\"$H\\\"\"",
   "env": {"H": "{{item}}", "BAD": "{{input.bad}}"}, "retry": {"max_attempts": 1}},
  "concurrency": 2, "next": "end"},
 "end": {"tool": "echo", "args": {"r": "{{steps.start.result}}"}}}
EOF
run_sluice run "$T_DIR/fail.json" -i bad="b c"
id=$OUT
wait_for wf_is "$id" failed
ok $? "with the default budget (no failures) the first failure fails the run"
like "$(q "SELECT error FROM workflows WHERE id = $id")" \
    "step start failed: for-each start: 1 of 6 items failed (b), more than the 0 allowed" \
    "the failure names the step and the item"
is "$(items_with "$id" done)" "a" "the item running beside it finished"
is "$(items_with "$id" cancelled)" "c d e f" "the waiting items were not run"
run_sluice retry "$id"
expect_rc 0 "retry the failed run"
like "$OUT" "start (1 failed item: b, 4 not run)" \
    "retry runs the failed item and those never run"
wait_for wf_ended "$id"
is "$(q "SELECT status FROM workflows WHERE id = $id")" failed \
    "c still fails: the run fails again"
is "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id
    AND label = 'a'")" 1 "the done item a did not run again"

cat >"$T_DIR/pct.json" <<'EOF'
{"start": {"foreach": ["a", "b", "c", "d"],
  "do": {"shell": "[ \"$H\" != b ]", "env": {"H": "{{item}}"},
   "retry": {"max_attempts": 1}},
  "max_failures": "25%", "next": "end"},
 "end": {"tool": "echo", "args": {"r": "{{steps.start.result}}"}}}
EOF
run_sluice run --wait "$T_DIR/pct.json"
expect_rc 0 "a failure within max_failures 25% of 4 items completes"
id=$(new_id)
is "$(col "$id" end result_json)" '{"r":["",null,"",""]}' \
    "a failed item's result is null"

# --- empty, refused, skipped -------------------------------------------------

cat >"$T_DIR/empty.json" <<'EOF'
{"start": {"foreach": "{{input.hosts}}", "do": {"tool": "noop"}, "next": "end"},
 "end": {"tool": "echo", "args": {"r": "{{steps.start.result}}"}}}
EOF
run_sluice run --wait "$T_DIR/empty.json" -i 'hosts:=[]'
expect_rc 0 "an empty array completes at once"
id=$(new_id)
is "$(col "$id" end result_json)" '{"r":[]}' "with an empty result"

run_sluice run --wait "$T_DIR/empty.json" -i hosts=web-01
expect_rc 1 "items that are not an array fail the run"
id=$(new_id)
like "$(q "SELECT error FROM workflows WHERE id = $id")" \
    'for-each start: {{input.hosts}}: the items are a string, not an array' \
    "naming the step and the items"
run_sluice run --wait "$T_DIR/empty.json" -i 'hosts:=["a", {"h": 1}]'
expect_rc 1 "an item without a usable label fails the run"
like "$(q "SELECT error FROM workflows WHERE id = $id + 1")" \
    'for-each start: {{input.hosts}}[1]: item 1 is an object' \
    "naming the step and the item"
is "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id + 1
    AND item_index IS NOT NULL")" 0 "and no item ran"

cat >"$T_DIR/gated.json" <<'EOF'
{"start": {"foreach": [{"host": "x1"}, {"host": "x2"}, {"host": "x3"}],
  "label": "{{item.host}}", "batch": 1,
  "do": {"tool": "echo", "args": {"h": "{{item.host}}", "i": "{{index}}"}},
  "gate_between_batches": {"message": "on to {{input.what}}"}}}
EOF
run_sluice run "$T_DIR/gated.json" -i what=more
id=$OUT
wait_for gate_waiting "$id" "before batch 2"
run_sluice gates --json
like "$OUT" "on to more: batch 1 of 3 finished" \
    "the gate's own message comes first, interpolated"
x3=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id AND label = 'x3'")
run_sluice skip "$x3" -m "host retired"
expect_rc 0 "an item waiting for its turn can be skipped"
run_sluice approve "$(gate_id "$id" "before batch 2")"
wait_for wf_is "$id" completed
ok $? "the gated run completes: batch 3 has nothing left to ask for"
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $id
    AND items IS NOT NULL")" '[{"h":"x1","i":0},{"h":"x2","i":1},null]' \
    "labels from {{item.host}}, {{index}} interpolated, the skipped item null"

cat >"$T_DIR/abort.json" <<'EOF'
{"start": {"foreach": ["p", "q"], "batch": 1, "gate_between_batches": true,
  "do": {"tool": "noop"}}}
EOF
run_sluice run "$T_DIR/abort.json"
id=$OUT
wait_for gate_waiting "$id" "before batch 2"
run_sluice reject "$(gate_id "$id" "before batch 2")" -m "not today"
wait_for wf_is "$id" failed
ok $? "rejecting a batch gate aborts the for-each"
like "$(q "SELECT error FROM workflows WHERE id = $id")" \
    "aborted at its batch gate: rejected by $(id -un): not today" \
    "saying who stopped it and why"
is "$(items_with "$id" cancelled)" "q" "the next batch never ran"

# --- cancel one item ----------------------------------------------------------

cat >"$T_DIR/hung.json" <<'EOF'
{"start": {"foreach": ["ok1", "hung", "ok2"], "concurrency": 3,
  "max_failures": 1, "label": "{{item}}",
  "do": {"shell": "[ \"$H\" != hung ] || sleep 60", "env": {"H": "{{item}}"},
   "retry": {"max_attempts": 1}}}}
EOF
run_sluice run "$T_DIR/hung.json"
id=$OUT
hung_is_running() {
	[ "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $id
	    AND label = 'hung'")" = running ] &&
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id
	    AND label LIKE 'ok%' AND status = 'done'")" = 2 ]
}
wait_for hung_is_running
ok $? "one item hangs while the others are done"
hung=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id
    AND label = 'hung'")
run_sluice cancel --step 1 -m "not an item"
expect_rc 4 "cancel --step refuses a row that is not an item"
run_sluice cancel --step "$hung" -m "host unreachable"
expect_rc 0 "cancel --step cancels one item"
is "$OUT" "cancelled item hung (step $hung) of start" "and says which"
wait_for wf_is "$id" completed
ok $? "the for-each goes on: one cancelled item is within its budget"
is "$(q "SELECT status || ' ' || error FROM workflow_steps
    WHERE id = $hung")" "cancelled cancelled by $(id -un): host unreachable" \
    "the item is cancelled, saying who and why"
q_is "SELECT action || ' ' || target FROM audit WHERE step_id = $hung" \
    "cancel step $hung hung" "the cancel is audited"
run_sluice cancel --step "$hung"
expect_rc 4 "an item that has ended cannot be cancelled"

# --- items that run a sub-workflow ------------------------------------------

cat >"$T_DIR/child.json" <<'EOF'
{"inputs": {"host": {"required": true}},
 "flow": {"start": {"tool": "echo", "args": {"h": "{{input.host}}"}}},
 "output": {"host": "{{input.host}}"}}
EOF
run_sluice template save child "$T_DIR/child.json"
cat >"$T_DIR/sub.json" <<'EOF'
{"start": {"foreach": ["a", "b", "c"], "concurrency": 2,
  "do": {"workflow": "child", "input": {"host": "{{item}}"}}}}
EOF
run_sluice run --wait "$T_DIR/sub.json"
expect_rc 0 "a for-each whose items run a sub-workflow completes"
id=$(q "SELECT max(id) FROM workflows WHERE parent_id IS NULL")
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $id
    AND items IS NOT NULL")" '[{"host":"a"},{"host":"b"},{"host":"c"}]' \
    "each item's result is its child run's output, in item order"
is "$(q "SELECT count(*) FROM workflows WHERE parent_id = $id")" 3 \
    "one child run per item"

# --- items read in place from the input -------------------------------------

# The engine walks {{input.fleet.web}} in the input's text and keeps only
# the members its steps read: each of those must still reach its reader.
cat >"$T_DIR/inplace.json" <<'EOF'
{"start": {"foreach": "{{input.fleet.web}}", "label": "{{item.n}}@{{input.dc}}",
  "do": {"tool": "echo", "args": {"h": "{{item.n}}", "svc": "{{input.svc}}",
   "i": "{{index}}"}},
  "next": "after"},
 "after": {"tool": "echo", "args": {"web": "{{input.fleet.web}}",
   "dotted": "{{input.a.b}}", "esc": "{{input.q\"k}}"},
  "branch": [{"if": "input.mode == \"x\"", "then": "x"}, {"else": "y"}]},
 "x": {"tool": "echo", "args": {"arm": "x"}},
 "y": {"tool": "echo", "args": {"arm": "y"}},
 "output": {"svc": "{{input.svc}}", "n": "{{steps.start.result}}"}}
EOF
cat >"$T_DIR/inplace-in.json" <<'EOF'
{"dc": "fra", "svc": "nginx", "mode": "x", "a.b": "dot",
 "q\"k": "esc", "unread": [1, 2, 3],
 "fleet": {"db": [{"n": "d1"}], "web": [{"n": "w1"}, {"n": "w2"},
   {"n": "w\u00e9,]}"}]}}
EOF
run_sluice run --wait "$T_DIR/inplace.json" --input "$T_DIR/inplace-in.json"
expect_rc 0 "a for-each over a nested input path completes"
id=$(q "SELECT max(id) FROM workflows")
is "$(q "SELECT group_concat(label, ' ') FROM (SELECT label FROM
    workflow_steps WHERE workflow_id = $id AND item_index IS NOT NULL
    ORDER BY item_index)")" "w1@fra w2@fra wé,]}@fra" \
    "each item's label reads the item and another input member"
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $id
    AND items IS NOT NULL")" \
    '[{"h":"w1","svc":"nginx","i":0},{"h":"w2","svc":"nginx","i":1},{"h":"wé,]}","svc":"nginx","i":2}]' \
    "items see the item, its index and the rest of the input"
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $id
    AND step_key = 'after'")" \
    '{"web":[{"n":"w1"},{"n":"w2"},{"n":"wé,]}"}],"dotted":"dot","esc":"esc"}' \
    "a later step still reads the items' member, a dotted and an escaped key"
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $id
    AND step_key IN ('x', 'y')")" '{"arm":"x"}' \
    "a condition reads an input member"
is "$(q "SELECT json_extract(output_json, '$.svc') FROM workflows
    WHERE id = $id")" nginx "the output reads an input member"

cat >"$T_DIR/notarray.json" <<'EOF'
{"start": {"foreach": "{{input.fleet.db.0}}", "do": {"tool": "noop"}}}
EOF
run_sluice run --wait "$T_DIR/notarray.json" --input "$T_DIR/inplace-in.json"
expect_rc 1 "a for-each over an input member that is not an array fails"
id=$(q "SELECT max(id) FROM workflows")
like "$(q "SELECT error FROM workflow_steps WHERE workflow_id = $id
    AND items IS NULL AND item_of IS NULL")" \
    "for-each start: {{input.fleet.db.0}}: the items are an object" \
    "naming the step and what the items are"

# --- a for-each's gates: their label in the queue, the one rule ---------------

# The queue names a for-each's gate by its step and label, and the site's
# allow_self default is fixed on it as on any gate.
engine_stop
printf '{"allow_self": false}\n' >"$SLUICE_SITE_CONFIG"
engine_start
cat >"$T_DIR/fegate.json" <<'EOF'
{"start": {"name": "restart", "foreach": ["a", "b"], "batch": 1,
  "gate_between_batches": {"message": "go on"}, "max_failures": 0,
  "on_budget_spent": "ask", "do": {"tool": "noop"}}}
EOF
run_sluice run "$T_DIR/fegate.json"
id=$OUT
wait_for gate_waiting "$id" "before batch 2"
g=$(gate_id "$id" "before batch 2")
run_sluice gates
like "$OUT" "restart (before batch 2 of 2)" \
    "gates names a for-each's gate by its step and label"
run_sluice gates --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].step') || '|' ||
    json_extract(j, '\$[0].label') FROM d")" "restart|before batch 2 of 2" \
    "gates --json has the step name and the label apart"
is "$(q "SELECT json_extract(gate_json, '\$.allow_self') FROM workflow_steps
    WHERE id = $g")" 0 "the site's allow_self default is fixed on the gate"
# The rule stays on the row: with the site default back to true, the gate
# created under false still refuses the starter.
engine_stop
rm -f "$SLUICE_SITE_CONFIG"
engine_start
run_sluice approve "$g"
expect_rc 4 "so the starter may not approve a for-each's batch gate"
is "$ERR" "sluice: allow_self is false and $(id -un) started workflow $id: the starter may not approve its gates" \
    "and is told why"
run_sluice reject "$g" -m "stop here"
expect_rc 0 "the starter may still reject it"
wait_for wf_is "$id" failed
ok $? "rejecting the batch gate aborts the for-each"

engine_stop

# --- an item interrupted follows its "do"'s on_interrupt ---------------------

cat >"$T_DIR/oi.json" <<EOF
{"each": {"foreach": ["x"],
  "do": {"shell": "echo \$\$ >$T_DIR/oi.pid; exec sleep 300", "on_interrupt": "fail"}}}
EOF
engine_start
run_sluice run "$T_DIR/oi.json"
id=$OUT
wait_for test -s "$T_DIR/oi.pid"
ok $? "an item runs"
wait_for item_pid "$id"
ok $? "  its pid is recorded"
engine_crash
engine_start
wait_for wf_is "$id" failed
ok $? "after a crash it fails (its do's on_interrupt fail), and the run"
q_is "SELECT attempt || '|' || status FROM workflow_steps WHERE
    workflow_id = $id AND item_index = 0 ORDER BY id" "1|failed" \
    "  it was not run again"
engine_stop
done_testing
