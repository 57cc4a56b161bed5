#!/bin/sh
# check.sh: every malformed flow in tests/data/bad is refused by "check" and
# by "run" with a one-line reason naming its place, exit 2, and an unchanged
# database; every flow in tests/data/good passes.
. "$TOP_SRCDIR/tests/lib.sh"

tools="$TESTS_DATA/seeds/tools.json"

# Give the database some content first, so "unchanged" means something.
run_sluice --tools "$tools" run "$TESTS_DATA/run/hello.json"
expect_rc 0 "a good flow runs"
before=$(db_digest)

nbad=0
for f in "$TESTS_DATA"/bad/*.json; do
	base=$(basename "$f" .json)
	want=$(cat "${f%.json}.expect")
	nbad=$((nbad + 1))

	run_sluice --tools "$tools" check "$f"
	expect_rc 2 "check $base exits 2"
	like "$ERR" "$want" "check $base names the place: $want"
	bad_lines=$(printf '%s\n' "$ERR" | grep -v '^sluice: ' | grep -c .)
	is "$bad_lines" 0 "check $base: every line is one sluice: reason"
	is "$OUT" "" "check $base prints nothing on stdout"

	run_sluice --tools "$tools" run "$f"
	expect_rc 2 "run $base exits 2"
	like "$ERR" "$want" "run $base gives the same reason"
	is "$(db_digest)" "$before" "run $base changes nothing"

	run_sluice --tools "$tools" template save "bad-$nbad" "$f"
	expect_rc 2 "template save $base exits 2"
	is "$(db_digest)" "$before" "template save $base changes nothing"
done
[ "$nbad" -ge 30 ]
ok $? "at least 30 malformed flows were tried ($nbad)"

for f in "$TESTS_DATA"/good/*.json; do
	base=$(basename "$f" .json)
	run_sluice --tools "$tools" check "$f"
	expect_rc 0 "check $base exits 0"
	like "$OUT" "valid" "check $base says valid"
done

run_sluice check "$T_DIR/nope.json"
expect_rc 2 "check of a missing file exits 2"
like "$ERR" "nope.json: No such file" "missing file is named"

run_sluice --tools "$tools" check --json "$TESTS_DATA/bad/$(ls "$TESTS_DATA/bad" | grep -m1 'json$')"
expect_rc 2 "check --json of a bad flow exits 2"
like "$OUT" '"valid": false' "check --json says invalid"

done_testing
