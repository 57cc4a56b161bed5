#!/bin/sh
# tests/tui/header.sh: the console's header names the database by its
# whole path (home as "~"), so two databases of the same name never look
# alike; on a narrow screen the path is cut from the left behind an
# ellipsis ("..." in the C locale), keeping the file's name in sight.
# Driven by key scripts (tests/screen-lib.sh) at 200x60 and 80x24: the
# header's layout needs no terminal.  The console refuses a named
# database that does not exist and creates the default one.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

DB="$T_DIR/a-rather-long-directory-for-the-team/team.db"
db_init "$DB"
# The path as a regular expression (T_DIR holds dots).
re=$(printf '%s' "$DB" | sed 's/[.[\*^$]/\\&/g')

scr_start 200x60 --
scr_ok "^sluice $re · Workflows +engine: this console" \
    "200 columns: the whole path, then the view and the engine"

scr_start 80x24 --
scr_ok "^sluice …[^ ]*team\.db( · Workflows)? +engine: this console" \
    "80 columns: the path is cut from the left, its end kept"
scr_gone_ok "^sluice $re" "the whole path does not fit, and is not forced in"
line=$(scr_screen | head -1)
is "$(printf '%s' "$line" | wc -L)" 80 "the header fills the row exactly"

scr_start 80x24 LC_ALL=C --
scr_ok "^sluice \.\.\.[^ ]*team\.db( - Workflows)? +engine: this console" \
    "in the C locale the ellipsis is three dots"

# Under the home directory: "~".
HDB="$HOME/ops/team.db"
db_init "$HDB"
DB=$HDB
scr_start 200x60 --
scr_ok "^sluice ~/ops/team\.db · Workflows" "the home directory shows as ~"
scr_stop

# --- the console meets only the database meant -----------------------------------

# A named path that does not exist: refused, nothing made.  Its script is
# a file, not the FIFO scr_start writes: the console exits before it
# would open one.
printf ':quit\n' >"$T_DIR/quit.script"
env ASAN_OPTIONS="log_path=$T_DIR/san-asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    UBSAN_OPTIONS="log_path=$T_DIR/san-ubsan:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
    SLUICE_SCRIPT="$T_DIR/quit.script" SLUICE_SCRIPT_DIR="$T_DIR" \
    "$SLUICE" --db "$T_DIR/typo/slucie.db" </dev/null >/dev/null \
    2>"$T_DIR/console.err"
is "$?" 2 "the console on a missing named database exits 2"
like "$(cat "$T_DIR/console.err")" \
    "no database at $T_DIR/typo/slucie.db (is the path right? 'sluice init" \
    "saying so, with the hint"
[ ! -e "$T_DIR/typo" ]
ok $? "and makes neither the file nor its directory"

# The default path: the console makes it, as the quickstart expects.
scr_start_cmd 200x24 -- env -u SLUICE_DB "$SLUICE"
scr_ok "^sluice ~/\.local/state/sluice/sluice\.db" \
    "the console creates the default database and names it"
[ -f "$XDG_STATE_HOME/sluice/sluice.db" ]
ok $? "there"

scr_sanitizers_ok "no sanitizer report from the consoles"
done_testing
