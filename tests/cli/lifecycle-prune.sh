#!/bin/sh
# lifecycle-prune.sh: "sluice prune" removes old finished runs with their
# steps, logs and child runs, never an unfinished run or a child of one,
# never the audit trail (which still verifies); --dry-run changes nothing;
# operators only; and the site's "retention" makes the engine prune daily.
# Runs are made old with the test clock.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/clock-lib.sh"

need_test_clock
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
DAY=86400000

cat >"$T_DIR/ok.json" <<'J'
{"start": {"shell": "echo out; echo err >&2", "next": "b"},
 "b": {"tool": "noop"}}
J
cat >"$T_DIR/boom.json" <<'J'
{"start": {"tool": "fail", "args": {"message": "boom"},
  "retry": {"max_attempts": 1}}}
J
cat >"$T_DIR/gate.json" <<'J'
{"start": {"gate": {"message": "go?"}}}
J
cat >"$T_DIR/each.json" <<'J'
{"start": {"foreach": ["a", "b", "c"], "do": {"tool": "echo",
  "args": {"x": "{{item}}"}}}}
J
cat >"$T_DIR/child.json" <<'J'
{"start": {"tool": "echo", "args": {"c": 1}}}
J
cat >"$T_DIR/parent.json" <<'J'
{"start": {"workflow": "child", "next": "wait"},
 "wait": {"gate": {"message": "after the child"}}}
J
cat >"$T_DIR/parent-done.json" <<'J'
{"start": {"workflow": "child"}}
J

# n_wf: how many workflows there are.
n_wf() {
	q "SELECT count(*) FROM workflows"
}

# gone ID: workflow ID is no more.
gone() {
	[ "$(q "SELECT count(*) FROM workflows WHERE id = $1")" = 0 ]
}

# --- old runs, finished and not -----------------------------------------------

clock_offset 0
run_sluice template save child "$T_DIR/child.json"
wait_run "$T_DIR/ok.json"; OK=$ID
wait_run "$T_DIR/boom.json"; BOOM=$ID
wait_run "$T_DIR/each.json"; EACH=$ID
wait_run "$T_DIR/parent-done.json"
PDONE=$(q "SELECT max(id) FROM workflows WHERE parent_id IS NULL")
PDONE_CHILD=$(q "SELECT id FROM workflows WHERE parent_id = $PDONE")
engine_start
run_sluice run "$T_DIR/gate.json"; CANC=$OUT
run_sluice cancel "$CANC"
run_sluice run "$T_DIR/gate.json"; WAITING=$OUT
run_sluice run "$T_DIR/parent.json"; PWAIT=$OUT
wait_for step_is "$PWAIT" wait waiting
PWAIT_CHILD=$(q "SELECT id FROM workflows WHERE parent_id = $PWAIT")
wait_for wf_ended "$CANC"
engine_stop
is "$(q "SELECT status FROM workflows WHERE id = $PWAIT_CHILD")" completed \
    "(the waiting parent's child has completed)"
is "$(q "SELECT count(*) FROM step_logs WHERE step_id IN (SELECT id FROM
    workflow_steps WHERE workflow_id = $OK)")" 2 "(the ok run has logs)"

# Ten days later, one more finished run: recent.
clock_offset $((10 * DAY))
wait_run "$T_DIR/ok.json"; RECENT=$ID
audit_before=$(q "SELECT count(*) FROM audit WHERE action NOT LIKE 'prune%'")
audit_ok=$(q "SELECT count(*) FROM audit WHERE workflow_id = $OK")
total=$(n_wf)

# --- dry run ----------------------------------------------------------------------

before=$(db_digest)
run_sluice prune --older-than 7d --dry-run
expect_rc 0 "prune --dry-run"
for id in $OK $BOOM $EACH $PDONE $CANC; do
	like "$OUT" "$(printf '\n%-4s' "$id")" "the dry run lists run $id"
done
for id in $WAITING $PWAIT $PWAIT_CHILD $RECENT $PDONE_CHILD; do
	unlike "$OUT" "$(printf '\n%-6s' "$id")" "it does not list run $id"
done
like "$OUT" "would remove 6 runs" "it counts the child run with its parent"
like "$OUT" "nothing was changed" "and says nothing changed"
is "$(db_digest)" "$before" "and nothing did"
run_sluice prune --older-than 7d --dry-run --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.total.runs') FROM d")" 6 \
    "--json: the total"
is "$(json_query "$OUT" "SELECT group_concat(json_extract(value, '\$.id'))
    FROM d, json_each(json_extract(j, '\$.workflows'))")" \
    "$OK,$BOOM,$EACH,$PDONE,$CANC" "--json: the runs, oldest first"

# --- bad usage ---------------------------------------------------------------------

run_sluice prune
expect_rc 2 "prune needs --older-than"
run_sluice prune --older-than soon
expect_rc 2 "a bad duration is refused"
like "$ERR" "--older-than: \"soon\"" "saying which"
is "$(db_digest)" "$before" "nothing changed"

# --- only operators ----------------------------------------------------------------

echo '{"operators": ["nobody-here"]}' >"$SLUICE_SITE_CONFIG"
run_sluice prune --older-than 7d
expect_rc 4 "someone who is not an operator may not prune"
like "$ERR" "is not an operator" "saying why"
is "$(n_wf)" "$total" "nothing was removed"
rm -f "$SLUICE_SITE_CONFIG"

# --- the prune, through a running engine --------------------------------------

engine_start
run_sluice prune --older-than 7d
expect_rc 0 "prune through the engine"
like "$OUT" "removed 6 runs" "it says how many runs went"
is "$(n_wf)" "$((total - 6))" "they are gone"
for id in $OK $BOOM $EACH $PDONE $PDONE_CHILD $CANC; do
	q_is "SELECT count(*) FROM workflows WHERE id = $id" 0 "run $id is gone"
	q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $id" 0 \
	    "with its steps"
done
for id in $WAITING $PWAIT $PWAIT_CHILD $RECENT; do
	q_is "SELECT count(*) FROM workflows WHERE id = $id" 1 "run $id stays"
done
q_is "SELECT count(*) FROM step_logs WHERE step_id NOT IN
    (SELECT id FROM workflow_steps)" 0 "no log rows are left behind"
q_is "SELECT count(*) FROM workflow_steps WHERE item_of IS NOT NULL AND
    item_of NOT IN (SELECT id FROM workflow_steps)" 0 \
    "no for-each item rows are left behind"
q_is "PRAGMA foreign_key_check" "" "no reference is left dangling"
is "$(q "SELECT count(*) FROM audit WHERE action NOT LIKE 'prune%'")" \
    "$audit_before" "the audit trail keeps every row"
[ "$audit_ok" -gt 0 ]
ok $? "(the ok run has audit rows: $audit_ok)"
q_is "SELECT count(*) FROM audit WHERE workflow_id = $OK" "$audit_ok" \
    "the rows that name a pruned run stay"
is "$(q "SELECT json_extract(detail_json, '\$.runs') FROM audit
    WHERE action = 'prune'")" 6 "a prune audit row says how many runs went"
is "$(q "SELECT who FROM audit WHERE action = 'prune'")" "$(id -un)" \
    "and who pruned"
run_sluice audit --verify
expect_rc 0 "the audit trail verifies after the prune"
run_sluice list --json
is "$(json_query "$OUT" "SELECT count(*) FROM d, json_each(j)
    WHERE json_extract(value, '\$.id') = $OK")" 0 \
    "list no longer shows a pruned run"
run_sluice show "$WAITING"
expect_rc 0 "the unfinished run is whole"
run_sluice approve "$(step_id "$WAITING" start)" -m ok
expect_rc 0 "and goes on"
wait_for wf_ended "$WAITING"
engine_stop

# --- again, with no engine: the command applies itself ---------------------------

run_sluice prune --older-than 7d --json
expect_rc 0 "a second prune, with no engine"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.removed.runs') FROM d")" 0 \
    "removes nothing: the rest is recent or unfinished"
run_sluice prune --older-than 0s
expect_rc 0 "prune --older-than 0s"
like "$OUT" "removed 2 runs" "removes every finished run (and only those)"
q_is "SELECT count(*) FROM workflows WHERE id IN ($PWAIT, $PWAIT_CHILD)" 2 \
    "the unfinished parent and its finished child stay"
run_sluice audit --verify
expect_rc 0 "the audit trail still verifies"

# --- many runs go in batches ------------------------------------------------------

i=0
while [ $i -lt 250 ]; do
	echo "INSERT INTO workflows (updated_at, name, flow_json, status,
	    created_by, created_at, completed_at) VALUES (1, 'bulk', '{}',
	    'completed', 'x', 1, 1);"
	i=$((i + 1))
done | sqlite3 "$SLUICE_DB"
engine_start
run_sluice prune --older-than 1d
expect_rc 0 "250 runs through the engine"
like "$OUT" "removed 250 runs" "all of them"
is "$(q "SELECT sum(json_extract(detail_json, '\$.runs')) FROM audit
    WHERE action = 'prune' AND json_extract(detail_json, '\$.before') =
    (SELECT json_extract(detail_json, '\$.before') FROM audit
    WHERE action = 'prune' ORDER BY id DESC LIMIT 1)")" 250 \
    "in batches, each audited"
engine_stop

# old_families N: N old finished families (a run whose sub-workflow step
# names its child run, and the child naming that step).
old_families() {
	_w0=$(q "SELECT max(id) FROM workflows")
	_s0=$(q "SELECT max(id) FROM workflow_steps")
	sqlite3 "$SLUICE_DB" <<S
BEGIN;
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n
    WHERE k < $1)
INSERT INTO workflows (id, updated_at, name, flow_json, status, created_by,
    created_at, completed_at, parent_id, parent_step_id, depth)
SELECT $_w0 + 2 * k - 1, 1, 'old', '{}', 'completed', 'x', 1, 1, NULL, NULL, 0
    FROM n
UNION ALL SELECT $_w0 + 2 * k, 1, 'old-child', '{}', 'completed', 'x', 1, 1,
    $_w0 + 2 * k - 1, $_s0 + 2 * k - 1, 1 FROM n;
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n
    WHERE k < $1)
INSERT INTO workflow_steps (id, updated_at, workflow_id, name, status,
    step_key, kind, created_at, child_id)
SELECT $_s0 + 2 * k - 1, 1, $_w0 + 2 * k - 1, 'start', 'done', 'start',
    'workflow', 1, $_w0 + 2 * k FROM n
UNION ALL SELECT $_s0 + 2 * k, 1, $_w0 + 2 * k, 'start', 'done', 'start',
    'tool', 1, NULL FROM n;
COMMIT;
S
}

# --- commands go on while a prune runs ------------------------------------------
# 6,000 old families (a run whose sub-workflow step names its child run,
# and the child naming that step) and eight gates waiting: the gates are
# approved while the prune goes, each answered as applied, and every one
# goes on.  A prune that held the engine past a command's wait fails this.

NFAM=6000
old_families $NFAM
q_is "PRAGMA foreign_key_check" "" "(the old families are whole)"
engine_start
GATES=
for i in 1 2 3 4 5 6 7 8; do
	run_sluice run "$T_DIR/gate.json"
	GATES="$GATES $OUT"
done
for w in $GATES; do
	wait_for step_is "$w" start waiting
done
first_prune=$(q "SELECT coalesce(max(id), 0) FROM audit")
# prune_began: the engine has audited the prune's first batch.
prune_began() {
	[ "$(q "SELECT count(*) FROM audit WHERE action = 'prune' AND
	    id > $first_prune")" -gt 0 ]
}
"$SLUICE" prune --older-than 1d >"$T_DIR/prune.out" 2>"$T_DIR/prune.err" &
PRUNE=$!
wait_for prune_began
for w in $GATES; do
	g=$(step_id "$w" start)
	run_sluice approve "$g" -m "during the prune"
	expect_rc 0 "approving gate $g while the prune goes"
	is "$OUT" "approved step $g (start)" "answered as applied"
done
wait "$PRUNE"
is "$?" 0 "the prune exits 0"
like "$(cat "$T_DIR/prune.out")" "removed $((2 * NFAM)) runs" \
    "and removed every old run"
is "$(cat "$T_DIR/prune.err")" "" "saying nothing on stderr (not a terminal)"
for w in $GATES; do
	wait_for wf_ended "$w"
	q_is "SELECT status FROM workflows WHERE id = $w" completed \
	    "run $w went on after its approval"
done
last_prune=$(q "SELECT max(id) FROM audit WHERE action = 'prune'")
[ "$(q "SELECT count(*) FROM audit WHERE action = 'approve' AND
    id > $first_prune AND id < $last_prune")" -gt 0 ]
ok $? "the approvals were applied between the prune's batches"
q_is "PRAGMA foreign_key_check" "" "no reference is left dangling"
engine_stop

# --- a request that comes during a batch ends it ---------------------------------
# A batch may take a minute here (SLUICE_TEST_PRUNE_MS), and the engine
# stops itself after the first slice of 8 top-level runs (SLUICE_TEST_HOLD);
# an approval sent meanwhile is waiting when it goes on: the batch ends at
# that slice (8 families, 16 runs), the approval is applied and answered
# as applied while the prune goes on, and the prune then removes the rest.
# A batch that ran its minute out removes all 2,000 families at once.

NFAM=2000
old_families $NFAM
export SLUICE_TEST_PRUNE_MS=60000
held_engine prune
unset SLUICE_TEST_PRUNE_MS
run_sluice run "$T_DIR/gate.json"
G=$OUT
wait_for step_is "$G" start waiting
first_prune=$(q "SELECT coalesce(max(id), 0) FROM audit")
"$SLUICE" prune --older-than 1d >"$T_DIR/prune.out" 2>"$T_DIR/prune.err" &
PRUNE=$!
wait_for stopped "$EPID"
ok $? "(the engine stopped itself after a prune batch's first slice)"
"$SLUICE" approve "$(step_id "$G" start)" -m "during a batch" \
    >"$T_DIR/approve.out" 2>"$T_DIR/approve.err" &
APPROVE=$!
# approve_sent: the approval's connection waits to be taken.
approve_sent() {
	[ "$(ss -xlH src "$SLUICE_DB.sock" | awk '{ print $3 }')" -gt 0 ]
}
if command -v ss >/dev/null; then
	wait_for approve_sent
fi
sleep 0.5	# and its request is written (it sends at once)
kill -CONT "$EPID"
wait "$APPROVE"
is "$?" 0 "the approval sent during the batch exits 0"
is "$(cat "$T_DIR/approve.out")" "approved step $(step_id "$G" start) (start)" \
    "answered as applied"
wait "$PRUNE"
is "$?" 0 "the prune exits 0"
like "$(cat "$T_DIR/prune.out")" "removed $((2 * NFAM)) runs" \
    "and removed every old run"
q_is "SELECT target FROM audit WHERE action = 'prune' AND id > $first_prune
    ORDER BY id LIMIT 1" "16 runs" \
    "the batch the approval came during ended at its first slice"
[ "$(q "SELECT count(*) FROM audit WHERE action = 'approve' AND
    id > $first_prune AND id < (SELECT max(id) FROM audit
    WHERE action = 'prune')")" -eq 1 ]
ok $? "the approval was applied between the prune's batches"
wait_for wf_ended "$G"
q_is "SELECT status FROM workflows WHERE id = $G" completed \
    "the approved run went on"
q_is "PRAGMA foreign_key_check" "" "no reference is left dangling"
engine_stop

# --- retention: the engine prunes once a day ------------------------------------

echo '{"retention": "90s"}' >"$SLUICE_SITE_CONFIG"
run_sluice engine --drain
expect_rc 2 "a retention under an hour is refused"
like "$ERR" "\$.retention: at least \"1h\"" "saying why"
echo '{"retention": "soon"}' >"$SLUICE_SITE_CONFIG"
run_sluice engine --drain
expect_rc 2 "a retention that is not a duration is refused"
echo '{"retention": "7d"}' >"$XDG_CONFIG_HOME/sluice/config.json"
run_sluice status
like "$ERR" "\$.retention is site policy, ignored here" \
    "a user's own config may not set it"
rm -f "$XDG_CONFIG_HOME/sluice/config.json"

rm -f "$SLUICE_SITE_CONFIG"
clock_offset $((10 * DAY))
wait_run "$T_DIR/ok.json"; R1=$ID
expect_rc 0 "(a run of today)"
echo '{"retention": "7d"}' >"$SLUICE_SITE_CONFIG"
engine_start
q_is "SELECT count(*) FROM timers WHERE kind = 'prune'" 1 \
    "an engine with a retention stores a prune timer"
# prune_later OFFSET: the stored prune is more than 23 hours away.
prune_later() {
	[ "$(q "SELECT due_at FROM timers WHERE kind = 'prune'")" -gt \
	    $(( $(real_ms) + $1 + DAY - 3600000 )) ]
}
wait_for prune_later $((10 * DAY))
due=$(q "SELECT due_at FROM timers WHERE kind = 'prune'")
now=$(( $(real_ms) + 10 * DAY ))
[ "$due" -gt $((now + DAY - 60000)) ] && [ "$due" -le $((now + DAY)) ]
ok $? "it pruned at once, and stored the next prune for a day later"
q_is "SELECT count(*) FROM workflows WHERE id = $R1" 1 \
    "the run of today stays"
engine_stop
# The stored timer outlives the engine: the next one prunes when due.
clock_offset $((18 * DAY))
engine_start
wait_for gone "$R1"
q_is "SELECT count(*) FROM workflows WHERE id = $R1" 0 \
    "eight days on, the engine has pruned the run"
like "$(q "SELECT target FROM audit WHERE action = 'prune' ORDER BY id DESC
    LIMIT 1")" "(retention)" "audited as a retention prune"
q_is "SELECT count(*) FROM workflows WHERE id IN ($PWAIT, $PWAIT_CHILD)" 2 \
    "the unfinished run stays"
due=$(q "SELECT due_at FROM timers WHERE kind = 'prune'")
now=$(( $(real_ms) + 18 * DAY ))
[ "$due" -gt $((now + DAY - 60000)) ] && [ "$due" -le $((now + DAY)) ]
ok $? "the next prune is stored for a day later"
engine_stop
run_sluice audit --verify
expect_rc 0 "the audit trail verifies after the retention prune"

done_testing
