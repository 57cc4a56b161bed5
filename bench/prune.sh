#!/bin/sh
#
# prune.sh [WORKFLOWS] [ROUNDS]: "sluice prune" of a long history with an
# engine running, and what it does to the approvals sent meanwhile.
# console-gen.sh makes a database of WORKFLOWS workflows (default 2000;
# 90 s apart, the newest an hour old; cached as approvals-lib.sh's
# cached_db says); each round copies it, starts "sluice engine" on the
# copy and runs workflows of 998 gates side by side (one per 20,000
# workflows and one more, so the gates outlast even a slow prune: about
# 10 approvals a second against at most a few ms a run), then "sluice
# prune --older-than 2h" removes the finished runs (timed from its start
# to its exit) while one of those gates is approved every 0.1 s, each approval
# timed from its start to its exit; one that exits non-zero (not answered
# "applied") counts as failed.  20 approvals just before the prune (after
# 10 to let the engine settle) are the figures without one.  The prune's
# time per removed run says whether it grows linearly: compare 1000,
# 10000 and 100000.  Should the gates still run out before the prune
# ends, the script says so and exits 1: the end of the prune would go
# unmeasured.  The copy is synced before the engine starts, so the
# kernel's writeback of it does not fall into the measurement.
# SLUICE_BEFORE names an older sluice, measured in the same rounds,
# interleaved, on a database of its own schema.  Default ROUNDS=1.
# Needs sqlite3 and cc.  One line per round and binary:
#     prune (LABEL): W workflows, R removed in S s (U us a run); A
#     approvals: p50 P ms, p99 Q ms, max X ms during it; F failed;
#     without a prune: B approvals: p50 P ms, p99 Q ms, max X ms

set -eu

w=${1:-2000}
rounds=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
. "$here/approvals-lib.sh"
command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is needed" >&2; exit 2; }
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT

# The gates approved during the prune: GATE_RUNS workflows of 998 each,
# all waiting at once.
GATE_RUNS=$((1 + w / 20000))
awk 'BEGIN {
	printf "{\"start\": {\"tool\": \"noop\", \"parallel\": ["
	for (i = 1; i <= 998; i++)
		printf "%s\"g%d\"", (i > 1 ? ", " : ""), i
	print "]},"
	for (i = 1; i <= 998; i++)
		printf "\"g%d\": {\"gate\": {\"message\": \"go?\"}, " \
		    "\"join\": \"end\"},\n", i
	print "\"end\": {\"tool\": \"noop\"}}"
}' >"$B_DIR/gates.json"

# waiting WF: how many steps of the workflows from WF on wait.
waiting() {
	sqlite3 "$SLUICE_DB" "SELECT count(*) FROM workflow_steps WHERE
	    workflow_id >= $1 AND status = 'waiting'"
}

# one BINARY LABEL: a round of one binary.
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	rm -f "$SLUICE_DB"*
	cp "$(cached_db "$bin" "$w")" "$SLUICE_DB"
	sync "$SLUICE_DB"
	wf=$(($(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows') + 1))
	# Queued with no engine; the engine starts them.
	_r=0
	while [ "$_r" -lt "$GATE_RUNS" ]; do
		_r=$((_r + 1))
		"$bin" run "$B_DIR/gates.json" >/dev/null \
		    2>"$B_DIR/run.err" || { cat "$B_DIR/run.err" >&2; exit 1; }
	done
	"$bin" engine >/dev/null 2>"$B_DIR/engine.err" </dev/null &
	EPID=$!
	_k=0
	while [ "$(waiting "$wf")" -lt $((998 * GATE_RUNS)) ]; do
		_k=$((_k + 1))
		[ "$_k" -lt $((1200 * GATE_RUNS)) ] ||
		    { echo "$0: the gates never waited" >&2; exit 1; }
		sleep 0.05
	done
	sqlite3 "$SLUICE_DB" "SELECT id FROM workflow_steps WHERE
	    workflow_id >= $wf AND status = 'waiting' ORDER BY id" \
	    >"$B_DIR/gates"
	before=$(sqlite3 "$SLUICE_DB" 'SELECT count(*) FROM workflows')
	failed=0
	exec 3<"$B_DIR/gates"
	# Past the engine's start, the same approvals with no prune running.
	approvals "$bin" "$B_DIR/idle" 10
	approvals "$bin" "$B_DIR/idle" 20
	t0=$(mono)
	"$bin" prune --older-than 2h >/dev/null 2>"$B_DIR/prune.err" \
	    </dev/null &
	ppid=$!
	approvals "$bin" "$B_DIR/lat" 100000 "$ppid"
	exec 3<&-
	if running "$ppid"; then
		echo "$0: the $((998 * GATE_RUNS)) gates ran out before the" \
		    "prune ended; its end went unmeasured" >&2
		wait "$ppid" || true
		exit 1
	fi
	wait "$ppid" || { echo "$0: prune failed:" >&2;
	    cat "$B_DIR/prune.err" >&2; }
	t1=$(mono)
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	gone=$((before - $(sqlite3 "$SLUICE_DB" \
	    'SELECT count(*) FROM workflows')))
	echo "prune ($2): $w workflows, $gone removed in $(awk \
	    -v u=$((t1 - t0)) -v r="$gone" 'BEGIN { printf \
	    "%.1f s (%.0f us a run)", u / 1e6, (r > 0 ? u / r : 0) }');" \
	    "$(lat_stats "$B_DIR/lat") during it;" \
	    "$failed failed; without a prune: $(lat_stats "$B_DIR/idle")"
}

interleave "$rounds"
