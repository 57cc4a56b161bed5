#!/bin/sh
# tests/cli/steps-shown.sh: steps.* as the engine keeps it between scopes
# (src/engine/finished.c): a step's latest finished row, found again after
# many passes of a loop, and a row still running when one scope was made,
# shown by a later scope once it has ended.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# --- the latest pass of a loop ------------------------------------------------

cat >"$T_DIR/loop.json" <<'EOF'
{"start": {"tool": "noop", "next": "a"},
 "a": {"tool": "echo", "args": {"n": "{{steps.a.result.n}}x"},
   "max_visits": 40,
   "branch": [{"if": "result.n == \"xxxxxxxxxxxxxxxxxxxxxxxxx\"",
     "then": "b"}, {"else": "a"}]},
 "b": {"tool": "echo", "args": {"last": "{{steps.a.result.n}}",
   "status": "{{steps.a.status}}"}}}
EOF
wait_run "$T_DIR/loop.json"
expect_rc 0 "a loop reading its own last pass completes"
is "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'a'")" 25 "it ran 25 passes, each one x longer"
is "$(col "$ID" b result_json)" \
    '{"last":"xxxxxxxxxxxxxxxxxxxxxxxxx","status":"done"}' \
    "after the loop steps.a is its latest pass"

# --- a row that ends after a scope saw it running -----------------------------

cat >"$T_DIR/late.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["slow", "f1"], "join": "j"},
 "slow": {"run": ["sh", "-c", "sleep 0.6; echo '{\"w\": \"slow\"}'"]},
 "f1": {"tool": "echo", "args": {"v": "one"}, "next": "f2"},
 "f2": {"tool": "echo", "args": {"v": "{{steps.f1.result.v}}"},
   "next": "f3"},
 "f3": {"tool": "sleep", "args": {"seconds": 1.5}, "next": "f4"},
 "f4": {"tool": "echo", "args": {"slow": "{{steps.slow.result.w}}",
   "f2": "{{steps.f2.result.v}}"}},
 "j": {"tool": "echo", "args": {"s": "{{steps.slow.status}}",
   "f": "{{steps.f4.result.slow}}"}}}
EOF
wait_run "$T_DIR/late.json"
expect_rc 0 "a fan-out with a slow branch completes"
is "$(q "SELECT (SELECT completed_at FROM workflow_steps WHERE
    workflow_id = $ID AND name = 'slow') >
    (SELECT completed_at FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'f2')")" 1 "the slow branch was still running when f2 read steps.*"
is "$(col "$ID" f4 result_json)" '{"slow":"slow","f2":"one"}' \
    "a later scope shows the slow step once it ended"
is "$(col "$ID" j result_json)" '{"s":"done","f":"slow"}' \
    "and so does the join's"

done_testing
