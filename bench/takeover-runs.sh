#!/bin/sh
#
# takeover-runs.sh [N...]: what a takeover costs with N active runs
# (issue 23: it should not grow with N).  Each measurement starts an
# engine, gives it N runs of seven kinds (a gate waiting, a step
# sleeping, a retry's backoff timer, a for-each mid-batch, a sub-workflow
# whose child waits at a gate, a wait with a timeout, a DAG run whose join
# waits for a gate), waits until they are all in place, then:
#
# - "pg": two engine nodes on a PostgreSQL of its own, each through its
#   TCP forwarder (tests/cluster/cluster-lib.sh): kill -9 of the leader,
#   stamped right before the kill; the standby takes over;
# - "sqlite": one engine on an SQLite database: kill -9, then a new
#   engine, stamped right before its exec.
#
# Right after the kill a new one-step run is posted (through the standby's
# socket, or the database's), so "first start" is there whatever N is.
# From the stamp to the new engine's first commit (its SLUICE_TRACE's
# first C line: the end of recovery) and to its first step started (the
# first S line).  With BEFORE naming another build (e.g. the commit before,
# /tmp/opt-3a4f/sluice) each measurement is made with both, interleaved
# (after, before) round by round.  Prints, per kind, N and build, the
# median of the rounds and their spread, then the ratios:
#   takeover-runs pg N=100 after: first commit M ms [MIN-MAX], first
#     start M ms [MIN-MAX], statements M [MIN-MAX] (R rounds)
#   takeover-runs pg N=100 after/before: first commit X, first start Y
# and last "takeover-runs: K measurements".  On PostgreSQL also the
# statements the nodes sent from the kill to the first start (the server
# logs them all for this; the new run's own are a constant part).  ROUNDS=R (default 3);
# KINDS="pg sqlite" (default both); KEEP=DIR keeps each measurement's
# logs and trace (and the server's log) in DIR.  Needs for pg a sluice built
# --with-postgresql with tests/cluster/forward beside it, Debian's
# postgresql and root (the server runs as an account of its own): pg is
# skipped, saying why, otherwise.  $SLUICE names the binary (else
# ./sluice, else sluice on $PATH).  Default N: 10 100 500.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

if [ -n "${TAKEOVER_RUNS_ROUND:-}" ]; then
	# One measurement, in the tests' harness: $TR_KIND, $TR_N runs.
	set +e
	. "$top/tests/lib.sh"
	MT=$TAKEOVER_RUNS_MONOTIME
	OUT=$TAKEOVER_RUNS_ROUND
	n=$TR_N
	if [ "$TR_KIND" = pg ]; then
		. "$top/tests/pg-lib.sh"
		. "$top/tests/cluster/cluster-lib.sh"
	fi
	# Every step process carries the mark, so none is left behind.
	export TAKEOVER_MARK="$T_DIR"
	cat >"$T_DIR/k0.json" <<'EOF2'
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2
	cat >"$T_DIR/k1.json" <<'EOF2'
{"start": {"run": ["sleep", "600"], "timeout": "30m"}}
EOF2
	cat >"$T_DIR/k2.json" <<'EOF2'
{"start": {"run": ["false"], "retry": {"max_attempts": 3, "backoff": ["30m"]}}}
EOF2
	cat >"$T_DIR/k3.json" <<'EOF2'
{"start": {"foreach": ["a", "b", "c", "d", "e"], "concurrency": 2,
  "do": {"run": ["sleep", "600"]}}}
EOF2
	cat >"$T_DIR/k4.json" <<'EOF2'
{"start": {"workflow": "child"}}
EOF2
	cat >"$T_DIR/k5.json" <<'EOF2'
{"start": {"wait": {"message": "callback", "timeout": "30m"}}}
EOF2
	cat >"$T_DIR/k6.json" <<'EOF2'
{"a": {"run": ["true"]}, "b": {"gate": {"message": "join?"}},
 "c": {"run": ["true"], "depends_on": ["a", "b"]}}
EOF2
	cat >"$T_DIR/child.json" <<'EOF2'
{"start": {"gate": {"message": "child"}}}
EOF2
	cat >"$T_DIR/new.json" <<'EOF2'
{"start": {"run": ["true"]}}
EOF2
	# wall_text MS: a wall clock time in ms as PostgreSQL logs it (%m).
	wall_text() {
		date -u -d "@$(($1 / 1000)).$(printf %03d $(($1 % 1000)))" \
		    '+%Y-%m-%d %H:%M:%S.%3N'
	}
	# sql Q: one number from the database.
	sql() {
		if [ "$TR_KIND" = pg ]; then pg_sql "$1"; else q "$1"; fi
	}
	# on ARGS...: sluice on the engine that makes the runs.
	on() {
		if [ "$TR_KIND" = pg ]; then cl_sluice 1 "$@"
		else "$SLUICE" "$@"; fi
	}
	# leftovers: step processes of this measurement still there.
	leftovers() {
		grep -lzx "TAKEOVER_MARK=$T_DIR" /proc/[0-9]*/environ \
		    2>/dev/null | sed 's|/proc/||; s|/environ||' | tr '\n' ' '
	}
	sweep() {
		for _p in $(leftovers); do kill -9 "$_p" 2>/dev/null; done
	}
	trap 'sweep; [ "$TR_KIND" = pg ] && cl_cleanup; rm -rf "$T_DIR"' EXIT
	if [ "$TR_KIND" = pg ]; then
		cl_setup
		node_start 1
		leader_wait 1 20000 >/dev/null ||
		    { echo "# no leader" >&2; exit 1; }
		export SLUICE_TRACE="$T_DIR/trace"
		node_start 2
		unset SLUICE_TRACE
		standing_by 2 || { echo "# node 2 stands not by" >&2; exit 1; }
	else
		"$SLUICE" engine >/dev/null 2>>"$T_DIR/engine.err" </dev/null &
		EPID=$!
	fi
	on template save child "$T_DIR/child.json" >/dev/null ||
	    { echo "# template save failed" >&2; exit 1; }
	i=0
	while [ $i -lt "$n" ]; do
		on run "$T_DIR/k$((i % 7)).json" >/dev/null 2>>"$T_DIR/run.err" ||
		    { echo "# run $i: $(tail -n 1 "$T_DIR/run.err")" >&2; exit 1; }
		i=$((i + 1))
	done
	# In place: every run and child recorded, every gate, wait and
	# retry's backoff reached (the processes wait for slots meanwhile).
	want=$(( (n + 6) / 7 + (n + 4) / 7 + (n + 2) / 7 + (n + 1) / 7 +
	    n / 7 ))
	runs=$((n + (n + 2) / 7))
	i=0
	while [ "$(sql "SELECT count(*) FROM workflows WHERE status =
	    'running'")" -lt "$runs" ] || [ "$(sql "SELECT count(*) FROM
	    workflow_steps WHERE status IN ('waiting', 'pending')")" -lt \
	    "$want" ]; do
		i=$((i + 1))
		[ $i -lt 1200 ] || { echo "# the runs never got in place" >&2
		    exit 1; }
		sleep 0.1
	done
	sleep 0.5
	: >"$T_DIR/t0"
	if [ "$TR_KIND" = pg ]; then
		# Every statement logged from here on, with its time and
		# program, to count the new leader's.
		for _set in "log_statement = 'all'" "log_timezone = 'UTC'" \
		    "log_line_prefix = '%m [%a] '"; do
			pg_sql "ALTER SYSTEM SET $_set" >/dev/null
		done
		pg_sql "SELECT pg_reload_conf()" >/dev/null
		sleep 0.5
		wall=$(date +%s%3N)
		"$MT" -x "$T_DIR/t0" kill -9 "$(node_pid 1)"
		cl_sluice 2 run "$T_DIR/new.json" --name takeover-new \
		    >/dev/null 2>>"$T_DIR/run.err"
	else
		kill -9 "$EPID"
		wait "$EPID" 2>/dev/null
		SLUICE_TRACE="$T_DIR/trace" "$MT" -x "$T_DIR/t0" \
		    "$SLUICE" engine >/dev/null 2>>"$T_DIR/engine.err" \
		    </dev/null &
		EPID=$!
		"$SLUICE" run "$T_DIR/new.json" --name takeover-new \
		    >/dev/null 2>>"$T_DIR/run.err"
	fi
	i=0
	while [ "$(sql "SELECT count(*) FROM workflows WHERE name =
	    'takeover-new' AND status = 'completed'")" -lt 1 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "# the new run never ran" >&2; break; }
		sleep 0.1
	done
	# A stopping engine waits for its running steps: signalled again,
	# it interrupts them (and its trace is written as it exits).
	_p=${EPID:-}
	[ "$TR_KIND" != pg ] || _p=$(node_pid 2)
	kill "$_p"
	sleep 0.5
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	t0=$(head -n 1 "$T_DIR/t0")
	c=$(awk '$1 == "C" { print $2; exit }' "$T_DIR/trace" 2>/dev/null)
	s=$(awk '$1 == "S" { print $2; exit }' "$T_DIR/trace" 2>/dev/null)
	[ -n "$t0" ] && [ -n "$c" ] && [ -n "$s" ] ||
	    { echo "# no trace of the new engine" >&2; exit 1; }
	# On PostgreSQL, the statements sent from the kill to the first
	# start, but the test's own (psql).
	st=-
	if [ "$TR_KIND" = pg ]; then
		_e=$((wall + (s - t0) / 1000))
		st=$(awk -v a="$(wall_text "$wall")" -v b="$(wall_text "$_e")" '
		    /LOG:  (statement|execute)/ && $4 != "[psql]" {
			ts = $1 " " $2; if (ts >= a && ts <= b) n++ }
		    END { print n + 0 }' "$PG_DIR/primary.log")
	fi
	if [ -n "${KEEP:-}" ]; then
		_k="$KEEP/$TR_KIND.$n.$(basename "$SLUICE").$$"
		mkdir -p "$_k" && cp "$T_DIR"/*.err "$T_DIR/trace" "$_k"/
		[ "$TR_KIND" != pg ] || cp "$PG_DIR/primary.log" "$_k"/
	fi
	echo "$t0 $c $s $st" | awk '{ printf "%.3f %.3f %s\n",
	    ($2 - $1) / 1000, ($3 - $1) / 1000, $4 }' >>"$OUT"
	exit 0
fi

. "$here/sluice-bin.sh"
ns=${*:-10 100 500}
for n in $ns; do
	case $n in ''|*[!0-9]*|0) echo "usage: $0 [N...]" >&2; exit 2;; esac
done
B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
trap 'rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"
rounds=${ROUNDS:-3}
kinds=${KINDS:-pg sqlite}
builds="after"
[ -z "${BEFORE:-}" ] || builds="after before"

# measure KIND N BUILD: one measurement; its two figures appended to
# $B_DIR/KIND.N.BUILD.  Returns 2 when the kind is skipped here.
measure() {
	_bin=$SLUICE
	[ "$3" = after ] || _bin=$BEFORE
	_rc=0
	SLUICE=$_bin TOP_SRCDIR=$top TESTS_DATA=$top/tests/data \
	    TAKEOVER_RUNS_ROUND="$B_DIR/$1.$2.$3" \
	    TAKEOVER_RUNS_MONOTIME="$B_DIR/monotime" TR_KIND=$1 TR_N=$2 \
	    sh "$0" >"$B_DIR/log" 2>&1 || _rc=$?
	if grep -q '^1\.\.0 # SKIP' "$B_DIR/log"; then
		echo "takeover-runs $1: skipped: $(sed -n \
		    's/^1\.\.0 # SKIP //p' "$B_DIR/log")"
		return 2
	fi
	if [ $_rc -ne 0 ]; then
		echo "takeover-runs $1 N=$2 $3: failed:" >&2
		tail -n 5 "$B_DIR/log" >&2
		exit 1
	fi
	return 0
}

# col FILE K: column K of FILE, sorted.
col() {
	awk -v k="$2" '{ print $k }' "$1" | sort -n
}
# med FILE K: "median [min-max]" of column K.
med() {
	col "$1" "$2" | awk '{ v[NR] = $1 } END { printf "%s ms [%s-%s]",
	    v[int((NR + 1) / 2)], v[1], v[NR] }'
}
# mid FILE K: the median alone.
mid() {
	col "$1" "$2" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "takeover-runs: host load $(cut -d' ' -f1-3 /proc/loadavg)"
count=0
skipped=""
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for n in $ns; do
		for k in $kinds; do
			case " $skipped " in *" $k "*) continue;; esac
			for b in $builds; do
				_m=0
				measure "$k" "$n" "$b" || _m=$?
				if [ $_m -eq 2 ]; then
					skipped="$skipped $k"
					break
				fi
				count=$((count + 1))
			done
		done
	done
done
for k in $kinds; do
	case " $skipped " in *" $k "*) continue;; esac
	for n in $ns; do
		for b in $builds; do
			f=$B_DIR/$k.$n.$b
			_st=""
			[ "$k" != pg ] ||
			    _st=", statements $(med "$f" 3 | sed 's/ ms//')"
			echo "takeover-runs $k N=$n $b: first commit $(med "$f" 1)," \
			    "first start $(med "$f" 2)$_st ($(wc -l <"$f") rounds)"
		done
		[ -n "${BEFORE:-}" ] || continue
		a=$B_DIR/$k.$n.after
		o=$B_DIR/$k.$n.before
		echo "takeover-runs $k N=$n after/before: first commit" \
		    "$(echo "$(mid "$a" 1) $(mid "$o" 1)" | awk '{ printf "%.2f",
		    $1 / $2 }'), first start $(echo "$(mid "$a" 2) $(mid "$o" 2)" |
		    awk '{ printf "%.2f", $1 / $2 }')"
	done
done
echo "takeover-runs: $count measurements; host load $(cut -d' ' -f1-3 \
    /proc/loadavg)"
