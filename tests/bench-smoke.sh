#!/bin/sh
# tests/bench-smoke.sh: every script in bench/ still runs, at a tiny size,
# and prints its result line ("make bench-smoke", and part of make
# check).  Nothing about the figures is checked (timing goals live in the
# scripts, not in tests): a benchmark that stopped working (a database
# that now needs "sluice init", a renamed option) fails here the day it
# breaks, not months later.  A script in bench/ that this file does not
# know fails too, so a new one is added here with its result line.
# BENCH_DIR names another directory of scripts (to show this can fail).

. "$TOP_SRCDIR/tests/lib.sh"

BENCH=${BENCH_DIR:-$TOP_SRCDIR/bench}
BUILD=$(dirname "$SLUICE")
export CONSOLE_DB_DIR="$T_DIR/cache"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# Sourced by the others, not run.
LIBS="console-db.sh engine-lib.sh service-lib.sh sluice-bin.sh approvals-lib.sh"
LIBS="$LIBS rounds-lib.sh"
SEEN=

# bench SCRIPT LINE [ARGS...]: run bench/SCRIPT ARGS (at most 5 minutes);
# it must exit 0 and print a line beginning with LINE.
bench() {
	_s=$1 _want=$2
	shift 2
	SEEN="$SEEN $_s"
	(cd "$T_DIR" && SLUICE=$SLUICE timeout 300 sh "$BENCH/$_s" "$@") \
	    >"$T_DIR/out" 2>"$T_DIR/err"
	_rc=$?
	is "$_rc" 0 "$_s exits 0"
	[ "$_rc" -eq 0 ] || sed 's/^/# /' "$T_DIR/err" | tail -n 5
	grep -q "^$_want" "$T_DIR/out"
	ok $? "$_s prints its result line ($_want...)"
}

# skip SCRIPT REASON: a script this machine cannot run.
skip() {
	SEEN="$SEEN $1"
	skip_cases 2 "$1: $2"
}

bench floor-fsync.sh "sqlite fsync floor: 5 transactions" 5 "$T_DIR"
bench floor-make-chain.sh "make chain: 5 true recipes" 5
bench floor-make-parallel.sh "make -j2: 4 true recipes" 4 2
bench engine-chain.sh "sluice chain: 5 true steps" 5
bench engine-chain.sh "sluice chain memory: peak RSS" memory 4 8 2
PAR_N=4 K=2 CHAIN_N=5 MEM_SMALL=4 MEM_BIG=8 \
    bench pipelining.sh "pipelining: 1 rounds" 1
bench engine-noop.sh "sluice noop chain: 5 steps" 5
bench engine-parallel.sh "sluice -j2: 4 true steps" 4 2
bench engine-burst.sh "sluice burst: 2 workflows" 2
bench engine-drain.sh "engine --drain of one noop run: 2 runs" 2
bench run-wait.sh "run --wait of one noop step: 2 runs" 2
bench foreach.sh "sluice -j2: 5 noop items" 5 2 noop
bench approve-latency.sh "approve to next start (after): 3 approvals" 3
bench cli-start.sh "cli start (after): 3 approves" 3
bench engine-mcp.sh "sluice mcp chain: 3 steps" 3 5
bench prune.sh "prune (after): 40 workflows" 40
bench backup-approve.sh "backup (after): 40 workflows" 40
bench console-gen.sh "console-gen: $T_DIR/gen.db: 20 workflows" \
    "$T_DIR/gen.db" 20 8
bench status.sh "sluice status: 30 workflows, 3 runs" 30 3
bench crash.sh "crash: " 1
bench cluster-kill.sh "cluster-kill: " 1
ROUNDS=1 bench cluster-approve.sh "cluster-approve" 2
ROUNDS=1 bench takeover-runs.sh "takeover-runs sqlite N=2 after: first commit" 2
if [ -x "$BUILD/tests/unit/test-powerloss" ]; then
	POWERLOSS_BIN="$BUILD/tests/unit/test-powerloss" \
	    bench powerloss.sh "powerloss: " 3
else
	skip powerloss.sh "tests/unit/test-powerloss is not built"
fi
if command -v strace >/dev/null &&
    strace -o /dev/null true >/dev/null 2>&1; then
	bench idle-engine.sh "idle engine (after): " 1
else
	skip idle-engine.sh "strace is missing or may not trace here"
fi
if command -v tmux >/dev/null; then
	KEYS=13 bench console.sh "sluice console: 30 workflows" 30 80x24
	if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null &&
	    command -v setpriv >/dev/null; then
		KEYS=13 MEMBER=1 bench console.sh \
		    "sluice console: 30 workflows .*a member's console" 30 80x24
	else
		skip_cases 2 "console.sh MEMBER=1: needs root, useradd and setpriv"
	fi
	KEYS=13 REPEAT=1 K=2 CHAIN_N=5 PAR_N=4 NOOP_N=5 BURST_W=2 \
	    NOOP_BIG=10 CHAIN_BIG=6 CONSOLE_W=30 CONSOLE_SMALL=20 \
	    bench run-all.sh "console, 20 -> 30 workflows"
else
	skip console.sh "tmux is not installed"
	skip run-all.sh "tmux is not installed"
fi

# Every script is one of the above.
for f in "$BENCH"/*.sh; do
	f=${f##*/}
	case " $LIBS $SEEN " in
	*" $f "*) ;;
	*)	ok 1 "bench/$f is smoke-tested here (add it to this file)" ;;
	esac
done

done_testing
