#!/bin/sh
# help.sh: "sluice help [COMMAND [SUB]]" reads the command table, and a
# misspelt command, subcommand, option, template or schedule name gets the
# closest real one.
. "$TOP_SRCDIR/tests/lib.sh"

run_sluice help
expect_rc 0 "sluice help"
top=$OUT
run_sluice --help
is "$OUT" "$top" "sluice help is sluice --help"
for c in run list show gates approve reject cancel retry skip pause resume \
    log template schedule check engine audit help completion; do
	like "$top" "
  $c " "the command list has $c"
done
# Every command the list shows, whoever added it, has the same help both
# ways and a usage line built from its table.
cmds=$(printf '%s\n' "$top" | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z_-]*\)  .*/\1/p')
ok $(( $(printf '%s\n' "$cmds" | wc -l) < 20 )) "the list has the commands"
for c in $cmds; do
	run_sluice help "$c"
	expect_rc 0 "sluice help $c"
	want=$OUT
	run_sluice "$c" --help
	is "$OUT" "$want" "sluice help $c is sluice $c --help"
done
run_sluice help template show
expect_rc 0 "sluice help template show"
want=$OUT
run_sluice template show --help
is "$OUT" "$want" "help for a subcommand"
run_sluice help schedule ad
expect_rc 2 "help for an unknown subcommand"
is "$ERR" 'sluice: schedule: unknown subcommand "ad" (did you mean add?)' \
    "a prefix of one subcommand names it"
run_sluice help lsit
expect_rc 2 "help for an unknown command"
is "$ERR" 'sluice: unknown command "lsit" (did you mean list?)' \
    "names the closest command"
run_sluice help list extra
expect_rc 2 "help list extra"
is "$ERR" "sluice: help: list has no subcommands" "says why"
run_sluice help a b c
expect_rc 2 "help with three words"
run_sluice --bogus
expect_rc 2 "an unknown global option"
is "$ERR" "sluice: unknown option --bogus (see sluice help)" "one line"
run_sluice --db
expect_rc 2 "--db without a path"
is "$ERR" "sluice: option --db needs a value" "one line"
run_sluice -vx list
expect_rc 2 "an unknown short global option"
is "$ERR" "sluice: unknown option -x (see sluice help)" "names the letter"
run_sluice sched
expect_rc 2 "a prefix of a command"
is "$ERR" 'sluice: unknown command "sched" (did you mean schedule?)' \
    "names the one command it begins"
run_sluice re
is "$ERR" 'sluice: unknown command "re" (see sluice help)' \
    "an ambiguous prefix names none"

# --- template and schedule names ---------------------------------------------
run_sluice template save nightly-backup "$TESTS_DATA/run/tmpl.json"
expect_rc 0 "save a template"
before=$(db_digest)
for c in "template show" "template history" "template diff" "run" \
    "template run"; do
	# shellcheck disable=SC2086
	run_sluice $c nightly-bakup
	expect_rc 3 "$c of a misspelt template"
	is "$ERR" 'sluice: no template "nightly-bakup" (did you mean "nightly-backup"?)' \
	    "$c names the closest template"
done
run_sluice template show nightly
is "$ERR" 'sluice: no template "nightly" (did you mean "nightly-backup"?)' \
    "a prefix of one template names it"
run_sluice template show zzzzzzzz
is "$ERR" 'sluice: no template "zzzzzzzz"' "nothing close: no guess"
run_sluice template show nightly-backup --version 9
is "$ERR" 'sluice: no template "nightly-backup" version 9' \
    "a missing version of a template that exists: no guess"
run_sluice schedule add nightly --cron @daily --template nightly-bakup -i who=x
expect_rc 3 "schedule add with a misspelt template"
is "$ERR" 'sluice: no template "nightly-bakup" (did you mean "nightly-backup"?)' \
    "names the closest template"
is "$(db_digest)" "$before" "misspelt names change nothing"
run_sluice template rm nightly-bakup
expect_rc 3 "template rm of a misspelt template"
is "$ERR" 'sluice: no template "nightly-bakup" (did you mean "nightly-backup"?)' \
    "template rm names the closest template"
run_sluice schedule add nightly --cron @daily --template nightly-backup -i who=x
expect_rc 0 "add a schedule"
run_sluice schedule show nigthly
expect_rc 3 "show a misspelt schedule"
is "$ERR" 'sluice: no schedule "nigthly" (did you mean "nightly"?)' \
    "names the closest schedule"
for v in pause resume run rm; do
	run_sluice schedule "$v" nigthly
	expect_rc 3 "schedule $v of a misspelt schedule"
	is "$ERR" 'sluice: no schedule "nigthly" (did you mean "nightly"?)' \
	    "schedule $v names the closest schedule"
done

# Through a running engine (its socket), the names are read all the same.
. "$TOP_SRCDIR/tests/engine-lib.sh"
engine_start
run_sluice schedule pause nigthly
expect_rc 3 "schedule pause through the engine"
is "$ERR" 'sluice: no schedule "nigthly" (did you mean "nightly"?)' \
    "names the closest schedule"
run_sluice template rm nightly-bakup
expect_rc 3 "template rm through the engine"
is "$ERR" 'sluice: no template "nightly-bakup" (did you mean "nightly-backup"?)' \
    "names the closest template"
engine_stop

done_testing
