#!/bin/sh
# tests/cli/ahead.sh: starts recorded ahead of the job slots.  While
# processes end briefly, the engine records the next ones running before a
# slot is free, so their rows commit while the slots' processes run and a
# slot that frees is filled at once.  Such a row is committed running with
# no process yet (the rule holds: no process without its row); its start
# and timeout count from when its process really started; and if the
# engine dies before that, recovery treats it as any interrupted step
# (on_interrupt retry: a failed attempt, then it runs again), the step runs
# once, and its lane-mates' leftovers are killed.  A step whose
# on_interrupt is ask or fail is never recorded ahead: it waits ready for
# a slot, so a crash never asks about a step that did not start.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

db_init

# Every process notes its start; a "slow" step's first attempt holds its
# slot until $T_DIR/release exists.
ledger="$T_DIR/ledger"
: >"$ledger"
cat >"$T_DIR/tools.json" <<EOF
{"quick": {"shell": "printf 'start %s %s\\\\n' \"\$SLUICE_STEP\" \"\$SLUICE_ATTEMPT\" >>'$ledger'",
  "retry": {"max_attempts": 2, "backoff": ["0s"]}},
 "slow": {"shell": "printf 'start %s %s\\\\n' \"\$SLUICE_STEP\" \"\$SLUICE_ATTEMPT\" >>'$ledger'; [ \"\$SLUICE_ATTEMPT\" -gt 1 ] || while [ ! -e '$T_DIR/release' ]; do sleep 0.05; done",
  "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF
export SLUICE_TOOLS="$T_DIR/tools.json"

# A brief first step (so the engine starts ahead), then two slow branches
# that take both slots of -j 2, a quick one recorded behind them and one
# that must not run twice, which waits ready.
cat >"$T_DIR/flow.json" <<'EOF'
{"start": {"tool": "quick", "parallel": ["slow1", "slow2", "b1", "b2"]},
 "slow1": {"tool": "slow", "join": "end"},
 "slow2": {"tool": "slow", "join": "end"},
 "b1": {"tool": "quick", "timeout": "60s", "join": "end"},
 "b2": {"tool": "quick", "on_interrupt": "ask", "join": "end"},
 "end": {"tool": "quick"}}
EOF

# started STEP: how many times STEP's process started.
started() {
	grep -c "^start $1 " "$ledger"
}

# ahead_rows WF: b1 is committed running with no process, b2 (on_interrupt
# ask) waits ready, while slow1 and slow2 run with theirs recorded.
ahead_rows() {
	[ "$(q "SELECT group_concat(name || ' ' || status || ' ' ||
	    (pid IS NULL), ',') FROM (SELECT * FROM workflow_steps
	    WHERE workflow_id = $1 AND name != 'start' ORDER BY name)")" = \
	    "b1 running 1,b2 ready 1,slow1 running 0,slow2 running 0" ]
}

# --- recorded ahead, started when a slot frees ---------------------------------

run_sluice run "$T_DIR/flow.json"
expect_rc 0 "queue the fan-out"
ID=$(new_id)
engine_start -j 2
wait_for ahead_rows "$ID"
ok $? "with both slots taken, the next step is committed running, no process yet; an ask step waits ready"
wait_for test "$(started slow2)" -eq 1
is "$(started b1):$(started b2)" "0:0" "their processes have not started"
touch "$T_DIR/release"
wait_for wf_is "$ID" completed
ok $? "they start as the slots free, and the workflow completes"
is "$(started b1):$(started b2):$(started end)" "1:1:1" "each ran once"
got=$(q "SELECT count(*) FROM workflow_steps b WHERE b.workflow_id = $ID
    AND b.name IN ('b1', 'b2') AND b.started_at >= (SELECT
    min(completed_at) FROM workflow_steps s WHERE s.workflow_id = $ID AND
    s.name IN ('slow1', 'slow2'))")
is "$got" 2 "their start is when their process started, after a slot freed"
q_is "SELECT timeout_at - started_at FROM workflow_steps
    WHERE workflow_id = $ID AND name = 'b1'" 60000 \
    "a timeout counts from that start"
engine_stop
rm -f "$T_DIR/release"

# --- the engine dies while they wait for a slot ---------------------------------

: >"$ledger"
run_sluice run "$T_DIR/flow.json"
ID=$(new_id)
engine_start -j 2
wait_for ahead_rows "$ID"
ok $? "crash: a step waits, committed, for a slot; the ask step waits ready"
wait_for test "$(started slow2)" -eq 1
SLOWPG=$(q "SELECT group_concat(pgid, ' ') FROM workflow_steps
    WHERE workflow_id = $ID AND name LIKE 'slow%'")
engine_crash
is "$(started b1):$(started b2)" "0:0" "crash: killed -9 before their processes started"
engine_start -j 2
wait_for wf_is "$ID" completed
ok $? "crash: the workflow completes"
q_is "SELECT status || ' ' || error FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'b1' AND attempt = 1" \
    "failed interrupted: the engine stopped while it ran" \
    "crash: on_interrupt retry: b1's attempt counts as interrupted"
is "$(started b1):$(started b2)" "1:1" "crash: b1 and b2 each ran once, under the next engine"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'b2'" 1 "crash: b2 (on_interrupt ask) has one row: nobody was asked about it"
q_is "SELECT attempt || ' ' || status FROM workflow_steps WHERE
    workflow_id = $ID AND name = 'b1' ORDER BY id" "1 failed
2 done" "crash: b1's second attempt is the one that ran"
is "$(started slow1):$(started slow2)" "2:2" \
    "crash: the slow steps ran again once each"
# group_alive PGID: a live process (not a zombie) in group PGID.
group_alive() {
	ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 }
	    END { exit !f }'
}
left=
for g in $SLOWPG; do
	group_alive "$g" && left="$left $g"
done
is "$left" "" "crash: the first engine's slow processes were killed"
engine_stop

done_testing
