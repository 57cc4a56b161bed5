#!/bin/sh
# tests/headers.sh: every header under src/ compiles on its own, first in
# a file of its own, with the build's compiler, flags and warnings
# ($SLUICE_HEADER_CC from Makefile.am): a header that leans on another
# being included before it fails here, not in the next file to use it.

. "$TOP_SRCDIR/tests/lib.sh"

[ -n "${SLUICE_HEADER_CC:-}" ] || skip_all "no SLUICE_HEADER_CC (run by make check)"

for h in "$TOP_SRCDIR"/src/*/*.h; do
	rel=${h#"$TOP_SRCDIR/src/"}
	printf '#include "%s"\n' "$rel" >"$T_DIR/header.c"
	$SLUICE_HEADER_CC -c "$T_DIR/header.c" -o /dev/null \
	    >"$T_DIR/header.err" 2>&1
	rc=$?
	ok $rc "$rel compiles on its own"
	[ "$rc" = 0 ] || sed 's/^/# /' "$T_DIR/header.err" | head -5
done

done_testing
