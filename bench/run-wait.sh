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
	t0=$(date +%s%N)
	"$SLUICE" run "$B_DIR/noop.json" --wait >/dev/null </dev/null
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

echo "run --wait of one noop step: $n runs;" \
    "p50 $(pct 50 <"$B_DIR/us") ms p99 $(pct 99 <"$B_DIR/us") ms"
