#!/bin/sh
# tests/pg/workflows.sh: sluice on a postgresql: database (cluster mode's
# store, SPEC §14) with a real engine: init as the owner says which role
# is which; an engine logged in as a member of sluice_engine runs a
# workflow through a gate (run, gates, approve, show), the audit chain
# verifies, templates are saved and diffed; the engine's role may not
# change the audit trail, nor may the owner (triggers); a reader reads
# and may not write; every commit is on the synchronous standby; status
# names the server and its standby; backup refuses, naming pg_dump and
# pgBackRest; init as the engine's login changes nothing and says so.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"

pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }
pg_standby || { echo "Bail out! the standby did not start"; exit 1; }
cd "$T_DIR" || exit 1

# pq SQL: the answer on the primary's sluice database.
pq() {
	pg_sql "$1"
}

# as_role ROLE SQL: psql as ROLE; its status in $RC, its words in $OUT.
as_role() {
	OUT=$(pg_as "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 \
	    -p "$(pg_port primary)" -U "$1" -d sluice -c "$2" 2>&1)
	RC=$?
}

# --- init: the schema, made by its owner ---------------------------------------

run_sluice init "$PG_DB"
expect_rc 0 "init on a postgresql: database"
like "$OUT" "created (schema version" "  creates the schema"
like "$OUT" "owner   sluice_owner" "  names its owner"
like "$OUT" "sluice_engine: engines log in" "  and the engine's role"
like "$OUT" "sluice_reader: people who" "  and the readers'"
is "$(pq "SELECT tableowner FROM pg_tables WHERE tablename = 'audit'")" \
    sluice_owner "the owner owns the tables"
run_sluice init "$PG_DB"
expect_rc 0 "init again"
like "$OUT" "rights given again" "  leaves it, giving the rights again"
run_sluice --db "$PG_ENGINE_DB" init
expect_rc 0 "init as the engine's login (a unit's ExecStartPre)"
like "$OUT" "nothing changed: its owner's sluice init gives the rights" \
    "  changes nothing, saying so"
like "$OUT" "owner   sluice_owner: owns the schema" "  and names the real owner"

# --- an engine, as the engine's role --------------------------------------------

export SLUICE_DB="$PG_ENGINE_DB"
export SLUICE_SOCKET="$T_DIR/engine.sock"	# this node's, as the unit sets
"$SLUICE" engine >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
engine_up() {
	[ "$(pq "SELECT pid FROM engine")" = "$EPID" ]
}
wait_for engine_up
ok $? "an engine runs on it, logged in as engine1"

cat >"$T_DIR/flow.json" <<'EOF'
{"start": {"name": "greet", "tool": "echo",
   "args": {"message": "hello {{input.who}}"}, "next": "ok"},
 "ok": {"gate": {"message": "go on for {{input.who}}?"}, "next": "bye"},
 "bye": {"run": ["echo", "bye {{input.who}}"], "done": true}}
EOF
run_sluice run "$T_DIR/flow.json" -i who=pg
expect_rc 0 "run a workflow"
id=$OUT
is "$id" 1 "  its id"
gate_waits() {
	[ "$(pq "SELECT status FROM workflow_steps WHERE workflow_id = $id
	    AND name = 'ok'")" = waiting ]
}
wait_for gate_waits
ok $? "its gate waits"
run_sluice gates
like "$OUT" "go on for pg?" "gates lists it"
g=$(pq "SELECT id FROM workflow_steps WHERE name = 'ok'")
run_sluice approve "$g" -m "fine by me"
expect_rc 0 "approve it"
run_ended() {
	[ "$(pq "SELECT status FROM workflows WHERE id = $id")" = completed ]
}
wait_for run_ended
ok $? "the run completes"
run_sluice show "$id"
like "$OUT" "status:   completed" "show: completed"
like "$OUT" "bye" "  with its last step"
is "$(pq "SELECT result_json FROM workflow_steps WHERE name = 'greet'")" \
    '{"message":"hello pg"}' "the step's result, as text"
is "$(pq "SELECT comment FROM approvals")" "fine by me" \
    "the approval is recorded"
run_sluice log "$(pq "SELECT id FROM workflow_steps WHERE name = 'bye'")"
like "$OUT" "bye pg" "the step's output is kept (bytea)"
run_sluice audit --verify
expect_rc 0 "audit --verify"
like "$OUT" "audit trail intact" "  the chain holds"

# --- templates -------------------------------------------------------------------

run_sluice template save greet "$T_DIR/flow.json"
expect_rc 0 "template save"
sed 's/bye {{input.who}}/goodbye {{input.who}}/' "$T_DIR/flow.json" \
    >"$T_DIR/flow2.json"
run_sluice template save greet "$T_DIR/flow2.json"
like "$OUT" "version 2" "  a second version"
run_sluice template diff greet 1 2
like "$OUT" "+++ greet v2" "template diff"
like "$OUT" "goodbye" "  shows the change"
run_sluice audit --verify
expect_rc 0 "the chain still holds"
run_sluice status
unlike "$OUT$ERR" "audit" "status finds no audit problem (its head, its newest row)"
run_sluice status --json
is "$(json_query "$OUT" "SELECT count(*) FROM d, json_each(json_extract(j,
    '$.problems')) WHERE value LIKE '%audit%'")" 0 "  nor does status --json"

# --- the audit trail is append-only, by rights and by triggers -------------------

as_role engine1 "UPDATE audit SET who = 'mallory'"
ok $((RC == 0)) "the engine's role may not update the audit trail"
like "$OUT" "permission denied" "  by its rights"
as_role engine1 "DELETE FROM audit"
ok $((RC == 0)) "  nor delete from it"
as_role engine1 "INSERT INTO audit (id, at, who, uid, action)
    SELECT max(id) + 1, 1, 'x', 0, 'x' FROM audit RETURNING 0"
is "$RC $OUT" "0 0" "  though it may add to it"
as_role sluice_owner "UPDATE audit SET who = 'mallory'"
like "$OUT" "audit is append-only" "the owner's update is refused by a trigger"
as_role sluice_owner "TRUNCATE audit CASCADE"
like "$OUT" "audit is append-only" "  and so is a truncate"
run_sluice audit --verify
expect_rc 1 "the row added behind sluice's back breaks the chain"
run_sluice status
like "$OUT" "unhashed newest row" "  and status names the unhashed newest row"

# --- a reader reads and may not write --------------------------------------------

run_sluice --db "$PG_READER_DB" list
expect_rc 0 "a reader lists the runs"
like "$OUT" "flow" "  seeing them"
SLUICE_SOCKET="$T_DIR/none.sock"	# straight to the database, no engine
run_sluice --db "$PG_READER_DB" template save other "$T_DIR/flow.json"
SLUICE_SOCKET="$T_DIR/engine.sock"
ok $((RC == 0)) "a reader's write is refused"
like "$ERR" "read-only" "  as read-only"
is "$(pq "SELECT count(*) FROM workflow_templates WHERE name = 'other'")" 0 \
    "  and changes nothing"

# --- the synchronous standby has every commit ------------------------------------

n=$(pq "SELECT count(*) FROM audit")
is "$(pg_sql standby "SELECT count(*) FROM audit")" "$n" \
    "the standby has every audit row ($n)"
is "$(pg_sql standby "SELECT status FROM workflows WHERE id = $id")" \
    completed "  and the run's end"

# --- status and backup -----------------------------------------------------------

run_sluice status
like "$OUT" "PostgreSQL 15" "status names the server"
like "$OUT" "(primary)" "  a primary"
like "$OUT" "standby (streaming, sync)" "  with its synchronous standby"
like "$OUT" "(cluster mode)" "  and the engine"
run_sluice status --json
is "$(json_query "$OUT" "SELECT json_extract(j,
    '$.database.server.standbys[0].sync') FROM d")" sync \
    "status --json: the standby, sync"
run_sluice --db "$PG_READER_DB" status
like "$OUT" "(read-only)" "a reader's status says read-only"
run_sluice backup "$T_DIR/copy.db"
expect_rc 2 "backup refuses a PostgreSQL database"
like "$ERR" "back it up with pg_dump (pg_dump -Fc) or pgBackRest, not sluice backup" \
    "  naming pg_dump and pgBackRest"
ok $(test ! -e "$T_DIR/copy.db"; echo $?) "  writing nothing"
run_sluice backup --help
like "$OUT" "refused: back it up with
pg_dump (pg_dump -Fc) or pgBackRest" "backup --help says so too"

sed "s/^/# engine: /" "$T_DIR/engine.err"
kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "the engine stops cleanly"

done_testing
