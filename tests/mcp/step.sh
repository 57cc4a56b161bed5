#!/bin/sh
# tests/mcp/step.sh: MCP tools as steps, against tests/mcp/fake-server.sh,
# a small MCP server on stdio that answers or breaks as its mode says.
# The catalog entry's server gets its command with {{args.KEY}} and its
# env; the step calls the tool with its args and completes with the
# structured result, else the text (JSON when it parses).  isError, a
# JSON-RPC error, malformed JSON-RPC, an answer to an id never sent, a
# refused initialize, an unknown protocol version, a server that exits
# before answering, a timeout: each fails the attempt with its reason,
# retried as any step.  Cancel, timeout and a server that ignores stdin's
# end and SIGTERM all end its process group; after a kill -9 of the
# engine, recovery ends a leftover server.  The log keeps notifications,
# stderr and the exchange; check refuses an MCP tool sent to a host.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

FAKE="$TOP_SRCDIR/tests/mcp/fake-server.sh"
export SLUICE_TOOLS="$T_DIR/tools.json"
export FAKE_PIDS="$T_DIR/fake.pids"
cat >"$SLUICE_TOOLS" <<EOF
{"fake": {"description": "the fake server, in mode args.mode",
  "mcp": {"run": ["$FAKE", "{{args.mode}}"],
   "env": {"FAKE_X": "x-{{args.mode}}", "FAKE_LOG": "$T_DIR/requests"}},
  "tool": "do-it", "retry": {"max_attempts": 1}, "timeout": "1s"},
 "slow": {"mcp": {"run": ["$FAKE", "slow"]}, "tool": "t",
  "retry": {"max_attempts": 1}, "timeout": "1h"}}
EOF

# mode M [MORE]: a one-step flow calling the fake in mode M.
mode() {
	printf '{"start": {"tool": "fake", "args": {"mode": "%s"%s}}}\n' \
	    "$1" "${2:-}" >"$T_DIR/$1.json"
	wait_run "$T_DIR/$1.json"
}

# --- results --------------------------------------------------------------

cat >"$T_DIR/structured.json" <<'EOF'
{"start": {"tool": "fake",
  "args": {"mode": "structured", "who": "{{input.who}}", "n": 3,
   "deep": {"l": [1, null]}}}}
EOF
wait_run "$T_DIR/structured.json" -i "who=\$(id); '\""
expect_rc 0 "structured: the step completes"
is "$(col "$ID" start "status || '|' || exit_code")" "done|0" \
    "structured: done, exit code 0"
is "$(col "$ID" start "json_extract(result_json, '$.request.params')")" \
    '{"name":"do-it","arguments":{"mode":"structured","who":"$(id); '"'"'\"","n":3,"deep":{"l":[1,null]}},"_meta":{"progressToken":"sluice-step-'"$(col "$ID" start id)"'"}}' \
    "structured: the result is structuredContent; the call carried the tool and the interpolated args, unchanged"
is "$(sed -n 1p "$T_DIR/requests" | sed 's/"version":"[^"]*"/"version":V/')" \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sluice","version":V}}}' \
    "structured: initialize came first"
is "$(sed -n 2p "$T_DIR/requests")" \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "structured: then notifications/initialized"
sid=$(col "$ID" start id)
run_sluice log "$sid"
# stderr and stdout are two pipes: where stderr's line lands may vary.
is "$(printf '%s\n' "$OUT" | grep -v '^fake: working on it$')" \
    '[mcp] -> initialize (protocol 2025-06-18)
[mcp] <- initialize: fake 0.1, protocol 2025-06-18
[mcp] -> tools/call do-it
{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half way"}}
[mcp] <- tools/call: structured result' "log: the exchange and the notification"
like "$OUT" "
fake: working on it" "log: and the server's stderr, on a line of its own"
run_sluice log -t "$sid"
like "$OUT" ' err fake: working on it' "log -t: stderr is marked err"
like "$OUT" ' out {"jsonrpc":"2.0","method":"notifications/message"' \
    "log -t: the notification as the server wrote it"
run_sluice show --json "$ID"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.steps[0].tool') || '|' ||
    json_extract(j, '$.steps[0].result.request.params.arguments.n') FROM d")" \
    "fake|3" "show --json: the tool and the result"

mode text
is "$(col "$ID" start "status || '|' || result_json")" 'done|"plain words"' \
    "text: no structuredContent: the text is the result"
mode jsontext
is "$(col "$ID" start result_json)" '{"n":3,"ok":true}' \
    "jsontext: text that parses is JSON"
mode env
is "$(col "$ID" start result_json)" \
    "{\"step\":\"start\",\"attempt\":\"1\",\"x\":\"x-env\",\"wf\":\"$ID\"}" \
    "env: the server has the SLUICE_* variables and its interpolated env"
mode dribble
is "$(col "$ID" start "status || '|' || result_json")" 'done|"in pieces"' \
    "dribble: a message in pieces, ended by CRLF, is one message"
mode progress
is "$(col "$ID" start "status || '|' || progress_pct || '|' || progress_text")" \
    'done|75|3 of 4' \
    "progress: the call's notifications/progress are the step's progress"
run_sluice log "$(col "$ID" start id)"
like "$OUT" '"message":"first of four"' "progress: and the log keeps them"
mode ping
is "$(col "$ID" start "status || '|' || result_json")" 'done|"pong seen"' \
    "ping: the server's ping request is answered"

printf '%s\n' '{"start": {"foreach": ["text", "jsontext", "dribble"],
  "concurrency": 3, "do": {"tool": "fake", "args": {"mode": "{{item}}"}}}}' \
    >"$T_DIR/each.json"
wait_run "$T_DIR/each.json"
expect_rc 0 "for-each: one MCP call per item"
is "$(q "SELECT result_json FROM workflow_steps WHERE workflow_id = $ID AND
    item_of IS NULL")" '["plain words",{"n":3,"ok":true},"in pieces"]' \
    "for-each: the results in item order"

# --- failures -------------------------------------------------------------

# fails MODE ERROR [EXIT]: the step failed with ERROR (and exit code).
fails() {
	mode "$1"
	is "$RC|$(col "$ID" start "status || '|' || error || '|' ||
	    ifnull(exit_code, '-') || '|' || ifnull(result_json, '-')")" \
	    "1|failed|$2|${3:--}|-" "$1: fails: $2"
}
fails iserror "disk full; on /var"
fails rpcerror "MCP server answered tools/call with error -32602: Unknown tool: nope"
fails malformed "malformed JSON-RPC from the MCP server: parse error: line 1, column 1: unexpected word (strings need double quotes)"
fails badid "malformed JSON-RPC from the MCP server: an answer to id 99, which sluice never sent (it awaits 2)"
fails exitinit "MCP server exited with status 3 before answering initialize" 3
fails exitcall "MCP server exited with status 4 before answering tools/call" 4
fails initerror "MCP server answered initialize with error -32602: unsupported client"
fails badversion 'MCP server speaks protocol version "1999-01-01", which sluice does not (it speaks 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05)'
like "$ERR" "step start failed: MCP server speaks protocol version" \
    "the workflow's error names the step and the reason"
run_sluice log "$(col "$ID" start id)"
like "$OUT" "[mcp] MCP server speaks protocol version" \
    "the log says why too"

rm -f "$FAKE_PIDS"
fails slow timeout
set -- $(cat "$FAKE_PIDS" 2>/dev/null)
[ $# -eq 2 ] && wait_for dead "$1" && wait_for dead "$2"
ok $? "slow: the timeout ended the server and its child"

printf '%s\n' '{"start": {"tool": "slow", "heartbeat": "300ms"}}' \
    >"$T_DIR/silent.json"
wait_run "$T_DIR/silent.json"
is "$(col "$ID" start "status || '|' || error")" "failed|no heartbeat" \
    "heartbeat: a server silent past the step's heartbeat fails it"

rm -f "$FAKE_PIDS"
mode stubborn
is "$(col "$ID" start "status || '|' || result_json")" \
    'done|"done, but staying"' "stubborn: answered, so done"
pid=$(cat "$FAKE_PIDS" 2>/dev/null)
[ -n "$pid" ] && wait_for dead "$pid"
ok $? "stubborn: a server ignoring stdin's end and SIGTERM is killed"

# --- retries ----------------------------------------------------------------

cat >"$T_DIR/flaky.json" <<'EOF'
{"start": {"tool": "fake", "args": {"mode": "flaky"},
  "retry": {"max_attempts": 2, "backoff": ["100ms"]}}}
EOF
wait_run "$T_DIR/flaky.json"
expect_rc 0 "flaky: the retry completes"
is "$(q "SELECT group_concat(attempt || ':' || status || ':' ||
    ifnull(error, result_json), ',') FROM (SELECT * FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id)")" \
    '1:failed:not yet,2:done:"attempt 2"' \
    "flaky: isError on attempt 1, the step's retry ran attempt 2"

# --- cancel and crash -----------------------------------------------------

# pid_recorded ID: the run's step row has its process's pid.
pid_recorded() {
	[ -n "$(q "SELECT pid FROM workflow_steps WHERE workflow_id = $1")" ]
}

printf '{"start": {"tool": "slow"}}\n' >"$T_DIR/cancel.json"
rm -f "$FAKE_PIDS"
engine_start
run_sluice run "$T_DIR/cancel.json"
id=$OUT
wait_for test -s "$FAKE_PIDS"
ok $? "cancel: the server is running"
set -- $(cat "$FAKE_PIDS")
run_sluice cancel "$id"
expect_rc 0 "cancel: accepted"
wait_for dead "$1" && wait_for dead "$2"
ok $? "cancel: the server's process group is gone"
wait_for wf_is "$id" cancelled
ok $? "cancel: the workflow is cancelled"
is "$(col "$id" start status)" cancelled "cancel: the step is cancelled"

printf '{"start": {"tool": "slow", "on_interrupt": "fail"}}\n' \
    >"$T_DIR/crash.json"
rm -f "$FAKE_PIDS"
run_sluice run "$T_DIR/crash.json"
id=$OUT
wait_for test -s "$FAKE_PIDS"
set -- $(cat "$FAKE_PIDS")
wait_for pid_recorded "$id"
engine_crash
alive "$1"
ok $? "crash: the server outlives the engine"
engine_start
wait_for dead "$1" && wait_for dead "$2"
ok $? "crash: the next engine's recovery ends the leftover server"
wait_for step_is "$id" start failed
ok $? "crash: the interrupted step fails (on_interrupt fail)"

printf '%s\n' '{"start": {"tool": "fake", "args": {"mode": "slowfirst"},
  "timeout": "1h", "retry": {"max_attempts": 2, "backoff": ["100ms"]}}}' \
    >"$T_DIR/again.json"
rm -f "$FAKE_PIDS"
run_sluice run "$T_DIR/again.json"
id=$OUT
wait_for test -s "$FAKE_PIDS"
set -- $(cat "$FAKE_PIDS")
wait_for pid_recorded "$id"
engine_crash
engine_start
wait_for dead "$1" && wait_for dead "$2"
ok $? "crash, on_interrupt retry: the leftover server is ended"
wait_for wf_is "$id" completed
ok $? "crash, on_interrupt retry: the run completes"
is "$(q "SELECT group_concat(attempt || ':' || status || ':' ||
    ifnull(result_json, '-'), ',') FROM (SELECT * FROM workflow_steps
    WHERE workflow_id = $id ORDER BY id)")" \
    '1:failed:-,2:done:"attempt 2"' \
    "crash, on_interrupt retry: attempt 2 called the tool again"
engine_stop
is "$ERC" 0 "the engine stops"

# --- check --------------------------------------------------------------------

printf '{"start": {"tool": "fake", "host": "db1"}}\n' >"$T_DIR/host.json"
run_sluice check "$T_DIR/host.json"
expect_rc 2 "check: an MCP tool with a host is refused"
like "$ERR" '$.start.host: tool "fake" is an MCP server'"'"'s, which runs on the engine'"'"'s machine: "host" is not supported' \
    "check: it says why, with the path"
printf '{"m": {"mcp": {"run": ["x"]}}}\n' >"$T_DIR/badtools.json"
SLUICE_TOOLS="$T_DIR/badtools.json" run_sluice check "$T_DIR/text.json"
expect_rc 2 "check: a catalog MCP entry without its tool is refused"
like "$ERR" 'an MCP tool needs "tool"' "check: it says what is missing"

done_testing
