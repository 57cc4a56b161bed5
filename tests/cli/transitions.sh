#!/bin/sh
# tests/cli/transitions.sh: what follows a step: next, branch (first
# match, else, no match fails, exit_code arms), parallel and join under
# all_success, all_done and a count, nested fan-outs, loops and their
# max_visits, done, and data passed through {{steps...}}, {{input...}}
# and {{workflow...}}.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# rows WF: name|status of every row of a workflow, in order.
rows() {
	q "SELECT name || '|' || status FROM workflow_steps WHERE
	    workflow_id = $1 ORDER BY id"
}

# result WF NAME: the latest result of step NAME.
result() {
	q "SELECT result_json FROM workflow_steps WHERE workflow_id = $1 AND
	    name = '$2' ORDER BY id DESC LIMIT 1"
}

# --- next and data passing -----------------------------------------------

cat >"$T_DIR/chain.json" <<'EOF'
{"start": {"tool": "echo", "args": {"n": 2, "s": "x y"}, "next": "b"},
 "b": {"tool": "echo", "next": "c", "args": {
   "n": "{{steps.start.result.n}}",
   "txt": "n={{steps.start.result.n}}",
   "obj": "{{steps.start.result}}",
   "missing": "{{steps.start.result.nope}}",
   "in": "{{input.k}}", "deep": "{{input.o.p}}",
   "wid": "{{workflow.id}}", "wname": "{{workflow.name}}"}},
 "c": {"run": ["sh", "-c", "echo '{\"r\": 7}'; exit 3"],
   "retry": {"max_attempts": 1},
   "branch": [{"if": "exit_code == 3", "then": "d"}]},
 "d": {"tool": "echo", "args": {"code": "{{steps.c.exit_code}}",
   "text": "code {{steps.c.exit_code}}", "r": "{{steps.c.result.r}}"}}}
EOF
wait_run "$T_DIR/chain.json" -i k=v -i 'o:={"p": [1, 2]}' --name chainy
expect_rc 0 "a chain of next steps completes"
is "$(rows "$ID")" "start|done
b|done
c|failed
d|done" "each step ran once, in order; c failed and its branch went on"
is "$(result "$ID" b)" \
    "{\"n\":2,\"txt\":\"n=2\",\"obj\":{\"n\":2,\"s\":\"x y\"},\"missing\":\"\",\"in\":\"v\",\"deep\":[1,2],\"wid\":$ID,\"wname\":\"chainy\"}" \
    "args see earlier results, input and the workflow, keeping JSON types"
is "$(result "$ID" d)" '{"code":3,"text":"code 3","r":7}' \
    "a later step reads a failed step's exit code and result"
q_is "SELECT exit_code, error FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'c'" "3|exit status 3" "the failed row keeps its exit code"
q_is "SELECT count(*) FROM workflow_steps s JOIN workflow_steps p
    ON s.parent_id = p.id WHERE s.workflow_id = $ID" 3 \
    "every row but the first names the row it follows"
q_is "SELECT status, error FROM workflows WHERE id = $ID" "completed|" \
    "the workflow completed with no error"

# --- branch -----------------------------------------------------------------

cat >"$T_DIR/branch.json" <<'EOF'
{"start": {"tool": "echo", "args": {"status": "{{input.s}}", "n": "{{input.n}}"},
   "branch": [{"if": "result.status == \"bad\"", "then": "bad"},
              {"if": "result.n > 3 && result.status == \"ok\"", "then": "big"},
              {"if": "!(result.n >= 0) || result.status == nil", "then": "odd"},
              {"else": "other"}]},
 "bad": {"tool": "noop"}, "big": {"tool": "noop"},
 "odd": {"tool": "noop"}, "other": {"tool": "noop"}}
EOF
wait_run "$T_DIR/branch.json" -i s=ok -i n:=5
expect_rc 0 "branch: a matching arm"
is "$(rows "$ID")" "start|done
big|done" "the first matching arm is taken, and only it"
wait_run "$T_DIR/branch.json" -i s=bad -i n:=5
is "$(rows "$ID")" "start|done
bad|done" "arms are tried in order"
wait_run "$T_DIR/branch.json" -i s=ok -i n:=-1
is "$(rows "$ID")" "start|done
odd|done" "negation and || in conditions"
wait_run "$T_DIR/branch.json" -i s=ok -i n:=1
is "$(rows "$ID")" "start|done
other|done" "else when nothing matches"

cat >"$T_DIR/nomatch.json" <<'EOF'
{"start": {"tool": "echo", "args": {"v": "zzz"},
   "branch": [{"if": "result.v == \"a\"", "then": "a"}]},
 "a": {"tool": "noop"}}
EOF
wait_run "$T_DIR/nomatch.json"
expect_rc 1 "no matching arm and no else: run --wait exits 1"
is "$ERR" "sluice: workflow $ID failed: step start: no branch matched its result {\"v\":\"zzz\"}" \
    "the failure names the step and its result"
q_is "SELECT status, error FROM workflows WHERE id = $ID" \
    "failed|step start: no branch matched its result {\"v\":\"zzz\"}" \
    "the workflow failed with that error"
is "$(rows "$ID")" "start|done" "the step itself is done"

cat >"$T_DIR/exitnomatch.json" <<'EOF'
{"start": {"run": ["sh", "-c", "exit 4"], "retry": {"max_attempts": 1},
   "branch": [{"if": "exit_code == 3", "then": "a"}]},
 "a": {"tool": "noop"}}
EOF
wait_run "$T_DIR/exitnomatch.json"
expect_rc 1 "an exit_code branch that does not match the failure"
is "$ERR" "sluice: workflow $ID failed: step start failed: exit status 4" \
    "the step's failure fails the workflow"

cat >"$T_DIR/okexit.json" <<'EOF'
{"start": {"run": ["true"],
   "branch": [{"if": "exit_code == 0", "then": "zero"}, {"else": "other"}]},
 "zero": {"tool": "noop"}, "other": {"tool": "noop"}}
EOF
wait_run "$T_DIR/okexit.json"
is "$(rows "$ID")" "start|done
zero|done" "exit_code is 0 for a successful process"

# --- parallel and join ------------------------------------------------------

cat >"$T_DIR/fan.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b", "c"], "join": "j"},
 "a": {"tool": "echo", "args": {"v": "A"}},
 "b": {"tool": "echo", "args": {"v": "B"}, "next": "b2"},
 "b2": {"tool": "echo", "args": {"v": "B2"}},
 "c": {"run": ["echo", "C"]},
 "j": {"tool": "echo", "args": {"a": "{{steps.a.result.v}}",
   "b": "{{steps.b.result.v}}", "b2": "{{steps.b2.result.v}}",
   "c": "{{steps.c.result}}"}}}
EOF
wait_run "$T_DIR/fan.json"
expect_rc 0 "a fan-out with a join completes"
fo=$(step_id "$ID" start)
q_is "SELECT name, fanout_id = $fo, branch_no, ifnull(branch_end, '-')
    FROM workflow_steps WHERE workflow_id = $ID AND name != 'start'
    ORDER BY name" "a|1|0|join
b|1|1|-
b2|1|1|join
c|1|2|join
j|||-" "branches are numbered in their fan-out; each branch end arrives"
q_is "SELECT parent_id, fanout_id IS NULL FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'j'" "$fo|1" \
    "the join runs once, after the fan-out row, outside it"
is "$(result "$ID" j)" '{"a":"A","b":"B","b2":"B2","c":"C"}' \
    "the join sees every branch's results"

cat >"$T_DIR/fanstep.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop", "join": "j"},
 "b": {"tool": "noop", "next": "b2"},
 "b2": {"tool": "noop", "join": "j"},
 "j": {"tool": "noop", "next": "after"},
 "after": {"tool": "noop"}}
EOF
wait_run "$T_DIR/fanstep.json"
expect_rc 0 "branches naming the join themselves"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $ID
    AND name IN ('j', 'after') ORDER BY id" "j|done
after|done" "the join runs once and goes on"

cat >"$T_DIR/noreach.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop", "join": "j"},
 "b": {"tool": "noop"},
 "j": {"tool": "noop"}}
EOF
wait_run "$T_DIR/noreach.json"
expect_rc 1 "all_success: a branch that ends without reaching the join"
is "$ERR" "sluice: workflow $ID failed: join j: a branch of start ended without reaching it" \
    "the failure names the join and the fan-out"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'j'" 0 "the join did not run"

cat >"$T_DIR/fanfail.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "slow"], "join": "j"},
 "a": {"shell": "i=0; while [ ! -s $T_DIR/slow.pid ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done; echo no >&2; exit 5",
   "retry": {"max_attempts": 1}},
 "slow": {"shell": "echo \$\$ >$T_DIR/slow.pid; exec sleep 30"},
 "j": {"tool": "noop"}}
EOF
rm -f "$T_DIR/slow.pid"
wait_run "$T_DIR/fanfail.json"
expect_rc 1 "all_success: a failed branch fails the workflow"
is "$ERR" "sluice: workflow $ID failed: step a failed: exit status 5" \
    "it names the failed step"
q_is "SELECT status, error FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'slow'" "cancelled|cancelled: the workflow failed" \
    "the other branch is cancelled"
dead "$(cat "$T_DIR/slow.pid")"
ok $? "the other branch's process was killed"

cat >"$T_DIR/alldone.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"tool": "fail", "args": {"message": "nope"}, "retry": {"max_attempts": 1}},
 "b": {"tool": "echo", "args": {"v": 1}},
 "j": {"tool": "echo", "join_policy": "all_done",
   "args": {"b": "{{steps.b.result.v}}"}}}
EOF
wait_run "$T_DIR/alldone.json"
expect_rc 0 "all_done: a failed branch does not fail the workflow"
q_is "SELECT name, status, ifnull(branch_end, '-') FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "start|done|-
a|failed|failed
b|done|join
j|done|-" "the failed branch is recorded as such and the join runs"
is "$(result "$ID" j)" '{"b":1}' "the join sees the branch that completed"
q_is "SELECT error FROM workflows WHERE id = $ID" "" \
    "the workflow completed with no error"

cat >"$T_DIR/alldoneend.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop", "join": "j"},
 "b": {"tool": "noop"},
 "j": {"tool": "noop", "join_policy": "all_done"}}
EOF
wait_run "$T_DIR/alldoneend.json"
expect_rc 0 "all_done: a branch that ends without reaching the join"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'j' AND status = 'done'" 1 "the join runs once every branch ended"

cat >"$T_DIR/count.json" <<EOF
{"start": {"tool": "noop", "parallel": ["fast", "slow"], "join": "j"},
 "fast": {"shell": "i=0; while [ ! -s $T_DIR/slow.pid ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done"},
 "slow": {"shell": "echo \$\$ >$T_DIR/slow.pid; exec sleep 30", "next": "after"},
 "after": {"tool": "noop"},
 "j": {"tool": "echo", "join_policy": 1, "args": {"fast": "{{steps.fast.exit_code}}"}}}
EOF
rm -f "$T_DIR/slow.pid"
wait_run "$T_DIR/count.json"
expect_rc 0 "join_policy 1: goes on after one branch"
q_is "SELECT name, status, ifnull(error, '') FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "start|done|
fast|done|
slow|cancelled|cancelled: the join had enough branches
j|done|" "the other branch is cancelled and the join runs once"
dead "$(cat "$T_DIR/slow.pid")"
ok $? "the cancelled branch's process was killed"
is "$(result "$ID" j)" '{"fast":0}' "the join sees the branch that arrived"

cat >"$T_DIR/count2.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b", "c"], "join": "j"},
 "a": {"tool": "fail", "retry": {"max_attempts": 1}},
 "b": {"tool": "fail", "retry": {"max_attempts": 1}},
 "c": {"tool": "noop"},
 "j": {"tool": "noop", "join_policy": 2}}
EOF
wait_run "$T_DIR/count2.json"
expect_rc 1 "join_policy 2 with two branches failed"
is "$ERR" "sluice: workflow $ID failed: join j: only 1 of the 2 branches it needs can still arrive" \
    "the failure says the join can no longer be met"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'j'" 0 "the join did not run"

cat >"$T_DIR/count3.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b", "c"], "join": "j"},
 "a": {"tool": "fail", "retry": {"max_attempts": 1}},
 "b": {"tool": "noop"},
 "c": {"tool": "noop"},
 "j": {"tool": "noop", "join_policy": 2}}
EOF
wait_run "$T_DIR/count3.json"
expect_rc 0 "join_policy 2: one failed branch of three is allowed"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'j' AND status = 'done'" 1 "the join ran once"

cat >"$T_DIR/nojoin.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop"},
 "b": {"tool": "noop", "next": "b2"},
 "b2": {"tool": "noop"}}
EOF
wait_run "$T_DIR/nojoin.json"
expect_rc 0 "a fan-out with no join completes when its branches end"
q_is "SELECT name, ifnull(branch_end, '-') FROM workflow_steps WHERE
    workflow_id = $ID ORDER BY id" "start|-
a|end
b|-
b2|end" "each branch ended without a join"

# --- nested fan-outs ----------------------------------------------------------

cat >"$T_DIR/nested.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["x", "y"], "join": "J"},
 "x": {"tool": "noop", "parallel": ["x1", "x2"], "join": "xj"},
 "x1": {"tool": "echo", "args": {"v": 1}},
 "x2": {"tool": "echo", "args": {"v": 2}},
 "xj": {"tool": "echo", "args": {"s": "{{steps.x1.result.v}}{{steps.x2.result.v}}"}},
 "y": {"tool": "echo", "args": {"v": "y"}},
 "J": {"tool": "echo", "args": {"xj": "{{steps.xj.result.s}}", "y": "{{steps.y.result.v}}"}}}
EOF
wait_run "$T_DIR/nested.json"
expect_rc 0 "nested fan-outs complete"
s0=$(step_id "$ID" start)
x0=$(step_id "$ID" x)
q_is "SELECT name, ifnull(fanout_id, 0), ifnull(branch_no, '-'),
    ifnull(branch_end, '-') FROM workflow_steps WHERE workflow_id = $ID
    ORDER BY name" "J|0|-|-
start|0|-|-
x|$s0|0|-
x1|$x0|0|join
x2|$x0|1|join
xj|$s0|0|join
y|$s0|1|join" "the inner join runs in the outer branch and arrives at the outer join"
is "$(result "$ID" J)" '{"xj":"12","y":"y"}' \
    "the outer join sees the inner join's result"

cat >"$T_DIR/nestedfail.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["x", "y"], "join": "J"},
 "x": {"tool": "noop", "parallel": ["x1", "x2"], "join": "xj"},
 "x1": {"tool": "fail", "retry": {"max_attempts": 1}},
 "x2": {"tool": "noop"},
 "xj": {"tool": "noop", "join_policy": "all_done"},
 "y": {"tool": "noop"},
 "J": {"tool": "noop"}}
EOF
wait_run "$T_DIR/nestedfail.json"
expect_rc 0 "an inner all_done join lets an inner branch fail"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $ID
    AND name IN ('xj', 'J') ORDER BY id" "xj|done
J|done" "both joins ran"

# --- loops --------------------------------------------------------------------

cat >"$T_DIR/loop.json" <<EOF
{"start": {"tool": "noop", "next": "count"},
 "count": {"shell": "echo x >>$T_DIR/loop; wc -l <$T_DIR/loop",
   "branch": [{"if": "result < 3", "then": "count"}, {"else": "end"}]},
 "end": {"tool": "echo", "args": {"last": "{{steps.count.result}}"}}}
EOF
rm -f "$T_DIR/loop"
wait_run "$T_DIR/loop.json"
expect_rc 0 "a loop runs until its branch leaves it"
q_is "SELECT name, visit, attempt, result_json FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "start|1|1|null
count|1|1|1
count|2|1|2
count|3|1|3
end|1|1|{\"last\":3}" "each pass is a new row with the next visit"
q_is "SELECT count(*) FROM workflow_steps a JOIN workflow_steps b
    ON b.parent_id = a.id WHERE a.workflow_id = $ID AND a.name = 'count'
    AND b.name = 'count'" 2 "each pass follows the one before"

cat >"$T_DIR/spin.json" <<'EOF'
{"start": {"tool": "noop", "next": "spin"},
 "spin": {"tool": "noop", "max_visits": 3,
   "branch": [{"if": "result == nil", "then": "spin"}]}}
EOF
wait_run "$T_DIR/spin.json"
expect_rc 1 "a runaway loop is stopped"
is "$ERR" "sluice: workflow $ID failed: step spin reached its limit of 3 visits (max_visits)" \
    "it names the step and its limit"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'spin'" 3 "exactly max_visits passes ran"

cat >"$T_DIR/spin100.json" <<'EOF'
{"start": {"tool": "noop", "branch": [{"if": "result == nil", "then": "start"}]}}
EOF
wait_run "$T_DIR/spin100.json"
expect_rc 1 "the default limit stops a loop too"
is "$ERR" "sluice: workflow $ID failed: step start reached its limit of 100 visits (max_visits)" \
    "the default limit is 100"
q_is "SELECT max(visit), count(*) FROM workflow_steps WHERE
    workflow_id = $ID" "100|100" "100 passes ran"

# --- done ---------------------------------------------------------------------

cat >"$T_DIR/done.json" <<EOF
{"start": {"tool": "noop", "parallel": ["quick", "slow"]},
 "quick": {"shell": "i=0; while [ ! -s $T_DIR/slow.pid ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done", "done": true},
 "slow": {"shell": "echo \$\$ >$T_DIR/slow.pid; exec sleep 30", "next": "never"},
 "never": {"tool": "noop"}}
EOF
rm -f "$T_DIR/slow.pid"
wait_run "$T_DIR/done.json"
expect_rc 0 "done: true completes the workflow"
q_is "SELECT name, status, ifnull(error, '') FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "start|done|
quick|done|
slow|cancelled|cancelled: the workflow completed" \
    "what still ran is cancelled"
dead "$(cat "$T_DIR/slow.pid")"
ok $? "its process was killed"
q_is "SELECT status, error FROM workflows WHERE id = $ID" "completed|" \
    "the workflow is completed, not failed"

cat >"$T_DIR/donemid.json" <<'EOF'
{"start": {"tool": "echo", "args": {"x": 1}, "done": true, "next": "b"},
 "b": {"tool": "noop"}}
EOF
run_sluice check "$T_DIR/donemid.json"
if [ "$RC" -eq 0 ]; then
	wait_run "$T_DIR/donemid.json"
	expect_rc 0 "done wins over next"
	is "$(rows "$ID")" "start|done" "nothing runs after a done step"
fi

# --- fan-outs with loops, retries and gates -------------------------------

cat >"$T_DIR/loopfan.json" <<EOF
{"start": {"tool": "noop", "next": "fan"},
 "fan": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"shell": "echo x >>$T_DIR/fl; wc -l <$T_DIR/fl"},
 "b": {"tool": "noop"},
 "j": {"tool": "echo", "args": {"a": "{{steps.a.result}}"},
   "branch": [{"if": "result.a < 3", "then": "fan"}, {"else": "out"}]},
 "out": {"tool": "noop"}}
EOF
rm -f "$T_DIR/fl"
wait_run "$T_DIR/loopfan.json"
expect_rc 0 "a loop around a fan-out completes"
q_is "SELECT group_concat(result_json, ' ') FROM (SELECT result_json
    FROM workflow_steps WHERE workflow_id = $ID AND name = 'j'
    ORDER BY id)" '{"a":1} {"a":2} {"a":3}' \
    "the join runs once per pass and sees that pass's results"
q_is "SELECT count(*), count(DISTINCT fanout_id) FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'a'" "3|3" \
    "each pass has its own fan-out row"

cat >"$T_DIR/fanretry.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"shell": "[ $SLUICE_ATTEMPT -ge 2 ]",
   "retry": {"max_attempts": 2, "backoff": ["0s"]}},
 "b": {"tool": "noop"},
 "j": {"tool": "noop"}}
EOF
wait_run "$T_DIR/fanretry.json"
expect_rc 0 "a branch that succeeds on its retry reaches the join"
fo=$(step_id "$ID" start)
q_is "SELECT attempt, status, fanout_id = $fo, branch_no,
    ifnull(branch_end, '-') FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'a' ORDER BY id" "1|failed|1|0|-
2|done|1|0|join" "the retry stays in its branch and arrives"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'j'" 1 "the join ran once"

cat >"$T_DIR/fangate.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["g", "b"], "join": "j"},
 "g": {"gate": {"message": "never decided"}},
 "b": {"tool": "noop"},
 "j": {"tool": "noop", "join_policy": 1}}
EOF
wait_run "$T_DIR/fangate.json"
expect_rc 0 "join_policy 1 does not wait for a gate in another branch"
q_is "SELECT status, error FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'g'" "cancelled|cancelled: the join had enough branches" \
    "the waiting gate is cancelled"
run_sluice gates --json
is "$OUT" "[]" "and leaves the approval queue"

# --- issue 12: fan-out, condition and seed-form bugs --------------------------

# retry --from a step inside a fan-out runs the other branch's failed row
# too, and the join runs: before, the run completed without the join.
cat >"$T_DIR/refan.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"shell": "test -f $T_DIR/refan.ok || exit 3",
   "retry": {"max_attempts": 1}},
 "b": {"tool": "noop"},
 "j": {"tool": "noop", "done": true}}
EOF
wait_run "$T_DIR/refan.json"
expect_rc 1 "a failed branch fails the fan-out's run"
idf=$ID
touch "$T_DIR/refan.ok"
engine_start
run_sluice retry "$idf" --from b
expect_rc 0 "retry --from a step of a fan-out"
is "$OUT" "retrying workflow $idf: b, a" \
    "the other branch's failed row runs again with it"
wait_for wf_ended "$idf"
engine_stop
q_is "SELECT status FROM workflows WHERE id = $idf" completed \
    "the retried fan-out completes"
q_is "SELECT name, status FROM (SELECT * FROM workflow_steps
    WHERE workflow_id = $idf ORDER BY id DESC LIMIT 3) ORDER BY name" "a|done
b|done
j|done" "both branches ran again and the join ran once"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $idf
    AND name = 'j'" 1 "the join ran once"

# retry --from leaves alone a failed branch whose join already went on
# without it (all_done): only the step and what follows it run again.
cat >"$T_DIR/alldonefrom.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"tool": "fail", "args": {"message": "no"}, "retry": {"max_attempts": 1}},
 "b": {"tool": "noop"},
 "j": {"tool": "noop", "join_policy": "all_done", "next": "k"},
 "k": {"shell": "test -f $T_DIR/alldone.ok || exit 3",
   "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/alldonefrom.json"
expect_rc 1 "a run that fails after an all_done join"
idf=$ID
touch "$T_DIR/alldone.ok"
engine_start
run_sluice retry "$idf" --from k
is "$OUT" "retrying workflow $idf: k" \
    "retry --from after the join does not run the failed branch again"
wait_for wf_ended "$idf"
engine_stop
q_is "SELECT status FROM workflows WHERE id = $idf" completed \
    "and the run completes"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $idf
    AND name = 'a'" 1 "a ran once"

# A fan-out inside a fan-out with no join of its own ends its branch when
# its branches end: the outer join runs (before, it never did).
cat >"$T_DIR/innernojoin.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "inner"], "join": "j"},
 "a": {"tool": "noop"},
 "inner": {"tool": "noop", "parallel": ["x", "y"]},
 "x": {"tool": "noop"}, "y": {"tool": "noop"},
 "j": {"tool": "noop"}}
EOF
wait_run "$T_DIR/innernojoin.json"
expect_rc 0 "an inner fan-out without a join"
q_is "SELECT name, ifnull(branch_end, '-') FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "start|-
a|join
inner|join
x|end
y|end
j|-" "the inner fan-out arrives at the outer join once its branches end"

# Inner branches that name the outer join: it runs once, after all.
cat >"$T_DIR/innerouter.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "inner"], "join": "j"},
 "a": {"tool": "noop"},
 "inner": {"tool": "noop", "parallel": ["x", "y"]},
 "x": {"tool": "noop", "join": "j"}, "y": {"tool": "noop", "join": "j"},
 "j": {"tool": "noop"}}
EOF
wait_run "$T_DIR/innerouter.json"
expect_rc 0 "inner branches joining at the outer join"
q_is "SELECT count(*), min(fanout_id IS NULL) FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'j'" "1|1" \
    "the outer join runs once, outside every fan-out"

# A string literal "exit_code" does not make a branch handle a failure.
cat >"$T_DIR/exitlit.json" <<'EOF'
{"start": {"run": ["sh", "-c", "exit 3"], "retry": {"max_attempts": 1},
   "branch": [{"if": "result == \"exit_code\"", "then": "a"},
              {"else": "b"}]},
 "a": {"tool": "noop"}, "b": {"tool": "noop"}}
EOF
wait_run "$T_DIR/exitlit.json"
expect_rc 1 "a failed step whose branch only mentions \"exit_code\""
is "$(rows "$ID")" "start|failed" "nothing ran after the failure"

# The reference's forms: no "start" (the first step), result == yes.
cat >"$T_DIR/nostart.json" <<'EOF'
{"first": {"tool": "echo", "args": {"v": "yes"},
   "branch": [{"if": "result.v == yes", "then": "yes"}, {"else": "no"}]},
 "yes": {"tool": "noop", "done": true},
 "no": {"tool": "noop", "done": true}}
EOF
run_sluice check "$T_DIR/nostart.json"
expect_rc 0 "a flow without start passes check"
wait_run "$T_DIR/nostart.json"
expect_rc 0 "a flow without start runs"
is "$(rows "$ID")" "first|done
yes|done" "it starts at its first step; an unquoted word is a string"

done_testing
