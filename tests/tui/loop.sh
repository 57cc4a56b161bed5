#!/bin/sh
# tests/tui/loop.sh: the console's loop never spins or blocks.  After a
# stop signal it waits for its steps to end asleep, not polling with a
# zero timeout (its CPU time is measured); taking over from a dead engine
# whose leftover step ignores SIGTERM, it draws and answers keys while
# recovery waits out the kill grace, instead of freezing for it.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/tui-lib.sh"

# A step whose whole group ignores SIGTERM (the ignored disposition
# survives exec), so only SIGKILL at the end of the grace ends it.
cat >"$T_DIR/stubborn.json" <<'J'
{"start": {"name": "stubborn", "shell": "trap '' TERM; sleep 60",
  "on_interrupt": "fail"}}
J

# cpu_ticks PID: user plus system CPU time of PID, in clock ticks.
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# now_ms: monotonic enough wall time in milliseconds.
now_ms() {
	date +%s%3N
}

# pid_known WF: the stubborn step's pid is recorded.
pid_known() {
	[ -n "$(col "$1" stubborn pid)" ] && [ "$(col "$1" stubborn pid)" != 0 ]
}

# one_child PID: PID has exactly one child process; its pid in $CHILD.
# (The engine records a step's pid with its next transaction, up to a
# second later; a test that only needs the process reads it here.)
one_child() {
	CHILD=$(cat /proc/"$1"/task/*/children 2>/dev/null)
	# shellcheck disable=SC2086 # one word per pid
	set -- $CHILD
	[ $# -eq 1 ]
}

HZ=$(getconf CLK_TCK)

# --- waiting for steps after a stop signal: asleep --------------------------
# The grace leaves the 1 s measured below, and more, between the signal
# and the kill.
tui_start 100x30 SLUICE_KILL_GRACE_MS=2500 --
tui_ok 'engine: this console' "the console hosts the engine"
CPID=$(tui_pid)
ENGINES="$ENGINES $CPID"
run_sluice run "$T_DIR/stubborn.json"
W=$(new_id)
wait_for step_is "$W" stubborn running
ok $? "a step that ignores SIGTERM runs"
# The step is the console's one child (once it has forked).
wait_for one_child "$CPID"
one_child "$CPID"
SPID=$CHILD
kill -TERM "$CPID"
sleep 0.2
t0=$(cpu_ticks "$CPID")
sleep 1
t1=$(cpu_ticks "$CPID")
tui_pid_alive "$CPID"
ok $? "SIGTERM: the console waits for the step it interrupted"
ok $(((t1 - t0) * 100 / HZ >= 20)) \
    "... asleep: $((t1 - t0)) ticks of CPU in 1 s (under 20%)"
tui_wait_exit 10
ok $? "it exits once the grace has passed and the step is killed"
dead "$SPID"
ok $? "... the step's process is gone"
engine_drain
is "$ERC" 0 "the next engine (--drain) exits once it has handled it"
wait_for wf_ended "$W"
q_is "SELECT status FROM workflow_steps WHERE workflow_id = $W" failed \
    "the interrupted step follows on_interrupt: fail (the next engine)"

# --- taking over from a dead engine: the console stays responsive ----------
engine_start
run_sluice run "$T_DIR/stubborn.json"
W=$(new_id)
wait_for step_is "$W" stubborn running
ok $? "a stubborn step runs under a headless engine"
wait_for pid_known "$W"
SPID=$(col "$W" stubborn pid)
echo "$SPID" >"$T_DIR/leftover.pid"
engine_crash
alive "$SPID"
ok $? "the engine is killed (-9); its step is left over"
start=$(now_ms)
# The two deadlines below together are the grace: a console frozen for
# it would miss them.
tui_start 100x30 SLUICE_KILL_GRACE_MS=5000 --
tui_ok 'engine: this console' "the console takes over and draws" 2.5
tui_keys 2
tui_ok 'No gate is waiting' "... and answers a key" 2.5
elapsed=$(($(now_ms) - start))
alive "$SPID"
ok $? "... while recovery still waits for the leftover (${elapsed} ms)"
q_is "SELECT status FROM workflow_steps WHERE workflow_id = $W" running \
    "its row is held until the leftover has gone"
tui_keys 1
wait_for dead "$SPID"
ok $? "at the grace the leftover is killed (SIGKILL)"
wait_for wf_ended "$W"
ok $? "then its row follows on_interrupt"
q_is "SELECT status FROM workflow_steps WHERE workflow_id = $W" failed \
    "... (fail), and nothing ran it twice"
tui_keys q
tui_wait_exit 5
is "$TUI_STATUS" 0 "the console quits normally"

tui_sanitizers_ok "no sanitizer report from the consoles"
done_testing
