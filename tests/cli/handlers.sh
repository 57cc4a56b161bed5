#!/bin/sh
# tests/cli/handlers.sh: a run's "on_failure" and "finally" handlers
# (SPEC §3).  on_failure runs when the run would fail (a failed step
# with no handler, a branch with no match, a rejected gate with nothing
# after it) and the run still ends failed; finally runs after every end
# (completed, failed, cancelled, deadline); both see {{workflow.status}}
# and {{workflow.error}}; a handler that fails is recorded and the run
# ends failed; the run's end is announced once, after its handlers; a
# second cancel kills a running finally; a kill -9 of the engine while a
# handler runs, or while a deadline is pending, leaves the next engine
# to go on with it, once.  check refuses what a handler cannot be.  A
# handler may be any step kind: an on_failure gate waits for people (and
# rejected, fails the run with both reasons), a finally sub-workflow runs a
# child run, a finally wait step is completed from outside.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

out="$T_DIR/seen"
ev="$T_DIR/ev"
mkdir -p "$out" "$ev"

# The notify command: one line per event and run, saying whether the
# run's finally handler had written its file by then.
cat >"$T_DIR/rec.sh" <<EOF
#!/bin/sh
cat >/dev/null
if [ -e "$out/\$SLUICE_WORKFLOW_ID.finally" ]; then w=after; else w=before; fi
echo "\$w" >>"$ev/\$SLUICE_EVENT.\$SLUICE_WORKFLOW_ID"
EOF
chmod +x "$T_DIR/rec.sh"
printf '{"notify": [{"on": ["workflow_failed", "workflow_completed"], "run": ["%s"]}]}\n' \
    "$T_DIR/rec.sh" >"$SLUICE_SITE_CONFIG"

# seen WHICH [SLEEP]: a handler that writes the status and the error it
# saw to $out/RUN.WHICH (after SLEEP seconds, its pid in $out/RUN.WHICH.pid).
seen() {
	printf '{"run": ["sh", "-c", "echo $$ >%s/$3.%s.pid; sleep %s; printf %%s\\\\|%%s \\"$1\\" \\"$2\\" >>%s/$3.%s", "h", "{{workflow.status}}", "{{workflow.error}}", "{{workflow.id}}"]}' \
	    "$out" "$1" "${2:-0}" "$out" "$1"
}

# saw ID WHICH: what handler WHICH of run ID saw.
saw() {
	cat "$out/$1.$2" 2>/dev/null
}

# rows ID: the run's rows, key:status, in order.
rows() {
	q "SELECT group_concat(step_key || ':' || status, ' ') FROM
	    (SELECT * FROM workflow_steps WHERE workflow_id = $1 ORDER BY id)"
}

# --- check -----------------------------------------------------------------------

cat >"$T_DIR/fail.json" <<EOF
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": $(seen on_failure),
 "finally": $(seen finally)}
EOF
run_sluice check "$T_DIR/fail.json"
expect_rc 0 "a flow with handlers is valid"
like "$OUT" "valid flow, 1 step and 2 handlers" \
    "handlers are not counted as steps, nor unreachable"

check_bad() {
	printf '%s\n' "$1" >"$T_DIR/bad.json"
	run_sluice check "$T_DIR/bad.json"
	expect_rc 2 "$2 is refused"
	like "$ERR" "$3" "at its path, saying why"
}
check_bad '{"start": {"tool": "noop"}, "finally": "cleanup"}' \
    "a handler that is not a step object" \
    '$.finally: "finally" must be a step object'
check_bad '{"start": {"tool": "noop"},
 "on_failure": {"tool": "noop", "next": "start"}}' \
    "a transition in a handler" \
    '$.on_failure.next: "next" has no place in "on_failure"'
check_bad '{"start": {"tool": "noop", "next": "finally"},
 "finally": {"tool": "noop"}}' "a step leading to a handler" \
    "\$.start.next: \"finally\" is the run's \"finally\" handler"
check_bad '{"start": {"tool": "noop"},
 "finally": {"tool": "noop", "retries": 2}}' \
    "an unknown field in a handler" '$.finally.retries'
check_bad '{"start": {"tool": "noop"}, "finally": {"tool": "nosuch"}}' \
    "a handler naming an unknown tool" '$.finally.tool'
check_bad '{"start": {"tool": "noop"},
 "finally": {"foreach": [1], "do": {"tool": "noop"}}}' \
    "a for-each handler" '$.finally.foreach'
check_bad '{"description": "x", "finally": {"tool": "noop"},
 "flow": {"start": {"tool": "noop"}, "finally": {"tool": "noop"}}}' \
    "a handler both in a template's wrapper and its flow" \
    '"finally" is given both here and in the flow'
check_bad '{"description": "x", "finally": {"tool": "nosuch"},
 "flow": {"start": {"tool": "noop"}}}' \
    "a wrapper's handler naming an unknown tool" \
    '$.finally.tool: unknown tool "nosuch"'
check_bad '{"description": "x", "inputs": {"x": {}},
 "on_failure": {"tool": "echo", "args": {"a": "{{input.nope}}"}},
 "flow": {"start": {"tool": "noop"}}}' \
    "a wrapper's handler reading an undeclared input" \
    '$.on_failure.args.a: unknown input "nope"'
cat >"$T_DIR/wrap.json" <<'EOF'
{"description": "x", "on_failure": {"tool": "noop"},
 "flow": {"start": {"tool": "noop"}}}
EOF
run_sluice template save wrap "$T_DIR/wrap.json"
expect_rc 0 "a template's wrapper takes a handler"

# --- a failed step: on_failure, then finally -------------------------------------

engine_start
run_sluice run "$T_DIR/fail.json"
ID=$OUT
wait_for wf_is "$ID" failed
ok $? "a failing run with handlers ends failed"
is "$(saw "$ID" on_failure)" "failed|step start failed: boom" \
    "on_failure saw the status and the error"
is "$(saw "$ID" finally)" "failed|step start failed: boom" "finally too"
is "$(rows "$ID")" "start:failed on_failure:done finally:done" \
    "on_failure runs first, then finally, once each"
q_is "SELECT error || '|' || coalesce(ending, '-') FROM workflows
    WHERE id = $ID" "step start failed: boom|-" \
    "the run keeps its own reason"
wait_for test -f "$ev/workflow_failed.$ID"
is "$(cat "$ev/workflow_failed.$ID")" "after" \
    "workflow_failed is announced once, after the handlers"
run_sluice show "$ID"
is "$(printf '%s\n' "$OUT" | sed -n 's/^[0-9]*  *\(on failure\|finally\)  *\([a-z]*\) .*/\1 \2/p' |
    tr '\n' ,)" "on failure done,finally done," \
    "show lists the handlers after the steps, as \"on failure\", \"finally\""
run_sluice show --json "$ID"
is "$(printf '%s' "$OUT" | jq -r '[.steps[] | .handler // "-"] | join(" ")')" \
    "- on_failure finally" "show --json marks the handlers' rows"

# A retry runs the failed step again, not the handlers; they run again
# when the run ends again.
run_sluice retry "$ID"
expect_rc 0 "retry a run whose handlers ran"
wait_for wf_is "$ID" failed
ok $? "it fails again"
is "$(rows "$ID")" \
    "start:failed on_failure:done finally:done start:failed on_failure:done finally:done" \
    "its handlers ran again at its second end, after the step"
is "$(cat "$out/$ID.on_failure")" \
    "failed|step start failed: boomfailed|step start failed: boom" \
    "on_failure ran twice in all, once per end"
run_sluice retry "$ID" --from on_failure
expect_rc 2 "retry --from a handler is refused"
like "$ERR" '"on_failure" is workflow '"$ID""'s on_failure handler" "saying why"

# --- the DAG form: a failed dependency ---------------------------------------

cat >"$T_DIR/dag.json" <<EOF
{"a": {"tool": "fail", "args": {"message": "x"}, "retry": {"max_attempts": 1}},
 "b": {"tool": "noop", "depends_on": ["a"]},
 "on_failure": $(seen on_failure),
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/dag.json"
ID=$OUT
wait_for wf_is "$ID" failed
ok $? "a DAG run whose dependency fails ends failed"
is "$(saw "$ID" on_failure)|$(saw "$ID" finally)" \
    "failed|step a failed: x|failed|step a failed: x" \
    "its handlers ran, on_failure then finally"

# --- a branch with no match --------------------------------------------------------

cat >"$T_DIR/branch.json" <<EOF
{"start": {"tool": "echo", "args": {"v": 3},
   "branch": [{"if": "result.v == 1", "then": "one"}]},
 "one": {"tool": "noop"},
 "on_failure": $(seen on_failure)}
EOF
run_sluice run "$T_DIR/branch.json"
ID=$OUT
wait_for wf_is "$ID" failed
ok $? "a branch with no match fails the run"
is "$(saw "$ID" on_failure)" \
    'failed|step start: no branch matched its result {"v":3}' \
    "on_failure runs, seeing why"

# --- a rejected gate with nothing after it -------------------------------------

cat >"$T_DIR/gate.json" <<EOF
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"tool": "noop"},
 "on_failure": $(seen on_failure)}
EOF
run_sluice run "$T_DIR/gate.json"
ID=$OUT
wait_for step_is "$ID" start waiting
run_sluice reject "$(step_id "$ID" start)" -m "not today"
wait_for wf_is "$ID" failed
ok $? "a rejected gate fails the run"
is "$(saw "$ID" on_failure)" 'failed|gate start: rejected by '"$(id -un)"': not today' \
    "on_failure runs, seeing the rejection"
is "$(rows "$ID")" "start:done on_failure:done" "nothing after the gate runs"

# --- finally after a completed run; on_failure not needed -----------------------

cat >"$T_DIR/ok.json" <<EOF
{"start": {"tool": "noop"},
 "on_failure": $(seen on_failure),
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/ok.json"
ID=$OUT
wait_for wf_is "$ID" completed
ok $? "a run whose steps succeed completes"
is "$(saw "$ID" finally)" "completed|" \
    "finally saw completed and no error"
is "$(rows "$ID")" "start:done finally:done" "on_failure did not run"
wait_for test -f "$ev/workflow_completed.$ID"
is "$(cat "$ev/workflow_completed.$ID")" "after" \
    "workflow_completed is announced once, after finally"

# --- a failing handler ---------------------------------------------------------------

cat >"$T_DIR/badfin.json" <<'EOF'
{"start": {"tool": "noop"},
 "finally": {"run": ["sh", "-c", "echo no cleanup >&2; exit 3"],
   "retry": {"max_attempts": 1}}}
EOF
run_sluice run "$T_DIR/badfin.json"
ID=$OUT
wait_for wf_is "$ID" failed
ok $? "a run whose finally fails ends failed"
q_is "SELECT error FROM workflows WHERE id = $ID" \
    "handler finally failed: exit status 3" "its reason names the handler"
is "$(rows "$ID")" "start:done finally:failed" "the handler's row is failed"
cat >"$T_DIR/badfail.json" <<EOF
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": {"tool": "fail", "args": {"message": "pager down"},
   "retry": {"max_attempts": 1}},
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/badfail.json"
ID=$OUT
wait_for wf_is "$ID" failed
q_is "SELECT error FROM workflows WHERE id = $ID" \
    "step start failed: boom; handler on_failure failed: pager down" \
    "a failing on_failure adds its reason to the run's"
is "$(saw "$ID" finally)" \
    "failed|step start failed: boom; handler on_failure failed: pager down" \
    "finally still runs after it, and sees both"

# --- finally after a cancel; a second cancel kills it ----------------------------

cat >"$T_DIR/slow.json" <<EOF
{"start": {"run": ["sleep", "60"]},
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/slow.json"
ID=$OUT
wait_for step_is "$ID" start running
run_sluice cancel "$ID"
expect_rc 0 "cancel"
wait_for wf_is "$ID" cancelled
ok $? "a cancelled run ends cancelled"
is "$(saw "$ID" finally)" "cancelled|" "finally ran, seeing cancelled"
is "$(rows "$ID")" "start:cancelled finally:done" \
    "the running step was cancelled first"

cat >"$T_DIR/slowfin.json" <<EOF
{"start": {"run": ["sleep", "60"]},
 "finally": $(seen finally 60)}
EOF
run_sluice run "$T_DIR/slowfin.json"
ID=$OUT
wait_for step_is "$ID" start running
run_sluice cancel "$ID"
is "$OUT" "cancelling workflow $ID: its finally handler runs first (cancel again to kill it)" \
    "cancel says the handler runs first"
wait_for test -s "$out/$ID.finally.pid"
ok $? "the first cancel starts finally"
q_is "SELECT status || '|' || ending FROM workflows WHERE id = $ID" \
    "running|cancelled" "the run is running its handler, ending cancelled"
pid=$(cat "$out/$ID.finally.pid")
run_sluice cancel "$ID"
is "$RC|$OUT" "0|cancelled workflow $ID" "a second cancel"
wait_for wf_is "$ID" cancelled
ok $? "ends the run"
wait_for dead "$pid"
ok $? "killing its finally"
is "$(rows "$ID")" "start:cancelled finally:cancelled" "both rows cancelled"

# --- finally after a deadline ------------------------------------------------------

cat >"$T_DIR/late.json" <<EOF
{"deadline": "1s", "start": {"run": ["sleep", "60"]},
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/late.json"
ID=$OUT
wait_for wf_is "$ID" cancelled
ok $? "a run past its deadline is cancelled"
is "$(saw "$ID" finally)" "cancelled|deadline passed" \
    "finally ran, seeing the deadline"

# --- kill -9 while a handler runs ------------------------------------------------

cat >"$T_DIR/crash.json" <<EOF
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": $(seen on_failure 2)}
EOF
run_sluice run "$T_DIR/crash.json"
ID=$OUT
wait_for test -s "$out/$ID.on_failure.pid"
ok $? "on_failure is running"
engine_crash
q_is "SELECT status || '|' || ending || '|' || error FROM workflows
    WHERE id = $ID" "running|failed|step start failed: boom" \
    "the ending is on the run's row when the engine dies"
engine_start
wait_for wf_is "$ID" failed
ok $? "the next engine goes on with the handler and ends the run failed"
is "$(saw "$ID" on_failure)" "failed|step start failed: boom" \
    "the handler ran to its end once, seeing the same"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID
    AND step_key = 'on_failure' AND status = 'done'" 1 \
    "one handler row is done"

# --- kill -9 while a deadline is pending --------------------------------------

cat >"$T_DIR/crashlate.json" <<EOF
{"deadline": "3s", "start": {"run": ["sleep", "60"]},
 "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/crashlate.json"
ID=$OUT
wait_for step_is "$ID" start running
engine_crash
engine_start
wait_for wf_is "$ID" cancelled
ok $? "after kill -9 the next engine cancels the run at its deadline"
is "$(saw "$ID" finally)" "cancelled|deadline passed" \
    "and runs its finally, once"

# --- handlers of every kind: a gate, a wait step, a sub-workflow ---------------

cat >"$T_DIR/tidy.json" <<EOF
{"description": "tidy up after a run", "inputs": {"why": {}},
 "flow": {"start": {"run": ["sh", "-c", "printf %s \\"\$1\\" >$out/child.\$2",
   "c", "{{input.why}}", "{{workflow.id}}"]}}}
EOF
run_sluice template save tidy "$T_DIR/tidy.json"
expect_rc 0 "a child template for a handler is saved"
cat >"$T_DIR/kinds.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": {"gate": {"message": "acknowledge: {{workflow.error}}"}},
 "finally": {"workflow": "tidy", "input": {"why": "{{workflow.status}}"}}}
EOF
run_sluice check "$T_DIR/kinds.json"
expect_rc 0 "a gate and a sub-workflow may be handlers"
run_sluice run "$T_DIR/kinds.json"
ID=$OUT
wait_for step_is "$ID" on_failure waiting
ok $? "an on_failure gate waits for people once the run would fail"
q_is "SELECT status FROM workflows WHERE id = $ID" running \
    "the run has not ended while its handler waits"
run_sluice gates
like "$OUT" "acknowledge: step start failed: boom" \
    "the gate's message sees {{workflow.error}}"
gate=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $ID
    AND step_key = 'on_failure'")
run_sluice approve "$gate" -m "seen"
expect_rc 0 "the handler's gate is approved"
wait_for wf_is "$ID" failed
ok $? "then finally's child run ends and the run ends failed"
child=$(q "SELECT child_id FROM workflow_steps WHERE workflow_id = $ID
    AND step_key = 'finally'")
is "$(cat "$out/child.$child" 2>/dev/null)" "failed" \
    "finally ran a child run that saw {{workflow.status}} as its input"
is "$(rows "$ID")" "start:failed on_failure:done finally:done" \
    "each handler's row is done once"

cat >"$T_DIR/waitfin.json" <<'EOF'
{"start": {"tool": "noop"},
 "finally": {"wait": {"message": "confirm the cleanup"}}}
EOF
run_sluice run "$T_DIR/waitfin.json"
ID=$OUT
wait_for step_is "$ID" finally waiting
ok $? "a finally wait step waits after a completed run"
fin=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $ID
    AND step_key = 'finally'")
run_sluice complete "$fin"
expect_rc 0 "it is completed from outside"
wait_for wf_is "$ID" completed
ok $? "and the run ends completed"

cat >"$T_DIR/rejfail.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "boom"},
   "retry": {"max_attempts": 1}},
 "on_failure": {"gate": {"message": "acknowledge"}}}
EOF
run_sluice run "$T_DIR/rejfail.json"
ID=$OUT
wait_for step_is "$ID" on_failure waiting
gate=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $ID
    AND step_key = 'on_failure'")
run_sluice reject "$gate" -m "not now"
wait_for wf_is "$ID" failed
ok $? "a rejected on_failure gate ends the run failed"
q_is "SELECT error FROM workflows WHERE id = $ID" \
    "step start failed: boom; handler on_failure failed: gate rejected: rejected by root: not now" \
    "the run's error says the step failed and the handler was rejected"

# --- a run cancelled before it began runs no handler ---------------------------

cat >"$T_DIR/later.json" <<EOF
{"start": {"tool": "noop"}, "finally": $(seen finally)}
EOF
run_sluice run "$T_DIR/later.json" --at "in 1 hour"
ID=$OUT
run_sluice cancel "$ID"
expect_rc 0 "a scheduled run is cancelled before its start"
wait_for wf_is "$ID" cancelled
ok $? "it ends cancelled"
run_sluice show "$ID"
like "$OUT" "created: " "show says when it was created"
unlike "$OUT" "started: " "and not that it started"
marker=$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $ID")
is "$marker" 0 "no handler row was made for it"
is "$(saw "$ID" finally)" "" "its finally did not run"
engine_stop

done_testing
