#!/bin/sh
# tests/tui/retry-preview.sh: what R says a retry at a for-each's spent
# failure budget runs again is what the engine then runs again: the
# failed items and the one an operator cancelled (the budget counted it
# too), of that for-each only, not the failed item of an earlier for-each
# that ended within its budget.  The console's preview and the engine
# share one rule (flow_foreach_budget_plan), so they cannot drift apart.
# Scripted screens, no tmux.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# label_is WF LABEL STATUS: WF's latest row of item LABEL is STATUS.
label_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $1
	    AND label = '$2' ORDER BY id DESC LIMIT 1")" = "$3" ]
}

# budget_waits WF: WF's for-each waits at its failure budget.
budget_waits() {
	[ -n "$(q "SELECT id FROM workflow_steps WHERE workflow_id = $1 AND
	    status = 'waiting' AND label = 'failure budget'")" ]
}

cat >"$T_DIR/budget.json" <<'EOF'
{"pre": {"foreach": ["pre-bad", "pre-ok"], "max_failures": 1,
  "label": "{{item}}", "next": "main",
  "do": {"shell": "[ \"$H\" != pre-bad ]", "env": {"H": "{{item}}"},
   "retry": {"max_attempts": 1}}},
 "main": {"foreach": ["hung", "bad", "fine"], "concurrency": 1,
  "max_failures": 1, "on_budget_spent": "ask", "label": "{{item}}",
  "do": {"shell": "case $H in hung) exec sleep 60;; bad) exit 1;; esac",
   "env": {"H": "{{item}}"}, "retry": {"max_attempts": 1}}}}
EOF

engine_start
run_sluice run "$T_DIR/budget.json"
id=$OUT
wait_for label_is "$id" hung running
ok $? "the earlier for-each ended within its budget; an item hangs"
hung=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id
    AND label = 'hung'")
run_sluice cancel --step "$hung" -m "host unreachable"
expect_rc 0 "an operator cancels the hung item"
wait_for budget_waits "$id"
ok $? "the next item fails: the budget (1) is spent, its gate waits"

gate=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id
    AND label = 'failure budget'")

scr_start 200x30 --
scr_ok "^$id " "the run is listed"
scr_keys R
scr_ok "Retry the failed items of main in workflow $id: hung, bad \\(2 items\\)" \
    "R names the cancelled and the failed item, not the earlier for-each's"
scr_keys y
scr_ok "retry $id: retrying 2 failed items of main in workflow $id: hung, bad" \
    "the engine's retry runs again the same two"
is "$(q "SELECT group_concat(label, ' ') FROM (SELECT label FROM
    workflow_steps WHERE workflow_id = $id AND item_index IS NOT NULL
    AND id > $gate ORDER BY id)")" "hung bad" \
    "new rows for exactly those two"
run_sluice cancel "$id"
expect_rc 0 "the run is cancelled (its hung item would sleep on)"
wait_for wf_is "$id" cancelled
scr_stop
is "$SCR_STATUS" 0 "the console quits cleanly"
scr_sanitizers_ok "no sanitizer report from the console"
engine_stop
done_testing
