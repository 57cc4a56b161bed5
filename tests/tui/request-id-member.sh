#!/bin/sh
# tests/tui/request-id-member.sh: a member's console in service mode (a
# real Unix account, which can neither read the database nor run the
# engine) approves a gate; the service's engine is kill -9'd where
# SLUICE_TEST_HOLD (test builds only) stops it.  The console keeps
# drawing and says it waits for the engine for as long as none runs;
# when the service's next engine answers its socket, the console asks
# it what became of the request: after the commit, "applied" (the gate's
# successor ran once); before applying, "not applied" (nothing recorded).
# tests/tui/request-id.sh is the same in personal mode, where the
# console itself takes the engine over.  Scripted screens, no tmux.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

"$SLUICE" --version | grep -q 'test clock' ||
    skip_all "needs a build with --enable-test-clock (SLUICE_TEST_HOLD)"

svc_setup rq

cat >"$flows/gate.json" <<'EOF2'
{"start": {"gate": {"message": "ship?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF2
chmod 0644 "$flows/gate.json"

# held_svc_engine POINT: the service's engine, stopping itself at POINT.
held_svc_engine() {
	setpriv --reuid="$svc" --regid="$grp" --init-groups \
	    env SLUICE_TEST_HOLD="$1" sh -c 'umask 027; exec "$1" engine' \
	    sh "$SLUICE" >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" \
	    </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for test -S "$SLUICE_DB.sock"
}

# gate_run: alice starts a run whose gate waits, the engine stopped
# after; its id in $WF, the gate's step id in $gate.
gate_run() {
	svc_engine || return 1
	run_as "$alice" run "$flows/gate.json"
	WF=$OUT
	wait_for step_is "$WF" start waiting || return 1
	gate=$(step_id "$WF" start)
	engine_stop
}

# bob_console: bob's console, attached to the engine $EPID.
bob_console() {
	umask 000	# the console, as bob, writes its screens in SCR_DIR
	scr_start_cmd 200x30 -- setpriv --reuid="$bob" \
	    --regid="$(id -g "$bob")" --init-groups "$SLUICE"
	umask 022
	scr_wait "engine: pid $EPID on "
}

# --- killed between the commit and the answer: applied ----------------------

gate_run
ok $? "a member's run waits at its gate"
requests=$(q "SELECT count(*) FROM requests")
held_svc_engine answer
ok $? "the service's engine, to stop after its next commit"
bob_console
ok $? "another member's console attaches to it"
scr_approve "$gate" "$WF" ok
ok $? "the member approves the gate in the console"
wait_for stopped "$EPID"
ok $? "the engine committed the approval and stopped before answering"
q_is "SELECT count(*) FROM requests" $((requests + 1)) \
    "the approval's request id is recorded with it"
rid=$(q "SELECT id FROM requests ORDER BY rowid DESC LIMIT 1")
engine_crash
sleep 2		# the console cannot run one: it waits
scr_ok "approve $gate -m ok: the engine went away before it answered; waiting for the engine" \
    "two seconds on, the line still says so (the failing reads do not replace it)" 1
svc_engine
ok $? "the service's next engine starts"
scr_ok "approve $gate -m ok: approved .*\\(request $rid: applied\\)" \
    "the console asks it, and says applied, naming the request" 20
wait_for wf_is "$WF" completed
ok $? "the run goes on to its end"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $WF AND
    name = 'after'" 1 "the gate's successor ran once"
q_is "SELECT count(*) FROM audit WHERE action = 'approve' AND
    workflow_id = $WF" 1 "the approval is audited once"
scr_keys m
scr_ok "approve $gate -m ok: the engine went away before it answered; waiting for the engine" \
    "meanwhile it said it was waiting for the engine (it cannot run one)"
scr_keys q
scr_stop
is "$SCR_STATUS" 0 "the console quits cleanly"
engine_stop

# --- killed after reading the request, before applying it: not applied -----

gate_run
ok $? "a new run waits at its gate"
requests=$(q "SELECT count(*) FROM requests")
held_svc_engine apply
ok $? "the service's engine, to stop on its next command"
bob_console
ok $? "the member's console attaches to it"
scr_approve "$gate" "$WF" ok
ok $? "the member approves the gate in the console"
wait_for stopped "$EPID"
ok $? "the engine read the approval and stopped before applying it"
engine_crash
svc_engine
ok $? "the service's next engine starts"
scr_ok "approve $gate -m ok: request [0-9a-f]+: not applied \\(nothing changed; give the command again\\)" \
    "the console asks it, and says not applied" 20
step_is "$WF" start waiting
ok $? "the gate still waits"
q_is "SELECT count(*) FROM requests" "$requests" "no request was recorded"
q_is "SELECT count(*) FROM audit WHERE action = 'approve' AND
    workflow_id = $WF" 0 "no approval was audited"
scr_sanitizers_ok "no sanitizer report from the console"
engine_stop

done_testing
