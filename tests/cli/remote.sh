#!/bin/sh
# tests/cli/remote.sh: remote steps against a real sshd.  The test starts
# OpenSSH's sshd on 127.0.0.1 at a free high port with a throwaway host
# key, and logs in with a throwaway user key (as a throwaway account when
# run as root, else as the current user).  A remote step's output, stderr
# and exit status come back as for a local step; cancelling the workflow,
# and a step's timeout, end the remote command too (its pid, written by
# the command, is gone), not only the local ssh client.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/sshd-lib.sh"
sshd_setup
ok 0 "sshd runs on 127.0.0.1:$port and takes the test's key"

engine_start

# --- a remote step behaves as a local one ----------------------------------

cat >"$T_DIR/plain.json" <<'EOF'
{"start": {"host": "sluicetest",
   "run": ["sh", "-c", "echo \"out $1\"; echo err >&2; exit 3", "x", "it's"],
   "retry": {"max_attempts": 1}}}
EOF
run_sluice run --wait "$T_DIR/plain.json"
expect_rc 1 "a remote step that exits 3 fails its run"
ID=$(new_id)
q_is "SELECT result_json, exit_code, error, host FROM workflow_steps
    WHERE workflow_id = $ID" "\"out it's\"|3|exit status 3|sluicetest" \
    "its stdout is the result and its exit status is kept"
run_sluice log "$(step_id "$ID" start)"
like "$OUT" "err" "its stderr is in the log"

# --- cancel, and a timeout, end the remote command --------------------------
# Both wait for the remote watcher, which looks once a second: the two runs
# go at once, the timeout's counting while the cancel is seen to.  Two
# logins at once take longer under load: the timeout is 2 s, so that the
# slow command is sure to be seen running first.  Each case is reported in
# its place.

cat >"$T_DIR/long.json" <<EOF
{"start": {"host": "sluicetest",
   "run": ["sh", "-c", "echo \$\$ >$T_DIR/remote/\$1.pid; exec sleep 300",
     "x", "{{input.tag}}"]}}
EOF
cat >"$T_DIR/slow.json" <<EOF
{"start": {"host": "sluicetest", "timeout": "2s",
   "retry": {"max_attempts": 1},
   "run": ["sh", "-c", "echo \$\$ >$T_DIR/remote/slow.pid; exec sleep 300"]}}
EOF
# remote_alive TAG: the remote command wrote its pid and still runs.
remote_alive() {
	[ -s "$T_DIR/remote/$1.pid" ] && alive "$(cat "$T_DIR/remote/$1.pid")"
}
run_sluice run "$T_DIR/slow.json"
SID=$OUT
run_sluice run "$T_DIR/long.json" -i tag=cancel
ID=$OUT
# The slow one first: its timeout ends it soon.
wait_for remote_alive slow
slow_ran=$?
srpid=$(cat "$T_DIR/remote/slow.pid" 2>/dev/null)
wait_for remote_alive cancel
ok $? "the remote command runs"
rpid=$(cat "$T_DIR/remote/cancel.pid")
# pid_recorded WF: the step row names its (local ssh) process.
pid_recorded() {
	[ -n "$(q "SELECT pid FROM workflow_steps WHERE workflow_id = $1
	    AND pid > 0")" ]
}
wait_for pid_recorded "$ID"
lpid=$(q "SELECT pid FROM workflow_steps WHERE workflow_id = $ID")
run_sluice cancel "$ID" -m "enough"
expect_rc 0 "cancel the workflow"
wait_for dead "$lpid"
ok $? "the local ssh client is gone"
wait_for dead "$rpid"
ok $? "the remote command is gone too"

ok "$slow_ran" "the slow remote command runs"
wait_for wf_is "$SID" failed
q_is "SELECT error FROM workflow_steps WHERE workflow_id = $SID" timeout \
    "the step times out"
[ -n "$srpid" ] && wait_for dead "$srpid"
ok $? "the remote command is gone after the timeout"

# --- a for-each targets its items as hosts -----------------------------------
# host "{{item}}": one command per host, the row keeps the host it ran on;
# cancelling mid-batch ends every remote command; a hostile item fails its
# own row with the reason and never reaches ssh, the others run.

cat >"$T_DIR/fleet.json" <<'EOF'
{"start": {"foreach": "{{input.hosts}}", "concurrency": 5,
   "do": {"host": "{{item}}", "retry": {"max_attempts": 1},
     "run": ["sh", "-c", "echo \"$1 on $(hostname)\"", "x", "{{item}}"]}}}
EOF
run_sluice run --wait "$T_DIR/fleet.json" \
    -i hosts:='["web-01","web-02","web-03","web-04","web-05"]'
expect_rc 0 "a for-each over five hosts completes"
ID=$(new_id)
q_is "SELECT group_concat(host, ' ') FROM (SELECT host FROM workflow_steps
    WHERE workflow_id = $ID AND item_index IS NOT NULL ORDER BY item_index)" \
    "web-01 web-02 web-03 web-04 web-05" "each item ran on its own host"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND item_index IS NOT NULL AND result_json LIKE '\"web-0_ on %'" 5 \
    "each host ran the command once"

cat >"$T_DIR/fleetlong.json" <<EOF
{"start": {"foreach": "{{input.hosts}}", "concurrency": 2,
   "do": {"host": "{{item}}",
     "run": ["sh", "-c", "echo \$\$ >$T_DIR/remote/\$1.pid; exec sleep 300",
       "x", "{{item}}"]}}}
EOF
rm -f "$T_DIR"/remote/web-0*.pid
run_sluice run "$T_DIR/fleetlong.json" \
    -i hosts:='["web-01","web-02","web-03","web-04","web-05"]'
ID=$OUT
wait_for remote_alive web-01 && wait_for remote_alive web-02
ok $? "the first batch runs on its hosts"
p1=$(cat "$T_DIR/remote/web-01.pid")
p2=$(cat "$T_DIR/remote/web-02.pid")
run_sluice cancel "$ID" -m "enough"
expect_rc 0 "cancel the for-each mid-batch"
wait_for wf_is "$ID" cancelled
wait_for dead "$p1" && wait_for dead "$p2"
ok $? "no remote command is left"
is "$(ls "$T_DIR"/remote/web-0[345].pid 2>/dev/null)" "" \
    "the later items never started"

rm -f "$T_DIR/pwned"
cat >"$T_DIR/hostile.json" <<EOF
{"start": {"foreach": ["web-01", "-oProxyCommand=touch $T_DIR/pwned"],
   "do": {"host": "{{item}}", "run": ["true"]}}}
EOF
run_sluice run --wait "$T_DIR/hostile.json"
expect_rc 1 "a for-each with a hostile item fails"
ID=$(new_id)
q_is "SELECT status, attempt FROM workflow_steps WHERE workflow_id = $ID
    AND item_index = 0" "done|1" "the good item ran"
q_is "SELECT status, attempt, host IS NULL FROM workflow_steps
    WHERE workflow_id = $ID AND item_index = 1" "failed|1|1" \
    "the hostile item failed once, with no host"
like "$(q "SELECT error FROM workflow_steps WHERE workflow_id = $ID
    AND item_index = 1")" \
    "bad host \"-oProxyCommand=touch $T_DIR/pwned\" (from \"{{item}}\"): it must not start with '-'" \
    "its reason names the value"
[ ! -e "$T_DIR/pwned" ]
ok $? "ssh never ran the item's command"

engine_stop
done_testing
