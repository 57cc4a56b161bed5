#!/bin/sh
#
# engine-mcp.sh [N] [IDLE]: sluice running N MCP tool steps one after
# another, beside N plain {"run": ["true"]} steps one after another, on a
# host with IDLE more processes than it had (idle "sleep"s, started first
# and ended by pid: a busy production host).  Each MCP step spawns
# bench/mcp-server.c (built here with cc: the cheapest server that speaks
# the protocol, so the figure is sluice's cost, not a server's start-up),
# initializes it, calls its tool and ends it.  Each chain is queued with
# no engine running, then "sluice engine --drain" is timed from its start
# to its exit.  What grows with the host's processes here is time the
# engine spends per step on something other than the step.  SLUICE_BEFORE
# names an older sluice, measured first the same way (its line says
# "before").  Defaults: N=200, IDLE=0.  One line per binary:
#     sluice mcp chain: N steps, P host processes (LABEL): MCP A ms/step,
#     plain B ms/step, MCP/plain R

set -eu

n=${1:-200}
idle=${2:-0}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"

"${CC:-cc}" -O2 -o "$B_DIR/mcp-server" "$here/mcp-server.c"
export SLUICE_TOOLS="$B_DIR/tools.json"
cat >"$SLUICE_TOOLS" <<EOF2
{"bench": {"mcp": {"run": ["$B_DIR/mcp-server"]}, "tool": "do-it",
  "retry": {"max_attempts": 1}}}
EOF2
chain_flow "$n" '{"tool": "bench"}' "$B_DIR/mcp.json" >/dev/null
steps=$(chain_flow "$n" '{"run": ["true"]}' "$B_DIR/plain.json")

# per_step FLOW: ms per step of a chain of FLOW on a fresh database.
per_step() {
	rm -f "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
	queue "$1"
	engine_timed
	[ "$(count done)" -eq "$steps" ] ||
	    { echo "$0: not every step is done" >&2; exit 1; }
	awk -v s="$SECS" -v n="$steps" 'BEGIN { printf "%.2f", s * 1000 / n }'
}

# one BINARY LABEL
one() {
	SLUICE=$1
	m=$(per_step "$B_DIR/mcp.json")
	p=$(per_step "$B_DIR/plain.json")
	echo "sluice mcp chain: $steps steps, $HOST_PROCS host processes" \
	    "($2): MCP $m ms/step, plain $p ms/step, MCP/plain" \
	    "$(awk -v m="$m" -v p="$p" 'BEGIN { printf "%.2f", m / p }')"
}

idle_start "$idle"
if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
	after=$SLUICE
	one "$SLUICE_BEFORE" before
	SLUICE=$after
fi
one "$SLUICE" after
idle_stop
