#!/bin/sh
#
# prune.sh [WORKFLOWS] [APPROVALS]: "sluice prune" of a year of history
# with an engine running, and what it does to the commands sent meanwhile.
# console-gen.sh makes a database of WORKFLOWS workflows (default 2000;
# 90 s apart, the newest an hour old, 200 of them waiting at a gate, or
# an eighth below 800); "sluice engine" starts on it; "sluice prune
# --older-than 2h" removes the finished ones (not timed from here: from
# its start to its exit), and meanwhile APPROVALS (default 8) of the
# waiting gates are approved one after another, each timed from its start
# to its exit.  An approval that exits non-zero counts as failed, and
# how long after the prune it is applied is not waited for.  SLUICE_BEFORE
# names an older sluice to measure first, on a database of its own.
# Needs sqlite3 and cc.
#     prune (LABEL): W workflows, R removed in S s; A approvals during it:
#     p50 P ms, max M ms, F failed

set -eu

w=${1:-2000}
napp=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is needed" >&2; exit 2; }
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# one BINARY LABEL
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	SLUICE=$bin sh "$here/console-gen.sh" "$SLUICE_DB" "$w" >/dev/null
	before=$(sqlite3 "$SLUICE_DB" 'SELECT count(*) FROM workflows')
	"$bin" engine >/dev/null 2>"$B_DIR/engine.err" </dev/null &
	EPID=$!
	sleep 1
	sqlite3 "$SLUICE_DB" "SELECT id FROM workflow_steps WHERE status =
	    'waiting' ORDER BY id LIMIT $napp" >"$B_DIR/gates"
	t0=$(now_ms)
	"$bin" prune --older-than 2h >/dev/null 2>"$B_DIR/prune.err" </dev/null &
	ppid=$!
	: >"$B_DIR/lat"
	failed=0
	while read -r g; do
		a0=$(now_ms)
		"$bin" approve "$g" -m bench >/dev/null 2>&1 </dev/null ||
		    failed=$((failed + 1))
		echo $(($(now_ms) - a0)) >>"$B_DIR/lat"
	done <"$B_DIR/gates"
	wait "$ppid" || { echo "$0: prune failed:" >&2;
	    cat "$B_DIR/prune.err" >&2; }
	secs=$(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.1f", ms / 1000 }')
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	after=$(sqlite3 "$SLUICE_DB" 'SELECT count(*) FROM workflows')
	sort -n "$B_DIR/lat" | awk -v l="$2" -v w="$w" -v r=$((before - after)) \
	    -v s="$secs" -v f="$failed" '{ v[NR] = $1 } END {
		printf "prune (%s): %d workflows, %d removed in %s s; %d " \
		    "approvals during it: p50 %d ms, max %d ms, %d failed\n",
		    l, w, r, s, NR, v[int((NR + 1) / 2)], v[NR], f }'
}

if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
	one "$SLUICE_BEFORE" before
fi
one "$SLUICE" after
