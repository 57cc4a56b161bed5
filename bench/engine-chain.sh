#!/bin/sh
#
# engine-chain.sh [N [LOOP]]: sluice running N do-nothing processes one
# after another: a chain of N {"run": ["true"]} steps (past 1000, or with
# LOOP, a loop: see chain_flow in engine-lib.sh), queued with no engine
# running, then timed from the start of "sluice engine --drain" to its
# exit.  From the engine's trace, the time from a step's process ending
# (reaped, pipes at EOF) to the next step's start: its median and 99th
# percentile.  Compare with floor-make-chain.sh N.  Prints one line:
#   sluice chain: N true steps in S s: R/s; exit to next start p50 A ms
#   p99 B ms; peak RSS M KiB
#
# engine-chain.sh memory [SMALL BIG [LOOP]]: the engine's peak RSS over a
# chain of about SMALL, then BIG, such steps, both one loop of LOOP steps
# (the same flow, run more times), so that only the number of steps
# differs.  Defaults: 1000, 10000, a loop of 100.  Prints one line:
#   sluice chain memory: peak RSS A KiB at N1 steps, B KiB at N2 steps
#   (a loop of L): B / A = R
# Flat means R at most 1.1.
#
# Default: N=1000.  $SLUICE names the binary.  Not part of make check.

usage() {
	echo "usage: $0 [N [LOOP]] | memory [SMALL BIG [LOOP]]" >&2
	exit 2
}
num() {
	case $1 in ''|*[!0-9]*|0) usage;; esac
}

if [ "${1:-}" = memory ]; then
	small=${2:-1000} big=${3:-10000} loop=${4:-100}
	num "$small"; num "$big"; num "$loop"
	[ "$loop" -ge 2 ] || usage
	. "$(dirname "$0")/engine-lib.sh"
	# rss_of N: the peak RSS (KiB) of draining a chain of about N.
	rss_of() {
		SLUICE_DB="$B_DIR/chain$1.db"
		STEPS=$(chain_flow "$1" '{"run": ["true"]}' \
		    "$B_DIR/flow$1.json" "$loop")
		queue "$B_DIR/flow$1.json"
		engine_timed
		ndone=$(count 'done')
		[ "$ndone" -eq "$STEPS" ] ||
		    { echo "$0: $ndone of $STEPS steps done" >&2; exit 1; }
	}
	rss_of "$small"
	rss1=$RSS steps1=$STEPS
	rss_of "$big"
	echo "sluice chain memory: peak RSS $rss1 KiB at $steps1 steps," \
	    "$RSS KiB at $STEPS steps (a loop of $loop):" \
	    "$(awk -v a="$rss1" -v b="$RSS" \
	    'BEGIN { printf "%s / %s = %.3f", b, a, (a > 0 ? b / a : 0) }')"
	exit 0
fi

n=${1:-1000}
loop=${2:-}
num "$n"
[ -z "$loop" ] || { num "$loop"; [ "$loop" -ge 2 ] || usage; }
. "$(dirname "$0")/engine-lib.sh"

steps=$(chain_flow "$n" '{"run": ["true"]}' "$B_DIR/flow.json" "$loop")
queue "$B_DIR/flow.json"
engine_timed
ndone=$(count 'done')
[ "$ndone" -eq "$steps" ] ||
    { echo "$0: $ndone of $steps steps done" >&2; exit 1; }
p50=$(gaps E | pct 50)
p99=$(gaps E | pct 99)
echo "sluice chain: $steps true steps in $SECS s: $(rate "$steps")/s;" \
    "exit to next start p50 $p50 ms p99 $p99 ms; peak RSS $RSS KiB"
