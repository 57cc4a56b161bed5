#!/bin/sh
# basics.sh: global options, help, version, usage errors and exit codes.
. "$TOP_SRCDIR/tests/lib.sh"

run_sluice --help
expect_rc 0 "--help exits 0"
like "$OUT" "usage: sluice" "--help prints usage"
for c in run list show gates template check audit; do
	like "$OUT" "  $c " "--help lists $c"
done

run_sluice --version
expect_rc 0 "--version exits 0"
like "$OUT" "sluice 0." "--version prints the version"

run_sluice </dev/null
expect_rc 2 "no command without a terminal exits 2"
like "$ERR" "the console needs a terminal" "no command: the console says why"

run_sluice frobnicate
expect_rc 2 "unknown command exits 2"
is "$ERR" 'sluice: unknown command "frobnicate" (see sluice help)' \
    "unknown command is one line naming it"

run_sluice --bogus list
expect_rc 2 "unknown global option exits 2"

for c in run list show gates template check audit; do
	run_sluice "$c" --help
	expect_rc 0 "$c --help exits 0"
	like "$OUT" "usage: sluice $c" "$c --help prints its usage"
done

run_sluice list --bogus
expect_rc 2 "unknown command option exits 2"
is "$ERR" "sluice: list: unknown option --bogus (see sluice help list)" \
    "one line naming the command and the option"

run_sluice show abc
expect_rc 2 "a non-numeric id is bad usage"
is "$ERR" 'sluice: "abc" is not a workflow id' "bad id reason"

run_sluice show 0
expect_rc 2 "id 0 is bad usage"

run_sluice show 424242
expect_rc 3 "a missing workflow exits 3"
like "$ERR" "424242" "missing workflow is named"

run_sluice list --status sleeping
expect_rc 2 "unknown status is bad usage"
like "$ERR" 'unknown status "sleeping"' "unknown status is named"

run_sluice list --limit 0
expect_rc 2 "limit 0 is bad usage"

run_sluice list
expect_rc 0 "list on an empty database works"
is "$OUT" "" "an empty list prints nothing"

run_sluice list --json
expect_rc 0 "list --json on an empty database works"
is "$OUT" "[]" "an empty list is []"

run_sluice gates --json
is "$OUT" "[]" "no gates is []"

run_sluice audit --json
is "$OUT" "[]" "no audit entries is []"

done_testing
