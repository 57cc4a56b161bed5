#!/bin/sh
# tests/cli/service.sh: service mode with real, separate Unix accounts.
# The engine runs as a service account that owns the database directory
# (setgid, not group-writable); team members read the database and send
# every command over the engine's socket.  Forging with sqlite3 (an
# approval, an inbox row, a dropped trigger, any table) fails with the
# OS's refusal; list, gates, show and audit work; every operator action
# works through the socket and is audited with the caller's real uid;
# USER and LOGNAME change nothing; with no engine a member is told what
# to do.  Accounts and groups are made for this run and removed at exit.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

# The console part needs tmux; the rest runs without it.
have_tmux=0
if command -v tmux >/dev/null 2>&1; then
	. "$TOP_SRCDIR/tests/tui-lib.sh"
	have_tmux=1
fi

svc_setup sl

# db_digest: the whole database, read read-only (as q, unlike lib.sh's).
db_digest() {
	sqlite3 -readonly "$SLUICE_DB" .dump | md5sum | cut -d' ' -f1
}

cat >"$flows/gate.json" <<'EOF2'
{"start": {"gate": {"message": "ship?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2
cat >"$flows/hold.json" <<EOF2
{"start": {"shell": "i=0; while [ ! -f $T_DIR/release ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done",
  "next": "after"},
 "after": {"tool": "noop"}}
EOF2
cat >"$flows/boom.json" <<'EOF2'
{"start": {"tool": "fail", "args": {"message": "boom"},
  "retry": {"max_attempts": 1}}}
EOF2
chmod 0644 "$flows"/*.json

# n_steps WF STATUS N: the workflow has N step rows of STATUS.
n_steps() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $1
	    AND status = '$2'")" = "$3" ]
}

# audit_last ACTION: who, uid of the newest audit row of ACTION.
audit_last() {
	q "SELECT who || '|' || uid FROM audit WHERE action = '$1'
	    ORDER BY id DESC LIMIT 1"
}

# --- the engine owns the database -----------------------------------------

svc_engine
ok $? "the engine runs as the service account and listens"
is "$(stat -c '%a %U %G' "$SLUICE_DB")" "600 $svc $grp" \
    "the database is 0600, the service's (members read through the engine)"
is "$(stat -c '%a %G' "$SLUICE_DB-wal") $(stat -c '%a %G' "$SLUICE_DB-shm")" \
    "600 $grp 600 $grp" "its -wal and -shm files too"
is "$(stat -c '%a %U %G' "$SLUICE_DB.sock")" "660 $svc $grp" \
    "the socket is 0660 with the team's group"
is "$(stat -c '%a %U' "$SLUICE_DB.lock")" "600 $svc" \
    "the lock file is the service's alone"
! as "$alice" flock -s -n "$SLUICE_DB.lock" true 2>/dev/null
ok $? "a member cannot hold the engine lock to keep engines from starting"

auid=$(id -u "$alice")
buid=$(id -u "$bob")

# status, as a member: the service engine and its mode; no problem.
run_as "$alice" status
expect_rc 0 "a member's status: no problem while the service engine runs"
like "$OUT" "engine    pid $EPID on " "it names the service engine"
like "$OUT" "(service mode)" "in service mode"
like "$OUT" "(read-only)" "the database read-only to the member"

# --- a member reads and asks ----------------------------------------------

run_as "$alice" run "$flows/gate.json"
expect_rc 0 "a member starts a run through the socket"
wf=$OUT
is "$ERR" "" "no warning: the engine runs"
is "$(audit_last start)" "$alice|$auid" \
    "the start is audited with the member's name and real uid"
wait_for wf_is "$wf" running
step=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $wf AND
    name = 'start'")
wait_for row_is "$step" waiting

for c in list gates "show $wf" audit; do
	# shellcheck disable=SC2086 # c holds a command and its argument
	run_as "$alice" $c
	expect_rc 0 "a member can $c"
done
run_as "$alice" gates --json
like "$OUT" "\"step_id\": $step" "the member sees the gate"
run_as "$alice" show "$wf" --json
like "$OUT" "\"status\": \"running\"" "show reads the run"

# --- forging with sqlite3 is refused by the OS -----------------------------

sum=$(db_digest)
forge() {
	as "$alice" sqlite3 "$SLUICE_DB" "$1" >"$T_DIR/f.out" 2>"$T_DIR/f.err"
	_rc=$?
	[ "$_rc" -ne 0 ]
	ok $? "forging refused: $2"
	like "$(cat "$T_DIR/f.err")" "unable to open database" \
	    "the OS's refusal (the member may not open the file): $2"
}
forge "INSERT INTO approvals (step_id, workflow_id, who, decision, at)
    VALUES ($step, $wf, 'root', 'approve', 0)" "an approvals row"
forge "INSERT INTO inbox (posted_at, uid, who, command, step_id, state)
    VALUES (0, 0, 'root', 'approve', $step, 'new')" "an inbox row"
forge "DROP TRIGGER audit_no_delete" "dropping the audit trigger"
for t in $(q "SELECT name FROM sqlite_master WHERE type = 'table' AND
    name NOT LIKE 'sqlite_%' ORDER BY name"); do
	forge "DELETE FROM $t" "DELETE FROM $t"
done
is "$(db_digest)" "$sum" "the database is unchanged"
as "$alice" sh -c "echo x >>'$SLUICE_DB'" 2>/dev/null
ok $((! $?)) "the member cannot write the database file itself"
as "$alice" sh -c "echo x >'$dir/other.db'" 2>/dev/null
ok $((! $?)) "nor create files in its directory"

# --- decisions through the socket, by the kernel's word --------------------

run_as "$bob" approve "$step" -m "looks right"
expect_rc 0 "another member approves through the socket"
is "$(audit_last approve)" "$bob|$buid" \
    "the approval is audited with the approver's real uid"
q_is "SELECT who FROM approvals WHERE step_id = $step" "$bob" \
    "the approvals row names the real account"
wait_for wf_is "$wf" completed
ok $? "the approved run goes on and completes"

run_as "$alice" run "$flows/gate.json"
wf2=$OUT
wait_for n_steps "$wf2" waiting 1
step2=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $wf2 AND
    name = 'start'")
USER=root LOGNAME=root as "$bob" env USER=root LOGNAME=root \
    "$SLUICE" reject "$step2" -m "not now" >"$T_DIR/out" 2>"$T_DIR/err"
is "$?" 0 "a reject with USER and LOGNAME set to root"
is "$(audit_last reject)" "$bob|$buid" \
    "USER and LOGNAME change nothing: the real account is recorded"
wait_for wf_is "$wf2" failed
ok $? "the rejected run fails"

# --- every operator action -------------------------------------------------

rm -f "$T_DIR/release"
run_as "$alice" run "$flows/hold.json"
wf3=$OUT
wait_for n_steps "$wf3" running 1
run_as "$alice" pause "$wf3"
expect_rc 0 "pause through the socket"
is "$(audit_last pause)" "$alice|$auid" "pause audited with the real uid"
run_as "$bob" resume "$wf3"
expect_rc 0 "resume through the socket"
is "$(audit_last resume)" "$bob|$buid" "resume audited with the real uid"
run_as "$alice" cancel "$wf3" -m "stop"
expect_rc 0 "cancel through the socket"
is "$(audit_last cancel)" "$alice|$auid" "cancel audited with the real uid"
wait_for wf_is "$wf3" cancelled
ok $? "the cancelled run is cancelled"
touch "$T_DIR/release"

run_as "$alice" run "$flows/boom.json"
wf4=$OUT
wait_for wf_is "$wf4" failed
run_as "$bob" retry "$wf4"
expect_rc 0 "retry through the socket"
is "$(audit_last retry)" "$bob|$buid" "retry audited with the real uid"
wait_for wf_is "$wf4" failed
s4=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $wf4
    ORDER BY id DESC LIMIT 1")
run_as "$alice" skip "$s4" -m "known"
expect_rc 0 "skip through the socket"
is "$(audit_last skip)" "$alice|$auid" "skip audited with the real uid"

run_as "$alice" template save svc-gate "$flows/gate.json"
expect_rc 0 "template save through the socket"
is "$OUT" "saved template svc-gate version 1" "it says which version"
is "$(audit_last 'template save')" "$alice|$auid" \
    "the template save is audited with the real uid"
run_as "$alice" template run svc-gate
expect_rc 0 "template run through the socket"
run_as "$alice" cancel "$OUT"
expect_rc 0 "and its run cancelled"
run_as "$bob" schedule add svc-nightly --cron "@daily" --template svc-gate
expect_rc 0 "schedule add through the socket"
is "$(audit_last schedule-add)" "$bob|$buid" \
    "schedule add audited with the real uid"
for v in pause resume; do
	run_as "$bob" schedule "$v" svc-nightly
	expect_rc 0 "schedule $v through the socket"
	is "$(audit_last "schedule-$v")" "$bob|$buid" \
	    "schedule $v audited with the real uid"
done
run_as "$bob" schedule rm svc-nightly
expect_rc 0 "schedule rm through the socket"
run_as "$alice" template rm svc-gate
expect_rc 0 "template rm through the socket"
is "$(audit_last 'template rm')" "$alice|$auid" \
    "the template rm is audited with the real uid"

# --- the console as a team member -----------------------------------------

if [ "$have_tmux" -eq 1 ]; then
	run_as "$alice" run "$flows/gate.json"
	wf5=$OUT
	wait_for n_steps "$wf5" waiting 1
	s5=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $wf5 AND
	    name = 'start'")
	cat >"$flows/tpl.json" <<'EOF2'
{"description": "say hello", "flow": {"start": {"tool": "noop"}}}
EOF2
	cat >"$flows/ed-change" <<'EOF2'
#!/bin/sh
sed 's/say hello/say hello, edited/' "$1" >"$1.new" && mv "$1.new" "$1"
EOF2
	chmod 0755 "$flows/ed-change"
	chmod 0644 "$flows/tpl.json"
	run_as "$alice" template save svc-edit "$flows/tpl.json"
	tui_start_cmd "EDITOR=$flows/ed-change" -- \
	    setpriv --reuid="$bob" --regid="$(id -g "$bob")" \
	    --init-groups env SLUICE_DB="$SLUICE_DB" "$SLUICE"
	tui_ok "engine: pid $EPID on " \
	    "a member's console opens and shows the service engine"
	tui_ok "^$wf5 +gate +. waiting" "it shows the runs"
	tui_gone_ok "read-only: you can look" \
	    "it does not call itself look-only while the engine answers"
	tui_keys 2 /
	tui_type "$s5"
	tui_keys Enter
	tui_ok "^$s5 +$wf5 +gate" "it shows the waiting gate"
	tui_keys y
	tui_type "from the console"
	tui_keys Enter
	tui_ok "approve $s5 -m 'from the console': approved" \
	    "it approves through the socket and shows the engine's answer"
	wait_for wf_is "$wf5" completed
	ok $? "the approved run completes"
	is "$(audit_last approve)" "$bob|$buid" \
	    "the console's approval is audited with the member's real uid"
	tui_keys 1
	tui_ok "^$wf5 +gate +. completed" \
	    "the engine tells the console of the change"
	tui_keys 3 e
	tui_ok 'template edit svc-edit: saved version 2' \
	    "a member edits a template from the console, saved by the engine"
	is "$(audit_last 'template save')" "$bob|$buid" \
	    "the edit is audited with the member's real uid"
	kill -STOP "$EPID"
	tui_ok "engine: pid $EPID on .*\(silent [0-9]+s\)" \
	    "an engine that stops answering shows as silent" 15
	kill -CONT "$EPID"
	tui_gone_ok "silent" "and no longer once it answers again" 10
	tui_keys q
	tui_stop
fi
run_as "$alice" audit --verify
expect_rc 0 "a member can verify the audit trail"

# --- someone outside the team ---------------------------------------------

run_as "$eve" list
[ "$RC" -ne 0 ]
ok $? "someone outside the team cannot read the database"
as "$eve" sqlite3 "$SLUICE_DB" "SELECT 1" >/dev/null 2>&1
ok $((! $?)) "not even with sqlite3"

# --- no engine --------------------------------------------------------------

engine_stop
is "$ERC" 0 "the service engine stops"
[ ! -e "$SLUICE_DB.sock" ]
ok $? "it removes its socket"
sum=$(db_digest)
run_as "$alice" run "$flows/gate.json"
expect_rc 4 "with no engine a member's command is refused (exit 4)"
is "$ERR" "sluice: cannot open database $SLUICE_DB: Permission denied, and no engine answers on $SLUICE_DB.sock to read it for you: start its engine (systemctl start sluice-engine) or ask whoever runs it" \
    "it says why and what to do, in one line"
is "$(db_digest)" "$sum" "and changes nothing"
run_as "$alice" list
expect_rc 4 "with no engine a member cannot read either (exit 4)"
is "$ERR" "sluice: cannot open database $SLUICE_DB: Permission denied, and no engine answers on $SLUICE_DB.sock to read it for you: start its engine (systemctl start sluice-engine) or ask whoever runs it" \
    "  saying why and what to do, in one line"

done_testing
