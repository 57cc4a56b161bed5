#!/bin/sh
# tests/mcp/protocol.sh: sluice mcp spoken to with plain pipes, no MCP
# library: the handshake and revision agreement, ping, every JSON-RPC
# error (parse, invalid request, unknown method, invalid params), tool
# failures as isError results with the CLI's own reasons, notifications
# never answered, nothing but protocol on stdout, and what it does is
# audited "via mcp" with the hash chain intact.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/mcp-lib.sh"

INIT=$MCP_INIT
INITED=$MCP_INITED

# mcp LINE...: one session of sluice mcp, each argument a line on its
# stdin; stdout in $T_DIR/mcp.out, stderr in $T_DIR/mcp.err, exit in $RC.
mcp() {
	printf '%s\n' "$@" | "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
	RC=$?
}

answer() { mcp_answer "$@"; }
get() { mcp_get "$@"; }
call() { mcp_call "$@"; }

# --- the handshake -----------------------------------------------------------

mcp "$INIT" "$INITED" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
is "$RC" 0 "sluice mcp ends with its input, exit 0"
is "$(get 0 '$.result.protocolVersion')" "$MCP_VERSION" \
    "initialize: the client's revision when sluice speaks it"
is "$(get 0 '$.result.serverInfo.name')" "sluice" "it names itself"
is "$(get 0 '$.result.capabilities.tools.listChanged')" "0" \
    "it offers tools (a fixed list)"
is "$(get 1 '$.result')" "{}" "ping answers an empty result"
is "$(wc -l <"$T_DIR/mcp.out" | tr -d ' ')" 2 \
    "the initialized notification is not answered"

mcp '{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
is "$(json_query "$(cat "$T_DIR/mcp.out")" "SELECT json_extract(j, '\$.result.protocolVersion') || ' ' || json_extract(j, '\$.id') FROM d")" \
    "$MCP_VERSION a" "an unknown revision: sluice's latest, to a string id"
for older in 2025-06-18 2025-03-26 2024-11-05; do
	mcp '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'$older'","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
	is "$(get 0 '$.result.protocolVersion')" "$older" \
	    "initialize: an older revision sluice speaks ($older) is agreed"
done

# --- JSON-RPC errors ------------------------------------------------------------

mcp "$INIT" 'not json' '[1,2]' '{"id":5,"method":"ping"}' \
    '{"jsonrpc":"2.0","id":6,"method":"no/such"}' \
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}' \
    '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}' \
    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"gate_list","arguments":[1]}}' \
    '{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}' \
    '{"jsonrpc":"2.0","id":true,"method":"ping"}' \
    '{"jsonrpc":"2.0","method":"notifications/whatever"}' \
    '' \
    '{"jsonrpc":"2.0","id":11,"method":"ping"}'
is "$RC" 0 "bad lines do not end the session"
errs=$(grep -F '"id":null' "$T_DIR/mcp.out" |
    sed -n 's/.*"code":\(-[0-9]*\).*/\1/p' | tr '\n' ' ')
is "$errs" "-32700 -32600 -32600 -32600 " \
    "bad JSON -32700; a batch, no jsonrpc, a bad id -32600; all with id null"
like "$(grep -F -- '-32700' "$T_DIR/mcp.out")" "line 1, column 1" \
    "a parse error says where"
like "$(grep -F 'batches' "$T_DIR/mcp.out")" "not supported" \
    "a batch is refused by name"
is "$(get 6 '$.error.code')" "-32601" "an unknown method: -32601"
like "$(get 6 '$.error.message')" "no/such" "  naming it"
is "$(get 7 '$.error.code')" "-32602" "tools/call without a name: -32602"
is "$(get 8 '$.error.code')" "-32602" "an unknown tool: -32602"
like "$(get 8 '$.error.message')" '"nope"' "  naming it"
is "$(get 9 '$.error.code')" "-32602" "arguments not an object: -32602"
is "$(get 10 '$.error.code')" "-32602" "initialize without a revision: -32602"
is "$(get 11 '$.result')" "{}" "the session goes on after them"
is "$(wc -l <"$T_DIR/mcp.out" | tr -d ' ')" 11 \
    "one answer per request; notifications and blank lines get none"
bad=$(while read -r l; do
	json_query "$l" "SELECT json_valid(j) AND json_extract(j, '\$.jsonrpc') = '2.0' FROM d"
done <"$T_DIR/mcp.out" | grep -vc '^1$')
is "$bad" 0 "stdout holds JSON-RPC messages only"

# --- tools fail as results, with the CLI's reasons ---------------------------------

cat >"$T_DIR/g.json" <<'EOF2'
{"start": {"tool": "echo", "args": {"x": "{{input.x}}"}, "next": "g"},
 "g": {"gate": {"message": "ship?"}, "next": "end"},
 "end": {"tool": "noop"}}
EOF2
mcp "$INIT" \
    "$(call 1 workflow_get '{"workflow_id":"x"}')" \
    "$(call 2 workflow_get '{}')" \
    "$(call 3 workflow_get '{"workflow_id":1,"extra":1}')" \
    "$(call 4 workflow_get '{"workflow_id":99}')" \
    "$(call 5 gate_decide '{"step_id":1,"decision":"maybe"}')" \
    "$(call 6 workflow_create '{"flow":{"start":{"tool":"nope"}}}')" \
    "$(call 7 workflow_create '{}')" \
    "$(call 8 flow_check '{"flow":{"start":{"tool":"nope"}}}')" \
    "$(call 9 workflow_create '{"flow":"'"$T_DIR"'/missing.json"}')"
is "$(get 1 '$.result.isError')" 1 "a wrong type is a tool error"
is "$(get 1 '$.result.content[0].text')" \
    "workflow_get: arguments.workflow_id: expected integer, not a string" \
    "  naming the argument"
like "$(get 2 '$.result.content[0].text')" "arguments.workflow_id: missing" \
    "a missing argument is named"
like "$(get 3 '$.result.content[0].text')" "arguments.extra: unknown argument" \
    "an unknown argument is named"
run_sluice show 99
is "$(get 4 '$.result.content[0].text')" "${ERR#sluice: }" \
    "an unknown id: the CLI's own reason"
is "$(get 4 '$.result.isError')" 1 "  as a tool error"
is "$(get 4 '$.result.structuredContent')" "" "  with no structured content"
like "$(get 5 '$.result.content[0].text')" 'expected one of ["approve","reject"]' \
    "a decision outside the enum"
like "$(get 6 '$.result.content[0].text')" 'flow.json:3:11: $.start.tool: unknown tool "nope"' \
    "a bad flow: file:line:col and JSON path, no temporary directory"
like "$(get 7 '$.result.content[0].text')" "exactly one of template and flow" \
    "neither template nor flow"
is "$(get 8 '$.result.isError')" 0 "flow_check of a bad flow is an answer"
is "$(get 8 '$.result.structuredContent.valid')" 0 "  valid false"
is "$(get 8 '$.result.structuredContent.problems[0].path')" '$.start.tool' \
    "  each problem with its path"
like "$(get 9 '$.result.content[0].text')" "No such file" "a flow path that is not there"
is "$(q "SELECT count(*) FROM workflows")" 0 "nothing started"
ls "${TMPDIR:-/tmp}" | grep -c '^sluice-mcp\.' >"$T_DIR/left" || :
is "$(cat "$T_DIR/left")" 0 "no temporary files are left behind"

# --- what it does is audited via mcp ---------------------------------------------

# A read and then a write in one session, no engine running: the write
# applies itself, as the command would (the read's read-only open of the
# database is not kept for it).
mcp "$INIT" "$(call 1 template_list '{}')" \
    "$(call 2 template_save '{"name":"first","document":{"start":{"tool":"noop"}}}')" \
    "$(call 3 template_delete '{"name":"first"}')"
is "$(get 2 '$.result.isError')" 0 "a write after a read in one session"
is "$(get 3 '$.result.isError')" 0 "  and another"

# The version template_save answers is the engine's, a number: a second
# save is version 2, whatever the command line would print.
mcp "$INIT" "$(call 1 template_save '{"name":"again","document":{"start":{"tool":"noop"}}}')" \
    "$(call 2 template_save '{"name":"again","document":"{\"description\":\"again\",\"flow\":{\"start\":{\"tool\":\"noop\"}}}"}')"
is "$(json_query "$(answer 2)" "SELECT json_type(j, '\$.result.structuredContent.version') FROM d")" \
    integer "template_save answers the version as a number"
is "$(get 2 '$.result.structuredContent.version')" 2 \
    "  the engine's: the second save is version 2"
run_sluice template list --json
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.version') FROM d, json_each(d.j) WHERE json_extract(value, '\$.name') = 'again'")" 2 \
    "  as the database has it"

# A name that looks like an option is a name: "--" goes before it, so
# template rm --help does not print its usage and answer that as done.
mcp "$INIT" "$(call 1 template_delete '{"name":"--help"}')" \
    "$(call 2 template_save '{"name":"-x","document":{"start":{"tool":"noop"}}}')"
is "$(get 1 '$.result.isError')" 1 \
    "template_delete of a name like an option is refused"
like "$(get 1 '$.result.content[0].text')" "may not start with '-'" \
    "  as a name, not read as --help"
like "$(get 2 '$.result.content[0].text')" "may not start with '-'" \
    "template_save: the same, not an unknown option"

mcp "$INIT" \
    "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/g.json","input":{"x":"hi"},"name":"agent-run"}')" \
    "$(call 2 workflow_list '{"limit":5}')"
is "$(get 1 '$.result.isError')" 0 "workflow_create from a flow file"
id=$(get 1 '$.result.structuredContent.workflow_id')
is "$(get 1 '$.result.structuredContent.name')" "agent-run" "  named as asked"
like "$(get 1 '$.result.structuredContent.warnings[0]')" "no engine is running" \
    "  the CLI's warning comes along"
is "$(get 2 '$.result.structuredContent.workflows[0].id')" "$id" \
    "workflow_list shows it"
is "$(get 1 '$.result.content[0].text')" \
    "$(json_query "$(answer 1)" "SELECT json(json_extract(j, '\$.result.structuredContent')) FROM d")" \
    "the text block is the structured content as JSON"
q_is "SELECT who || ' ' || via FROM audit WHERE action = 'start'" "$(id -un) mcp" \
    "the start is audited as the user, via mcp"
q_is "SELECT created_via FROM workflows WHERE id = $id" "mcp" \
    "the run records that an agent started it"
run_sluice show --json "$id"
like "$OUT" '"created_via": "mcp"' "show --json says so"
run_sluice show "$id"
like "$OUT" "by $(id -un) via mcp" "show says started by USER via mcp"
run_sluice audit
like "$OUT" "$(id -un) via mcp" "audit shows via mcp"
run_sluice audit --verify
expect_rc 0 "the audit trail verifies after MCP actions"

# --- a refusal is the CLI's refusal -----------------------------------------------

printf '{"operators": ["nobody-at-all"]}\n' >"$SLUICE_SITE_CONFIG"
run_sluice run "$T_DIR/g.json"
cli_err=${ERR#sluice: }
mcp "$INIT" "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/g.json"}')"
is "$(get 1 '$.result.isError')" 1 "a start by a non-operator is refused"
is "$(get 1 '$.result.content[0].text')" "$cli_err" "  with the CLI's reason"
q_is "SELECT count(*) FROM audit WHERE action = 'start-refused' AND via = 'mcp'" 1 \
    "the refusal is audited via mcp"
rm -f "$SLUICE_SITE_CONFIG"
run_sluice audit --verify
expect_rc 0 "the trail still verifies"

# --- gates are for people, unless the gate says agents ------------------------------

cat >"$T_DIR/agents.json" <<'EOF2'
{"start": {"shell": "echo hello-from-the-log", "next": "g"},
 "g": {"gate": {"message": "agents welcome", "agents": true}, "next": "end"},
 "end": {"tool": "noop"}}
EOF2
printf '{"start": {"gate": {"agents": "yes"}}}\n' >"$T_DIR/bad-agents.json"
run_sluice check "$T_DIR/bad-agents.json"
expect_rc 2 "check: agents must be a boolean"
like "$ERR" '$.start.gate.agents: expected true or false' "  with its path"

engine_start
mcp "$INIT" \
    "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/g.json","input":{"x":"1"}}')" \
    "$(call 2 workflow_create '{"flow":"'"$T_DIR"'/agents.json"}')"
people=$(get 1 '$.result.structuredContent.workflow_id')
agents=$(get 2 '$.result.structuredContent.workflow_id')
is "$(get 1 '$.result.structuredContent.warnings')" "" \
    "with an engine running there is no warning"
q_is "SELECT count(*) FROM audit WHERE action = 'start' AND via = 'mcp' AND
    workflow_id IN ($people, $agents)" 2 "starts through the socket are audited via mcp"
wait_for step_is "$people" g waiting
wait_for step_is "$agents" g waiting
gp=$(step_id "$people" g)
ga=$(step_id "$agents" g)
mcp "$INIT" "$(call 1 gate_list '{}')" \
    "$(call 2 gate_decide '{"step_id":'"$gp"',"decision":"approve","comment":"lgtm"}')" \
    "$(call 3 gate_decide '{"step_id":'"$gp"',"decision":"reject","comment":"no"}')" \
    "$(call 4 gate_decide '{"step_id":'"$ga"',"decision":"approve","comment":"ok"}')" \
    "$(call 5 step_log '{"step_id":'"$(step_id "$agents" start)"'}')" \
    "$(call 6 workflow_get '{"workflow_id":'"$agents"'}')"
is "$(get 1 '$.result.structuredContent.gates[0].created_via')" "mcp" \
    "gate_list: the run came from an agent"
is "$(get 2 '$.result.isError')" 1 "an agent's approval of a gate for people is refused"
like "$(get 2 '$.result.content[0].text')" \
    'is for people: a decision via mcp is refused (the gate does not say "agents": true)' \
    "  saying why"
is "$(get 3 '$.result.isError')" 1 "  and so is a rejection"
q_is "SELECT count(*) FROM audit WHERE action IN ('approve-refused',
    'reject-refused') AND via = 'mcp' AND step_id = $gp AND
    comment LIKE '%is for people%'" 2 "both refusals are audited with the reason"
q_is "SELECT status FROM workflow_steps WHERE id = $gp" waiting "the gate still waits"
run_sluice approve "$gp" -m "a person says yes"
expect_rc 0 "a person approves the same gate"
is "$(get 4 '$.result.isError')" 0 "a gate that says agents: true takes an agent's approval"
like "$(get 4 '$.result.structuredContent.message')" "approved step $ga" "  the CLI's answer"
is "$(get 4 '$.result.structuredContent.decision')" "approve" "  and what was decided"
q_is "SELECT count(*) FROM audit WHERE action = 'approve' AND via = 'mcp' AND step_id = $ga" 1 \
    "the agent's approval is audited via mcp"
like "$(get 5 '$.result.structuredContent.log')" "hello-from-the-log" "step_log reads the step's output"
is "$(get 6 '$.result.structuredContent.created_via')" "mcp" "workflow_get says an agent started it"
is "$(get 6 '$.result.structuredContent.id')" "$agents" "  of the run asked for"
wait_for wf_ended "$agents"
wait_for wf_ended "$people"
q_is "SELECT status FROM workflows WHERE id IN ($people, $agents) ORDER BY id" \
    "completed
completed" "both runs went on to complete"

# A site default lets agents decide gates that do not say; fixed at creation.
mcp "$INIT" "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/g.json"}')"
before=$(get 1 '$.result.structuredContent.workflow_id')
wait_for step_is "$before" g waiting
engine_stop
printf '{"agents": true}\n' >"$SLUICE_SITE_CONFIG"
engine_start
mcp "$INIT" "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/g.json"}')" \
    "$(call 2 workflow_cancel '{"workflow_id":'"$before"',"comment":"agent cleans up"}')"
after=$(get 1 '$.result.structuredContent.workflow_id')
wait_for step_is "$after" g waiting
mcp "$INIT" "$(call 1 gate_decide '{"step_id":'"$(step_id "$after" g)"',"decision":"approve"}')"
is "$(get 1 '$.result.isError')" 0 "site agents: true: an agent may approve"
q_is "SELECT json_extract(gate_json, '\$.agents') FROM workflow_steps WHERE
    workflow_id IN ($before, $after) AND name = 'g' ORDER BY id" "0
1" "the rule is fixed on each gate when it is created"
q_is "SELECT status FROM workflows WHERE id = $before" cancelled \
    "workflow_cancel cancels"
q_is "SELECT comment || ' ' || via FROM audit WHERE action = 'cancel' AND
    workflow_id = $before" "agent cleans up mcp" "  audited via mcp with its comment"
rm -f "$SLUICE_SITE_CONFIG"

# Wait steps are finished from outside: an agent may, as anyone may.
cat >"$T_DIR/wait.json" <<'EOF2'
{"start": {"name": "ext", "wait": true, "next": "then"},
 "then": {"name": "then", "tool": "echo", "args": {"got": "{{steps.ext.result.n}}"}}}
EOF2
mcp "$INIT" "$(call 1 workflow_create '{"flow":"'"$T_DIR"'/wait.json"}')" \
    "$(call 2 workflow_create '{"flow":"'"$T_DIR"'/wait.json"}')"
w1=$(get 1 '$.result.structuredContent.workflow_id')
w2=$(get 2 '$.result.structuredContent.workflow_id')
wait_for step_is "$w1" ext waiting
wait_for step_is "$w2" ext waiting
mcp "$INIT" "$(call 1 step_complete '{"step":'"$(step_id "$w1" ext)"',"result":{"n":7},"comment":"done outside"}')" \
    "$(call 2 step_fail '{"step":"'"$w2"':ext","message":"outside broke"}')" \
    "$(call 3 step_fail '{"step":'"$(step_id "$w1" ext)"'}')"
is "$(get 1 '$.result.isError')" 0 "step_complete finishes a wait step"
is "$(get 2 '$.result.isError')" 0 "step_fail fails one named WORKFLOW:STEP"
like "$(get 3 '$.result.content[0].text')" "arguments.message: missing" \
    "step_fail needs a message"
wait_for wf_ended "$w1"
wait_for wf_ended "$w2"
q_is "SELECT result_json FROM workflow_steps WHERE workflow_id = $w1 AND
    name = 'then'" '{"got":7}' "the result reaches the next step"
q_is "SELECT status FROM workflows WHERE id = $w2" failed "the failed one fails its run"
q_is "SELECT count(*) FROM audit WHERE via = 'mcp' AND workflow_id IN ($w1, $w2)
    AND action IN ('complete', 'fail')" 2 "both audited via mcp"
engine_stop
run_sluice audit --verify
expect_rc 0 "the audit trail verifies after all of it"

# --- usage ---------------------------------------------------------------------------

run_sluice mcp extra
expect_rc 2 "sluice mcp takes no arguments"
run_sluice mcp --help
like "$OUT" "usage: sluice mcp" "sluice mcp --help"

done_testing
