#!/bin/sh
# tests/cli/commit-thread.sh: while short processes fan out, "sluice
# engine" makes a turn's commit on a thread of its own, and the loop goes
# on meanwhile: a process that ends frees its slot, which takes the next
# start committed earlier, while the ended step's row waits for the
# commit.  The test-only $SLUICE_TEST_COMMIT_HOLD holds the first such
# commit until a file exists.  Held: more processes run than there are
# slots, yet no step's process runs before its row is committed running,
# and no end is written.  Let go, each step has run once.  Killed -9
# while held: nothing the held commit recorded is kept or had started;
# the steps whose processes ended meanwhile are still running for the
# next engine, which applies their on_interrupt (retry), and every step
# ends done.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

need_test_build "its hold point"

db_init

# Every process notes its step's name and lasts 10 ms: brief, so starts
# are recorded ahead of the slots, yet long enough that processes still
# run when the group commit's 25 ms are up.  (A bare echo on a quiet host
# ends all 24 branches within the first 25 ms, and no commit is made while
# one runs, so none goes to the thread.)
ledger="$T_DIR/ledger"
: >"$ledger"
cat >"$T_DIR/tools.json" <<EOF
{"quick": {"shell": "echo \"\$SLUICE_STEP\" >>'$ledger'; sleep 0.01",
  "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF
export SLUICE_TOOLS="$T_DIR/tools.json"

# 24 quick branches, 2 slots: the starts are recorded ahead of the slots.
awk 'BEGIN {
	printf "{\"start\": {\"tool\": \"quick\", \"parallel\": ["
	for (i = 1; i <= 24; i++)
		printf "%s\"b%d\"", (i > 1 ? ", " : ""), i
	printf "]},\n"
	for (i = 1; i <= 24; i++)
		printf "\"b%d\": {\"tool\": \"quick\", \"join\": \"end\"},\n", i
	printf "\"end\": {\"tool\": \"quick\"}}\n"
}' >"$T_DIR/flow.json"

hold="$T_DIR/go"

# settled: the ledger has not grown for half a second.
settled() {
	_a=$(wc -l <"$ledger")
	sleep 0.5
	[ "$(wc -l <"$ledger")" -eq "$_a" ]
}

# ran_b: how many branch processes have run.
ran_b() {
	grep -c '^b' "$ledger"
}

# unstarted_ran: the steps whose process ran though no committed row
# says they started (running or ended); empty when none.
unstarted_ran() {
	q "SELECT name FROM workflow_steps WHERE workflow_id = $1 AND
	    status != 'ready' AND status != 'pending'" | sort -u \
	    >"$T_DIR/committed"
	sort -u "$ledger" | comm -23 - "$T_DIR/committed" | tr '\n' ' '
}

# --- a commit held on its thread, then let go ----------------------------------

run_sluice run "$T_DIR/flow.json"
expect_rc 0 "queue the fan-out"
ID=$(new_id)
SLUICE_TEST_COMMIT_HOLD=$hold engine_start -j 2
wait_for test -e "$hold.held"
ok $? "a commit is made on the thread, and held"
wait_for settled
n=$(ran_b)
ended=$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    name LIKE 'b%' AND status = 'done'")
ok "$([ "$n" -gt 2 ] && echo 0 || echo 1)" \
    "held: the slots went on taking committed starts ($n processes ran, 2 slots)"
is "$ended" 0 "held: no end is written while the commit is held"
is "$(unstarted_ran "$ID")" "" \
    "held: every process that ran has its row committed running"
touch "$hold"
wait_for wf_is "$ID" completed
ok $? "let go: the workflow completes"
is "$(ran_b):$(sort "$ledger" | uniq -d | wc -l)" "24:0" \
    "let go: each branch ran once"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID AND
    status = 'done' AND completed_at < started_at" 0 \
    "let go: each end is after its start"
engine_stop
is "$ERC" 0 "let go: the engine stops cleanly"
rm -f "$hold" "$hold.held"

# --- the engine dies while its commit is held ----------------------------------

: >"$ledger"
run_sluice run "$T_DIR/flow.json"
ID=$(new_id)
SLUICE_TEST_COMMIT_HOLD=$hold engine_start -j 2
wait_for test -e "$hold.held"
ok $? "crash: a commit is held on the thread"
wait_for settled
sort -u "$ledger" >"$T_DIR/before"
is "$(unstarted_ran "$ID")" "" \
    "crash: every process that ran has its row committed running"
engine_crash
engine_start -j 2
wait_for wf_is "$ID" completed
ok $? "crash: the next engine completes the workflow"
# Those that ran before the crash ran at most twice (their end was in
# the commit that never was: on_interrupt retry runs them again); the
# others once.
bad=$(sort "$ledger" | uniq -c | awk -v f="$T_DIR/before" '
	BEGIN { while ((getline l < f) > 0) before[l] = 1 }
	{ if ($1 > (($2 in before) ? 2 : 1)) printf "%s ", $2 }')
is "$bad" "" "crash: no step ran more often than its on_interrupt allows"
q_is "SELECT count(*) FROM workflow_steps s WHERE workflow_id = $ID AND
    name LIKE 'b%' AND status = 'done'" 24 \
    "crash: every branch ends done"
engine_stop

done_testing
