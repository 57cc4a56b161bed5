#!/bin/sh
# tests/pg/start-row.sh: tests/cli/start-row.sh's case on PostgreSQL (the
# store's other driver, whose ids for the turn are drawn ahead): the step
# a gate's approval starts in the same turn commits running, and its row
# says what the ready row and its start would have.  The engine is
# frozen between that turn's commit and the spawn (the test-only hold
# point "spawn") and killed -9; the next engine's recovery treats the row
# as interrupted (on_interrupt fail: it fails, never having run).

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

need_test_build "its hold point"
pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }
pg_standby || { echo "Bail out! the standby did not start"; exit 1; }
cd "$T_DIR" || exit 1

count="$T_DIR/count"

# pq SQL: the answer on the primary's sluice database.
pq() {
	pg_sql "$1"
}

run_sluice init "$PG_DB"
expect_rc 0 "init on a postgresql: database"
export SLUICE_DB="$PG_ENGINE_DB"
export SLUICE_SOCKET="$T_DIR/engine.sock"

cat >"$T_DIR/flow.json" <<EOF2
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["sh", "-c", "echo \$0 >>$count", "{{args.said}}"],
  "args": {"said": "{{workflow.id}}"}, "timeout": "90s",
  "on_interrupt": "fail"}}
EOF2
SLUICE_TEST_HOLD=spawn "$SLUICE" engine >"$T_DIR/engine.out" \
    2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
# engine_up: the engine row names the engine just started.
engine_up() {
	[ "$(pq "SELECT pid FROM engine")" = "$EPID" ]
}
wait_for engine_up
ok $? "an engine that holds before its first start runs"
run_sluice run "$T_DIR/flow.json"
expect_rc 0 "run a gate and a step"
ID=$OUT
# gate_waits: the engine took the run and its gate waits.
gate_waits() {
	[ "$(pq "SELECT status FROM workflow_steps WHERE workflow_id = $ID
	    AND name = 'start'")" = waiting ] && test -S "$SLUICE_SOCKET"
}
wait_for gate_waits
ok $? "its gate waits"
GATE=$(pq "SELECT id FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'start'")
"$SLUICE" approve "$GATE" >"$T_DIR/approve.out" 2>&1 </dev/null &
APID=$!
wait_for stopped "$EPID"
ok $? "the engine froze between the approval's commit and the start"
is "$(pq "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'after'")" 1 "the next step has one row"
is "$(pq "SELECT status, attempt, visit, parent_id = $GATE, pid IS NULL,
    pgid IS NULL, host IS NULL, completed_at IS NULL, kind, tool
    FROM workflow_steps WHERE workflow_id = $ID AND name = 'after'")" \
    "running|1|1|t|t|t|t|t|run|run" \
    "it is committed running, attempt 1, after the gate, no process yet"
is "$(pq "SELECT started_at IS NOT NULL, ready_at = created_at,
    started_at >= created_at, updated_at = started_at,
    timeout_at - started_at, started_at >= (SELECT completed_at
    FROM workflow_steps WHERE id = $GATE)
    FROM workflow_steps WHERE workflow_id = $ID AND name = 'after'")" \
    "t|t|t|t|90000|t" \
    "made and ready with the approval, started and timed from its start"
is "$(pq "SELECT args_json FROM workflow_steps WHERE workflow_id = $ID AND
    name = 'after'")" "{\"said\":$ID}" "its args are resolved"
engine_crash
kill "$APID" 2>/dev/null
wait "$APID" 2>/dev/null
[ ! -e "$count" ]
ok $? "killed -9 before the process started"

"$SLUICE" engine >"$T_DIR/engine2.out" 2>"$T_DIR/engine2.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
# run_failed: the run ended failed.
run_failed() {
	[ "$(pq "SELECT status FROM workflows WHERE id = $ID")" = failed ]
}
wait_for run_failed
ok $? "the next engine ends the run"
is "$(pq "SELECT status || ' ' || error FROM workflow_steps WHERE
    workflow_id = $ID AND name = 'after'")" \
    "failed interrupted: the engine stopped while it ran" \
    "recovery treats the running row as interrupted"
[ ! -e "$count" ]
ok $? "the step never ran"
engine_stop

done_testing
