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
. "$(dirname "$0")/sluice-bin.sh"
case $(date +%s%N) in *[!0-9]*)
	echo "$0: date +%s%N unsupported" >&2; exit 2;; esac

B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
trap 'rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
export HOME="$B_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
export SLUICE_DB="$B_DIR/bench.db"
mkdir -p "$HOME"
unset SLUICE_TOOLS SLUICE_TRACE

echo '{"start": {"tool": "noop"}}' >"$B_DIR/noop.json"
"$SLUICE" init "$SLUICE_DB" >/dev/null
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$SLUICE" run "$B_DIR/noop.json" >/dev/null 2>&1 </dev/null
	t0=$(date +%s%N)
	"$SLUICE" engine --drain >/dev/null 2>&1 </dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
done >"$B_DIR/us"

# pct P: the Pth percentile of the microseconds on stdin, in ms.
pct() {
	sort -n | awk -v p="$1" '
	{ v[NR] = $1 }
	END {
		i = int((p / 100) * NR + 0.999999)
		if (i < 1) i = 1
		printf "%.1f", v[i] / 1000
	}'
}

echo "engine --drain of one noop run: $n runs;" \
    "p50 $(pct 50 <"$B_DIR/us") ms p99 $(pct 99 <"$B_DIR/us") ms"
