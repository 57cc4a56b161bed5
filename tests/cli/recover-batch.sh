#!/bin/sh
# tests/cli/recover-batch.sh: an engine restarted after kill -9 resumes
# for-each steps and DAG runs in numbers from reads made for all of them
# at once (src/engine/recover-batch.c, src/store/recover-foreach.c), as
# reading each did: on SQLite, the path a cluster's takeover shares
# (tests/cluster/takeover-runs.sh).  At the kill, of each kind, several
# runs are
#
# - in a for-each of concurrency 2, one item done, two running, three not
#   yet started;
# - in a for-each of batches of three with a failure budget of one that
#   asks when spent: one item cancelled (a failure), one waiting out a
#   retry's backoff, one done, five in later batches;
# - in a for-each whose gate before its second batch was approved (that
#   batch running), or for one of them still waits;
# - in a DAG run: a join with one dependency done, one running, and a
#   branch done beside it;
# - in a DAG run whose join's last dependency (a gate) was ended in the
#   table behind the engine's back, as an older engine could leave it:
#   only the restarted engine's own decision starts the join.
#
# The new engine must start no item beyond a for-each's concurrency or
# batch, ask at the failure budget the failure before the kill spent, ask
# each batch gate once, finish every run, and do each step's and item's
# work once, counted by the steps themselves outside the database.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/recover-kinds.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

K=3	# runs of each kind
LEDGER="$T_DIR/ledger"
: >"$LEDGER"
# Each step's last act: a ledger line KIND:RUN:ROW.
line() {
	echo "echo $1:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER"
}
# Items and steps that wait for $T_DIR/go are mid-run at the kill.
GO="while [ ! -e $T_DIR/go ]; do sleep 0.1; done"
RK_SQL=q
rk_flows 20s

engine_start
i=0
n=0
while [ $i -lt "$K" ]; do
	i=$((i + 1))
	for k in each batch gated dagrun dagedit; do
		run_sluice run "$T_DIR/$k.json" --name "$k"
		[ "$RC" -ne 0 ] || n=$((n + 1))
	done
done
is "$n" $((K * 5)) "$((K * 5)) runs started"

wait_for 30 early
ok $? "the batch runs' first items run, the gated runs ask, the dagedit runs wait"
# Each batch run's b1 is cancelled (a failure the budget allows); each
# gated run's gate approved but the first's; each dagedit run's gate
# ended in the table, unknown to the engine.
for id in $(q "SELECT s.id FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch' AND s.item_index = 0
    AND s.status = 'running'"); do
	run_sluice cancel --step "$id" -m "a failure before the kill"
done
for id in $(q "SELECT s.id FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'gated'
    AND s.status = 'waiting' ORDER BY s.id LIMIT -1 OFFSET 1"); do
	run_sluice approve "$id"
done
q "UPDATE workflow_steps SET status = 'done', completed_at = updated_at,
    result_json = '{}' WHERE name = 'b' AND status = 'waiting'
    AND workflow_id IN (SELECT id FROM workflows WHERE name = 'dagedit')"

in_place() {
	[ "$(q "SELECT count(DISTINCT s.workflow_id) FROM workflow_steps s
	    JOIN workflows w ON w.id = s.workflow_id WHERE s.status = 'done'
	    AND w.name = 'each' AND s.item_index >= 0")" -eq "$K" ] &&
	[ "$(items each running)" -eq $((K * 2)) ] &&
	[ "$(items batch cancelled "AND s.item_index = 0")" -eq "$K" ] &&
	[ "$(q "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id JOIN timers t ON t.step_id = s.id
	    WHERE w.name = 'batch' AND s.item_index = 1
	    AND s.status = 'pending'")" -eq "$K" ] &&
	[ "$(items batch done "AND s.item_index = 2")" -eq "$K" ] &&
	[ "$(items gated running "AND s.item_index IN (2, 3)")" -eq \
	    $((K * 2 - 2)) ] &&
	[ "$(named dagrun b running)" -eq "$K" ] &&
	[ "$(named dagrun d done)" -eq "$K" ]
}
wait_for 30 in_place
ok $? "every run in place: items done, running, backing off, not yet started"
is "$(q "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'dagedit' AND s.name = 'c'")" 0 \
    "no dagedit join started before the kill"

engine_crash
engine_start
ok $? "a new engine takes over"
# Its first turn follows its recovery: then no for-each has more items
# in flight (started, or waiting out a backoff) than its concurrency,
# nor any item of a later batch.
echo '{"start": {"run": ["true"]}}' >"$T_DIR/probe.json"
run_sluice run "$T_DIR/probe.json" --name probe
probed() {
	[ "$(q "SELECT count(*) FROM workflows WHERE name = 'probe'
	    AND status = 'completed'")" -eq 1 ]
}
wait_for 30 probed
ok $? "the new engine has recovered and takes new runs"
most=$(q "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n
    FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.name = 'each' AND s.item_index >= 0
    AND (s.status IN ('ready', 'running') OR (s.status = 'pending'
    AND s.id IN (SELECT step_id FROM timers))) GROUP BY s.workflow_id)")
[ "$most" -le 2 ]
ok $? "no for-each has more items in flight than its concurrency ($most)"
# (b2, waiting out its backoff, ends the first batch.)
is "$(q "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch' AND s.item_index > 2
    AND s.status IN ('ready', 'running', 'done', 'failed')
    AND NOT EXISTS (SELECT 1 FROM workflow_steps b
    WHERE b.workflow_id = s.workflow_id AND b.item_index = 1
    AND b.status = 'done')")" 0 \
    "no batch run starts its second batch before its first has ended"
: >"$T_DIR/go"

# all_ended: cancel each batch run's b7 once it runs, approve what gates
# wait; every run has ended.
all_ended() {
	for id in $(q "SELECT s.id FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE w.name = 'batch'
	    AND s.item_index = 6 AND s.status = 'running'"); do
		"$SLUICE" cancel --step "$id" -m "a failure after" >/dev/null 2>&1
	done
	for g in $("$SLUICE" gates --json 2>/dev/null |
	    sed -n 's/.*"step_id": *\([0-9]*\).*/\1/p'); do
		"$SLUICE" approve "$g" >/dev/null 2>&1
	done
	left=$(q "SELECT count(*) FROM workflows WHERE status NOT IN
	    ('completed', 'failed', 'cancelled')")
	[ "$left" = 0 ]
}
wait_for 150 all_ended
is "$left" 0 "every run has ended"
for k in each batch gated dagrun dagedit; do
	is "$(q "SELECT count(*) FROM workflows WHERE name = '$k'
	    AND status = 'completed'")" "$K" "the $K $k runs completed"
done
engine_stop

# Each ledger line with its row's status: KIND:RUN ROW STATUS.
q "SELECT id || ' ' || status FROM workflow_steps" >"$T_DIR/rows"
awk -F'[: ]' 'NR == FNR { st[$1] = $2; next }
    { print $1 ":" $2, $3, (($3 in st) ? st[$3] : "none") }' \
    "$T_DIR/rows" "$LEDGER" >"$T_DIR/lines"
is "$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort | uniq -d)" "" \
    "no completed step ran again"
for k in dagrun-a dagrun-b dagrun-c dagrun-d dagrun-e dagedit-a dagedit-c \
    dagedit-e; do
	is "$(awk -v k="$k" '$3 == "done" && index($1, k ":") == 1' \
	    "$T_DIR/lines" | wc -l)" "$K" "each $k step's work was done once, by a completed row"
done
# each's 6 items, batch's 6 that succeed (b1 and b7 cancelled),
# gated's 6.
is "$(awk '$3 == "done" && index($1, "item-") == 1 { print $1 }' \
    "$T_DIR/lines" | sort -u | wc -l)" $((K * 18)) \
    "each for-each item's work was done once, by a completed row"
is "$(q "SELECT count(*) FROM (SELECT s.workflow_id, s.item_index
    FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.name IN ('each', 'batch', 'gated') AND s.item_index >= 0
    AND s.status = 'done' GROUP BY s.workflow_id, s.item_index
    HAVING count(*) = 1)")" $((K * 18)) "each item has exactly one completed row"
is "$(q "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch'
    AND s.label = 'failure budget'")" "$K" \
    "each batch run asked once, when b7's cancel spent the budget b1's had used"
is "$(q "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'gated'
    AND s.label LIKE 'before batch %'")" $((K * 2)) \
    "each gated run asked once before each later batch"
done_testing
