#!/bin/sh
# tests/cli/start-row.sh: a step that starts in the turn that makes it (a
# gate approved, its next step run at once) commits running in that turn,
# and that row must say everything the ready row and its start would
# have: one row, running, attempt and visit 1, its parent, created and
# ready when the turn made it, started and updated when it started, its
# timeout from that start, its args resolved, no process yet.  The
# engine is frozen right after that turn commits, before the process
# starts (the test-only hold point "spawn"), and killed -9;
# the next engine's recovery must treat the row as interrupted: with
# on_interrupt fail it fails, never having run; with retry its second
# attempt runs, once.  A step made ready whose start does not come in its
# turn (its slot taken) is still written ready and started later.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

need_test_build "its hold point"

count="$T_DIR/count"

# flow ON_INTERRUPT SAID: a gate, then a step that counts its runs, its
# args' "said" interpolated from SAID.
flow() {
	cat >"$T_DIR/flow-$1.json" <<EOF2
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["sh", "-c", "echo \$0 >>$count", "{{args.said}}"],
  "args": {"said": "$2"},
  "timeout": "90s", "on_interrupt": "$1",
  "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF2
}

# runs: how many times the step ran.
runs() {
	if [ -f "$count" ]; then wc -l <"$count" | tr -d ' '; else echo 0; fi
}

# frozen_after ON_INTERRUPT SAID ARGS: queue the flow, approve its gate
# through an engine that freezes before the next step's process starts,
# check the row (its args ARGS, where @ID is the run's id), kill it -9.
frozen_after() {
	rm -f "$count"
	flow "$1" "$2"
	run_sluice run "$T_DIR/flow-$1.json"
	ID=$(new_id)
	held_engine spawn
	wait_for step_is "$ID" start waiting
	ok $? "$1: the gate waits"
	GATE=$(step_id "$ID" start)
	"$SLUICE" approve "$GATE" >"$T_DIR/approve.out" 2>&1 </dev/null &
	APID=$!
	wait_for stopped "$EPID"
	ok $? "$1: the engine froze between the approval's commit and the start"
	q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
	    name = 'after'" 1 "$1: the next step has one row"
	q_is "SELECT status, attempt, visit, parent_id = $GATE, pid IS NULL,
	    pgid IS NULL, host IS NULL, completed_at IS NULL, kind, tool
	    FROM workflow_steps WHERE workflow_id = $ID AND name = 'after'" \
	    "running|1|1|1|1|1|1|1|run|run" \
	    "$1: it is committed running, attempt 1, after the gate, no process yet"
	q_is "SELECT started_at IS NOT NULL, ready_at = created_at,
	    started_at >= created_at, updated_at = started_at,
	    timeout_at - started_at,
	    started_at >= (SELECT completed_at FROM workflow_steps
	    WHERE id = $GATE)
	    FROM workflow_steps WHERE workflow_id = $ID AND name = 'after'" \
	    "1|1|1|1|90000|1" \
	    "$1: made and ready with the approval, started and timed from its start"
	q_is "SELECT args_json FROM workflow_steps WHERE workflow_id = $ID AND
	    name = 'after'" \
	    "$(echo "$3" | sed "s/@ID/$ID/")" \
	    "$1: its args are resolved"
	engine_crash
	kill "$APID" 2>/dev/null
	wait "$APID" 2>/dev/null
	is "$(runs)" 0 "$1: killed -9 before the process started"
}

# --- on_interrupt fail: recovery fails the row; it never ran ----------------

# The args read only the run.
frozen_after fail "{{workflow.id}}" '{"said":@ID}'
engine_start
wait_for wf_ended "$ID"
ok $? "fail: the next engine ends the run"
q_is "SELECT status || ' ' || error FROM workflow_steps WHERE
    workflow_id = $ID AND name = 'after'" \
    "failed interrupted: the engine stopped while it ran" \
    "fail: recovery treats the running row as interrupted"
q_is "SELECT status FROM workflows WHERE id = $ID" failed \
    "fail: the run fails"
is "$(runs)" 0 "fail: the step never ran"
engine_stop

# --- on_interrupt retry: a second attempt runs, once ------------------------

# The args read the gate's row (the read must find it): the same row.
frozen_after retry "{{steps.start.result}}" '{"said":"approved"}'
engine_start
wait_for wf_is "$ID" completed
ok $? "retry: the next engine completes the run"
q_is "SELECT attempt || ' ' || status || ' ' || ifnull(error, '-')
    FROM workflow_steps WHERE workflow_id = $ID AND name = 'after'
    ORDER BY id" "1 failed interrupted: the engine stopped while it ran
2 done -" "retry: the interrupted attempt counts; the second ran"
is "$(runs)" 1 "retry: the step ran once"
q_is "SELECT started_at IS NOT NULL AND updated_at >= started_at
    AND completed_at >= started_at FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'after' AND attempt = 2" 1 \
    "retry: the second attempt's times are in order"
engine_stop

# --- a ready step whose slot is taken is written ready, and starts later ----

cat >"$T_DIR/slots.json" <<EOF2
{"start": {"run": ["sh", "-c", "while [ ! -f $T_DIR/go ]; do sleep 0.05; done"],
  "next": "after"},
 "after": {"run": ["true"]}}
EOF2
run_sluice run "$T_DIR/flow-fail.json"
GID=$(new_id)
engine_start -j 1
wait_for step_is "$GID" start waiting
GATE=$(step_id "$GID" start)
run_sluice run "$T_DIR/slots.json"
SID=$(new_id)
wait_for step_is "$SID" start running
ok $? "slots: a long step takes the one slot"
run_sluice approve "$GATE"
expect_rc 0 "slots: the gate is approved"
q_is "SELECT status, started_at IS NULL, ready_at = created_at
    FROM workflow_steps WHERE workflow_id = $GID AND name = 'after'" \
    "ready|1|1" "slots: its next step waits ready for the slot"
touch "$T_DIR/go"
wait_for wf_is "$GID" completed
ok $? "slots: it runs once the slot frees"
q_is "SELECT started_at >= ready_at, updated_at >= started_at
    FROM workflow_steps WHERE workflow_id = $GID AND name = 'after'" \
    "1|1" "slots: started after it was made ready"
wait_for wf_is "$SID" completed
ok $? "slots: the long run completes"
engine_stop

done_testing
