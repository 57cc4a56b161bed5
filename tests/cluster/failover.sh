#!/bin/sh
# failover.sh: cluster mode across a crash of the PostgreSQL primary
# (SPEC §14): three engine nodes on a primary with a synchronous standby,
# each node's database naming its forwarder to the primary and then the
# standby, with target_session_attrs=read-write.  Approvals are given
# through the leader while the primary's host dies (kill -9 of its
# processes); the standby is promoted.
#
# - the leader, whose lock session is gone, stops as superseded;
# - the standbys do not give up while no server takes writes: they try
#   again until the promoted one does, and one of them leads it with a
#   greater epoch; the old leader, started again (its unit's Restart=),
#   stands by: one leader;
# - every approval acknowledged before the crash is there; the runs go
#   on and complete, no completed step ran twice; audit --verify is
#   clean on the new primary.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"

RUNS=12
LEDGER="$T_DIR/ledger"
: >"$LEDGER"

cl_setup standby
cl_start_nodes

# Each run: a step, a gate, a step; each step writes a ledger line
# (STEP:RUN:ROW) as its last act.
cat >"$T_DIR/gated.json" <<JSON
{
 "before": {"shell": "echo before:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "next": "approve"},
 "approve": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"shell": "sleep 0.2; echo after:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "retry": {"max_attempts": 5, "base": "100ms"}, "done": true}
}
JSON

runs=""
n=0
while [ $n -lt $RUNS ]; do
	n=$((n + 1))
	wf=$(cl_sluice 1 run "$T_DIR/gated.json" 2>>"$T_DIR/run.err")
	[ -n "$wf" ] && runs="$runs $wf"
done
is "$(echo $runs | wc -w)" $RUNS "$RUNS runs started on the leader"

# gates_waiting N: the gates waiting, as node N's engine answers.
gates_waiting() {
	cl_sluice "$1" gates --json 2>/dev/null |
	    sed -n 's/.*"step_id": *\([0-9]*\).*/\1/p'
}
i=0
while [ "$(gates_waiting 1 | wc -l)" -lt $RUNS ] && [ $i -lt 300 ]; do
	sleep 0.05; i=$((i + 1))
done
gates=$(gates_waiting 1)
is "$(echo $gates | wc -w)" $RUNS "  each waits at its gate"
before=$(pg_sql "SELECT epoch FROM engine")

# The approver: one approval after another through the leader, each
# acknowledged one noted; the primary dies among them.
(
	for g in $gates; do
		cl_sluice 1 approve "$g" >/dev/null 2>>"$T_DIR/approve.err" &&
		    echo "$g" >>"$T_DIR/acked"
		sleep 0.1
	done
) &
approver=$!
# After the first acknowledged approval, not after a fixed time: under
# load the approvals are slower and the shell later, either way.
i=0
while [ ! -s "$T_DIR/acked" ] && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
old=$(pg_pid primary)
pg_crash primary
crashed=$(now_ms)
gone "$old"
ok $? "the primary's host dies (kill -9 of its processes)"

i=0
while ! gone "$(node_pid 1)" && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
gone "$(node_pid 1)"
ok $? "the leader stops, its lock session gone"
like "$(tail -3 "$T_DIR/n1.err")" "superseded" "  as superseded"
sleep 2
kill -0 "$(node_pid 2)" 2>/dev/null && kill -0 "$(node_pid 3)" 2>/dev/null
ok $? "the standbys keep going while no server takes writes"
grep -q "cannot reach the database" "$T_DIR/n2.err" &&
    grep -q "cannot reach the database" "$T_DIR/n3.err"
ok $? "  each saying it cannot reach the database and tries again"

pg_promote standby
ok $? "the standby is promoted"
promoted=$(now_ms)
set -- $(leader_wait $((epoch + 1)) 20000)
led=$(now_ms)
ok $([ -n "${1:-}" ] && [ "$1" != 1 ]; echo $?) \
    "a standby node leads the promoted server ($((led - promoted)) ms after the promotion, $((led - crashed)) ms after the crash)"
leader=${1:-2}
epoch=${2:-0}
after=$(pg_sql standby "SELECT epoch FROM engine")
ok $([ "$after" -gt "$before" ]; echo $?) "the epoch increased ($before, then $after)"
is "$epoch" "$after" "  the new leader's"

# The approval in flight at the crash learns its outcome from the new
# leader (applied or not); those after it were refused.
wait "$approver"
acked=$(cat "$T_DIR/acked" 2>/dev/null)
nacked=$(echo $acked | wc -w)
ok $([ "$nacked" -ge 1 ] && [ "$nacked" -lt $RUNS ]; echo $?) \
    "the crash came among the approvals ($nacked of $RUNS acknowledged)"

# The old leader comes back as its unit would start it again.
node_start 1
standing_by 1
ok $? "the old leader, started again, stands by"

# Everything goes on: the gates not yet approved are, a new run runs.
lost=""
for g in $acked; do
	st=$(pg_sql standby "SELECT status FROM workflow_steps WHERE id = $g")
	case $st in waiting|"") lost="$lost $g" ;; esac
done
is "$lost" "" "every acknowledged approval is there ($nacked)"
audited=0
for g in $acked; do
	[ "$(pg_sql standby "SELECT count(*) FROM audit WHERE action =
	    'approve' AND step_id = $g")" -ge 1 ] && audited=$((audited + 1))
done
is "$audited" "$nacked" "  each with its audit row"
wf=$(cl_sluice "$leader" run "$T_DIR/gated.json" 2>>"$T_DIR/run.err")
[ -n "$wf" ] && runs="$runs $wf"
ok $([ -n "$wf" ]; echo $?) "a new run starts on the new leader"
end=$(( $(now_ms) + 60000 ))
while [ "$(now_ms)" -le "$end" ]; do
	for g in $(gates_waiting "$leader"); do
		cl_sluice "$leader" approve "$g" >/dev/null 2>&1
	done
	left=$(pg_sql standby "SELECT count(*) FROM workflows WHERE status
	    NOT IN ('completed', 'failed', 'cancelled')")
	[ "$left" = 0 ] && break
	sleep 0.2
done
is "$left" 0 "every run has ended"
is "$(pg_sql standby "SELECT count(*) FROM workflows WHERE status <> 'completed'")" 0 \
    "  and completed ($(echo $runs | wc -w) runs)"
pg_sql standby "SELECT id || ' ' || status FROM workflow_steps" >"$T_DIR/rows"
awk -F'[: ]' 'NR == FNR { st[$1] = $2; next }
    { print $1 ":" $2, $3, (($3 in st) ? st[$3] : "none") }' \
    "$T_DIR/rows" "$LEDGER" >"$T_DIR/lines"
is "$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort | uniq -d)" "" \
    "no completed step ran again ($(wc -l <"$LEDGER") ledger lines)"
is "$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort -u | wc -l)" \
    $(( $(echo $runs | wc -w) * 2 )) "every step's work was done, by a completed row"

# One leader: one lock holder on the server, one live node leading.
is "$(pg_sql standby "SELECT count(*) FROM pg_locks WHERE locktype =
    'advisory' AND granted AND classid = 29548 AND objid = 1969840997")" 1 \
    "one session holds the leader's lock"
leading=0
for n in 1 2 3; do
	kill -0 "$(node_pid $n)" 2>/dev/null || continue
	[ "$(node_epoch $n)" = "$epoch" ] && leading=$((leading + 1))
done
is "$leading" 1 "one node leads (epoch $epoch); the other two stand by"
cl_sluice "$leader" audit --verify >"$T_DIR/verify" 2>&1
ok $? "audit --verify is clean on the promoted server"

cl_done
