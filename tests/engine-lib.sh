#!/bin/sh
# tests/engine-lib.sh: helpers the engine tests share, sourced after
# tests/lib.sh: starting, stopping and crashing engines and reading rows
# (waiting for a condition is lib.sh's wait_for).

ENGINES=""
export SLUICE_KILL_GRACE_MS=200
trap 'cleanup' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# cleanup: stop the engines and step processes a test left, then the dir.
cleanup() {
	for p in $ENGINES; do
		kill -9 "$p" 2>/dev/null
	done
	for f in "$T_DIR"/*.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	rm -rf "$T_DIR"
}

# need_test_build WHAT: skip the whole test unless sluice is a test build
# (configure --enable-test-clock), which WHAT needs; and sqlite3.
need_test_build() {
	case "$("$SLUICE" --version)" in
	*"test clock"*) ;;
	*)	skip_all "needs a test build (configure --enable-test-clock)" \
		    "for $1" ;;
	esac
	command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
}

# q_is SQL WANT DESCRIPTION: a query's whole output is WANT.
q_is() {
	is "$(q "$1")" "$2" "$3"
}

# wf_is ID STATUS: the workflow's status is STATUS.
wf_is() {
	[ "$(q "SELECT status FROM workflows WHERE id = $1")" = "$2" ]
}

# wf_ended ID: the workflow is completed, failed or cancelled.
wf_ended() {
	case "$(q "SELECT status FROM workflows WHERE id = $1")" in
	completed|failed|cancelled) return 0 ;;
	esac
	return 1
}

# step_is WF NAME STATUS: the latest row of step NAME has STATUS.
step_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $1 AND
	    name = '$2' ORDER BY id DESC LIMIT 1")" = "$3" ]
}

# file_has FILE TEXT: FILE exists and contains TEXT.
file_has() {
	[ -f "$1" ] && grep -qF -- "$2" "$1"
}

# alive PID: a live process (a zombie is dead: nothing reaps it here).
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$_st" ] && [ "$_st" != Z ]
}

# dead PID: not alive.
dead() {
	! alive "$1"
}

# engine_start [ARGS]: a headless engine in the background, as $EPID,
# once the engine row names it.
engine_start() {
	"$SLUICE" engine "$@" >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" \
	    </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for engine_named "$EPID"
}

# engine_named PID: the engine row names PID.
engine_named() {
	[ "$(q "SELECT pid FROM engine")" = "$1" ]
}

# engine_stop: SIGTERM the engine and wait; its exit status in $ERC.
engine_stop() {
	kill -TERM "$EPID" 2>/dev/null
	wait "$EPID"
	ERC=$?
}

# engine_crash: kill -9 the engine.
engine_crash() {
	kill -9 "$EPID" 2>/dev/null
	wait "$EPID" 2>/dev/null
}

# stopped PID: the process is stopped (SIGSTOP: it reached its
# SLUICE_TEST_HOLD, test builds only).
stopped() {
	[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" = T ]
}

# held_engine POINT: an engine that stops itself at POINT (SLUICE_TEST_HOLD),
# listening; $EPID.
held_engine() {
	SLUICE_TEST_HOLD=$1 "$SLUICE" engine >"$T_DIR/engine.out" \
	    2>"$T_DIR/engine.err" </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for engine_named "$EPID" && wait_for test -S "$SLUICE_DB.sock"
}

# new_id: the newest workflow's id.
new_id() {
	q "SELECT max(id) FROM workflows"
}

# engine_drain: "sluice engine --drain" until it exits, its status in
# $ERC.  (Not engine_start --drain: an engine with nothing left to do
# after its recovery may be gone before its row names it, and that wait
# would run out.)
engine_drain() {
	"$SLUICE" engine --drain >"$T_DIR/engine.out" \
	    2>"$T_DIR/engine.err" </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for dead "$EPID" || kill -TERM "$EPID" 2>/dev/null
	wait "$EPID"
	ERC=$?
}

# wait_for's arguments are expanded once, before it starts: a condition
# that reads the database on each try goes in a function such as these
# (wait_for test -n "$(col ...)" would test the first answer 200 times).

# has_col WF NAME COLUMN: step NAME's latest row has COLUMN set.
has_col() {
	[ -n "$(col "$1" "$2" "$3")" ]
}

# id_above N: a workflow newer than N exists.
id_above() {
	[ "$(new_id)" -gt "$1" ]
}

# step_id WF NAME: the latest row of step NAME.
step_id() {
	q "SELECT max(id) FROM workflow_steps WHERE workflow_id = $1 AND
	    name = '$2'"
}

# wait_run ARGS: sluice run --wait ARGS; $OUT, $ERR, $RC; $ID the new id.
wait_run() {
	run_sluice run --wait "$@"
	ID=$(new_id)
}

# col WF NAME COLUMNS: columns of the latest row of step NAME.
col() {
	q "SELECT $3 FROM workflow_steps WHERE workflow_id = $1 AND
	    name = '$2' ORDER BY id DESC LIMIT 1"
}

# raw_lines SOCKET LINE...: send each LINE to the engine's socket as a
# client that is not sluice would, one at a time, printing each answer
# line (needs python3).
raw_lines() {
	python3 - "$@" <<'EOF_RAW'
import socket, sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
f = s.makefile("rb")
for line in sys.argv[2:]:
    s.sendall(line.encode() + b"\n")
    print(f.readline().decode().rstrip("\n"))
EOF_RAW
}
