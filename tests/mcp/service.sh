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

. "$TOP_SRCDIR/tests/service-lib.sh"

svc_setup sm

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

. "$TOP_SRCDIR/tests/mcp-lib.sh"

INIT=$MCP_INIT
call() { mcp_call "$@"; }

# mcp_as USER LINE...: one session of sluice mcp run as USER.
mcp_as() {
	_u=$1
	shift
	printf '%s\n' "$@" | as "$_u" "$SLUICE" mcp >"$T_DIR/mcp.out" \
	    2>"$T_DIR/mcp.err"
}

get() { mcp_get "$@"; }

svc_engine
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

as "$bob" "$SLUICE" approve "$gp" -m "bob decides" >"$T_DIR/out" \
    2>"$T_DIR/err" </dev/null
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

# A member reads through the engine (service mode): verify while it runs.
as "$alice" "$SLUICE" audit --verify >"$T_DIR/out" 2>"$T_DIR/err" \
    </dev/null
is "$?" 0 "the audit trail verifies"
kill -TERM "$EPID" 2>/dev/null
wait "$EPID"

done_testing
