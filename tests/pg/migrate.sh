#!/bin/sh
# tests/pg/migrate.sh: a PostgreSQL database of schema 16 (the first after
# run_counts, before the nodes' and relay's changes) migrates to the
# newest schema on "sluice init", and the result is the schema a new
# database gets: the same columns, constraints, indexes, triggers and
# rights.  The migrated database then works: an engine runs a workflow
# on it, and the audit chain verifies.
#
# Schema 16 is made by undoing what versions 17 to 20 did (as
# tests/cluster/status.sh makes 17): the audit and inbox rows' node, the
# nodes table, and the active-steps index in its older IN form.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }
cd "$T_DIR" || exit 1

# catalog: what the schema is, one line a thing, sorted.
catalog() {
	pg_sql "SELECT 'column ' || table_name || '.' || column_name || ' '
	    || data_type || ' ' || is_nullable || ' '
	    || coalesce(column_default, '-')
	    FROM information_schema.columns WHERE table_schema = 'public'
	  UNION ALL SELECT 'constraint ' || conrelid::regclass || ' '
	    || conname || ' ' || pg_get_constraintdef(oid)
	    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
	  UNION ALL SELECT 'index ' || indexdef FROM pg_indexes
	    WHERE schemaname = 'public'
	  UNION ALL SELECT 'trigger ' || tgrelid::regclass || ' ' || tgname
	    FROM pg_trigger WHERE NOT tgisinternal
	  UNION ALL SELECT 'grant ' || grantee || ' ' || table_name || ' '
	    || privilege_type FROM information_schema.role_table_grants
	    WHERE table_schema = 'public'
	  UNION ALL SELECT 'function ' || proname FROM pg_proc
	    WHERE pronamespace = 'public'::regnamespace" | LC_ALL=C sort
}

run_sluice init "$PG_DB"
expect_rc 0 "a new database"
new=$(pg_sql "SELECT user_version FROM sluice_meta")
catalog >"$T_DIR/new.txt"
[ "$(wc -l <"$T_DIR/new.txt")" -gt 100 ]
ok $? "its catalog is read ($(wc -l <"$T_DIR/new.txt") lines)"

pg_sql "ALTER TABLE audit DROP COLUMN node;
    ALTER TABLE inbox DROP COLUMN node;
    DROP TABLE nodes;
    DROP INDEX workflow_steps_active;
    CREATE INDEX workflow_steps_active ON workflow_steps (status, id)
        WHERE status IN ('pending', 'ready', 'running', 'waiting', 'queued');
    UPDATE sluice_meta SET user_version = 16" >/dev/null
ok $? "made a database of schema 16"
catalog >"$T_DIR/old.txt"
! cmp -s "$T_DIR/old.txt" "$T_DIR/new.txt"
ok $? "  whose catalog differs"

run_sluice init "$PG_DB"
expect_rc 0 "init on a database of schema 16"
is "$(pg_sql "SELECT user_version FROM sluice_meta")" "$new" \
    "it is migrated to the newest schema ($new)"
catalog >"$T_DIR/migrated.txt"
diff "$T_DIR/new.txt" "$T_DIR/migrated.txt" >"$T_DIR/diff"
ok $? "  the same schema as a new database's: $(grep -c '^[<>]' "$T_DIR/diff") lines differ"
sed 's/^/# /' "$T_DIR/diff" | head -20

# It works: an engine runs a workflow, and the chain verifies.
export SLUICE_DB="$PG_ENGINE_DB"
export SLUICE_SOCKET="$T_DIR/engine.sock"
"$SLUICE" engine >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for test -S "$SLUICE_SOCKET"
ok $? "an engine runs on the migrated database"
cat >"$T_DIR/flow.json" <<'JSON'
{"start": {"shell": "echo migrated", "done": true}}
JSON
run_sluice run "$T_DIR/flow.json"
expect_rc 0 "a run starts"
wf=$OUT
done_run() {
	[ "$(pg_sql "SELECT status FROM workflows WHERE id = ${wf:-0}")" = completed ]
}
wait_for done_run
ok $? "  and completes"
run_sluice audit --verify
expect_rc 0 "audit --verify is clean"

done_testing
