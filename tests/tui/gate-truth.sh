#!/bin/sh
# tests/tui/gate-truth.sh: a gate's page says what the engine then does.
# For each kind of gate a person decides beyond the ordinary one (a
# for-each's gate before a batch, its gate at a spent failure budget, a
# child run's gate) the page is read from the console at 200x60, where
# it shows whole, the gate is decided from the console (approved, or in
# a second run rejected), and the store is asked what the engine did:
# the items the page said approval starts are the ones that started, the
# items it said rejection leaves never ran, the run and the parent end as
# it said.  The prompts name the workflow, the step and the batch.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

cat >"$T_DIR/batch.json" <<'J'
{"start": {"name": "restart",
  "foreach": ["web-01", "web-02", "web-03", "web-04", "web-05", "web-06"],
  "concurrency": 2, "batch": [1, 2, "100%"],
  "gate_between_batches": {"message": "Go on?"},
  "max_failures": 1, "on_budget_spent": "ask",
  "do": {"tool": "noop"}, "next": "report"},
 "report": {"tool": "noop"}}
J
cat >"$T_DIR/budget.json" <<'J'
{"start": {"name": "rollout",
  "foreach": ["ok-1", "down-2", "down-3", "ok-4", "ok-5"],
  "concurrency": 1, "max_failures": 1, "on_budget_spent": "ask",
  "do": {"run": ["sh", "-c", "case $H in down*) exit 1;; esac"],
         "env": {"H": "{{item}}"}, "retry": {"max_attempts": 1}},
  "next": "report"},
 "report": {"tool": "noop"}}
J
cat >"$T_DIR/child.json" <<'J'
{"start": {"tool": "noop", "next": "ok"},
 "ok": {"gate": {"message": "Ship the child?"}}}
J
cat >"$T_DIR/parent.json" <<'J'
{"start": {"name": "deploy", "workflow": "child-ship", "next": "announce"},
 "announce": {"tool": "echo", "args": {"text": "shipped"}}}
J
run_sluice template save child-ship "$T_DIR/child.json"
expect_rc 0 "the child template saves"

# gate_of WF: the id of WF's waiting gate, if one waits.
gate_of() {
	q "SELECT id FROM workflow_steps WHERE workflow_id = $1 AND
	    status = 'waiting' ORDER BY id LIMIT 1"
}

# gate_waits WF: a gate of WF waits.
gate_waits() {
	[ -n "$(gate_of "$1")" ]
}

# started WF LO HI: the labels of WF's items LO..HI-1 (by index) that
# started, in index order, comma separated.
started() {
	q "SELECT group_concat(label, ', ') FROM (SELECT label FROM
	    workflow_steps WHERE workflow_id = $1 AND item_index >= $2 AND
	    item_index < $3 AND started_at IS NOT NULL GROUP BY item_index
	    ORDER BY item_index)"
}

# never_ran WF: the labels of WF's items that never started.
never_ran() {
	q "SELECT group_concat(label, ', ') FROM (SELECT label,
	    max(started_at IS NOT NULL) AS ran FROM workflow_steps
	    WHERE workflow_id = $1 AND item_index IS NOT NULL
	    GROUP BY item_index HAVING ran = 0 ORDER BY item_index)"
}

# page_line REGEX: the first line of the last screen matching REGEX,
# without its field name.
page_line() {
	printf '%s\n' "$SCR_LAST" | grep -E -m1 -- "$1" |
	    sed -E 's/^  [a-z ]{11} //'
}

# batch_gate_waits WF N: WF's gate before batch N waits.
batch_gate_waits() {
	[ -n "$(q "SELECT id FROM workflow_steps WHERE workflow_id = $1 AND
	    status = 'waiting' AND label LIKE 'before batch $2 %'")" ]
}

# child_of WF: the id of WF's child run; 1 while it has none.
child_of() {
	_c=$(q "SELECT id FROM workflows WHERE parent_id = $1")
	[ -n "$_c" ] && echo "$_c"
}

# open_gate WF: the Gates view (WF's gate the only one waiting), the
# gate opened, read at 200x60.
open_gate() {
	scr_keys 2
	scr_wait "^$(gate_of "$1") " >/dev/null
	scr_keys g Enter
	scr_wait 'If rejected' >/dev/null
}

# decide Y|N: y or n on the open gate page, with a comment.
decide() {
	scr_keys "$1"
	scr_wait ' - |comment|reason' >/dev/null
	scr_type "page test"
	scr_keys Enter
}

# back: from the gate page to the workflows, the filter cleared.
back() {
	scr_keys q Escape 1
}

scr_start 200x60 --
scr_wait 'Workflows' >/dev/null

# 1. A batch gate, approved: what starts is what the page said.
run_sluice run "$T_DIR/batch.json" --name batchy
b1=$OUT
wait_for gate_waits "$b1"
open_gate "$b1"
scr_check "the batch gate's page lists the finished batch" \
    'printf "%s\n" "$SCR_LAST" | grep -q "finished    batch 1 of 3: 1 item, 0 failed: ✓ web-01"'
want=$(page_line '^  starts ' | sed -E 's/^batch 2 of 3: [0-9]+ items?: //')
is "$want" "web-02, web-03" "the page says approval starts batch 2: web-02, web-03"
scr_keys y
scr_ok "approve workflow $b1 batchy, step restart before batch 2 of 3 \\(step [0-9]+\\)" \
    "the approve prompt names the workflow, the step and the batch"
scr_type "page test"
scr_keys Enter
wait_for batch_gate_waits "$b1" 3
is "$(started "$b1" 1 6)" "$want" \
    "the engine started exactly the items the page named"
is "$(q "SELECT label FROM workflow_steps WHERE workflow_id = $b1 AND
    status = 'waiting'")" "before batch 3 of 3" \
    "then a gate asks before batch 3 of 3, as the page said"
run_sluice cancel "$b1"
wait_for wf_ended "$b1"
back

# 2. A batch gate, rejected: the items left never run, the run fails.
run_sluice run "$T_DIR/batch.json" --name batchy2
b2=$OUT
wait_for gate_waits "$b2"
open_gate "$b2"
said=$(page_line 'stops: the [0-9]+ items? not started never run')
like "$said" "restart stops: the 5 items not started never run; restart fails and so does the workflow" \
    "the page says what rejecting the batch gate does"
decide n
wait_for wf_ended "$b2"
is "$(q "SELECT status FROM workflows WHERE id = $b2")" failed \
    "the workflow failed, as the page said"
is "$(never_ran "$b2")" "web-02, web-03, web-04, web-05, web-06" \
    "the 5 items not started never ran"
back

# 3. A budget gate, continued: the items not started run, it goes on.
run_sluice run "$T_DIR/budget.json" --name budgety
u1=$OUT
wait_for gate_waits "$u1"
open_gate "$u1"
scr_check "the budget gate's page lists the failed items" \
    'printf "%s\n" "$SCR_LAST" | grep -q "✗ down-2" &&
     printf "%s\n" "$SCR_LAST" | grep -q "✗ down-3"'
said=$(page_line 'forgiven and rollout goes on')
like "$said" "the 2 failures are forgiven and rollout goes on: 2 items not started yet" \
    "the page says continuing starts the 2 items not started"
scr_check "the page says what retry does" \
    'printf "%s\n" "$SCR_LAST" | grep -q "the failed items run again (down-2, down-3)"'
decide y
wait_for wf_ended "$u1"
is "$(q "SELECT status FROM workflows WHERE id = $u1")" completed \
    "the rollout went on and the workflow completed"
is "$(started "$u1" 3 5)" "ok-4, ok-5" "the 2 items not started ran"
back

# 4. A budget gate, aborted: the items not started never run.
run_sluice run "$T_DIR/budget.json" --name budgety2
u2=$OUT
wait_for gate_waits "$u2"
open_gate "$u2"
said=$(page_line 'rollout stops')
like "$said" "rollout stops: the 2 items not started never run; rollout fails and so does the workflow" \
    "the page says what aborting does"
decide n
wait_for wf_ended "$u2"
is "$(q "SELECT status FROM workflows WHERE id = $u2")" failed \
    "the workflow failed, as the page said"
is "$(never_ran "$u2")" "ok-4, ok-5" "the 2 items not started never ran"
back

# 5. A child run's gate: its end moves the parent's step as said.
run_sluice run "$T_DIR/parent.json" --name parenty
p1=$OUT
wait_for child_of "$p1"
c1=$(child_of "$p1")
wait_for gate_waits "$c1"
open_gate "$c1"
said=$(page_line '^  parent .*goes on')
like "$said" "workflow $p1 parenty goes on: its step deploy is done" \
    "the child's page says approval ends the run and the parent goes on"
decide y
wait_for wf_ended "$p1"
is "$(q "SELECT status FROM workflows WHERE id = $c1")" completed \
    "the child completed"
is "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $p1 AND
    step_key = 'start' ORDER BY id DESC LIMIT 1")" done \
    "the parent's step deploy is done"
back

run_sluice run "$T_DIR/parent.json" --name parenty2
p2=$OUT
wait_for child_of "$p2"
c2=$(child_of "$p2")
wait_for gate_waits "$c2"
open_gate "$c2"
said=$(printf '%s\n' "$SCR_LAST" | sed -n '/If rejected/,$p' |
    grep -E -m1 '^  parent ' | sed -E 's/^  parent +//')
is "$said" "its step deploy in workflow $p2 parenty2 fails" \
    "the child's page says rejection fails the parent's step"
decide n
wait_for wf_ended "$p2"
is "$(q "SELECT status FROM workflow_steps WHERE workflow_id = $p2 AND
    step_key = 'start' ORDER BY id DESC LIMIT 1")" failed \
    "the parent's step deploy failed"
scr_sanitizers_ok "no sanitizer report from the console"
done_testing
