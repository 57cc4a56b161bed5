#!/bin/sh
# layout.sh: the source tree keeps the shape STYLE asks for.  Every .c
# file under src/ stays under LAYOUT_MAX lines (a file that long holds
# more than one job: split it along its seams), opens with the licence
# and a comment naming the file and what it owns, and is built (named in
# Makefile.am's explicit source lists); the console's shared symbols
# carry the ui_ prefix.
. "$TOP_SRCDIR/tests/lib.sh"

LAYOUT_MAX=900
# Files still waiting for their split, one a line: the path, a tab, and
# who splits it.  Remove a line once its file is short again.
LAYOUT_LONG=""

cd "$TOP_SRCDIR" || exit 99
files=$(find src -name '*.c' | LC_ALL=C sort)
[ -n "$files" ]
ok $? "src/ holds .c files"

long=
for f in $files; do
	n=$(wc -l < "$f")
	[ "$n" -le "$LAYOUT_MAX" ] && continue
	if printf '%s\n' "$LAYOUT_LONG" | cut -f1 | grep -qx "$f"; then
		echo "# $f: $n lines, allowed until it is split"
		continue
	fi
	long="$long $f($n)"
done
is "$long" "" "no .c file under src/ is over $LAYOUT_MAX lines"

bad=
for f in $files; do
	head -n 2 "$f" | grep -q 'Copyright (c) [0-9]* The sluice authors' ||
	    bad="$bad $f"
done
is "$bad" "" "every .c file opens with the licence"

bad=
for f in $files; do
	grep -Eq "^( \*|/\*) $(basename "$f"): " "$f" || bad="$bad $f"
done
is "$bad" "" "every .c file has a comment naming it and what it owns"

bad=
for f in $files; do
	grep -Eq "(^	|= )$f( \\\\)?\$" Makefile.am || bad="$bad $f"
done
is "$bad" "" "every .c file under src/ is in Makefile.am"

# The console's shared symbols carry the ui_ prefix (STYLE: every
# exported symbol carries its module's), read from the built objects.
objs=$(dirname "$SLUICE")/src/ui
if ! command -v nm >/dev/null 2>&1; then
	echo "# skip: no nm to list the console's symbols"
elif ! ls "$objs"/*.o >/dev/null 2>&1; then
	echo "# skip: no console objects under $objs"
else
	bad=$(for o in "$objs"/*.o; do
		nm -g --defined-only "$o" | awk '{ print $3 }'
	done | grep -v -e '^ui_' -e '^__odr_asan' | LC_ALL=C sort | tr '\n' ' ')
	is "$bad" "" "every symbol src/ui/ exports starts with ui_"
fi

done_testing
