#!/bin/sh
#
# engine-chain.sh [N]: sluice running N do-nothing processes one after
# another: a chain of N {"run": ["true"]} steps (past 1000, a loop: see
# chain_flow in engine-lib.sh), queued with no engine running, then timed
# from the start of "sluice engine --drain" to its exit.  From the
# engine's trace, the time from a step's process ending (reaped, pipes at
# EOF) to the next step's start: its median and 99th percentile.  Compare
# with floor-make-chain.sh N.  Prints one line:
#   sluice chain: N true steps in S s: R/s; exit to next start p50 A ms
#   p99 B ms; peak RSS M KiB
#
# Default: N=1000.  $SLUICE names the binary.  Not part of make check.

n=${1:-1000}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

steps=$(chain_flow "$n" '{"run": ["true"]}' "$B_DIR/flow.json")
queue "$B_DIR/flow.json"
engine_timed
ndone=$(count 'done')
[ "$ndone" -eq "$steps" ] ||
    { echo "$0: $ndone of $steps steps done" >&2; exit 1; }
p50=$(gaps E | pct 50)
p99=$(gaps E | pct 99)
echo "sluice chain: $steps true steps in $SECS s: $(rate "$steps")/s;" \
    "exit to next start p50 $p50 ms p99 $p99 ms; peak RSS $RSS KiB"
