#!/bin/sh
# tests/cli/template-operators.sh: a template's own "operators" with real
# Unix accounts (tests/service-lib.sh).  The template names @alice's
# group; bob, a team member it leaves out, is refused start, pause,
# resume, cancel, retry, skip, schedule add and changing the template,
# each with exit 4, the rule on one line and a "-refused" audit row by
# him, while alice may do them.  The same cases run through every way a
# command reaches the engine: offline (bob's command applies itself on a
# shared database), a hosted engine (alice's, bob asks over its socket),
# service mode (the engine's own account; everyone over the socket), and
# MCP (bob's sluice mcp).  Then the site's operators: one the site names
# may change the template's list, but still not start its runs.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/mcp-lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

svc_setup to
setpriv --reuid="$bob" --regid="$grp" --init-groups "$SLUICE" --version \
    >/dev/null 2>&1 ||
    skip_all "the accounts cannot run $SLUICE (a build directory others cannot enter?)"

export SLUICE_SITE_CONFIG="$T_DIR/flows/site.json"
echo '{}' >"$SLUICE_SITE_CONFIG"
chmod 0644 "$SLUICE_SITE_CONFIG"

cat >"$flows/deploy.json" <<EOF
{"description": "production deploy", "operators": ["@$alice"],
 "flow": {"start": {"gate": {"message": "go?"}, "next": "end"},
          "end": {"tool": "noop"}}}
EOF
sed "s/\"@$alice\"/\"@$alice\", \"$bob\"/" "$flows/deploy.json" \
    >"$flows/wider.json"
chmod 0644 "$flows"/*.json

# run_as USER ARGS: sluice ARGS as USER; $OUT, $ERR (without the no-engine
# warning), $RC.
run_as() {
	_u=$1
	shift
	as "$_u" env HOME="$T_DIR" "$SLUICE" "$@" >"$T_DIR/out" \
	    2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(grep -v '^sluice: warning: no engine' "$T_DIR/err")
}

# refused VIA WHAT: the last command was refused by the template's rule,
# exit 4, one line, and audited as ACTION-refused by bob.
refused() {
	is "$RC" 4 "$1: bob's $2 exits 4"
	like "$ERR" "$bob is not an operator of template deploy" \
	    "$1: $2 names the rule"
	one_line "$ERR" "$1: $2 says it on one line"
	is "$(q "SELECT who FROM audit WHERE action = '$3-refused'
	    ORDER BY id DESC LIMIT 1")" "$bob" "$1: the refused $2 is audited"
}

# cases VIA: the matrix on the database $SLUICE_DB, its engine (if any)
# running.
cases() {
	run_as "$alice" template save deploy "$flows/deploy.json"
	is "$RC" 0 "$1: alice saves deploy, naming her group ($ERR)"
	run_as "$bob" template run deploy
	refused "$1" start start
	run_as "$alice" template run deploy
	is "$RC" 0 "$1: alice starts it"
	W=$OUT
	for verb in pause resume cancel retry; do
		run_as "$bob" "$verb" "$W"
		refused "$1" "$verb" "$verb"
	done
	G=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $W AND
	    name = 'start'")
	run_as "$bob" skip "$G" -m "not mine"
	refused "$1" skip skip
	run_as "$bob" schedule add "s$1" --cron @daily --template deploy
	refused "$1" "schedule add" schedule-add
	run_as "$bob" template save deploy "$flows/wider.json"
	is "$RC" 4 "$1: bob may not widen the list"
	like "$ERR" "nor one the site names: template save refused" \
	    "$1: the refusal names the rule"
	run_as "$bob" template rm deploy
	is "$RC" 4 "$1: nor remove the template"
	run_as "$alice" pause "$W"
	is "$RC" 0 "$1: alice pauses her run"
	run_as "$alice" resume "$W"
	is "$RC" 0 "$1: and resumes it"
	run_as "$alice" cancel "$W"
	is "$RC" 0 "$1: and cancels it"
	run_as "$bob" template list
	like "$OUT" "@$alice" "$1: template list shows who may run it"
	run_as "$bob" template list --json
	is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].operators[0]')
	    || ' ' || json_extract(j, '\$[0].run_by') FROM d")" \
	    "@$alice @$alice" "$1: and so does its JSON"
}

# --- offline: a shared personal database, no engine ---------------------------

shared="$T_DIR/shared"
mkdir "$shared"
chgrp "$grp" "$shared"
chmod 2770 "$shared"
export SLUICE_DB="$shared/team.db"
run_as "$alice" init "$SLUICE_DB"
cases offline

# --- hosted: alice's engine; bob asks over its socket -------------------------

setpriv --reuid="$alice" --regid="$(id -g "$alice")" --init-groups \
    env HOME="$T_DIR" "$SLUICE" engine >"$T_DIR/hosted.out" \
    2>"$T_DIR/hosted.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for test -S "$SLUICE_DB.sock"
ok $? "alice's engine listens"
cases hosted

# MCP, on the same engine: bob's agent may not start deploy either.
printf '%s\n' \
    "$MCP_INIT" \
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workflow_create","arguments":{"template":"deploy"}}}' \
    >"$T_DIR/mcp.in"
chmod 0644 "$T_DIR/mcp.in"
as "$bob" env HOME="$T_DIR" "$SLUICE" mcp <"$T_DIR/mcp.in" 2>/dev/null |
    grep '"id":1,' >"$T_DIR/mcp.out"
OUT=$(cat "$T_DIR/mcp.out")
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.result.isError') FROM d")" \
    1 "mcp: bob's workflow_create is a tool error"
like "$OUT" "$bob is not an operator of template deploy" "mcp: naming the rule"
is "$(q "SELECT who || ' ' || via FROM audit WHERE action = 'start-refused'
    ORDER BY id DESC LIMIT 1")" "$bob mcp" "mcp: audited as bob's, via mcp"
engine_stop
wait_for dead "$EPID"
ok $? "alice's engine has stopped"

# --- the site's operators ---------------------------------------------------------

printf '{"operators": ["%s", "%s"]}\n' "$bob" "@$alice" >"$SLUICE_SITE_CONFIG"
run_as "$bob" template run deploy
refused site start start
run_as "$bob" template save deploy "$flows/wider.json"
is "$RC" 0 "site: an operator the site names may change the list ($ERR)"
run_as "$bob" template run deploy
is "$RC" 0 "site: now that the list names him, bob may start it"
echo '{}' >"$SLUICE_SITE_CONFIG"

# --- service mode: the engine's own account -----------------------------------------

export SLUICE_DB="$dir/sluice.db"
svc_engine
ok $? "the service engine listens"
cases socket

done_testing
