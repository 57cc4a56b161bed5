#!/bin/sh
# tests/cli/dag.sh: the DAG form (SPEC §3).  The DAG note's own nodes and
# edges document runs (premium and standard branches by condition, a
# skipped branch skipping its dependants, an all_done step running
# anyway); depends_on with edge conditions, transitive skips, all_done
# and a failed dependency; a diamond whose join runs once after both,
# its two branches at once; kill -9 mid-run and recovery running each
# step once (counted by the steps themselves, outside the database);
# retry and retry --from; and check's refusals with their paths.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

DATA="$TESTS_DATA/dag"
export DAG_LOG="$T_DIR/ledger"
# The tools of the note's step names (built-ins stay there beside them).
export SLUICE_TOOLS="$DATA/tools.json"

# rows WF: name|status of every row of a workflow, in order.
rows() {
	q "SELECT name || '|' || status FROM workflow_steps WHERE
	    workflow_id = $1 ORDER BY id"
}

# why WF NAME: the error of step NAME's latest row.
why() {
	col "$1" "$2" error
}

# ran NAME: how many times step NAME wrote its line to the ledger.
ran() {
	grep -cx "$1" "$DAG_LOG" 2>/dev/null || true
}

# --- the DAG note's own document -------------------------------------------

run_sluice check "$DATA/note.json"
expect_rc 0 "check accepts the note's nodes and edges document"
like "$OUT" "valid flow, 6 steps" "each node is a step"

: >"$DAG_LOG"
wait_run -i tier=premium "$DATA/note.json"
expect_rc 0 "the note's document runs (premium)"
is "$(rows "$ID")" "fetch_data|done
validate_input|done
process_premium|done
process_standard|skipped
premium_report|done
notify|done" "the premium edge runs, the standard one is skipped"
like "$(why "$ID" process_standard)" \
    'the condition on validate_input was false (result.branch == "standard")' \
    "the skipped step says which condition was false"
is "$(tr '\n' ' ' <"$DAG_LOG")" \
    "fetch_data validate_input process_premium premium_report notify " \
    "each step ran once, after its dependencies"
q_is "SELECT timeout_at - started_at BETWEEN 9000 AND 11000 FROM
    workflow_steps WHERE workflow_id = $ID AND name = 'notify'" 1 \
    "timeout_s is the step's timeout in seconds"

: >"$DAG_LOG"
wait_run -i tier=standard "$DATA/note.json"
expect_rc 0 "the note's document runs (standard)"
is "$(rows "$ID")" "fetch_data|done
validate_input|done
process_premium|skipped
process_standard|done
premium_report|skipped
notify|done" "a skipped branch skips its dependants; all_done runs anyway"
is "$(why "$ID" premium_report)" \
    "skipped: dependency process_premium was skipped" \
    "a step skipped transitively names the skipped dependency"
is "$(ran premium_report)$(ran process_premium)$(ran notify)" "001" \
    "skipped steps never ran; notify ran once"

# max_retries: N retries after the first attempt, doubling from 2 s.
cat >"$T_DIR/retries.json" <<'EOF'
{"nodes": [{"step_name": "flaky", "tool": "fail", "max_retries": 1}]}
EOF
run_sluice run "$T_DIR/retries.json"
engine_drain
q_is "SELECT group_concat(status) FROM (SELECT status FROM workflow_steps
    WHERE workflow_id = $(new_id) ORDER BY id)" "failed,failed" \
    "max_retries 1 makes two attempts"
q_is "SELECT r.ready_at - f.completed_at BETWEEN 1500 AND 4000 FROM
    workflow_steps f, workflow_steps r WHERE f.workflow_id = $(new_id)
    AND r.workflow_id = f.workflow_id AND r.attempt = 2 AND f.attempt = 1" \
    1 "the retry waits the note's first backoff (2 s)"

# --- depends_on with edge conditions ------------------------------------------

wait_run "$DATA/tiers.json" -i tier=premium
expect_rc 0 "depends_on: premium"
is "$(rows "$ID")" "validate|done
premium|done
standard|skipped
premium_report|done
bill|skipped
notify|done" "premium runs; standard and what needs it are skipped"
is "$(col "$ID" notify result_json)" \
    '{"premium":{"done":"premium"},"standard":null}' \
    "every dependency's result is visible as {{steps.NAME.result}}"
is "$(why "$ID" bill)" "skipped: dependency standard was skipped" \
    "without all_done a skipped dependency skips the step"

wait_run "$DATA/tiers.json" -i tier=standard
is "$(rows "$ID")" "validate|done
premium|skipped
standard|done
premium_report|skipped
bill|skipped
notify|done" "standard: the premium branch is skipped, transitively"

wait_run "$DATA/tiers.json" -i tier=gold
is "$(rows "$ID")" "validate|done
premium|skipped
standard|skipped
premium_report|skipped
bill|skipped
notify|done" "no condition holds: both skipped, all_done still runs"
q_is "SELECT status FROM workflows WHERE id = $ID" completed \
    "a run whose steps were skipped completes"

# --- failed dependencies --------------------------------------------------------

cat >"$T_DIR/faildep.json" <<'EOF'
{"a": {"tool": "fail", "args": {"message": "disk full"},
   "retry": {"max_attempts": 1}},
 "side": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": ["a", "side"]}}
EOF
wait_run "$T_DIR/faildep.json"
expect_rc 1 "a failed dependency fails the run"
q_is "SELECT status || '|' || error FROM workflows WHERE id = $ID" \
    "failed|step a failed: disk full" "the run names the failed step"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'b'" 0 "its dependant never started"

cat >"$T_DIR/alldone.json" <<'EOF'
{"a": {"tool": "fail", "retry": {"max_attempts": 1}},
 "b": {"tool": "noop"},
 "cleanup": {"tool": "echo", "depends_on": ["a", "b"],
   "trigger": "all_done", "args": {"a": "{{steps.a.status}}"}}}
EOF
wait_run "$T_DIR/alldone.json"
expect_rc 0 "all_done: a failed dependency does not fail the run"
is "$(col "$ID" cleanup status)" done "the all_done step ran"
is "$(col "$ID" cleanup result_json)" '{"a":"failed"}' \
    "and saw how its dependency ended"

# --- a diamond: the join once, after both; the branches at once ----------------

: >"$DAG_LOG"
wait_run "$DATA/diamond.json"
expect_rc 0 "a diamond completes"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'd'" 1 "its join runs once"
q_is "SELECT d.started_at >= b.completed_at AND d.started_at >=
    c.completed_at FROM workflow_steps d, workflow_steps b,
    workflow_steps c WHERE d.workflow_id = $ID AND b.workflow_id = $ID AND
    c.workflow_id = $ID AND d.name = 'd' AND b.name = 'b' AND
    c.name = 'c'" 1 "after both of its dependencies ended"
q_is "SELECT b.started_at < c.completed_at AND c.started_at <
    b.completed_at FROM workflow_steps b, workflow_steps c WHERE
    b.workflow_id = $ID AND c.workflow_id = $ID AND b.name = 'b' AND
    c.name = 'c'" 1 "its two branches ran at the same time"
is "$(col "$ID" d result_json)" '{"sum":[1,2,3]}' \
    "the join reads every dependency's result"

# --- kill -9 mid-DAG: recovery runs each step once -------------------------------

cat >"$T_DIR/crash.json" <<EOF
{"a": {"run": ["sh", "-c", "echo a >>\"\$DAG_LOG\""]},
 "slow": {"depends_on": ["a"], "run": ["sh", "-c",
   "echo slow-start >>\"\$DAG_LOG\"; echo \$\$ >$T_DIR/slow.pid; while [ ! -e $T_DIR/go ]; do sleep 0.05; done; echo slow >>\"\$DAG_LOG\""]},
 "quick": {"depends_on": ["a"], "run": ["sh", "-c", "echo quick >>\"\$DAG_LOG\""]},
 "after_quick": {"depends_on": ["quick"],
   "run": ["sh", "-c", "echo after_quick >>\"\$DAG_LOG\""]},
 "last": {"depends_on": ["slow", "after_quick"],
   "run": ["sh", "-c", "echo last >>\"\$DAG_LOG\""]}}
EOF
: >"$DAG_LOG"
engine_start
run_sluice run "$T_DIR/crash.json"
cid=$(new_id)
wait_for file_has "$DAG_LOG" after_quick
wait_for test -s "$T_DIR/slow.pid"
engine_crash
ok 0 "the engine was killed while slow ran and after_quick had ended"
engine_start
wait_for dead "$(cat "$T_DIR/slow.pid")"
ok $? "the new engine killed the dead engine's step process"
touch "$T_DIR/go"
wait_for wf_ended "$cid"
engine_stop
q_is "SELECT status FROM workflows WHERE id = $cid" completed \
    "the recovered DAG run completes"
is "$(ran a)$(ran quick)$(ran after_quick)$(ran slow)$(ran last)" \
    "11111" "every step's work was done exactly once"
is "$(ran slow-start)" 2 "the interrupted step started again (on_interrupt retry)"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $cid AND
    name = 'last'" 1 "the join was made once"

# --- retry and retry --from ---------------------------------------------------------

cat >"$T_DIR/retry.json" <<EOF
{"a": {"run": ["sh", "-c", "echo a >>\"\$DAG_LOG\""]},
 "b": {"depends_on": ["a"], "retry": {"max_attempts": 1},
   "run": ["sh", "-c", "sleep 0.3; test -e $T_DIR/b.ok || exit 3; echo b >>\"\$DAG_LOG\""]},
 "c": {"depends_on": ["b"], "run": ["sh", "-c", "echo c >>\"\$DAG_LOG\""]},
 "other": {"depends_on": ["a"], "run": ["sh", "-c", "echo other >>\"\$DAG_LOG\""]}}
EOF
: >"$DAG_LOG"
wait_run "$T_DIR/retry.json"
expect_rc 1 "a DAG run fails at its failed step"
rid=$ID
touch "$T_DIR/b.ok"
engine_start
run_sluice retry "$rid"
is "$OUT" "retrying workflow $rid: b" "retry runs the failed step again"
wait_for wf_ended "$rid"
q_is "SELECT status FROM workflows WHERE id = $rid" completed \
    "and what depends on it, to completion"
is "$(ran a)$(ran b)$(ran c)$(ran other)" "1111" \
    "completed steps are kept; each ran once"
run_sluice retry "$rid" --from b
expect_rc 4 "retry --from is for a failed or cancelled run"
rm -f "$T_DIR/b.ok"
wait_run "$T_DIR/retry.json"
rid=$ID
run_sluice retry "$rid" --from a --dry-run
like "$OUT" "from a: a, b, c, other (4 steps) may run again" \
    "retry --from --dry-run names the step and all that depends on it"
run_sluice retry "$rid" --dry-run
like "$OUT" "b" "retry --dry-run names the failed step"
unlike "$OUT" "other" "and not the completed one beside it"
touch "$T_DIR/b.ok"
: >"$DAG_LOG"
run_sluice retry "$rid" --from a
is "$OUT" "retrying workflow $rid: a" "retry --from a DAG step"
wait_for wf_ended "$rid"
engine_stop
q_is "SELECT status FROM workflows WHERE id = $rid" completed \
    "retry --from completes the run"
is "$(ran a)$(ran b)$(ran c)$(ran other)" "1111" \
    "the step and everything depending on it ran again, once each"

# --- the run's handlers beside a DAG ----------------------------------------------

cat >"$T_DIR/handler.json" <<'EOF'
{"a": {"tool": "fail", "retry": {"max_attempts": 1}},
 "b": {"tool": "noop", "depends_on": ["a"]},
 "on_failure": {"tool": "echo", "args": {"why": "{{workflow.error}}"}}}
EOF
wait_run "$T_DIR/handler.json"
expect_rc 1 "a DAG run with on_failure still fails"
is "$(rows "$ID")" "a|failed
on_failure|done" "on_failure is no root of the DAG: it ran once, at the end"

# --- check: refusals with their paths ---------------------------------------------

check_says() {
	printf '%s\n' "$2" >"$T_DIR/bad.json"
	run_sluice check "$T_DIR/bad.json"
	expect_rc 2 "check refuses $1"
	like "$ERR" "$3" "$1: $3"
}

check_says "a cycle" '{"a": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": ["a", "d"]},
 "c": {"tool": "noop", "depends_on": ["b"]},
 "d": {"tool": "noop", "depends_on": ["c"]}}' \
    'bad.json:2:44: $.b.depends_on[1]: cycle: b → c → d → b'
check_says "a step depending on itself" '{"a": {"tool": "noop", "depends_on": ["a"]}}' \
    '$.a.depends_on[0]: cycle: a → a'
check_says "a mix of forms" '{"a": {"tool": "noop", "next": "b"},
 "b": {"tool": "noop", "depends_on": ["a"]}}' \
    '$.a.next: "next" cannot be used in a DAG flow (depends_on, first at $.b.depends_on)'
check_says "an unknown dependency" '{"a": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": [{"step": "aa", "if": "result == 1"}]}}' \
    '$.b.depends_on[0]: unknown step "aa" (did you mean "a"?)'
check_says "a repeated dependency" '{"a": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": ["a", "a"]}}' \
    '$.b.depends_on[1]: "a" is already a dependency of b'
check_says "a bad edge condition" '{"a": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": [{"step": "a", "if": "result =="}]}}' \
    '$.b.depends_on[0].if:'
check_says "a bad trigger" '{"a": {"tool": "noop"},
 "b": {"tool": "noop", "depends_on": ["a"], "trigger": "any"}}' \
    '$.b.trigger: expected "all_success" or "all_done"'
check_says "trigger outside the DAG form" '{"a": {"tool": "noop", "trigger": "all_done"}}' \
    '$.a.trigger: "trigger" belongs to the DAG form'
check_says "depends_on in a for-each's do" '{"a": {"tool": "noop"},
 "b": {"foreach": [1], "do": {"tool": "noop", "depends_on": ["a"]}}}' \
    '$.b.do'
check_says "an edge to an unknown node" '{"nodes": [{"step_name": "x", "tool": "noop"},
 {"step_name": "y", "tool": "noop"}],
 "edges": [{"from": "x", "to": "y"}, {"from": "y", "to": "x"},
  {"from": "x", "to": "z"}]}' \
    '$.edges[2].to: unknown node "z"'
check_says "a cycle of edges" '{"nodes": [{"step_name": "x", "tool": "noop"},
 {"step_name": "y", "tool": "noop"}],
 "edges": [{"from": "x", "to": "y"}, {"from": "y", "to": "x"}]}' \
    '$.edges[1]: cycle: x → y → x'
check_says "a node without step_name" '{"nodes": [{"tool": "noop"}]}' \
    '$.nodes[0]: missing "step_name"'
check_says "a bad timeout_s" '{"nodes": [{"step_name": "x", "tool": "noop", "timeout_s": "1m"}]}' \
    '$.nodes[0].timeout_s: expected a number of seconds'
check_says "a misspelt edge field" '{"nodes": [{"step_name": "x", "tool": "noop"}, {"step_name": "y", "tool": "noop"}],
 "edges": [{"from": "x", "to": "y", "conditon": "a"}]}' \
    '$.edges[0].conditon: unknown field "conditon" in an edge (did you mean "condition"?)'
check_says "a node mixing forms" '{"nodes": [{"step_name": "x", "tool": "noop", "next": "y"}, {"step_name": "y", "tool": "noop"}]}' \
    '$.nodes[0].next: "next" cannot be used in a DAG flow (the nodes and edges form)'
check_says "a dependency on a handler" '{"a": {"tool": "noop", "depends_on": ["finally"]},
 "finally": {"tool": "noop"}}' \
    '$.a.depends_on[0]: "finally" is the run'"'"'s "finally" handler'
run_sluice run "$T_DIR/bad.json"
expect_rc 2 "run refuses what check refuses"

done_testing
