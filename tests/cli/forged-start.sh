#!/bin/sh
# tests/cli/forged-start.sh: the engine checks every start of a template
# itself, whatever the client checked: a request written by hand on the
# socket (a raw client, not sluice) that names a template runs the
# template's own flow, not the one it carries; an input the template's
# rules refuse is refused by the engine (exit 2, naming the input and
# the rule) with nothing written; a missing required input too; a
# template that is not there is exit 3.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "needs python3 for a raw client"

cat >"$T_DIR/t.json" <<'EOF2'
{"inputs": {"env": {"enum": ["staging", "prod"], "required": true},
            "n": {"type": "integer", "maximum": 5, "default": 1}},
 "flow": {"start": {"tool": "noop"}}}
EOF2
run_sluice template save t "$T_DIR/t.json"
expect_rc 0 "a template with input rules is saved"

engine_start
sock=$SLUICE_DB.sock
forged='{"start":{"run":["touch","'"$T_DIR"'/forged"]}}'

# start ARGS: a start request with ARGS, by hand; the answer in $OUT.
start() {
	OUT=$(raw_lines "$sock" \
	    "{\"command\":\"start\",\"args\":$1}")
}

before=$(db_digest)
start "{\"name\":\"x\",\"template\":\"t\",\"version\":1,\"flow\":$forged,\"input\":{\"env\":\"moon\"}}"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.code') FROM d")" 2 \
    "an input the template's rules refuse: exit 2 from the engine"
like "$OUT" 'input \"env\"' "naming the input"
like "$OUT" "enum" "and the rule"
start "{\"name\":\"x\",\"template\":\"t\",\"flow\":$forged,\"input\":{\"env\":\"prod\",\"n\":9}}"
like "$OUT" '"code":2' "a number over the maximum: exit 2"
like "$OUT" 'input \"n\"' "naming it"
start "{\"name\":\"x\",\"template\":\"t\",\"flow\":$forged,\"input\":{}}"
like "$OUT" '"code":2' "a missing required input: exit 2"
like "$OUT" 'missing required input \"env\"' "naming it"
start "{\"name\":\"x\",\"template\":\"t\",\"flow\":$forged,\"input\":{\"env\":\"prod\",\"x\":1}}"
like "$OUT" 'unknown input \"x\"' "an input the template does not declare: refused"
start "{\"name\":\"x\",\"template\":\"nope\",\"flow\":$forged}"
is "$OUT" '{"code":3,"message":"start: no template nope"}' \
    "a template that is not there: exit 3"
is "$(db_digest)" "$before" "the refusals wrote nothing"

start "{\"name\":\"x\",\"template\":\"t\",\"version\":1,\"flow\":$forged,\"input\":{\"env\":\"prod\"}}"
like "$OUT" '"code":0' "a start that keeps the rules is applied"
id=$(new_id)
wait_for wf_is "$id" completed
ok $? "and its run completes"
q_is "SELECT template_name, template_version, json_extract(input_json, '$.n')
    FROM workflows WHERE id = $id" "t|1|1" \
    "as the template's run, its default filled in"
q_is "SELECT flow_json FROM workflows WHERE id = $id" \
    '{"start":{"tool":"noop"}}' "with the template's own flow, not the one sent"
[ ! -e "$T_DIR/forged" ]
ok $? "the flow sent never ran"

# A flow of one's own, naming no template, is the site's rule alone.
start "{\"name\":\"y\",\"flow\":{\"start\":{\"tool\":\"noop\"}}}"
like "$OUT" '"code":0' "a start naming no template runs the flow it carries"
engine_stop

done_testing
