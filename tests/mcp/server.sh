#!/bin/sh
# tests/mcp/server.sh: sluice mcp as a real MCP client meets it: the
# official MCP TypeScript SDK (@modelcontextprotocol/sdk from npm, installed
# once per build by tests/mcp/npm.sh) runs tests/mcp/sdk-client.mjs against
# it with an engine running: initialize, tools/list with schemas checked by
# ajv, every tool called, bad arguments, and a gate decision refused unless
# the gate allows agents.  Then the database shows what the agent did,
# audited via mcp, with the chain intact.  Skips (saying why) only when
# node, npm or the registry is missing.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/mcp/npm.sh"

npm_need @modelcontextprotocol/sdk ajv

cat >"$T_DIR/people.json" <<'EOF2'
{"start": {"gate": {"message": "for people"}, "next": "end"},
 "end": {"tool": "noop"}}
EOF2
cat >"$T_DIR/agents.json" <<'EOF2'
{"start": {"gate": {"message": "agents welcome", "agents": true},
  "next": "say"},
 "say": {"name": "say", "shell": "echo said by a step"}}
EOF2
cat >"$T_DIR/wait.json" <<'EOF2'
{"start": {"name": "ext", "wait": true, "next": "then"},
 "then": {"tool": "echo", "args": {"n": "{{steps.ext.result.n}}"}}}
EOF2

# The client script beside the packages it imports.
cp "$TOP_SRCDIR/tests/mcp/sdk-client.mjs" \
    "$TOP_SRCDIR/tests/mcp/sdk-lib.mjs" "$T_DIR/"
ln -s "$NPM_DIR/node_modules" "$T_DIR/node_modules"

engine_start
export PEOPLE_FLOW="$T_DIR/people.json" AGENTS_FLOW="$T_DIR/agents.json" \
    WAIT_FLOW="$T_DIR/wait.json" SLUICE
sdk_run 80 sdk-client.mjs
# shellcheck disable=SC2086
set -- $SDK_IDS
people=${1:-0} agents=${2:-0} later=${3:-0} gp=${4:-0} ga=${5:-0}

wait_for wf_ended "$agents"
q_is "SELECT status FROM workflows WHERE id = $agents" completed \
    "the run whose gate an agent approved completed"
q_is "SELECT status FROM workflow_steps WHERE id = $gp" waiting \
    "the gate for people still waits"
q_is "SELECT count(*) FROM audit WHERE action = 'approve-refused' AND
    step_id = $gp AND via = 'mcp'" 1 "the refused decision is audited via mcp"
q_is "SELECT count(*) FROM audit WHERE action = 'approve' AND step_id = $ga
    AND via = 'mcp' AND comment = 'an agent may'" 1 \
    "the agent's approval is audited via mcp with its comment"
q_is "SELECT status FROM workflows WHERE id = $later" cancelled \
    "the scheduled run was cancelled"
q_is "SELECT count(*) FROM audit WHERE via IS NULL" 0 \
    "every audit row of the session says via mcp"
q_is "SELECT count(DISTINCT who) FROM audit" 1 "all as one user"
q_is "SELECT who FROM audit LIMIT 1" "$(id -un)" "the user who ran sluice mcp"
run_sluice approve "$gp" -m "a person decides"
expect_rc 0 "a person approves the gate the agent could not"
engine_stop
run_sluice audit --verify
expect_rc 0 "the audit trail verifies"

done_testing
