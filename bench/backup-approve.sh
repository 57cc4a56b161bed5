#!/bin/sh
#
# backup-approve.sh [WORKFLOWS] [ROUNDS]: "sluice backup" of a big
# database with an engine running, and what it does to the approvals sent
# meanwhile.  console-gen.sh makes a database of WORKFLOWS workflows
# (default 100000: about 700 MiB; 200 of them waiting at a gate, an
# eighth below 800), kept in $CONSOLE_DB_DIR (default ${TMPDIR:-/tmp}/
# sluice-bench-cache) as console-Wx10-vV.db, V the schema version, and
# remade when console-gen.sh is newer.  Each round copies it, starts
# "sluice engine" on the copy and approves a waiting gate every 0.1 s,
# each approval timed from its start to its exit (one that exits
# non-zero counts as failed): 10 to let the engine settle, 20 with no
# backup running, then as many as come while "sluice backup" copies the
# database to a file beside it (timed from its start to its exit).
# SLUICE_BEFORE names an older sluice, measured in the same rounds,
# interleaved, on a database of its own schema.  Default ROUNDS=1.
# Needs sqlite3 and cc.  One line per round and binary:
#     backup (LABEL): W workflows, M MiB, backup in S s; A approvals:
#     p50 P ms, p99 Q ms, max X ms during it; F failed; without a backup:
#     B approvals: p50 P ms, p99 Q ms, max X ms

set -eu

w=${1:-100000}
rounds=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
. "$here/approvals-lib.sh"
command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is needed" >&2; exit 2; }
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT

# one BINARY LABEL: a round of one binary.
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	rm -f "$SLUICE_DB"* "$B_DIR/copy.db"*
	cp "$(cached_db "$bin" "$w")" "$SLUICE_DB"
	# Written back now, not by the kernel during the measurement.
	sync "$SLUICE_DB"
	"$bin" engine >/dev/null 2>"$B_DIR/engine.err" </dev/null &
	EPID=$!
	_k=0
	until [ -S "$SLUICE_DB.sock" ]; do
		_k=$((_k + 1))
		[ "$_k" -lt 600 ] || { echo "$0: no engine socket" >&2; exit 1; }
		sleep 0.05
	done
	sqlite3 "$SLUICE_DB" "SELECT id FROM workflow_steps WHERE status =
	    'waiting' ORDER BY id" >"$B_DIR/gates"
	failed=0
	exec 3<"$B_DIR/gates"
	# Past the engine's start (recovery of the runs it finds running),
	# the same approvals with no backup running, to compare.
	approvals "$bin" "$B_DIR/idle" 10
	approvals "$bin" "$B_DIR/idle" 20
	t0=$(mono)
	"$bin" backup "$B_DIR/copy.db" >/dev/null 2>"$B_DIR/backup.err" \
	    </dev/null &
	bpid=$!
	approvals "$bin" "$B_DIR/lat" 100000 "$bpid"
	exec 3<&-
	wait "$bpid" || { echo "$0: backup failed:" >&2;
	    cat "$B_DIR/backup.err" >&2; exit 1; }
	t1=$(mono)
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	echo "backup ($2): $w workflows, $(($(wc -c <"$SLUICE_DB") /
	    1048576)) MiB, backup in $(awk -v u=$((t1 - t0)) \
	    'BEGIN { printf "%.1f", u / 1e6 }') s; $(lat_stats \
	    "$B_DIR/lat") during it; $failed failed; without a backup:" \
	    "$(lat_stats "$B_DIR/idle")"
}

interleave "$rounds"
