#!/bin/sh
# tests/mcp/seed.sh: an agent written for the reference engine's eight MCP
# tools meets sluice mcp: tests/mcp/seed-client.mjs, on the official MCP
# TypeScript SDK, calls each with the seed's argument names and shapes
# (id, schedule as a phrase or a Unix time, input null, flow_json and
# input_json as JSON text) with an engine running.  Then the database
# shows what it did: the gate for people still waits and the refusal is
# audited, the agent's approval is, the Unix time is the start time.
# Skips (saying why) only when node, npm or the registry is missing.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/mcp/npm.sh"

npm_need @modelcontextprotocol/sdk ajv

cp "$TOP_SRCDIR/tests/mcp/seed-client.mjs" \
    "$TOP_SRCDIR/tests/mcp/sdk-lib.mjs" "$T_DIR/"
ln -s "$NPM_DIR/node_modules" "$T_DIR/node_modules"

engine_start
export SLUICE
sdk_run 40 seed-client.mjs
# shellcheck disable=SC2086
set -- $SDK_IDS
now=${1:-0} people=${2:-0} pgate=${3:-0} stamp=${4:-0}

q_is "SELECT status FROM workflows WHERE id = $now" completed \
    "the run whose gate the agent unblocked completed"
q_is "SELECT count(*) FROM audit WHERE action = 'approve' AND
    workflow_id = $now AND via = 'mcp'" 1 "the agent's approval is audited via mcp"
q_is "SELECT status FROM workflow_steps WHERE id = $pgate" waiting \
    "the seed's tool: null gate is for people: it still waits"
q_is "SELECT count(*) FROM audit WHERE action = 'approve-refused' AND
    step_id = $pgate AND via = 'mcp'" 1 "the refused step_ready is audited"
q_is "SELECT status FROM workflows WHERE id = $stamp" scheduled \
    "the run scheduled by Unix time waits for it"
q_is "SELECT count(*) FROM template_versions v JOIN workflow_templates t ON t.id = v.template_id WHERE t.name = 'greet'" 2 \
    "both saved versions are kept after the delete"
engine_stop
run_sluice audit --verify
expect_rc 0 "the audit trail verifies"

done_testing
