#!/bin/sh
# tests/summary.sh DIR [TRS...]: print one closing line "tests: N passed,
# N failed" (", N skipped" when any were) from the automake .trs files
# named (make check names those of the tests it ran; one named with no
# result counts as failed), else from every one
# below DIR, so any runner can read the result; exit 1 when any failed.
dir=${1:-.}
[ $# -gt 0 ] && shift
named=$#
[ $# -gt 0 ] || set -- $(find "$dir" -name '*.trs' 2>/dev/null)
pass=0
fail=0
skip=0
for f in "$@"; do
	# A test make check ran that left no result (killed, or make
	# stopped before it) is a failure, never a test fewer.
	if [ ! -f "$f" ]; then
		if [ "$named" -gt 0 ]; then
			echo "FAIL: ${f%.trs}: no result (the test did not finish)"
			fail=$((fail + 1))
		fi
		continue
	fi
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
