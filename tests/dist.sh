#!/bin/sh
# tests/dist.sh: every file the repository tracks goes into the release
# tarball: Makefile.am names it (or a directory it is in, as a whole), or
# automake takes it anyway.  A demo template or a bench script left out
# of the tarball fails "make distcheck" only when someone runs it; here it
# fails at once, naming the file.  Skips outside a git checkout (as in
# distcheck's own build, whose tree is the tarball).

. "$TOP_SRCDIR/tests/lib.sh"

command -v git >/dev/null 2>&1 || skip_all "git is not installed"
top=$(git -C "$TOP_SRCDIR" rev-parse --show-toplevel 2>/dev/null)
[ -n "$top" ] && [ "$top" = "$(cd "$TOP_SRCDIR" && pwd -P)" ] ||
    skip_all "$TOP_SRCDIR is not the top of a git checkout (a release tree)"

# Makefile.am without its comments and recipes (a "mkdir share &&" or a
# comment's "the tests" names no file).
AM=$T_DIR/Makefile.am
grep -v -e '^#' -e '&&' -e '^	\$(' -e '^	@' "$TOP_SRCDIR/Makefile.am" >"$AM"

# in_dist FILE: Makefile.am names FILE or one of its directories.
in_dist() {
	grep -qF "$1" "$AM" && return 0
	_d=$1
	while _d=$(dirname "$_d") && [ "$_d" != "." ]; do
		grep -qE "(^|[[:space:]])$_d([[:space:]]|\\\\|\$)" "$AM" &&
		    return 0
	done
	return 1
}

missing=
n=0
for f in $(git -C "$TOP_SRCDIR" ls-files); do
	case $f in
	.gitignore|configure.ac|Makefile.am) continue ;;	# automake's own
	esac
	n=$((n + 1))
	in_dist "$f" || missing="$missing $f"
done
[ "$n" -gt 300 ]
ok $? "the checkout tracks files to look at ($n)"
is "${missing# }" "" "every tracked file is in the release tarball"

# Provoked: a file Makefile.am does not name is found.
in_dist share/templates/not-listed.json
ok $((! $?)) "a file Makefile.am does not name is caught"
in_dist tests/data/anything.json
ok $? "a file under a directory listed whole is in"

done_testing
