#!/bin/sh
# tests/cli/inputs.sh: typed inputs (sluice-flow(5) INPUTS) over every way
# of starting a run.  One table: for each keyword an input "KEY" declared
# with it and a value it refuses, as text (-i KEY=VAL) and as JSON.  Each
# row is given to the CLI (-i and --input), to the console's run form
# (scripted screens at 80x24), to sluice mcp's workflow_create, to
# schedule add, to a schedule's firing (schedule run), to a parent's
# sub-workflow step and to a for-each's items: each is
# refused naming the input and the keyword, the CLI with exit 2 and the
# database unchanged (db_digest), the engine's paths with no child run.
# Then what a good value becomes (-i count=3 is an integer), and check's
# refusals of declarations that cannot hold.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/mcp-lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

# KEY|DECLARATION|RULE|BAD TEXT|BAD JSON
ROWS='ty|{"type": "integer"}|type|abc|"abc"
en|{"enum": ["prod", "staging"]}|enum|prdo|"prdo"
pa|{"pattern": "[a-z]+"}|pattern|A1|"A1"
mi|{"type": "integer", "minimum": 1}|minimum|0|0
ma|{"type": "integer", "maximum": 10}|maximum|11|11
mnl|{"minLength": 2}|minLength|a|"a"
mxl|{"maxLength": 3}|maxLength|abcd|"abcd"
it|{"type": "array", "items": {"pattern": "[a-z]+"}}|items.pattern|["a","B"]|["a","B"]'

# template FILE STRICT: the template declaring every row's input, with
# its keywords when STRICT is 1, bare otherwise.
template() {
	{
		printf '{"description": "typed", "inputs": {'
		_sep=
		printf '%s\n' "$ROWS" | while IFS='|' read -r k d r t j; do
			[ "$2" = 1 ] || d='{}'
			printf '%s"%s": %s' "$_sep" "$k" "$d"
			_sep=', '
		done
		printf '}, "flow": {"start": {"tool": "echo", "args": '
		printf '{"in": "{{input}}"}}}}\n'
	} >"$1"
}

template "$T_DIR/loose.json" 0
template "$T_DIR/strict.json" 1
run_sluice template save t "$T_DIR/loose.json"
expect_rc 0 "the template, without its keywords"

# Schedules made while the template allowed anything, for their firings.
printf '%s\n' "$ROWS" | while IFS='|' read -r k d r t j; do
	"$SLUICE" schedule add "s-$k" --cron @daily --template t \
	    -i "$k:=$j" >/dev/null 2>&1 || echo "schedule s-$k" >>"$T_DIR/setup"
done
[ ! -s "$T_DIR/setup" ]
ok $? "a schedule per row while the template allows any value"

run_sluice template save t "$T_DIR/strict.json"
expect_rc 0 "the template with every keyword"

# refused WAY KEY RULE: the last command was refused, exit 2, naming the
# input and the rule, on one line, the database untouched.
refused() {
	expect_rc 2 "$1 $2: exit 2"
	like "$ERR" "input \"$2\" breaks $3:" "$1 $2: names the input and $3"
	one_line "$ERR" "$1 $2: one line"
	is "$(db_digest)" "$before" "$1 $2: the database is unchanged"
}

# mcp_create ARGS: workflow_create through sluice mcp; the answer in $OUT.
mcp_create() {
	printf '%s\n' \
	    "$MCP_INIT" \
	    "$MCP_INITED" \
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"workflow_create\",\"arguments\":$1}}" |
	    "$SLUICE" mcp 2>/dev/null | grep '"id":1,' >"$T_DIR/mcp.out"
	OUT=$(cat "$T_DIR/mcp.out")
}

# An engine answers, so no command applies itself (which would write the
# engine's row) and the digest shows only what a refusal wrote.
engine_start
printf '%s\n' "$ROWS" >"$T_DIR/rows"
while IFS='|' read -r k d r t j; do
	before=$(db_digest)

	run_sluice template run t -i "$k=$t"
	refused "-i" "$k" "$r"

	printf '{"%s": %s}\n' "$k" "$j" >"$T_DIR/in.json"
	run_sluice run t --input "$T_DIR/in.json"
	refused "--input" "$k" "$r"

	run_sluice schedule add "n-$k" --cron @daily --template t \
	    -i "$k=$t"
	refused "schedule add" "$k" "$r"

	run_sluice schedule run "s-$k"
	refused "schedule firing" "$k" "$r"

	mcp_create "{\"template\":\"t\",\"input\":{\"$k\":$j}}"
	is "$(json_query "$OUT" "SELECT json_extract(j, '\$.result.isError')
	    FROM d")" 1 "mcp $k: a tool error"
	like "$OUT" "input \\\"$k\\\" breaks $r:" "mcp $k: names the input and $r"
	is "$(db_digest)" "$before" "mcp $k: the database is unchanged"
done <"$T_DIR/rows"

# The console's form: each bad value typed into its field is refused
# under it, before any review; an enum is chosen from its list, so no
# text can break it.
scr_start 80x24 --
scr_keys 3
scr_ok '^t +[0-9]+ +typed' "Templates: the typed template"
n=0
while IFS='|' read -r k d r t j; do
	before=$(db_digest)
	scr_keys r
	scr_ok 'run template t ' "form $k: r opens the form"
	i=0
	while [ "$i" -lt "$n" ]; do
		scr_keys Tab
		i=$((i + 1))
	done
	scr_type "$t"
	scr_keys Enter
	if [ "$r" = enum ]; then
		scr_ok "^ . $k +< \(not given\) > +one of prod staging" \
		    "form $k: a list to choose from; typing changes nothing"
		scr_keys Escape
	else
		scr_ok "^ .   input \"$k\" breaks $r:" \
		    "form $k: refused under the field, naming the input and $r"
		scr_gone_ok 'Start sluice' "form $k: no review"
	fi
	scr_keys Escape
	scr_ok 'run: not started' "form $k: Esc leaves the form"
	is "$(db_digest)" "$before" "form $k: the database is unchanged"
	n=$((n + 1))
done <"$T_DIR/rows"
scr_stop

# The engine's ways: a parent's step and a for-each's items start no
# child with a value the template refuses; the step fails saying why.
while IFS='|' read -r k d r t j; do
	printf '{"start": {"workflow": "t", "input": {"%s": %s}}}\n' \
	    "$k" "$j" >"$T_DIR/parent.json"
	wait_run "$T_DIR/parent.json"
	expect_rc 1 "sub-workflow $k: the parent fails"
	like "$(q "SELECT error FROM workflow_steps WHERE workflow_id = $ID")" \
	    "input \"$k\" breaks $r:" "sub-workflow $k: the step names the input and $r"
	q_is "SELECT count(*) FROM workflows WHERE parent_id = $ID" 0 \
	    "sub-workflow $k: no child run"

	printf '{"start": {"foreach": [%s], "label": "i{{index}}", "do": {"workflow": "t", "input": {"%s": "{{item}}"}}}}\n' \
	    "$j" "$k" >"$T_DIR/each.json"
	wait_run "$T_DIR/each.json"
	expect_rc 1 "for-each $k: the run fails"
	like "$(q "SELECT group_concat(error, ' ') FROM workflow_steps
	    WHERE workflow_id = $ID")" "input \"$k\" breaks $r:" \
	    "for-each $k: the item names the input and $r"
	q_is "SELECT count(*) FROM workflows WHERE parent_id = $ID" 0 \
	    "for-each $k: no child run"
done <"$T_DIR/rows"

# --- good values, typed ------------------------------------------------------

run_sluice template run t -i ty=3 -i en=prod -i pa=shop -i mi=1 -i ma=10 \
    -i mnl=ab -i mxl=abc -i 'it=["a","b"]'
expect_rc 0 "good values start a run"
id=$OUT
q_is "SELECT json_type(input_json, '\$.ty') || ' ' ||
    json_extract(input_json, '\$.ty') || ' ' ||
    json_type(input_json, '\$.it') FROM workflows WHERE id = $id" \
    "integer 3 array" "-i ty=3 is the integer 3; -i it=[...] an array"

run_sluice schedule add typed --cron @daily --template t -i ty=7
expect_rc 0 "schedule add with a typed value"
q_is "SELECT json_type(input_json, '\$.ty') FROM schedules
    WHERE name = 'typed'" integer "the schedule keeps it as an integer"
run_sluice schedule run typed
expect_rc 0 "and its firing accepts it"

# --- declarations that cannot hold ---------------------------------------------

# unsound DECLARATION PATH TEXT: check refuses it at PATH, saying TEXT.
unsound() {
	printf '{"inputs": {"x": %s}, "flow": {"start": {"tool": "noop"}}}\n' \
	    "$1" >"$T_DIR/unsound.json"
	run_sluice check "$T_DIR/unsound.json"
	expect_rc 2 "check refuses $1"
	like "$ERR" "$2: $3" "  at $2"
	before=$(db_digest)
	run_sluice template save u "$T_DIR/unsound.json"
	expect_rc 2 "  template save refuses it too"
	is "$(db_digest)" "$before" "  and saves nothing"
}
unsound '{"enum": ["prod"], "default": "prdo"}' '$.inputs.x.default' \
    'the default breaks enum: "prdo" is not one of "prod"'
unsound '{"pattern": "(ab"}' '$.inputs.x.pattern' 'pattern (ab does not compile'
unsound '{"minimum": 3, "maximum": 1}' '$.inputs.x' 'minimum 3 is above maximum 1'
unsound '{"minLength": 3, "maxLength": 1}' '$.inputs.x' 'minLength 3 is above maxLength 1'
unsound '{"type": "integr"}' '$.inputs.x.type' 'unknown type "integr"'
unsound '{"type": "integer", "enum": [1, "b"]}' '$.inputs.x.enum[1]' \
    'this value breaks type'
unsound '{"items": {"default": 1}}' '$.inputs.x.items.default' \
    'unknown field "default" in items'

# --- MCP template_get: the inputs as JSON Schema ---------------------------------

printf '%s\n' \
    "$MCP_INIT" \
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"template_get","arguments":{"name":"t"}}}' |
    "$SLUICE" mcp 2>/dev/null | grep '"id":1,' >"$T_DIR/get.out"
is "$(json_query "$(cat "$T_DIR/get.out")" "SELECT
    json_extract(j, '\$.result.structuredContent.input_schema.type') || ' ' ||
    json_extract(j, '\$.result.structuredContent.input_schema.properties.ty.type') || ' ' ||
    json_extract(j, '\$.result.structuredContent.input_schema.properties.en.enum') || ' ' ||
    json_extract(j, '\$.result.structuredContent.input_schema.properties.pa.pattern') || ' ' ||
    json_extract(j, '\$.result.structuredContent.input_schema.additionalProperties')
    FROM d")" 'object integer ["prod","staging"] ^([a-z]+)$ 0' \
    "template_get answers the inputs as a JSON Schema"

done_testing
