#!/bin/sh
# tests/tui/foreach.sh: a rolling restart of 20 demo hosts driven from the
# console: the for-each shows as one row with its batch, failures and
# counts; y at each batch gate lets the next batch go; after the second
# failure the budget gate waits; R says which hosts run again and retries
# exactly those two; Enter expands the for-each to one row per host and
# collapses it; f follows into it; the Gates view names a batch gate by
# its step and label; c on a running item cancels that item alone.  At
# 80x24 and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

export SLUICE_TOOLS="$TOP_SRCDIR/share/tools.json"
export SLUICE_DEMO_SECONDS=0

# gate_waiting WF LABEL: the for-each gate LABEL of WF waits.
gate_waiting() {
	[ -n "$(q "SELECT id FROM workflow_steps WHERE workflow_id = $1 AND
	    status = 'waiting' AND item_of IS NOT NULL AND item_index IS NULL
	    AND label LIKE '$2%'")" ]
}

# step_label_is WF LABEL STATUS: WF's latest row of item LABEL is STATUS.
step_label_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $1
	    AND label = '$2' ORDER BY id DESC LIMIT 1")" = "$3" ]
}

# approve_here: approve the waiting gate (collapsed, the last row) from
# the console.
approve_here() {
	scr_keys G y
	scr_wait 'approve workflow [0-9]+ rolling-restart, step restart before batch [23] of 3 \(step [0-9]+\)' ||
	    return 1
	scr_keys Enter
}

run_sluice template save rolling-restart \
    "$TOP_SRCDIR/share/templates/rolling-restart.json"
expect_rc 0 "the rolling-restart template saves"
SLUICE_DEMO_FAIL="web-04 web-09" engine_start
run_sluice template run rolling-restart -i service=nginx
id=$OUT
wait_for gate_waiting "$id" "before batch 2"
ok $? "the rolling restart waits at its first batch gate"

scr_start 80x24 --
scr_ok "^$id +rolling-rest" "the run is listed"
scr_resize 200x60
scr_keys 2
scr_ok 'restart \(before batch 2 of 3\)' \
    "the Gates view names the batch gate by its step and label"
scr_keys 1
scr_resize 80x24
scr_ok "^$id +rolling-rest" "back to the workflows"
scr_keys Enter
scr_ok '^◆ restart +host-restart +[0-9]+m?s batch 2/3; 0 of 1 failures; 1 done' \
    "the for-each is one row: batch 2/3 next, 0 of 1 failures, 1 done"
scr_ok '◆ before batch 2 of 3 +gate' \
    "its waiting batch gate shows under it"
scr_ok '^└─ ◆ before batch 2' "... as a child of the for-each row"
scr_gone_ok '─ . web-0' "the items stay collapsed"
approve_here
scr_ok "approve [0-9]+: approved" "y approves the batch gate"
wait_for gate_waiting "$id" "before batch 3"
scr_ok '◆ before batch 3 of 3' "the next batch gate waits"
scr_ok 'batch 3/3; 1 of 1 failures; 5 done' \
    "batch 2 ended: 5 done, 1 of 1 failures used, batch 3 next"
approve_here
wait_for gate_waiting "$id" "failure budget"
ok $? "the second failure spends the budget"
scr_ok '◆ failure budget +gate' "the budget gate shows"
scr_ok 'batch 3/3; 2 of 1 failures' "the for-each row: 2 of 1 failures"

# The hosts come back: the engine goes on without the failures.
engine_stop
engine_start
scr_keys R
scr_ok 'Retry the failed items of restart in workflow [0-9]+: web-04,' \
    "R says which hosts run again"
scr_ok 'web-04, web-09 \(2' "... exactly the two that failed"
scr_ok 'items\) run again, and the rollout goes on' "... and the rollout goes on"
scr_keys y
scr_ok "retry $id: retrying 2 failed items" \
    "the retry is sent; the message line echoes it"
wait_for wf_is "$id" completed
ok $? "the rolling restart completes"
scr_ok '✓ completed' "the header says completed"
scr_ok 'batch 3/3; 0 of 1 failures; 20 done' \
    "the for-each row: every host done"
is "$(q "SELECT group_concat(label, ' ') FROM (SELECT label FROM
    workflow_steps WHERE workflow_id = $id AND item_index IS NOT NULL
    AND attempt = 2 ORDER BY id)")" "web-04 web-09" \
    "the console's retry re-ran exactly those two hosts"

# Expand and collapse.
scr_keys g
scr_wait '▶|✓ restart' >/dev/null
scr_keys Enter
scr_ok '├─ ✓ web-01 +host-restart' "Enter expands: one row per host"
scr_ok '✓ web-04 +host-restart +#2' "a retried host shows its attempt"
scr_resize 200x60
scr_ok '└─ ✓ web-20 +host-restart .*"host":"web-20"' \
    "at 200x60 every host shows, with its result"
scr_ok 'batch 3/3; 0 of 1 failures; 20 done \(Enter collapses\)' \
    "and the whole summary: Enter collapses it"
scr_keys g Enter
scr_gone_ok '─ . web-01' "Enter again collapses it"
scr_resize 80x24

# f follows into a for-each that runs, at once: its items run for a
# minute, so nothing else changes to have the view read them.
cat >"$T_DIR/slow.json" <<'EOF'
{"start": {"foreach": ["s1", "s2", "s3"], "concurrency": 1,
  "do": {"tool": "sleep", "args": {"seconds": 60}}}}
EOF
run_sluice run "$T_DIR/slow.json"
sid=$OUT
scr_keys q 1
scr_ok "^$sid +slow" "the slow run is listed"
scr_keys g Enter
scr_ok '▶ start' "its run view opens"
scr_keys f
scr_ok '▶ s[123] +sleep' "f opens the for-each and follows the running item"
run_sluice cancel "$sid"
wait_for wf_is "$sid" cancelled
# c on a running item cancels that item alone, echoing cancel --step;
# on the for-each's own row c still asks about the workflow.
cat >"$T_DIR/hang.json" <<'EOF'
{"start": {"foreach": ["h1", "h2"], "concurrency": 1, "max_failures": 1,
  "do": {"tool": "sleep", "args": {"seconds": 60}}}}
EOF
run_sluice run "$T_DIR/hang.json"
hid=$OUT
wait_for step_label_is "$hid" h1 running
scr_keys q 1
scr_ok "^$hid +hang" "the hanging run is listed"
scr_keys g Enter
scr_ok '▶ start' "its run view opens"
scr_keys c
scr_ok "Cancel workflow $hid hang" \
    "c on the for-each's row asks about the workflow"
scr_keys n
scr_ok "cancel: not sent" "n leaves it running"
scr_keys Enter
scr_ok '─ ▶ h1 +sleep' "Enter expands it: h1 runs"
scr_keys j
scr_keys c
scr_ok "Cancel item h1 of workflow $hid hang, step start h1 \(step [0-9]+\)\?" \
    "c on a running item offers to cancel that item"
scr_keys y
scr_ok "sluice .*cancel --step [0-9]+: cancelled item h" \
    "the message line echoes the equivalent command and its answer"
wait_for step_label_is "$hid" h2 running
ok $? "the next item runs: only h1 was cancelled"
is "$(q "SELECT status FROM workflows WHERE id = $hid")" running \
    "the workflow goes on"
run_sluice cancel "$hid"
wait_for wf_is "$hid" cancelled
scr_sanitizers_ok "no sanitizer report from the console"
engine_stop
done_testing
