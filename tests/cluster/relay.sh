#!/bin/sh
# relay.sh: every cluster node serves operators (SPEC §14, sluice(1)
# CLUSTER).  A primary with a synchronous standby, three engine nodes;
# a real member account (useradd) speaks only to a standby's socket:
#
# - its approval is relayed to the leader (inbox row + NOTIFY), applied
#   exactly once, and the next step starts; the audit row names the
#   member and the node it came through;
# - a standby killed (-9) after it relayed a command and before it
#   answered: "sluice request ID" on another node says applied;
# - list and show --json on a standby equal the leader's;
# - a console subscribed on each of the three nodes hears "changed" after
#   a commit (the delays are printed; bench/cluster-approve.sh owns the
#   100 ms goal);
# - the standby that takes over keeps its subscribed client, and answers
#   a command it relayed while the leader was frozen.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"

cl_account rlm

PY=$(command -v python3) || skip_all "needs python3 for a raw socket client"

# member N ARGS...: sluice as the member, on node N's socket; $RC, $OUT,
# $ERR.
member() {
	_n=$1; shift
	cl_member "$MEMBER" "$(eval echo "\$NODE_DB_$_n")" "$_n" "$@"
}

# open_sock N: node N's socket, once there, the member's to connect to.
open_sock() {
	cl_open_sock "$1" "$MEMBER"
}

# status_of ID: a step row's status.
status_of() {
	pg_sql "SELECT status FROM workflow_steps WHERE id = $1"
}

# status_is ID STATUS: a step row's status is STATUS (for wait_for).
status_is() {
	[ "$(status_of "$1")" = "$2" ]
}

cl_setup standby
node_start 1
set -- $(leader_wait 1 20000)
is "${1:-}" 1 "the first node leads"
node_start 2
SLUICE_TEST_HOLD=relayed
export SLUICE_TEST_HOLD
node_start 3		# stops itself once it has relayed (the kill below)
unset SLUICE_TEST_HOLD
standing_by 2 && standing_by 3
ok $? "the other two stand by"
for n in 1 2 3; do open_sock $n; done
ok "$([ -S "$T_DIR/n2.sock" ] && [ -S "$T_DIR/n3.sock" ] && echo 0 || echo 1)" \
    "the standbys listen on their sockets while standing by"

cat >"$T_DIR/gate.json" <<JSON
{
 "ask": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"shell": "echo after:\$SLUICE_WORKFLOW_ID >> $T_DIR/ledger"}
}
JSON
: >"$T_DIR/ledger"
chmod 0644 "$T_DIR/gate.json"

# --- an approval through a standby's socket ---------------------------------
wf=$(cl_sluice 1 run "$T_DIR/gate.json")
ask=$(step_of "$wf" ask)
wait_for status_is "$ask" waiting
ok $? "the gate waits (run $wf, step $ask)"
t0=$(now_ms)
member 2 approve "$ask" -m "via n2"
t1=$(now_ms)
is "$RC" 0 "the member's approval through standby n2 is answered 0"
like "$OUT" "approved" "with the leader's answer ($OUT)"
echo "# approve through the standby answered in $((t1 - t0)) ms (loaded host)"
after=""
i=0
while [ -z "$after" ] && [ $i -lt 200 ]; do
	after=$(step_of "$wf" after)
	[ -n "$after" ] && [ "$(status_of "$after")" = done ] || after=""
	[ -z "$after" ] && { sleep 0.05; i=$((i + 1)); }
done
ok "$([ -n "$after" ] && echo 0 || echo 1)" "the next step started and ended"
is "$(grep -c "^after:$wf\$" "$T_DIR/ledger")" 1 "it ran once"
is "$(pg_sql "SELECT count(*) FROM approvals WHERE step_id = $ask")" 1 \
    "one approval recorded"
is "$(pg_sql "SELECT who || ' ' || uid || ' ' || coalesce(node, '-') FROM audit
    WHERE step_id = $ask AND action = 'approve'")" \
    "$MEMBER $(id -u "$MEMBER") n2" \
    "the audit row names the member (peer credentials) and node n2"
is "$(pg_sql "SELECT node FROM inbox WHERE request IS NOT NULL
    AND step_id = $ask")" n2 "the relayed inbox row names n2"
member 2 approve "$ask" -m "again"
ok "$([ "$RC" -ne 0 ] && echo 0 || echo 1)" \
    "approving the decided gate again is refused ($ERR)"
is "$(pg_sql "SELECT count(*) FROM approvals WHERE step_id = $ask")" 1 \
    "still one approval"
member 1 audit --verify
is "$RC" 0 "audit --verify is clean with node on the rows"

# --- the standby dies after relaying, before answering ----------------------
wf2=$(cl_sluice 1 run "$T_DIR/gate.json")
ask2=$(step_of "$wf2" ask)
wait_for status_is "$ask2" waiting
setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups \
    env SLUICE_SOCKET="$T_DIR/n3.sock" HOME="$T_DIR" \
    "$SLUICE" --db "$NODE_DB_3" approve "$ask2" >"$T_DIR/m3.out" \
    2>"$T_DIR/m3.err" </dev/null &
cpid=$!
i=0
while [ "$(pg_sql "SELECT state FROM inbox WHERE node = 'n3'
    AND step_id = $ask2")" != done ] && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
is "$(sed 's/.*) //' "/proc/$(node_pid 3)/stat" | cut -c1)" T \
    "standby n3 is held after relaying"
kill -9 "$(node_pid 3)"
wait "$cpid"
echo "# the member's client: rc $? $(tr '\n' ' ' <"$T_DIR/m3.err")"
req=$(pg_sql "SELECT request FROM inbox WHERE node = 'n3' AND step_id = $ask2")
ok "$([ -n "$req" ] && echo 0 || echo 1)" "the relayed row carries request id $req"
member 2 request "$req"
is "$RC" 0 "'sluice request ID' on n2 says applied"
like "$OUT$ERR" "applied" "in words ($OUT)"
wait_for status_is "$(step_of "$wf2" after)" done
ok $? "the run went on"

# --- reads on a standby equal the leader's ----------------------------------
member 1 list --json; l1=$OUT
member 2 list --json; l2=$OUT
ok "$([ -n "$l1" ] && [ "$l1" = "$l2" ] && echo 0 || echo 1)" \
    "list --json on standby n2 equals the leader's"
member 1 show "$wf" --json; s1=$OUT
member 2 show "$wf" --json; s2=$OUT
ok "$([ -n "$s1" ] && [ "$s1" = "$s2" ] && echo 0 || echo 1)" \
    "show --json on standby n2 equals the leader's"

# --- consoles on three nodes hear "changed" ---------------------------------
node_start 3
standing_by 3 || true
i=0
while [ "$(grep -c "standing by" "$T_DIR/n3.err")" -lt 2 ] && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
open_sock 3
cat >"$T_DIR/sub.py" <<'PY'
import json, socket, subprocess, sys, time
socks = []
for path in sys.argv[1:4]:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"command":"subscribe"}\n')
    f = s.makefile("rb")
    line = f.readline()
    if b"subscribed" not in line:
        print("no subscription on", path, line); sys.exit(1)
    socks.append((s, f))
t0 = time.monotonic()
subprocess.run(sys.argv[4:], check=True, stdout=subprocess.DEVNULL)
print("# the run command took %.1f ms" % ((time.monotonic() - t0) * 1000))
for s, f in socks:
    s.settimeout(5)
    try:
        while json.loads(f.readline()).get("event") != "changed":
            pass
        print("%.1f" % ((time.monotonic() - t0) * 1000))
    except Exception as e:
        print("none")
PY
delays=$("$PY" "$T_DIR/sub.py" "$T_DIR/n1.sock" "$T_DIR/n2.sock" \
    "$T_DIR/n3.sock" env SLUICE_SOCKET="$T_DIR/n1.sock" "$SLUICE" \
    --db "$NODE_DB_1" run "$T_DIR/gate.json" 2>"$T_DIR/sub.err")
echo "$delays" | grep '^#'
echo "# \"changed\" on n1 n2 n3, ms from the run command's start: $(echo $(echo "$delays" | grep -v '^#'))"
is "$(echo "$delays" | grep -c '^[0-9]')" 3 "a console on each node heard \"changed\""
is "$(pg_sql "SELECT coalesce(node, '-') FROM audit WHERE action = 'start'
    ORDER BY id DESC LIMIT 1")" n1 "a start through the leader's socket names n1"

# --- the standby that takes over keeps its subscribed client -----------------
"$PY" - "$T_DIR/n2.sock" "$T_DIR/n2.kept" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"command":"subscribe"}\n')
f = s.makefile("rb")
f.readline()
open(sys.argv[2] + ".sub", "w").write("subscribed\n")
s.settimeout(20)
try:
    for line in f:
        if b"changed" in line:
            open(sys.argv[2], "w").write("changed\n")
            s.sendall(b'{"command":"ping"}\n')
            open(sys.argv[2], "a").write(f.readline().decode())
            break
except Exception:
    pass
PY
kpid=$!
i=0
while [ ! -s "$T_DIR/n2.kept.sub" ] && [ $i -lt 400 ]; do
	sleep 0.05; i=$((i + 1))
done
kill -9 "$(node_pid 3)"	# n2 is the one standby left
kill -9 "$(node_pid 1)"
set -- $(leader_wait 2 20000)
is "${1:-}" 2 "n2 leads once n1 is killed"
cl_sluice 2 run "$T_DIR/gate.json" >/dev/null
wait "$kpid"
like "$(cat "$T_DIR/n2.kept" 2>/dev/null)" '"role":"leader"' \
    "n2's subscribed client stayed connected across its takeover"

# --- relayed while the leader is frozen: the standby that takes over answers
wf4=$(cl_sluice 2 run "$T_DIR/gate.json")
ask4=$(step_of "$wf4" ask)
wait_for status_is "$ask4" waiting
node_start 1
standing_by 1
open_sock 1
kill -STOP "$(node_pid 2)"
t0=$(now_ms)
member 1 approve "$ask4" -m "while n2 is frozen"
t1=$(now_ms)
is "$RC" 0 "a command relayed while the leader is frozen is answered 0 ($ERR)"
like "$OUT" "approved" "by n1, which took over with it waiting ($((t1 - t0)) ms)"
wait_for status_is "$(step_of "$wf4" after)" done
ok $? "and the run went on"
kill -CONT "$(node_pid 2)"

done_testing
