#!/bin/sh
# layers.sh: the arrows between the layers under src/ point down
# (STYLE.md): a file includes only its own layer's headers and those of
# the layers below it.  The table says, for each layer, which it may
# include; sluice mcp in particular reaches the engine through the client
# API (src/client), never through the command line's code.  And SQLite
# (its calls, its header, SQL opening a string) is used only below
# src/store: the store seam another backend plugs into.  Inside src/store
# only the SQLite driver (driver-sqlite*.c) calls SQLite: every other store
# file goes through the driver interface (src/store/driver.h).  Each check
# is run on the tree, then on a copy that breaks it once, which it must
# catch.
. "$TOP_SRCDIR/tests/lib.sh"

# layer: the layers it may include besides its own.
LAYERS='util:
os:util
flow:util
sched:util flow
store:util
engine:util os flow sched store
client:util os flow sched store engine
ui:util os flow sched store engine client
mcp:util sched flow store engine client
cli:util os flow sched store engine client ui mcp'

# layer_violations SRC: one line "FILE: includes LAYER/" for each include
# of a layer that the table does not allow.
layer_violations() {
	printf '%s\n' "$LAYERS" | while IFS=: read -r layer allowed; do
		for f in "$1/$layer"/*.[ch]; do
			[ -f "$f" ] || continue
			sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u |
			while read -r inc; do
				case " $layer $allowed " in
				*" $inc "*) ;;
				*) echo "${f#"$1"/}: includes $inc/" ;;
				esac
			done
		done
	done
}

got=$(layer_violations "$TOP_SRCDIR/src")
is "$got" "" "every include points down the layers"
for l in $(printf '%s\n' "$LAYERS" | cut -d: -f1); do
	[ -d "$TOP_SRCDIR/src/$l" ]
	ok $? "the table names src/$l, which is there"
done
n=$(ls -d "$TOP_SRCDIR"/src/*/ | wc -l)
is "$n" "$(printf '%s\n' "$LAYERS" | wc -l | tr -d ' ')" \
    "the table names every layer under src/"

# Provoked: sluice mcp reaching into the command line is caught.
mkdir -p "$T_DIR/src"
cp -R "$TOP_SRCDIR/src/mcp" "$TOP_SRCDIR/src/client" "$T_DIR/src/"
printf '#include "cli/cli.h"\n' >>"$T_DIR/src/mcp/tools.c"
got=$(layer_violations "$T_DIR/src")
is "$got" "mcp/tools.c: includes cli/" "an include of cli/ from mcp/ is caught"
printf '#include "ui/ui.h"\n' >>"$T_DIR/src/client/client.c"
got=$(layer_violations "$T_DIR/src" | grep client)
is "$got" "client/client.c: includes ui/" "  and one of ui/ from client/"

# sqlite_outside SRC: the files under SRC that use SQLite outside store/.
sqlite_outside() {
	grep -rlE 'sqlite3_|<sqlite3\.h>|"(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|BEGIN|COMMIT) ' \
	    "$1" --include='*.c' --include='*.h' | sed "s|^$1/||" |
	    grep -v '^store/' || :
}

is "$(sqlite_outside "$TOP_SRCDIR/src")" "" "SQLite is used only below src/store"
printf 'static int x(void) { return sqlite3_changes(0); }\n' \
    >"$T_DIR/src/client/provoke.c"
is "$(sqlite_outside "$T_DIR/src")" "client/provoke.c" \
    "a sqlite3_ call outside src/store is caught"
printf 'static const char *q = "SELECT id FROM workflows";\n' \
    >"$T_DIR/src/client/provoke.c"
is "$(sqlite_outside "$T_DIR/src")" "client/provoke.c" \
    "  and so is SQL"

# sqlite_beside_driver SRC: the files under SRC/store, other than the
# SQLite driver's, that call SQLite or include its header.
sqlite_beside_driver() {
	grep -rlE 'sqlite3_[a-z]|<sqlite3\.h>' "$1/store" --include='*.c' \
	    --include='*.h' | sed "s|^$1/||" |
	    grep -v '^store/driver-sqlite[a-z-]*\.[ch]$' || :
}

is "$(sqlite_beside_driver "$TOP_SRCDIR/src")" "" \
    "in src/store only the SQLite driver calls SQLite"
cp -R "$TOP_SRCDIR/src/store" "$T_DIR/src/"
is "$(sqlite_beside_driver "$T_DIR/src")" "" "  (and so in the copy)"
printf 'static int y(void) { return sqlite3_changes(0); }\n' \
    >>"$T_DIR/src/store/lease.c"
is "$(sqlite_beside_driver "$T_DIR/src")" "store/lease.c" \
    "a sqlite3_ call in a store file beside the driver is caught"
cp "$TOP_SRCDIR/src/store/lease.c" "$T_DIR/src/store/lease.c"
printf '#include <sqlite3.h>\n' >>"$T_DIR/src/store/store-int.h"
is "$(sqlite_beside_driver "$T_DIR/src")" "store/store-int.h" \
    "  and so is <sqlite3.h> in a store header"
printf '#include <sqlite3.h>\n' >"$T_DIR/src/store/driver-sqlite-more.c"
is "$(sqlite_beside_driver "$T_DIR/src")" "store/store-int.h" \
    "  while a driver-sqlite file may use it"

done_testing
