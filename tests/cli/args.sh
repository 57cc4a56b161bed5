#!/bin/sh
# args.sh: every command's options and argument count come from its table
# entry: one parser, one-line reasons naming the command (exit 2), and a
# --help that lists exactly what the parser accepts.
. "$TOP_SRCDIR/tests/lib.sh"

# --- bad command lines: one line, the command named, exit 2 -----------------
bad() {
	want=$1
	shift
	before=$(db_digest)
	run_sluice "$@"
	expect_rc 2 "sluice $* is bad usage"
	is "$ERR" "$want" "sluice $*: one line says why"
	is "$OUT" "" "sluice $*: nothing on stdout"
	is "$(db_digest)" "$before" "sluice $*: writes nothing"
}
bad "sluice: list: unknown option --stauts (did you mean --status?)" \
    list --stauts running
bad "sluice: list: unknown option --frob (see sluice help list)" list --frob
bad "sluice: list: unknown option -x (see sluice help list)" list -x
bad "sluice: list: option --limit needs a value (N)" list --limit
bad "sluice: list: option --json takes no value" list --json=yes
bad "sluice: list: option --limit N given more than once" \
    list --limit 1 --limit 2
bad "sluice: reject: option -m TEXT is required" reject 12
bad "sluice: approve: option -m needs a value (TEXT)" approve 12 -m
bad "sluice: show: missing arguments (usage: sluice show ID [--json])" show
bad 'sluice: show: unexpected argument "13" (usage: sluice show ID [--json])' \
    show 12 13
bad 'sluice: pause: unexpected argument "2" (usage: sluice pause ID)' \
    pause 1 2
bad 'sluice: unknown command "lsit" (did you mean list?)' lsit
bad 'sluice: unknown command "zzzzzz" (see sluice help)' zzzzzz

# --- the forms an operator expects -----------------------------------------
run_sluice list --limit=5 --json
expect_rc 0 "--name=VALUE"
is "$OUT" "[]" "--limit=5 --json is read"
run_sluice show --json -- 999
expect_rc 3 "-- ends the options; the id after it is read"
run_sluice show 999 --json
expect_rc 3 "an option after the arguments is read (as getopt permutes)"
run_sluice show -- --json
expect_rc 2 "after --, --json is an argument"
is "$ERR" 'sluice: "--json" is not a workflow id' "and is named as one"
run_sluice list --top --json --top
expect_rc 0 "a flag given twice is harmless"

# --- help comes from the same table ----------------------------------------
for c in run list show gates approve reject cancel retry skip pause resume \
    log check audit "template list" "template show" "template save" \
    "template edit" "template rm" "template run" "schedule list" \
    "schedule show" "schedule add" "schedule rm" "schedule pause" \
    "schedule resume" "schedule run" status prune backup complete fail \
    help completion "template history" "template diff"; do
	# shellcheck disable=SC2086
	run_sluice $c --help
	expect_rc 0 "$c --help"
	like "$OUT" "usage: sluice $c" "$c --help starts with its usage"
	# Every option the help lists is one the parser takes.
	for o in $(printf '%s\n' "$OUT" | sed -n 's/^  \(-., \)\{0,1\}\(--[a-z-]*\).*/\2/p'); do
		# shellcheck disable=SC2086
		run_sluice $c "$o"
		unlike "$ERR" "unknown option" "$c: $o from its help is accepted"
	done
done
run_sluice template --help
like "$OUT" "sluice template show NAME [--version N] [--json]" \
    "a command's help lists its subcommands' usage"
run_sluice template shwo x
expect_rc 2 "an unknown subcommand"
is "$ERR" 'sluice: template: unknown subcommand "shwo" (did you mean show?)' \
    "did you mean the closest subcommand"
run_sluice schedule
expect_rc 2 "a missing subcommand"
like "$ERR" "sluice: schedule: missing subcommand (usage: sluice schedule list|show|add|rm|pause|resume|run ...)" \
    "says so with the usage, on one line"
run_sluice run --help
for l in $(printf '%s\n' "$OUT" | awk '{ print length($0) }'); do
	[ "$l" -lt 80 ] || { ok 1 "run --help fits 80 columns ($l)"; break; }
done
ok 0 "run --help is wrapped to 80 columns"
run_sluice list --help
like "$OUT" "usage: sluice list [--status STATUS] [--limit N] [--top] [--json]" \
    "list's usage line is built from its options"
like "$OUT" "  --limit N        at most N workflows" "each option has its help line"
run_sluice reject -h
like "$OUT" "usage: sluice reject STEP -m TEXT" "a required option has no brackets"
like "$OUT" "  -m, --message TEXT  why (required)" "short and long forms are shown"
run_sluice reject 1 --message
expect_rc 2 "the long form takes its value too"
is "$ERR" "sluice: reject: option --message needs a value (TEXT)" \
    "and says which"

# --- what the shared tables give every command that takes them --------------
run_sluice template save hello "$TESTS_DATA/run/tmpl.json"
expect_rc 0 "save a template"
printf '{"who": "file1", "greeting": "hi"}' >"$T_DIR/in1.json"
printf '{"who": "file2"}' >"$T_DIR/in2.json"
run_sluice template run hello --input "$T_DIR/in1.json" \
    --input "$T_DIR/in2.json" --wait
expect_rc 0 "template run takes --input twice and --wait, as run does"
run_sluice show --json "$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows')"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.input.who') || ' ' ||
    json_extract(j, '$.input.greeting') FROM d")" "file2 hi" \
    "later --input files override earlier ones' keys"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.status') FROM d")" \
    "completed" "--wait saw it to its end"
run_sluice run hello -i who=x -i who=y --input "$T_DIR/in1.json" --wait
expect_rc 0 "run with -i twice"
run_sluice show --json "$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows')"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.input.who') FROM d")" "y" \
    "the last -i wins, over the file too"
run_sluice run hello --i who=x
expect_rc 2 "-i has no long form"
is "$ERR" "sluice: run: unknown option --i (did you mean --input?)" \
    "and says so"
step=$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflow_steps')
run_sluice log --follow --timestamps "$step"
expect_rc 0 "log --follow --timestamps: the long forms of -f and -t"
run_sluice log -ft "$step"
expect_rc 0 "log -ft: short flags cluster"

done_testing
