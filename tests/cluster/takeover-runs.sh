#!/bin/sh
# takeover-runs.sh: a takeover with many active runs of different kinds
# resumes every one of them (SPEC §14): recovery now reads all running
# runs' endings, active rows and visits at once and shares one parse of
# each flow among its runs (src/engine/recover.c, src/store/recover-read.c,
# src/engine/flow-share.c), and must leave the engine as loading them one
# by one did.  Three engine nodes on a PostgreSQL of our own; the leader
# is killed -9 while, of each kind, several runs are
#
# - waiting at a gate, then a step;
# - running a long step (its old process is stopped by the old leader's
#   fence keeper; the row is held, then runs again: on_interrupt retry);
# - waiting out a retry's backoff (a timer), whose next attempt succeeds;
# - in a for-each mid-batch (some items done, two running, some not yet);
# - at a sub-workflow step whose child run waits at a gate;
# - in a for-each of batches of three with a failure budget of one that
#   asks when spent: one item cancelled (a failure), one waiting out a
#   retry's backoff, one done, five in later batches;
# - in a for-each whose gate before its second batch was approved, that
#   batch running, a gate before the third to come;
# - in a DAG run: a join with one dependency done, one running, and a
#   branch done beside it;
# - in a DAG run whose join's last dependency (a gate) was ended in the
#   table behind the old leader's back, as an older engine could leave
#   it: only the takeover's own decision starts the join.
#
# Recovery reads the for-eachs' and DAG runs' state for all of them at
# once (src/engine/recover-batch.c, src/store/recover-foreach.c).  The new
# leader must finish every run, each step's work done once by a completed
# row (a step whose end was committed never runs again), the retries on
# their second attempt, the items each once, and the parents after their
# children; it must start no item beyond a for-each's concurrency (the
# items in flight, read at once), ask at each failure budget the failure
# before the kill spent (the failures, read at once), and ask each batch
# gate once (the gates, read at once).
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
. "$TOP_SRCDIR/tests/recover-kinds.sh"

K=${SLUICE_TAKEOVER_RUNS:-4}	# runs of each kind
LEDGER="$T_DIR/ledger"
: >"$LEDGER"
# Each step's last act: a ledger line KIND:RUN:ROW.
line() {
	echo "echo $1:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER"
}

cl_setup
cl_start_nodes

cat >"$T_DIR/gate.json" <<JSON
{"start": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"shell": "$(line gate)"}}
JSON
# Long steps and for-each items (but the first) wait for $T_DIR/go,
# made once the old leader's keeper has stopped what it started: so
# each is mid-run at the kill, and only the new leader's rows finish.
GO="while [ ! -e $T_DIR/go ]; do sleep 0.1; done"
cat >"$T_DIR/long.json" <<JSON
{"start": {"shell": "$GO; $(line long)"}}
JSON
# Fails at its first attempt (no mark yet), succeeds at its second, 40 s
# later (longer than the runs take to get in place, under load too): the
# backoff's timer is armed when the leader is killed.
cat >"$T_DIR/retry.json" <<JSON
{"start": {"shell": "m=$T_DIR/tried.\$SLUICE_WORKFLOW_ID; [ -e \$m ] || { : >\$m; exit 1; }; $(line retry)",
  "retry": {"max_attempts": 3, "backoff": ["40s"]}}}
JSON
cat >"$T_DIR/parent.json" <<JSON
{"start": {"workflow": "child", "next": "after"},
 "after": {"shell": "$(line parent)"}}
JSON
cat >"$T_DIR/child.json" <<JSON
{"start": {"gate": {"message": "child"}, "next": "after"},
 "after": {"shell": "$(line child)"}}
JSON
RK_SQL=pg_sql
rk_flows 40s
cl_sluice 1 template save child "$T_DIR/child.json" >/dev/null
ok $? "the child template is saved"

runs=""
i=0
while [ $i -lt "$K" ]; do
	i=$((i + 1))
	for k in gate long retry each parent batch gated dagrun dagedit; do
		wf=$(cl_sluice 1 run "$T_DIR/$k.json" --name "$k" \
		    2>>"$T_DIR/run.err") && runs="$runs $wf"
	done
done
is "$(echo $runs | wc -w)" $((K * 9)) "$((K * 9)) runs started"

wait_for 30 early
ok $? "the batch runs' first items run, the gated runs ask, the dagedit runs wait"
for id in $(pg_sql "SELECT s.id FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch' AND s.item_index = 0
    AND s.status = 'running'"); do
	cl_sluice 1 cancel --step "$id" -m "a failure before the kill" \
	    >/dev/null 2>>"$T_DIR/run.err"
done
for id in $(pg_sql "SELECT s.id FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'gated'
    AND s.status = 'waiting' ORDER BY s.id OFFSET 1"); do
	cl_sluice 1 approve "$id" >/dev/null 2>>"$T_DIR/run.err"
done
pg_sql "UPDATE workflow_steps SET status = 'done', completed_at =
    updated_at, result_json = '{}' WHERE name = 'b' AND status = 'waiting'
    AND workflow_id IN (SELECT id FROM workflows WHERE name = 'dagedit')"

# in_place: every kind where the kill should find it.
in_place() {
	[ "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE s.status = 'waiting' AND
	    w.name IN ('gate', 'child')")" -eq $((K * 2)) ] &&
	[ "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE s.status = 'pending' AND
	    w.name = 'retry'")" -eq "$K" ] &&
	[ "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE s.status = 'running' AND
	    w.name = 'long'")" -eq "$K" ] &&
	[ "$(pg_sql "SELECT count(DISTINCT s.workflow_id) FROM workflow_steps s
	    JOIN workflows w ON w.id = s.workflow_id WHERE s.status = 'done'
	    AND w.name = 'each' AND s.item_index >= 0")" -eq "$K" ] &&
	[ "$(items batch cancelled "AND s.item_index = 0")" -eq "$K" ] &&
	[ "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id JOIN timers t ON t.step_id = s.id
	    WHERE w.name = 'batch' AND s.item_index = 1
	    AND s.status = 'pending'")" -eq "$K" ] &&
	[ "$(items batch done "AND s.item_index = 2")" -eq "$K" ] &&
	[ "$(items gated running "AND s.item_index IN (2, 3)")" -eq \
	    $((K * 2 - 2)) ] &&
	[ "$(named dagrun b running)" -eq "$K" ] &&
	[ "$(named dagrun d done)" -eq "$K" ] &&
	[ "$(named dagedit b done)" -eq "$K" ]
}
wait_for 60 in_place
ok $? "every run in place: gates wait, retries back off, items run"
in_place || pg_sql "SELECT '# ' || w.name || ' ' || s.status || ' ' ||
    count(*) FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    GROUP BY w.name, s.status ORDER BY 1"
mid=$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'each' AND s.item_index >= 0
    AND s.status <> 'done'")
[ "$mid" -gt 0 ]
ok $? "the for-eachs are mid-batch ($mid items not done)"
active=$(pg_sql "SELECT count(*) FROM workflows WHERE status = 'running'")
is "$active" $((K * 10)) "$((K * 10)) runs active (the children with them)"
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'dagedit' AND s.name = 'c'")" 0 \
    "no dagedit join started before the kill"

kill -9 "$(node_pid 1)"
set -- $(leader_wait $((epoch + 1)) 15000)
[ -n "${1:-}" ]
ok $? "a standby leads after the kill"
leader=${1:-2}
# The new leader's first turn ends its recovery: a run posted to it
# has completed only after.  Then no for-each has more items started
# than its concurrency (the old ones are held, still running).
echo '{"start": {"run": ["true"]}}' >"$T_DIR/probe.json"
cl_sluice "$leader" run "$T_DIR/probe.json" --name probe >/dev/null \
    2>>"$T_DIR/run.err"
probed() {
	[ "$(pg_sql "SELECT count(*) FROM workflows WHERE name = 'probe'
	    AND status = 'completed'")" -eq 1 ]
}
wait_for 30 probed
ok $? "the new leader has recovered and takes new runs"
most=$(pg_sql "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n
    FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.name = 'each' AND s.item_index >= 0
    AND (s.status IN ('ready', 'running') OR (s.status = 'pending'
    AND s.id IN (SELECT step_id FROM timers))) GROUP BY s.workflow_id) x")
[ "$most" -le 2 ]
ok $? "no for-each has more items in flight than its concurrency ($most)"
# (b2, waiting out its backoff, ends the first batch.)
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch' AND s.item_index > 2
    AND s.status IN ('ready', 'running', 'done', 'failed')
    AND NOT EXISTS (SELECT 1 FROM workflow_steps b
    WHERE b.workflow_id = s.workflow_id AND b.item_index = 1
    AND b.status = 'done')")" 0 \
    "no batch run starts its second batch before its first has ended"
wait_for 10 grep -q "sluice-fence: .*stopped" "$T_DIR/n1.err"
ok $? "the old leader's keeper stopped its steps"
: >"$T_DIR/go"

# all_ended: cancel each batch run's b7 once it runs, approve what gates
# wait (the children's too) on the new leader; every run has ended.
all_ended() {
	for id in $(pg_sql "SELECT s.id FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE w.name = 'batch'
	    AND s.item_index = 6 AND s.status = 'running'"); do
		cl_sluice "$leader" cancel --step "$id" -m "a failure after" \
		    >/dev/null 2>&1
	done
	for g in $(cl_sluice "$leader" gates --json 2>/dev/null |
	    sed -n 's/.*"step_id": *\([0-9]*\).*/\1/p'); do
		cl_sluice "$leader" approve "$g" >/dev/null 2>&1
	done
	left=$(pg_sql "SELECT count(*) FROM workflows WHERE status NOT IN
	    ('completed', 'failed', 'cancelled')")
	[ "$left" = 0 ]
}
wait_for 150 all_ended
is "$left" 0 "every run has ended"
[ "$left" = 0 ] || pg_sql "SELECT 'row ' || s.workflow_id || ' ' ||
    w.name || ' ' || s.id || ' ' || s.name || ' ' || s.status ||
    ' attempt ' || s.attempt || ' item ' || coalesce(s.item_index::text,
    '-') FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.status NOT IN ('completed', 'failed', 'cancelled')" |
    sed 's/^/# /'
for k in gate long retry each parent child batch gated dagrun dagedit; do
	is "$(pg_sql "SELECT count(*) FROM workflows WHERE name = '$k'
	    AND status = 'completed'")" "$K" "the $K $k runs completed"
done

# Each ledger line with its row's status: KIND:RUN ROW STATUS.
pg_sql "SELECT id || ' ' || status FROM workflow_steps" >"$T_DIR/rows"
awk -F'[: ]' 'NR == FNR { st[$1] = $2; next }
    { print $1 ":" $2, $3, (($3 in st) ? st[$3] : "none") }' \
    "$T_DIR/rows" "$LEDGER" >"$T_DIR/lines"
reran=$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort | uniq -d)
is "$reran" "" "no completed step ran again"
for k in gate long retry parent child dagrun-a dagrun-b dagrun-c dagrun-d \
    dagrun-e dagedit-a dagedit-c dagedit-e; do
	is "$(awk -v k="$k" '$3 == "done" && index($1, k ":") == 1' \
	    "$T_DIR/lines" | wc -l)" "$K" "each $k step's work was done once, by a completed row"
done
# Items: each's 6, batch's 6 that succeed (b1 and b7 cancelled),
# gated's 6.
is "$(awk '$3 == "done" && index($1, "item-") == 1 { print $1 }' \
    "$T_DIR/lines" | sort -u | wc -l)" $((K * 18)) \
    "each for-each item's work was done once, by a completed row"
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'batch'
    AND s.label = 'failure budget'")" "$K" \
    "each batch run asked once, when b7's cancel spent the budget b1's had used"
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'gated'
    AND s.label LIKE 'before batch %'")" $((K * 2)) \
    "each gated run asked once before each later batch"
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'retry' AND s.status = 'done'
    AND s.attempt = 2")" "$K" "each retry succeeded at its second attempt, after its timer"
is "$(pg_sql "SELECT count(*) FROM workflow_steps s JOIN workflows w
    ON w.id = s.workflow_id WHERE w.name = 'long' AND s.status = 'done'
    AND s.attempt = 2")" "$K" "each long step ran again once, as its on_interrupt says"
is "$(pg_sql "SELECT count(*) FROM (SELECT s.workflow_id, s.item_index
    FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.name IN ('each', 'batch', 'gated') AND s.item_index >= 0
    AND s.status = 'done' GROUP BY s.workflow_id, s.item_index
    HAVING count(*) = 1) x")" $((K * 18)) \
    "each item has exactly one completed row"
cl_sluice "$leader" audit --verify >"$T_DIR/verify" 2>&1
ok $? "audit --verify is clean"
cl_done
