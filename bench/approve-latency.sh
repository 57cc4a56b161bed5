#!/bin/sh
# bench/approve-latency.sh [N]: from "sluice approve" starting to the
# next step's process starting, with an engine running.  N workflows of a
# gate followed by {"run": ["true"]} are queued with no engine (not
# timed); "sluice engine" starts; then each gate is approved in turn, its
# start stamped by monotime -x right before the exec, and the next step's
# start read from the engine's SLUICE_TRACE once it has exited (the next
# approval waits until sqlite3 sees that step started).  Prints p50 and
# p99 in ms.  Needs sqlite3 and cc.
#
# Before and after in one run: SLUICE_BEFORE names an older sluice whose
# commands go through the database's inbox (the engine noticed them by
# polling); SLUICE (else ./sluice, else sluice on $PATH) the one under
# test, whose commands go over the engine's socket.  Without
# SLUICE_BEFORE only the second line is printed.  Default: N=200.
#     approve to next start (LABEL): N approvals; p50 A ms p99 B ms
#
# ROUNDS=R (default 1, or 3 with SLUICE_BEFORE): R rounds, each before
# then after (interleaved, so a load that comes and goes touches both),
# then per label the median of the rounds' p50 and p99 and their spread:
#     approve to next start summary (LABEL): R rounds of N approvals;
#     p50 A ms [MIN-MAX] p99 B ms [MIN-MAX]

set -eu

n=${1:-200}
here=$(dirname "$0")
. "$here/sluice-bin.sh"
. "$here/rounds-lib.sh"

B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
export HOME="$B_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME"
unset SLUICE_TOOLS SLUICE_TRACE

"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"

cat >"$B_DIR/gate.json" <<'EOF2'
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2

# one BINARY LABEL: queue, start the engine, approve each gate, report.
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	# A database is made by init (a sluice before init made it at run).
	"$bin" init "$SLUICE_DB" >/dev/null 2>&1 || :
	i=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		"$bin" run "$B_DIR/gate.json" >/dev/null 2>"$B_DIR/run.err" \
		    </dev/null || { echo "$0: queueing failed:" >&2;
		    cat "$B_DIR/run.err" >&2; exit 1; }
	done
	: >"$B_DIR/trace" >"$B_DIR/t0"
	SLUICE_TRACE="$B_DIR/trace" "$bin" engine >/dev/null \
	    2>"$B_DIR/engine.err" </dev/null &
	EPID=$!
	# Wait for every gate to be waiting.
	k=0
	while [ "$("$bin" gates --json 2>/dev/null | grep -c '"step_id"')" \
	    -lt "$n" ]; do
		k=$((k + 1))
		[ "$k" -lt 600 ] || { echo "$0: gates never waited" >&2;
		    exit 1; }
		sleep 0.05
	done
	"$bin" gates --json | sed -n 's/.*"step_id":[^0-9]*\([0-9]*\).*/\1/p' \
	    >"$B_DIR/steps"
	i=0
	while read -r s; do
		i=$((i + 1))
		"$B_DIR/monotime" -x "$B_DIR/t0" "$bin" approve "$s" -m ok \
		    >/dev/null 2>&1 </dev/null
		# Wait for the next step to have started (the trace is only
		# flushed when the engine exits; its times are read then).
		k=0
		while [ "$(sqlite3 -readonly "$SLUICE_DB" "SELECT count(*)
		    FROM workflow_steps WHERE name = 'after' AND status IN
		    ('running', 'done')")" -lt "$i" ]; do
			k=$((k + 1))
			[ "$k" -lt 2000 ] || { echo "$0: no start after" \
			    "approving $s" >&2; exit 1; }
			sleep 0.005
		done
	done <"$B_DIR/steps"
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	grep '^S ' "$B_DIR/trace" | awk '{ print $2 }' >"$B_DIR/s"
	paste "$B_DIR/t0" "$B_DIR/s" |
	    awk '{ printf "%.3f\n", ($2 - $1) / 1000 }' | sort -n >"$B_DIR/lat"
	awk -v label="$2" -v n="$n" '{ v[NR] = $1 } END {
		p50 = v[int((NR - 1) * 0.50) + 1]
		p99 = v[int((NR - 1) * 0.99) + 1]
		printf "approve to next start (%s): %d approvals; p50 %.2f ms " \
		    "p99 %.2f ms\n", label, n, p50, p99
		printf "%s %.3f %.3f\n", label, p50, p99 >> figures }' \
	    figures="$B_DIR/figures" "$B_DIR/lat"
	rm -f "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
}

if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
fi
rounds=${ROUNDS:-$([ -n "${SLUICE_BEFORE:-}" ] && echo 3 || echo 1)}
: >"$B_DIR/figures"
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	[ -z "${SLUICE_BEFORE:-}" ] || one "$SLUICE_BEFORE" before
	one "$SLUICE" after
done
[ "$rounds" -gt 1 ] || exit 0
# The median of each label's rounds, and their spread.
rounds_summary "$B_DIR/figures" "approve to next start" "$n" approvals
