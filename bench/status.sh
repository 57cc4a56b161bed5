#!/bin/sh
#
# status.sh [WORKFLOWS [N]]: "sluice status" on a console-gen.sh database
# of WORKFLOWS workflows (default 100000, kept as console.sh keeps them,
# in $CONSOLE_DB_DIR, one per schema version), N times (default 20), each
# timed from just before its exec to its exit (monotime.c, so the figure
# includes starting the process and opening the database, and about a
# millisecond of monotime's own start); no engine runs.  Issue 22's
# target: 20 ms at 100,000 workflows, and no growth with them.  Prints
# p50 and p99 of the N:
#     sluice status (LABEL): W workflows, N runs; p50 A ms p99 B ms
#
# SLUICE_BEFORE names an older sluice to time beside $SLUICE: ROUNDS
# (default 3 with it, else 1) rounds, each before then after on the
# database each one's own schema makes, then per label the median of the
# rounds' p50 and their spread:
#     sluice status summary (LABEL): R rounds of N; p50 A ms [MIN-MAX]
# Needs sqlite3 and cc.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
. "$here/console-db.sh"

command -v sqlite3 >/dev/null || { echo "$0: sqlite3 is needed" >&2; exit 2; }
wfs=${1:-100000}
n=${2:-20}
steps=${STEPS_PER_WF:-10}
cache=${CONSOLE_DB_DIR:-${TMPDIR:-/tmp}/sluice-bench-cache}
"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"

# one LABEL: N timed runs of $SLUICE status on a copy of its database.
one() {
	_src=$(gen "$wfs")
	cp "$_src" "$B_DIR/status.db"
	rm -f "$B_DIR/status.db-wal" "$B_DIR/status.db-shm"
	# Once untimed: the first open makes the WAL's files.
	"$SLUICE" --db "$B_DIR/status.db" status >/dev/null 2>&1 </dev/null ||
	    :
	: >"$B_DIR/lat"
	_i=0
	while [ "$_i" -lt "$n" ]; do
		_i=$((_i + 1))
		_t0=$("$B_DIR/monotime")
		# Exit 1 is "problems" (the generated audit trail has no head).
		_rc=0
		"$SLUICE" --db "$B_DIR/status.db" status >/dev/null \
		    2>"$B_DIR/status.err" </dev/null || _rc=$?
		[ "$_rc" -le 1 ] || { cat "$B_DIR/status.err" >&2; exit 1; }
		_t1=$("$B_DIR/monotime")
		echo $((_t1 - _t0)) >>"$B_DIR/lat"
	done
	_p50=$(pct 50 <"$B_DIR/lat")
	_p99=$(pct 99 <"$B_DIR/lat")
	echo "sluice status${1:+ ($1)}: $wfs workflows, $n runs;" \
	    "p50 $_p50 ms p99 $_p99 ms"
	echo "${1:--} $_p50 $_p99" >>"$B_DIR/figures"
	rm -f "$B_DIR/status.db"*
}

if [ -n "${SLUICE_BEFORE:-}" ] && [ ! -x "$SLUICE_BEFORE" ]; then
	echo "$0: SLUICE_BEFORE is not a program" >&2
	exit 2
fi
rounds=${ROUNDS:-$([ -n "${SLUICE_BEFORE:-}" ] && echo 3 || echo 1)}
: >"$B_DIR/figures"
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	if [ -n "${SLUICE_BEFORE:-}" ]; then
		SLUICE=$SLUICE_BEFORE one before
		one after
	else
		one ""
	fi
done
[ "$rounds" -gt 1 ] || exit 0
for label in before after -; do
	grep "^$label " "$B_DIR/figures" | sort -n -k 2 | awk -v l="$label" \
	    -v n="$n" '
	{ v[++m] = $2 }
	END {
		if (m == 0)
			exit
		med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		printf "sluice status summary%s: %d rounds of %d; p50 %.3f " \
		    "ms [%.3f-%.3f]\n", (l == "-" ? "" : " (" l ")"), m, n,
		    med, v[1], v[m]
	}'
done
