#!/bin/sh
# tests/cli/clock.sh: time done right, with the test clock.  Delays (retry
# backoff, gate timeouts, step timeouts) keep their length across wall
# clock jumps of +2 h, -2 h, +1 day and -1 day: neither early nor late by
# the jump; cron instants and --at start times are wall-clock instants,
# looked at again after a jump (forward: the missed ones are caught up as
# after downtime; back: an instant that fired never fires again); and the
# DST rule in two zones, cronie's (a fixed minute skipped by spring-forward
# fires at the first valid minute after it, a repeated one fires once; a job
# whose minute or hour starts with "*" follows the wall clock, so it fires
# again in a repeated hour); and schedules in a zone of their own (--tz).

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/clock-lib.sh"

need_test_clock
export TZ=UTC

# runs NAME: how many workflows schedule NAME has started.
runs() {
	q "SELECT count(*) FROM workflows w JOIN schedules c
	    ON c.id = w.schedule_id WHERE c.name = '$1'"
}

# runs_are NAME N: schedule NAME has started N workflows.
runs_are() {
	[ "$(runs "$1")" = "$2" ]
}

# marker SECONDS: start a workflow that many seconds from now (the test
# clock) and wait until it ran: the engine has done what was due before.
marker() {
	marker_start "$1"
	marker_done
}

# marker_start SECONDS: start the marker, to wait for it later (with
# marker_done) while waiting for something else.
marker_start() {
	run_sluice run "$NOOP" --at "in $1 seconds"
	_m=$OUT
}

# marker_done: wait until the marker ran.
marker_done() {
	wait_for wf_is "$_m" completed
}

NOOP=$T_DIR/noop.json
cat >"$NOOP" <<'EOF'
{"start": {"tool": "noop"}}
EOF
cat >"$T_DIR/quick.json" <<'EOF'
{"description": "quick", "flow": {"start": {"tool": "noop"}}}
EOF

# --- delays across jumps --------------------------------------------------------

# Three flows, each with two delays: the first to end (2 s) fires after
# the jump and makes the engine look at its stored timers again; the
# second (4 s) must then still wait its full length.  The jump must come
# while every delay runs, yet starting a run can take seconds on a busy
# host (three of them once took longer than the first delay): so each run
# first waits at a step of its own for the release, and all delays start
# together a few tenths of a second before the jump.
# flows N: write this round's flows (the failing steps fail once each).
flows() {
	_hold="until test -e '$T_DIR/release-$1'; do sleep 0.02; done"
	cat >"$T_DIR/gate-first.json" <<EOF
{"hold": {"shell": "$_hold", "parallel": ["g", "f"]},
 "g": {"gate": {"message": "m", "timeout": "2s"},
   "branch": [{"else": "gend"}]},
 "gend": {"tool": "noop"},
 "f": {"shell": "test -f '$T_DIR/f1-$1' || { touch '$T_DIR/f1-$1'; exit 1; }",
   "retry": {"max_attempts": 2, "backoff": ["4s"]}}}
EOF
	cat >"$T_DIR/retry-first.json" <<EOF
{"hold": {"shell": "$_hold", "parallel": ["g", "f"]},
 "g": {"gate": {"message": "m", "timeout": "4s"},
   "branch": [{"else": "gend"}]},
 "gend": {"tool": "noop"},
 "f": {"shell": "test -f '$T_DIR/f2-$1' || { touch '$T_DIR/f2-$1'; exit 1; }",
   "retry": {"max_attempts": 2, "backoff": ["2s"]}}}
EOF
	cat >"$T_DIR/timeout.json" <<EOF
{"hold": {"shell": "$_hold", "next": "work"},
 "work": {"run": ["sleep", "30"], "timeout": "3s",
   "retry": {"max_attempts": 1}}}
EOF
}

# status_of WF NAME: SQL for the status of step NAME's latest row.
status_of() {
	echo "(SELECT status FROM workflow_steps WHERE workflow_id = $1 AND
	    name = '$2' ORDER BY id DESC LIMIT 1)"
}

# holding A B C: the three runs wait at their hold steps.
holding() {
	[ "$(q "SELECT $(status_of "$1" hold) || ' ' ||
	    $(status_of "$2" hold) || ' ' || $(status_of "$3" hold)")" = \
	    "running running running" ]
}

# waiting_and_pending A B C: the gates g of A and B wait, their steps f
# have a pending retry, and C's step runs (in one query: a try is quick).
waiting_and_pending() {
	[ "$(q "SELECT $(status_of "$1" g) || ' ' || $(status_of "$1" f) ||
	    ' ' || $(status_of "$2" g) || ' ' || $(status_of "$2" f) || ' ' ||
	    $(status_of "$3" work)")" = "waiting pending waiting pending running" ]
}

# round NAME OFFSET DELTA: jump the clock to OFFSET (DELTA from before)
# while delays run, and check each kept its length.
round() {
	flows "$1"
	run_sluice run "$T_DIR/gate-first.json"
	a=$OUT
	run_sluice run "$T_DIR/retry-first.json"
	b=$OUT
	run_sluice run "$T_DIR/timeout.json"
	c=$OUT
	n=$(audit_count clock-jump)
	wait_for holding "$a" "$b" "$c" && touch "$T_DIR/release-$1" &&
	    wait_for waiting_and_pending "$a" "$b" "$c"
	ok $? "$1: the delays are set"
	clock_offset "$2"
	wait_for jumped $((n + 1))
	ok $? "$1: the engine notices the jump"
	is "$(q "SELECT json_extract(detail_json, '\$.jump_ms') BETWEEN
	    $3 - 900 AND $3 + 900 FROM audit WHERE action = 'clock-jump'
	    ORDER BY id DESC LIMIT 1")" 1 "$1: the audit row says by how much"
	wait_for wf_ended "$a" && wait_for wf_ended "$b" && wait_for wf_ended "$c"
	ok $? "$1: every delay ended (none late by the jump)"
	# Each delay's length: its end minus its start, less the jump.
	between 3900 4700 "$(q "SELECT r.ready_at - f.completed_at - ($3)
	    FROM workflow_steps f JOIN workflow_steps r ON r.parent_id = f.id
	    WHERE f.workflow_id = $a AND f.name = 'f' AND f.attempt = 1")" \
	    "$1: a 4 s retry backoff took 4 s (another timer fired first)"
	between 1900 2700 "$(q "SELECT completed_at - created_at - ($3)
	    FROM workflow_steps WHERE workflow_id = $a AND name = 'g'")" \
	    "$1: a 2 s gate timeout took 2 s"
	between 3900 4700 "$(q "SELECT completed_at - created_at - ($3)
	    FROM workflow_steps WHERE workflow_id = $b AND name = 'g'")" \
	    "$1: a 4 s gate timeout took 4 s (a retry fired first)"
	between 1900 2700 "$(q "SELECT r.ready_at - f.completed_at - ($3)
	    FROM workflow_steps f JOIN workflow_steps r ON r.parent_id = f.id
	    WHERE f.workflow_id = $b AND f.name = 'f' AND f.attempt = 1")" \
	    "$1: a 2 s retry backoff took 2 s"
	is "$(q "SELECT status || '|' || error FROM workflow_steps
	    WHERE workflow_id = $c AND name = 'work'")" "failed|timeout" \
	    "$1: the step with a timeout failed with reason timeout"
	between 2900 4000 "$(q "SELECT completed_at - started_at - ($3)
	    FROM workflow_steps WHERE workflow_id = $c AND name = 'work'")" \
	    "$1: its 3 s timeout (and kill grace) took 3 s"
}

# --- parts run side by side --------------------------------------------------

# apart TAG FUNC [ARGS]: FUNC ARGS in the background, in a subshell with a
# database and clock file of its own (FUNC starts its engine with
# own_engine); its cases, numbered from 1, go to $T_DIR/TAG.tap, its pid
# to $T_DIR/TAG.job.pid (for cleanup, till show_part).  The parts that
# wait for the same seconds run so, each alone with its engine and clock
# (an engine's clock is the file it reads).
apart() {
	_tag=$1
	shift
	(
		top=$T_DIR
		T_DIR=$top/$_tag
		mkdir "$T_DIR"
		export SLUICE_DB="$T_DIR/test.db" SLUICE_TEST_CLOCK="$T_DIR/clock"
		T_COUNT=0
		db_init
		"$@"
		exit 0
	) >"$T_DIR/$_tag.tap" 2>&1 &
	echo "$!" >"$T_DIR/$_tag.job.pid"
}

# own_engine: start the engine of a part run apart, its pid where
# cleanup finds it.
own_engine() {
	engine_start
	echo "$EPID" >"$top/$(basename "$T_DIR").pid"
}

# own_engine_stop: stop that engine.
own_engine_stop() {
	engine_stop
	rm -f "$top/$(basename "$T_DIR").pid"
}

# show_part TAG: wait for a part, print its cases, numbered on from ours,
# and count them as ours; a part that did not run to its end fails.
show_part() {
	wait "$(cat "$T_DIR/$1.job.pid")"
	_rc=$?
	rm -f "$T_DIR/$1.job.pid"
	tap_replay "$T_DIR/$1.tap"
	[ "$_rc" -eq 0 ] || ok 1 "part $1 ran to its end (it exited $_rc)"
}

# part_q TAG SQL: query a part's database.
part_q() (
	SLUICE_DB="$T_DIR/$1/test.db"
	q "$2"
)

# round_apart FROM NAME TO DELTA: a round on an engine started with the
# clock at offset FROM, once every round's engine runs ($top/go): the
# delays then start while no engine is starting.
round_apart() {
	clock_offset "$1"
	own_engine
	wait_for test -f "$top/go"
	shift
	round "$@"
	own_engine_stop
}

# --- DST in two zones --------------------------------------------------------------

# Each zone's engine runs apart, while the rounds run (its TZ is the zone).
# A schedule is added an hour before its instant (starting an engine and
# a command can take seconds on a busy host, and the instant must still
# be ahead when the next one is computed), then the clock is set 3 s
# before the instant, which costs nothing there.
# zone_engine ZONE MS: this part's engine in ZONE, the clock at MS, the
# template "quick" saved.
zone_engine() {
	export TZ=$1
	run_sluice template save quick "$top/quick.json"
	clock_at "$2"
	own_engine
}

# dst_ny: spring forward in New York.
dst_ny() {
	zone_engine America/New_York \
	    "$(local_ms America/New_York '2030-03-10 00:59:57')"
	run_sluice schedule add ny --cron "30 2 * * *" --template quick
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'ny'" \
	    "$(local_ms America/New_York '2030-03-10 03:00:00')" \
	    "New York, spring forward: 02:30 does not exist; it fires at 03:00 EDT"
	clock_at "$(local_ms America/New_York '2030-03-10 01:59:57')"
	wait_for runs_are ny 1
	ok $? "and does, 3 s after 01:59:57 EST"
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'ny'" \
	    "$(local_ms America/New_York '2030-03-11 02:30:00')" \
	    "then at 02:30 the next day"
	run_sluice schedule show ny
	like "$OUT" "next:     2030-03-11 02:30:00" "shown in local time"
	run_sluice schedule rm ny
	own_engine_stop
}

# dst_berlin: fall back in Berlin.
dst_berlin() {
	zone_engine Europe/Berlin "$(local_ms UTC '2030-10-26 23:29:57')"
	run_sluice schedule add berlin --cron "30 2 * * *" --template quick
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'berlin'" \
	    "$(local_ms UTC '2030-10-27 00:30:00')" \
	    "Berlin, fall back: the first 02:30 (CEST)"
	clock_at "$(local_ms UTC '2030-10-27 00:29:57')"
	wait_for runs_are berlin 1
	ok $? "fires"
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'berlin'" \
	    "$(local_ms UTC '2030-10-28 01:30:00')" \
	    "the repeated 02:30 (CET) is not a second firing: next is the next day"
	clock_at "$(($(local_ms UTC '2030-10-27 01:29:59') + 500))"
	marker 2
	is "$(runs berlin)" 1 "the wall clock passing 02:30 CET fires nothing"
	own_engine_stop
}

# fire_next NAME UTC: set the clock 2 s before UTC ("YYYY-MM-DD HH:MM:SS"),
# which must be schedule NAME's next instant, and wait until it has fired.
fire_next() {
	_n=$(runs "$1")
	q_is "SELECT next_fire_at FROM schedules WHERE name = '$1'" \
	    "$(local_ms UTC "$2")" "$1: next at $2 UTC"
	clock_at "$(($(local_ms UTC "$2") - 2000))"
	wait_for runs_are "$1" $((_n + 1))
	ok $? "$1: fires at $2 UTC"
}

# dst_ny_fall: fall back in New York, 2026-11-01: 01:00-01:59 comes twice
# (EDT, then EST, 05:00 and 06:00 UTC).  "*/20 * * * *" fires in both;
# "0 2 * * *" once.
dst_ny_fall() {
	zone_engine America/New_York "$(local_ms UTC '2026-11-01 05:41:00')"
	run_sluice schedule add every20 --cron "*/20 * * * *" --template quick
	run_sluice schedule add two --cron "0 2 * * *" --template quick
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'two'" \
	    "$(local_ms UTC '2026-11-01 07:00:00')" \
	    "New York, fall back: 02:00 EST is two's next"
	fire_next every20 "2026-11-01 06:00:00"
	is "$(q "SELECT count(*) FROM audit WHERE action = 'schedule-skip'")" \
	    0 "01:00 EST follows 01:40 EDT with nothing skipped"
	fire_next every20 "2026-11-01 06:20:00"
	fire_next every20 "2026-11-01 06:40:00"
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'every20'" \
	    "$(local_ms UTC '2026-11-01 07:00:00')" \
	    "then 02:00 EST, when two fires too"
	clock_at "$(($(local_ms UTC '2026-11-01 07:00:00') - 2000))"
	wait_for runs_are two 1
	ok $? "two fires once, at 02:00 EST"
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'two'" \
	    "$(local_ms UTC '2026-11-02 07:00:00')" \
	    "and next the day after, at 02:00 EST"
	own_engine_stop
}

# tz_berlin: an engine in New York, a schedule in Berlin time.
tz_berlin() {
	zone_engine America/New_York "$(local_ms UTC '2030-06-03 06:30:00')"
	before=$(db_digest)
	run_sluice schedule add b --cron "0 9 * * *" --template quick \
	    --tz Mars/Olympus
	expect_rc 2 "--tz: an unknown zone is refused"
	like "$ERR" 'sluice: --tz: "Mars/Olympus": no such time zone in ' \
	    "it says why"
	one_line "$ERR" "in one line"
	run_sluice schedule add b --cron "0 9 * * *" --template quick \
	    --tz ../../etc/passwd
	expect_rc 2 "--tz: a path is refused"
	like "$ERR" "is not a time zone name" "it says why"
	run_sluice schedule add b --cron "0 9 * * *" --template quick \
	    --tz "Europe/Berlin;x"
	expect_rc 2 "--tz: a stray character is refused"
	is "$(db_digest)" "$before" "the refusals wrote nothing"
	run_sluice schedule add berlin9 --cron "0 9 * * *" --template quick \
	    --tz Europe/Berlin
	expect_rc 0 "--tz Europe/Berlin is taken"
	run_sluice schedule list
	printf '%s\n' "$OUT" |
	    grep -Eq '^berlin9 +0 9 \* \* \* +Europe/Berlin +quick '
	ok $? "schedule list shows the zone"
	run_sluice schedule list --json
	like "$OUT" '"tz": "Europe/Berlin"' "and so does its JSON"
	run_sluice schedule show berlin9
	like "$OUT" "zone:     Europe/Berlin" "and schedule show"
	fire_next berlin9 "2030-06-03 07:00:00"
	q_is "SELECT next_fire_at FROM schedules WHERE name = 'berlin9'" \
	    "$(local_ms UTC '2030-06-04 07:00:00')" \
	    "09:00 CEST each day, whatever the engine's zone"
	q_is "SELECT json_extract(detail_json, '$.tz') FROM audit
	    WHERE action = 'schedule-add'" "Europe/Berlin" \
	    "the audit row names the zone"
	own_engine_stop
}

# --- the parts apart start; the rounds' cases -------------------------------

# rounds_up: every round's engine runs (its pid file is written once
# engine_start has seen it).
rounds_up() {
	[ -f "$T_DIR/round-1.pid" ] && [ -f "$T_DIR/round-2.pid" ] &&
	    [ -f "$T_DIR/round-3.pid" ] && [ -f "$T_DIR/round-4.pid" ]
}

apart ny dst_ny
apart berlin dst_berlin
apart nyfall dst_ny_fall
apart tzberlin tz_berlin
apart round-1 round_apart 0 "+2 h" 7200000 7200000
apart round-2 round_apart 7200000 "-2 h" 0 -7200000
apart round-3 round_apart 0 "+1 day" 86400000 86400000
apart round-4 round_apart 86400000 "-1 day" 0 -86400000
wait_for rounds_up
touch "$T_DIR/go"
for r in 1 2 3 4; do
	show_part "round-$r"
done
is "$(for r in 1 2 3 4; do
	part_q "round-$r" "SELECT count(*) FROM audit WHERE action = 'clock-jump'"
done | tr '\n' ' ')" "1 1 1 1 " "one clock-jump audit row per jump"
is "$(part_q round-1 "SELECT who FROM audit WHERE action = 'clock-jump'")" \
    "$(id -un)" "recorded as the engine's account"

clock_offset 0
engine_start

# --- cron instants after jumps ----------------------------------------------------

# Each clock is set a second or two before the instant it leads to, so
# that little real time passes: the test clock, not the real one, brings
# the wall clock there.
run_sluice template save quick "$T_DIR/quick.json"
clock_at "$(($(local_ms UTC '2030-06-03 10:00:58') + 500))"
run_sluice schedule add minutely --cron "* * * * *" --template quick
q_is "SELECT next_fire_at FROM schedules WHERE name = 'minutely'" \
    "$(local_ms UTC '2030-06-03 10:01:00')" "the first instant is 10:01"
n=$(audit_count clock-jump)
# The marker (1.6 s after the jump) also outlasts the alarm set before it
# (1.5 s after 10:00:58.5).
clock_at "$(($(local_ms UTC '2030-06-03 08:00:59') + 500))"
marker_start 1.6
wait_for jumped $((n + 1)) && marker_done
ok $? "back 2 h: wall time passes 08:01"
is "$(runs minutely)" 0 \
    "no firing: not when the alarm set before the jump ran out, nor at 08:01"
q_is "SELECT next_fire_at FROM schedules WHERE name = 'minutely'" \
    "$(local_ms UTC '2030-06-03 10:01:00')" \
    "the next firing stays 10:01 (the first instant not yet fired)"
clock_at "$(($(local_ms UTC '2030-06-03 10:00:59') + 500))"
wait_for runs_are minutely 1
ok $? "forward 2 h again: it fires when the wall clock reaches 10:01"
q_is "SELECT w.fire_at FROM workflows w JOIN schedules c
    ON c.id = w.schedule_id WHERE c.name = 'minutely'" \
    "$(local_ms UTC '2030-06-03 10:01:00')" "for the instant 10:01"
is "$(audit_count schedule-skip)" 0 "nothing was missed"
run_sluice schedule rm minutely

clock_at "$(local_ms UTC '2030-06-03 10:59:57')"
run_sluice schedule add hourly --cron "0 * * * *" --template quick
clock_at "$(local_ms UTC '2030-06-04 10:59:58')"
wait_for runs_are hourly 1
ok $? "forward 1 day: one missed firing runs"
q_is "SELECT w.fire_at FROM workflows w JOIN schedules c
    ON c.id = w.schedule_id WHERE c.name = 'hourly'" \
    "$(local_ms UTC '2030-06-03 11:00:00')" "the first one missed"
is "$(q "SELECT json_extract(detail_json, '\$.count') || '|' ||
    json_extract(detail_json, '\$.first') || '|' ||
    json_extract(detail_json, '\$.last') FROM audit
    WHERE action = 'schedule-skip' AND target = 'schedule hourly'")" \
    "23|$(local_ms UTC '2030-06-03 12:00:00')|$(local_ms UTC '2030-06-04 10:00:00')" \
    "the other 23 are logged as skipped, in one row"
q_is "SELECT next_fire_at FROM schedules WHERE name = 'hourly'" \
    "$(local_ms UTC '2030-06-04 11:00:00')" "the next firing is recomputed"
n=$(audit_count clock-jump)
clock_at "$(($(local_ms UTC '2030-06-03 10:59:59') + 500))"
marker_start 1
wait_for jumped $((n + 1)) && marker_done
is "$(runs hourly)" 1 "back 1 day: 11:00 of the first day does not fire twice"
q_is "SELECT next_fire_at FROM schedules WHERE name = 'hourly'" \
    "$(local_ms UTC '2030-06-04 11:00:00')" "the next firing stays"
run_sluice schedule rm hourly

# --- --at start times move with wall time -------------------------------------------

run_sluice run "$T_DIR/noop.json" --at "in 1 hour"
s1=$OUT
run_sluice run "$T_DIR/noop.json" --at "in 1.5 seconds"
s2=$OUT
is "$(q "SELECT status FROM workflows WHERE id IN ($s1, $s2)")" \
    "scheduled
scheduled" "two scheduled starts"
clock_at "$(local_ms UTC '2030-06-03 09:00:00')"
# The marker comes after the real 1.5 s the start was to wait.
marker 1.7
is "$(q "SELECT status FROM workflows WHERE id = $s2")" scheduled \
    "back 2 h: a start 1.5 s ahead waits for the wall clock to come back"
# To just before the later start, about 3 h on: both have come a moment after.
clock_at "$(($(q "SELECT start_at FROM workflows WHERE id = $s1") - 300))"
wait_for wf_is "$s1" completed && wait_for wf_is "$s2" completed
ok $? "forward 3 h: both starts have come, and both run"

# --- DST: the cases of the parts apart ---------------------------------------

engine_stop
show_part ny
show_part berlin
show_part nyfall
show_part tzberlin

done_testing
