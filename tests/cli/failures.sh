#!/bin/sh
# tests/cli/failures.sh: what happens when things go wrong: retries with
# backoff lists and exponential waits (tiny durations), stored retry timers
# across restarts, tool and site retry policies, timeouts with retries,
# cancel (process groups killed, gates and pending retries cancelled),
# operator retry and retry --from, skip, and pause/resume.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# waits WF NAME: the backoff each retry of NAME waited (ms), one a line:
# from the failed row's end to its successor becoming ready.
waits() {
	q "SELECT n.ready_at - p.completed_at FROM workflow_steps n
	    JOIN workflow_steps p ON n.parent_id = p.id
	    WHERE n.workflow_id = $1 AND n.name = '$2' AND p.name = '$2'
	    ORDER BY n.id"
}

# between LO HI LIST DESCRIPTION: every number in LIST is in [LO, HI].
between() {
	_bad=""
	for _v in $3; do
		if [ "$_v" -lt "$1" ] || [ "$_v" -gt "$2" ]; then
			_bad="$_bad $_v"
		fi
	done
	if [ -z "$_bad" ]; then
		ok 0 "$4"
	else
		ok 1 "$4"
		printf '#   out of [%s, %s]:%s (all: %s)\n' "$1" "$2" "$_bad" \
		    "$(echo $3)"
	fi
}

me=$(id -un)

cat >"$T_DIR/noop.json" <<'EOF'
{"start": {"tool": "noop"}}
EOF

# --- retry with backoff -------------------------------------------------------

cat >"$T_DIR/list.json" <<'EOF'
{"start": {"shell": "echo try $SLUICE_ATTEMPT; [ $SLUICE_ATTEMPT -ge 4 ]",
  "retry": {"max_attempts": 4, "backoff": ["10ms", "300ms"]}}}
EOF
wait_run "$T_DIR/list.json"
expect_rc 0 "a step that succeeds on its fourth attempt"
q_is "SELECT attempt, status, ifnull(error, '') FROM workflow_steps
    WHERE workflow_id = $ID ORDER BY id" "1|failed|exit status 1
2|failed|exit status 1
3|failed|exit status 1
4|done|" "each attempt is a new row"
q_is "SELECT count(*) FROM workflow_steps a JOIN workflow_steps b
    ON b.parent_id = a.id WHERE a.workflow_id = $ID" 3 \
    "each retry follows the attempt before"
w=$(waits "$ID" start)
set -- $w
between 10 250 "$1" "the first retry waits the first backoff (10ms)"
between 300 1500 "$2 $3" "later retries wait the last backoff again (300ms)"
q_is "SELECT visit FROM workflow_steps WHERE workflow_id = $ID
    GROUP BY visit" 1 "retries keep the visit"

cat >"$T_DIR/exp.json" <<'EOF'
{"start": {"shell": "[ $SLUICE_ATTEMPT -ge 5 ]",
  "retry": {"max_attempts": 5, "base": "100ms", "factor": 2, "max": "300ms"}}}
EOF
wait_run "$T_DIR/exp.json"
expect_rc 0 "exponential backoff"
set -- $(waits "$ID" start)
between 100 250 "$1" "first wait: base (100ms)"
between 200 400 "$2" "second wait: base * factor (200ms)"
between 300 550 "$3 $4" "then capped at max (300ms)"

cat >"$T_DIR/jitter.json" <<'EOF'
{"start": {"shell": "[ $SLUICE_ATTEMPT -ge 4 ]",
  "retry": {"max_attempts": 4, "base": "200ms", "factor": 1, "jitter": 0.5}}}
EOF
wait_run "$T_DIR/jitter.json"
expect_rc 0 "exponential backoff with jitter"
between 100 450 "$(waits "$ID" start)" "jitter keeps each wait within base ± 50%"

cat >"$T_DIR/exhaust.json" <<'EOF'
{"start": {"tool": "noop", "next": "flaky"},
 "flaky": {"shell": "echo nope >&2; exit 2",
  "retry": {"max_attempts": 3, "backoff": ["0s"]}}}
EOF
wait_run "$T_DIR/exhaust.json"
expect_rc 1 "the last failed attempt fails the workflow"
is "$ERR" "sluice: workflow $ID failed: step flaky failed after 3 attempts: exit status 2" \
    "it says how many attempts"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'flaky'" 3 "exactly max_attempts rows"

# The default policy: 3 attempts, waiting 5 s first; the wait is a stored timer.
cat >"$T_DIR/default.json" <<'EOF'
{"start": {"run": ["false"]}}
EOF
engine_start
run_sluice run "$T_DIR/default.json"
idd=$OUT
pending2() {
	[ "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $idd
	    AND attempt = 2")" = pending ]
}
wait_for pending2
ok $? "after a failure the next attempt is pending"
q_is "SELECT t.kind, t.due_at - p.completed_at BETWEEN 4900 AND 5500
    FROM timers t JOIN workflow_steps s ON t.step_id = s.id
    JOIN workflow_steps p ON s.parent_id = p.id
    WHERE s.workflow_id = $idd" "retry|1" \
    "a stored timer makes it ready after the default 5 s"
run_sluice cancel "$idd"
expect_rc 0 "cancel a workflow waiting to retry"
q_is "SELECT attempt, status FROM workflow_steps WHERE workflow_id = $idd
    ORDER BY id" "1|failed
2|cancelled" "the pending retry is cancelled"
q_is "SELECT count(*) FROM timers WHERE workflow_id = $idd" 0 \
    "and its timer is gone"
engine_stop

# A stored retry timer survives an engine restart.
cat >"$T_DIR/restart.json" <<'EOF'
{"start": {"shell": "[ $SLUICE_ATTEMPT -ge 2 ]",
  "retry": {"max_attempts": 2, "backoff": ["1s"]}}}
EOF
engine_start
run_sluice run "$T_DIR/restart.json"
idr=$OUT
wait_for step_is "$idr" start pending
ok $? "the retry is pending"
engine_stop
is "$(col "$idr" start status)" pending "it stays pending with no engine"
engine_start
wait_for wf_is "$idr" completed
ok $? "the next engine re-arms the timer and runs the retry"
engine_stop

# A tool's retry policy, and a step's that overrides it.
cat >"$T_DIR/tools.json" <<'EOF'
{"flaky": {"shell": "[ \"$SLUICE_ATTEMPT\" -ge 3 ]",
  "retry": {"max_attempts": 3, "backoff": ["0s"]}}}
EOF
cat >"$T_DIR/toolretry.json" <<'EOF'
{"start": {"tool": "flaky", "next": "b"},
 "b": {"tool": "flaky", "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF
run_sluice --tools "$T_DIR/tools.json" run --wait "$T_DIR/toolretry.json"
ID=$(new_id)
expect_rc 1 "a step's retry overrides its tool's"
q_is "SELECT name, attempt, status FROM workflow_steps WHERE
    workflow_id = $ID ORDER BY id" "start|1|failed
start|2|failed
start|3|done
b|1|failed
b|2|failed" "the tool allows 3 attempts, the step only 2"

# The site's default retry from config.json.
printf '{"retry": {"max_attempts": 2, "backoff": ["0s"]}}\n' \
    >"$XDG_CONFIG_HOME/sluice/config.json"
printf '{"start": {"run": ["false"]}}\n' >"$T_DIR/site.json"
wait_run "$T_DIR/site.json"
expect_rc 1 "the config file's retry applies to steps with none"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID" 2 \
    "two attempts, as the config says"
rm -f "$XDG_CONFIG_HOME/sluice/config.json"

# --- timeouts with retries -----------------------------------------------------------

cat >"$T_DIR/timeout.json" <<EOF
{"start": {"shell": "if [ \$SLUICE_ATTEMPT -eq 1 ]; then trap '' TERM; echo \$\$ >$T_DIR/to.pid; while :; do sleep 0.05; done; fi; echo second",
  "timeout": "300ms", "retry": {"max_attempts": 2, "backoff": ["0s"]}}}
EOF
wait_run "$T_DIR/timeout.json"
expect_rc 0 "a timed-out attempt is retried"
q_is "SELECT attempt, status, ifnull(error, ''), exit_code,
    completed_at - started_at < 3000 FROM workflow_steps WHERE
    workflow_id = $ID ORDER BY id" "1|failed|timeout|137|1
2|done||0|1" "the stubborn attempt was killed after the grace and timed out"
dead "$(cat "$T_DIR/to.pid")"
ok $? "its process is gone"

# --- cancel -----------------------------------------------------------------------------

cat >"$T_DIR/cancel.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b", "g", "r"]},
 "a": {"shell": "sleep 30 & echo \$! >$T_DIR/gc.pid; echo \$\$ >$T_DIR/a.pid; wait", "next": "a2"},
 "a2": {"tool": "noop"},
 "b": {"shell": "trap '' TERM; echo \$\$ >$T_DIR/b.pid; while :; do sleep 0.05; done"},
 "g": {"gate": {"message": "never"}},
 "r": {"run": ["false"], "retry": {"max_attempts": 2, "backoff": ["1h"]}}}
EOF
engine_start
run_sluice run "$T_DIR/cancel.json"
idc=$OUT
all_up() {
	[ -s "$T_DIR/a.pid" ] && [ -s "$T_DIR/gc.pid" ] && [ -s "$T_DIR/b.pid" ] &&
	    step_is "$idc" g waiting && step_is "$idc" r pending
}
wait_for all_up
ok $? "steps run, a gate waits and a retry is pending"
ap=$(cat "$T_DIR/a.pid")
gc=$(cat "$T_DIR/gc.pid")
bp=$(cat "$T_DIR/b.pid")
run_sluice cancel "$idc" -m "enough"
expect_rc 0 "cancel a running workflow"
is "$OUT" "cancelled workflow $idc" "cancel says so"
q_is "SELECT status, cancelled_at IS NOT NULL FROM workflows WHERE id = $idc" \
    "cancelled|1" "the workflow is cancelled"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $idc
    AND status NOT IN ('done', 'failed') ORDER BY id" "a|cancelled
b|cancelled
g|cancelled
r|cancelled" "every unfinished row is cancelled at once"
wait_for dead "$ap"
ok $? "the running step's process is killed"
wait_for dead "$gc"
ok $? "and its grandchild (the whole group)"
wait_for dead "$bp"
ok $? "a step that ignores SIGTERM is killed after the grace"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $idc
    AND name = 'a2'" 0 "nothing follows a cancelled step"
q_is "SELECT count(*) FROM timers WHERE workflow_id = $idc" 0 \
    "no timer is left"
run_sluice gates --json
is "$OUT" "[]" "the cancelled gate left the queue"
q_is "SELECT who, comment FROM audit WHERE action = 'cancel' AND
    workflow_id = $idc" "$me|enough" "the cancel is audited with its comment"
run_sluice cancel "$idc"
expect_rc 4 "cancelling it again is refused"
is "$ERR" "sluice: cannot cancel workflow $idc: it is cancelled" "it says why"
run_sluice cancel 99999
expect_rc 3 "cancel of an unknown workflow"
engine_stop

# --- operator retry ------------------------------------------------------------------------

cat >"$T_DIR/opretry.json" <<EOF
{"start": {"shell": "echo x >>$T_DIR/start.runs", "next": "b"},
 "b": {"shell": "echo b >>$T_DIR/b.runs; [ -f $T_DIR/fixed ]",
   "retry": {"max_attempts": 1}, "next": "c"},
 "c": {"shell": "echo c >>$T_DIR/c.runs"}}
EOF
wait_run "$T_DIR/opretry.json"
expect_rc 1 "a workflow fails at b"
idr=$ID
run_sluice retry "$idr" --from nosuch
expect_rc 2 "retry --from an unknown step"
is "$ERR" "sluice: workflow $idr has no step \"nosuch\"" "it names the step"
run_sluice retry "$idr" --from c
expect_rc 4 "retry --from a step that never ran"
is "$ERR" "sluice: step c of workflow $idr never ran; retry --from a step that did" \
    "it says the step never ran"
q_is "SELECT status FROM workflows WHERE id = $idr" failed \
    "refused retries leave the workflow failed"
touch "$T_DIR/fixed"
engine_start
run_sluice retry "$idr"
expect_rc 0 "retry a failed workflow"
is "$OUT" "retrying workflow $idr: b" "it names what runs again"
wait_for wf_is "$idr" completed
ok $? "the workflow completes"
q_is "SELECT name, attempt, status FROM workflow_steps WHERE
    workflow_id = $idr ORDER BY id" "start|1|done
b|1|failed
b|1|done
c|1|done" "completed steps are kept; the failed step runs anew"
is "$(wc -l <"$T_DIR/start.runs" | tr -d ' ')" 1 "start did not run again"
q_is "SELECT error FROM workflows WHERE id = $idr" "" "the old error is gone"
q_is "SELECT who, comment FROM audit WHERE action = 'retry' AND
    workflow_id = $idr" "$me|b" "the retry is audited"
run_sluice retry "$idr"
expect_rc 4 "retry of a completed workflow is refused"
is "$ERR" "sluice: workflow $idr is completed: only a failed or cancelled workflow can be retried" \
    "it says why"
run_sluice retry 99999
expect_rc 3 "retry of an unknown workflow"

rm -f "$T_DIR/fixed"
cat >"$T_DIR/hold.json" <<EOF
{"start": {"shell": "i=0; while [ ! -f $T_DIR/fixed ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done"}}
EOF
run_sluice run "$T_DIR/hold.json"
idh=$OUT
wait_for step_is "$idh" start running
run_sluice retry "$idh"
expect_rc 4 "retry of a running workflow is refused"
is "$ERR" "sluice: workflow $idh is running: only a failed or cancelled workflow can be retried" \
    "it says the workflow is running"
touch "$T_DIR/fixed"
wait_for wf_is "$idh" completed

# --from: that step and what follows run again.
run_sluice retry "$idr" --from b
expect_rc 4 "retry --from on a completed workflow is refused"
engine_stop
rm -f "$T_DIR/b.runs" "$T_DIR/c.runs"
printf '{"start": {"tool": "noop", "next": "b"}, "b": {"shell": "echo b >>%s/b.runs", "next": "c"}, "c": {"run": ["false"], "retry": {"max_attempts": 1}}}\n' \
    "$T_DIR" >"$T_DIR/from.json"
wait_run "$T_DIR/from.json"
expect_rc 1 "a workflow fails at c"
idf=$ID
engine_start
run_sluice retry "$idf" --from b
expect_rc 0 "retry --from an earlier step"
is "$OUT" "retrying workflow $idf: b" "it names the step"
wait_for wf_ended "$idf"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $idf
    ORDER BY id" "start|done
b|done
c|failed
b|done
c|failed" "b runs again and what follows it"
is "$(wc -l <"$T_DIR/b.runs" | tr -d ' ')" 2 "b ran twice in all"
q_is "SELECT json_extract(detail_json, '$.from') FROM audit WHERE
    action = 'retry' AND workflow_id = $idf" b "the audit records --from"

# A cancelled workflow's cancelled rows run again; a failed fan-out branch too.
cat >"$T_DIR/fanretry.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "j"},
 "a": {"shell": "[ -f $T_DIR/afixed ]", "retry": {"max_attempts": 1}},
 "b": {"shell": "i=0; while [ ! -f $T_DIR/afixed ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done"},
 "j": {"tool": "noop"}}
EOF
rm -f "$T_DIR/afixed"
run_sluice run "$T_DIR/fanretry.json"
ida=$OUT
wait_for wf_ended "$ida"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $ida
    ORDER BY id" "start|done
a|failed
b|cancelled" "a failed branch fails the fan-out; the other is cancelled"
touch "$T_DIR/afixed"
run_sluice retry "$ida"
expect_rc 0 "retry the fan-out"
is "$OUT" "retrying workflow $ida: a, b" "both branches run again"
wait_for wf_is "$ida" completed
ok $? "the join is reached"
q_is "SELECT name, branch_no, ifnull(branch_end, '-') FROM workflow_steps
    WHERE workflow_id = $ida AND status = 'done' ORDER BY id" "start||-
a|0|join
b|1|join
j||-" "the new rows stay in their branches and the join runs"

rm -f "$T_DIR/fixed"
run_sluice run "$T_DIR/hold.json"
idx=$OUT
wait_for step_is "$idx" start running
run_sluice cancel "$idx"
wait_for wf_is "$idx" cancelled
touch "$T_DIR/fixed"
run_sluice retry "$idx"
expect_rc 0 "retry a cancelled workflow"
is "$OUT" "retrying workflow $idx: start" "the cancelled step runs again"
wait_for wf_is "$idx" completed
ok $? "and completes"

# --- skip ------------------------------------------------------------------------------------

cat >"$T_DIR/skipgate.json" <<'EOF'
{"start": {"gate": {"message": "skip me"}, "next": "b"},
 "b": {"tool": "echo", "args": {"got": "{{steps.start.result}}"}}}
EOF
run_sluice run "$T_DIR/skipgate.json"
ids=$OUT
wait_for step_is "$ids" start waiting
g=$(step_id "$ids" start)
before=$(db_digest)
run_sluice skip "$g"
expect_rc 2 "skip without -m is a usage error"
is "$(db_digest)" "$before" "and writes nothing"
run_sluice skip "$g" -m "not needed"
expect_rc 0 "skip a waiting gate"
is "$OUT" "skipped step $g (start)" "skip says so"
wait_for wf_is "$ids" completed
ok $? "the run goes on as if the gate completed"
is "$(col "$ids" start "status || '|' || result_json || '|' || error")" \
    "skipped|null|skipped by $me: not needed" "the row is skipped with a null result"
is "$(col "$ids" b result_json)" '{"got":null}' "what follows sees a null result"
q_is "SELECT who, comment, step_id FROM audit WHERE action = 'skip' AND
    workflow_id = $ids" "$me|not needed|$g" "the skip is audited"
run_sluice skip "$g" -m again
expect_rc 4 "a skipped step cannot be skipped again"
is "$ERR" "sluice: step $g (start) is skipped: only a waiting or pending step, or the failed step that ended its workflow, can be skipped" \
    "it says which steps can be skipped"
run_sluice skip 99999 -m x
expect_rc 3 "skip of an unknown step"

printf '{"start": {"run": ["false"], "retry": {"max_attempts": 1}, "next": "b"}, "b": {"tool": "noop"}}\n' \
    >"$T_DIR/skipfail.json"
run_sluice run "$T_DIR/skipfail.json"
idk=$OUT
wait_for wf_is "$idk" failed
run_sluice skip "$(step_id "$idk" start)" -m "known problem"
expect_rc 0 "skip the failed step of a failed workflow"
wait_for wf_is "$idk" completed
ok $? "the workflow re-opens and completes"
q_is "SELECT name, status FROM workflow_steps WHERE workflow_id = $idk
    ORDER BY id" "start|skipped
b|done" "the failed row became skipped and the next step ran"

printf '{"start": {"run": ["false"], "retry": {"max_attempts": 2, "backoff": ["1h"]}, "next": "b"}, "b": {"tool": "noop"}}\n' \
    >"$T_DIR/skippend.json"
run_sluice run "$T_DIR/skippend.json"
idp=$OUT
wait_for step_is "$idp" start pending
run_sluice skip "$(step_id "$idp" start)" -m "no need to wait"
expect_rc 0 "skip a pending retry"
wait_for wf_is "$idp" completed
ok $? "the workflow goes on without waiting"
q_is "SELECT count(*) FROM timers WHERE workflow_id = $idp" 0 \
    "the retry's timer is gone"

# --- pause and resume ---------------------------------------------------------------------------

rm -f "$T_DIR/go"
cat >"$T_DIR/pause.json" <<EOF
{"start": {"shell": "i=0; while [ ! -f $T_DIR/go ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done", "next": "b"},
 "b": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/pause.json"
idq=$OUT
wait_for step_is "$idq" start running
run_sluice pause "$idq"
expect_rc 0 "pause a running workflow"
is "$OUT" "paused workflow $idq" "pause says so"
run_sluice show --json "$idq"
like "$OUT" '"paused": true' "show says it is paused"
run_sluice pause "$idq"
expect_rc 4 "pausing a paused workflow is refused"
is "$ERR" "sluice: workflow $idq is already paused" "it says so"
touch "$T_DIR/go"
wait_for step_is "$idq" start done
ok $? "the running step finishes while paused"
wait_for step_is "$idq" b ready
ok $? "the next step is ready"
# The engine answers commands in order: once this refusal is answered,
# everything before it has been seen, and b has still not started.
run_sluice pause "$idq"
is "$(col "$idq" b status)" ready "a paused workflow starts nothing new"
is "$(q "SELECT status FROM workflows WHERE id = $idq")" running \
    "a paused workflow is still running"
run_sluice resume "$idq"
expect_rc 0 "resume"
is "$OUT" "resumed workflow $idq" "resume says so"
wait_for wf_is "$idq" completed
ok $? "the workflow goes on after resume"
run_sluice resume "$idq"
expect_rc 4 "resuming an ended workflow is refused"
is "$ERR" "sluice: cannot resume workflow $idq: it is completed" "it says why"
q_is "SELECT group_concat(action, ',') FROM (SELECT action FROM audit
    WHERE workflow_id = $idq AND action IN ('pause', 'resume')
    ORDER BY id)" "pause,resume" "pause and resume are audited"

rm -f "$T_DIR/go"
run_sluice run "$T_DIR/pause.json"
idu=$OUT
wait_for step_is "$idu" start running
run_sluice resume "$idu"
expect_rc 4 "resuming a workflow that is not paused is refused"
is "$ERR" "sluice: workflow $idu is not paused" "it says so"
touch "$T_DIR/go"
wait_for wf_is "$idu" completed

# Paused across an engine restart: the ready step waits for resume.
rm -f "$T_DIR/go"
run_sluice run "$T_DIR/pause.json"
idv=$OUT
wait_for step_is "$idv" start running
run_sluice pause "$idv"
touch "$T_DIR/go"
wait_for step_is "$idv" b ready
engine_stop
engine_start
run_sluice pause "$idv"
expect_rc 4 "the pause survives an engine restart"
is "$(col "$idv" b status)" ready "the new engine does not start the paused step"
run_sluice resume "$idv"
wait_for wf_is "$idv" completed
ok $? "resume lets it go on"
engine_stop

# --- commands with no engine ---------------------------------------------------------

printf '{"start": {"tool": "noop", "next": "b"}, "b": {"tool": "noop"}}\n' \
    >"$T_DIR/two.json"
run_sluice run "$T_DIR/two.json"
ido=$OUT
run_sluice cancel "$ido" -m "offline"
expect_rc 0 "cancel with no engine"
is "$OUT" "cancelled workflow $ido" "cancel says so"
like "$ERR" "warning: no engine is running" "and warns"
q_is "SELECT w.status, s.status FROM workflows w JOIN workflow_steps s
    ON s.workflow_id = w.id WHERE w.id = $ido" "cancelled|cancelled" \
    "the workflow and its ready step are cancelled"
run_sluice retry "$ido"
expect_rc 0 "retry with no engine"
is "$(col "$ido" start status)" ready "the step is ready again"
run_sluice pause "$ido"
expect_rc 0 "pause with no engine"
run_sluice resume "$ido"
expect_rc 0 "resume with no engine"
engine_start
wait_for wf_is "$ido" completed
ok $? "the next engine runs what was recorded"
engine_stop

# --- retry of a workflow that failed without a failed step ---------------------

# A rejected gate (no branch) and an unmatched branch end a workflow as
# failed with every row done.  A retry must not turn that into completed
# while what follows never ran.
cat >"$T_DIR/rejected.json" <<'EOF'
{"start": {"gate": {"message": "ship?"}, "next": "deploy"},
 "deploy": {"tool": "noop"}}
EOF
cat >"$T_DIR/unmatched.json" <<'EOF'
{"start": {"tool": "echo", "args": {"v": 1},
   "branch": [{"if": "result.v == 2", "then": "deploy"}]},
 "deploy": {"tool": "noop"}}
EOF
engine_start
run_sluice run "$T_DIR/rejected.json"
idj=$OUT
wait_for step_is "$idj" start waiting
run_sluice reject "$(step_id "$idj" start)" -m "no"
wait_for wf_is "$idj" failed
wait_run "$T_DIR/unmatched.json"
idm=$ID
# settled WF: ended, or waiting at a gate again (the rejected gate asks
# anew).
settled() {
	wf_ended "$1" || [ "$(q "SELECT count(*) FROM workflow_steps
	    WHERE workflow_id = $1 AND status = 'waiting'")" -gt 0 ]
}
for w in "$idj:a rejected gate" "$idm:an unmatched branch"; do
	wid=${w%%:*}
	run_sluice retry "$wid"
	wait_for settled "$wid"
	st=$(q "SELECT status FROM workflows WHERE id = $wid")
	ran=$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $wid
	    AND name = 'deploy'")
	if [ "$st" = completed ] && [ "$ran" = 0 ]; then
		ok 1 "retry after ${w#*:} does not complete the workflow with deploy never run"
		printf '#   retry said: %s; status %s, deploy rows %s\n' \
		    "$OUT" "$st" "$ran"
	else
		ok 0 "retry after ${w#*:} does not complete the workflow with deploy never run"
	fi
done
engine_stop

done_testing
