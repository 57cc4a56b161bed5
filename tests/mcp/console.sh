#!/bin/sh
# tests/mcp/console.sh: what an agent did, as the console shows it: a run
# started through sluice mcp reads "by USER via mcp" in the gates view,
# the gate's detail says who started the run and that it came from an
# agent, and whether agents may decide the gate.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/tui-lib.sh"

ME=$(id -un)

cat >"$T_DIR/gate.json" <<'EOF2'
{"start": {"gate": {"message": "Agent wants prod"}, "next": "end"},
 "end": {"tool": "noop"}}
EOF2

"$SLUICE" init >/dev/null 2>&1
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workflow_create","arguments":{"flow":"'"$T_DIR"'/gate.json","name":"from-agent"}}}' |
    "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
like "$(cat "$T_DIR/mcp.out")" '"isError":false' "an agent starts a run through sluice mcp"

tui_start 100x30 --
tui_ok 'engine: this console' "the console runs the engine"
wait_for step_is 1 start waiting
ok $? "the gate waits"
tui_keys 2
tui_ok "Agent wants prod" "the gates view lists it"
tui_ok "$ME via mcp" "... started by $ME via mcp"
tui_keys Enter
tui_ok "^  workflow +1 from-agent \([a-z]+\), started by $ME via mcp at " \
    "the gate's detail says an agent started the run"
tui_ok '^  agents +may not decide it \(people only\)$' \
    "... and that agents may not decide it"
tui_stop
tui_sanitizers_ok "no sanitizer reports"

done_testing
