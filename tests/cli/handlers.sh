#!/bin/sh
# tests/cli/handlers.sh: a run's "on_failure" and "finally" handlers
# (SPEC §3).  on_failure runs when the run would fail (a failed step
# with no handler, a branch with no match, a rejected gate with nothing
# after it) and the run still ends failed; finally runs after every end
# (completed, failed, cancelled, deadline); both see {{workflow.status}}
# and {{workflow.error}}; a handler that fails is recorded and the run
# ends failed; the run's end is announced once, after its handlers; a
# kill -9 of the engine while a handler runs, or while a deadline is
# pending, leaves the next engine to go on with it, once.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

out="$T_DIR/seen"
mkdir -p "$out"

# A handler that writes what it saw: {{workflow.status}} and the error.
seen() {
	printf '{"run": ["sh", "-c", "printf %%s\\\\|%%s \\"$1\\" \\"$2\\" >%s/%s.%s", "h", "{{workflow.status}}", "{{workflow.error}}"]}' \
	    "$out" "$1" "$2"
}

cat >"$T_DIR/fail.json" <<EOF
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": $(seen fail on_failure),
 "finally": $(seen fail finally)}
EOF
cat "$T_DIR/fail.json"
run_sluice check "$T_DIR/fail.json"
expect_rc 0 "a flow with handlers is valid"
like "$OUT" "1 step" "handlers are not counted as steps"
engine_start
run_sluice run "$T_DIR/fail.json"
ID=$OUT
wait_for wf_is "$ID" failed
ok $? "a failing run with handlers ends failed"
is "$(cat "$out/fail.on_failure")" "failed|step start failed: boom" \
    "on_failure saw the status and the error"
is "$(cat "$out/fail.finally")" "failed|step start failed: boom" \
    "finally too"
q_is "SELECT group_concat(step_key || ':' || status, ' ') FROM
    (SELECT * FROM workflow_steps WHERE workflow_id = $ID ORDER BY id)" \
    "start:failed on_failure:done finally:done" \
    "on_failure runs first, then finally, once each"
engine_stop
done_testing
