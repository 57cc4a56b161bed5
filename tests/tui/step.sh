#!/bin/sh
# tests/tui/step.sh: a step's details (a done step's args and result, a
# failed step's exit code and error, a gate's detail: its message, the
# run's input, the results before it, the next step's resolved args, who
# started the run), the log pager (content, stderr marked, search with n
# and N, following a running step's new output, the cut mark at the log
# limit) and the preview R shows before a retry.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

ME=$(id -un)

# rows_are SQL WANT: the query's whole output is WANT (for wait_for).
rows_are() {
	[ "$(q "$1")" = "$2" ]
}

cat >"$T_DIR/greet.json" <<'EOF'
{"start": {"name": "greet", "args": {"who": "{{input.who}}"},
  "shell": "echo \"greeting $SLUICE_ARG_WHO\" >&2; printf '{\"greeting\": \"hello %s\", \"n\": 42}\\n' \"$SLUICE_ARG_WHO\"",
  "done": true}}
EOF
cat >"$T_DIR/deploy.json" <<'EOF'
{"start": {"name": "prepare", "shell": "echo '{\"ready\": true}'",
  "next": "apply"},
 "apply": {"shell": "echo 'disk full on /var' >&2; exit 3",
  "retry": {"max_attempts": 1}, "next": "verify"},
 "verify": {"shell": "true", "next": "announce"},
 "announce": {"shell": "true", "done": true}}
EOF
cat >"$T_DIR/ship.json" <<'EOF'
{"start": {"name": "build",
  "shell": "printf '{\"artifact\": \"app-1.2.tar\", \"sha\": \"abc123\"}\\n'",
  "next": "approve"},
 "approve": {"gate": {"timeout": "1h",
  "message": "Ship {{steps.build.result.artifact}} to {{input.env}}?"},
  "next": "ship"},
 "ship": {"args": {"artifact": "{{steps.build.result.artifact}}",
  "target": "{{input.env}}"}, "shell": "echo shipping", "done": true}}
EOF
cat >"$T_DIR/signoff.json" <<'EOF'
{"start": {"name": "build", "shell": "true", "next": "approve"},
 "approve": {"name": "sign off", "gate": {"message": "Sign off?"},
  "branch": [{"if": "steps.\"sign off\".result == 'approved'",
   "then": "ship"}, {"else": "hold"}]},
 "ship": {"shell": "echo shipping", "done": true},
 "hold": {"shell": "echo holding", "done": true}}
EOF
# The ticker writes its first 60 lines at once (six "warn" lines on
# stderr for the search to find), then one line each 0.2 s to follow.
cat >"$T_DIR/ticker.json" <<'EOF'
{"start": {"name": "tick", "timeout": "5m",
  "shell": "i=0; while [ $i -lt 1500 ]; do i=$((i+1)); echo \"line $i\"; [ $((i % 10)) = 0 ] && echo \"warn $i\" >&2; [ $i -gt 60 ] && sleep 0.2; done",
  "done": true}}
EOF
cat >"$T_DIR/flood.json" <<'EOF'
{"start": {"name": "flood",
  "shell": "head -c 1200000 /dev/zero | tr '\\0' x | fold -w 100",
  "done": true}}
EOF

run_sluice run "$T_DIR/greet.json" -i who=world
G=$OUT
run_sluice run "$T_DIR/deploy.json"
DP=$OUT
run_sluice run "$T_DIR/ship.json" -i env=prod
SH=$OUT
run_sluice run "$T_DIR/flood.json"
FL=$OUT
is "$G $DP $SH $FL" "1 2 3 4" "four runs recorded"

scr_start 100x30 --
scr_ok 'engine: this console' "the console runs the engine"
wait_for wf_is "$G" completed
ok $? "greet completes"
wait_for wf_is "$DP" failed
ok $? "deploy fails at apply"
wait_for step_is "$SH" approve waiting
ok $? "ship waits at its gate"
wait_for wf_is "$FL" completed
ok $? "flood completes (its log cut)"

# --- a done step -------------------------------------------------------------

scr_open_step greet greet
ok $? "Enter on a step row opens its details"
scr_ok '^  runs +shell' "the details say what the step runs"
scr_ok '^  ended +[0-9:]+, took ' "... when it ended and how long it took"
scr_ok '^Args$' "... its args"
scr_ok '^ +"who": "world"$' "... resolved from the input"
scr_ok '^Result$' "... its result"
scr_ok '^ +"greeting": "hello world",$' "... pretty-printed"
scr_ok '^ +"n": 42$' "... every member"
scr_ok '^  [0-9:]+ ┃ greeting world$' \
    "... the last lines of its log, stderr marked"
scr_ok 'l shows all of it' "... and how to see the whole log"

# --- a failed step -----------------------------------------------------------

scr_open_step deploy apply
ok $? "the failed step's details open"
scr_ok '^. apply  failed' "its status"
scr_ok '^  exit code +3$' "its exit code"
scr_ok '^  error +exit status 3' "its error"
scr_ok '^  [0-9:]+ ┃ disk full on /var$' "what it wrote to stderr"

# --- a gate's detail ---------------------------------------------------------

scr_keys 2
scr_wait 'Ship app-1.2.tar to prod' || true
scr_keys Enter
scr_ok '^. approve  waiting' "Enter on a gate opens its detail"
scr_ok "^  workflow +$SH ship \(waiting\), started by $ME at " \
    "the detail says who started the run, and when"
scr_ok '^  message +Ship app-1.2.tar to prod\?$' "... the gate's message"
scr_ok '^  quorum +0 of 1 approved so far$' "... the approvals so far"
scr_ok '^  approvers +anyone who can open the database$' \
    "... who may approve (no list: anyone)"
scr_ok '^  times out +[0-9:]+ \(in 59m\), then it is rejected$' \
    "... when it times out"
scr_ok '^Input of the workflow$' "... the workflow's input"
scr_ok '^ +"env": "prod"$' "... every member of it"
scr_ok '^  . build +\{"artifact":"app-1.2.tar","sha":"abc123"\}' \
    "... the results of the steps before it"
scr_keys G
scr_ok '^  next +ship \(shell\)$' "... the step that runs next if approved"
scr_ok '^ +"artifact": "app-1.2.tar",$' "... its args resolved now"
scr_ok '^ +"target": "prod"$' "... from the input too"
scr_ok '^If rejected$' "... and what happens on a rejection"
scr_keys y
scr_wait 'comment, optional' || true
scr_type "ship it"
scr_keys Enter
scr_ok "^  decisions +. $ME approved at [0-9:]+: ship it$" \
    "y approves from the detail; the decision shows with its comment"
scr_ok '^. approve  done' "... and the gate is done"
wait_for wf_is "$SH" completed
ok $? "the approved run completes"
q_is "SELECT comment FROM approvals WHERE workflow_id = $SH" "ship it" \
    "the comment is recorded"

# The preview reads the engine's own scope (flow/scope.c): a branch that
# names the gate by its name goes where the engine will go.
run_sluice run "$T_DIR/signoff.json"
SO=$OUT
wait_for rows_are "SELECT status FROM workflow_steps WHERE workflow_id = $SO
    AND step_key = 'approve'" waiting
scr_open_step signoff "sign off"
ok $? "a gate whose branch names it opens"
scr_keys G
scr_ok '^  next +ship \(shell\)$' \
    "the preview follows the branch that names the gate by its name"
run_sluice approve "$(q "SELECT id FROM workflow_steps WHERE
    workflow_id = $SO AND step_key = 'approve'")" -m ok
wait_for wf_is "$SO" completed
q_is "SELECT group_concat(step_key) FROM workflow_steps WHERE
    workflow_id = $SO AND step_key IN ('ship', 'hold')" ship \
    "the engine takes the branch the preview showed"

# --- the log pager -----------------------------------------------------------

scr_open_step flood flood
ok $? "a flooded step's details open"
scr_keys G
scr_ok 'output cut here' "its log tail shows where the output was cut"
scr_keys l
scr_ok '^. flood  step [0-9]+  done' "l opens the log pager"
scr_ok '^[0-9:]+ │ x{80}' "... with the step's output"
scr_keys G
scr_ok 'output cut here: a step keeps at most 1 MiB of log' \
    "... and a cut mark where the limit was reached"

run_sluice run "$T_DIR/ticker.json"
TK=$OUT
wait_for step_is "$TK" tick running
ok $? "a ticking step is running"
scr_open_step ticker tick
ok $? "a running step's details open"
scr_ok '^  running +for [0-9]+' "... saying how long it has been running"
scr_keys l
scr_ok '^. tick  step [0-9]+  running  following \(f stops\)' \
    "the pager follows a running step"
scr_wait '│ line [0-9]+$'
last=$(scr_screen | sed -n 's/.*│ line \([0-9]*\)$/\1/p' | tail -1)
scr_ok "│ line $((last + 5))\$" "... showing new output as it comes" 5
scr_ok '┃ warn [0-9]+0$' "... stderr marked apart"
scr_keys f
scr_ok 'running  \(f follows\)' "f stops following"
scr_keys g
scr_ok '^[0-9:]+ │ line 1$' "g goes to the top"
scr_keys /
scr_type "warn"
scr_keys Enter
scr_ok '/warn 1/[0-9]+ ' "/ searches; the title counts the matches"
scr_ok '^[0-9:]+ ┃ warn 10$' "... and shows the first one"
scr_keys n
scr_ok '/warn 2/[0-9]+ ' "n goes to the next match"
scr_keys n n
scr_ok '/warn 4/[0-9]+ ' "... and the next"
scr_ok '^[0-9:]+ ┃ warn 40$' "... which is on screen"
scr_keys N
scr_ok '/warn 3/[0-9]+ ' "N to the previous one"
scr_keys Escape
scr_gone_ok '/warn [0-9]' "Esc clears the search"
scr_keys f
scr_ok 'following \(f stops\)' "f follows again"
last=$(scr_screen | sed -n 's/.*│ line \([0-9]*\)$/\1/p' | tail -1)
scr_ok "│ line $((last + 3))\$" "... the end of the output" 5
scr_keys q
scr_ok '^. tick  running' "q goes back to the details"
run_sluice cancel "$TK"
scr_keys 1 Escape

# --- the retry preview -------------------------------------------------------

scr_keys /
scr_type deploy
scr_keys Enter
scr_wait 'filter: deploy ' || true
scr_keys R
scr_ok "Retry workflow $DP deploy: apply \(failed\) runs again, and what" \
    "R shows which steps run again"
scr_keys n
scr_ok 'retry: not sent' "n declines"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $DP" 2 \
    "... and nothing ran again"
scr_keys Enter
scr_wait "^#$DP deploy " || true
scr_keys /
scr_type prepare
scr_keys Enter
scr_wait 'filter: prepare ' || true
scr_keys R
scr_ok "Retry workflow $DP deploy from prepare: prepare, apply, verify," \
    "R on a done step previews the retry from it"
scr_ok "announce \(4 steps\)" "... and what follows it"
scr_keys y
scr_ok "sluice --db .* retry $DP --from start: retrying" \
    "y retries; the command is echoed"
prepared="SELECT count(*) FROM workflow_steps WHERE workflow_id = $DP AND
    step_key = 'start'"
wait_for rows_are "$prepared" 2
q_is "$prepared" 2 \
    "... and prepare ran again"
scr_keys 1 Escape /
scr_type greet
scr_keys Enter
scr_wait 'filter: greet ' || true
scr_keys R
scr_ok "workflow $G is completed: only a failed or cancelled workflow can be" \
    "R on a completed run says why it cannot be retried"

scr_keys 1 q
scr_stop
is "$SCR_STATUS" 0 "q quits"

# --- the C locale ------------------------------------------------------------

scr_start 80x24 LANG=C LC_ALL=C --
scr_wait 'engine: this console' || true
scr_open_step greet greet
ok $? "in the C locale the details open"
scr_screen | LC_ALL=C grep -n '[^ -~]' >"$T_DIR/nonascii"
ok $((! $?)) "... in ASCII only"
[ -s "$T_DIR/nonascii" ] && sed 's/^/#   /' "$T_DIR/nonascii"
scr_keys l
scr_ok '^[0-9:]+ ! greeting world$' "... the pager marks stderr in ASCII"
scr_keys q q q q
scr_stop
is "$SCR_STATUS" 0 "q quits"

scr_sanitizers_ok "no sanitizer reports"

done_testing
