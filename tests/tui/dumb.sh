#!/bin/sh
# tests/tui/dumb.sh: on a terminal that cannot move its cursor
# (TERM=dumb) only the console's first screen is ever seen, so that one
# must already be true: with a headless engine running, its header names
# the engine's pid, never "engine: none".  The console runs on a real
# pseudo-terminal (script(1)) for three seconds.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v script >/dev/null || skip_all "script(1) is not installed"
command -v timeout >/dev/null || skip_all "timeout(1) is not installed"

db_init
engine_start
ok $? "a headless engine runs"

# The console's screen on a dumb terminal; timeout ends it.
env TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8 timeout 3 script -qfec \
    "$SLUICE --db $SLUICE_DB" /dev/null </dev/null >"$T_DIR/dumb.out" 2>&1
screen=$(tr -s ' ' <"$T_DIR/dumb.out")
like "$screen" "engine: pid $EPID on " \
    "TERM=dumb: the header names the running engine"
unlike "$screen" "engine: none" "TERM=dumb: never \"engine: none\""
unlike "$screen" "silent" "TERM=dumb: the engine is not called silent"
engine_stop
done_testing
