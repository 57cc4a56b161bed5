#!/bin/sh
# bench/idle-engine.sh [SECS]: what an idle engine costs.  "sluice
# engine" on a database with nothing to do, after a settling second,
# watched for SECS seconds (default 60) for its wake-ups (voluntary
# context switches, from /proc/PID/status), then SECS more under strace
# -f -c for its fsync and fdatasync calls (apart, since tracing adds
# switches of its own), both per minute.  SLUICE_BEFORE names an older sluice
# to measure first, as in approve-latency.sh.  Needs strace and the
# right to trace (root, or ptrace_scope 0).
#     idle engine (LABEL): W wake-ups/min, F fsyncs/min over SECS s

set -eu

secs=${1:-60}
here=$(dirname "$0")
. "$here/sluice-bin.sh"
command -v strace >/dev/null 2>&1 || { echo "$0: strace is needed" >&2;
    exit 2; }

B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
export HOME="$B_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME"
unset SLUICE_TOOLS SLUICE_TRACE

# vcs PID: its voluntary context switches so far.
vcs() {
	awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"
}

# one BINARY LABEL
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	# A database is made by init (a sluice before init made it at start).
	"$bin" init "$SLUICE_DB" >/dev/null 2>&1 || :
	"$bin" engine >/dev/null 2>"$B_DIR/engine.err" </dev/null &
	EPID=$!
	sleep 1
	kill -0 "$EPID" 2>/dev/null || { echo "$0: the engine exited:" >&2;
	    cat "$B_DIR/engine.err" >&2; EPID=; exit 1; }
	v0=$(vcs "$EPID")
	sleep "$secs"
	v1=$(vcs "$EPID")
	timeout "$secs" strace -f -c -e trace=fsync,fdatasync -p "$EPID" \
	    -o "$B_DIR/strace" >/dev/null 2>&1 || true
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	f=$(awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 }
	    END { print n + 0 }' "$B_DIR/strace")
	awk -v l="$2" -v w=$((v1 - v0)) -v f="$f" -v s="$secs" 'BEGIN {
		printf "idle engine (%s): %.1f wake-ups/min, %.1f fsyncs/min " \
		    "over %d s\n", l, w * 60 / s, f * 60 / s, s }'
}

if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
	one "$SLUICE_BEFORE" before
fi
one "$SLUICE" after
