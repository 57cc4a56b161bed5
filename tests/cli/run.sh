#!/bin/sh
# run.sh: "run" validates the flow and its input and records the workflow
# and its first step; list, show, gates and audit read them back.
. "$TOP_SRCDIR/tests/lib.sh"

d="$TESTS_DATA/run"
me=$(id -un)

run_sluice run "$d/hello.json" -i who=ops --name "first run"
expect_rc 0 "run a flow file"
id1=$OUT
case "$id1" in
''|*[!0-9]*) ok 1 "run prints a numeric id ($id1)" ;;
*) ok 0 "run prints a numeric id" ;;
esac

run_sluice show --json "$id1"
expect_rc 0 "show --json"
for k in '"id":' '"name": "first run"' '"status": "running"' \
    '"input":' '"who": "ops"' "\"created_by\": \"$me\"" '"created_at":' \
    '"steps":' '"attempt": 1' '"tool": "echo"' '"result":' \
    '"started_at":' '"completed_at":'; do
	like "$OUT" "$k" "show --json has $k"
done
like "$OUT" '"status": "ready"' "the first step is ready"
like "$OUT" '"message": "hello {{input.who}}"' \
    "args are stored as written until the step runs"

run_sluice show "$id1"
expect_rc 0 "show for people"
like "$OUT" "workflow $id1: first run" "show names the workflow"
like "$OUT" "greet" "show lists the first step"

run_sluice run "$d/gate-first.json" -i version:='"1.2"'
expect_rc 0 "run a flow that starts at a gate"
id2=$OUT
run_sluice gates --json
expect_rc 0 "gates --json"
for k in "\"workflow_id\": $id2" '"step_id":' '"workflow_name": "gate-first"' \
    '"step": "approve-change"' \
    '"message": "Deploy 1.2 to production?"' '"waiting_since":' \
    '"approvals": 0' '"quorum": 2'; do
	like "$OUT" "$k" "gates --json has $k"
done
run_sluice gates
like "$OUT" "approve-change" "gates lists the gate for people"
like "$OUT" "0/2" "gates shows approvals so far over the quorum"

run_sluice list --json
expect_rc 0 "list --json"
first=$(printf '%s\n' "$OUT" | grep -m1 '"id":' | tr -dc 0-9)
is "$first" "$id2" "list is newest first"
run_sluice list --limit 1 --json
n=$(printf '%s\n' "$OUT" | grep -c '"id":')
is "$n" 1 "--limit 1 gives one workflow"
run_sluice list --status completed --json
is "$OUT" "[]" "--status filters"
run_sluice list
like "$OUT" "first run" "list for people shows names"
like "$OUT" "approve-change" "list shows the current step"

# Input: files, typed values, and -i overriding --input.
printf '{"who": "file", "n": 3}\n' >"$T_DIR/in.json"
run_sluice run "$d/hello.json" --input "$T_DIR/in.json" -i who=flag
expect_rc 0 "run with --input and -i"
run_sluice show --json "$OUT"
like "$OUT" '"who": "flag"' "-i wins over --input"
like "$OUT" '"n": 3' "--input values are kept with their type"

before=$(db_digest)
refuse() {
	want_rc=$1; want=$2; shift 2
	run_sluice "$@"
	expect_rc "$want_rc" "refused ($want_rc): $*"
	like "$ERR" "$want" "reason: $want"
	one_line "$ERR" "one line: $*"
	is "$(db_digest)" "$before" "nothing written: $*"
}
refuse 2 "-i who: expected KEY=VALUE" run "$d/hello.json" -i who
refuse 2 "-i =x: expected KEY=VALUE" run "$d/hello.json" -i =x
refuse 2 "-i n:=...: line 1, column 2: unexpected end" run "$d/hello.json" -i 'n:={'
printf '[1]' >"$T_DIR/arr.json"
refuse 2 "input must be a JSON object" run "$d/hello.json" --input "$T_DIR/arr.json"
refuse 2 "nope.json: No such file" run "$T_DIR/nope.json"
refuse 3 'no template "nosuch"' run nosuch
refuse 2 "a name has 1 to 128 bytes" run "$d/hello.json" --name ""
head -c 300000 /dev/zero | tr '\0' a >"$T_DIR/big"
printf '{"x": "%s"}' "$(cat "$T_DIR/big")" >"$T_DIR/big.json"
refuse 2 "larger than the limit" run "$d/hello.json" --input "$T_DIR/big.json"

# Templates: declared inputs, defaults and required ones.
run_sluice template save greet "$d/tmpl.json"
expect_rc 0 "save a template with inputs"
before=$(db_digest)
refuse 2 'missing required input "who"' run greet
refuse 2 'unknown input "hwo"' run greet -i hwo=x -i who=y
refuse 2 'missing required input "who"' template run greet
run_sluice run greet -i who=team
expect_rc 0 "run a template by name"
tid=$OUT
run_sluice show --json "$tid"
like "$OUT" '"greeting": "hello"' "defaults fill missing inputs"
like "$OUT" '"count": 1' "defaults keep their JSON type"
like "$OUT" '"template": "greet"' "the run records its template"
like "$OUT" '"template_version": 1' "the run records the template version"
run_sluice template run greet -i who=x --name via-template
expect_rc 0 "template run starts a run too"

# Audit: every start is recorded with the person from the uid.
run_sluice audit --json
expect_rc 0 "audit --json"
like "$OUT" '"action": "start"' "starts are audited"
like "$OUT" "\"who\": \"$me\"" "the audit names the Unix account"
USER=mallory run_sluice audit --json
unlike "$OUT" "mallory" "\$USER is never trusted"
USER=mallory run_sluice run "$d/hello.json"
run_sluice show --json "$OUT"
like "$OUT" "\"created_by\": \"$me\"" "created_by comes from the uid"

done_testing
