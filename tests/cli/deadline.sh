#!/bin/sh
# tests/cli/deadline.sh: a run's "deadline".  A run unfinished when its
# deadline passes is cancelled with the reason "deadline passed", its
# running process killed, the cancel audited and announced as
# workflow_deadline; a run that ends first is left alone; the timer is
# stored, so a deadline pending when the engine is killed -9 still
# cancels the run under the next engine.  check refuses a deadline that
# is not a duration above zero, and one given both in a template's
# wrapper and in its flow.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

ev="$T_DIR/ev"
mkdir -p "$ev"
cat >"$T_DIR/rec.sh" <<'EOF'
#!/bin/sh
f="$1/$SLUICE_EVENT.$SLUICE_WORKFLOW_ID"
cat >"$f.tmp"
mv "$f.tmp" "$f.json"
EOF
chmod +x "$T_DIR/rec.sh"
printf '{"notify": [{"on": ["workflow_deadline"], "run": ["%s", "%s"]}]}\n' \
    "$T_DIR/rec.sh" "$ev" >"$SLUICE_SITE_CONFIG"

# jv FILE PATH: a member of a JSON file.
jv() {
	sqlite3 :memory: "SELECT json_extract(CAST(readfile('$1') AS TEXT),
	    '$2')"
}

# --- a run past its deadline is cancelled -------------------------------------

cat >"$T_DIR/slow.json" <<EOF
{"deadline": "1s",
 "start": {"run": ["sh", "-c", "echo \$\$ >$T_DIR/slow.pid; exec sleep 60"],
   "next": "after"},
 "after": {"tool": "noop"}}
EOF
run_sluice check "$T_DIR/slow.json"
expect_rc 0 "a flow with a deadline is valid"
like "$OUT" "2 steps" "the deadline is not a step"
engine_start
run_sluice run "$T_DIR/slow.json"
ID=$OUT
wait_for test -s "$T_DIR/slow.pid"
ok $? "the slow step runs"
pid=$(cat "$T_DIR/slow.pid")
wait_for wf_is "$ID" cancelled
ok $? "the run is cancelled when its deadline passes"
q_is "SELECT error FROM workflows WHERE id = $ID" "deadline passed" \
    "the run's reason is deadline passed"
q_is "SELECT status || '|' || error FROM workflow_steps WHERE
    workflow_id = $ID" "cancelled|deadline passed" \
    "its running step is cancelled with the reason; nothing after it runs"
wait_for dead "$pid"
ok $? "the step's process is killed"
q_is "SELECT comment FROM audit WHERE action = 'deadline'
    AND workflow_id = $ID" "deadline passed: unfinished 1s after it started" \
    "the cancel is audited"
wait_for test -f "$ev/workflow_deadline.$ID.json"
ok $? "workflow_deadline is announced"
like "$(jv "$ev/workflow_deadline.$ID.json" '$.message')" \
    "was cancelled: its deadline passed" "its message says why"

# --- a run that ends first is left alone ---------------------------------------

cat >"$T_DIR/quick.json" <<'EOF'
{"deadline": "1s", "start": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/quick.json"
QID=$OUT
wait_for wf_is "$QID" completed
ok $? "a run that ends before its deadline completes"
sleep 1.5
q_is "SELECT status || '|' || coalesce(error, '') FROM workflows
    WHERE id = $QID" "completed|" "the deadline passing later changes nothing"
[ ! -e "$ev/workflow_deadline.$QID.json" ]
ok $? "and announces nothing"

# --- kill -9 while the deadline is pending ------------------------------------

cat >"$T_DIR/crash.json" <<'EOF'
{"deadline": "3s", "start": {"run": ["sleep", "60"], "on_interrupt": "retry"}}
EOF
run_sluice run "$T_DIR/crash.json"
CID=$OUT
wait_for step_is "$CID" start running
engine_crash
q_is "SELECT count(*) FROM timers WHERE kind = 'deadline'
    AND workflow_id = $CID" 1 "the deadline is a stored timer"
engine_start
wait_for wf_is "$CID" cancelled
ok $? "after kill -9 the next engine still cancels the run at its deadline"
q_is "SELECT error FROM workflows WHERE id = $CID" "deadline passed" \
    "with the same reason"
engine_stop

# --- check ------------------------------------------------------------------------

for bad in '"0s"' '"soon"' '-1'; do
	printf '{"deadline": %s, "start": {"tool": "noop"}}\n' "$bad" \
	    >"$T_DIR/bad.json"
	run_sluice check "$T_DIR/bad.json"
	expect_rc 2 "deadline $bad is refused"
	like "$ERR" '$.deadline' "at its path"
done
cat >"$T_DIR/wrap.json" <<'EOF'
{"description": "x", "deadline": "5m",
 "flow": {"start": {"tool": "noop"}}}
EOF
run_sluice template save wrap "$T_DIR/wrap.json"
expect_rc 0 "a template wrapper takes a deadline"
cat >"$T_DIR/twice.json" <<'EOF'
{"description": "x", "deadline": "5m",
 "flow": {"deadline": "1m", "start": {"tool": "noop"}}}
EOF
run_sluice check "$T_DIR/twice.json"
expect_rc 2 "a deadline both in the wrapper and the flow is refused"
like "$ERR" "\"deadline\" is given both here and in the flow" "saying so"

done_testing
