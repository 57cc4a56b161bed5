#!/bin/sh
# tests/tui/headless.sh: a terminal going away never stalls or kills work.
# A console hosting the engine runs a 20-step chain (each step leaves a
# line in a file, then sleeps 0.1 s); the tmux pane is killed after step 3
# (the kernel hangs the console up): the same process goes on headless,
# the chain completes with no step interrupted and none run twice, a
# console opened afterwards shows that engine and approves the gate at
# the end through it, and the headless engine exits once the work has
# drained, saying so in DB.engine.log (0600).  q with steps running keeps
# them running headless by default (Enter); i interrupts them and quits.
# "sluice engine" started beside a headless engine asks it to hand over
# and takes over cleanly.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/tui-lib.sh"

LOG="$SLUICE_DB.engine.log"

# chain FILE N EFFECTS PAUSE [GATE]: a flow of N steps s1..sN, each
# appending its name to EFFECTS then running the command PAUSE; with
# GATE, a gate "approve" and a step "final" after them.
chain() {
	{
		printf '{'
		i=1
		while [ "$i" -le "$2" ]; do
			[ "$i" -eq 1 ] && printf '"start": {"name": "s1", ' ||
			    printf ', "s%d": {' "$i"
			printf '"shell": "echo s%d >>%s; %s"' "$i" "$3" "$4"
			if [ "$i" -lt "$2" ]; then
				printf ', "next": "s%d"}' $((i + 1))
			elif [ -n "${5:-}" ]; then
				printf ', "next": "approve"}'
			else
				printf '}'
			fi
			i=$((i + 1))
		done
		if [ -n "${5:-}" ]; then
			printf ', "approve": {"gate": {"message": "%s"}, ' "$5"
			printf '"next": "final"}, "final": {"tool": "echo", '
			printf '"args": {"x": 1}}'
		fi
		printf '}\n'
	} >"$1"
}

# wait_long SECONDS CMD...: poll CMD every 100 ms up to SECONDS.
wait_long() {
	_w=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_w=$((_w - 1))
		[ "$_w" -le 0 ] && return 1
		sleep 0.1
	done
	return 0
}

# gone PID: the process has exited (a zombie counts: its parent, tmux's
# sh, is gone with the pane, and init reaps it).
gone() {
	! tui_pid_alive "$1"
}

# cpu_ticks PID: user plus system CPU time of PID, in clock ticks.
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# --- the pane killed under a running chain ----------------------------------
chain "$T_DIR/chain.json" 20 "$T_DIR/effects" "sleep 0.1" "Ship the chain?"
tui_start 100x30
tui_ok 'engine: this console' "the console hosts the engine"
HPID=$(tui_pid)
ENGINES="$ENGINES $HPID"
run_sluice run "$T_DIR/chain.json"
expect_rc 0 "a 20-step chain starts"
W=$(new_id)
wait_long 20 step_is "$W" s3 done
ok $? "step 3 has completed"
tui_kill_pane
wait_long 10 file_has "$LOG" "headless: the terminal went away"
tui_pid_alive "$HPID"
ok $? "the terminal is gone; the console's process carries on headless"
like "$(cat "$LOG" 2>/dev/null)" "headless: the terminal went away" \
    "DB.engine.log says why it went headless"
is "$(stat -c %a "$LOG" 2>/dev/null)" 600 "... and is created 0600"
is "$(q "SELECT pid FROM engine")" "$HPID" "the engine row still names it"
wait_long 30 step_is "$W" approve waiting
ok $? "the chain ran to the gate after it"
is "$(wc -l <"$T_DIR/effects" | tr -d ' ')" 20 "20 side effects"
is "$(sort -u "$T_DIR/effects" | wc -l | tr -d ' ')" 20 \
    "... one per step: none ran twice"
q_is "SELECT count(*), count(DISTINCT name), max(attempt), sum(status =
    'done') FROM workflow_steps WHERE workflow_id = $W AND name LIKE 's%'" \
    "20|20|1|20" "20 rows, each step once, attempt 1, all done"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $W AND
    (error LIKE '%interrupt%' OR status IN ('failed', 'cancelled'))" 0 \
    "no step was interrupted"
test -S "$SLUICE_DB.sock"
ok $? "the headless engine still serves DB.sock"
run_sluice pause "$W"
expect_rc 0 "a command reaches it (pause)"
run_sluice resume "$W"
expect_rc 0 "... and another (resume)"
q_is "SELECT group_concat(action, ' ') FROM (SELECT action FROM audit
    WHERE action IN ('pause', 'resume') ORDER BY id)" "pause resume" \
    "both applied and audited by it"
t0=$(cpu_ticks "$HPID")
sleep 1
t1=$(cpu_ticks "$HPID")
hz=$(getconf CLK_TCK)
ok $(((t1 - t0) * 100 / hz > 20)) \
    "waiting at the gate, headless, it sleeps ($((t1 - t0)) ticks in 1 s)"

# A console opened afterwards attaches to it and approves through it.
TUI_S=second
tui_start 100x30
tui_ok "engine: pid $HPID on " "a new console shows the headless engine"
tui_keys 2
tui_ok 'Ship the chain\?' "... and the gate waiting"
tui_keys y
tui_ok 'approve workflow [0-9]+ [a-z-]+, step approve \(step [0-9]+\) - comment, optional:' \
    "y asks for a comment"
tui_keys Enter
tui_ok "approve [0-9]+: approved" "the approval is answered"
wait_long 10 wf_is "$W" completed
ok $? "the headless engine ran the rest: the workflow completed"
wait_long 10 gone "$HPID"
ok $? "its work drained, the headless engine exited"
like "$(cat "$LOG")" "gate_waiting: workflow $W, step" \
    "the log has what happened meanwhile: the gate waiting"
like "$(cat "$LOG")" "workflow_completed: workflow $W" \
    "... and the workflow completing"
like "$(cat "$LOG")" "its work has drained" "the log says it drained"
like "$(cat "$LOG")" "headless: exiting" "... and that it exited"
tui_ok 'engine: this console' "the open console takes the engine over"
tui_stop
TUI_S=main

# --- q with steps running: the default keeps them running ------------------
: >"$LOG"
rm -f "$T_DIR/effects2"
# (Each step waits for the file "release2", made once Enter has answered
# the question: the chain is still running then, however loaded the
# machine.)
chain "$T_DIR/short.json" 8 "$T_DIR/effects2" \
    "until test -e $T_DIR/release2; do sleep 0.05; done"
tui_start 100x30
tui_ok 'engine: this console' "a console hosts the engine again"
QPID=$(tui_pid)
ENGINES="$ENGINES $QPID"
run_sluice run "$T_DIR/short.json"
W2=$(new_id)
wait_long 10 step_is "$W2" s1 running
ok $? "an 8-step chain runs"
tui_keys q
tui_ok 'steps? (is|are) running\.  Enter/y: quit,' \
    "q asks; Enter or y quits..."
tui_ok 'the work goes on headless' "... and the work goes on headless"
tui_ok 'i: interrupt them and quit' "... and which key interrupts"
tui_keys Enter
tui_ok "the engine goes on headless \(pid $QPID\)" \
    "Enter: the screen ends with one line saying where the work went"
: >"$T_DIR/release2"
wait_long 15 wf_is "$W2" completed
ok $? "the chain completed headless"
is "$(sort -u "$T_DIR/effects2" | wc -l | tr -d ' ')/$(wc -l \
    <"$T_DIR/effects2" | tr -d ' ')" "8/8" "each step ran once"
wait_long 10 gone "$QPID"
ok $? "then it exited"
tui_wait_exit 5
is "$TUI_STATUS" 0 "... with status 0"
like "$(cat "$LOG")" "the operator quit and kept the work running" \
    "the log says why"

# --- q, then i: interrupt them and quit -------------------------------------
cat >"$T_DIR/sleepy.json" <<'J'
{"start": {"name": "sleepy", "shell": "sleep 30", "on_interrupt": "fail"}}
J
tui_start 100x30
tui_ok 'engine: this console' "a console hosts the engine"
IPID=$(tui_pid)
run_sluice run "$T_DIR/sleepy.json"
W4=$(new_id)
wait_long 10 step_is "$W4" sleepy running
tui_keys q
tui_ok 'i: interrupt them and quit' "q asks again"
tui_keys i
tui_wait_exit 10
ok $? "i: the console quits"
gone "$IPID"
ok $? "... itself (no headless engine left)"
engine_drain
wait_long 10 wf_is "$W4" failed
ok $? "the interrupted step followed on_interrupt (fail) at the next engine"
is "$ERC" 0 "... which then exits (--drain)"

# --- a later "sluice engine" takes over from a headless one ----------------
# (Step a runs until the test creates the file "release", once both later
# engines have found it running and asked for a handover: on a loaded
# machine too, and without waiting longer than that.)
cat >"$T_DIR/hold" <<J
echo a >>$T_DIR/effects3
until test -e $T_DIR/release; do sleep 0.05; done
J
cat >"$T_DIR/long.json" <<J
{"start": {"name": "a", "shell": "sh $T_DIR/hold", "next": "b"},
 "b": {"shell": "echo b >>$T_DIR/effects3"}}
J
tui_start 100x30
tui_ok 'engine: this console' "a console hosts the engine"
HPID=$(tui_pid)
ENGINES="$ENGINES $HPID"
run_sluice run "$T_DIR/long.json"
W3=$(new_id)
wait_long 10 step_is "$W3" a running
ok $? "a long step runs"
tui_kill_pane
wait_long 5 file_has "$LOG" "went away"
"$SLUICE" engine >"$T_DIR/e0.out" 2>"$T_DIR/e0.err" </dev/null &
E0=$!
ENGINES="$ENGINES $E0"
wait_long 5 file_has "$T_DIR/e0.err" "waiting"
kill -TERM "$E0"
wait "$E0"
is "$?" 1 "an engine waiting for a handover gives up on SIGTERM (exit 1)"
like "$(cat "$T_DIR/e0.err")" \
    "stopped while waiting for the headless engine to hand over" \
    "... saying so"
"$SLUICE" engine >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_long 5 file_has "$T_DIR/engine.err" "waiting"
like "$(cat "$T_DIR/engine.err")" "a headless engine runs on $SLUICE_DB: \
engine pid $HPID hands over once its 1 running step has ended; waiting" \
    "sluice engine asks the headless engine to hand over, and says so"
engine_named "$HPID"
ok $? "... and while the step runs, the headless engine keeps the database"
: >"$T_DIR/release"
wait_long 20 engine_named "$EPID"
ok $? "once the running step ended, the new engine took over"
wait_long 10 gone "$HPID"
ok $? "... and the headless one exited"
wait_long 10 wf_is "$W3" completed
ok $? "the new engine finished the workflow"
is "$(tr '\n' ' ' <"$T_DIR/effects3")" "a b " "each step ran once"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $W3 AND
    status = 'done' AND attempt = 1" 2 "neither was interrupted"
like "$(cat "$LOG")" "another engine asked for the database" \
    "the headless engine's log says it handed over"
q_is "SELECT count(*) FROM audit WHERE action = 'handover'" 1 \
    "the handover is audited"
engine_stop
is "$ERC" 0 "the new engine stops cleanly"

# A console's own engine (with its operator) does not hand over.
tui_start 100x30
tui_ok 'engine: this console' "a console hosts the engine"
run_sluice engine
expect_rc 1 "sluice engine beside a console's engine fails"
like "$ERR" "an engine is already running on $SLUICE_DB: pid $(tui_pid) on" \
    "... naming it"
tui_keys q
tui_wait_exit 5

tui_sanitizers_ok "no sanitizer report from the consoles"
done_testing
