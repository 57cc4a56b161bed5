#!/bin/sh
# tests/pg/turn.sh: the engine's turn on PostgreSQL (tests/pg/turn.c)
# against a primary of our own: writes not waited for, a refused one
# failing the turn whole with its name, and the fence checked by the
# server (a stale epoch refused, nothing committed).
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

prog="$(dirname "$SLUICE")/tests/pg/turn"
[ -x "$prog" ] || skip_all "no $prog (make check builds it)"
pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }

SLUICE_STORE_TARGET=$PG_DB "$prog" >"$T_DIR/turn.tap" 2>"$T_DIR/turn.err"
rc=$?
tap_replay "$T_DIR/turn.tap"
ok $((TAP_REPLAYED < 40)) "the turn test ran its cases ($TAP_REPLAYED)"
is "$rc" 0 "  and passed"
[ -s "$T_DIR/turn.err" ] && sed 's/^/# stderr: /' "$T_DIR/turn.err" | head -20

done_testing
