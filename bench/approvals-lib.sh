# bench/approvals-lib.sh: shared by the benchmarks that time approvals
# sent while the engine does something long (backup-approve.sh,
# prune.sh); sourced after engine-lib.sh, not run.
#
# Offers: mono (CLOCK_MONOTONIC in us, bench/monotime.c built here),
# cached_db (a console-gen.sh database kept between runs), approvals (one
# gate approved every 0.1 s, each timed) and lat_stats (their p50, p99
# and max), interleave (rounds of SLUICE_BEFORE and SLUICE).

"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$(dirname "$0")/monotime.c"
mono() { "$B_DIR/monotime"; }

# cached_db BINARY W: the path of a console-gen.sh database of W
# workflows for BINARY's schema, kept in $CONSOLE_DB_DIR (default
# ${TMPDIR:-/tmp}/sluice-bench-cache) as console-Wx10-vV.db (V the
# schema version), made when missing or older than console-gen.sh.
cached_db() {
	_cache=${CONSOLE_DB_DIR:-${TMPDIR:-/tmp}/sluice-bench-cache}
	"$1" init "$B_DIR/schema.db" >/dev/null 2>&1
	_v=$(sqlite3 "$B_DIR/schema.db" 'PRAGMA user_version')
	rm -f "$B_DIR/schema.db"*
	_db=$_cache/console-$2x10-v$_v.db
	mkdir -p "$_cache"
	_gen=$(dirname "$0")/console-gen.sh
	if [ -f "$_db" ] && [ "$_gen" -nt "$_db" ]; then
		rm -f "$_db"
	fi
	if [ ! -f "$_db" ]; then
		rm -f "$_db.new" "$_db.new-wal" "$_db.new-shm"
		SLUICE=$1 sh "$_gen" "$_db.new" "$2" 10 >&2 || exit 1
		mv "$_db.new" "$_db"
	fi
	echo "$_db"
}

# running PID: a live process (our child that has exited but is not yet
# waited for is a zombie, which "kill -0" still finds).
running() {
	[ -r "/proc/$1/stat" ] &&
	    [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]
}

# approvals BINARY FILE N [PID]: approve the next N waiting gates (step
# ids, one a line, from fd 3) one every 0.1 s, from start to start, each
# timed (us, from its start to its exit) into FILE; with PID, only while
# that process runs.  An approval that exits non-zero adds 1 to $failed.
approvals() {
	: >"$2"
	_n=0
	while [ "$_n" -lt "$3" ] && read -r _g <&3; do
		[ -z "${4:-}" ] || running "$4" || break
		_n=$((_n + 1))
		_a0=$(mono)
		"$1" approve "$_g" -m bench >/dev/null 2>&1 </dev/null ||
		    failed=$((failed + 1))
		_a1=$(mono)
		echo $((_a1 - _a0)) >>"$2"
		_left=$((100000 - (_a1 - _a0)))
		[ "$_left" -le 0 ] || sleep "$(awk -v u="$_left" \
		    'BEGIN { printf "%.3f", u / 1e6 }')"
	done
	return 0
}

# lat_stats FILE: "N approvals: p50 A ms, p99 B ms, max C ms" of FILE's
# times (us).
lat_stats() {
	sort -n "$1" | awk '{ v[NR] = $1 / 1000 }
	function p(q) { return NR ? v[int((NR - 1) * q) + 1] : 0 }
	END { printf "%d approvals: p50 %.1f ms, p99 %.1f ms, max %.1f ms",
	    NR, p(0.5), p(0.99), (NR ? v[NR] : 0) }'
}

# interleave ROUNDS: ROUNDS times, "one $SLUICE_BEFORE before" (when
# SLUICE_BEFORE names an older sluice) then "one $SLUICE after"; the
# script defines one.
interleave() {
	if [ -n "${SLUICE_BEFORE:-}" ]; then
		[ -x "$SLUICE_BEFORE" ] ||
		    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
	fi
	_round=0
	while [ "$_round" -lt "$1" ]; do
		_round=$((_round + 1))
		if [ -n "${SLUICE_BEFORE:-}" ]; then
			one "$SLUICE_BEFORE" before
		fi
		one "$SLUICE" after
	done
}
