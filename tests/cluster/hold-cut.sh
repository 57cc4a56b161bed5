#!/bin/sh
# hold-cut.sh: a leader that takes over holds the old leader's running
# rows until that leader's deadline and the kill grace have passed
# (SPEC §14), then releases them to their on_interrupt: a read and a
# write on its connection to PostgreSQL.  Cut off from PostgreSQL (its
# forwarder stopped) while it holds them, it must not hang in that
# release: its socket answers every ping within 100 ms all along, it
# stops as superseded L after its deadline, cut off still, and the node
# that leads next releases the row (on_interrupt fail: the run fails).
# Before the fix the release blocked the loop until the cut healed: the
# pings went unanswered from the hold's end on and the leader never
# stopped while cut off.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
command -v python3 >/dev/null || skip_all "needs python3 for a raw socket client"

# The hold is L - margin (2.5 s) + the kill grace: 3.5 s with 1 s.
export SLUICE_KILL_GRACE_MS=1000
cl_setup
cl_start_nodes

cat >"$T_DIR/long.json" <<JSON
{"work": {"shell": "echo \$\$ > $T_DIR/long.pid; sleep 60", "on_interrupt": "fail", "done": true}}
JSON
wf=$(cl_sluice 1 run "$T_DIR/long.json")
wait_for test -s "$T_DIR/long.pid"
ok $? "n1 runs the step (run $wf)"
kill -9 "$(node_pid 1)"
set -- $(leader_wait $((epoch + 1)) 10000)
ok $? "n1 killed: n${1:-?} leads (epoch ${2:-?}), holding its row"
held=${1:-2} epoch=${2:-0}
# Cut 1.5 s after it leads: the hold ends 2 s into the cut, before its
# deadline's end (at least 4.75 s into it).
sleep 1.5
kill -STOP "$(fwd_pid "$held")"
t0=$(now_ms)
# Its socket pinged every 100 ms until 4 s after the cut (cl_pings).
cl_pings "$held" $((t0 + 4000)) >"$T_DIR/pings" &
wait $!
set -- $(cat "$T_DIR/pings")
[ "${1:-0}" -gt 10 ] && [ "$1" = "$2" ] && [ "$3" -lt 100 ]
ok $? "cut off as its hold ends, its socket answered every ping within 100 ms (${1:-0} of ${2:-0}, slowest ${3:-?} ms)"
# It stops L after its deadline: at most 2.5 + 3 s after the cut; 5 s more
# are given.
wait_for gone "$(node_pid "$held")"
ok $? "  it stopped, cut off still ($(( $(now_ms) - t0 )) ms after the cut)"
like "$(tail -3 "$T_DIR/n$held.err")" "heartbeat has had no answer for" \
    "  as superseded: its heartbeat had no answer"
kill -CONT "$(fwd_pid "$held")"
set -- $(leader_wait $((epoch + 1)) 10000)
ok $? "the third node leads (n${1:-?}, epoch ${2:-?})"
wait_for pg_is "SELECT status FROM workflows WHERE id = $wf" failed
ok $? "  and releases the row: the run fails, as on_interrupt says"
like "$(pg_sql "SELECT error FROM workflow_steps WHERE workflow_id = $wf
    AND name = 'work'")" "interrupted" "  the step was interrupted"

cl_done
