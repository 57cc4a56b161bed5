#!/bin/sh
# tests/cli/sla.sh: "sla" in a template document (or a flow file in the
# wrapper form): bad values refused with their JSON path; a workflow still
# unfinished after its SLA is marked late (never cancelled), once, with an
# audit row and one workflow_late notification; list and show report it;
# a workflow that became late while no engine ran is marked at start-up,
# once; the SLA is a delay (a clock jump does not make it late early).

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/clock-lib.sh"

need_test_clock
me=$(id -un)

# late_is ID: the workflow has been marked late.
late_is() {
	[ "$(q "SELECT late_at IS NOT NULL FROM workflows WHERE id = $1")" = 1 ]
}

# late_rows ID: its late audit rows.
late_rows() {
	q "SELECT count(*) FROM audit WHERE action = 'late' AND workflow_id = $1"
}

# --- the document key ----------------------------------------------------------

# bad VALUE MESSAGE: a template with "sla": VALUE is refused with MESSAGE.
bad() {
	printf '{"sla": %s, "flow": {"start": {"tool": "noop"}}}\n' "$1" \
	    >"$T_DIR/bad.json"
	run_sluice check "$T_DIR/bad.json"
	expect_rc 2 "sla $1 is refused"
	is "$ERR" "sluice: $T_DIR/bad.json:1:9: \$.sla: $2" "sla $1: says why, where"
}
bad '"abc"' 'expected a number (as in "90s" or "1h30m")'
bad 0 'sla must be above zero'
bad '"0s"' 'sla must be above zero'
bad -3 'negative duration'
bad true 'expected a duration such as "90s", "5m" or a number of seconds'
printf '{"sla": "30m", "start": {"tool": "noop"}}\n' >"$T_DIR/bare.json"
run_sluice check "$T_DIR/bare.json"
expect_rc 2 "in a bare flow \"sla\" is a step name"
like "$ERR" "\$.sla: a step must be an object, got a string (a flow's keys are steps" \
    "and the error says where sla belongs"
printf '{"sla": "30m", "flow": {"start": {"tool": "noop"}}}\n' \
    >"$T_DIR/ok.json"
run_sluice check "$T_DIR/ok.json"
expect_rc 0 "a wrapper with \"sla\": \"30m\" is valid"

# --- late, once, never cancelled -------------------------------------------------

cat >"$SLUICE_SITE_CONFIG" <<EOF
{"notify": [{"on": ["workflow_late"],
  "shell": "printf '%s %s %s\\\\n' \"\$SLUICE_EVENT\" \"\$SLUICE_WORKFLOW_ID\" \"\$SLUICE_SLA_MS\" >>'$T_DIR/notified'"}]}
EOF
cat >"$T_DIR/slow.json" <<'EOF'
{"description": "waits for a person, 1 s SLA", "sla": "1s",
 "flow": {"start": {"gate": {"message": "ok?"}}}}
EOF
cat >"$T_DIR/fast.json" <<'EOF'
{"description": "quick, 30 s SLA", "sla": "30s",
 "flow": {"start": {"tool": "noop"}}}
EOF
run_sluice template save slow "$T_DIR/slow.json"
run_sluice template save fast "$T_DIR/fast.json"
expect_rc 0 "templates with an sla save"

clock_offset 0
engine_start
run_sluice template run slow
expect_rc 0 "run a template with a 1 s SLA"
id=$OUT
q_is "SELECT sla_ms, late_at IS NULL FROM workflows WHERE id = $id" \
    "1000|1" "the SLA is stored with the workflow"
run_sluice template run fast
fast=$OUT
wait_for late_is "$id"
ok $? "unfinished after its SLA, it is marked late"
between 1000 2000 "$(q "SELECT late_at - started_at FROM workflows
    WHERE id = $id")" "1 s after it started"
q_is "SELECT status FROM workflows WHERE id = $id" running \
    "it is never cancelled"
is "$(q "SELECT who || '|' || target || '|' || comment FROM audit
    WHERE action = 'late' AND workflow_id = $id")" \
    "$me|workflow $id slow|still unfinished 1s after it started (its sla)" \
    "the audit trail records it"
like "$(q "SELECT detail_json FROM audit WHERE action = 'late'
    AND workflow_id = $id")" '"sla_ms":1000' "with the SLA in the detail"
wait_for file_has "$T_DIR/notified" "workflow_late $id 1000"
ok $? "a workflow_late notification goes out, with the SLA"
run_sluice list --json
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.late') || '|' ||
    (json_extract(value, '\$.late_at') > 0) || '|' ||
    json_extract(value, '\$.sla') FROM d, json_each(d.j)
    WHERE json_extract(value, '\$.id') = $id")" "1|1|1000" \
    "list --json: late, late_at and sla"
run_sluice list
like "$OUT" "$id   slow  late" "list shows it late"
run_sluice show "$id" --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.late') || '|' ||
    json_extract(j, '\$.sla') || '|' || json_extract(j, '\$.status') FROM d")" \
    "1|1000|running" "show --json: late, its SLA, still running"
run_sluice show "$id"
like "$OUT" "sla:      1s, late since" "show says so"
wait_for wf_is "$fast" completed
q_is "SELECT late_at IS NULL FROM workflows WHERE id = $fast" 1 \
    "a workflow that ends within its SLA is not late"
run_sluice show "$fast" --json
like "$OUT" '"late": false' "show --json says late false"

engine_stop
engine_start
run_sluice run "$T_DIR/ok.json" --at "in 0.5 seconds"
wait_for wf_is "$OUT" completed
is "$(late_rows "$id")" 1 "marked once: a restarted engine does not mark it again"
is "$(grep -c "workflow_late $id " "$T_DIR/notified")" 1 \
    "and notifies once"
g=$(step_id "$id" start)
run_sluice approve "$g"
wait_for wf_is "$id" completed
ok $? "a late workflow can still complete"
q_is "SELECT late_at IS NOT NULL FROM workflows WHERE id = $id" 1 \
    "and stays marked late"

# --- late while no engine ran --------------------------------------------------------

engine_stop
run_sluice template run slow
expect_rc 0 "a run with an SLA while no engine runs"
off=$OUT
clock_offset 3600000
engine_start
wait_for late_is "$off"
ok $? "the engine marks it late at start-up"
is "$(late_rows "$off")" 1 "once"
engine_stop
engine_start
run_sluice run "$T_DIR/ok.json" --at "in 0.5 seconds"
wait_for wf_is "$OUT" completed
is "$(late_rows "$off")" 1 "and not again at the next start"

# --- an SLA is a delay: a clock jump does not make a run late early -----------------

cat >"$T_DIR/slow2.json" <<'EOF'
{"sla": "2.5s", "flow": {"start": {"gate": {"message": "ok?"}}}}
EOF
run_sluice run "$T_DIR/slow2.json"
j=$OUT
n=$(audit_count clock-jump)
clock_offset 10800000
wait_for jumped $((n + 1))
ok $? "the clock jumps forward 2 h"
q_is "SELECT late_at IS NULL FROM workflows WHERE id = $j" 1 \
    "a 2.5 s SLA is not over because the wall clock jumped"
wait_for late_is "$j"
ok $? "it is marked late when 2.5 s have passed"
between 2500 3500 "$(q "SELECT late_at - started_at - 7200000 FROM workflows
    WHERE id = $j")" "2.5 s after it started, less the jump"

done_testing
