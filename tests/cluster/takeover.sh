#!/bin/sh
# takeover.sh: cluster mode's leadership and fencing (SPEC §14) with three
# engine nodes on a PostgreSQL of our own, each through a TCP forwarder:
#
# - the first node leads, the others stand by;
# - kill -9 of the leader during fan-outs, gates and for-each batches
#   ($SLUICE_ROUNDS rounds, the issue's 200 by default, about a second
#   each; bench/cluster-kill.sh reports their figures): a standby leads,
#   every run completes, no completed step
#   ran twice (a ledger line per step, written by the step), no
#   acknowledged approval is lost, audit --verify is clean;
# - the leader SIGSTOPped 10 s: a standby leads within L + 0.5 s, the old
#   leader's step, and the process it started that left its group
#   (setsid), are gone by its deadline, and once continued it exits
#   "superseded" without writing;
# - the leader cut off from PostgreSQL (its forwarder stopped): its step
#   is gone by its deadline, a standby leads within L + 0.5 s, and once
#   the cut heals its first write is refused and it exits "superseded";
# - its lock session terminated (pg_terminate_backend, a forced split
#   brain): a standby leads and the old leader exits at its next
#   heartbeat: one epoch commits;
# - an idle leader cut off: its heartbeat goes unanswered, yet its socket
#   answers every ping within 100 ms all along (the loop never waits on
#   the lock session), it says it is fenced at its deadline, a standby
#   leads within L + 0.5 s, and it stops as superseded L after its
#   deadline, cut off still.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
command -v python3 >/dev/null || skip_all "needs python3 for a raw socket client"

L=3000		# LEADER_LEASE_MS
ROUNDS=${SLUICE_ROUNDS:-200}
LEDGER="$T_DIR/ledger"
: >"$LEDGER"

cl_setup
cl_start_nodes

# The rounds' flow: a fan-out, a gate at its join, a for-each in batches;
# each step writes one ledger line (step, run, row) as its last act.  A
# leader killed between that line and its commit of the step's end leaves
# the row running: its on_interrupt (retry) runs it again, as it must,
# since its end was never recorded.  What may never happen is a second
# line for a step whose end was committed.
cat >"$T_DIR/round.json" <<JSON
{
 "start": {"shell": "echo start:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "parallel": ["a", "b", "c"]},
 "a": {"shell": "sleep 0.5; echo a:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "join": "approve", "retry": {"max_attempts": 5, "base": "100ms"}},
 "b": {"shell": "sleep 0.7; echo b:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "join": "approve", "retry": {"max_attempts": 5, "base": "100ms"}},
 "c": {"shell": "sleep 0.9; echo c:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "join": "approve", "retry": {"max_attempts": 5, "base": "100ms"}},
 "approve": {"gate": {"message": "go on?"}, "next": "each"},
 "each": {"foreach": ["i1", "i2", "i3", "i4"], "concurrency": 2,
   "do": {"shell": "sleep 0.3; echo each-\$ITEM:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER", "env": {"ITEM": "{{item}}"}, "retry": {"max_attempts": 5, "base": "100ms"}},
   "done": true}
}
JSON

leader=1
runs=""
acked=""
takeovers=""
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	wf=$(cl_sluice "$leader" run "$T_DIR/round.json" 2>>"$T_DIR/run.err")
	[ -n "$wf" ] && runs="$runs $wf"
	# Approve the gates waiting so far (the last round's among them).
	for g in $(cl_sluice "$leader" gates --json 2>/dev/null |
	    sed -n 's/.*"step_id": *\([0-9]*\).*/\1/p'); do
		cl_sluice "$leader" approve "$g" >/dev/null 2>&1 &&
		    acked="$acked $g"
	done
	sleep "0.$((r % 9 + 1))"
	old=$leader
	t0=$(now_ms)
	kill -9 "$(node_pid "$old")"
	set -- $(leader_wait $((epoch + 1)) 10000)
	t1=$(now_ms)
	[ -n "${1:-}" ] || { ok 1 "round $r: a standby leads"; break; }
	leader=$1 epoch=$2
	takeovers="$takeovers $((t1 - t0))"
	node_start "$old"
done
ok 0 "$ROUNDS kill -9 rounds; takeover ms:$takeovers"
# A leader that stops as superseded while no one killed it superseded
# itself (it missed its own deadline): a takeover nobody asked for.
# Counted (bench/cluster-kill.sh reports it), not judged: it is load.
sup=$(cat "$T_DIR"/n[123].err 2>/dev/null | grep -c superseded || true)
ok 0 "self-supersedes during the kill rounds: $sup"
worst=0
for t in $takeovers; do [ "$t" -gt "$worst" ] && worst=$t; done
[ "$worst" -le $((L + 500)) ]
ok $? "after each kill -9 a standby led within L + 0.5 s (worst $worst ms)"

# now_leading: the node whose engine runs with the newest epoch, into
# $leader and $epoch (a leader that superseded itself is not one).
now_leading() {
	for _n in 1 2 3; do
		_e=$(node_epoch "$_n")
		if [ "$_e" -gt "$epoch" ] && kill -0 "$(node_pid "$_n")" \
		    2>/dev/null; then
			leader=$_n epoch=$_e
		fi
	done
}

# Let everything finish: approve what comes, wait for every run to end.
end=$(( $(now_ms) + 90000 ))
while [ "$(now_ms)" -le "$end" ]; do
	now_leading
	for g in $(cl_sluice "$leader" gates --json 2>/dev/null |
	    sed -n 's/.*"step_id": *\([0-9]*\).*/\1/p'); do
		cl_sluice "$leader" approve "$g" >/dev/null 2>&1 &&
		    acked="$acked $g"
	done
	left=$(pg_sql "SELECT count(*) FROM workflows WHERE status NOT IN
	    ('completed', 'failed', 'cancelled')")
	[ "$left" = 0 ] && break
	sleep 0.2
done
is "$left" 0 "every run has ended"
# What an unfinished run was left with, to tell why: its rows (with when
# each last changed, to set beside the leaders' epochs), its timers, and
# the engine row and the clock now.
[ "$left" = 0 ] || pg_sql "SELECT 'row ' || s.workflow_id || ' ' || s.id ||
    ' ' || s.name || ' ' || s.status || ' attempt ' || s.attempt ||
    ' parent ' || coalesce(s.parent_id::text, '-') || ' item_of ' ||
    coalesce(s.item_of::text, '-') || ' index ' ||
    coalesce(s.item_index::text, '-') || ' ready_at ' ||
    coalesce(s.ready_at::text, '-') || ' updated_at ' || s.updated_at ||
    ' pid ' || coalesce(s.pid::text, '-') || ' host ' ||
    coalesce(s.host, '-') || ' error ' || coalesce(s.error, '-')
    FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id
    WHERE w.status NOT IN ('completed', 'failed', 'cancelled')
    UNION ALL SELECT 'timer ' || t.kind || ' step ' ||
    coalesce(t.step_id::text, '-') || ' due ' || t.due_at
    FROM timers t JOIN workflows w ON w.id = t.workflow_id
    WHERE w.status NOT IN ('completed', 'failed', 'cancelled')
    UNION ALL SELECT 'engine epoch ' || epoch || ' since ' ||
    coalesce(since::text, '-') || ' pid ' || coalesce(pid::text, '-') ||
    ' now $(now_ms)' FROM engine" |
    sed 's/^/# /'
is "$(pg_sql "SELECT count(*) FROM workflows WHERE status <> 'completed'")" 0 \
    "  and completed"
# Each ledger line with its row's status: STEP:RUN:ROW STATUS.
pg_sql "SELECT id || ' ' || status FROM workflow_steps" >"$T_DIR/rows"
awk -F'[: ]' 'NR == FNR { st[$1] = $2; next }
    { print $1 ":" $2, $3, (($3 in st) ? st[$3] : "none") }' \
    "$T_DIR/rows" "$LEDGER" >"$T_DIR/lines"
is "$(awk '{ print $2 }' "$T_DIR/lines" | sort | uniq -d)" "" \
    "no row did its step's work twice"
reran=$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort | uniq -d)
is "$reran" "" "no completed step ran again: $(echo $reran | wc -w) re-runs ($(wc -l <"$LEDGER") ledger lines)"
again=$(awk '$3 != "done"' "$T_DIR/lines" | wc -l)
want=$(( $(echo $runs | wc -w) * 8 ))
is "$(awk '$3 == "done" { print $1 }' "$T_DIR/lines" | sort -u | wc -l)" \
    "$want" "every step's work was done, by a completed row ($again more by rows killed before their end was committed)"
lost=""
for g in $acked; do
	st=$(pg_sql "SELECT status FROM workflow_steps WHERE id = $g")
	case $st in waiting|"") lost="$lost $g" ;; esac
done
is "$lost" "" "no acknowledged approval was lost: $(echo $lost | wc -w) lost of $(echo $acked | wc -w) approvals"
cl_sluice "$leader" audit --verify >"$T_DIR/verify" 2>&1
ok $? "audit --verify is clean"
# The cases below need a leader that runs and the others standing by:
# one may have superseded itself meanwhile (load), and stopped.
now_leading
for n in 1 2 3; do
	gone "$(node_pid "$n")" && node_start "$n"
done

# long_start: the long step started on the leader ($step its pid, $escaped
# the pid of what it started in a session of its own), which becomes $old,
# from $t0 on.
long_start() {
	rm -f "$T_DIR/long.pid" "$T_DIR/escaped.pid"
	cl_sluice "$leader" run "$T_DIR/long.json" >/dev/null
	i=0
	while [ ! -s "$T_DIR/long.pid" ] && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	step=$(cat "$T_DIR/long.pid")
	escaped=$(cat "$T_DIR/escaped.pid")
	old=$leader
	t0=$(now_ms)
}

# watch_takeover: for up to 10 s after $t0, when $step and $escaped were
# seen gone ($gone_at, $esc_at) and when a new epoch led ($led_at,
# $leader, $epoch).
watch_takeover() {
	gone_at=""
	esc_at=""
	led_at=""
	_end=$((t0 + 10000))
	while [ "$(now_ms)" -le "$_end" ]; do
		[ -z "$gone_at" ] && gone "$step" && gone_at=$(now_ms)
		[ -z "$esc_at" ] && gone "$escaped" && esc_at=$(now_ms)
		if [ -z "$led_at" ]; then
			set -- $(leader_wait $((epoch + 1)) 0)
			[ -n "${1:-}" ] && { led_at=$(now_ms); leader=$1 epoch=$2; }
		fi
		[ -n "$gone_at" ] && [ -n "$esc_at" ] && [ -n "$led_at" ] &&
		    break
		sleep 0.01
	done
}

# SIGSTOP 10 s: the old leader's step is gone by its deadline.
cat >"$T_DIR/long.json" <<JSON
{"work": {"shell": "setsid sleep 60 & echo \$! > $T_DIR/escaped.pid; echo \$\$ > $T_DIR/long.pid; sleep 60; echo long >> $T_DIR/long.ledger", "on_interrupt": "fail", "done": true}}
JSON
long_start
kill -STOP "$(node_pid "$old")"
watch_takeover
[ -n "$led_at" ] && [ $((led_at - t0)) -le $((L + 500)) ]
ok $? "leader SIGSTOPped: a standby leads within L + 0.5 s ($((${led_at:-0} - t0)) ms)"
[ -n "$gone_at" ] && [ $((gone_at - t0)) -le "$L" ]
ok $? "  the old leader's step is gone by its deadline ($((${gone_at:-0} - t0)) ms)"
[ -n "$esc_at" ] && [ $((esc_at - t0)) -le "$L" ]
ok $? "  and what it started with setsid, out of its group ($((${esc_at:-0} - t0)) ms)"
[ -n "$gone_at" ] && [ -n "$led_at" ] && [ "$gone_at" -le $((led_at + 50)) ]
ok $? "  and before the new leader could act"
sleep $(( (10000 - ($(now_ms) - t0)) / 1000 ))
kill -CONT "$(node_pid "$old")"
wait "$(node_pid "$old")"
rc=$?
ok $((rc == 0)) "continued, the old leader exits (status $rc)"
like "$(tail -3 "$T_DIR/n$old.err")" "superseded" "  saying it was superseded"
is "$(cat "$T_DIR/long.ledger" 2>/dev/null)" "" "  its step never finished its work"
node_start "$old"

# The partition: the leader's forwarder stops.
long_start
kill -STOP "$(fwd_pid "$old")"
watch_takeover
[ -n "$gone_at" ] && [ $((gone_at - t0)) -le "$L" ]
ok $? "leader cut off: its step is gone by its deadline ($((${gone_at:-0} - t0)) ms)"
[ -n "$esc_at" ] && [ $((esc_at - t0)) -le "$L" ]
ok $? "  and what it started with setsid ($((${esc_at:-0} - t0)) ms)"
[ -n "$led_at" ] && [ $((led_at - t0)) -le $((L + 500)) ]
ok $? "  a standby leads within L + 0.5 s ($((${led_at:-0} - t0)) ms)"
kill -0 "$(node_pid "$old")" 2>/dev/null
ok $? "  the old leader still runs, cut off"
kill -CONT "$(fwd_pid "$old")"
wait "$(node_pid "$old")"
rc=$?
ok $((rc == 0)) "healed, the old leader exits (status $rc)"
like "$(tail -3 "$T_DIR/n$old.err")" "superseded" "  refused: superseded"
node_start "$old"

# Split brain forced: the leader's lock session is terminated.
old=$leader
oldepoch=$epoch
n=$(pg_sql "SELECT count(pg_terminate_backend(pid)) FROM pg_locks
    WHERE locktype = 'advisory' AND granted")
is "$n" 1 "the leader's lock session is terminated"
set -- $(leader_wait $((epoch + 1)) 5000)
[ -n "${1:-}" ] && leader=$1 epoch=$2
ok $([ -n "${1:-}" ] && [ "$1" != "$old" ]; echo $?) "another node leads (epoch $epoch)"
i=0
while kill -0 "$(node_pid "$old")" 2>/dev/null && ! gone "$(node_pid "$old")" &&
    [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
gone "$(node_pid "$old")"
ok $? "the old leader has stopped"
like "$(tail -3 "$T_DIR/n$old.err")" "superseded" "  superseded"
is "$(pg_sql "SELECT epoch FROM engine")" "$epoch" \
    "one epoch commits: the new leader's ($oldepoch, then $epoch)"

# An idle leader cut off: its socket is pinged every 100 ms until 4 s
# after the cut (its deadline is at most 2.5 s away, its stop at least
# 4.75 s; by the clock, however late python starts), each ping given
# 1 s; printed: the pings answered, the pings sent, the slowest answer
# in ms.
node_start "$old"
standing_by "$old"
old=$leader
cl_cut "$old"
[ -n "$cut_led" ] && [ $((t1 - t0)) -le $((L + 500)) ]
ok $? "idle leader cut off: a standby leads within L + 0.5 s ($((t1 - t0)) ms)"
set -- $(cat "$T_DIR/pings")
[ "${1:-0}" -gt 10 ] && [ "$1" = "$2" ] && [ "$3" -lt 100 ]
ok $? "  its socket answered every ping within 100 ms meanwhile (${1:-0} of ${2:-0}, slowest ${3:-?} ms)"
grep -q "fenced: the heartbeat has had no answer" "$T_DIR/n$old.err"
ok $? "  at its deadline it said it was fenced"
i=0
while ! gone "$(node_pid "$old")" && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
gone "$(node_pid "$old")"
ok $? "  it stopped, cut off still ($(( $(now_ms) - t0 )) ms after the cut)"
like "$(tail -3 "$T_DIR/n$old.err")" "heartbeat has had no answer for" \
    "  as superseded: its heartbeat had no answer"
kill -CONT "$(fwd_pid "$old")"

cl_done
