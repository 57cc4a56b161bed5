#!/bin/sh
# share.sh: the shipped templates and tools pass "check" cleanly, and the
# manuals are lint-clean and name every command.
. "$TOP_SRCDIR/tests/lib.sh"

tools="$TOP_SRCDIR/share/tools.json"
n=0
for f in "$TOP_SRCDIR"/share/templates/*.json; do
	n=$((n + 1))
	base=$(basename "$f" .json)
	run_sluice --tools "$tools" check "$f"
	expect_rc 0 "template $base passes check"
	is "$ERR" "" "template $base has no warnings"
	like "$OUT" "valid template" "template $base is a template document"
	run_sluice --tools "$tools" template save "$base" "$f"
	expect_rc 0 "template $base saves"
done
[ "$n" -ge 5 ]
ok $? "at least five example templates ($n)"

run_sluice template list
for f in "$TOP_SRCDIR"/share/templates/*.json; do
	like "$OUT" "$(basename "$f" .json)" "template list shows $(basename "$f" .json)"
done

run_sluice --help
cmds=$(printf '%s\n' "$OUT" | sed -n 's/^  \([a-z]*\)  .*/\1/p')
for c in $cmds; do
	grep -qE "^\.It( Xo)? (Cm|Ic) $c( |$)" "$TOP_SRCDIR/man/sluice.1"
	ok $? "sluice.1 documents $c"
done

if command -v mandoc >/dev/null 2>&1; then
	for m in sluice.1 sluice-flow.5; do
		out=$(mandoc -Tlint -W warning "$TOP_SRCDIR/man/$m" 2>&1)
		is "$out" "" "mandoc -Tlint $m is clean"
	done
fi

done_testing
