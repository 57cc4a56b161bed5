#!/bin/sh
# tests/tui/subflow.sh: a sub-workflow in the console.  The parent's run
# view shows its sub-workflow step standing for the child run; Enter on it
# opens the child's run view, which names its parent and its waiting
# gate; the gates view names the parent; once the child's gate is
# approved the parent completes and its header shows its output.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

cat >"$T_DIR/child.json" <<'EOF'
{"flow": {"start": {"tool": "echo", "args": {"v": "{{input.v}}"},
   "next": "ok"},
  "ok": {"gate": {"message": "ship {{input.v}}?"}}},
 "output": {"shipped": "{{steps.start.result.v}}"}}
EOF
cat >"$T_DIR/parent.json" <<'EOF'
{"start": {"workflow": "child", "input": {"v": "2.1"}, "next": "done"},
 "done": {"tool": "noop"},
 "output": {"child": "{{steps.start.result}}"}}
EOF
run_sluice template save child "$T_DIR/child.json"
expect_rc 0 "the child template is saved"
run_sluice run "$T_DIR/parent.json"
is "$OUT" 1 "the parent is recorded, to run when the console starts"

scr_start 100x30 --
scr_wait 'engine: this console'
wait_for step_is 1 start running
cid=$(q "SELECT child_id FROM workflow_steps WHERE workflow_id = 1
    AND name = 'start'")
is "$cid" 2 "the console's engine started the child run"
scr_keys 1
scr_wait 'ID +NAME +STATUS'
scr_ok '^2 +child \(of 1\) ' "the Workflows view marks the child run"
scr_keys G Enter
scr_ok '^#1 parent +▶ running' "the parent's run view"
scr_ok "^▶ start +child .*child run #2 \\(Enter opens it\\)" \
    "its sub-workflow step stands for the child run"
scr_keys g Enter
scr_ok '^#2 child +◆ waiting +child@1 +by [a-z0-9_-]+ +child of #1' \
    "Enter on it opens the child's run view, naming the parent"
scr_ok '^◆ ok +gate +.*awaiting approval: ship 2\.1\?' "... with its waiting gate"
scr_keys Escape 2
scr_ok '2 child \(of 1\)' "the gates view names the child's parent"
run_sluice approve "$(step_id 2 ok)" -m fine
expect_rc 0 "approve the child's gate"
wait_for wf_is 1 completed
ok $? "the parent completes with its child"
scr_keys 1
scr_wait 'ID +NAME +STATUS'
scr_keys G Enter
scr_ok '^#1 parent +✓ completed' "the parent's run view, completed"
scr_ok '^output: \{"child":\{"shipped":"2\.1"\}\}' \
    "its header shows its output"

scr_stop
scr_sanitizers_ok "no sanitizer reports"

done_testing
