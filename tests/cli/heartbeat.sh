#!/bin/sh
# tests/cli/heartbeat.sh: "heartbeat" and progress on a process step.
# A step's "::progress PCT TEXT" lines are its row's latest progress, in
# show and show --json, and not part of its result.  Output on
# stdout or on stderr keeps a step alive past its heartbeat; a silent one
# is killed (its process gone), the attempt failed with "no heartbeat"
# and retried as usual; after a crash the next engine applies the step's
# on_interrupt and watches the new attempt again.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

engine_start

# The four flows of these first two parts run side by side (each alone
# in its workflow); they are looked at in turn.

# --- output keeps it alive ----------------------------------------------------------

cat >"$T_DIR/chatty.json" <<'EOF'
{"start": {"shell": "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.2; done; echo '\"ok\"'",
   "heartbeat": "1s"}}
EOF
cat >"$T_DIR/stderr.json" <<'EOF'
{"start": {"shell": "for i in 1 2 3 4 5 6 7 8; do echo tick $i >&2; sleep 0.2; done",
   "heartbeat": "1s"}}
EOF
cat >"$T_DIR/silent.json" <<EOF
{"start": {"shell": "echo \$\$ >>$T_DIR/silent.pids; echo started; exec sleep 30",
   "heartbeat": "300ms", "retry": {"max_attempts": 2, "backoff": ["100ms"]}}}
EOF
# A heartbeat longer than the step's silence changes nothing.
cat >"$T_DIR/slow.json" <<'EOF'
{"start": {"shell": "sleep 0.3; echo done", "heartbeat": "5s"}}
EOF
run_sluice run "$T_DIR/chatty.json"
chatty=$OUT
run_sluice run "$T_DIR/stderr.json"
stderr=$OUT
run_sluice run "$T_DIR/silent.json"
silent=$OUT
run_sluice run "$T_DIR/slow.json"
slow=$OUT

id=$chatty
wait_for wf_ended "$id"
q_is "SELECT status FROM workflows WHERE id = $id" completed \
    "a step that writes to stdout more often than its heartbeat completes"

id=$stderr
wait_for wf_ended "$id"
q_is "SELECT status FROM workflows WHERE id = $id" completed \
    "output on stderr is a heartbeat too"

# --- silence kills it ------------------------------------------------------------

id=$silent
wait_for wf_ended "$id"
ok $? "a silent step is ended long before its sleep"
q_is "SELECT status FROM workflows WHERE id = $id" failed \
    "its workflow fails once its attempts are spent"
q_is "SELECT group_concat(attempt || ':' || status || ':' || error, ' ')
    FROM (SELECT * FROM workflow_steps WHERE workflow_id = $id ORDER BY id)" \
    "1:failed:no heartbeat 2:failed:no heartbeat" \
    "each attempt fails with no heartbeat, and is retried as usual"
n=0
for p in $(cat "$T_DIR/silent.pids"); do
	wait_for dead "$p" && n=$((n + 1))
done
is "$n" 2 "each silent process was killed"
run_sluice log "$(step_id "$id" start)"
like "$OUT" "started" "what it wrote before falling silent is kept"

id=$slow
wait_for wf_ended "$id"
q_is "SELECT status FROM workflows WHERE id = $id" completed \
    "a short silence within the heartbeat is fine"

# --- progress --------------------------------------------------------------------

cat >"$T_DIR/prog.json" <<EOF
{"start": {"shell": "echo '::progress 10 starting'; printf '::progress 55 '; sleep 0.1; printf 'half\\\\n'; echo '{\"n\": 1}'; touch $T_DIR/prog.mark; exec sleep 30"}}
EOF
run_sluice run "$T_DIR/prog.json"
id=$OUT
wait_for test -f "$T_DIR/prog.mark"
wait_for step_is "$id" start running
prog() {
	[ "$(col "$id" start "progress_pct || '|' || progress_text")" = "$1" ]
}
wait_for prog "55|half"
ok $? "the latest ::progress line is on the step row (even split across writes)"
run_sluice show "$id"
like "$OUT" "55% half" "show gives a running step's progress"
run_sluice show --json "$id"
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.progress.percent') || '|' ||
    json_extract(value, '\$.progress.message') FROM d,
    json_each(json_extract(d.j, '\$.steps'))")" "55|half" \
    "show --json has it under progress"
run_sluice cancel "$id"

cat >"$T_DIR/progres.json" <<'EOF'
{"start": {"shell": "echo '::progress 50 working'; echo '{\"n\": 2}'; sleep 0.2; echo '::progress done' >&2"}}
EOF
run_sluice run "$T_DIR/progres.json"
id=$OUT
wait_for wf_ended "$id"
is "$(col "$id" start "result_json || '|' || coalesce(progress_pct, 'null') || '|' || progress_text")" \
    '{"n":2}|null|done' \
    "progress lines are not part of the result; one on stderr counts; one with no number clears the percentage"
run_sluice log "$(step_id "$id" start)"
like "$OUT" "::progress 50 working" "they stay in the log"

cat >"$T_DIR/forms.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b", "c", "d", "e"]},
 "a": {"shell": "echo '::progress 150 too much'"},
 "b": {"shell": "echo '::progress 7%'"},
 "c": {"shell": "echo '::progressive 10 no'; echo '  ::progress 20 indented'"},
 "d": {"shell": "printf '::progress 30 crlf\\r\\n'"},
 "e": {"shell": "printf '::progress 90 last line, no newline'"}}
EOF
run_sluice run "$T_DIR/forms.json"
id=$OUT
wait_for wf_ended "$id"
q_is "SELECT group_concat(name || '=' || coalesce(progress_pct, '-') || '/' ||
    coalesce(progress_text, '-'), ' ') FROM (SELECT * FROM workflow_steps
    WHERE workflow_id = $id AND name <> 'start' ORDER BY name)" \
    "a=-/150 too much b=7/- c=-/- d=30/crlf e=90/last line, no newline" \
    "the forms of a progress line: a number above 100 is text, % is allowed, only a line of its own counts, CRLF and a last line with no newline too"

# --- a catalog tool's heartbeat ----------------------------------------------------

cat >"$T_DIR/tools.json" <<'EOF'
{"quiet": {"shell": "sleep ${SLUICE_ARG_SECONDS:-30}", "heartbeat": "300ms"}}
EOF
engine_stop
SLUICE_TOOLS="$T_DIR/tools.json" engine_start
cat >"$T_DIR/tool.json" <<'EOF'
{"start": {"tool": "quiet", "retry": {"max_attempts": 1}}}
EOF
cat >"$T_DIR/toolown.json" <<'EOF'
{"start": {"tool": "quiet", "args": {"seconds": 0.8}, "heartbeat": "10s"}}
EOF
SLUICE_TOOLS="$T_DIR/tools.json" run_sluice run "$T_DIR/tool.json"
tool=$OUT
SLUICE_TOOLS="$T_DIR/tools.json" run_sluice run "$T_DIR/toolown.json"
own=$OUT
id=$tool
wait_for wf_ended "$id"
is "$(col "$id" start "status || '|' || error")" "failed|no heartbeat" \
    "a catalog tool's heartbeat applies to the steps using it"
id=$own
wait_for wf_ended "$id"
q_is "SELECT status FROM workflows WHERE id = $id" completed \
    "a step's own heartbeat takes precedence over its tool's"
echo '{"quiet": {"shell": "true", "heartbeat": "soon"}}' >"$T_DIR/badtools.json"
run_sluice --tools "$T_DIR/badtools.json" check "$T_DIR/tool.json"
expect_rc 2 "a bad heartbeat in tools.json is refused"
like "$ERR" '$.quiet.heartbeat:' "with its JSON path"
engine_stop
engine_start

# --- a crash --------------------------------------------------------------------------

cat >"$T_DIR/crash.json" <<EOF
{"start": {"shell": "echo \$\$ >>$T_DIR/crash.pids; echo up; exec sleep 30",
   "heartbeat": "400ms", "on_interrupt": "retry",
   "retry": {"max_attempts": 3, "backoff": ["100ms"]}}}
EOF
run_sluice run "$T_DIR/crash.json"
id=$OUT
wait_for file_has "$T_DIR/crash.pids" ""
wait_for step_is "$id" start running
engine_crash
first=$(head -n 1 "$T_DIR/crash.pids")
engine_start
wait_for wf_ended "$id"
ok $? "after a crash the workflow still ends"
wait_for dead "$first"
ok $? "the process left by the dead engine was killed"
q_is "SELECT error FROM workflow_steps WHERE workflow_id = $id AND attempt > 1
    ORDER BY id DESC LIMIT 1" "no heartbeat" \
    "the attempts after the crash are watched by the next engine"

engine_stop
done_testing
