#!/bin/sh
# tests/cli/notify.sh: config.json "notify": its errors with their JSON
# paths; the payload on stdin and in SLUICE_* variables for each event
# (gate waiting, approved, rejected, timed out; workflow failed, late and
# completed); values with shell metacharacters never run as code; a slow
# notifier is killed at its timeout and does not hold the workflow up; a
# failing one is tried twice, then audited; one whose output outlives
# SIGKILL is given up; one that never reads its stdin does not block the
# engine; at most 8 run at once; events of a command applied with no
# engine are sent by the next engine.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

me=$(id -un)
cfg="$SLUICE_SITE_CONFIG"	# notify is site policy
ev="$T_DIR/ev"
mkdir -p "$ev"

# jv FILE PATH...: values in a JSON file, joined by |; missing or null
# ones are empty.
jv() {
	_f=$1
	shift
	_sql=""
	for _p; do
		_sql="$_sql${_sql:+ || '|' || }ifnull(json_extract(j, '$_p'), '')"
	done
	sqlite3 :memory: "WITH d(j) AS (SELECT CAST(readfile('$_f') AS TEXT))
	    SELECT $_sql FROM d"
}

# jt FILE PATH: the JSON type of a value in a file (empty when missing).
jt() {
	sqlite3 :memory: "SELECT json_type(CAST(readfile('$1') AS TEXT), '$2')"
}

# envof FILE NAME: the value of NAME in a recorded environment.
envof() {
	sed -n "s/^$2=//p" "$1"
}

# config TEXT: write config.json.
config() {
	printf '%s\n' "$1" >"$cfg"
}

# last_audit COLUMNS: columns of the newest audit row.
last_audit() {
	q "SELECT $1 FROM audit ORDER BY id DESC LIMIT 1"
}

# audited ACTION: an audit row with ACTION exists.
audited() {
	[ "$(q "SELECT count(*) FROM audit WHERE action = '$1'")" -gt 0 ]
}

# lines FILE: how many lines FILE has (0 when it does not exist).
lines() {
	if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi
}

# The recorder: each event's stdin as EVENT.WF.json, its SLUICE_*
# variables (and NOTIFY_*) as EVENT.WF.env; the .json appears last.
cat >"$T_DIR/rec.sh" <<'EOF'
#!/bin/sh
f="$1/$SLUICE_EVENT.$SLUICE_WORKFLOW_ID"
env | grep -E '^(SLUICE|NOTIFY)_' | sort >"$f.env"
cat >"$f.tmp"
mv "$f.tmp" "$f.json"
EOF
chmod +x "$T_DIR/rec.sh"

# --- sections that wait for clocks: started here, reported at the end -------
# Two sections wait for notifiers' timeouts (3 s, 1 s) and for the 5 s
# before a failed notification is tried again.  They run in the
# background from here, each with a directory, database and config.json
# of its own, while the other sections run; their cases go to files and
# are reported, numbered in their turn, at the end of the script.

# in_background NAME FUNCTION: run the section FUNCTION in a background
# subshell whose T_DIR, database and config.json ($cfg) are under
# $T_DIR/NAME, its TAP in $T_DIR/NAME.tap; there $top is the script's
# T_DIR, where the section leaves its engine's pid as NAME-engine.pid.
in_background() {
	(
		top=$T_DIR
		T_DIR="$top/$1"
		mkdir -p "$T_DIR"
		export SLUICE_DB="$T_DIR/test.db"
		export SLUICE_SITE_CONFIG="$T_DIR/config.json"
		cfg=$SLUICE_SITE_CONFIG
		db_init
		"$2"
	) >"$T_DIR/$1.tap" 2>&1 </dev/null &
	echo "$!" >"$T_DIR/$1-section.pid"
}

# report NAME COUNT: wait for the section NAME, then report its COUNT
# cases in their turn, with its diagnostics.
report() {
	wait "$(cat "$T_DIR/$1-section.pid")"
	rm -f "$T_DIR/$1-section.pid" "$T_DIR/$1-engine.pid"
	tap_replay "$T_DIR/$1.tap"
	[ "$TAP_REPLAYED" -eq "$2" ] ||
	    ok 1 "section $1 reported its $2 cases ($TAP_REPLAYED)"
}

# slow_section: a slow notifier, killed at its timeout, and a failing one,
# tried twice, then audited.
slow_section() {
	cat >"$T_DIR/plain.json" <<'EOF'
{"start": {"gate": {"message": "Go?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
	cat >"$cfg" <<EOF
{"notify": [
  {"on": "gate_waiting", "timeout": "3s",
   "run": ["sh", "-c", "echo \$\$ >>$T_DIR/slow.pids; exec sleep 60"]},
  {"on": "workflow_completed",
   "shell": "echo run >>$T_DIR/fail.runs; echo 'no route to pager' >&2; echo more >&2; exit 3"}]}
EOF
	engine_start
	echo "$EPID" >"$top/slow-engine.pid"
	run_sluice run "$T_DIR/plain.json" --name slow
	id=$OUT
	wait_for test -s "$T_DIR/slow.pids"
	ok $? "the slow notifier started"
	spid=$(head -n 1 "$T_DIR/slow.pids")
	g=$(step_id "$id" start)
	run_sluice approve "$g"
	expect_rc 0 "the engine answers while the notifier runs"
	wait_for wf_is "$id" completed
	ok $? "the workflow goes on to its end"
	alive "$spid"
	ok $? "while the slow notifier still runs"
	wait_for dead "$spid"
	ok $? "the slow notifier is killed at its timeout"
	wait_for audited notify-failed
	ok $? "a notification's failure is audited"
	is "$(q "SELECT workflow_id || '|' || step_id || '|' || comment ||
	    '|' || json_extract(detail_json, '$.event') || '|' ||
	    json_extract(detail_json, '$.attempts') FROM audit
	    WHERE action = 'notify-failed' AND comment LIKE 'timed out%'")" \
	    "$id|$g|timed out after 3s|gate_waiting|1" \
	    "the audit row: workflow, step, why, event; a timeout is not retried"
	like "$(q "SELECT target FROM audit WHERE action = 'notify-failed' AND
	    comment LIKE 'timed out%'")" "notify[0] sh -c echo" \
	    "the audit row names the command"

	# failed_runs: the audit rows of the failing notifier.
	failed_runs() {
		q "SELECT count(*) FROM audit WHERE action = 'notify-failed' AND
		    comment LIKE 'exit status%'"
	}
	# failed_once: it has been audited.
	failed_once() {
		[ "$(failed_runs)" -eq 1 ]
	}
	wait_for failed_once
	ok $? "a failing notifier is audited after its last try"
	is "$(q "SELECT comment || '|' ||
	    json_extract(detail_json, '$.attempts') || '|' ||
	    json_extract(detail_json, '$.event') || '|' ||
	    (json_extract(detail_json, '$.shell') IS NOT NULL) FROM audit
	    WHERE action = 'notify-failed' AND comment LIKE 'exit status%'")" \
	    "exit status 3: no route to pager|2|workflow_completed|1" \
	    "with its status and the first line of its stderr, after 2 attempts"
	engine_stop
	is "$ERC" 0 "the engine stops cleanly"
	is "$(lines "$T_DIR/fail.runs")" 2 \
	    "the failing notifier ran twice, no more"
	is "$(lines "$T_DIR/slow.pids")" 1 "the slow notifier ran once"
	is "$(failed_runs)" 1 "and was audited once"
}

# escaped_section: a notifier whose child leaves its group and holds its
# output: its kill at the timeout reaches the child.
escaped_section() {
	if ! command -v setsid >/dev/null 2>&1; then
		ok 0 "# SKIP no setsid"
		ok 0 "# SKIP no setsid"
		ok 0 "# SKIP no setsid"
		return
	fi
	cat >"$T_DIR/noop.json" <<'EOF'
{"start": {"tool": "noop"}}
EOF
	cat >"$cfg" <<EOF
{"notify": [{"on": "workflow_completed", "timeout": "1s",
  "run": ["sh", "-c", "setsid sh -c 'echo \$\$ >$T_DIR/esc.pid; exec sleep 30' & exec sleep 60"]}]}
EOF
	engine_start
	echo "$EPID" >"$top/escaped-engine.pid"
	run_sluice run "$T_DIR/noop.json"
	# escaped: the notifier timed out, and its kill reached the
	# process that left its group (found through its parent link).
	escaped() {
		[ "$(q "SELECT count(*) FROM audit WHERE action =
		    'notify-failed' AND comment LIKE 'timed out%'")" -eq 1 ]
	}
	wait_for escaped
	ok $? "a notifier whose child left its group times out"
	[ -s "$T_DIR/esc.pid" ] && wait_for dead "$(cat "$T_DIR/esc.pid")"
	ok $? "and its kill ends the child that left the group"
	engine_stop
	is "$ERC" 0 "and the engine still stops"
	[ -s "$T_DIR/esc.pid" ] && kill "$(cat "$T_DIR/esc.pid")" 2>/dev/null
}

in_background slow slow_section
in_background escaped escaped_section

# --- config.json errors ------------------------------------------------------

run_sluice list		# a database, so "nothing changed" has something to see

# bad_config TEXT WANT DESCRIPTION: an engine refuses TEXT saying WANT.
bad_config() {
	config "$1"
	before=$(db_digest)
	run_sluice engine --drain
	expect_rc 2 "$3: refused"
	is "$ERR" "sluice: $cfg: $2" "$3"
	is "$(db_digest)" "$before" "$3: nothing changed"
}

bad_config '{"notify": {"on": "*"}}' \
    '$.notify: expected an array of commands, such as [{"on": "*", "run": ["/path/to/cmd"]}]' \
    "notify must be an array"
bad_config '{"notify": [{"on": "*", "run": ["x"]}, {"on": ["gate_waiting", "gate_wating"], "run": ["x"]}]}' \
    '$.notify[1].on[1]: unknown event "gate_wating" (did you mean "gate_waiting"?)' \
    "a misspelt event is named with its path and a suggestion"
bad_config '{"notify": [{"on": "workflow_done", "run": ["x"]}]}' \
    '$.notify[0].on: unknown event "workflow_done"' \
    "an unknown event"
bad_config '{"notify": [{"on": "*"}]}' \
    '$.notify[0]: missing "run" (an argv array) or "shell" (a script for /bin/sh)' \
    "a command needs run or shell"
bad_config '{"notify": [{"on": "*", "run": ["x"], "shell": "x"}]}' \
    '$.notify[0]: give "run" or "shell", not both' \
    "run and shell together"
bad_config '{"notify": [{"on": "*", "rn": ["x"], "shell": "x"}]}' \
    '$.notify[0]: unknown member "rn" (did you mean "run"?)' \
    "an unknown member gets a suggestion"
bad_config '{"notify": [{"on": "*", "run": "mail ops"}]}' \
    '$.notify[0].run: expected a non-empty array of strings (the program and its arguments)' \
    "run is an argv array, not a command line"
bad_config '{"notify": [{"on": "*", "run": ["x", 3]}]}' \
    '$.notify[0].run[1]: expected a string, not a number' \
    "every argv element is a string"
bad_config '{"notify": [{"on": "*", "run": ["x"], "timeout": "soon"}]}' \
    '$.notify[0].timeout: expected a number (as in "90s" or "1h30m")' \
    "a bad timeout"
bad_config '{"notify": [{"on": "*", "run": ["x"], "timeout": 0}]}' \
    '$.notify[0].timeout: expected more than 0 and at most 1h' \
    "a zero timeout"
bad_config '{"notify": [{"on": "*", "run": ["x"], "env": {"SLUICE_DB": "y"}}]}' \
    '$.notify[0].env.SLUICE_DB: SLUICE_ variables are set by sluice' \
    "env may not set SLUICE_ variables"
bad_config '{"notify": [{"on": [], "run": ["x"]}]}' \
    '$.notify[0].on: expected an event name, "*", or a non-empty array of them' \
    "on may not be empty"

config '{"notify": [{"on": "gate_wating", "run": []}, 7]}'
run_sluice engine --drain
expect_rc 2 "several problems: refused"
is "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 3 "each problem on its own line"
like "$ERR" "sluice: $cfg: \$.notify[1]: expected an object" \
    "the second command's problem too"

sed "s|/usr/local/share/sluice/notify|$TOP_SRCDIR/share/notify|" \
    "$TOP_SRCDIR/share/notify/config.json.example" >"$cfg"
run_sluice engine --drain
expect_rc 0 "share/notify/config.json.example is a valid config"
for s in mail.sh webhook.sh notify-send.sh chat.sh; do
	sh -n "$TOP_SRCDIR/share/notify/$s"
	ok $? "share/notify/$s is valid sh"
	[ -x "$TOP_SRCDIR/share/notify/$s" ]
	ok $? "share/notify/$s is executable"
done

# --- payloads ----------------------------------------------------------------

cat >"$cfg" <<EOF
{"notify": [{"on": "*", "run": ["$T_DIR/rec.sh", "$ev"],
  "env": {"NOTIFY_TEST": "yes"}, "timeout": "20s"}]}
EOF
engine_start
db=$(realpath "$SLUICE_DB")
grp=$(id -gn)

# Two runs wait for a clock: a gate's 1 s timeout and a 1 s SLA.  They
# start first, so that their second passes while the gates below are
# decided; their notifications are looked at further down.
cat >"$T_DIR/timeout.json" <<'EOF'
{"start": {"gate": {"message": "Quick!", "timeout": "1s"},
   "branch": [{"if": "result == \"rejected\"", "then": "late"}]},
 "late": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/timeout.json"
tid=$OUT
cat >"$T_DIR/late.json" <<'EOF'
{"sla": "1s", "flow": {"start": {"tool": "sleep", "args": {"seconds": 30}}}}
EOF
run_sluice run "$T_DIR/late.json"
lid=$OUT

cat >"$T_DIR/gate.json" <<EOF
{"start": {"tool": "noop", "next": "g"},
 "g": {"gate": {"message": "Ship {{input.v}}?", "approvers": ["@$grp", "alice"]},
   "branch": [{"if": "result == \"approved\"", "then": "yes"}]},
 "yes": {"tool": "echo", "args": {"shipped": "{{input.v}}"}}}
EOF
before=$(date +%s)000
run_sluice run "$T_DIR/gate.json" -i v=1.2 --name ship-it
id=$OUT
wait_for step_is "$id" g waiting
ok $? "a gate waits"
g=$(step_id "$id" g)
f="$ev/gate_waiting.$id"
wait_for test -f "$f.json"
ok $? "gate_waiting: the notifier ran"
is "$(jv "$f.json" '$.event')" gate_waiting "gate_waiting: event"
at=$(jv "$f.json" '$.at')
[ "$at" -ge "$before" ] && [ "$at" -le "$(date +%s)999" ]
ok $? "gate_waiting: at is the time in Unix ms ($at)"
is "$(jv "$f.json" '$.workflow.id' '$.workflow.name' '$.workflow.status' \
    '$.workflow.created_by')" "$id|ship-it|running|$me" \
    "gate_waiting: the workflow's id, name, status and starter"
is "$(jt "$f.json" '$.workflow.template')" null \
    "gate_waiting: a run from a file has a null template"
is "$(jv "$f.json" '$.step.id' '$.step.name' '$.step.status')" \
    "$g|g|waiting" "gate_waiting: the gate's step"
is "$(jv "$f.json" '$.gate.message' '$.gate.approvals' '$.gate.quorum' \
    '$.gate.approvers[0]' '$.gate.approvers[1]')" \
    "Ship 1.2?|0|1|@$grp|alice" \
    "gate_waiting: message, approvals, quorum, approvers"
is "$(jv "$f.json" '$.console')" "sluice --db $db show $id" \
    "gate_waiting: the console command"
is "$(jv "$f.json" '$.message')" \
    "workflow $id (ship-it): gate g is waiting for approval: Ship 1.2?" \
    "gate_waiting: a one-line message"
is "$(jv "$f.json" '$.db' '$.host')" "$db|$(uname -n)" \
    "gate_waiting: database and host"
is "$(envof "$f.env" SLUICE_EVENT)|$(envof "$f.env" SLUICE_WORKFLOW_ID)|$(envof "$f.env" SLUICE_WORKFLOW_NAME)|$(envof "$f.env" SLUICE_STEP_ID)|$(envof "$f.env" SLUICE_STEP)|$(envof "$f.env" SLUICE_STATUS)" \
    "gate_waiting|$id|ship-it|$g|g|running" \
    "gate_waiting: the SLUICE_ variables"
is "$(envof "$f.env" SLUICE_GATE_MESSAGE)|$(envof "$f.env" SLUICE_DB)|$(envof "$f.env" SLUICE_STEP_STATUS)|$(envof "$f.env" SLUICE_QUORUM)" \
    "Ship 1.2?|$db|waiting|1" "gate_waiting: gate, database, step status"
is "$(envof "$f.env" SLUICE_MESSAGE)" "$(jv "$f.json" '$.message')" \
    "SLUICE_MESSAGE is the payload's message"
is "$(envof "$f.env" SLUICE_CONSOLE)" "sluice --db $db show $id" \
    "SLUICE_CONSOLE"
is "$(envof "$f.env" NOTIFY_TEST)" yes "the command's env is set"
is "$(envof "$f.env" SLUICE_KILL_GRACE_MS)" "" \
    "the engine's own SLUICE_ variables are not passed on"

run_sluice approve "$g" -m "looks good"
expect_rc 0 "approve"
wait_for wf_is "$id" completed
ok $? "the workflow completes"
f="$ev/gate_decided.$id"
wait_for test -f "$f.json"
ok $? "gate_decided: the notifier ran"
is "$(jv "$f.json" '$.decision.action' '$.decision.outcome' \
    '$.decision.who' '$.decision.comment')" \
    "approve|approved|$me|looks good" "gate_decided: who approved and why"
is "$(jv "$f.json" '$.step.id' '$.step.status' '$.step.result' \
    '$.gate.approvals')" "$g|done|approved|1" \
    "gate_decided: the gate row is done, approved, with one approval"
is "$(envof "$f.env" SLUICE_DECISION)|$(envof "$f.env" SLUICE_DECIDED_BY)|$(envof "$f.env" SLUICE_COMMENT)" \
    "approved|$me|looks good" "gate_decided: the decision's variables"
is "$(jv "$f.json" '$.message')" \
    "workflow $id (ship-it): gate g approved by $me: looks good" \
    "gate_decided: the message"
f="$ev/workflow_completed.$id"
wait_for test -f "$f.json"
ok $? "workflow_completed: the notifier ran"
is "$(jv "$f.json" '$.workflow.status' '$.message')" \
    "completed|workflow $id (ship-it) completed" \
    "workflow_completed: status and message"
is "$(jt "$f.json" '$.step')" "" "workflow_completed: no step"
is "$(envof "$f.env" SLUICE_STATUS)|$(envof "$f.env" SLUICE_STEP_ID)" \
    "completed|" "workflow_completed: SLUICE_STATUS, and no SLUICE_STEP_ID"
[ "$(jv "$ev/gate_decided.$id.json" '$.at')" -le "$(jv "$f.json" '$.at')" ]
ok $? "the decision comes before the completion it led to"

cat >"$T_DIR/plain.json" <<'EOF'
{"start": {"gate": {"message": "Go?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
cat >"$T_DIR/noop.json" <<'EOF'
{"start": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/plain.json" --name reject-me
id=$OUT
wait_for test -f "$ev/gate_waiting.$id.json"
g=$(step_id "$id" start)
run_sluice reject "$g" -m "not today"
expect_rc 0 "reject"
f="$ev/gate_decided.$id"
wait_for test -f "$f.json"
ok $? "gate_decided on a rejection"
is "$(jv "$f.json" '$.decision.action' '$.decision.outcome' \
    '$.decision.who' '$.decision.comment' '$.step.result')" \
    "reject|rejected|$me|not today|rejected" \
    "gate_decided: who rejected and why"
f="$ev/workflow_failed.$id"
wait_for test -f "$f.json"
ok $? "workflow_failed after a rejection with no branch"
why="gate start: rejected by $me: not today"
is "$(jv "$f.json" '$.error')" "$why" "workflow_failed: the error"
is "$(jv "$f.json" '$.workflow.status' '$.workflow.error')" "failed|$why" \
    "workflow_failed: the workflow's status and error"
is "$(envof "$f.env" SLUICE_ERROR)" "$why" "workflow_failed: SLUICE_ERROR"
is "$(jv "$f.json" '$.message')" "workflow $id (reject-me) failed: $why" \
    "workflow_failed: the message"

id=$tid
f="$ev/gate_decided.$id"
wait_for test -f "$f.json"
ok $? "gate_decided when a gate times out"
is "$(jv "$f.json" '$.decision.action' '$.decision.outcome')|$(jt "$f.json" \
    '$.decision.who')" "timeout|rejected|null" \
    "gate_decided: a timeout, decided by nobody"
is "$(jv "$f.json" '$.message')" \
    "workflow $id (timeout): gate start timed out waiting for approval" \
    "gate_decided: the timeout's message"

cat >"$T_DIR/fail.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "disk full"},
   "retry": {"max_attempts": 1}}}
EOF
run_sluice run "$T_DIR/fail.json"
id=$OUT
f="$ev/workflow_failed.$id"
wait_for test -f "$f.json"
ok $? "workflow_failed when a step fails"
is "$(jv "$f.json" '$.error')" "step start failed: disk full" \
    "workflow_failed: the step's failure"
is "$(jv "$f.json" '$.console')" "sluice --db $db show $id" \
    "workflow_failed: the console command"

id=$lid
f="$ev/workflow_late.$id"
wait_for test -f "$f.json"
ok $? "workflow_late when a run passes its SLA"
is "$(jv "$f.json" '$.workflow.status' '$.sla.sla_ms' '$.message')" \
    "running|1000|workflow $id (late) is late: unfinished 1s after it started" \
    "workflow_late: the SLA and the message"
is "$(envof "$f.env" SLUICE_SLA_MS)" 1000 "workflow_late: SLUICE_SLA_MS"
run_sluice cancel "$id"

run_sluice template save tpl "$T_DIR/fail.json"
run_sluice template run tpl
id=$OUT
wait_for test -f "$ev/workflow_failed.$id.json"
is "$(jv "$ev/workflow_failed.$id.json" '$.workflow.template.name' \
    '$.workflow.template.version')" "tpl|1" "the template and its version"
is "$(envof "$ev/workflow_failed.$id.env" SLUICE_TEMPLATE)" tpl \
    "SLUICE_TEMPLATE"
engine_stop

# --- values never reach a shell as code ----------------------------------------

cat >"$cfg" <<EOF
{"notify": [{"on": "*", "run": ["$T_DIR/rec.sh", "$ev"]},
  {"on": "gate_waiting", "shell": "printf '%s\\\\n' \"\$SLUICE_WORKFLOW_NAME\" \"\$SLUICE_GATE_MESSAGE\" \"\$SLUICE_MESSAGE\" >$T_DIR/shell.out"}]}
EOF
engine_start
evil='x$(touch '"$T_DIR"'/pwned1)`touch '"$T_DIR"'/pwned2`;touch '"$T_DIR"'/pwned3'
cat >"$T_DIR/evil.json" <<'EOF'
{"start": {"gate": {"message": "m {{input.v}}"}}}
EOF
run_sluice run "$T_DIR/evil.json" --name "$evil" -i "v=\$(touch $T_DIR/pwned4)"
id=$OUT
wait_for test -s "$T_DIR/shell.out"
ok $? "the shell notifier ran"
wait_for test -f "$ev/gate_waiting.$id.json"
is "$(sed -n 1p "$T_DIR/shell.out")" "$evil" \
    "the shell saw the name as a value"
is "$(sed -n 2p "$T_DIR/shell.out")" "m \$(touch $T_DIR/pwned4)" \
    "and the input in the gate's message as a value"
is "$(jv "$ev/gate_waiting.$id.json" '$.workflow.name')" "$evil" \
    "stdin carries the name as it is"
ls "$T_DIR"/pwned* >/dev/null 2>&1
ok $((! $?)) "no metacharacter was run by any shell"
run_sluice cancel "$id"
engine_stop

# --- a notifier that never reads its stdin ---------------------------------------

cat >"$cfg" <<EOF
{"notify": [
  {"on": "gate_waiting", "timeout": "20s",
   "run": ["sh", "-c", "echo \$\$ >$T_DIR/deaf.pid; exec sleep 30"]},
  {"on": "gate_waiting", "run": ["$T_DIR/rec.sh", "$ev"]}]}
EOF
big=$(head -c 200000 /dev/zero | tr '\0' 'x')
printf '{"v": "%s"}\n' "$big" >"$T_DIR/big.json"
engine_start
run_sluice run "$T_DIR/evil.json" --name deaf --input "$T_DIR/big.json"
id=$OUT
wait_for test -s "$T_DIR/deaf.pid"
ok $? "the deaf notifier started"
dpid=$(cat "$T_DIR/deaf.pid")
wait_for test -f "$ev/gate_waiting.$id.json"
ok $? "another notifier of the same event got the same payload"
is "$(sqlite3 :memory: "SELECT length(json_extract(CAST(readfile(
    '$ev/gate_waiting.$id.json') AS TEXT), '$.gate.message'))")" 200002 \
    "the whole 200 kB message came on stdin"
is "$(envof "$ev/gate_waiting.$id.env" SLUICE_GATE_MESSAGE | wc -c |
    tr -d ' ')" 4001 "its variable is cut at 4000 bytes"
run_sluice approve "$(step_id "$id" start)"
expect_rc 0 "the engine applies a command while the payload sits unread"
wait_for wf_is "$id" completed
ok $? "and the workflow completes"
alive "$dpid"
ok $? "while the deaf notifier is still running"
kill -TERM "$EPID"
wait_for file_has "$T_DIR/engine.err" "engine stopping"
kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "a second signal stops the engine at once"
wait_for dead "$dpid"
ok $? "and kills the notifier"

# --- at most 8 at once -------------------------------------------------------------

mkdir -p "$T_DIR/conc"
cat >"$cfg" <<EOF
{"notify": [{"on": "workflow_completed", "run": ["sh", "-c",
  "touch $T_DIR/conc/\$SLUICE_WORKFLOW_ID; i=0; while [ ! -f $T_DIR/release ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done"]}]}
EOF
engine_start
# Eleven runs asked for at once (the engine queues what the cap holds back).
n=0
runs=""
while [ "$n" -lt 11 ]; do
	n=$((n + 1))
	"$SLUICE" run "$T_DIR/noop.json" >/dev/null 2>&1 &
	runs="$runs $!"
done
wait $runs
# running: how many notifiers have started.
running() {
	ls "$T_DIR/conc" | wc -l | tr -d ' '
}
# started N: at least N notifiers have started.
started() {
	[ "$(running)" -ge "$1" ]
}
wait_for started 8
ok $? "eight notifications run"
is "$(running)" 8 "no more than eight at once"
touch "$T_DIR/release"
wait_for started 11
ok $? "the others run as slots free up"
engine_stop

# --- no engine: the next one sends ------------------------------------------------

cat >"$cfg" <<EOF
{"notify": [{"on": "*", "run": ["$T_DIR/rec.sh", "$ev"]}]}
EOF
run_sluice run "$T_DIR/plain.json" --name offline
id=$OUT
like "$ERR" "no engine is running" "a run with no engine"
q_is "SELECT command || '|' || state FROM inbox WHERE command = 'notify' AND
    workflow_id = $id" "notify|new" "its gate_waiting is kept in the inbox"
[ ! -f "$ev/gate_waiting.$id.json" ]
ok $? "and not sent by the command"
engine_start
f="$ev/gate_waiting.$id"
wait_for test -f "$f.json"
ok $? "the next engine sends it"
is "$(jv "$f.json" '$.deferred' '$.step.status' '$.workflow.name')" \
    "1|waiting|offline" "marked deferred, as it was then"
is "$(envof "$f.env" SLUICE_DEFERRED)" 1 "SLUICE_DEFERRED=1"
q_is "SELECT state FROM inbox WHERE command = 'notify' AND workflow_id = $id" \
    done "the inbox row is answered"
engine_stop

# --- the sections started in the background: their cases -------------------

report slow 14
report escaped 3

done_testing
