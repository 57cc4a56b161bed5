#!/bin/sh
#
# cluster-approve.sh [N]: cluster mode's operators on every node (issue
# 23 item 4), against the single-host figure, interleaved in one run.
# Each round, with three engine nodes on a PostgreSQL of its own (a
# primary and a synchronous standby, tests/cluster/cluster-lib.sh):
#
# - "standby": N runs of a gate then {"run": ["true"]}, each gate approved
#   in turn through a standby's socket (relayed: inbox row + NOTIFY, the
#   answer back the same way), from "sluice approve" starting (monotime -x
#   stamps it right before the exec) to the next step's process starting
#   (the leader's SLUICE_TRACE), as bench/approve-latency.sh measures;
# - "leader": the same through the leader's own socket;
# - "sqlite": bench/approve-latency.sh N itself (one SQLite host);
# - "consoles": a client subscribed on each of the three nodes during the
#   standby phase: from each of the leader's commits (its trace's C line)
#   to "changed" on each node;
# - "commit": one PostgreSQL commit, the leader goal's yardstick, on the
#   same servers by the leader's path (node 1's forwarder), N times:
#   BEGIN, a one-row INSERT, COMMIT waiting for the synchronous standby
#   (bench/pg-commit.c, built here with libpq; without its header, said,
#   and no goal line).
#
# Prints per round, then the median of the rounds and their spread:
#   cluster-approve standby: N approvals; p50 A ms p99 B ms
#   cluster-approve leader: ...
#   cluster-approve sqlite: ...
#   cluster-approve consoles: K changes on 3 nodes; p50 A ms p99 B ms
#   cluster-approve commit: N PostgreSQL commits; p50 A ms p99 B ms
#   cluster-approve summary (LABEL): R rounds; p50 A ms [MIN-MAX] p99 ...
#   cluster-approve ratios: standby/sqlite X, leader/sqlite Y
#   cluster-approve leader goal: leader p50 L ms, goal < 5 + C ms (T ms:
#     met); leader/commit X, commit/sqlite Y
# Goals (issue 23): standby p50 < 10 ms, leader p50 < 5 ms + one
# PostgreSQL commit, consoles within 100 ms.  ROUNDS=R (default 3).
# Needs a sluice built --with-postgresql with tests/cluster/forward beside
# it (make tests/cluster/forward), Debian's postgresql, python3, root (the
# servers run as an account of their own), cc (and libpq's header for the
# commit figure) and sqlite3; skips, saying why, otherwise.  $SLUICE
# names the binary (else ./sluice, else sluice on $PATH).  Default N=100.
# KEEP=DIR keeps the nodes' and servers' logs.

set -eu

n=${1:-100}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

if [ -n "${CLUSTER_APPROVE_ROUND:-}" ]; then
	# One round, in the tests' harness (a PostgreSQL and nodes of its own).
	set +e
	. "$top/tests/lib.sh"
	. "$top/tests/pg-lib.sh"
	. "$top/tests/cluster/cluster-lib.sh"
	command -v python3 >/dev/null 2>&1 || skip_all "no python3"
	MT=$CLUSTER_APPROVE_MONOTIME
	OUT=$CLUSTER_APPROVE_ROUND
	cl_setup standby
	cat >"$T_DIR/gate.json" <<'EOF2'
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2
	cat >"$T_DIR/sub.py" <<'EOF2'
import select, signal, socket, sys, time
out = open(sys.argv[1], "w", buffering=1)
socks = {}
for node, path in zip(("n1", "n2", "n3"), sys.argv[2:5]):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"command":"subscribe"}\n')
    socks[s.fileno()] = (node, s, s.makefile("rb"))
    socks[s.fileno()][2].readline()
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
out.write("ready\n")
while True:
    r, _, _ = select.select(list(socks), [], [])
    now = time.monotonic()
    for fd in r:
        node, s, f = socks[fd]
        line = f.readline()
        if not line:
            sys.exit(0)
        if b"changed" in line:
            out.write("%s %d\n" % (node, int(now * 1e6)))
EOF2
	# phase LABEL NODE: start the nodes, queue, approve through NODE.
	phase() {
		cat "$T_DIR"/n?.err >>"$T_DIR/all.err" 2>/dev/null
		: >"$T_DIR/n1.err"; : >"$T_DIR/n2.err"; : >"$T_DIR/n3.err"
		SLUICE_TRACE="$T_DIR/trace.$1"
		export SLUICE_TRACE
		node_start 1
		unset SLUICE_TRACE
		leader_wait 1 20000 >/dev/null || { echo "# no leader"; return 1; }
		node_start 2
		node_start 3
		for _k in 2 3; do
			_i=0
			while [ ! -S "$T_DIR/n$_k.sock" ] && [ $_i -lt 400 ]; do
				sleep 0.05; _i=$((_i + 1))
			done
		done
		_first=$(($(pg_sql "SELECT coalesce(max(id), 0) FROM workflows") + 1))
		_i=0
		while [ $_i -lt "$n" ]; do
			_i=$((_i + 1))
			cl_sluice 1 run "$T_DIR/gate.json" >/dev/null || return 1
		done
		_i=0
		while [ "$(pg_sql "SELECT count(*) FROM workflow_steps WHERE
		    name = 'start' AND status = 'waiting' AND workflow_id >=
		    $_first")" -lt "$n" ] && [ $_i -lt 600 ]; do
			sleep 0.05; _i=$((_i + 1))
		done
		pg_sql "SELECT id || ' ' || workflow_id FROM workflow_steps
		    WHERE name = 'start' AND workflow_id >= $_first ORDER BY id" \
		    >"$T_DIR/steps"
		_subpid=""
		if [ "$1" = standby ]; then
			: >"$T_DIR/changed"
			python3 "$T_DIR/sub.py" "$T_DIR/changed" "$T_DIR/n1.sock" \
			    "$T_DIR/n2.sock" "$T_DIR/n3.sock" &
			_subpid=$!
			_i=0
			while ! grep -q ready "$T_DIR/changed" && [ $_i -lt 200 ]; do
				sleep 0.05; _i=$((_i + 1))
			done
		fi
		: >"$T_DIR/t0.$1"
		_db=$(eval echo "\$NODE_DB_$2")
		while read -r _s _wf; do
			SLUICE_SOCKET="$T_DIR/n$2.sock" "$MT" -x "$T_DIR/t0.$1" \
			    "$SLUICE" --db "$_db" approve "$_s" -m ok \
			    >/dev/null 2>&1 </dev/null
			_i=0
			while [ "$(pg_sql "SELECT count(*) FROM workflow_steps
			    WHERE name = 'after' AND workflow_id = $_wf AND
			    status IN ('running', 'done')")" -lt 1 ] &&
			    [ $_i -lt 2000 ]; do
				sleep 0.005; _i=$((_i + 1))
			done
		done <"$T_DIR/steps"
		[ -z "$_subpid" ] || { kill "$_subpid"; wait "$_subpid"; }
		kill -9 "$(node_pid 2)" "$(node_pid 3)"
		kill "$(node_pid 1)"
		wait "$(node_pid 1)" 2>/dev/null
		wait "$(node_pid 2)" "$(node_pid 3)" 2>/dev/null
		rm -f "$T_DIR"/n?.sock
		grep '^S ' "$T_DIR/trace.$1" | awk '{ print $2 }' >"$T_DIR/s"
		paste "$T_DIR/t0.$1" "$T_DIR/s" | awk 'NF == 2 {
		    printf "%.3f\n", ($2 - $1) / 1000 }' >>"$OUT.$1"
	}
	# keep: the nodes' and servers' logs, for a look after (KEEP=DIR).
	keep() {
		[ -n "${KEEP:-}" ] || return 0
		mkdir -p "$KEEP" && cp "$T_DIR"/*.err "$PG_DIR"/*.log "$KEEP"/ \
		    2>/dev/null
		return 0
	}
	phase standby 2 || { keep; exit 1; }
	# Consoles: each "changed" against the leader's nearest commit.
	grep '^C ' "$T_DIR/trace.standby" | awk '{ print $2 }' >"$T_DIR/c"
	grep -v ready "$T_DIR/changed" | awk -v cf="$T_DIR/c" '
	    BEGIN { while ((getline t < cf) > 0) c[++nc] = t }
	    { best = ""; for (i = 1; i <= nc; i++) {
		d = $2 - c[i]; a = d < 0 ? -d : d
		if (best == "" || a < besta) { best = d; besta = a } }
	      if (best != "") printf "%.3f\n", best / 1000 }' >>"$OUT.consoles"
	phase leader 1 || { keep; exit 1; }
	# One PostgreSQL commit, the leader goal's yardstick: on the same
	# servers, by the leader's own path to them (node 1's forwarder).
	if [ -x "${CLUSTER_APPROVE_PGCOMMIT:-}" ]; then
		"$CLUSTER_APPROVE_PGCOMMIT" "${NODE_DB_1#postgresql:}" "$n" \
		    >>"$OUT.commit" || { keep; exit 1; }
	fi
	keep
	exit 0
fi

. "$here/sluice-bin.sh"
B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
trap 'rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"
# pg-commit.c: one PostgreSQL commit's time, with libpq's header and
# library (pkg-config's, else pg_config's); without them, no yardstick.
pgflags=$(pkg-config --cflags --libs libpq 2>/dev/null ||
    echo "-I$(pg_config --includedir 2>/dev/null)" \
    "-L$(pg_config --libdir 2>/dev/null) -lpq")
if ! "${CC:-cc}" -O2 -o "$B_DIR/pg-commit" "$here/pg-commit.c" $pgflags \
    >"$B_DIR/cc.log" 2>&1; then
	echo "cluster-approve: no PostgreSQL commit figure: cannot build" \
	    "bench/pg-commit.c ($(head -n 1 "$B_DIR/cc.log"))"
	rm -f "$B_DIR/pg-commit"
fi
rounds=${ROUNDS:-3}

# stats LABEL FILE WHAT: p50 and p99 of a file of ms, one line.
stats() {
	sort -n "$2" | awk -v label="$1" -v what="$3" '{ v[NR] = $1 } END {
	    if (NR == 0) { printf "cluster-approve %s: no figures\n", label;
		exit }
	    printf "cluster-approve %s: %d %s; p50 %.2f ms p99 %.2f ms\n",
		label, NR, what, v[int((NR - 1) * 0.50) + 1],
		v[int((NR - 1) * 0.99) + 1] }'
}

r=0
: >"$B_DIR/figures"
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	rm -f "$B_DIR"/round.*
	CLUSTER_APPROVE_ROUND="$B_DIR/round" \
	    CLUSTER_APPROVE_MONOTIME="$B_DIR/monotime" SLUICE=$SLUICE \
	    CLUSTER_APPROVE_PGCOMMIT="$B_DIR/pg-commit" \
	    TOP_SRCDIR=$top TESTS_DATA=$top/tests/data \
	    sh "$here/cluster-approve.sh" "$n" >"$B_DIR/log" 2>&1 || {
		echo "$0: the cluster round failed:" >&2
		tail -n 20 "$B_DIR/log" >&2
		exit 1
	}
	if grep -q '^1\.\.0 # SKIP' "$B_DIR/log"; then
		echo "cluster-approve: skipped: $(sed -n 's/^1\.\.0 # SKIP //p' \
		    "$B_DIR/log")"
		exit 0
	fi
	ROUNDS=1 SLUICE=$SLUICE sh "$here/approve-latency.sh" "$n" \
	    >"$B_DIR/sqlite" || exit 1
	sed -n 's/.*p50 \([0-9.]*\) ms p99 \([0-9.]*\) ms.*/sqlite \1 \2/p' \
	    "$B_DIR/sqlite" >>"$B_DIR/figures"
	sed 's/^approve to next start (after)/cluster-approve sqlite/' \
	    "$B_DIR/sqlite"
	for l in standby leader; do
		stats "$l" "$B_DIR/round.$l" approvals | tee -a "$B_DIR/lines"
	done
	stats consoles "$B_DIR/round.consoles" "changes on 3 nodes" |
	    tee -a "$B_DIR/lines"
	[ ! -x "$B_DIR/pg-commit" ] ||
	    stats commit "$B_DIR/round.commit" "PostgreSQL commits" |
	    tee -a "$B_DIR/lines"
	sed -n 's/^cluster-approve \([a-z]*\): .*p50 \([0-9.]*\) ms p99 \([0-9.]*\) ms/\1 \2 \3/p' \
	    "$B_DIR/lines" >>"$B_DIR/figures"
	: >"$B_DIR/lines"
done
echo "# load: $(uptime | sed 's/.*load average: //')"
# med COLUMN LABEL: the median, least and most of a label's rounds.
med() {
	awk -v l="$2" -v c="$1" '$1 == l { print $c }' "$B_DIR/figures" |
	    sort -n | awk '{ v[NR] = $1 } END {
		printf "%.2f [%.2f-%.2f]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
labels="standby leader sqlite consoles"
[ ! -x "$B_DIR/pg-commit" ] || labels="$labels commit"
for l in $labels; do
	echo "cluster-approve summary ($l): $rounds rounds; p50 $(med 2 "$l")" \
	    "ms p99 $(med 3 "$l") ms"
done
# ratio LABEL [BASE]: its p50 over BASE's (SQLite's), round by round; the
# median.
ratio() {
	awk -v l="$1" -v b="${2:-sqlite}" '$1 == l { a[++na] = $2 }
	    $1 == b { q[++nq] = $2 }
	    END { for (i = 1; i <= na && i <= nq; i++)
		if (q[i] > 0) printf "%.3f\n", a[i] / q[i] }' "$B_DIR/figures" |
	    sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
}
echo "cluster-approve ratios (p50 over SQLite's, median of rounds):" \
    "standby $(ratio standby), leader $(ratio leader)"
# The leader goal: the median of its p50s against 5 ms + the median of
# one commit's p50s, and the ratio of the two round by round.
if [ -x "$B_DIR/pg-commit" ]; then
	lp=$(med 2 leader | cut -d' ' -f1)
	cp=$(med 2 commit | cut -d' ' -f1)
	echo "cluster-approve leader goal: leader p50 $lp ms, goal < 5 + $cp" \
	    "ms ($(awk -v l="$lp" -v c="$cp" 'BEGIN { printf "%.2f ms: %s",
		5 + c, l < 5 + c ? "met" : "not met" }'));" \
	    "leader/commit $(ratio leader commit)," \
	    "commit/sqlite $(ratio commit)"
fi
