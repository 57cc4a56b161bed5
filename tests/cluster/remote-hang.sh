#!/bin/sh
# remote-hang.sh: a remote step whose host hangs during a takeover
# (SPEC §14).  Three engine nodes on a PostgreSQL of our own; a real sshd
# on 127.0.0.1 (tests/sshd-lib.sh) behind a TCP forwarder, whose SIGSTOP
# is the host hanging.  Two runs start a remote step each, with
# on_interrupt retry, whose command writes a side-effect line and then
# runs on; the host hangs, the leader is killed -9.
#
# - the new leader cannot confirm how the steps ended: each becomes an
#   ask gate (gates, show --json), whatever on_interrupt says;
# - no side-effect line was written twice: nothing ran again unasked,
#   though the host answers again;
# - approved, one runs again (its line twice) and its run completes;
#   skipped, the other does not, and its run goes on past it.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
SSHD_THEN=cl_cleanup
. "$TOP_SRCDIR/tests/sshd-lib.sh"

sshd_setup
ok 0 "sshd runs on 127.0.0.1:$port and takes the test's key"
# The host, as the engines reach it: through a forwarder.
"$FWD" "$T_DIR/hostfwd.port" "$port" &
HOSTFWD=$!
CL_PIDS="$CL_PIDS $HOSTFWD"
i=0
while [ ! -s "$T_DIR/hostfwd.port" ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
sed -i "s/^\([[:space:]]*Port\) $port\$/\\1 $(cat "$T_DIR/hostfwd.port")/" \
    "$T_DIR/ssh_config"
ssh -o BatchMode=yes -o ConnectTimeout=5 sluicetest true </dev/null
ok $? "  reached through the forwarder"

cl_setup
cl_start_nodes

# The remote command writes its line, then, the first time, runs on
# (the step the takeover interrupts); run again, it ends.
REMOTE="$T_DIR/remote"
cat >"$T_DIR/remote.json" <<JSON
{
 "work": {"host": "sluicetest", "on_interrupt": "retry",
   "run": ["sh", "-c", "echo side:\$1 >> $REMOTE/ledger; echo \$\$ > $REMOTE/\$1-\$\$.pid; [ -e $REMOTE/\$1.once ] && exit 0; : > $REMOTE/\$1.once; exec sleep 600", "x", "{{input.tag}}"],
   "next": "after"},
 "after": {"shell": "echo after:\$TAG >> $T_DIR/ledger", "env": {"TAG": "{{input.tag}}"}, "done": true}
}
JSON
wfa=$(cl_sluice 1 run "$T_DIR/remote.json" -i tag=a)
wfb=$(cl_sluice 1 run "$T_DIR/remote.json" -i tag=b)
ok $([ -n "$wfa" ] && [ -n "$wfb" ]; echo $?) "two runs with a remote step start"
i=0
while [ "$(grep -c '^side:' "$REMOTE/ledger" 2>/dev/null)" != 2 ] && [ $i -lt 400 ]; do
	sleep 0.05; i=$((i + 1))
done
is "$(sort "$REMOTE/ledger" 2>/dev/null | tr '\n' ' ')" "side:a side:b " \
    "  each remote command wrote its line and runs on"

# The host hangs; the leader dies.
kill -STOP "$HOSTFWD"
sleep 0.3
t0=$(now_ms)
kill -9 "$(node_pid 1)"
set -- $(leader_wait $((epoch + 1)) 10000)
ok $([ -n "${1:-}" ]; echo $?) "a standby leads ($(( $(now_ms) - t0 )) ms after the kill)"
leader=${1:-2}
sleep 1
kill -CONT "$HOSTFWD"		# the host answers again

# asked WF: the run's remote step waits as an ask gate.
asked() {
	[ "$(pg_sql "SELECT count(*) FROM workflow_steps WHERE workflow_id = $1
	    AND name = 'work' AND status = 'waiting'")" = 1 ]
}
end=$(( $(now_ms) + 20000 ))
while ! { asked "$wfa" && asked "$wfb"; } && [ "$(now_ms)" -le "$end" ]; do
	sleep 0.1
done
asked "$wfa" && asked "$wfb"
ok $? "each interrupted remote step becomes a gate ($(( $(now_ms) - t0 )) ms after the kill)"
cl_sluice "$leader" gates --json >"$T_DIR/gates.json" 2>&1
is "$(grep -c '"message": "step work was running when the engine stopped; approve to run it again, reject to fail it"' "$T_DIR/gates.json")" 2 \
    "  the gates queue asks whether to run each again"
cl_sluice "$leader" show "$wfa" --json >"$T_DIR/show.json" 2>&1
like "$(tr -d '\n' <"$T_DIR/show.json")" '"status": "cancelled"' \
    "  show --json: the interrupted row is cancelled"
like "$(tr -d '\n' <"$T_DIR/show.json")" '"status": "waiting"' \
    "  and a new one waits"
is "$(pg_sql "SELECT string_agg(status || ':' || coalesce(error, ''), ','
    ORDER BY id) FROM workflow_steps WHERE workflow_id = $wfa")" \
    "cancelled:interrupted: the engine stopped while it ran,waiting:" \
    "  whatever on_interrupt (retry) says"
sleep 2
is "$(sort "$REMOTE/ledger" | tr '\n' ' ')" "side:a side:b " \
    "no remote command ran again unasked, the host up again"

ask_a=$(pg_sql "SELECT id FROM workflow_steps WHERE workflow_id = $wfa
    AND status = 'waiting'")
ask_b=$(pg_sql "SELECT id FROM workflow_steps WHERE workflow_id = $wfb
    AND status = 'waiting'")
cl_sluice "$leader" approve "$ask_a" -m "it did not finish" >/dev/null
ok $? "approve run $wfa's gate: run it again"
cl_sluice "$leader" skip "$ask_b" -m "it did its work" >/dev/null
ok $? "skip run $wfb's gate"

# ended WF: the run has ended.
ended() {
	case $(pg_sql "SELECT status FROM workflows WHERE id = $1") in
	completed|failed|cancelled) return 0 ;;
	esac
	return 1
}
end=$(( $(now_ms) + 30000 ))
while ! { ended "$wfa" && ended "$wfb"; } && [ "$(now_ms)" -le "$end" ]; do
	sleep 0.1
done
is "$(pg_sql "SELECT status FROM workflows WHERE id = $wfa")" completed \
    "run $wfa completes"
is "$(grep -c '^side:a$' "$REMOTE/ledger")" 2 "  its remote command ran again, once"
is "$(pg_sql "SELECT status FROM workflows WHERE id = $wfb")" completed \
    "run $wfb completes"
is "$(grep -c '^side:b$' "$REMOTE/ledger")" 1 "  its remote command did not run again"
is "$(sort "$T_DIR/ledger" | tr '\n' ' ')" "after:a after:b " \
    "both runs went on past the remote step"
cl_sluice "$leader" audit --verify >"$T_DIR/verify" 2>&1
ok $? "audit --verify is clean"

cl_done
