#!/bin/sh
# tests/mcp/everything.sh: MCP tools as steps against a real MCP server,
# @modelcontextprotocol/server-everything from npm (installed once per
# build by tests/mcp/npm.sh; skipped, saying why, without node, npm or the
# registry).  Its echo, get-sum and get-structured-content tools run as
# steps: text results, a structured result, args interpolated from the
# input; a tool it does not have fails the step and is retried; a long
# operation logs its progress notifications and is cancelled, its
# server's process group gone.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/mcp/npm.sh"

npm_need @modelcontextprotocol/server-everything
SERVER="$NPM_DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$SERVER" ] || skip_all "server-everything has no dist/index.js (layout changed?)"

# The server marks its processes with this, so the test finds them.
export SLUICE_TOOLS="$T_DIR/tools.json"
cat >"$SLUICE_TOOLS" <<EOF
{"ev-echo": {"mcp": {"run": ["node", "$SERVER", "stdio"]}, "tool": "echo",
  "timeout": "60s"},
 "ev-sum": {"mcp": {"run": ["node", "$SERVER", "stdio"]}, "tool": "get-sum",
  "timeout": "60s"},
 "ev-weather": {"mcp": {"run": ["node", "$SERVER", "stdio"]},
  "tool": "get-structured-content", "timeout": "60s"},
 "ev-long": {"mcp": {"run": ["node", "$SERVER", "stdio"]},
  "tool": "trigger-long-running-operation", "timeout": "5m"},
 "ev-none": {"mcp": {"run": ["node", "$SERVER", "stdio"]},
  "tool": "no-such-tool", "timeout": "60s"}}
EOF

# The tool names this test relies on are the server's.
cat >"$T_DIR/list.mjs" <<'EOF'
import { spawn } from "node:child_process";
const p = spawn("node", [process.argv[2], "stdio"], { stdio: ["pipe", "pipe", "inherit"] });
let buf = "";
p.stdout.on("data", (d) => {
	buf += d;
	for (let i; (i = buf.indexOf("\n")) >= 0; buf = buf.slice(i + 1)) {
		const m = JSON.parse(buf.slice(0, i));
		if (m.id === 1) {
			p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
			p.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
		} else if (m.id === 2) {
			console.log(m.result.tools.map((t) => t.name).sort().join(" "));
			p.kill();
		}
	}
});
p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n');
EOF
tools=$(timeout 60 node "$T_DIR/list.mjs" "$SERVER" 2>"$T_DIR/list.err")
# A server that cannot start under this node is the machine's matter.
[ -n "$tools" ] || skip_all "server-everything does not start under node \
$(node --version): $(grep -v '^Starting' "$T_DIR/list.err" | head -1 | cut -c1-120)"
for t in echo get-sum get-structured-content trigger-long-running-operation; do
	like " $tools " " $t " "the server has the tool $t"
done

cat >"$T_DIR/flow.json" <<'EOF'
{"start": {"tool": "ev-echo", "args": {"message": "hello {{input.who}}"},
  "next": "sum"},
 "sum": {"tool": "ev-sum", "args": {"a": "{{input.a}}", "b": 40},
  "next": "weather"},
 "weather": {"tool": "ev-weather", "args": {"location": "Chicago"}}}
EOF
wait_run "$T_DIR/flow.json" -i who=operator -i a:=2
expect_rc 0 "the flow of MCP tool steps completes"
is "$(col "$ID" start "status || '|' || result_json")" \
    'done|"Echo: hello operator"' "echo: its text is the result"
is "$(col "$ID" sum result_json)" '"The sum of 2 and 40 is 42."' \
    "get-sum: the args reached it with their JSON types"
is "$(col "$ID" weather "json_type(result_json, '$.temperature') || '|' ||
    json_type(result_json, '$.conditions')")" "integer|text" \
    "get-structured-content: its structuredContent is the result"
run_sluice show "$ID"
like "$OUT" '"Echo: hello operator"' "show: the result in the step table"
run_sluice log "$(col "$ID" start id)"
like "$OUT" "[mcp] <- initialize: " "log: the server's answer to initialize"
like "$OUT" "[mcp] -> tools/call echo" "log: the call"

cat >"$T_DIR/none.json" <<'EOF'
{"start": {"tool": "ev-none", "retry": {"max_attempts": 2, "backoff": ["100ms"]}}}
EOF
wait_run "$T_DIR/none.json"
expect_rc 1 "a tool the server does not have fails the run"
is "$(q "SELECT count(*) || '|' || max(attempt) FROM workflow_steps
    WHERE workflow_id = $ID AND status = 'failed'")" "2|2" \
    "it was tried twice, as the step's retry says"
like "$(col "$ID" start error)" "no-such-tool" "the error names the tool"

cat >"$T_DIR/long.json" <<'EOF'
{"start": {"tool": "ev-long", "args": {"duration": 300, "steps": 300}}}
EOF
engine_start
run_sluice run "$T_DIR/long.json"
id=$OUT
# progress: one notification a second; wait for the first.
has_progress() {
	"$SLUICE" log "$(col "$id" start id)" 2>/dev/null |
	    grep -q '"notifications/progress"'
}
wait_for has_progress || wait_for has_progress
ok $? "a long operation's progress notifications reach the log"
like "$(col "$id" start "progress_pct || '|' || progress_text")" " of 300" \
    "and they are the step's progress"
pid=$(col "$id" start pid)
alive "$pid"
ok $? "the server is running"
run_sluice cancel "$id"
expect_rc 0 "cancel is accepted"
wait_for dead "$pid"
ok $? "cancel ended the server"
wait_for wf_is "$id" cancelled
ok $? "the run is cancelled"
is "$(ps -o pid= -g "$pid" 2>/dev/null | wc -l)" 0 \
    "nothing is left in the server's process group"
engine_stop
is "$ERC" 0 "the engine stops"

done_testing
