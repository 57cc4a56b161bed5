#!/bin/sh
# seeds.sh: the reference engine's example flows pass "check" with tools of
# the same names, fail without them, and start as runs.
. "$TOP_SRCDIR/tests/lib.sh"

tools="$TESTS_DATA/seeds/tools.json"
n=0
for f in "$TESTS_DATA"/seeds/*.json; do
	base=$(basename "$f" .json)
	[ "$base" = tools ] && continue
	n=$((n + 1))
	run_sluice --tools "$tools" check "$f"
	expect_rc 0 "seed $base passes check"
	unlike "$ERR" "error" "seed $base has no errors"

	run_sluice check "$f"
	if grep -q '"tool": *"' "$f"; then
		expect_rc 2 "seed $base fails without its tools"
		like "$ERR" "unknown tool" "seed $base names the unknown tool"
	fi

	run_sluice --tools "$tools" run "$f" -i topic=sluice
	expect_rc 0 "seed $base starts"
	id=$OUT
	run_sluice show --json "$id"
	expect_rc 0 "seed $base shows"
	like "$OUT" '"status": "running"' "seed $base is running"
	like "$OUT" '"attempt": 1' "seed $base has its first step"
done
[ "$n" -ge 5 ]
ok $? "at least five seed flows ($n)"

# The reference's forms: a flow without "start" begins at its first step
# (first-step-entry.json, whose branch also compares with an unquoted
# word), and --at takes a bare Unix time.
run_sluice --tools "$tools" run "$TESTS_DATA/seeds/first-step-entry.json" \
    -i topic=x
id=$OUT
run_sluice show --json "$id"
like "$OUT" '"name": "greet"' "a flow without start begins at its first step"
at=$(($(date +%s) + 3600))
run_sluice --tools "$tools" run "$TESTS_DATA/seeds/notify.json" --at "$at"
expect_rc 0 "--at takes a bare Unix time"
run_sluice show --json "$OUT"
like "$OUT" "\"start_at\": \"$(date -u -d "@$at" +%Y-%m-%dT%H:%M:%S).000Z\"" \
    "... as seconds since 1970"

done_testing
