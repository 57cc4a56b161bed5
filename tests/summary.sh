#!/bin/sh
# tests/summary.sh DIR: print one closing line "tests: N passed, N failed"
# (", N skipped" when any were) from the automake .trs files below DIR, so
# any runner can read the result; exit 1 when any failed.
dir=${1:-.}
pass=0
fail=0
skip=0
for f in $(find "$dir" -name '*.trs' 2>/dev/null); do
	pass=$((pass + $(grep -c '^:test-result: \(PASS\|XFAIL\)' "$f")))
	fail=$((fail + $(grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$f")))
	skip=$((skip + $(grep -c '^:test-result: SKIP' "$f")))
done
if [ "$skip" -gt 0 ]; then
	echo "tests: $pass passed, $fail failed, $skip skipped"
else
	echo "tests: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
