#!/bin/sh
#
# engine-mcp.sh [N] [IDLE]: sluice running N MCP tool steps one after
# another, on a host with IDLE more processes than it had (idle "sleep"s,
# started first and ended by pid: a busy production host).  Each step
# spawns tests/mcp/fake-server.sh ("text" mode), initializes it, calls
# its tool and ends it; the chain is queued with no engine running, then
# "sluice engine --drain" is timed from its start to its exit.  What
# grows with the host's processes here is time the engine spends per
# step on something other than the step.  Defaults: N=200, IDLE=0.
#     sluice mcp chain: N steps, P host processes, in S s: R/s; T ms/step

set -eu

n=${1:-200}
idle=${2:-0}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"

fake=$here/../tests/mcp/fake-server.sh
[ -x "$fake" ] || { echo "$0: no $fake" >&2; exit 2; }
export SLUICE_TOOLS="$B_DIR/tools.json"
cat >"$SLUICE_TOOLS" <<EOF2
{"fake": {"mcp": {"run": ["$fake", "text"]}, "tool": "do-it",
  "retry": {"max_attempts": 1}}}
EOF2
steps=$(chain_flow "$n" '{"tool": "fake"}' "$B_DIR/flow.json")
queue "$B_DIR/flow.json"
idle_start "$idle"
engine_timed
idle_stop
[ "$(count done)" -eq "$steps" ] || { echo "$0: not every step is done" >&2;
    exit 1; }
echo "sluice mcp chain: $steps steps, $HOST_PROCS host processes, in" \
    "$SECS s: $(rate "$steps")/s;" \
    "$(awk -v s="$SECS" -v n="$steps" 'BEGIN { printf "%.1f", s * 1000 / n }')" \
    "ms/step"
