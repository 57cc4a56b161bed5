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
#     backup (LABEL): W workflows, M MiB, backup in S s; A approvals
#     during it: p50 P ms, p99 Q ms, max X ms; F failed; without a
#     backup: p50 P ms, p99 Q ms, max X ms

set -eu

w=${1:-100000}
rounds=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is needed" >&2; exit 2; }
cache=${CONSOLE_DB_DIR:-${TMPDIR:-/tmp}/sluice-bench-cache}
EPID=
trap '[ -n "$EPID" ] && kill "$EPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT

"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"
mono() { "$B_DIR/monotime"; }

# source BINARY: the path of the cached database for BINARY's schema.
source_db() {
	"$1" init "$B_DIR/schema.db" >/dev/null 2>&1
	_v=$(sqlite3 "$B_DIR/schema.db" 'PRAGMA user_version')
	rm -f "$B_DIR/schema.db"*
	_db=$cache/console-${w}x10-v$_v.db
	mkdir -p "$cache"
	if [ -f "$_db" ] && [ "$here/console-gen.sh" -nt "$_db" ]; then
		rm -f "$_db"
	fi
	if [ ! -f "$_db" ]; then
		rm -f "$_db.new" "$_db.new-wal" "$_db.new-shm"
		SLUICE=$1 sh "$here/console-gen.sh" "$_db.new" "$w" 10 >&2 ||
		    exit 1
		mv "$_db.new" "$_db"
	fi
	echo "$_db"
}

# approvals FILE N [PID]: approve the next N waiting gates (from fd 3),
# one every 0.1 s, each timed (us) into FILE; with PID, only while it
# runs.  Counts failures in $failed.
approvals() {
	: >"$1"
	_n=0
	while [ "$_n" -lt "$2" ] && read -r g <&3; do
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || break
		_n=$((_n + 1))
		a0=$(mono)
		"$bin" approve "$g" -m bench >/dev/null 2>&1 </dev/null ||
		    failed=$((failed + 1))
		a1=$(mono)
		echo $((a1 - a0)) >>"$1"
		# One every 0.1 s, from start to start.
		_left=$((100000 - (a1 - a0)))
		[ "$_left" -gt 0 ] && sleep "$(awk -v u="$_left" \
		    'BEGIN { printf "%.3f", u / 1e6 }')"
	done
	return 0
}

# stats FILE: "p50 A ms, p99 B ms, max C ms" of FILE's times (us).
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 / 1000 }
	function p(q) { return NR ? v[int((NR - 1) * q) + 1] : 0 }
	END { printf "p50 %.1f ms, p99 %.1f ms, max %.1f ms", p(0.5),
	    p(0.99), (NR ? v[NR] : 0) }'
}

# one BINARY LABEL: a round of one binary.
one() {
	bin=$1
	export SLUICE_DB="$B_DIR/$2.db"
	rm -f "$SLUICE_DB"* "$B_DIR/copy.db"*
	cp "$(source_db "$bin")" "$SLUICE_DB"
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
	approvals "$B_DIR/idle" 10
	approvals "$B_DIR/idle" 20
	t0=$(mono)
	"$bin" backup "$B_DIR/copy.db" >/dev/null 2>"$B_DIR/backup.err" \
	    </dev/null &
	bpid=$!
	approvals "$B_DIR/lat" 100000 "$bpid"
	exec 3<&-
	wait "$bpid" || { echo "$0: backup failed:" >&2;
	    cat "$B_DIR/backup.err" >&2; exit 1; }
	t1=$(mono)
	kill "$EPID"
	wait "$EPID" || true
	EPID=
	echo "backup ($2): $w workflows, $(($(wc -c <"$SLUICE_DB") /
	    1048576)) MiB, backup in $(awk -v u=$((t1 - t0)) \
	    'BEGIN { printf "%.1f", u / 1e6 }') s; $(wc -l <"$B_DIR/lat")" \
	    "approvals during it: $(stats "$B_DIR/lat"); $failed failed;" \
	    "without a backup: $(stats "$B_DIR/idle")"
}

if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
fi
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	[ -n "${SLUICE_BEFORE:-}" ] && one "$SLUICE_BEFORE" before
	one "$SLUICE" after
done
