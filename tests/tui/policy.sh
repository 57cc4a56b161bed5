#!/bin/sh
# tests/tui/policy.sh: a gate's and a wait step's stored policy
# (gate_json) in the console, read by flow/policy.c's one strict reader.
# A readable one shows its message and who may decide or finish; one
# that cannot be read (a misspelt key) says so with the reason, on the
# run's row and on the step's page, instead of the defaults a lenient
# reading would show ("anyone who can open the database").

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

cat >"$T_DIR/gate.json" <<'J'
{"start": {"gate": {"message": "Ship it?", "approvers": ["nobody-else"]},
   "next": "end"},
 "end": {"tool": "noop"}}
J
cat >"$T_DIR/wait.json" <<'J'
{"start": {"wait": {"message": "finish me", "by": ["nobody-else"]},
   "next": "end"},
 "end": {"tool": "noop"}}
J

# The gate: readable first, then its approvers key misspelt.
run_sluice run "$T_DIR/gate.json"
id=$OUT
scr_start 200x60 --
scr_wait 'engine: this console'
scr_keys 1
scr_wait 'ID +NAME +STATUS'
scr_keys g Enter
scr_ok "start .*awaiting approval: Ship it\\?" \
    "the gate's row shows the message its policy keeps"
scr_keys Enter
scr_ok "approvers +nobody-else" "its page shows the approvers"
scr_keys q
g=$(step_id "$id" start)
q "UPDATE workflow_steps SET gate_json =
    replace(gate_json, '\"approvers\"', '\"aprovers\"') WHERE id = $g"
scr_ok "start .*awaiting approval: its stored policy cannot be read" \
    "with a misspelt key, the row says the policy cannot be read"
scr_keys Enter
scr_ok "policy +its stored policy cannot be read \\(gate_json \\\$\\.aprovers: unknown key" \
    "the page gives the reason and its JSON path"
scr_ok "no decision is taken" "... and that no decision is taken"
scr_gone_ok "anyone who can open the database" \
    "... never that anyone may approve"
scr_keys q q
scr_stop
run_sluice cancel "$id"

# The wait step: the same with its "by" misspelt.
run_sluice run "$T_DIR/wait.json"
id=$OUT
scr_start 200x60 --
scr_wait 'engine: this console'
scr_keys 1
scr_wait 'ID +NAME +STATUS'
scr_keys g Enter
scr_ok "start .*awaiting completion from outside: finish me" \
    "the wait step's row shows its message"
w=$(step_id "$id" start)
q "UPDATE workflow_steps SET gate_json =
    replace(gate_json, '\"by\"', '\"bye\"') WHERE id = $w"
scr_ok "start .*awaiting completion from outside: its stored policy cannot be read" \
    "with a misspelt key, the row says the policy cannot be read"
scr_keys Enter
scr_ok "policy +its stored policy cannot be read \\(gate_json \\\$\\.bye: unknown key" \
    "its page gives the reason and its JSON path"
scr_gone_ok "finished by" "... and names nobody who may finish it"
scr_keys q q
scr_stop
run_sluice cancel "$id"

done_testing
