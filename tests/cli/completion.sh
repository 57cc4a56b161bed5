#!/bin/sh
# completion.sh: the bash completion offers commands, subcommands, options
# and template names, all asked of sluice itself.
. "$TOP_SRCDIR/tests/lib.sh"

command -v bash >/dev/null 2>&1 || skip_all "no bash"
mkdir -p "$T_DIR/bin"
ln -s "$SLUICE" "$T_DIR/bin/sluice"
run_sluice template save nightly-backup "$TESTS_DATA/run/tmpl.json"

# complete WORDS...: what bash offers for the last word.
complete_words() {
	PATH="$T_DIR/bin:$PATH" bash -c '
		. "$1/share/completion/sluice"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_sluice
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
	' sh "$TOP_SRCDIR" "$@"
}

is "$(complete_words sluice te)" "template " "a command from its prefix"
like "$(complete_words sluice '')" "approve audit backup cancel check complete engine fail gates help init list log mcp pause prune reject resume retry run schedule show skip status template" \
    "every command"
is "$(complete_words sluice template '')" "diff edit history list rm run save show " \
    "template subcommands"
is "$(complete_words sluice template show ni)" "nightly-backup " \
    "template names"
db_init "$T_DIR/other.db"
run_sluice --db "$T_DIR/other.db" template save other "$TESTS_DATA/run/tmpl.json"
is "$(complete_words sluice --db "$T_DIR/other.db" template edit '')" \
    "other " "template names honour --db"
is "$(complete_words sluice list --status c)" "cancelled completed " \
    "status values"
like "$(complete_words sluice run --)" "--input --name" "run options"
like "$(complete_words sluice template show --)" "--version" \
    "template subcommand options"
is "$(complete_words sluice --v)" "--version " "global options"
like "$(complete_words sluice run --)" "--at" "run --at"
like "$(complete_words sluice template run --)" "--at" "template run --at"
is "$(complete_words sluice schedule '')" \
    "add list pause resume rm run show " "schedule subcommands"
like "$(complete_words sluice schedule add x --)" "--cron --input --overlap --template" \
    "schedule add options"
is "$(complete_words sluice schedule add x --overlap '')" \
    "allow cancel-previous skip " "overlap policies"
is "$(complete_words sluice schedule add x --cron @daily --template ni)" \
    "nightly-backup " "template names after --template"
run_sluice schedule add nightly --cron @daily --template nightly-backup -i who=x
is "$(complete_words sluice schedule pause ni)" "nightly " "schedule names"

done_testing
