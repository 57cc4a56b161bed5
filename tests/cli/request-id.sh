#!/bin/sh
# tests/cli/request-id.sh: request ids.  The engine is kill -9'd between
# the commit of a command and its answer (SLUICE_TEST_HOLD=answer stops
# it there, test builds only): the client, once a new engine is up, says
# "applied" and the run was started once.  Killed after reading a request
# and before applying it (SLUICE_TEST_HOLD=apply): the client says "not
# applied" and nothing changed.  Each is looped REQID_ROUNDS times
# (default 10) and counted.  Then "sluice request ID" and its --json, the
# raw socket's "outcome" request, the same id sent twice applied once,
# and an inbox command carrying its id (queued, then applied).

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

rounds=${REQID_ROUNDS:-10}
case $rounds in ''|*[!0-9]*) echo "Bail out! REQID_ROUNDS must be a number"; exit 1 ;;
esac
"$SLUICE" --version | grep -q 'test clock' ||
    skip_all "needs a build with --enable-test-clock (SLUICE_TEST_HOLD)"
command -v python3 >/dev/null 2>&1 || skip_all "needs python3 for a raw client"

cat >"$T_DIR/noop.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2

# lost POINT: a run whose engine is killed at POINT, a new engine started;
# the client's exit status in $RC, its output in $OUT and $ERR.
lost() {
	held_engine "$1" || return 1
	"$SLUICE" run "$T_DIR/noop.json" >"$T_DIR/c.out" 2>"$T_DIR/c.err" \
	    </dev/null &
	_c=$!
	wait_for stopped "$EPID" || { kill "$_c"; wait "$_c"; return 1; }
	engine_crash
	engine_start
	wait "$_c"
	RC=$?
	OUT=$(cat "$T_DIR/c.out")
	ERR=$(cat "$T_DIR/c.err")
	engine_stop
}

# --- killed between the commit and the answer: applied ---------------------

good=0
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	before=$(q "SELECT count(*) FROM workflows")
	lost answer || { echo "# round $i: the engine did not stop"; continue; }
	after=$(q "SELECT count(*) FROM workflows")
	id=$(printf '%s\n' "$ERR" | sed -n 's/.*request \([0-9a-f]*\): applied$/\1/p')
	if [ "$RC" -eq 0 ] && [ -n "$id" ] && [ "$after" -eq $((before + 1)) ] &&
	    [ "$OUT" = "$(new_id)" ] &&
	    [ "$(q "SELECT count(*) FROM requests WHERE id = '$id'")" = 1 ]; then
		good=$((good + 1))
	else
		printf '# round %s: exit %s, %s -> %s runs, out %s, err %s\n' \
		    "$i" "$RC" "$before" "$after" "$OUT" "$ERR"
	fi
done
is "$good" "$rounds" "killed after the commit, before the answer: the client says 'applied', with the run's id, and the run was started once ($good of $rounds)"
# (How the connection ended, in brackets, is the kernel's word for it.)
is "$(printf '%s\n' "$ERR" | sed 's/ ([^)]*);/;/')" \
    "sluice: warning: the engine went away before it answered; request $id: applied" \
    "it says so in one line, naming the request"
applied=$id
applied_wf=$OUT

# --- killed before applying: not applied -----------------------------------

good=0
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	before=$(q "SELECT count(*) FROM workflows")
	audit=$(q "SELECT count(*) FROM audit")
	lost apply || { echo "# round $i: the engine did not stop"; continue; }
	id=$(printf '%s\n' "$ERR" | sed -n 's/.*request \([0-9a-f]*\): not applied.*/\1/p')
	if [ "$RC" -eq 1 ] && [ -n "$id" ] && [ -z "$OUT" ] &&
	    [ "$(q "SELECT count(*) FROM workflows")" = "$before" ] &&
	    [ "$(q "SELECT count(*) FROM audit WHERE action = 'start'")" = \
	    "$(q "SELECT count(*) FROM audit WHERE action = 'start' AND id <= $audit")" ] &&
	    [ "$(q "SELECT count(*) FROM requests WHERE id = '$id'")" = 0 ]; then
		good=$((good + 1))
	else
		printf '# round %s: exit %s, %s runs before, out %s, err %s\n' \
		    "$i" "$RC" "$before" "$OUT" "$ERR"
	fi
done
is "$good" "$rounds" "killed before applying: the client says 'not applied' (exit 1) and nothing was started ($good of $rounds)"
is "$(printf '%s\n' "$ERR" | sed 's/ ([^)]*);/;/')" \
    "sluice: the engine went away before it answered; request $id: not applied (nothing changed; give the command again)" \
    "it says so in one line, naming the request"
unapplied=$id

# --- sluice request ID ------------------------------------------------------

run_sluice request "$applied"
expect_rc 0 "request ID of an applied one: exit 0 (no engine: read from the database)"
is "$OUT" "request $applied: applied: started workflow $applied_wf" \
    "it says applied, with the engine's answer"
run_sluice request "$unapplied"
expect_rc 1 "request ID of one never applied: exit 1"
is "$OUT" "request $unapplied: not applied" "it says not applied"
run_sluice request --json "$applied"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.outcome') || '|' ||
    json_extract(j, '$.answer.workflow_id') FROM d")" "applied|$applied_wf" \
    "--json: the outcome and the answer"
run_sluice request 'no such!'
expect_rc 2 "a request id that cannot be one: exit 2"
is "$ERR" "sluice: request: \"no such!\" is not a request id (1 to 64 letters, digits, '.', '_' or '-')" \
    "saying what one is"

engine_start
run_sluice request "$applied"
expect_rc 0 "asked of a running engine: applied"
is "$OUT" "request $applied: applied: started workflow $applied_wf" \
    "the same answer"

# --- the socket: outcome, and the same id twice -----------------------------

sock=$SLUICE_DB.sock
flow='{"start":{"tool":"noop"}}'
start="{\"command\":\"start\",\"request\":\"raw-1\",\"args\":{\"name\":\"raw\",\"flow\":$flow}}"
before=$(q "SELECT count(*) FROM workflows")
out=$(raw_lines "$sock" "$start" "$start" \
    '{"command":"outcome","request":"raw-1"}' \
    '{"command":"outcome","request":"raw-2"}' \
    '{"command":"outcome"}' \
    '{"command":"ping","request":"a b"}')
wf=$(new_id)
is "$out" "{\"code\":0,\"message\":\"started workflow $wf\",\"workflow_id\":$wf}
{\"code\":0,\"message\":\"started workflow $wf\",\"workflow_id\":$wf}
{\"code\":0,\"outcome\":\"applied\",\"reply\":{\"code\":0,\"message\":\"started workflow $wf\",\"workflow_id\":$wf}}
{\"code\":0,\"outcome\":\"not applied\"}
{\"code\":2,\"message\":\"outcome: which request? (\$.request is missing)\"}
{\"code\":2,\"message\":\"request: \$.request is not a request id (1 to 64 letters, digits, '.', '_' or '-')\"}" \
    "the same id twice gets the same answer; outcome says applied (with it) or not applied"
q_is "SELECT count(*) FROM workflows" $((before + 1)) \
    "and the run was started once"
engine_stop

# --- the inbox: a queued command carries its id ------------------------------

# An engine row naming a dead engine and a process that is not one holding
# the lock: the command posts to the inbox and waits (10 s) for an answer.
engine_start
engine_crash
flock "$SLUICE_DB.lock" sh -c "i=0; while [ ! -f $T_DIR/unlock ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done" &
holder=$!
ENGINES="$ENGINES $holder"
wait_for sh -c "! flock -n '$SLUICE_DB.lock' true"
ok $? "a process that is not an engine holds the lock"
"$SLUICE" run "$T_DIR/noop.json" >"$T_DIR/q.out" 2>"$T_DIR/q.err" </dev/null &
queued=$!
ENGINES="$ENGINES $queued"
posted() {
	[ -n "$(q "SELECT request FROM inbox WHERE state = 'new'")" ]
}
wait_for posted
ok $? "the command is posted to the inbox with its request id"
rid=$(q "SELECT request FROM inbox WHERE state = 'new'")
cmd=$(q "SELECT id FROM inbox WHERE state = 'new'")
run_sluice request "$rid"
expect_rc 1 "request ID of a queued command: exit 1"
is "$OUT" "request $rid: not applied yet: queued as command $cmd" \
    "it says where it waits"
wait "$queued"
touch "$T_DIR/unlock"
wait "$holder"
run_sluice audit --verify
expect_rc 0 "the inbox row's seal covers its request id"
engine_start
queued_done() {
	[ "$(q "SELECT state FROM inbox WHERE id = $cmd")" = done ]
}
wait_for queued_done
ok $? "the next engine applies it"
run_sluice request "$rid"
expect_rc 0 "and then request ID says applied"
like "$OUT" "request $rid: applied: started workflow " "with its answer"
q "UPDATE inbox SET request = 'forged' WHERE id = $cmd"
run_sluice audit --verify
expect_rc 1 "a request id changed with sqlite3 breaks the row's seal"
engine_stop

done_testing
