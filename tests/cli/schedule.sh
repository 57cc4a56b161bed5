#!/bin/sh
# tests/cli/schedule.sh: recurring schedules and scheduled starts.  add
# with every refusal (bad cron, bad names, missing template or input, bad
# --overlap: a one-line reason, exit 2 or 3, nothing written), list, show,
# pause, resume, rm and run by hand with their audit rows; the overlap
# policies; firing through the test clock, each instant once, also across
# an engine crash; catch-up after downtime (one run, the rest logged as
# skipped); paused schedules; and run --at: its refusals, the scheduled
# state, cancel, list --status scheduled, and --wait.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/clock-lib.sh"

need_test_clock
export TZ=UTC
me=$(id -un)
host=$(uname -n)

# at HH:MM:SS: that time on the test day, in Unix ms.
at() {
	local_ms UTC "2030-06-03 $1"
}

# runs NAME: how many workflows schedule NAME has started.
runs() {
	q "SELECT count(*) FROM workflows w JOIN schedules c
	    ON c.id = w.schedule_id WHERE c.name = '$1'"
}

# runs_are NAME N: schedule NAME has started N workflows.
runs_are() {
	[ "$(runs "$1")" = "$2" ]
}

# sched COLUMNS NAME: columns of the live schedule NAME.
sched() {
	q "SELECT $1 FROM schedules WHERE name = '$2' AND deleted_at IS NULL"
}

# marker: start a workflow 0.5 s from now (test clock) and wait until it
# has run: everything the engine was due to do before it is done (what
# is due at once, as a catch-up, is done in the turn that finds it).
marker() {
	marker_start
	marker_done
}

# marker_start: start the marker, to wait for it later (marker_done)
# while waiting for something else.
marker_start() {
	run_sluice run "$T_DIR/noop.json" --at "in 0.5 seconds"
	_m=$OUT
}

# marker_done: wait until the marker has run.
marker_done() {
	wait_for wf_is "$_m" completed
}

cat >"$T_DIR/hold.json" <<'EOF'
{"description": "waits for a person",
 "inputs": {"env": {"required": true}, "note": {"default": "n"}},
 "flow": {"start": {"gate": {"message": "go {{input.env}}?"}}}}
EOF
cat >"$T_DIR/quick.json" <<'EOF'
{"description": "quick", "flow": {"start": {"tool": "noop"}}}
EOF
cat >"$T_DIR/noop.json" <<'EOF'
{"start": {"tool": "noop"}}
EOF
clock_offset 0
run_sluice template save hold "$T_DIR/hold.json"
run_sluice template save quick "$T_DIR/quick.json"
expect_rc 0 "templates saved"

# --- schedule add: refusals, nothing written ------------------------------

before=$(db_digest)
# refuse RC TEXT DESCRIPTION ARGS...: schedule add ARGS is refused.
refuse() {
	_rc=$1
	_text=$2
	_d=$3
	shift 3
	run_sluice schedule add "$@"
	expect_rc "$_rc" "$_d: exit $_rc"
	like "$ERR" "$_text" "$_d: says why"
	one_line "$ERR" "$_d: in one line"
	is "$(db_digest)" "$before" "$_d: nothing written"
}
refuse 2 'sluice: --cron "61 * * * *": cron: field 1 (minute) "61": 61 is out of range 0-59 at column 1' \
    "a minute out of range" s1 --cron "61 * * * *" --template quick
refuse 2 'field 2 (hour) "24": 24 is out of range 0-23 at column 3' \
    "an hour out of range" s1 --cron "0 24 * * *" --template quick
refuse 2 'too few fields' "four fields" s1 --cron "* * * *" --template quick
refuse 2 'too many fields' "six fields" s1 --cron "0 * * * * *" \
    --template quick
refuse 2 'unknown name "funday"' "a bad weekday name" s1 \
    --cron "0 9 * * funday" --template quick
refuse 2 'step 0 out of range' "a step of 0" s1 --cron "*/0 * * * *" \
    --template quick
refuse 2 'range 5-1 is backwards' "a backwards range" s1 \
    --cron "5-1 * * * *" --template quick
refuse 2 'never fires in the next 5 years' "February 30th" s1 \
    --cron "0 0 30 2 *" --template quick
refuse 2 '@reboot is not supported' "@reboot" s1 --cron "@reboot" \
    --template quick
refuse 3 'sluice: no template "nope"' "an unknown template" s1 \
    --cron "@daily" --template nope
refuse 2 'sluice: template hold: missing required input "env"' \
    "a missing required input" s1 --cron "@daily" --template hold
refuse 2 'unknown input "bogus"' "an undeclared input" s1 --cron "@daily" \
    --template hold -i env=x -i bogus=1
refuse 2 'sluice: --overlap: "sometimes" is not skip, allow or cancel-previous' \
    "a bad overlap policy" s1 --cron "@daily" --template quick \
    --overlap sometimes
refuse 2 'schedule name "bad name!": character 4' "a bad name" \
    "bad name!" --cron "@daily" --template quick
refuse 2 "may not start with '-'" "a name starting with -" \
    --cron "@daily" --template quick -- -x
run_sluice schedule add s1 --template quick
expect_rc 2 "no --cron is a usage error"
is "$ERR" "sluice: schedule add: option --cron EXPR is required" \
    "it says what is missing"
is "$(db_digest)" "$before" "and writes nothing"
run_sluice schedule frobnicate
expect_rc 2 "an unknown subcommand"
like "$ERR" 'unknown subcommand "frobnicate"' "it is named"

# --- add, list, show, rm with no engine -----------------------------------

clock_at "$(at 09:00:30)"
run_sluice schedule add nightly --cron "0 2 * * *" --template hold \
    -i env=prod
expect_rc 0 "schedule add with no engine"
like "$OUT" "added schedule nightly" "it says so"
like "$OUT" "next firing: 2030-06-04 02:00:00" "and when it fires next"
like "$ERR" "no engine is running" "and that no engine runs"
q_is "SELECT cron, template_name, input_json, overlap, paused, created_by,
    next_fire_at, last_fire_at IS NULL FROM schedules WHERE name = 'nightly'" \
    "0 2 * * *|hold|{\"env\":\"prod\"}|skip|0|$me|$(local_ms UTC '2030-06-04 02:00:00')|1" \
    "the row has the cron, template, input, default overlap, creator and first instant"
is "$(q "SELECT action || '|' || who || '|' || host || '|' || target FROM audit
    ORDER BY id DESC LIMIT 1")" "schedule-add|$me|$host|schedule nightly" \
    "add is audited with who and where"
like "$(q "SELECT detail_json FROM audit ORDER BY id DESC LIMIT 1")" \
    '"cron":"0 2 * * *"' "the audit detail has the cron expression"

run_sluice schedule add nightly --cron "@hourly" --template quick
expect_rc 4 "adding a name that exists is refused"
is "$ERR" "sluice: schedule nightly already exists (remove it first with sluice schedule rm)" \
    "it says so"

run_sluice schedule add hourly --cron "@hourly" --template quick \
    --overlap allow
expect_rc 0 "@hourly with overlap allow"
like "$OUT" "next firing: 2030-06-03 10:00:00" "@hourly fires at the next hour"

run_sluice schedule list
expect_rc 0 "schedule list"
like "$OUT" "NAME" "a header"
like "$OUT" "nightly  0 2 * * *  local  hold" "nightly is listed, in the local zone"
like "$OUT" "2030-06-04 02:00:00 (in 16h 59m" "with its next firing and a countdown"
run_sluice schedule list --json
is "$(json_query "$OUT" "SELECT json_array_length(j) FROM d")" 2 \
    "list --json has both"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[1].name') || '|' ||
    json_extract(j, '\$[1].cron') || '|' || json_extract(j, '\$[1].template')
    || '|' || json_extract(j, '\$[1].input.env') || '|' ||
    json_extract(j, '\$[1].overlap') || '|' || json_extract(j, '\$[1].paused')
    || '|' || json_type(j, '\$[1].last_fire_at') || '|' ||
    $(ms_of "json_extract(j, '\$[1].next_fire_at')") FROM d")" \
    "nightly|0 2 * * *|hold|prod|skip|0|null|$(local_ms UTC '2030-06-04 02:00:00')" \
    "its fields: name, cron, template, input, overlap, paused, last and next firing"
run_sluice schedule show nightly --json
expect_rc 0 "schedule show --json"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.name') || '|' ||
    json_array_length(j, '\$.runs') || '|' ||
    json_array_length(j, '\$.skipped') FROM d")" "nightly|0|0" \
    "show has its runs and skipped firings (none yet)"
run_sluice schedule show nightly
like "$OUT" "cron:     0 2 * * *" "show for people"
run_sluice schedule show nope
expect_rc 3 "show of an unknown schedule"
is "$ERR" 'sluice: no schedule "nope"' "it names it"

# --- pause and resume ---------------------------------------------------------

run_sluice schedule pause nightly
expect_rc 0 "pause"
is "$OUT" "paused schedule nightly" "pause says so"
q_is "SELECT paused, next_fire_at IS NULL FROM schedules WHERE name = 'nightly'" \
    "1|1" "a paused schedule has no next firing"
run_sluice schedule list
like "$OUT" "paused" "list shows it paused"
run_sluice schedule pause nightly
expect_rc 4 "pausing again is refused"
is "$ERR" "sluice: schedule nightly is already paused" "it says so"
clock_at "$(at 03:00:30)"
run_sluice schedule resume nightly
expect_rc 0 "resume"
like "$OUT" "next firing: 2030-06-04 02:00:00" "resume fires from the next instant"
run_sluice schedule resume nightly
expect_rc 4 "resuming a running schedule is refused"
is "$(q "SELECT group_concat(action, ',') FROM (SELECT action FROM audit
    WHERE target = 'schedule nightly' ORDER BY id)")" \
    "schedule-add,schedule-pause,schedule-resume" "pause and resume are audited"

# --- run by hand and the overlap policies ------------------------------------

run_sluice schedule run nightly
expect_rc 0 "schedule run fires by hand"
id=$OUT
q_is "SELECT name, status, template_name, created_by, fire_at IS NULL
    FROM workflows WHERE id = $id" "nightly|running|hold|$me|1" \
    "a run named after the schedule, from its template, by whoever asked"
run_sluice show "$id" --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.schedule') || '|' ||
    json_extract(j, '\$.input.env') || '|' || json_extract(j, '\$.input.note')
    FROM d")" "nightly|prod|n" "show names the schedule; the input has the defaults"
q_is "SELECT last_run_id, last_fire_at IS NULL FROM schedules
    WHERE name = 'nightly'" "$id|1" "last run noted; no cron instant consumed"
is "$(q "SELECT action FROM audit WHERE target = 'schedule nightly'
    ORDER BY id DESC LIMIT 1")" "schedule-run" "the run by hand is audited"
run_sluice schedule run nightly
expect_rc 4 "overlap skip: a second run while one is unfinished is refused"
is "$ERR" "sluice: run $id of schedule nightly is unfinished (overlap skip)" \
    "it names the unfinished run"
is "$(runs nightly)" 1 "and starts nothing"

run_sluice schedule add both --cron "@daily" --template hold -i env=a \
    --overlap allow
run_sluice schedule run both
a1=$OUT
run_sluice schedule run both
expect_rc 0 "overlap allow: a second run starts"
a2=$OUT
q_is "SELECT group_concat(status) FROM workflows WHERE id IN ($a1, $a2)" \
    "running,running" "both run"

run_sluice schedule add fresh --cron "@daily" --template hold -i env=b \
    --overlap cancel-previous
run_sluice schedule run fresh
c1=$OUT
run_sluice schedule run fresh
expect_rc 0 "overlap cancel-previous: a second run starts"
c2=$OUT
q_is "SELECT status FROM workflows WHERE id = $c1" cancelled \
    "the unfinished one is cancelled"
q_is "SELECT status FROM workflows WHERE id = $c2" running "the new one runs"
q_is "SELECT who || '|' || comment FROM audit WHERE action = 'cancel'
    AND workflow_id = $c1" \
    "$me|schedule fresh starts a new run (overlap cancel-previous)" \
    "the cancel is audited with why"

run_sluice schedule rm fresh
expect_rc 0 "rm"
is "$OUT" "removed schedule fresh" "rm says so"
run_sluice schedule list --json
unlike "$OUT" '"fresh"' "a removed schedule is not listed"
q_is "SELECT status FROM workflows WHERE id = $c2" running \
    "its unfinished run goes on"
run_sluice show "$c2" --json
like "$OUT" '"schedule": "fresh"' "and still names it"
run_sluice schedule rm fresh
expect_rc 3 "rm of a removed schedule"
run_sluice schedule add fresh --cron "@daily" --template quick
expect_rc 0 "a removed name can be used again"
run_sluice schedule rm fresh
for w in $id $a1 $a2 $c2; do
	run_sluice cancel "$w"
done

# --- firing through the test clock -------------------------------------------

clock_at "$(at 10:00:58)"
engine_start
run_sluice schedule add minutely --cron "* * * * *" --template quick
expect_rc 0 "add a schedule through the running engine"
is "$ERR" "" "no warning: an engine runs"
wait_for runs_are minutely 1
ok $? "it fires at its instant"
w1=$(q "SELECT max(w.id) FROM workflows w JOIN schedules c ON
    c.id = w.schedule_id WHERE c.name = 'minutely'")
wait_for wf_is "$w1" completed
q_is "SELECT fire_at, created_by, template_name FROM workflows WHERE id = $w1" \
    "$(at 10:01:00)|$me|quick" \
    "the run records its cron instant; created by the schedule's owner"
q_is "SELECT last_fire_at, last_run_id, next_fire_at FROM schedules
    WHERE name = 'minutely'" "$(at 10:01:00)|$w1|$(at 10:02:00)" \
    "the schedule records its last and next firing"
is "$(q "SELECT who || '|' || action FROM audit WHERE workflow_id = $w1
    ORDER BY id LIMIT 1")" "$me|start" "the start is audited"
engine_crash
engine_start
marker
ok $? "an engine after a crash runs"
is "$(runs minutely)" 1 "an instant that fired does not fire again after a crash"
run_sluice schedule show minutely
like "$OUT" "run:      2030-06-03 10:01:00 workflow $w1 completed" \
    "show lists the run"

run_sluice schedule add held --cron "* * * * *" --template hold -i env=c
clock_at "$(at 10:02:58)"
wait_for runs_are held 1
ok $? "a schedule of a waiting template fires"
wait_for audit_has schedule-skip 1 '"reason":"overlap"'
ok $? "its next instant finds the run unfinished and is skipped (overlap skip)"
is "$(runs held)" 1 "no second run"
is "$(q "SELECT comment FROM audit WHERE action = 'schedule-skip'
    ORDER BY id DESC LIMIT 1")" \
    "run $(q "SELECT last_run_id FROM schedules WHERE name = 'held'") of schedule held is unfinished (overlap skip)" \
    "the skip says why"
like "$(q "SELECT detail_json FROM audit WHERE action = 'schedule-skip'
    ORDER BY id DESC LIMIT 1")" "\"instant\":$(at 10:03:00)" \
    "and names the instant"
run_sluice schedule show held --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.skipped[0].reason') || '|'
    || $(ms_of "json_extract(j, '\$.skipped[0].instant')") FROM d")" \
    "overlap|$(at 10:03:00)" "show lists the skipped firing"
run_sluice schedule rm held
run_sluice schedule rm minutely

# --- catch-up after downtime ----------------------------------------------------

clock_at "$(at 10:04:30)"
run_sluice schedule add catchup --cron "* * * * *" --template quick
q_is "SELECT next_fire_at FROM schedules WHERE name = 'catchup'" \
    "$(at 10:05:00)" "its first instant"
engine_stop
clock_at "$(at 10:14:30)"
engine_start
wait_for runs_are catchup 1
ok $? "after downtime a missed firing runs at start-up"
marker
is "$(runs catchup)" 1 "exactly one"
q_is "SELECT w.fire_at FROM workflows w JOIN schedules c
    ON c.id = w.schedule_id WHERE c.name = 'catchup'" "$(at 10:05:00)" \
    "it is the first missed instant"
is "$(q "SELECT comment FROM audit WHERE action = 'schedule-skip' AND
    target = 'schedule catchup'")" \
    "9 later missed firings skipped (one missed firing runs)" \
    "the others are logged as skipped, in one row"
is "$(q "SELECT json_extract(detail_json, '\$.count') || '|' ||
    json_extract(detail_json, '\$.first') || '|' ||
    json_extract(detail_json, '\$.last') || '|' ||
    json_extract(detail_json, '\$.reason') FROM audit
    WHERE action = 'schedule-skip' AND target = 'schedule catchup'")" \
    "9|$(at 10:06:00)|$(at 10:14:00)|missed" \
    "with the count and the first and last skipped instant"
q_is "SELECT next_fire_at FROM schedules WHERE name = 'catchup'" \
    "$(at 10:15:00)" "the next firing is the next instant after now"

# --- paused schedules do not fire; resuming does not catch up ------------------

run_sluice schedule pause catchup
n=$(audit_count clock-jump)
clock_at "$(at 10:20:30)"
marker_start
wait_for jumped $((n + 1))
ok $? "the engine notices the clock jump"
marker_done
is "$(runs catchup)" 1 "a paused schedule does not fire"
run_sluice schedule resume catchup
like "$OUT" "next firing: 2030-06-03 10:21:00" \
    "resume starts from the next instant"
marker
is "$(runs catchup)" 1 "what fell while it was paused is not caught up"
is "$(audit_count schedule-skip catchup)" 1 "nor logged as missed"
run_sluice schedule rm catchup

# --- run --at ------------------------------------------------------------------

before=$(db_digest)
for when in "tomorrow 25pm" "yesterday" "next blursday" "in 0 minutes" \
    "2030-02-30 09:00" "@abc" "" "10:00" "in 11 years" "in 1h 1h"; do
	run_sluice run "$T_DIR/noop.json" --at "$when"
	expect_rc 2 "--at \"$when\" is refused"
	like "$ERR" "sluice: --at: time" "it says why"
	one_line "$ERR" "in one line"
done
is "$(db_digest)" "$before" "a refused --at writes nothing"
run_sluice run "$T_DIR/noop.json" --at "in 1h 1h"
like "$ERR" "\"h\" at column 8: units must go from larger to smaller, each once" \
    "--at \"in 1h 1h\" is refused as a flow refuses \"1h 1h\", with the place"
run_sluice template run quick --at "yesterday"
expect_rc 2 "template run --at refuses a past time too"

run_sluice run "$T_DIR/noop.json" --at "in 1 hour"
expect_rc 0 "run --at in 1 hour"
s1=$OUT
q_is "SELECT status, start_at - created_at BETWEEN 3599000 AND 3600000,
    started_at IS NULL FROM workflows WHERE id = $s1" "scheduled|1|1" \
    "the workflow is scheduled, to start in an hour"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $s1" 0 \
    "no step runs yet"
run_sluice list --status scheduled
like "$OUT" "$s1 " "list --status scheduled shows it"
like "$OUT" "scheduled  in " "with a countdown"
run_sluice list --status scheduled --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].id') || '|' ||
    json_extract(j, '\$[0].status') || '|' ||
    (json_extract(j, '\$[0].start_at') > 0) FROM d")" "$s1|scheduled|1" \
    "list --json has start_at"
run_sluice show "$s1"
like "$OUT" "start at: 2030-06-03 11:2" "show says when it starts"
run_sluice cancel "$s1" -m "not needed"
expect_rc 0 "a scheduled workflow can be cancelled"
is "$OUT" "cancelled workflow $s1 before its start time" "cancel says so"
q_is "SELECT status, started_at IS NULL FROM workflows WHERE id = $s1" \
    "cancelled|1" "it ends cancelled, never started"
q_is "SELECT who || '|' || comment FROM audit WHERE action = 'cancel'
    AND workflow_id = $s1" "$me|not needed" "the cancel is audited"
run_sluice retry "$s1"
expect_rc 4 "retry of a workflow cancelled before its start is refused"

run_sluice template run quick --at "in 1 second"
expect_rc 0 "template run --at"
s2=$OUT
is "$(q "SELECT status FROM workflows WHERE id = $s2")" scheduled \
    "it waits for its time"
wait_for wf_is "$s2" completed
ok $? "and runs when it comes"
q_is "SELECT started_at >= start_at FROM workflows WHERE id = $s2" 1 \
    "it started no earlier than asked"
engine_stop

run_sluice run "$T_DIR/noop.json" --at "in 0.5 seconds" --wait
expect_rc 0 "run --at --wait with no engine waits for the start, then the end"
q_is "SELECT status, started_at >= start_at FROM workflows WHERE id = $OUT" \
    "completed|1" "it ran at its time"

done_testing
