#!/bin/sh
# bench/run-wait.sh [N]: how long "sluice run FLOW --wait" takes for a
# flow of one noop step with no engine running, so that the command
# becomes the engine for it: N runs one after another, each timed from
# its start to its exit.  Nearly all of it is the process starting and
# opening the database; a run that ends must not then wait for the
# engine's next timer (it once did: a second each).  Prints p50 and p99
# in ms.  Default: N=50.
#     run --wait of one noop step: N runs; p50 A ms p99 B ms

set -eu

n=${1:-50}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

echo '{"start": {"tool": "noop"}}' >"$B_DIR/noop.json"
"$SLUICE" init "$SLUICE_DB" >/dev/null
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	t0=$(now_ns)
	"$SLUICE" run "$B_DIR/noop.json" --wait >/dev/null </dev/null
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
done >"$B_DIR/us"

echo "run --wait of one noop step: $n runs;" \
    "p50 $(pct 50 <"$B_DIR/us") ms p99 $(pct 99 <"$B_DIR/us") ms"
