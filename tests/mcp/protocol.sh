#!/bin/sh
# tests/mcp/protocol.sh: sluice mcp spoken to with plain pipes, no MCP
# library: the handshake and revision agreement, ping, every JSON-RPC
# error (parse, invalid request, unknown method, invalid params), tool
# failures as isError results with the CLI's own reasons, notifications
# never answered, nothing but protocol on stdout, and what it does is
# audited "via mcp" with the hash chain intact.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# mcp LINE...: one session of sluice mcp, each argument a line on its
# stdin; stdout in $T_DIR/mcp.out, stderr in $T_DIR/mcp.err, exit in $RC.
mcp() {
	printf '%s\n' "$@" | "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
	RC=$?
}

# answer ID: the answer line to request ID (sluice writes jsonrpc, then id).
answer() {
	grep "^{\"jsonrpc\":\"2.0\",\"id\":$1," "$T_DIR/mcp.out"
}

# get ID PATH: a JSON path of the answer to request ID.
get() {
	json_query "$(answer "$1")" "SELECT json_extract(j, '$2') FROM d"
}

# call ID TOOL ARGS: a tools/call line.
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' \
	    "$1" "$2" "$3"
}

# --- the handshake -----------------------------------------------------------

mcp "$INIT" "$INITED" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
is "$RC" 0 "sluice mcp ends with its input, exit 0"
is "$(get 0 '$.result.protocolVersion')" "2025-06-18" \
    "initialize: the client's revision when sluice speaks it"
is "$(get 0 '$.result.serverInfo.name')" "sluice" "it names itself"
is "$(get 0 '$.result.capabilities.tools.listChanged')" "0" \
    "it offers tools (a fixed list)"
is "$(get 1 '$.result')" "{}" "ping answers an empty result"
is "$(wc -l <"$T_DIR/mcp.out" | tr -d ' ')" 2 \
    "the initialized notification is not answered"

mcp '{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
is "$(json_query "$(cat "$T_DIR/mcp.out")" "SELECT json_extract(j, '\$.result.protocolVersion') || ' ' || json_extract(j, '\$.id') FROM d")" \
    "2025-11-25 a" "an unknown revision: sluice's latest, to a string id"

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

# The inbox path (an engine without a socket) carries via too.
q_is "SELECT count(*) FROM inbox WHERE via IS NOT NULL" 0 "no inbox rows yet"

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

# --- usage ---------------------------------------------------------------------------

run_sluice mcp extra
expect_rc 2 "sluice mcp takes no arguments"
run_sluice mcp --help
like "$OUT" "usage: sluice mcp" "sluice mcp --help"

done_testing
