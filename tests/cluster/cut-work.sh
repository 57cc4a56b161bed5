#!/bin/sh
# cut-work.sh: a leader cut off from PostgreSQL (its forwarder stopped)
# with stored work that falls due during the cut never blocks on its own
# connection (SPEC §14, sluice(1) CLUSTER).  Three rounds, each on the
# node that leads then, with one piece of work:
#
# - retry: a retry's backoff timer fires during the cut;
# - gate:  a gate's timeout passes during the cut;
# - step:  a step finishes during the cut (its end is a write).
#
# First an idle leader whose members' reads are cut off with it: a read
# is answered within 3.5 s, with why.  Then in each round: the node's
# socket answers every ping within 250 ms until 3 s into the cut (its
# deadline is at most 2.5 s away); a standby leads within L + 0.5 s; L
# after its deadline (at most 5.5 s into the cut) the old leader steps
# down, "database unreachable: no answer in N s", and then a ping says
# so and any other request gets that one line; it stops L later, cut
# off still; once the cut heals, the statement it gave up reaches the
# server and the epoch fence refuses it; the run completes once, on the
# new leader (the retried step's work done once, the finished step's
# never again).  Last, an approval sent to a leader as it is cut off:
# its sender hears why when it steps down, nothing of it commits, and
# the new leader takes the approval.  At the end audit --verify is
# clean.  Before the fix the node's loop blocked in libpq from the
# moment the work fell due until the cut healed: pings went unanswered
# and it did not stop while cut off.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
command -v python3 >/dev/null || skip_all "needs python3 for a raw socket client"

L=3000		# LEADER_LEASE_MS
LEDGER="$T_DIR/ledger"
: >"$LEDGER"
# The finished step's row is held L - margin + the kill grace.
export SLUICE_KILL_GRACE_MS=1000

cl_setup
# Members' reads log in as reader1 through n1's forwarder, so that they
# are cut off with n1 in the first round.
printf '{"cluster": {"reader": "postgresql:host=127.0.0.1 port=%s dbname=sluice user=reader1"}}\n' \
    "$(cat "$T_DIR/f1.port")" >"$T_DIR/site.json"
chmod 0644 "$T_DIR/site.json"
SLUICE_SITE_CONFIG="$T_DIR/site.json"
export SLUICE_SITE_CONFIG
cl_start_nodes
leader=1

cat >"$T_DIR/retry.json" <<JSON
{"start": {"shell": "m=$T_DIR/tried.\$SLUICE_WORKFLOW_ID; [ -e \$m ] || { : >\$m; exit 1; }; echo retry >> $LEDGER",
  "retry": {"max_attempts": 3, "backoff": ["1s"]}}}
JSON
cat >"$T_DIR/gate.json" <<JSON
{"start": {"gate": {"message": "go on?", "timeout": "2s",
  "on_timeout": "reject"}, "next": "after"},
 "after": {"shell": "echo gate >> $LEDGER"}}
JSON
cat >"$T_DIR/step.json" <<JSON
{"start": {"shell": "echo \$\$ > $T_DIR/step.pid; sleep 1; echo step >> $LEDGER",
  "on_interrupt": "fail"}}
JSON

# ask N LINE: one request line on node N's socket, its answer (1 s).
ask() {
	python3 - "$T_DIR/n$1.sock" "$2" <<'PY'
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(1)
    s.connect(sys.argv[1])
    s.sendall(sys.argv[2].encode() + b"\n")
    print(s.makefile("rb").readline().decode().strip())
except OSError as e:
    print("no answer:", e)
PY
}

# due KIND WF: the run's work is about to fall due: cut now.
due() {
	case $1 in
	retry)	pg_is "SELECT count(*) FROM workflow_steps
		    WHERE workflow_id = $2 AND status = 'failed'" 1 ;;
	gate)	pg_is "SELECT count(*) FROM workflow_steps
		    WHERE workflow_id = $2 AND status = 'waiting'" 1 ;;
	step)	test -s "$T_DIR/step.pid" ;;
	esac
}

# bumped EPOCH: the wall ms at which the engine row's epoch passed EPOCH
# (a standby took over: it leads from then on, its recovery to come),
# waited for 10 s at most.
bumped() {
	_end=$(( $(now_ms) + 10000 ))
	while [ "$(pg_sql "SELECT epoch FROM engine")" -le "$1" ] &&
	    [ "$(now_ms)" -lt "$_end" ]; do
		sleep 0.02
	done
	now_ms
}

# stepped_down N COUNT: node N has said it steps down more than COUNT
# times.
stepped_down() {
	[ "$(grep -c "stepping down: " "$T_DIR/n$1.err")" -gt "$2" ]
}

# round KIND STATUS LINES: a run of KIND.json on the leader, cut off as
# its work falls due; the run ends STATUS, the ledger then has LINES
# lines of KIND.
round() {
	kind=$1
	old=$leader
	oldepoch=$epoch
	wf=$(cl_sluice "$old" run "$T_DIR/$kind.json")
	wait_for due "$kind" "$wf"
	ok $? "$kind: n$old leads (epoch $epoch), run $wf's work falls due"
	downs=$(grep -c "stepping down: " "$T_DIR/n$old.err")
	bumped "$epoch" >"$T_DIR/bumped" &
	bpid=$!
	cl_cut "$old" 3000
	wait "$bpid"
	tb=$(cat "$T_DIR/bumped")
	[ -n "$cut_led" ] && [ $((tb - t0)) -le $((L + 500)) ]
	ok $? "  cut off: a standby leads within L + 0.5 s (n$leader took epoch $epoch $((tb - t0)) ms after the cut, said so at $((t1 - t0)) ms)"
	set -- $(cat "$T_DIR/pings")
	[ "${1:-0}" -gt 5 ] && [ "$1" = "$2" ] && [ "$3" -lt 250 ]
	ok $? "  its socket answered every ping within 250 ms (${1:-0} of ${2:-0}, slowest ${3:-?} ms)"
	wait_for stepped_down "$old" "$downs"
	td=$(now_ms)
	grep "stepping down: " "$T_DIR/n$old.err" | tail -1 >"$T_DIR/down"
	like "$(cat "$T_DIR/down")" "database unreachable: no answer in" \
	    "  L after its deadline it stepped down ($((td - t0)) ms after the cut): database unreachable"
	[ $((td - t0)) -le 6500 ]
	ok $? "  by 5.5 s after the cut (and a second to see it)"
	got=$(ask "$old" '{"command": "ping"}')
	like "$got" '"role":"stepped down"' "  a ping says it stepped down"
	got=$(ask "$old" '{"command": "cancel", "workflow_id": '"$wf"'}')
	case $got in
	*'"code":1,"message":"not leading: this node stepped down: '*'database unreachable: no answer in'*) ok 0 "  a command then gets that one line" ;;
	*)	ok 1 "  a command then gets that one line"; echo "#   got: $got" ;;
	esac
	wait_for gone "$(node_pid "$old")"
	ok $? "  it stopped, cut off still ($(( $(now_ms) - t0 )) ms after the cut)"
	like "$(tail -3 "$T_DIR/n$old.err")" "superseded" "  as superseded"
	kill -CONT "$(fwd_pid "$old")"
	wait_for grep -q "engine epoch $oldepoch is stale" "$PG_DIR/primary.log"
	ok $? "  healed, the statement it gave up arrives and the fence refuses it"
}

# ended WF STATUS: run WF has ended STATUS.
ended() {
	wait_for pg_is "SELECT status FROM workflows WHERE id = $1" "$2"
}

# read N SQL: a read on node N's socket: its answer's line, then the ms
# it took (5 s at most).
read_ms() {
	python3 - "$T_DIR/n$1.sock" "$2" <<'PY'
import json, socket, sys, time
t = time.monotonic()
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall((json.dumps({"command": "read", "sql": sys.argv[2],
        "values": []}) + "\n").encode())
    line = s.makefile("rb").readline().decode().strip()
except OSError as e:
    line = "no answer: %s" % e
print(line)
print(int((time.monotonic() - t) * 1000))
PY
}

# An idle leader cut off, its reads with it: a read is answered within
# 3.5 s all the same (an answer is waited for 1 s, a login 2 s), with
# the one line why.
old=$leader
read_ms "$old" "SELECT count(*) FROM workflows" >"$T_DIR/read"
like "$(head -1 "$T_DIR/read")" '"code":0' \
    "read: n$old reads for a member before the cut"
kill -STOP "$(fwd_pid "$old")"
t0=$(now_ms)
sleep 0.5
read_ms "$old" "SELECT count(*) FROM workflows" >"$T_DIR/read"
ms=$(tail -1 "$T_DIR/read")
[ "$ms" -le 3500 ]
ok $? "  cut off, a read is answered within 3.5 s ($ms ms)"
like "$(head -1 "$T_DIR/read")" '"code":1,"message":"members'"'"' reads: ' \
    "  with the one line why"
set -- $(leader_wait $((epoch + 1)) 10000)
[ -n "${1:-}" ] && leader=$1 epoch=$2
ok $? "  a standby leads (n${1:-?}, epoch ${2:-?})"
wait_for gone "$(node_pid "$old")"
ok $? "  it stopped, cut off still ($(( $(now_ms) - t0 )) ms after the cut)"
kill -CONT "$(fwd_pid "$old")"
node_start "$old"
standing_by "$old"

round retry
wf_retry=$wf
ended "$wf_retry" completed
ok $? "  the run completes on the new leader (run $wf_retry)"
is "$(grep -c '^retry$' "$LEDGER")" 1 "  its retried step did its work once"
node_start "$old"
standing_by "$old"

round gate
wf_gate=$wf
ended "$wf_gate" failed
ok $? "  the gate timed out on the new leader: the run fails, rejected"
is "$(grep -c '^gate$' "$LEDGER")" 0 "  the step after the gate never ran"
node_start "$old"
standing_by "$old"

round step
wf_step=$wf
ended "$wf_step" failed
ok $? "  its step was interrupted: the run fails, as on_interrupt says"
is "$(grep -c '^step$' "$LEDGER")" 1 "  the step ran once, never again"

node_start "$old"
standing_by "$old"

# An approval sent to the leader as the cut begins: it is not
# acknowledged (the turn that would apply it never commits), its sender
# hears why by the deadline, and the gate waits for the next leader.
cat >"$T_DIR/approve.json" <<JSON
{"start": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"shell": "echo approve >> $LEDGER"}}
JSON
old=$leader
oldepoch=$epoch
wf=$(cl_sluice "$old" run "$T_DIR/approve.json")
wait_for due gate "$wf"
ok $? "approve: n$old leads (epoch $epoch), run $wf waits at its gate"
sid=$(step_of "$wf" start)
kill -STOP "$(fwd_pid "$old")"
t0=$(now_ms)
python3 - "$T_DIR/n$old.sock" "$wf" "$sid" >"$T_DIR/approved" <<'PY' &
import json, socket, sys, time
t = time.monotonic()
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.sendall((json.dumps({"command": "approve",
        "workflow_id": int(sys.argv[2]),
        "step_id": int(sys.argv[3])}) + "\n").encode())
    line = s.makefile("rb").readline().decode().strip()
except OSError as e:
    line = "no answer: %s" % e
print(line)
print(int((time.monotonic() - t) * 1000))
PY
apid=$!
set -- $(leader_wait $((epoch + 1)) 10000)
[ -n "${1:-}" ] && leader=$1 epoch=$2
ok $? "  cut off: a standby leads (n${1:-?}, epoch ${2:-?})"
wait "$apid"
ms=$(tail -1 "$T_DIR/approved")
case $(head -1 "$T_DIR/approved") in
*'"code":1,"message":"not leading: this node stepped down: '*'database unreachable: no answer in'*)
	[ "$ms" -le 6500 ] ;;
*)	false ;;
esac
ok $? "  the approval's sender hears why as it steps down, by 6.5 s ($ms ms): $(head -1 "$T_DIR/approved" | cut -c1-60)"
wait_for gone "$(node_pid "$old")"
ok $? "  it stopped, cut off still"
kill -CONT "$(fwd_pid "$old")"
sleep 1
is "$(pg_sql "SELECT count(*) FROM approvals WHERE workflow_id = $wf")" 0 \
    "  healed, no approval of it committed"
got=$(ask "$leader" '{"command": "approve", "workflow_id": '"$wf"', "step_id": '"$sid"'}')
like "$got" '"code":0' "  approved on the new leader"
ended "$wf" completed
ok $? "  the run completes"
is "$(grep -c '^approve$' "$LEDGER")" 1 "  the step after the gate ran once"

is "$(pg_sql "SELECT count(*) FROM workflows WHERE status NOT IN
    ('completed', 'failed')")" 0 "every run has ended"
cl_sluice "$leader" audit --verify >"$T_DIR/verify" 2>&1
ok $? "audit --verify is clean"

cl_done
