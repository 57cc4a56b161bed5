#!/bin/sh
# tests/cli/layers.sh: the layers stay where they are.  Each rule names
# what may appear only in some directories of src/; a file elsewhere that
# has it fails the rule, named.  Every rule is also provoked once, on a
# copy of the tree with one file that breaks it, so a rule that could never
# fail (a typo in its pattern) fails here instead.
#
#   sqlite  SQLite (its calls, its header, SQL keywords opening a string)
#           only below src/store: the store seam the other backends plug
#           into (issue: one front door)

. "$TOP_SRCDIR/tests/lib.sh"

# rule_files NAME TREE: the files of TREE/src that break rule NAME.
rule_files() {
	case $1 in
	sqlite)
		grep -rlE 'sqlite3_|<sqlite3\.h>|"(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|BEGIN|COMMIT) ' \
		    "$2/src" --include='*.c' --include='*.h' |
		    sed "s|^$2/||" | grep -v '^src/store/' || :
		;;
	esac
}

# provoke NAME TEXT: a copy of src with src/ui/provoke.c holding TEXT.
provoke() {
	rm -rf "$T_DIR/tree"
	mkdir -p "$T_DIR/tree"
	cp -R "$TOP_SRCDIR/src" "$T_DIR/tree/"
	printf '%s\n' "$2" >"$T_DIR/tree/src/ui/provoke.c"
	rule_files "$1" "$T_DIR/tree"
}

bad=$(rule_files sqlite "$TOP_SRCDIR")
is "$bad" "" "SQLite is used only below src/store"
is "$(provoke sqlite 'static int x(void) { return sqlite3_changes(0); }')" \
    "src/ui/provoke.c" "sqlite: a sqlite3_ call outside src/store is caught"
is "$(provoke sqlite 'static const char *q = "SELECT id FROM workflows";')" \
    "src/ui/provoke.c" "sqlite: SQL outside src/store is caught"

done_testing
