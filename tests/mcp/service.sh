#!/bin/sh
# tests/mcp/service.sh: sluice mcp in service mode with real, separate
# Unix accounts.  The engine runs as a service account; a team member's
# agent runs "sluice mcp" as that member, and everything it does reaches
# the engine over the socket as that member (the kernel says who), marked
# via mcp: its start is audited with the member's name and uid; a gate for
# people refuses it while another member decides the same gate at the
# shell; a gate that allows agents takes it, still under the gate's
# approvers; someone outside the team is refused.  Accounts and groups
# are made for this run and removed at exit.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

[ "$(id -u)" -eq 0 ] ||
    skip_all "needs root to create Unix accounts (useradd, setpriv)"
for c in useradd userdel groupadd groupdel setpriv sqlite3; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c"
done

tag=$$
grp="smt$tag"		# the team's group
svc="sms$tag"		# the engine's account
alice="sma$tag"		# team members
bob="smb$tag"
eve="sme$tag"		# not in the team
made=""
svc_cleanup() {
	cleanup
	for u in $made; do
		userdel "$u" 2>/dev/null
		groupdel "$u" 2>/dev/null
	done
	groupdel "$grp" 2>/dev/null
}
trap 'svc_cleanup' EXIT

groupadd "$grp" || skip_all "groupadd failed"
for u in "$svc" "$alice" "$bob" "$eve"; do
	case $u in
	"$svc")	useradd -M -N -g "$grp" -s /bin/sh "$u" ;;
	"$eve")	useradd -M -U -s /bin/sh "$u" ;;
	*)	useradd -M -U -G "$grp" -s /bin/sh "$u" ;;
	esac || skip_all "useradd $u failed"
	made="$made $u"
done

# Root only reads: the members read the database the service writes.
q() {
	sqlite3 -readonly -cmd '.timeout 5000' "$SLUICE_DB" "$1"
}

chmod 0755 "$T_DIR" "$HOME"
dir="$T_DIR/svc"
mkdir "$dir"
chown "$svc:$grp" "$dir"
chmod 2750 "$dir"
export SLUICE_DB="$dir/sluice.db"
flows="$T_DIR/flows"
mkdir -m 0755 "$flows"
cat >"$flows/people.json" <<'EOF2'
{"start": {"gate": {"message": "people only"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF2
cat >"$flows/agents.json" <<EOF2
{"start": {"gate": {"message": "agents welcome", "agents": true,
  "approvers": ["$alice"]}, "next": "after"},
 "after": {"tool": "noop"}}
EOF2
chmod 0644 "$flows"/*.json

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'

# call ID TOOL ARGS: a tools/call line.
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' \
	    "$1" "$2" "$3"
}

# mcp_as USER LINE...: one session of sluice mcp run as USER.
mcp_as() {
	_u=$1
	shift
	printf '%s\n' "$@" | setpriv --reuid="$_u" --regid="$(id -g "$_u")" \
	    --init-groups "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
}

# get ID PATH: a JSON path of the answer to request ID.
get() {
	json_query "$(grep "^{\"jsonrpc\":\"2.0\",\"id\":$1," "$T_DIR/mcp.out")" \
	    "SELECT json_extract(j, '$2') FROM d"
}

setpriv --reuid="$svc" --regid="$grp" --init-groups \
    sh -c 'umask 027; "$1" init >/dev/null || exit 1; exec "$1" engine' \
    sh "$SLUICE" >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for test -S "$SLUICE_DB.sock"
ok $? "the engine runs as the service account and listens"

auid=$(id -u "$alice")
mcp_as "$alice" "$INIT" \
    "$(call 1 workflow_create '{"flow":"'"$flows"'/people.json"}')" \
    "$(call 2 workflow_create '{"flow":"'"$flows"'/agents.json"}')"
is "$(get 1 '$.result.isError')" 0 "a member's agent starts a run through the socket"
people=$(get 1 '$.result.structuredContent.workflow_id')
agents=$(get 2 '$.result.structuredContent.workflow_id')
is "$(q "SELECT who || '|' || uid || '|' || via FROM audit WHERE
    action = 'start' AND workflow_id = $people")" "$alice|$auid|mcp" \
    "audited as the member, by the uid the kernel reports, via mcp"
is "$(q "SELECT created_by || ' ' || created_via FROM workflows WHERE
    id = $people")" "$alice mcp" "the run says an agent of $alice started it"
wait_for sh -c "[ \"\$(sqlite3 -readonly '$SLUICE_DB' \"SELECT count(*) FROM workflow_steps WHERE status = 'waiting'\")\" = 2 ]"
ok $? "both gates wait"
gp=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $people")
ga=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $agents")

mcp_as "$alice" "$INIT" \
    "$(call 1 gate_decide '{"step_id":'"$gp"',"decision":"approve","comment":"mine"}')" \
    "$(call 2 gate_decide '{"step_id":'"$ga"',"decision":"approve","comment":"ok"}')"
like "$(get 1 '$.result.content[0].text')" "is for people: a decision via mcp is refused" \
    "the engine refuses the agent's decision on a gate for people"
is "$(q "SELECT who || '|' || via FROM audit WHERE action = 'approve-refused'
    AND step_id = $gp")" "$alice|mcp" "the refusal is audited as the member, via mcp"
is "$(get 2 '$.result.isError')" 0 "a gate that allows agents takes the member's agent"
is "$(q "SELECT who || '|' || via FROM audit WHERE action = 'approve'
    AND step_id = $ga")" "$alice|mcp" "  audited as the member via mcp"

setpriv --reuid="$bob" --regid="$(id -g "$bob")" --init-groups \
    "$SLUICE" approve "$gp" -m "bob decides" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
is "$?" 0 "another member decides the gate for people at the shell"
wait_for wf_ended "$people"
wait_for wf_ended "$agents"
is "$(q "SELECT status FROM workflows WHERE id IN ($people, $agents)
    ORDER BY id")" "completed
completed" "both runs complete"

mcp_as "$bob" "$INIT" \
    "$(call 1 workflow_create '{"flow":"'"$flows"'/agents.json"}')"
bw=$(get 1 '$.result.structuredContent.workflow_id')
wait_for sh -c "[ \"\$(sqlite3 -readonly '$SLUICE_DB' \"SELECT status FROM workflow_steps WHERE workflow_id = $bw\")\" = waiting ]"
mcp_as "$bob" "$INIT" \
    "$(call 1 gate_decide '{"step_id":'"$(q "SELECT id FROM workflow_steps WHERE workflow_id = $bw")"',"decision":"approve"}')"
like "$(get 1 '$.result.content[0].text')" "$bob is not an approver of gate" \
    "agents: true does not lift the gate's approvers"

mcp_as "$eve" "$INIT" "$(call 1 workflow_list '{}')" \
    "$(call 2 workflow_create '{"flow":"'"$flows"'/people.json"}')"
is "$(get 2 '$.result.isError')" 1 "someone outside the team gets nowhere"
is "$(q "SELECT count(*) FROM audit WHERE who = '$eve'")" 0 "  and leaves no mark"

kill -TERM "$EPID" 2>/dev/null
wait "$EPID"
setpriv --reuid="$alice" --regid="$(id -g "$alice")" --init-groups \
    "$SLUICE" audit --verify >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
is "$?" 0 "the audit trail verifies"

done_testing
