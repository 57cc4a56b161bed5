#!/bin/sh
# tests/pg/failover.sh: the PostgreSQL driver across a failover, with
# tests/pg-lib.sh's helpers (the cluster tests build on them): a hot
# standby is read-only to sluice (reads work, a write is refused as
# read-only and changes nothing); every template save acknowledged by
# the primary is on the standby after the primary's host dies (kill -9
# of its processes) and the standby is promoted; the promoted server
# takes writes; the old primary, stopped, stays stopped.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }
pg_standby || { echo "Bail out! the standby did not start"; exit 1; }
cd "$T_DIR" || exit 1

SB_DB="postgresql:host=127.0.0.1 port=$(pg_port standby) dbname=sluice user=sluice_owner"
export SLUICE_SOCKET="$T_DIR/engine.sock"	# commands go through an engine
run_sluice init "$PG_DB"
expect_rc 0 "init on the primary"

# pg_engine DB: an engine on DB, as $EPID, once it answers.
pg_engine() {
	"$SLUICE" --db "$1" engine >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" \
	    </dev/null &
	EPID=$!
	ENGINES="$ENGINES $EPID"
	wait_for test -S "$SLUICE_SOCKET"
}
pg_engine "$PG_DB"

cat >"$T_DIR/t.json" <<'EOF'
{"start": {"tool": "noop", "done": true}}
EOF
n=0
acked=0
while [ "$n" -lt 20 ]; do
	n=$((n + 1))
	run_sluice --db "$PG_DB" template save "t$n" "$T_DIR/t.json"
	[ "$RC" -eq 0 ] && acked=$((acked + 1))
done
is "$acked" 20 "20 template saves acknowledged by the primary"
kill -TERM "$EPID"
wait "$EPID"
rm -f "$SLUICE_SOCKET"

# --- the hot standby: reads, and refuses writes ------------------------------

run_sluice --db "$SB_DB" template list
expect_rc 0 "the standby is read"
is "$(printf '%s\n' "$OUT" | grep -c '^t[0-9]')" 20 "  with every save"
run_sluice --db "$SB_DB" template save other "$T_DIR/t.json"
ok $((RC == 0)) "a write on the standby is refused"
like "$ERR" "read-only" "  as read-only"
run_sluice --db "$SB_DB" status
like "$OUT" "(standby)" "status on the standby says so"
like "$OUT" "the server is a standby" "  as a problem"

# --- the primary dies; the standby is promoted --------------------------------

old=$(pg_pid primary)
pg_crash primary
ok $(kill -0 "$old" 2>/dev/null; echo $((1 - $?))) "the primary is gone (kill -9)"
run_sluice --db "$PG_DB" template list
ok $((RC == 0)) "  and cannot be reached"
pg_promote standby
ok $? "the standby is promoted"
run_sluice --db "$SB_DB" template list
is "$(printf '%s\n' "$OUT" | grep -c '^t[0-9]')" 20 \
    "every acknowledged save is there"
pg_engine "$SB_DB"
run_sluice --db "$SB_DB" template save after "$T_DIR/t.json"
expect_rc 0 "the promoted server takes writes (through an engine on it)"
run_sluice --db "$SB_DB" audit --verify
expect_rc 0 "  and its audit chain holds"
run_sluice --db "$SB_DB" status
like "$OUT" "(primary)" "status calls it the primary now"

done_testing
