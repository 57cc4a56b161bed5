#!/bin/sh
# tests/summary.sh DIR: print one closing line "tests: N passed, N failed"
# from the automake .trs files below DIR, so any runner can read the result.
dir=${1:-.}
pass=0
fail=0
for f in $(find "$dir" -name '*.trs' 2>/dev/null); do
	p=$(grep -c '^:test-result: \(PASS\|XFAIL\|SKIP\)' "$f")
	x=$(grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)' "$f")
	pass=$((pass + p))
	fail=$((fail + x))
done
echo "tests: $pass passed, $fail failed"
