#!/bin/sh
# tests/tui/header.sh: the console's header names the database by its
# whole path (home as "~"), so two databases of the same name never look
# alike; on a narrow terminal the path is cut from the left behind an
# ellipsis ("..." in the C locale), keeping the file's name in sight.
# Real terminals (tmux) at 200x60 and 80x24.  The console refuses a named
# database that does not exist and creates the default one.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/tui-lib.sh"

DB="$T_DIR/a-rather-long-directory-for-the-team/team.db"
db_init "$DB"
# The path as a regular expression (T_DIR holds dots).
re=$(printf '%s' "$DB" | sed 's/[.[\*^$]/\\&/g')

tui_start 200x60 --
tui_ok "^sluice $re · Workflows +engine: this console" \
    "200 columns: the whole path, then the view and the engine"
tui_stop

tui_start 80x24 --
tui_ok "^sluice …[^ ]*team\.db( · Workflows)? +engine: this console" \
    "80 columns: the path is cut from the left, its end kept"
tui_gone_ok "^sluice $re" "the whole path does not fit, and is not forced in"
line=$(tui_screen | head -1)
is "$(printf '%s' "$line" | wc -L)" 80 "the header fills the row exactly"
tui_stop

tui_start 80x24 LC_ALL=C --
tui_ok "^sluice \.\.\.[^ ]*team\.db( - Workflows)? +engine: this console" \
    "in the C locale the ellipsis is three dots"
tui_stop

# Under the home directory: "~".
HDB="$HOME/ops/team.db"
db_init "$HDB"
DB=$HDB tui_start 200x60 --
tui_ok "^sluice ~/ops/team\.db · Workflows" "the home directory shows as ~"
tui_stop

# --- the console meets only the database meant -----------------------------------

# A named path that does not exist: refused, nothing made.
tui_start_cmd 80x24 -- sh -c '"$1" --db "$2" 2>"$3"' sh "$SLUICE" \
    "$T_DIR/typo/slucie.db" "$T_DIR/console.err"
tui_wait_exit
is "$TUI_STATUS" 2 "the console on a missing named database exits 2"
like "$(cat "$T_DIR/console.err")" \
    "no database at $T_DIR/typo/slucie.db (is the path right? 'sluice init" \
    "saying so, with the hint"
[ ! -e "$T_DIR/typo" ]
ok $? "and makes neither the file nor its directory"
tui_stop

# The default path: the console makes it, as the quickstart expects.
tui_start_cmd 200x24 -- env -u SLUICE_DB "$SLUICE"
tui_ok "^sluice ~/\.local/state/sluice/sluice\.db" \
    "the console creates the default database and names it"
[ -f "$XDG_STATE_HOME/sluice/sluice.db" ]
ok $? "there"
tui_stop

tui_sanitizers_ok "no sanitizer report from the consoles"
done_testing
