#!/bin/sh
# tests/cli/states.sh: one vocabulary of the states a person sees.  The
# source keeps statuses as enums above the store (no status string is
# compared outside src/store and the word tables in src/util); list shows
# a run held at a gate as waiting and a paused run as paused, --status
# takes every word of the vocabulary (and refuses others, naming them),
# and list --json and show --json carry the state beside the stored
# status, with waiting, paused, template and template_version.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

# line_like TEXT REGEX DESCRIPTION: a line of TEXT matches REGEX (grep -E).
line_like() {
	printf '%s\n' "$1" | grep -Eq -- "$2"
	_rc=$?
	ok "$_rc" "$3"
	[ "$_rc" -eq 0 ] || printf '%s\n' "$1" | sed 's/^/#   /'
}

# --- the source: statuses are enums above the store -------------------------

# Status words as C strings, compared or assigned, outside the tables.
words='pending|ready|running|waiting|done|failed|cancelled|skipped|scheduled|completed|queued'
src="$TOP_SRCDIR/src"
left=$(grep -rnE 'strcmp\([^;]*status|status[a-z_]*(\)|\])? *(==|!=|=) *(\(char \*\))?"('"$words"')"' \
    "$src" --include='*.c' --include='*.h' |
    grep -v "^$src/store/" | grep -v "^$src/util/status\.c:" |
    grep -v "^$src/util/state\.c:")
is "$left" "" "no status string is compared or assigned above the store"

# --- a run at a gate, a paused run, a running one, a scheduled one ----------

engine_start
rm -f "$T_DIR/go"
cat >"$T_DIR/gate.json" <<'J'
{"start": {"tool": "noop", "next": "g"},
 "g": {"gate": {"message": "Ship?"}, "next": "end"},
 "end": {"tool": "noop"}}
J
cat >"$T_DIR/long.json" <<J
{"start": {"name": "work", "on_interrupt": "fail",
  "shell": "i=0; while [ ! -f $T_DIR/go ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done",
  "next": "after"},
 "after": {"tool": "noop"}}
J
run_sluice template save shipit "$T_DIR/gate.json"
expect_rc 0 "a template with a gate"
run_sluice template run shipit
gate=$OUT
wait_for step_is "$gate" g waiting
ok $? "run $gate waits at its gate"
run_sluice run "$T_DIR/long.json" --name held
held=$OUT
wait_for step_is "$held" work running
run_sluice pause "$held"
expect_rc 0 "run $held is paused"
run_sluice run "$T_DIR/long.json" --name busy
busy=$OUT
wait_for step_is "$busy" work running
ok $? "run $busy is running"
run_sluice run "$T_DIR/gate.json" --name later --at "in 2 hours"
later=$OUT
wait_for wf_is "$later" scheduled
ok $? "run $later is scheduled"

# --- list: the words people see --------------------------------------------------

run_sluice list
expect_rc 0 "list"
line_like "$OUT" "^$gate +shipit +waiting " "a run at a gate is listed as waiting"
line_like "$OUT" "^$held +held +paused " "a paused run is listed as paused"
line_like "$OUT" "^$busy +busy +running " "a running run is listed as running"
line_like "$OUT" "^$later +later +scheduled " "a scheduled run is listed as scheduled"

for s in waiting paused running scheduled; do
	run_sluice list --status "$s" --json
	expect_rc 0 "list --status $s"
	got=$(json_query "$OUT" "SELECT group_concat(json_extract(value,
	    '$.id') || ':' || json_extract(value, '$.state'), ' ') FROM d,
	    json_each(d.j)")
	case $s in
	waiting) want="$gate:waiting" ;;
	paused) want="$held:paused" ;;
	running) want="$busy:running" ;;
	scheduled) want="$later:scheduled" ;;
	esac
	is "$got" "$want" "list --status $s finds exactly the $s run"
done
for s in late completed failed cancelled; do
	run_sluice list --status "$s"
	expect_rc 0 "list --status $s is a word of the vocabulary"
	is "$OUT" "" "... with no run in it yet"
done

before=$(db_digest)
run_sluice list --status sleeping
expect_rc 2 "an unknown state is bad usage"
is "$ERR" 'sluice: --status: unknown status "sleeping" (use one of running, waiting, paused, scheduled, queued, late, completed, failed, cancelled)' \
    "it names the word and every valid one"
is "$(db_digest)" "$before" "and changes nothing"
run_sluice list --status done
expect_rc 2 "a step status is no run state"

# --- JSON: the state beside the stored status -------------------------------------

run_sluice list --json
expect_rc 0 "list --json"
row() {
	json_query "$OUT" "SELECT json_extract(value, '$.status') || '|' ||
	    json_extract(value, '$.state') || '|' ||
	    json_extract(value, '$.waiting') || '|' ||
	    json_extract(value, '$.paused') || '|' ||
	    ifnull(json_extract(value, '$.template'), 'null') || '|' ||
	    ifnull(json_extract(value, '$.template_version'), 'null')
	    FROM d, json_each(d.j) WHERE json_extract(value, '$.id') = $1"
}
is "$(row "$gate")" "running|waiting|1|0|shipit|1" \
    "list --json: at a gate: status running, state waiting, its template"
is "$(row "$held")" "running|paused|0|1|null|null" \
    "list --json: paused: state paused, paused true, no template"
is "$(row "$busy")" "running|running|0|0|null|null" \
    "list --json: running"
is "$(row "$later")" "scheduled|scheduled|0|0|null|null" \
    "list --json: scheduled"

run_sluice show --json "$gate"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.status') || '|' ||
    json_extract(j, '$.state') || '|' || json_extract(j, '$.waiting')
    FROM d")" "running|waiting|1" "show --json: status, state and waiting"
run_sluice show "$gate"
line_like "$OUT" "^status: +waiting$" "show says waiting"
run_sluice show "$held"
line_like "$OUT" "^status: +paused$" "show says paused"

# --- the run moves on: the words follow ---------------------------------------------

g=$(step_id "$gate" g)
run_sluice approve "$g" -m "go"
expect_rc 0 "approve the gate"
wait_for wf_is "$gate" completed
run_sluice list --status completed --json
is "$(json_query "$OUT" "SELECT group_concat(json_extract(value, '$.id'))
    FROM d, json_each(d.j)")" "$gate" "once approved it is completed"
run_sluice resume "$held"
run_sluice list --status paused
is "$OUT" "" "resumed: no longer paused"
touch "$T_DIR/go"
wait_for wf_is "$held" completed
wait_for wf_is "$busy" completed
run_sluice cancel "$later" -m "not today"
wait_for wf_is "$later" cancelled
run_sluice list --status cancelled
line_like "$OUT" "^$later +later +cancelled " "cancelled"

done_testing
