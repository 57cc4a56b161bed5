#!/bin/sh
# run-counts.sh: the runs per status that "sluice status" and the
# console's header read (run_counts, schema 16, kept by triggers) are
# the rows' own counts after every way a run comes, changes status and
# goes: started, completed, failed, cancelled, scheduled, waiting at a
# gate, changed and deleted by hand with sqlite3, and after the upgrade
# of a database of schema 15 that already held runs.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# counted: the triggers' counts; actual: the rows' (both "status n ...").
counted() {
	q "SELECT group_concat(status || ' ' || n, ' ') FROM (SELECT status,
	    n FROM run_counts WHERE n <> 0 ORDER BY status)"
}
actual() {
	q "SELECT group_concat(status || ' ' || n, ' ') FROM (SELECT status,
	    count(*) AS n FROM workflows GROUP BY status ORDER BY status)"
}

# same WHAT: one case, the counts equal the rows'.
same() {
	is "$(counted)" "$(actual)" "$1: the counts are the rows'"
}

printf '{"start": {"tool": "noop"}}\n' >"$T_DIR/ok.json"
printf '{"start": {"run": ["false"]}}\n' >"$T_DIR/bad.json"
printf '{"start": {"gate": {"message": "go?"}}}\n' >"$T_DIR/gate.json"

is "$(counted)" "" "a new database counts no runs"

wait_run "$T_DIR/ok.json"
wait_run "$T_DIR/ok.json"
wait_run "$T_DIR/bad.json"
same "two completed, one failed"
like "$(counted)" "completed 2" "completed ones are counted"
like "$(counted)" "failed 1" "a failed one is counted"

run_sluice run "$T_DIR/ok.json" --at "in 2 hours"
expect_rc 0 "a run for later"
same "a scheduled run"
like "$(counted)" "scheduled 1" "it is counted as scheduled"

engine_start
run_sluice run "$T_DIR/gate.json"
gate=$(new_id)
wait_for step_is "$gate" start waiting
run_sluice run "$T_DIR/gate.json"
wait_for step_is "$(new_id)" start waiting
same "two runs at their gates"
run_sluice cancel "$gate"
expect_rc 0 "one of them cancelled"
wait_for test "$(q "SELECT status FROM workflows WHERE id = $gate")" = \
    cancelled
same "a cancelled run"
like "$(counted)" "cancelled 1" "it is counted as cancelled"
engine_stop

run_sluice status
like "$OUT" "2 completed, 1 failed, 1 cancelled" \
    "status reads the same counts"

q "UPDATE workflows SET status = 'failed' WHERE status = 'completed'"
same "a status changed by hand"
q "DELETE FROM workflows WHERE status = 'cancelled'"
same "a run deleted by hand"
q "UPDATE workflows SET updated_at = updated_at + 1"
same "an update that leaves the status alone"

# A database of schema 15 holding runs: the upgrade counts them.
q "DROP TRIGGER run_counts_insert; DROP TRIGGER run_counts_update;
    DROP TRIGGER run_counts_delete; DROP TABLE run_counts; DROP TABLE nodes;
    ALTER TABLE audit DROP COLUMN node; ALTER TABLE inbox DROP COLUMN node;
    PRAGMA user_version = 15"
run_sluice init
expect_rc 0 "a database of schema 15 upgrades"
is "$(q "PRAGMA user_version")" 20 "to the newest schema"
same "after the upgrade"
[ -n "$(counted)" ]
ok $? "the runs already there are counted"
wait_run "$T_DIR/ok.json"
same "a run after the upgrade"

done_testing
