#!/bin/sh
# tests/pg/conformance.sh: the store conformance test
# (tests/unit/test-store-conformance) on PostgreSQL: every case it asks of
# a driver, through store.h alone, against a primary of our own, and the
# driver's refusals of a reader's writes.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

conf="$(dirname "$SLUICE")/tests/unit/test-store-conformance"
[ -x "$conf" ] || skip_all "no $conf (make check builds it)"
pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }

SLUICE_STORE_DRIVER=postgresql SLUICE_STORE_TARGET=$PG_DB "$conf" \
    >"$T_DIR/conf.tap" 2>"$T_DIR/conf.err"
rc=$?
tap_replay "$T_DIR/conf.tap"
ok $((TAP_REPLAYED < 50)) "the conformance test ran its cases ($TAP_REPLAYED)"
is "$rc" 0 "  and passed"
[ -s "$T_DIR/conf.err" ] && sed 's/^/# stderr: /' "$T_DIR/conf.err" | head -20

done_testing
