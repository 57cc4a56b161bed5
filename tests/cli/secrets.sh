#!/bin/sh
# tests/cli/secrets.sh: site secrets and secret inputs (SPEC §13).  A
# secret reaches a step through its environment only; every value a run
# uses is *** in whatever sluice stores or shows of it (logs, also a value
# split across two writes; results; errors; the audit trail; show --json;
# the console's screens; an MCP answer; a notification's payload), which
# is checked by looking for the value in every file under the test's
# directory.  check refuses a secret outside an env value, with its path;
# a flow from a file and a template the site does not list are refused
# (exit 4) and record nothing; a secret file others may read is refused
# with the reason; systemd's credentials directory is read; a secret
# input is given on stdin or from a file, never on the command line or by
# an agent, is kept in DB.secrets (0600 in 0700) while the run lasts and
# nowhere after, even when the engine was killed mid-run.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/mcp-lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

export SLUICE
me=$(id -un)
TOKEN=tok-Zq81hunter2-x7
PASS=pw-open-sesame-4411
SEC="$T_DIR/site-secrets"
export SLUICE_SITE_SECRETS="$SEC"
mkdir -m 0700 "$SEC"
printf '%s\n' "$TOKEN" >"$SEC/TOKEN"
chmod 0600 "$SEC/TOKEN"
mkdir -p "$T_DIR/ev"

# hits VALUE: the files under $T_DIR holding VALUE, but the secrets' own
# and the console script that types one.
hits() {
	grep -rlF -- "$1" "$T_DIR" 2>/dev/null |
	    grep -v -e "^$SEC/" -e "^$T_DIR/creds/" -e "^$T_DIR/pass.txt$" \
	    -e "^$T_DIR/form/script$"
}

# none_hold VALUE DESCRIPTION: no file holds VALUE.
none_hold() {
	_h=$(hits "$1")
	is "$_h" "" "$2"
}

cat >"$SLUICE_SITE_CONFIG" <<EOF
{"secrets": {"TOKEN": {"templates": ["deploy-*"]},
             "CRED": {"templates": ["deploy-*"]}},
 "notify": [{"on": "*", "shell": "cat >$T_DIR/ev/\$SLUICE_EVENT.\$SLUICE_WORKFLOW_ID.json"}]}
EOF

# The step: $TOKEN on stdout and stderr, then split across two writes
# 1 ms apart on each, in its result, and as the error of a wait step it
# fails from outside.
cat >"$T_DIR/deploy.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["w", "p"]},
 "w": {"wait": {"timeout": "30s"}},
 "p": {"shell": "echo \"out $TOKEN\"; echo \"err $TOKEN\" >&2; h=${TOKEN%?????????}; t=${TOKEN#$h}; printf '%s' \"$h\"; printf '%s' \"$h\" >&2; sleep 0.001; printf '%s\\n' \"$t\"; printf '%s\\n' \"$t\" >&2; printf '{\"token\": \"%s\"}\\n' \"$TOKEN\"",
       "env": {"TOKEN": "{{secrets.TOKEN}}"}, "next": "q"},
 "q": {"shell": "\"$SLUICE\" fail \"$SLUICE_WORKFLOW_ID:w\" -m \"error $TOKEN\"",
       "env": {"TOKEN": "{{secrets.TOKEN}}"}}}
EOF

# --- check: a secret only in an env value -------------------------------------

cat >"$T_DIR/bad.json" <<'EOF'
{"start": {"tool": "echo", "args": {"a": "{{secrets.TOKEN}}"}, "next": "b"},
 "b": {"run": ["echo", "{{secrets.TOKEN}}"], "env": {"X": "{{secrets.a/b}}"}}}
EOF
run_sluice check "$T_DIR/bad.json"
expect_rc 2 "check: a secret in args is invalid"
like "$ERR" '$.start.args.a: "{{secrets.TOKEN}}" may be used only in an env value' \
    "check names the args' JSON path"
like "$ERR" '$.b.run[1]: "{{secrets.TOKEN}}" may be used only in an env value' \
    "check names a run element's path"
like "$ERR" '$.b.env.X: "{{secrets.a/b}}": a secret' \
    "check refuses a secret's name with a slash"
run_sluice check "$T_DIR/deploy.json"
expect_rc 0 "check: a secret in an env value is valid"
printf '%s\n' '{"t": {"run": ["x", "{{secrets.TOKEN}}"]}}' >"$T_DIR/tools.json"
run_sluice --tools "$T_DIR/tools.json" check "$T_DIR/deploy.json"
like "$ERR" 'tools.json:1:21: $.t.run[1]: "{{secrets.TOKEN}}" may be used only' \
    "a catalog tool's run element may not name a secret"

# --- who may use it -----------------------------------------------------------

run_sluice template save deploy-app "$T_DIR/deploy.json"
expect_rc 0 "a site operator (none named: the engine's account) saves it"
is "$(q "SELECT json_extract(detail_json, '$.secrets') FROM audit
    WHERE action = 'template save' ORDER BY id DESC LIMIT 1")" '["TOKEN"]' \
    "the save's audit row names the secret it uses"
run_sluice template save other "$T_DIR/deploy.json"
expect_rc 0 "a template the site does not list may be saved"
before=$(db_digest)
run_sluice run "$T_DIR/deploy.json"
expect_rc 4 "a flow from a file naming a secret is refused"
like "$ERR" 'secret "TOKEN" may be used only by a saved template' \
    "it says why"
run_sluice template run other
expect_rc 4 "a template the site does not list is refused"
like "$ERR" 'template "other" may not use secret "TOKEN"' "it says why"
is "$(db_digest)" "$before" "the refusals recorded nothing"

cp "$SLUICE_SITE_CONFIG" "$T_DIR/site.keep"
printf '{"operators": ["nobody-%s"], "secrets": {"TOKEN": {"templates": ["deploy-*"]}}}\n' \
    "$$" >"$SLUICE_SITE_CONFIG"
run_sluice template save deploy-two "$T_DIR/deploy.json"
expect_rc 4 "one who is not an operator may not save a template using a secret"
cp "$T_DIR/site.keep" "$SLUICE_SITE_CONFIG"

# --- masked everywhere --------------------------------------------------------

engine_start
run_sluice template run deploy-app
id=$OUT
wait_for wf_ended "$id"
ok $? "the run ended"
is "$(q "SELECT status FROM workflows WHERE id = $id")" failed \
    "it failed (its wait step was failed from outside)"
wait_for test -s "$T_DIR/ev/workflow_failed.$id.json"
ok $? "the failure was notified"
p=$(step_id "$id" p)
w=$(step_id "$id" w)
run_sluice log "$p"
like "$OUT" "out ***" "log: stdout masked"
like "$OUT" "err ***" "log: stderr masked"
is "$(printf '%s\n' "$OUT" | grep -c '^\*\*\*$')" 2 \
    "log: the value written in two pieces is masked on both pipes"
run_sluice log --json "$p"
like "$(printf '%s' "$OUT" | jq -r '.lines[] | .stream + " " + .text')" \
    "stdout out ***" "log --json: stdout masked"
like "$(printf '%s' "$OUT" | jq -r '.lines[] | .stream + " " + .text')" \
    "stderr err ***" "log --json: stderr masked"
like "$(q "SELECT result_json FROM workflow_steps WHERE id = $p")" \
    '{\"token\": \"***\"}' "the result masked"
run_sluice show --json "$id"
like "$OUT" '{\"token\": \"***\"}' "show --json: the result masked"
like "$OUT" 'error ***' "show --json: the error masked"
run_sluice show "$id"
printf '%s\n' \
    "$MCP_INIT" \
    "$MCP_INITED" \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"workflow_get\",\"arguments\":{\"workflow_id\":$id}}}" |
    "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
like "$(cat "$T_DIR/mcp.out")" '***' "MCP workflow_get: masked"
like "$(cat "$T_DIR/ev/workflow_failed.$id.json")" 'error ***' \
    "the notification's payload: masked"
is "$(q "SELECT json_extract(detail_json, '$.secrets') FROM audit
    WHERE action = 'start' AND workflow_id = $id")" '["TOKEN"]' \
    "the start's audit row names the secrets the run uses"
is "$(q "SELECT comment FROM audit WHERE action = 'fail'
    AND workflow_id = $id")" "error ***" "the fail's audit comment: masked"

scr="$T_DIR/screens"
mkdir -p "$scr"
printf '%s\n' ':wait-idle' ':dump list' ':key Enter' ':wait failed' \
    ':dump run' ':key Enter' ':dump step' ':key Escape' ':key l' \
    ':dump log' >"$scr/script"
env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    SLUICE_SCRIPT="$scr/script" SLUICE_SCRIPT_DIR="$scr" \
    "$SLUICE" </dev/null >"$scr/out" 2>"$scr/err"
ok "$([ -s "$scr/run.screen" ] && echo 0 || echo 1)" \
    "the console drew the run view"
like "$(cat "$scr"/*.screen)" '***' "the console shows ***"
engine_stop

none_hold "$TOKEN" \
    "the value is in no file: database, WAL, logs, outputs, screens, MCP, payload"

# --- the secret's file --------------------------------------------------------

chmod 0640 "$SEC/TOKEN"
engine_start
run_sluice template run deploy-app
id=$OUT
wait_for wf_ended "$id"
run_sluice show "$id"
like "$OUT" "TOKEN: refused: mode 0640 lets others read or change it" \
    "a group-readable secret is refused with the reason"
chmod 0600 "$SEC/TOKEN"
engine_stop

mkdir -m 0700 "$T_DIR/creds"
printf 'cred-Yb7-9911\n' >"$T_DIR/creds/CRED"
chmod 0400 "$T_DIR/creds/CRED"
printf '%s\n' '{"start": {"shell": "echo \"c=$C\"", "env": {"C": "{{secrets.CRED}}"}}}' \
    >"$T_DIR/cred.json"
run_sluice template save deploy-cred "$T_DIR/cred.json"
CREDENTIALS_DIRECTORY="$T_DIR/creds" "$SLUICE" template run deploy-cred \
    --wait >"$T_DIR/cred.out" 2>&1
is "$?" 0 "a secret from \$CREDENTIALS_DIRECTORY (systemd LoadCredential=)" ||
    sed 's/^/#   /' "$T_DIR/cred.out"
id=$(new_id)
run_sluice log "$(step_id "$id" start)"
is "$OUT" "c=***" "it reached the step, and is masked"
none_hold cred-Yb7-9911 "the credential is in no file"

# --- secret inputs ------------------------------------------------------------

cat >"$T_DIR/secin.json" <<'EOF'
{"inputs": {"pw": {"secret": true, "required": true}, "who": {}},
 "flow": {"start": {"shell": "echo \"pw=$P\"; touch \"$MARK\"; sleep 3; echo \"again $P\"",
                    "env": {"P": "{{input.pw}}", "MARK": "{{input.who}}"}}}}
EOF
cat >"$T_DIR/secbad.json" <<'EOF'
{"inputs": {"pw": {"secret": true}},
 "flow": {"start": {"tool": "echo", "args": {"p": "{{input.pw}}"}}}}
EOF
run_sluice check "$T_DIR/secbad.json"
like "$ERR" '$.flow.start.args.p: "{{input.pw}}" is a secret input' \
    "check: a secret input in args is refused with its path"
run_sluice template save secin "$T_DIR/secin.json"
expect_rc 0 "a template with a secret input is saved"
before=$(db_digest)
run_sluice template run secin -i "pw=$PASS"
expect_rc 2 "a secret input's value on the command line is refused"
like "$ERR" 'give it as -i pw=@- (read from standard input) or -i pw=@FILE' "with the hint"
is "$(db_digest)" "$before" "and nothing is recorded"

engine_start
printf '%s\n' "$PASS" | "$SLUICE" template run secin -i pw=@- \
    -i "who=$T_DIR/mark1" >"$T_DIR/secin.out" 2>&1
id=$(new_id)
wait_for test -f "$T_DIR/mark1"
ok $? "the step runs"
held=$(hits "$PASS")
is "$held" "$SLUICE_DB.secrets/$id.json" \
    "while it runs, the value is in one file only: DB.secrets/ID.json"
is "$(stat -c %a "$SLUICE_DB.secrets/$id.json") $(stat -c %a "$SLUICE_DB.secrets")" \
    "600 700" "that file is 0600 in a 0700 directory"
run_sluice show --json "$id"
like "$OUT" '"pw": "***"' "show --json has *** for the secret input"
wait_for wf_ended "$id"
run_sluice log "$(step_id "$id" start)"
like "$OUT" 'pw=***' "the step had the value, masked in its log"
engine_stop
none_hold "$PASS" "after the run the value is in no file"

# Killed mid-run: the next engine finishes the run, then removes the file.
printf '%s\n' "$PASS" >"$T_DIR/pass.txt"
engine_start
run_sluice template run secin -i "pw=@$T_DIR/pass.txt" -i "who=$T_DIR/mark2"
id=$OUT
wait_for test -f "$T_DIR/mark2"
engine_crash
ok "$([ -f "$SLUICE_DB.secrets/$id.json" ] && echo 0 || echo 1)" \
    "after kill -9 the run's secret inputs are still kept"
rm -f "$T_DIR/mark2"
engine_start
wait_for wf_ended "$id"
ok $? "the next engine finishes the run"
is "$(q "SELECT status FROM workflows WHERE id = $id")" completed \
    "it completed"
run_sluice log "$(step_id "$id" start)"
like "$OUT" 'again ***' "the step run again after recovery had the value"
engine_stop
ok "$([ -e "$SLUICE_DB.secrets/$id.json" ] && echo 1 || echo 0)" \
    "its file is gone"
rm -f "$T_DIR/pass.txt"
none_hold "$PASS" "after kill -9 and recovery the value is in no file"

# Killed after the run's end was written but before it committed: the
# file is still there for the next engine, which ends the run again and
# only then removes it.  (The hold point is in test builds only.)
case "$("$SLUICE" --version)" in
*"test clock"*)
held_engine ended
printf '%s\n' "$PASS" | "$SLUICE" template run secin -i pw=@- \
    -i "who=$T_DIR/mark4" >"$T_DIR/secin.out" 2>&1
id=$(new_id)
wait_for stopped "$EPID"
ok $? "the engine stops itself with the run's end written, not committed"
engine_crash
ok "$([ -f "$SLUICE_DB.secrets/$id.json" ] && echo 0 || echo 1)" \
    "killed before the end committed, the run's secret inputs are kept"
is "$(q "SELECT status FROM workflows WHERE id = $id")" running \
    "the run is still running in the database"
engine_start
wait_for wf_ended "$id"
is "$(q "SELECT status FROM workflows WHERE id = $id")" completed \
    "the next engine ends it"
engine_stop
ok "$([ -e "$SLUICE_DB.secrets/$id.json" ] && echo 1 || echo 0)" \
    "and then its file is gone"
none_hold "$PASS" "the value is in no file after that crash"
	;;
*)	skip_cases 7 "needs a test build (configure --enable-test-clock)" ;;
esac

run_sluice template show secin
printf '%s\n' \
    "$MCP_INIT" \
    "$MCP_INITED" \
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"workflow_create","arguments":{"template":"secin","input":{"pw":"@/etc/passwd"}}}}' |
    "$SLUICE" mcp >"$T_DIR/mcp2.out" 2>"$T_DIR/mcp2.err"
like "$(cat "$T_DIR/mcp2.out")" 'secret: an agent cannot give it' \
    "an agent (MCP) cannot give a secret input"

# --- the console's form: a secret input masked as it is typed -------------

engine_start
scr="$T_DIR/form"
mkdir -p "$scr"
printf '%s\n' ':resize 100x30' ':wait-idle' ':key 3' ':wait secin' ':key G' \
    ':key r' ':wait run template secin' ":type $PASS" ':key Tab' \
    ":type $T_DIR/mark3" ':dump form' ':key Enter' ':wait Start' \
    ':dump review' ':key y' ':wait-gone run template' ':dump sent' \
    >"$scr/script"
env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    SLUICE_SCRIPT="$scr/script" SLUICE_SCRIPT_DIR="$scr" \
    "$SLUICE" </dev/null >"$scr/out" 2>"$scr/err"
like "$(cat "$scr/form.screen")" "$(printf '%s' "$PASS" | tr -c '' '*' | cut -c1-19)" \
    "the form shows stars for each character typed"
like "$(cat "$scr/review.screen")" "-i pw=@-" \
    "the review's command reads the secret from stdin"
wait_for test -f "$T_DIR/mark3"
ok $? "the run from the form started"
id=$(new_id)
wait_for wf_ended "$id"
run_sluice log "$(step_id "$id" start)"
like "$OUT" 'pw=***' "the step had the value, masked in its log"
run_sluice show --json "$id"
like "$OUT" '"pw": "***"' "the run's input shows ***"
engine_stop
none_hold "$PASS" "the value typed in the form is in no file"

done_testing
