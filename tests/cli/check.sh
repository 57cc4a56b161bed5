#!/bin/sh
# check.sh: every malformed flow in tests/data/bad is refused by "check" and
# by "run" with a one-line reason naming its place, exit 2, and an unchanged
# database; every flow in tests/data/good passes.
. "$TOP_SRCDIR/tests/lib.sh"

tools="$TESTS_DATA/seeds/tools.json"

# digest: every table's rows and the schema as one hash, from one sqlite3
# process (db_digest takes two and a pipeline; here it runs 200 times).
# Nothing runs an engine here, so its row is hashed too.
digest() {
	sqlite3 -cmd '.timeout 5000' "$SLUICE_DB" '.sha3sum --schema'
}

# Give the database some content first, so "unchanged" means something.
run_sluice --tools "$tools" run "$TESTS_DATA/run/hello.json"
expect_rc 0 "a good flow runs"
before=$(digest)
case $before in
*[!0-9a-f]*|'') echo "Bail out! sqlite3 .sha3sum gave no hash: $before"
	exit 1 ;;
esac

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
	is "$(digest)" "$before" "run $base changes nothing"

	run_sluice --tools "$tools" template save "bad-$nbad" "$f"
	expect_rc 2 "template save $base exits 2"
	is "$(digest)" "$before" "template save $base changes nothing"
done
[ "$nbad" -ge 30 ]
ok $? "at least 30 malformed flows were tried ($nbad)"
run_sluice --tools "$tools" run "$TESTS_DATA/run/hello.json"
[ "$RC" -eq 0 ] && [ "$(digest)" != "$before" ]
ok $? "a run that is not refused changes the digest"

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
