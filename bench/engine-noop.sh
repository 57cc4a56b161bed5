#!/bin/sh
#
# engine-noop.sh [N]: how fast sluice moves through built-in steps, with
# no process to wait for: a chain of N noop steps (past 1000, a loop: see
# chain_flow in engine-lib.sh), queued with no engine running, then timed
# from the start of "sluice engine --drain" to its exit.  From the
# engine's trace, the time from a step recorded done to the next step's
# start: its median and 99th percentile.  Prints one line:
#   sluice noop chain: N steps in S s: R/s (R2/s from the first start to
#   the last done); done to next start p50 A ms p99 B ms; peak RSS M KiB
#
# Default: N=10000.  $SLUICE names the binary.  Not part of make check.

n=${1:-10000}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

steps=$(chain_flow "$n" '{"tool": "noop"}' "$B_DIR/flow.json")
queue "$B_DIR/flow.json"
engine_timed
ndone=$(count 'done')
[ "$ndone" -eq "$steps" ] ||
    { echo "$0: $ndone of $steps steps done" >&2; exit 1; }
busy=$(awk '$1 == "S" && first == "" { first = $2 } $1 == "D" { last = $2 }
    END { printf "%.0f", (last > first ? n / ((last - first) / 1e6) : 0) }' \
    n="$steps" "$B_DIR/trace")
p50=$(gaps D | pct 50)
p99=$(gaps D | pct 99)
echo "sluice noop chain: $steps steps in $SECS s: $(rate "$steps")/s" \
    "($busy/s from the first start to the last done);" \
    "done to next start p50 $p50 ms p99 $p99 ms; peak RSS $RSS KiB"
