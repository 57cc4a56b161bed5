#!/bin/sh
# tests/cli/escape.sh: processes that leave a step's process group.  Each
# step starts a grandchild that calls setsid (a new session and group),
# ignores SIGTERM and keeps the step's pipes open, and writes its pid to a
# file.  Cancel, timeout, kill -9 of the engine (the next engine recovers)
# and a double SIGTERM must each end it, and the engine must still stop;
# a step whose own process exited must finish although the escaped one
# still holds its pipes.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v setsid >/dev/null || skip_all "setsid is not installed"
[ -r /proc/self/environ ] || skip_all "no /proc: escaped processes are \
found through it"

# flow NAME OPTIONS TAIL: a flow whose step starts the escaping grandchild
# (its pid in NAME.pid, its own in NAME.self.pid), then runs TAIL.
flow() {
	cat >"$T_DIR/$1.json" <<EOF2
{"start": {"shell": "echo \$\$ >$T_DIR/$1.self.tmp; mv $T_DIR/$1.self.tmp $T_DIR/$1.self.pid; setsid sh -c 'trap \"\" TERM; echo \$\$ >$T_DIR/$1.tmp; mv $T_DIR/$1.tmp $T_DIR/$1.pid; exec sleep 300' & $3",
  $2}}
EOF2
}

# escaped NAME: the escaped grandchild's pid, once it has written it.
escaped() {
	wait_for test -s "$T_DIR/$1.pid" || return 1
	cat "$T_DIR/$1.pid"
}

# left_group PID: the process is in a session (and group) of its own.
left_group() {
	[ "$(ps -o sid= -p "$1" | tr -d ' ')" = "$1" ]
}

# engine_gone: the engine process has exited (reaped or zombie).
engine_gone() {
	dead "$EPID"
}

# stop_engine: SIGTERM the engine and wait, at most 10 s (then kill -9);
# its exit status in $ERC.
stop_engine() {
	kill -TERM "$EPID" 2>/dev/null
	wait_for engine_gone || kill -9 "$EPID" 2>/dev/null
	wait "$EPID"
	ERC=$?
}

noretry='"retry": {"max_attempts": 1}'

# --- cancel -----------------------------------------------------------------

flow cancel "$noretry" "sleep 300"
engine_start
run_sluice run "$T_DIR/cancel.json"
id=$OUT
esc=$(escaped cancel)
ok $? "cancel: the step's grandchild started"
left_group "$esc"
ok $? "cancel: it left the step's process group"
run_sluice cancel "$id"
expect_rc 0 "cancel: cancel the workflow"
wait_for dead "$esc"
ok $? "cancel: the escaped process is gone"
wait_for dead "$(cat "$T_DIR/cancel.self.pid")"
ok $? "cancel: the step's own process is gone"
q_is "SELECT status FROM workflows WHERE id = $id" cancelled \
    "cancel: the workflow is cancelled"

# --- timeout ----------------------------------------------------------------

flow timeout "$noretry, \"timeout\": \"1s\"" "sleep 300"
run_sluice run "$T_DIR/timeout.json"
id=$OUT
esc=$(escaped timeout)
ok $? "timeout: the step's grandchild started"
wait_for step_is "$id" start failed
ok $? "timeout: the step fails"
q_is "SELECT error FROM workflow_steps WHERE workflow_id = $id" timeout \
    "timeout: with reason timeout"
wait_for dead "$esc"
ok $? "timeout: the escaped process is gone"

# --- an escaped process holding the pipes of a step that exited -------------

flow linger "$noretry" "echo done"
run_sluice run "$T_DIR/linger.json"
id=$OUT
esc=$(escaped linger)
ok $? "linger: the step's grandchild started"
wait_for step_is "$id" start done
ok $? "linger: the step completes although its pipes are still held"
q_is "SELECT result_json FROM workflow_steps WHERE workflow_id = $id" \
    '"done"' "linger: with the output read before"
kill -9 "$esc" 2>/dev/null

stop_engine
is "$ERC" 0 "the engine stops after all that"

# --- kill -9 of the engine: the next engine's recovery ----------------------

# The step prints once its grandchild is off: output opens the engine's
# next transaction, which records the step's pid, at once rather than at
# the engine's next tick.
flow crash "$noretry, \"on_interrupt\": \"fail\"" \
    "while [ ! -s $T_DIR/crash.pid ]; do sleep 0.01; done; echo off; sleep 300"
engine_start
run_sluice run "$T_DIR/crash.json"
id=$OUT
esc=$(escaped crash)
ok $? "crash: the step's grandchild started"
wait_for has_col "$id" start pid
engine_crash
alive "$esc"
ok $? "crash: the escaped process outlives the engine"
engine_start
wait_for dead "$esc"
ok $? "crash: the next engine's recovery ends the escaped process"
wait_for dead "$(cat "$T_DIR/crash.self.pid")"
ok $? "crash: and the step's own process"
wait_for step_is "$id" start failed
ok $? "crash: the interrupted step fails (on_interrupt fail)"
stop_engine
is "$ERC" 0 "crash: the recovering engine stops"

# --- a double SIGTERM ------------------------------------------------------

flow term "$noretry, \"on_interrupt\": \"fail\"" "sleep 300"
engine_start
run_sluice run "$T_DIR/term.json"
id=$OUT
esc=$(escaped term)
ok $? "term: the step's grandchild started"
kill -TERM "$EPID"
wait_for file_has "$T_DIR/engine.err" "engine stopping"
kill -TERM "$EPID"
wait_for engine_gone
ok $? "term: a second SIGTERM stops the engine, escaped process or not"
wait "$EPID" 2>/dev/null
wait_for dead "$esc"
ok $? "term: the escaped process is gone"

done_testing
