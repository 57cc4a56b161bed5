#!/bin/sh
# tests/cli/policy.sh: a gate's and a wait step's stored policy
# (gate_json, flow/policy.c) is read strictly, because who may decide
# comes from it.  A misspelt key ("aprovers": read as no list, anyone
# could approve) or a value of the wrong type refuses every decision
# with the reason and its JSON path, changes nothing and is audited; the
# same row with its policy put right is decided as usual.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

me=$(id -un)

engine_start

cat >"$T_DIR/gate.json" <<'EOF2'
{"start": {"tool": "noop", "next": "g"},
 "g": {"gate": {"message": "Ship?", "approvers": ["nobody-else"]},
   "next": "end"},
 "end": {"tool": "noop"}}
EOF2
cat >"$T_DIR/wait.json" <<'EOF2'
{"start": {"wait": {"message": "finish me", "by": ["nobody-else"]},
   "next": "end"},
 "end": {"tool": "noop"}}
EOF2

run_sluice run "$T_DIR/gate.json"
id=$OUT
wait_for step_is "$id" g waiting
ok $? "a gate waits"
g=$(step_id "$id" g)
is "$(q "SELECT gate_json FROM workflow_steps WHERE id = $g")" \
    '{"message":"Ship?","approvers":["nobody-else"],"quorum":1,"allow_self":true,"agents":false}' \
    "the policy is stored as it always was"

run_sluice approve "$g" -m ok
expect_rc 4 "not an approver: refused"
like "$ERR" "is not an approver of gate g" "... by the approvers list"

# The list's key misspelt, as an older or foreign writer might leave it.
q "UPDATE workflow_steps SET gate_json =
    replace(gate_json, '\"approvers\"', '\"aprovers\"') WHERE id = $g"
run_sluice approve "$g" -m ok
expect_rc 4 "a misspelt key refuses the decision (it does not mean anyone)"
is "$ERR" "sluice: gate g (step $g): its stored policy cannot be read (gate_json \$.aprovers: unknown key in a gate's policy), so no decision is taken" \
    "... saying which key, and why"
is "$(col "$id" g status)" waiting "... and the gate still waits"
reason='its stored policy cannot be read (gate_json $.aprovers: unknown key in a gate'"'"'s policy)'
run_sluice gates
like "$OUT" "$reason" "the approval queue says the policy cannot be read"
run_sluice gates --json
like "$OUT" "\"message\": \"$reason\"" "... and so does gates --json"
like "$OUT" '"quorum": 1' "... with the quorum of a gate that says none"
is "$(q "SELECT count(*) FROM approvals WHERE step_id = $g")" 0 \
    "... with no approval recorded"
is "$(q "SELECT action FROM audit ORDER BY id DESC LIMIT 1")" \
    approve-refused "... and the refusal audited"
run_sluice reject "$g" -m no
expect_rc 4 "a rejection is refused too"
run_sluice skip "$g" -m skip
expect_rc 4 "and a skip"
like "$ERR" "stored policy cannot be read" "... with the same reason"

# A value of the wrong type.
q "UPDATE workflow_steps SET gate_json =
    '{\"message\":\"Ship?\",\"approvers\":\"$me\",\"quorum\":1}'
    WHERE id = $g"
run_sluice approve "$g" -m ok
expect_rc 4 "approvers as a string, not a list: refused"
like "$ERR" 'gate_json $.approvers: expected an array of names, got a string' \
    "... naming the path and the type"
q "UPDATE workflow_steps SET gate_json =
    '{\"message\":\"Ship?\",\"approvers\":[\"$me\"],\"quorum\":\"1\"}'
    WHERE id = $g"
run_sluice approve "$g" -m ok
expect_rc 4 "a quorum that is a string: refused"
like "$ERR" 'quorum: expected a whole number above zero, got a string' \
    "... naming it"
q "UPDATE workflow_steps SET gate_json = 'not json' WHERE id = $g"
run_sluice approve "$g" -m ok
expect_rc 4 "a policy that is not JSON: refused"

# Put right, the same gate is decided as usual.
q "UPDATE workflow_steps SET gate_json =
    '{\"message\":\"Ship?\",\"approvers\":[\"$me\"],\"quorum\":1}'
    WHERE id = $g"
run_sluice approve "$g" -m ok
expect_rc 0 "the policy put right: approved"
wait_for wf_is "$id" completed
ok $? "... and the run completes"

# A wait step's "by", misspelt.
run_sluice run "$T_DIR/wait.json"
wid=$OUT
wait_for step_is "$wid" start waiting
ok $? "a wait step waits"
w=$(step_id "$wid" start)
run_sluice show "$wid"
like "$OUT" "from outside by nobody-else: sluice complete $w" \
    "show says who may finish the wait step, read from its policy"
run_sluice show "$wid" --json
like "$(printf '%s' "$OUT" | tr -d ' \n')" \
    '"by":["nobody-else"],"operators":false,"complete":"sluicecomplete' \
    "... and show --json"
q "UPDATE workflow_steps SET gate_json =
    replace(gate_json, '\"by\"', '\"bye\"') WHERE id = $w"
run_sluice complete "$w"
expect_rc 4 "a wait step whose \"by\" is misspelt cannot be completed"
like "$ERR" 'gate_json $.bye: unknown key in a wait step' \
    "... saying why"
is "$(col "$wid" start status)" waiting "... and it still waits"
run_sluice show "$wid"
like "$OUT" 'its stored policy cannot be read (gate_json $.bye: unknown key' \
    "show says the wait step's policy cannot be read, not who may finish"
unlike "$OUT" "from outside by" "... naming nobody"
run_sluice show "$wid" --json
like "$OUT" '"error": "its stored policy cannot be read' \
    "show --json says it as the wait's error"

engine_stop
done_testing
