#!/bin/sh
# tests/cli/engine.sh: the engine's life: the lock and the engine row
# (epoch, pid, host, heartbeat), an idle engine writing nothing, a stale
# epoch, commands through the socket, through the inbox (an engine with
# no socket) and applied offline, a command nobody answers, "run --wait" as the engine
# and as a follower (exit 0, 1, 3, interrupted), -j, SIGTERM and a second
# signal, --drain, crash recovery after kill -9 (leftover process
# groups killed, also when their pid was never recorded or the step ran
# through ssh; on_interrupt retry, fail and ask; a reused pid left alone),
# a symlinked database, many commands at once, and a follower whose
# engine dies.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

offline="sluice: warning: no engine is running on $SLUICE_DB: this is \
recorded, but no step runs until one starts (sluice engine, or run --wait)"
host=$(uname -n)

# --- flows ------------------------------------------------------------------

cat >"$T_DIR/noop.json" <<'EOF'
{"start": {"tool": "noop"}}
EOF

cat >"$T_DIR/touch.json" <<EOF
{"start": {"run": ["touch", "$T_DIR/touched"]}}
EOF

cat >"$T_DIR/boom.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "boom"},
  "retry": {"max_attempts": 1}}}
EOF

cat >"$T_DIR/gate1.json" <<'EOF'
{"start": {"gate": {"message": "go?"}}}
EOF

# hold_flow FILE BACKOFF: a step that waits (up to 20 s) for a file, its
# pid in hold.pid, retried once after BACKOFF.
hold_flow() {
	cat >"$1" <<EOF
{"start": {"shell": "echo \$\$ >$T_DIR/hold.pid; i=0; while [ ! -f $T_DIR/release ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done; [ -f $T_DIR/release ]",
  "retry": {"max_attempts": 2, "backoff": ["$2"]}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
}
# The retry comes at once; hold1s.json's waits a second, long enough to
# see it pending with its timer.
hold_flow "$T_DIR/hold.json" 0s
hold_flow "$T_DIR/hold1s.json" 1s

# --- a command nobody answers (started here, checked at the end) -----------

# The command waits 10 s for an answer: on a database of its own, it waits
# while the rest of the script runs.  The engine row names an engine (one
# killed, here), and a process that is not an engine holds the lock.
main_db=$SLUICE_DB
SLUICE_DB=$T_DIR/queue.db
# Made as sluice init makes it: an engine never creates a named database,
# and this one must not depend on the query below making an empty file.
db_init
engine_start
engine_crash
flock "$SLUICE_DB.lock" sh -c "i=0; while [ ! -f $T_DIR/unlock ] && [ \$i -lt 2400 ]; do sleep 0.05; i=\$((i+1)); done" &
holder=$!
ENGINES="$ENGINES $holder"
wait_for sh -c "! flock -n '$SLUICE_DB.lock' true"
held=$?
"$SLUICE" run "$T_DIR/noop.json" >"$T_DIR/queue.out" 2>"$T_DIR/queue.err" \
    </dev/null &
unanswered=$!
ENGINES="$ENGINES $unanswered"

# --- a stale epoch (started here, checked at the end) ----------------------

# An idle engine learns of a take-over at its inbox poll, every 5 s: on a
# database of its own, it goes stale while the rest of the script runs.
SLUICE_DB=$T_DIR/stale.db
db_init
"$SLUICE" engine >"$T_DIR/stale.out" 2>"$T_DIR/stale.err" </dev/null &
spid=$!
ENGINES="$ENGINES $spid"
wait_for engine_named "$spid"
sep=$(q "SELECT epoch FROM engine")
# Another engine took over behind this one's back: it must stop writing.
q "UPDATE engine SET epoch = epoch + 1"
SLUICE_DB=$main_db

# --- offline: no engine -----------------------------------------------------

run_sluice run "$T_DIR/noop.json"
expect_rc 0 "run with no engine"
id1=$OUT
case "$id1" in
''|*[!0-9]*) ok 1 "run prints the id alone ($id1)" ;;
*) ok 0 "run prints the id alone" ;;
esac
is "$ERR" "$offline" "run with no engine says nothing runs until one starts"
q_is "SELECT status FROM workflow_steps WHERE workflow_id = $id1" ready \
    "offline: the first step stays ready"
q_is "SELECT status FROM workflows WHERE id = $id1" running \
    "offline: the workflow is running"
is "$(stat -c %a "$SLUICE_DB.lock")" 600 "the lock file is 0600"
q_is "SELECT pid IS NULL, epoch FROM engine" "1|1" \
    "the offline command took epoch 1 and let go"
q_is "SELECT state, json_extract(reply, '$.code') FROM inbox" "" \
    "an offline command does not go through the inbox"
q_is "SELECT count(*) FROM audit WHERE action = 'start' AND
    workflow_id = $id1" 1 "an offline start is audited"

run_sluice cancel 9999
expect_rc 3 "offline cancel of an unknown workflow"
is "$ERR" "sluice: no workflow 9999" "it names the missing workflow"

# --- the engine: lock, engine row, inbox -------------------------------------

ep=$(q "SELECT epoch FROM engine")
engine_start
ok $? "an engine starts and names itself in the engine row"
ep=$((ep + 1))
q_is "SELECT epoch, host FROM engine" "$ep|$host" \
    "the engine took a new epoch and names its host"
wait_for wf_is "$id1" completed
ok $? "the engine runs what was left ready"

run_sluice engine
expect_rc 1 "a second engine is refused"
is "$ERR" "sluice: an engine is already running on $SLUICE_DB: pid $EPID on $host" \
    "it says which engine runs"
q_is "SELECT epoch, pid FROM engine" "$ep|$EPID" \
    "the refused engine changed nothing"

is "$(stat -c %a "$SLUICE_DB.sock")" 660 "the engine's socket is 0660"
[ -S "$SLUICE_DB.sock" ]
ok $? "the engine listens on DB.sock beside the database"
# An idle engine writes nothing: no heartbeat of its own (no fsync).
hb=$(q "SELECT heartbeat_at FROM engine")
wal=$(stat -c %s:%Y "$SLUICE_DB-wal")
sleep 1.5
q_is "SELECT heartbeat_at FROM engine" "$hb" \
    "an idle engine does not write a heartbeat"
is "$(stat -c %s:%Y "$SLUICE_DB-wal")" "$wal" \
    "an idle engine does not write the database at all"

run_sluice run "$T_DIR/touch.json"
expect_rc 0 "run with an engine running"
id2=$OUT
is "$ERR" "" "no warning when an engine runs"
q_is "SELECT count(*) FROM inbox" 0 \
    "the start went through the socket, not the inbox"
q_is "SELECT count(*) FROM audit WHERE action = 'start' AND
    workflow_id = $id2" 1 "the start through the socket is audited"
wait_for wf_is "$id2" completed
ok $? "the engine runs it"
[ -f "$T_DIR/touched" ]
ok $? "the step's process ran"
pid_row=$(q "SELECT pid, pgid, proc_start > 0, started_at - 5000 < proc_start
    AND proc_start < completed_at + 5000 FROM workflow_steps
    WHERE workflow_id = $id2")
case "$pid_row" in
*'|'*'|1|1') ok 0 "a quick step's row keeps its pid, group and start time" ;;
*) ok 1 "a quick step's row keeps its pid, group and start time ($pid_row)" ;;
esac
pid=${pid_row%%|*}
rest=${pid_row#*|}
is "${rest%%|*}" "$pid" "the step's process leads its own group"

run_sluice cancel "$id2"
expect_rc 4 "cancel of a completed workflow is refused"
is "$ERR" "sluice: cannot cancel workflow $id2: it is completed" \
    "it says why"
q_is "SELECT count(*) FROM inbox" 0 \
    "the refusal is answered on the socket"
run_sluice cancel 9999
expect_rc 3 "cancel of an unknown workflow through the engine"
is "$ERR" "sluice: no workflow 9999" "it names the missing workflow"

engine_stop
is "$ERC" 0 "SIGTERM stops an idle engine with exit 0"
q_is "SELECT pid IS NULL, epoch FROM engine" "1|$ep" \
    "a clean stop clears the engine row's pid"

engine_start
ep=$((ep + 1))
q_is "SELECT epoch FROM engine" "$ep" "every engine takes a new epoch"
engine_stop

# --- run --wait as the engine ----------------------------------------------

run_sluice run --wait "$T_DIR/noop.json"
expect_rc 0 "run --wait drives a workflow to completion"
idw=$(new_id)
is "$OUT" "$idw" "run --wait prints the id"
is "$ERR" "" "run --wait as the engine does not warn"
q_is "SELECT status FROM workflows WHERE id = $idw" completed \
    "the workflow completed"
q_is "SELECT pid IS NULL FROM engine" 1 "run --wait let go of the engine row"

run_sluice run --wait "$T_DIR/boom.json"
expect_rc 1 "run --wait of a failing workflow exits 1"
idb=$(new_id)
is "$OUT" "$idb" "it prints the id"
is "$ERR" "sluice: workflow $idb failed: step start failed: boom" \
    "it says why the workflow failed"

# A workflow queued offline runs while run --wait drives another one.
rm -f "$T_DIR/touched"
run_sluice run "$T_DIR/touch.json"
ido=$OUT
cat >"$T_DIR/waittouch.json" <<EOF
{"start": {"shell": "i=0; while [ ! -f $T_DIR/touched ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done; test -f $T_DIR/touched"}}
EOF
run_sluice run --wait "$T_DIR/waittouch.json"
expect_rc 0 "run --wait as the engine also runs other ready workflows"
q_is "SELECT status FROM workflows WHERE id = $ido" completed \
    "the other workflow completed"

# Cancelled while run --wait drives it: exit 3, the step killed.
rm -f "$T_DIR/release" "$T_DIR/hold.pid"
"$SLUICE" run --wait "$T_DIR/hold.json" >"$T_DIR/w.out" 2>"$T_DIR/w.err" &
wpid=$!
ENGINES="$ENGINES $wpid"
wait_for test -s "$T_DIR/hold.pid"
ok $? "the held step runs"
wait_for test -s "$T_DIR/w.out"
idc=$(cat "$T_DIR/w.out")
hp=$(cat "$T_DIR/hold.pid")
pid_is() {
	[ "$(q "SELECT pid = $hp AND pgid = $hp AND proc_start > 0 FROM
	    workflow_steps WHERE workflow_id = $idc")" = 1 ]
}
wait_for pid_is
ok $? "a running step's row records its pid, group and start time"
run_sluice cancel "$idc" -m "stop it"
expect_rc 0 "cancel a workflow run --wait drives"
is "$OUT" "cancelled workflow $idc" "cancel says so"
is "$ERR" "" "cancel did not warn: the run --wait process is the engine"
wait "$wpid"
is "$?" 3 "run --wait exits 3 when its workflow is cancelled"
is "$(cat "$T_DIR/w.err")" "sluice: workflow $idc was cancelled" \
    "it says the workflow was cancelled"
wait_for dead "$hp"
ok $? "the cancelled step's process was killed"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $idc
    ORDER BY id" "start|cancelled" "the running row is cancelled"
q_is "SELECT comment FROM audit WHERE action = 'cancel' AND
    workflow_id = $idc" "stop it" "the cancel is audited with its comment"

# SIGINT while driving: steps killed, the workflow goes on later.
rm -f "$T_DIR/release" "$T_DIR/hold.pid"
"$SLUICE" run --wait "$T_DIR/hold.json" >"$T_DIR/w.out" 2>"$T_DIR/w.err" &
wpid=$!
ENGINES="$ENGINES $wpid"
wait_for test -s "$T_DIR/hold.pid"
ok $? "the held step runs again"
wait_for test -s "$T_DIR/w.out"
idi=$(cat "$T_DIR/w.out")
hp=$(cat "$T_DIR/hold.pid")
kill -INT "$wpid"
wait "$wpid"
is "$?" 1 "run --wait interrupted by SIGINT exits 1"
is "$(cat "$T_DIR/w.err")" \
    "sluice: interrupted: workflow $idi goes on when an engine starts" \
    "it says the workflow goes on later"
dead "$hp"
ok $? "the running step was killed before run --wait exited"
q_is "SELECT attempt, status FROM workflow_steps WHERE workflow_id = $idi" \
    "1|running" "the killed step's row stays running, for on_interrupt"
q_is "SELECT status FROM workflows WHERE id = $idi" running \
    "the workflow is still running"
q_is "SELECT pid IS NULL FROM engine" 1 "the interrupted run --wait let go"
touch "$T_DIR/release"
engine_start
wait_for wf_is "$idi" completed
ok $? "the next engine finishes the interrupted workflow"
q_is "SELECT attempt, status, ifnull(error, '') FROM workflow_steps WHERE
    workflow_id = $idi AND name = 'start' ORDER BY id" \
    "1|failed|interrupted: the engine stopped while it ran
2|done|" "the next engine applied on_interrupt retry"
engine_stop

# --- run --wait as a follower ----------------------------------------------

engine_start
run_sluice run --wait "$T_DIR/noop.json"
expect_rc 0 "run --wait follows a running engine to completion"
idf=$(new_id)
is "$OUT" "$idf" "the follower prints the id"
is "$ERR" "" "the follower does not warn"
q_is "SELECT count(*) FROM inbox WHERE state = 'new'" 0 \
    "the follower asked the engine (through its socket)"
q_is "SELECT pid FROM engine" "$EPID" "the engine is still the engine"

run_sluice run --wait "$T_DIR/boom.json"
expect_rc 1 "a follower of a failing workflow exits 1"
idfb=$(new_id)
is "$ERR" "sluice: workflow $idfb failed: step start failed: boom" \
    "the follower says why it failed"

rm -f "$T_DIR/release" "$T_DIR/hold.pid"
"$SLUICE" run --wait "$T_DIR/hold.json" >"$T_DIR/w.out" 2>"$T_DIR/w.err" &
wpid=$!
wait_for test -s "$T_DIR/hold.pid"
# The step can write its pid before the follower has printed the id.
wait_for test -s "$T_DIR/w.out"
idfc=$(cat "$T_DIR/w.out")
run_sluice cancel "$idfc"
expect_rc 0 "cancel a followed workflow"
wait "$wpid"
is "$?" 3 "the follower exits 3 when the workflow is cancelled"
is "$(cat "$T_DIR/w.err")" "sluice: workflow $idfc was cancelled" \
    "the follower says it was cancelled"

run_sluice run --wait "$T_DIR/nope.json"
expect_rc 2 "run --wait of a missing file is a usage error"
engine_stop

# --- shutting down ----------------------------------------------------------

# First SIGTERM: nothing new starts, the running step finishes.
rm -f "$T_DIR/release" "$T_DIR/hold.pid"
engine_start
run_sluice run "$T_DIR/hold.json"
ids=$OUT
wait_for test -s "$T_DIR/hold.pid"
ok $? "a step runs under the engine"
kill -TERM "$EPID"
wait_for file_has "$T_DIR/engine.err" "engine stopping"
ok $? "the engine says it is stopping"
alive "$EPID"
ok $? "the engine waits for its running step"
touch "$T_DIR/release"
wait "$EPID"
is "$?" 0 "the engine exits 0 once the step ended"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $ids
    ORDER BY id" "start|done
after|ready" "the step finished; its successor waits for the next engine"
engine_start
wait_for wf_is "$ids" completed
ok $? "the next engine goes on"
engine_stop

# Second SIGTERM: the running step is killed and follows its retry rules.
rm -f "$T_DIR/release" "$T_DIR/hold.pid"
engine_start
run_sluice run "$T_DIR/hold1s.json"
ids=$OUT
wait_for test -s "$T_DIR/hold.pid"
hp=$(cat "$T_DIR/hold.pid")
kill -TERM "$EPID"
wait_for file_has "$T_DIR/engine.err" "engine stopping"
kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "a second SIGTERM: the engine kills its steps and exits 0"
dead "$hp"
ok $? "the step's process is gone"
q_is "SELECT attempt, status FROM workflow_steps WHERE workflow_id = $ids" \
    "1|running" "the killed step's row stays running, for on_interrupt"
touch "$T_DIR/release"
engine_start
retry_pending() {
	step_is "$ids" start pending
}
wait_for retry_pending
ok $? "the next engine counts it as a failed attempt; the retry waits its backoff"
q_is "SELECT count(*) FROM timers WHERE step_id = (SELECT max(id) FROM
    workflow_steps WHERE workflow_id = $ids)" 1 "the retry has a stored timer"
wait_for wf_is "$ids" completed
ok $? "the next engine runs the retry"
q_is "SELECT attempt, status, ifnull(error, '') FROM workflow_steps WHERE
    workflow_id = $ids AND name = 'start' ORDER BY id" \
    "1|failed|interrupted: the engine stopped while it ran
2|done|" "the interrupted attempt failed as interrupted"
engine_stop

# --- -j ---------------------------------------------------------------------

run_sluice engine -j 0
expect_rc 2 "engine -j 0 is a usage error"
is "$ERR" "sluice: engine: -j: a number from 1 to 10000" "it says what -j takes"
cat >"$T_DIR/two.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"shell": "date +%s%N >$T_DIR/a.start; sleep 0.3; date +%s%N >$T_DIR/a.end"},
 "b": {"shell": "date +%s%N >$T_DIR/b.start; sleep 0.3; date +%s%N >$T_DIR/b.end"}}
EOF
engine_start -j 1
run_sluice run "$T_DIR/two.json"
idj=$OUT
wait_for wf_is "$idj" completed
ok $? "two parallel steps complete with -j 1"
if [ "$(cat "$T_DIR/a.start")" -lt "$(cat "$T_DIR/b.start")" ]; then
	first=a second=b
else
	first=b second=a
fi
[ "$(cat "$T_DIR/$first.end")" -le "$(cat "$T_DIR/$second.start")" ]
ok $? "-j 1: the second process starts after the first ended"
engine_stop

# --- crash recovery -----------------------------------------------------------

# b's first attempt sleeps with a grandchild; later attempts succeed.
crashflow() {
	cat >"$T_DIR/crash.json" <<EOF
{"start": {"shell": "echo x >>$T_DIR/a.count", "next": "b"},
 "b": {"shell": "if [ \$SLUICE_ATTEMPT -gt 1 ]; then exit 0; fi; sleep 30 & echo \$! >$T_DIR/gc.pid; echo \$\$ >$T_DIR/b.pid; wait",
  "retry": {"max_attempts": 3, "backoff": ["0s"]}$1}}
EOF
	rm -f "$T_DIR/a.count" "$T_DIR/gc.pid" "$T_DIR/b.pid"
}

# crash_running: start the crash flow, kill -9 the engine while b runs.
crash_running() {
	engine_start
	run_sluice run "$T_DIR/crash.json"
	idk=$OUT
	wait_for test -s "$T_DIR/b.pid"
	ok $? "b runs ($1)"
	bp=$(cat "$T_DIR/b.pid")
	gc=$(cat "$T_DIR/gc.pid")
	engine_crash
	alive "$bp" && alive "$gc"
	ok $? "after kill -9 of the engine, b and its child live on ($1)"
}

crashflow ""
crash_running "on_interrupt retry"
brow=$(step_id "$idk" b)
engine_start
wait_for dead "$bp"
ok $? "the next engine kills the leftover step process"
wait_for dead "$gc"
ok $? "and its grandchild (the whole group)"
wait_for wf_is "$idk" completed
ok $? "the workflow completes (on_interrupt retry by default)"
q_is "SELECT name, attempt, status, error FROM workflow_steps WHERE
    workflow_id = $idk ORDER BY id" "start|1|done|
b|1|failed|interrupted: the engine stopped while it ran
b|2|done|" "the interrupted row counts as a failed attempt and b runs again"
q_is "SELECT parent_id FROM workflow_steps WHERE workflow_id = $idk
    AND name = 'b' AND attempt = 2" "$brow" "the retry follows the interrupted row"
is "$(wc -l <"$T_DIR/a.count" | tr -d ' ')" 1 "the completed step did not run again"
engine_stop

crashflow ', "on_interrupt": "fail"'
crash_running "on_interrupt fail"
engine_start
wait_for wf_is "$idk" failed
ok $? "on_interrupt fail: the workflow fails"
dead "$bp" && dead "$gc"
ok $? "the leftover group was killed"
q_is "SELECT name, attempt, status FROM workflow_steps WHERE
    workflow_id = $idk ORDER BY id" "start|1|done
b|1|failed" "on_interrupt fail: no retry despite attempts left"
q_is "SELECT error FROM workflows WHERE id = $idk" \
    "step b failed: interrupted: the engine stopped while it ran" \
    "the workflow says why"
engine_stop

crashflow ', "on_interrupt": "ask"'
crash_running "on_interrupt ask"
engine_start
ask_waiting() {
	step_is "$idk" b waiting
}
wait_for ask_waiting
ok $? "on_interrupt ask: a new row of b waits for a decision"
dead "$bp" && dead "$gc"
ok $? "the leftover group was killed before asking"
q_is "SELECT name, attempt, status, error FROM workflow_steps WHERE
    workflow_id = $idk ORDER BY id" "start|1|done|
b|1|cancelled|interrupted: the engine stopped while it ran
b|2|waiting|" "the interrupted row is cancelled, attempt 2 waits"
run_sluice gates --json
like "$OUT" '"message": "step b was running when the engine stopped; approve to run it again, reject to fail it"' \
    "the gates queue asks whether to run b again"
ask=$(step_id "$idk" b)
run_sluice reject "$ask" -m "no"
expect_rc 0 "reject the interrupted step"
wait_for wf_is "$idk" failed
ok $? "rejecting it fails the workflow"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $idk
    AND name = 'b'" 2 "a rejected interrupted step is not retried"
engine_stop

# The leader is gone but its group lives on: the group is still killed.
crashflow ""
crash_running "leader killed after the crash"
kill -9 "$bp"
wait_for dead "$bp"
ok $? "the leader is gone, its child is not"
engine_start
wait_for dead "$gc"
ok $? "the next engine kills a group whose leader is gone"
wait_for wf_is "$idk" completed
ok $? "and the workflow goes on"
engine_stop

# A recorded pid now belongs to an unrelated process: it is left alone.
crashflow ""
crash_running "pid reused"
kill -9 "$bp" "$gc"
setsid sleep 30 &
decoy=$!
echo "$decoy" >"$T_DIR/decoy.pid"
wait_for alive "$decoy"
q "UPDATE workflow_steps SET pid = $decoy, pgid = $decoy WHERE
    id = $(step_id "$idk" b)"
engine_start
wait_for wf_is "$idk" completed
ok $? "the workflow goes on after the crash"
alive "$decoy"
ok $? "a process that only shares the recorded pid is not killed"
kill -9 "$decoy"
engine_stop

# A crash before the first engine write of a step: a built-in sleep.
cat >"$T_DIR/bsleep.json" <<'EOF'
{"start": {"tool": "sleep", "args": {"seconds": 30},
  "retry": {"max_attempts": 2, "backoff": ["0s"]}, "on_interrupt": "fail"}}
EOF
engine_start
run_sluice run "$T_DIR/bsleep.json"
idz=$OUT
wait_for step_is "$idz" start running
ok $? "a built-in sleep runs in the engine"
engine_crash
engine_start
wait_for wf_is "$idz" failed
ok $? "an interrupted built-in sleep follows on_interrupt fail"
engine_stop

# --- recovery of a step whose pid was not recorded yet ------------------------

# The engine records a step running, commits, spawns, and records the pid
# in its next transaction; a crash in between leaves a running row with
# no pid.  That state is made here by clearing the pid after a crash.
crashflow ""
crash_running "pid not recorded"
q "UPDATE workflow_steps SET pid = NULL, pgid = NULL, proc_start = NULL
    WHERE id = $(step_id "$idk" b)"
engine_start
wait_for dead "$bp"
ok $? "the next engine finds the unrecorded process by its environment"
wait_for dead "$gc"
ok $? "and kills its group"
wait_for wf_is "$idk" completed
ok $? "the workflow goes on"
engine_stop

# The same for a remote step: the local ssh process must not be left.
mkdir -p "$T_DIR/fakebin"
cat >"$T_DIR/fakebin/ssh" <<EOF
#!/bin/sh
echo \$\$ >$T_DIR/ssh.pid
while [ \$# -gt 0 ] && [ "\$1" != "--" ]; do shift; done
shift
env -i PATH="\$PATH" sh -c "\$*"
EOF
chmod +x "$T_DIR/fakebin/ssh"
cat >"$T_DIR/remote.json" <<EOF
{"start": {"host": "far", "shell": "if [ \$SLUICE_ATTEMPT -gt 1 ]; then exit 0; fi; exec sleep 30",
  "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF
rm -f "$T_DIR/ssh.pid"
PATH="$T_DIR/fakebin:$PATH" engine_start
run_sluice run "$T_DIR/remote.json"
idr=$OUT
wait_for test -s "$T_DIR/ssh.pid"
ok $? "the remote step runs through ssh"
sp=$(cat "$T_DIR/ssh.pid")
engine_crash
q "UPDATE workflow_steps SET pid = NULL, pgid = NULL, proc_start = NULL
    WHERE id = $(step_id "$idr" start)"
PATH="$T_DIR/fakebin:$PATH" engine_start
wait_for dead "$sp"
ok $? "the next engine kills a remote step's ssh whose pid was not recorded"
wait_for wf_is "$idr" completed
ok $? "and the remote step runs again"
kill -9 "$sp" 2>/dev/null
engine_stop

# --- one engine per database, however it is named ---------------------------

ln -s "$SLUICE_DB" "$T_DIR/alias.db"
engine_start
"$SLUICE" --db "$T_DIR/alias.db" engine >"$T_DIR/alias.out" 2>"$T_DIR/alias.err" &
apid=$!
ENGINES="$ENGINES $apid"
wait_for dead "$apid"
ok $? "an engine on a symlink to the database is refused"
kill -TERM "$apid" 2>/dev/null
wait "$apid"
is "$?" 1 "it exits 1"
like "$(cat "$T_DIR/alias.err")" "an engine is already running" \
    "it says an engine runs"
alive "$EPID"
ok $? "the first engine is still running"
engine_stop

# --- engine --drain --------------------------------------------------------------

run_sluice run "$T_DIR/noop.json"
idd=$OUT
run_sluice run "$T_DIR/gate1.json"
idg=$OUT
"$SLUICE" engine --drain >"$T_DIR/drain.out" 2>"$T_DIR/drain.err" </dev/null &
dpid=$!
ENGINES="$ENGINES $dpid"
wait_for wf_is "$idd" completed
ok $? "engine --drain runs what is ready"
alive "$dpid"
ok $? "engine --drain keeps running while a gate waits"
run_sluice approve "$(step_id "$idg" start)"
expect_rc 0 "approve the gate"
wait_for dead "$dpid"
ok $? "engine --drain exits once no workflow is running"
wait "$dpid"
is "$?" 0 "with exit 0"
q_is "SELECT status FROM workflows WHERE id = $idg" completed \
    "the gated workflow completed first"

# --- -j counts processes only ------------------------------------------------------

rm -f "$T_DIR/release" "$T_DIR/hold.pid"
engine_start -j 1
run_sluice run "$T_DIR/hold.json"
idh=$OUT
wait_for test -s "$T_DIR/hold.pid"
printf '{"start": {"run": ["true"]}}\n' >"$T_DIR/true.json"
run_sluice run "$T_DIR/true.json"
idt=$OUT
run_sluice run "$T_DIR/noop.json"
idn=$OUT
wait_for wf_is "$idn" completed
ok $? "-j 1: a built-in runs while the only process slot is taken"
is "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $idt")" ready \
    "-j 1: a second process waits for the slot"
touch "$T_DIR/release"
wait_for wf_is "$idt" completed
ok $? "it runs once the slot is free"
engine_stop

# --- many commands at once ------------------------------------------------------

# concurrent N: N "sluice run" at once; counts exits in $T_DIR/conc.*.
concurrent() {
	rm -f "$T_DIR"/conc.*
	_i=0
	_pids=""
	while [ "$_i" -lt "$1" ]; do
		_i=$((_i + 1))
		( "$SLUICE" run "$T_DIR/noop.json" >"$T_DIR/conc.$_i.out" \
		    2>"$T_DIR/conc.$_i.err" </dev/null
		  echo $? >"$T_DIR/conc.$_i.rc" ) &
		_pids="$_pids $!"
	done
	for _p in $_pids; do
		wait "$_p"
	done
}

before=$(q "SELECT count(*) FROM workflows")
concurrent 8
is "$(cat "$T_DIR"/conc.*.rc | sort | uniq -c | tr -s ' ')" " 8 0" \
    "eight commands at once with no engine all succeed"
is "$(cat "$T_DIR"/conc.*.err | sort -u)" "$offline" \
    "each says no engine runs"
q_is "SELECT count(*) - $before FROM workflows" 8 "eight workflows were started"
q_is "SELECT count(*) FROM inbox WHERE state = 'new'" 0 \
    "no command is left queued"

engine_start
concurrent 12
is "$(cat "$T_DIR"/conc.*.rc | sort | uniq -c | tr -s ' ')" " 12 0" \
    "twelve commands at once through the engine all succeed"
is "$(cat "$T_DIR"/conc.*.out | sort -n | uniq | wc -l | tr -d ' ')" 12 \
    "each command got its own workflow id"
ids=$(cat "$T_DIR"/conc.*.out | tr '\n' ',')
q_is "SELECT count(*) FROM workflows WHERE id IN (${ids%,})" 12 \
    "twelve workflows were started"
all_done() {
	[ "$(q "SELECT count(*) FROM workflows WHERE status = 'running'")" = 0 ]
}
wait_for all_done
ok $? "the engine runs them all"
engine_stop

# --- a follower whose engine dies ------------------------------------------------

rm -f "$T_DIR/release" "$T_DIR/hold.pid"
engine_start
"$SLUICE" run --wait "$T_DIR/hold.json" >"$T_DIR/w.out" 2>"$T_DIR/w.err" &
wpid=$!
ENGINES="$ENGINES $wpid"
wait_for test -s "$T_DIR/hold.pid"
ok $? "a follower's workflow runs"
# The step can start before the follower has printed the id.
wait_for test -s "$T_DIR/w.out"
idw=$(cat "$T_DIR/w.out")
engine_crash
touch "$T_DIR/release"
wait_for dead "$wpid"
ok $? "a follower does not wait forever for an engine that died"
kill -9 "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
engine_start
wait_for wf_is "$idw" completed
ok $? "the next engine finishes the workflow"
engine_stop

# --- the stale epoch (started at the top) ----------------------------------

SLUICE_DB=$T_DIR/stale.db
stale_gone() {
	dead "$spid"
}
wait_for stale_gone
ok $? "an engine whose epoch went stale stops"
wait "$spid"
rc=$?
[ "$rc" -ne 0 ]
ok $? "it exits with an error ($rc)"
like "$(cat "$T_DIR/stale.err")" "another engine took over" \
    "it says another engine took over"
q_is "SELECT epoch, pid FROM engine" "$((sep + 1))|$spid" \
    "the stale engine wrote nothing after the take-over"

# --- a command nobody answers stays queued (started at the top) -----------

SLUICE_DB=$T_DIR/queue.db
ok "$held" "a process that is not an engine holds the lock"
wait "$unanswered"
RC=$?
OUT=$(cat "$T_DIR/queue.out")
ERR=$(cat "$T_DIR/queue.err")
expect_rc 1 "run when the lock holder never answers"
like "$ERR" "sluice: the engine did not answer within 10 s; command " \
    "it says the engine did not answer"
cmd=$(q "SELECT max(id) FROM inbox")
is "$ERR" "sluice: the engine did not answer within 10 s; command $cmd stays queued" \
    "it names the queued command"
q_is "SELECT command, state FROM inbox WHERE id = $cmd" "start|new" \
    "the command stays in the inbox"
touch "$T_DIR/unlock"
wait "$holder"
engine_start
queued_done() {
	[ "$(q "SELECT state FROM inbox WHERE id = $cmd")" = done ]
}
wait_for queued_done
ok $? "the next engine applies the queued command"
idq=$(q "SELECT json_extract(reply, '$.workflow_id') FROM inbox
    WHERE id = $cmd")
wait_for wf_is "$idq" completed
ok $? "and runs the workflow it started"
engine_stop
SLUICE_DB=$main_db

done_testing
