#!/bin/sh
# tests/tui/console.sh: the console's actions, driven by key scripts
# (tests/screen-lib.sh; in tmux where a terminal is needed: the editor)
# and checked through the CLI afterwards: approve and reject a gate (a
# reason is required), cancel after a confirmation, retry after its
# preview, run a template through the form (required inputs enforced),
# edit a template with a scripted $EDITOR, filter; the engine finishing
# runs while the help, a prompt, the form and the editor are open; a
# second console attaching to the first and taking over when it quits.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"
# The editor needs a terminal: tmux.
. "$TOP_SRCDIR/tests/tui-lib.sh"

cat >"$T_DIR/gate.json" <<'J'
{"start": {"name": "ask", "gate": {"message": "Ship release 7?"},
  "next": "ship"},
 "ship": {"tool": "echo", "args": {"shipped": true}}}
J
cat >"$T_DIR/slow.json" <<'J'
{"start": {"name": "one", "shell": "sleep 0.1", "next": "two"},
 "two": {"shell": "sleep 0.1", "next": "three"},
 "three": {"shell": "sleep 0.1"}}
J
cat >"$T_DIR/tpl.json" <<'J'
{"description": "say hello",
 "inputs": {"who": {"required": true, "description": "whom to greet"},
            "times": {"default": 3}},
 "flow": {"start": {"name": "greet", "tool": "echo",
   "args": {"who": "{{input.who}}", "times": "{{input.times}}"}}}}
J
run_sluice template save tpl "$T_DIR/tpl.json"
expect_rc 0 "a template to run and edit"

# wf_done ID: the workflow has completed.
wf_done() {
	wf_is "$1" completed
}

# q_is_quiet SQL WANT: the query's output is WANT (for wait_for).
q_is_quiet() {
	[ "$(q "$1")" = "$2" ]
}

# start_run FILE: start a run from the CLI; its id in $ID.
start_run() {
	run_sluice run "$1"
	ID=$(printf '%s' "$OUT" | tail -n 1)
}

scr_start 100x30
scr_ok 'engine: this console' "the header: this console runs the engine"
scr_ok 'No workflows yet' "an empty database says how to start"

# --- approve ------------------------------------------------------------
start_run "$T_DIR/gate.json"
G1=$ID
scr_ok "^$G1 +gate +. waiting +ask" "a new run shows up live, waiting"
scr_keys 2
scr_ok 'Ship release 7\?' "Gates: the gate and its message"
scr_keys y
scr_ok 'approve workflow [0-9]+ gate, step ask \(step [0-9]+\) - comment, optional:' \
    "y asks for an optional comment"
scr_type "ship it"
scr_keys Enter
scr_ok "sluice --db .* approve [0-9]+ -m 'ship it': approved" \
    "the message line echoes the sluice command and the answer"
wait_for wf_done "$G1"
ok $? "the approved run completed"
q_is "SELECT action || ':' || comment FROM audit WHERE action = 'approve'" \
    "approve:ship it" "the approval and its comment are audited"

# --- skip of a gate goes through the gate's rule -------------------------------
cat >"$T_DIR/guarded.json" <<J
{"start": {"name": "ask", "gate": {"message": "Guarded release",
  "approvers": ["nobody-else-$$"]}}}
J
start_run "$T_DIR/guarded.json"
G0=$ID
scr_ok "Guarded release" "a gate only someone else may decide"
scr_keys s
scr_ok 'skip workflow [0-9]+ guarded, step ask \(step [0-9]+\), waiting - reason, required:' \
    "s asks for a reason"
scr_type "walk past"
scr_keys Enter
scr_ok "skip [0-9]+ -m 'walk past': [^ ]+ is not an approver of gate" \
    "the engine decides the skip and the refusal shows"
ok "$(wf_is "$G0" running; echo $?)" "... and the gate still waits"
q_is "SELECT action FROM audit ORDER BY id DESC LIMIT 1" "skip-refused" \
    "the refused skip is audited"
scr_keys s
scr_type "   "
scr_keys Enter
scr_ok 'skip: a reason is required; not sent' "a blank reason is no reason"
run_sluice cancel "$G0"
expect_rc 0 "cancel the guarded run"

# --- reject -------------------------------------------------------------
start_run "$T_DIR/gate.json"
G2=$ID
scr_ok "Ship release 7" "the second gate shows up"
scr_keys n
scr_ok 'reject workflow [0-9]+ gate, step ask \(step [0-9]+\) - reason, required:' \
    "n asks for a reason"
scr_keys Enter
scr_ok 'reject: a reason is required; not sent' "an empty reason is refused"
ok "$(wf_is "$G2" running; echo $?)" "... and nothing was sent"
scr_keys n
scr_type "not today"
scr_keys Enter
scr_ok "reject [0-9]+ -m 'not today'" "the rejection is echoed"
wait_for wf_is "$G2" failed
ok $? "the rejected run failed"

# --- retry (with its preview) --------------------------------------------
scr_keys 1
scr_ok "^$G2 +gate +. failed" "Workflows: the failed run"
scr_keys g R
scr_ok 'run again|runs again|will run' "R shows which steps will run again"
scr_keys y
scr_ok "retry $G2: " "the retry is echoed"
wait_for wf_is "$G2" running
ok $? "the retried run is running again"

# --- cancel ----------------------------------------------------------------
scr_keys g c
scr_ok "Cancel workflow $G2 gate" "c asks before cancelling"
scr_keys n
scr_ok "cancel: not sent" "n leaves it alone"
ok "$(wf_is "$G2" running; echo $?)" "... still running"
scr_keys c y
scr_ok "cancel $G2: " "the cancel is echoed"
wait_for wf_is "$G2" cancelled
ok $? "the cancelled run is cancelled"

# --- the run form -------------------------------------------------------------
scr_keys 3
scr_ok '^tpl +1 +say hello' "Templates: the template, its version"
scr_keys r
scr_ok 'run template tpl \(version 1\)' "r opens the form"
scr_ok 'who\*' "the required input is marked"
scr_ok 'times +3' "the default is filled in"
scr_keys Enter
scr_ok 'input who is required' "Enter without a required input is refused"
scr_ok 'Enter review +Tab/Down next' "the footer says Enter reviews"
# Keys typed by mistake land in a field; Enter only shows what would run.
before=$(new_id)
scr_type "q4"
scr_keys Enter
scr_ok 'Start sluice (--db [^ ]+ )?template run tpl -i who=q4 -i times:=3\?' \
    "Enter shows what would start, as the equivalent command"
scr_ok 'y start +any other key: back to the form' \
    "the footer says only y starts it"
scr_keys Enter
scr_ok 'Enter reviews the run' "a second Enter goes back to the form"
is "$(new_id)" "$before" "... and two Enters started nothing"
scr_keys Enter n
scr_ok 'Enter reviews the run' "n on the review goes back to the form"
is "$(new_id)" "$before" "... starting nothing"
scr_keys BSpace BSpace
scr_type "alice"
scr_keys Enter
scr_ok 'Start sluice (--db [^ ]+ )?template run tpl -i who=alice -i times:=3\?' \
    "the review shows the corrected input"
scr_keys y
scr_ok "template run tpl -i who=alice -i times:=3: " \
    "y starts the run, echoed"
ID=$(new_id)
wait_for wf_done "$ID"
ok $? "the run from the form completed"
q_is "SELECT input_json FROM workflows WHERE id = $ID" \
    '{"who":"alice","times":3}' "with the input the form was given"

# --- filter ------------------------------------------------------------------
scr_keys 1 /
scr_type "tpl"
scr_keys Enter
scr_ok "^$ID +tpl" "a filter keeps the matching runs"
scr_gone_ok "^$G1 +gate" "... and hides the others"
scr_keys Escape
scr_ok "^$G1 +gate" "Esc clears the filter"

# --- the engine runs on while the help, a prompt, the form are open ----------
scr_keys '?'
scr_ok 'Keys here' "? opens the help"
start_run "$T_DIR/slow.json"
wait_for wf_done "$ID"
ok $? "a run's steps finish while the help is open"
scr_ok 'Keys here' "... and the help is still open"
scr_keys q
start_run "$T_DIR/gate.json"
G3=$ID
scr_keys 2
scr_ok 'Ship release 7' "a gate to open a prompt on"
scr_keys y
scr_ok 'comment, optional:' "a prompt is open"
start_run "$T_DIR/slow.json"
wait_for wf_done "$ID"
ok $? "a run's steps finish while a prompt is open"
scr_ok 'comment, optional:' "... and the prompt is still open"
scr_keys Escape
scr_keys 3 r
scr_ok 'run template tpl' "the form is open"
start_run "$T_DIR/slow.json"
wait_for wf_done "$ID"
ok $? "a run's steps finish while the form is open"
scr_ok 'run template tpl' "... and the form is still open"
scr_keys Escape

# --- the editor --------------------------------------------------------------
# One editor for both visits: the first waits for the test's go and
# saves nothing; once go is there, it edits.
cat >"$T_DIR/ed" <<EOS
#!/bin/sh
if [ -f "$T_DIR/go" ]; then
	sed 's/say hello/say hello, edited/' "\$1" >"\$1.new" &&
	    mv "\$1.new" "\$1"
	exit
fi
echo "editor open"
while [ ! -f "$T_DIR/go" ]; do sleep 0.05; done
exit 0
EOS
chmod +x "$T_DIR/ed"
scr_stop
tui_start 100x30 "EDITOR=$T_DIR/ed" --
tui_keys 3
tui_ok '^tpl ' "Templates again"
tui_keys e
tui_ok 'editor open' "e hands the terminal to the editor"
start_run "$T_DIR/slow.json"
wait_for wf_done "$ID"
ok $? "a run's steps finish while the editor is open"
touch "$T_DIR/go"
tui_ok 'template edit tpl: nothing saved' \
    "the console comes back when the editor quits unchanged"
tui_keys e
tui_ok 'template edit tpl: saved version 2' "an edit is saved, and said so"
tui_ok 'say hello, edited' "the view shows the new description"
run_sluice template show tpl
like "$OUT" "say hello, edited" "the CLI reads the edited template"

# --- schedules: pause, resume, fire now, delete ------------------------------
run_sluice schedule add nightly --cron '30 2 * * *' --template tpl -i who=bob
expect_rc 0 "a schedule to look at"
tui_stop
scr_start 80x24
scr_keys 4
scr_ok '^nightly +30 2 \* \* \* +.* \(in [0-9]' \
    "Schedules: cron and the next firing, counting down"
scr_keys p
scr_ok "schedule pause nightly: " "p pauses it (echoed)"
wait_for q_is_quiet "SELECT paused FROM schedules WHERE name = 'nightly'" 1
ok $? "... and it is paused"
scr_ok '^nightly +.* paused' "the view says paused"
scr_keys p
scr_ok "schedule resume nightly: " "p again resumes it"
before=$(new_id)
scr_keys r
scr_ok 'Fire schedule nightly now\? A run of template tpl starts at once' \
    "r asks before firing, as d does"
scr_ok 'y yes +n, Esc or any other key: no' \
    "the confirmation's footer says which keys mean what"
scr_keys Enter
scr_ok "schedule run: not sent" "Enter means no, as the footer says"
is "$(new_id)" "$before" "... nothing was fired"
scr_keys r y
scr_ok "schedule run nightly: " "r then y fires it now"
wait_for id_above "$before"
ok $? "... which starts a run"
scr_keys d
scr_ok 'Delete schedule nightly' "d asks first"
scr_keys y
scr_ok "schedule rm nightly: " "y deletes it"
scr_ok 'No schedules' "the view is empty again"

# --- a second console attaches to the first; takes over when it goes ---------
scr_stop
scr_start 100x30
scr_wait 'engine: this console'
A=$(scr_pid)
SCR_S=second
scr_start 100x30
scr_ok "engine: pid $A on " "a second console attaches to the engine"
start_run "$T_DIR/gate.json"
G4=$ID
wait_for step_is "$G4" ask waiting
GS=$(step_id "$G4" ask)
scr_keys 2 /
scr_type "$GS"
scr_keys Enter
scr_ok "^$GS +$G4 gate" "it shows the new gate (filtered by its step id)"
scr_keys y
scr_keys Enter
scr_ok "approve $GS: (sent to the engine|approved)" \
    "its approval goes to the engine"
scr_ok "approve $GS: approved" "... and the engine's answer comes back"
wait_for wf_done "$G4"
ok $? "the engine in the first console ran it to the end"
SCR_S=main
scr_keys q
scr_stop
SCR_S=second
scr_ok 'engine: this console' "when the first console quits, the second takes over" 15
scr_stop
SCR_S=main

# --- the help and the manual list the same keys ------------------------------
scr_start 200x60
scr_keys '?'
scr_wait 'Keys of other views'
# The keys: the lines before the mouse and the glyph legend.
scr_screen | sed '/^Mouse$/,$d' | grep '^  [^ ]' >"$T_DIR/help"
is "$(wc -l <"$T_DIR/help" | tr -d ' ')" "$(grep -c '^	{ ' \
    "$TOP_SRCDIR/src/ui/keys.c")" "the help lists every key of the table"
sed 's/^  \([^ ]*\) .*/\1/' "$T_DIR/help" | sort -u >"$T_DIR/keys"
if command -v mandoc >/dev/null 2>&1; then
	# Without col(1), which a minimal system lacks: drop overstrikes.
	bs=$(printf '\b')
	mandoc -T ascii "$TOP_SRCDIR/man/sluice.1" | sed "s/.$bs//g" |
	    sed -n '/^CONSOLE/,/^ENGINE/p' >"$T_DIR/man"
	missing=""
	while read -r k; do
		re=$(printf '%s' "$k" | sed 's/[][\.*^$?+(){}|]/\\&/g')
		grep -Eq -- "^ +([^ ]+, )*$re(,|[[:space:]]|\$)" \
		    "$T_DIR/man" ||
		    missing="$missing $k"
	done <"$T_DIR/keys"
	is "$missing" "" "sluice(1) CONSOLE lists every key the help shows"
else
	ok 0 "# SKIP mandoc is not installed"
fi

scr_stop
tui_stop
tui_sanitizers_ok "no sanitizer report from the consoles"
done_testing
