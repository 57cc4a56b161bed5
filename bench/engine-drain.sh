#!/bin/sh
# bench/engine-drain.sh [N]: how long "sluice engine --drain" takes to run
# one queued workflow of a noop step and exit: N rounds one after another,
# each queuing the run with no engine, then timing the engine from its
# start to its exit.  Nearly all of it is the process starting, opening
# the database and recovering; an engine that has drained must not then
# wait for its next timer (it once did: a second in a test build, up to
# five otherwise).  Prints p50 and p99 in ms.  Default: N=50.
#     engine --drain of one noop run: N runs; p50 A ms p99 B ms

set -eu

n=${1:-50}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

echo '{"start": {"tool": "noop"}}' >"$B_DIR/noop.json"
"$SLUICE" init "$SLUICE_DB" >/dev/null
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$SLUICE" run "$B_DIR/noop.json" >/dev/null 2>&1 </dev/null
	t0=$(now_ns)
	"$SLUICE" engine --drain >/dev/null 2>&1 </dev/null
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000))
done >"$B_DIR/us"

echo "engine --drain of one noop run: $n runs;" \
    "p50 $(pct 50 <"$B_DIR/us") ms p99 $(pct 99 <"$B_DIR/us") ms"
