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
for c in list show gates approve reject cancel retry skip pause resume; do
	run_sluice "$c" --help
	expect_rc 0 "$c --help"
	# Every option the help lists is one the parser takes.
	for o in $(printf '%s\n' "$OUT" | sed -n 's/^  \(-., \)\{0,1\}\(--[a-z-]*\).*/\2/p'); do
		run_sluice "$c" "$o"
		unlike "$ERR" "unknown option" "$c: $o from its help is accepted"
	done
done
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

done_testing
