#!/bin/sh
# tests/cli/lease.sh: a superseded engine never starts a process.  An
# engine is frozen (the test-only hold point "spawn": after the turn that
# records a step running has committed, before its process starts); then
# DB.lock is removed and a second engine takes over and runs the step, or
# the epoch moves on, or only the lock file goes.  Let go, the frozen
# engine must stop with "another engine took over" and start nothing: the
# step's own counter file says how often it ran.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

need_test_build "its hold point"

count="$T_DIR/count"
cat >"$T_DIR/flow.json" <<EOF2
{"start": {"shell": "echo \$SLUICE_ATTEMPT >>$count",
  "retry": {"max_attempts": 3, "backoff": ["0s"]}}}
EOF2

# runs: how many times the step ran (lines in its counter file).
runs() {
	if [ -f "$count" ]; then wc -l <"$count" | tr -d ' '; else echo 0; fi
}

# frozen_engine: queue the flow and start an engine that freezes just
# before its first process start; $APID, $ID.
frozen_engine() {
	: >"$count"
	"$SLUICE" run "$T_DIR/flow.json" >/dev/null 2>&1 </dev/null
	ID=$(new_id)
	SLUICE_TEST_HOLD=spawn "$SLUICE" engine >"$T_DIR/a.out" \
	    2>"$T_DIR/a.err" </dev/null &
	APID=$!
	ENGINES="$ENGINES $APID"
	wait_for stopped "$APID"
	ok $? "$1: the engine froze before the start"
	q_is "SELECT status, pid IS NULL FROM workflow_steps WHERE
	    workflow_id = $ID" "running|1" \
	    "$1: its step is committed running, with no process yet"
}

# thaw WHAT: let the frozen engine go; it must stop, having started nothing.
thaw() {
	kill -CONT "$APID"
	wait_for dead "$APID"
	ok $? "$1: the superseded engine stops"
	kill -9 "$APID" 2>/dev/null
	wait "$APID"
	arc=$?
	[ "$arc" -ne 0 ]
	ok $? "$1: the superseded engine exits with an error ($arc)"
	like "$(cat "$T_DIR/a.err")" "another engine took over" \
	    "$1: it says another engine took over"
	like "$(cat "$T_DIR/a.err")" "not started" \
	    "$1: it says it started nothing"
}

# --- a second engine takes over and runs the step ---------------------------

frozen_engine "take-over"
rm -f "$SLUICE_DB.lock"
engine_start
ok $? "take-over: a second engine starts once DB.lock is gone"
wait_for wf_is "$ID" completed
ok $? "take-over: the second engine runs the workflow to its end"
is "$(runs)" 1 "take-over: the step ran once, under the second engine"
engine_stop
thaw "take-over"
is "$(runs)" 1 "take-over: the frozen engine did not run it again"
q_is "SELECT status FROM workflows WHERE id = $ID" completed \
    "take-over: the workflow stays completed"

# --- the epoch moved on, the lock file is the same ------------------------

frozen_engine "epoch"
q "UPDATE engine SET epoch = epoch + 1"
thaw "epoch"
is "$(runs)" 0 "epoch: nothing ran"

# --- only the lock file went: a new engine could lock a new one -----------

rm -f "$SLUICE_DB.lock"
frozen_engine "lock file"
rm -f "$SLUICE_DB.lock"
thaw "lock file"
is "$(runs)" 0 "lock file: nothing ran"

# And the rows wait for the next engine, which runs each once.
: >"$count"
engine_start
wait_for sh -c "[ \"\$(sqlite3 -cmd '.timeout 5000' '$SLUICE_DB' \
    \"SELECT count(*) FROM workflows WHERE status <> 'completed'\")\" = 0 ]"
ok $? "the next engine completes the held workflows"
is "$(runs)" 2 "each held step ran once"
engine_stop
is "$ERC" 0 "that engine stops cleanly"

done_testing
