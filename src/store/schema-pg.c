/*
 * Copyright (c) 2026 The sluice authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 */

/*
 * schema-pg.c: the tables on PostgreSQL (cluster mode, SPEC §14) and
 * their migrations, numbered as schema.c's: a PostgreSQL database starts
 * at version 15, SQLite's schema of that version in one text, and each
 * later version appends one entry to both lists (schema.c refuses a
 * driver whose list stops short of STORE_SCHEMA_VERSION).  The version
 * and application id live in sluice_meta, PostgreSQL having no
 * user_version.
 *
 * The columns are SQLite's: integers as bigint, JSON as text (the audit
 * chain hashes the text as stored), logs as bytea.  What the store's SQL
 * calls that PostgreSQL lacks is defined here under sluice_ names
 * (driver-pg-sql.c renames the calls), and sum() of a test (SQLite
 * counts the rows where it holds so): sluice_state as util/state.c's
 * state_of, the three json functions the store uses, lastval without
 * the error, and sluice_objects, the schema's tables, indexes and
 * triggers as SQLite's sqlite_master lists them.
 *
 * Roles (sluice(1) CLUSTER): the role that runs these migrations owns
 * everything; members of sluice_engine may read and write every table
 * but only INSERT and SELECT on audit; members of sluice_reader may
 * read.  sluice_grant() gives those rights to the roles that exist; each
 * migration ends by calling it.  No text here is SQLite's, and none
 * reaches SQLite: it is SQL for the PostgreSQL driver alone.
 */

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-pg.h"

_Static_assert(STORE_APPLICATION_ID == 1936484707,
    "schema_pg_v15 writes the application id as a literal");

/* The functions and views the store's SQL needs (see above). */
#define SCHEMA_PG_FUNCTIONS \
	"CREATE FUNCTION sluice_sum_step(bigint, boolean) RETURNS bigint" \
	" LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN $2 IS NULL THEN $1" \
	" ELSE coalesce($1, 0) + $2::int END $$;" \
	"CREATE AGGREGATE sum(boolean) (SFUNC = sluice_sum_step," \
	" STYPE = bigint);" \
	"CREATE FUNCTION sluice_state(id bigint, status text, paused bigint," \
	" waiting bigint, late_at bigint) RETURNS text" \
	" LANGUAGE sql IMMUTABLE AS $$" \
	" SELECT CASE WHEN status <> 'running' THEN status" \
	" WHEN coalesce(late_at, 0) <> 0 THEN 'late'" \
	" WHEN coalesce(paused, 0) <> 0 THEN 'paused'" \
	" WHEN coalesce(waiting, 0) <> 0 THEN 'waiting'" \
	" ELSE 'running' END $$;" \
	"CREATE FUNCTION sluice_json_valid(t text) RETURNS boolean" \
	" LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM t::json;" \
	" RETURN t IS NOT NULL; EXCEPTION WHEN others THEN RETURN false;" \
	" END $$;" \
	"CREATE FUNCTION sluice_json_extract(t text, path text) RETURNS text" \
	" LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN path = '$' THEN t" \
	" ELSE t::json #>> string_to_array(substr(path, 3), '.') END $$;" \
	"CREATE FUNCTION sluice_json_each(t text)" \
	" RETURNS TABLE (value bigint) LANGUAGE sql IMMUTABLE AS $$" \
	" SELECT e::bigint FROM json_array_elements_text(t::json) e $$;" \
	"CREATE FUNCTION sluice_lastval() RETURNS bigint LANGUAGE plpgsql" \
	" AS $$ BEGIN RETURN lastval(); EXCEPTION" \
	" WHEN object_not_in_prerequisite_state THEN RETURN 0; END $$;" \
	"CREATE VIEW sluice_objects (type, name) AS" \
	" SELECT 'trigger'::text, t.tgname::text FROM pg_trigger t" \
	" JOIN pg_class c ON c.oid = t.tgrelid" \
	" JOIN pg_namespace n ON n.oid = c.relnamespace" \
	" WHERE NOT t.tgisinternal AND n.nspname = current_schema()" \
	" UNION ALL SELECT CASE c.relkind WHEN 'i' THEN 'index'" \
	" WHEN 'v' THEN 'view' ELSE 'table' END, c.relname::text" \
	" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace" \
	" WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'v');"

/*
 * The rights of the engine's and the readers' roles, given to those that
 * exist: the audit trail is append-only to the engine by its rights as
 * well as by its triggers.
 */
#define SCHEMA_PG_GRANT \
	"CREATE FUNCTION sluice_grant() RETURNS void LANGUAGE plpgsql AS $$" \
	" BEGIN" \
	" IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sluice_engine')" \
	" THEN" \
	" EXECUTE format('GRANT USAGE ON SCHEMA %I TO sluice_engine'," \
	"  current_schema());" \
	" EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES" \
	"  IN SCHEMA %I TO sluice_engine', current_schema());" \
	" EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I" \
	"  TO sluice_engine', current_schema());" \
	" REVOKE UPDATE, DELETE, TRUNCATE ON audit FROM sluice_engine;" \
	" REVOKE UPDATE, DELETE, TRUNCATE ON sluice_meta FROM sluice_engine;" \
	" END IF;" \
	" IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sluice_reader')" \
	" THEN" \
	" EXECUTE format('GRANT USAGE ON SCHEMA %I TO sluice_reader'," \
	"  current_schema());" \
	" EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I" \
	"  TO sluice_reader', current_schema());" \
	" END IF;" \
	" END $$;"

/* Version 15: every table of SQLite's version 15, in one go. */
static const char schema_pg_v15[] =
	"CREATE TABLE sluice_meta ("
	" id bigint PRIMARY KEY CHECK (id = 1),"
	" application_id bigint NOT NULL,"
	" user_version bigint NOT NULL);"
	"INSERT INTO sluice_meta VALUES (1, 1936484707, 0);"

	"CREATE TABLE schedules ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" name text NOT NULL,"
	" cron text NOT NULL,"
	" template_name text NOT NULL,"
	" input_json text NOT NULL,"
	" overlap text NOT NULL DEFAULT 'skip' CHECK (overlap IN"
	"  ('skip', 'allow', 'cancel-previous')),"
	" paused bigint NOT NULL DEFAULT 0,"
	" created_by text NOT NULL,"
	" created_at bigint NOT NULL,"
	" updated_at bigint NOT NULL,"
	" last_fire_at bigint,"
	" last_run_id bigint,"
	" next_fire_at bigint,"
	" deleted_at bigint,"
	" tz text);"

	"CREATE TABLE workflows ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" updated_at bigint NOT NULL,"
	" name text NOT NULL,"
	" flow_json text NOT NULL,"
	" input_json text,"
	" status text NOT NULL DEFAULT 'running' CHECK (status IN ('queued',"
	"  'scheduled', 'running', 'completed', 'failed', 'cancelled')),"
	" created_by text NOT NULL,"
	" completed_at bigint,"
	" cancelled_at bigint,"
	" created_at bigint NOT NULL,"
	" started_at bigint,"
	" start_at bigint,"
	" template_name text,"
	" template_version bigint,"
	" error text,"
	" paused bigint NOT NULL DEFAULT 0,"
	" sla_ms bigint,"
	" late_at bigint,"
	" schedule_id bigint REFERENCES schedules (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" fire_at bigint,"
	" output_json text,"
	" parent_id bigint REFERENCES workflows (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" parent_step_id bigint,"
	" depth bigint NOT NULL DEFAULT 0,"
	" created_via text,"
	" ending text CHECK (ending IN ('completed', 'failed', 'cancelled')),"
	" conc_key text,"
	" conc_limit bigint);"
	"ALTER TABLE schedules ADD FOREIGN KEY (last_run_id)"
	" REFERENCES workflows (id) DEFERRABLE INITIALLY IMMEDIATE;"
	"CREATE INDEX workflows_status ON workflows (status, id);"
	"CREATE INDEX workflows_scheduled ON workflows (start_at)"
	" WHERE status = 'scheduled';"
	"CREATE INDEX workflows_schedule ON workflows (schedule_id, id)"
	" WHERE schedule_id IS NOT NULL;"
	"CREATE INDEX workflows_parent ON workflows (parent_id, id)"
	" WHERE parent_id IS NOT NULL;"
	"CREATE INDEX workflows_parent_step ON workflows (parent_step_id)"
	" WHERE parent_step_id IS NOT NULL;"
	"CREATE INDEX workflows_conc ON workflows (conc_key, status, id)"
	" WHERE conc_key IS NOT NULL;"
	"CREATE UNIQUE INDEX schedules_name ON schedules (name)"
	" WHERE deleted_at IS NULL;"
	"CREATE INDEX schedules_next ON schedules (next_fire_at)"
	" WHERE deleted_at IS NULL AND paused = 0;"
	"CREATE INDEX schedules_last_run ON schedules (last_run_id)"
	" WHERE last_run_id IS NOT NULL;"

	"CREATE TABLE workflow_steps ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" updated_at bigint NOT NULL,"
	" workflow_id bigint NOT NULL REFERENCES workflows (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" name text NOT NULL,"
	" tool text,"
	" args_json text,"
	" result_json text,"
	" status text NOT NULL CHECK (status IN ('pending', 'ready',"
	"  'running', 'waiting', 'done', 'failed', 'cancelled', 'skipped',"
	"  'queued')),"
	" attempt bigint NOT NULL DEFAULT 1,"
	" ready_at bigint,"
	" started_at bigint,"
	" completed_at bigint,"
	" step_key text NOT NULL,"
	" kind text NOT NULL CHECK (kind ~ '^[a-z]' AND length(kind) < 10),"
	" gate_json text,"
	" error text,"
	" exit_code bigint,"
	" visit bigint NOT NULL DEFAULT 1,"
	" parent_id bigint REFERENCES workflow_steps (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" created_at bigint NOT NULL,"
	" pid bigint,"
	" pgid bigint,"
	" proc_start bigint,"
	" host text,"
	" timeout_at bigint,"
	" log_bytes bigint NOT NULL DEFAULT 0,"
	" fanout_id bigint REFERENCES workflow_steps (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" branch_no bigint,"
	" branch_end text CHECK (branch_end IN ('join', 'failed', 'end')),"
	" item_of bigint REFERENCES workflow_steps (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" item_index bigint,"
	" label text,"
	" items bigint,"
	" item_json text,"
	" child_id bigint REFERENCES workflows (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" progress_pct bigint,"
	" progress_text text,"
	" conc_key text,"
	" conc_limit bigint);"
	"ALTER TABLE workflows ADD FOREIGN KEY (parent_step_id)"
	" REFERENCES workflow_steps (id) DEFERRABLE INITIALLY IMMEDIATE;"
	"CREATE INDEX workflow_steps_workflow ON workflow_steps"
	" (workflow_id, id);"
	"CREATE INDEX workflow_steps_fanout ON workflow_steps (fanout_id)"
	" WHERE fanout_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_parent ON workflow_steps (parent_id)"
	" WHERE parent_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_items ON workflow_steps"
	" (item_of, status, item_index) WHERE item_of IS NOT NULL;"
	"CREATE INDEX workflow_steps_shown ON workflow_steps"
	" (workflow_id, id) WHERE item_index IS NULL;"
	"CREATE INDEX workflow_steps_tally ON workflow_steps"
	" (item_of, status, attempt) WHERE item_index IS NOT NULL;"
	"CREATE INDEX workflow_steps_retries ON workflow_steps"
	" (item_of, parent_id)"
	" WHERE item_index IS NOT NULL AND parent_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_item_rows ON workflow_steps"
	" (item_of, item_index, id) WHERE item_index IS NOT NULL;"
	"CREATE INDEX workflow_steps_child ON workflow_steps (child_id)"
	" WHERE child_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_conc ON workflow_steps"
	" (conc_key, status, id) WHERE conc_key IS NOT NULL;"
	"CREATE INDEX workflow_steps_active ON workflow_steps (status, id)"
	" WHERE " STORE_STEP_ACTIVE ";"

	"CREATE TABLE workflow_templates ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" updated_at bigint NOT NULL,"
	" name text NOT NULL UNIQUE,"
	" flow_json text NOT NULL,"
	" input_json text,"
	" description text,"
	" created_by text NOT NULL,"
	" cancelled_at bigint,"
	" version bigint NOT NULL,"
	" document text NOT NULL,"
	" updated_by text NOT NULL,"
	" created_at bigint NOT NULL);"

	"CREATE TABLE template_versions ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" template_id bigint NOT NULL REFERENCES workflow_templates (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" version bigint NOT NULL,"
	" document text NOT NULL,"
	" flow_json text NOT NULL,"
	" input_json text,"
	" description text,"
	" saved_by text NOT NULL,"
	" saved_at bigint NOT NULL,"
	" UNIQUE (template_id, version));"

	/* Ids given by audit.c, the chain hashing each: no sequence. */
	"CREATE TABLE audit ("
	" id bigint PRIMARY KEY,"
	" at bigint NOT NULL,"
	" who text NOT NULL,"
	" uid bigint NOT NULL,"
	" tty text,"
	" host text,"
	" action text NOT NULL,"
	" target text,"
	" workflow_id bigint,"
	" step_id bigint,"
	" comment text,"
	" detail_json text,"
	" prev_hash text,"
	" hash text,"
	" via text);"
	"CREATE INDEX audit_workflow ON audit (workflow_id, id)"
	" WHERE workflow_id IS NOT NULL;"
	"CREATE FUNCTION sluice_audit_append_only() RETURNS trigger"
	" LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION"
	" 'audit is append-only' USING ERRCODE ="
	" 'integrity_constraint_violation'; END $$;"
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	" FOR EACH ROW EXECUTE FUNCTION sluice_audit_append_only();"
	"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit"
	" FOR EACH ROW EXECUTE FUNCTION sluice_audit_append_only();"
	"CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit"
	" FOR EACH STATEMENT EXECUTE FUNCTION sluice_audit_append_only();"

	"CREATE TABLE audit_head ("
	" id bigint PRIMARY KEY CHECK (id = 1),"
	" last_id bigint NOT NULL,"
	" hash text NOT NULL);"

	"CREATE TABLE approvals ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" step_id bigint NOT NULL REFERENCES workflow_steps (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" workflow_id bigint NOT NULL REFERENCES workflows (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" who text NOT NULL,"
	" decision text NOT NULL CHECK (decision IN ('approve', 'reject')),"
	" comment text,"
	" at bigint NOT NULL,"
	" audit_id bigint REFERENCES audit (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE);"
	"CREATE INDEX approvals_step ON approvals (step_id, id);"
	"CREATE INDEX approvals_workflow ON approvals (workflow_id);"
	"CREATE INDEX approvals_audit ON approvals (audit_id)"
	" WHERE audit_id IS NOT NULL;"

	"CREATE TABLE inbox ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" posted_at bigint NOT NULL,"
	" uid bigint NOT NULL,"
	" who text NOT NULL,"
	" tty text,"
	" host text,"
	" command text NOT NULL,"
	" workflow_id bigint,"
	" step_id bigint,"
	" args_json text,"
	" state text NOT NULL DEFAULT 'new' CHECK (state IN"
	"  ('new', 'done', 'refused')),"
	" reply text,"
	" handled_at bigint,"
	" seal text,"
	" via text,"
	" request text);"
	"CREATE INDEX inbox_new ON inbox (id) WHERE state = 'new';"
	"CREATE INDEX inbox_request ON inbox (request)"
	" WHERE request IS NOT NULL;"

	"CREATE TABLE timers ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" due_at bigint NOT NULL,"
	" kind text NOT NULL,"
	" workflow_id bigint,"
	" step_id bigint,"
	" payload_json text);"
	"CREATE INDEX timers_due ON timers (due_at, id);"
	"CREATE INDEX timers_step ON timers (step_id) WHERE step_id IS NOT NULL;"

	"CREATE TABLE step_logs ("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" step_id bigint NOT NULL REFERENCES workflow_steps (id)"
	"  DEFERRABLE INITIALLY IMMEDIATE,"
	" at bigint NOT NULL,"
	" stream text NOT NULL CHECK (stream IN ('out', 'err', 'sluice')),"
	" data bytea NOT NULL);"
	"CREATE INDEX step_logs_step ON step_logs (step_id, id);"

	"CREATE TABLE engine ("
	" id bigint PRIMARY KEY CHECK (id = 1),"
	" epoch bigint NOT NULL DEFAULT 0,"
	" pid bigint,"
	" host text,"
	" since bigint,"
	" heartbeat_at bigint);"
	"INSERT INTO engine (id, epoch) VALUES (1, 0);"

	"CREATE TABLE requests ("
	" uid bigint NOT NULL,"
	" id text NOT NULL,"
	" at bigint NOT NULL,"
	" command text NOT NULL,"
	" reply text NOT NULL,"
	" UNIQUE (uid, id));"
	"CREATE INDEX requests_at ON requests (at);"

	SCHEMA_PG_FUNCTIONS
	SCHEMA_PG_GRANT
	"SELECT sluice_grant();"
	"UPDATE sluice_meta SET user_version = 15;";

/*
 * Version 16: the runs per status, kept by triggers as schema.c's
 * version 16 keeps them (status and the console's header read them).
 */
static const char schema_pg_v16[] =
	"CREATE TABLE run_counts ("
	" status text PRIMARY KEY,"
	" n bigint NOT NULL);"
	"INSERT INTO run_counts (status, n)"
	" SELECT status, count(*) FROM workflows GROUP BY status;"
	"CREATE FUNCTION sluice_run_counts() RETURNS trigger"
	" LANGUAGE plpgsql AS $$ BEGIN"
	" IF TG_OP IN ('UPDATE', 'DELETE') THEN"
	" UPDATE run_counts SET n = n - 1 WHERE status = OLD.status;"
	" END IF;"
	" IF TG_OP IN ('INSERT', 'UPDATE') THEN"
	" INSERT INTO run_counts (status, n) VALUES (NEW.status, 1)"
	" ON CONFLICT (status) DO UPDATE SET n = run_counts.n + 1;"
	" END IF;"
	" RETURN NULL; END $$;"
	"CREATE TRIGGER run_counts_insert AFTER INSERT ON workflows"
	" FOR EACH ROW EXECUTE FUNCTION sluice_run_counts();"
	"CREATE TRIGGER run_counts_update AFTER UPDATE OF status ON workflows"
	" FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)"
	" EXECUTE FUNCTION sluice_run_counts();"
	"CREATE TRIGGER run_counts_delete AFTER DELETE ON workflows"
	" FOR EACH ROW EXECUTE FUNCTION sluice_run_counts();"
	"SELECT sluice_grant();"
	"UPDATE sluice_meta SET user_version = 16;";

/* Version 17: the node on relayed commands and audit rows, as schema.c's. */
static const char schema_pg_v17[] =
	"ALTER TABLE audit ADD COLUMN node text;"
	"ALTER TABLE inbox ADD COLUMN node text;"
	"SELECT sluice_grant();"
	"UPDATE sluice_meta SET user_version = 17;";

/*
 * Version 18: the nodes of the cluster, as schema.c's version 18.  Times
 * are the server's clock (ms), so that nodes whose clocks differ still
 * agree on how long ago each was seen.
 */
static const char schema_pg_v18[] =
	"CREATE TABLE nodes ("
	" name text PRIMARY KEY,"
	" role text NOT NULL CHECK (role IN ('leader', 'standby')),"
	" pid bigint NOT NULL,"
	" epoch bigint,"
	" lease_ms bigint NOT NULL,"
	" started_at bigint NOT NULL,"
	" seen_at bigint NOT NULL,"
	" version text NOT NULL);"
	"SELECT sluice_grant();"
	"UPDATE sluice_meta SET user_version = 18;";

/*
 * Version 19: the active index's condition as schema.c's version 19 words
 * it (the queries repeat it).  PostgreSQL's IN lists cost nothing to
 * evaluate: the checks stay as they are.
 */
static const char schema_pg_v19[] =
	"DROP INDEX workflow_steps_active;"
	"CREATE INDEX workflow_steps_active ON workflow_steps (status, id)"
	" WHERE " STORE_STEP_ACTIVE ";"
	"UPDATE sluice_meta SET user_version = 19;";

/*
 * Version 20: a node that stops cleanly keeps its row as "stopped", as
 * schema.c's version 20.
 */
static const char schema_pg_v20[] =
	"ALTER TABLE nodes DROP CONSTRAINT nodes_role_check;"
	"ALTER TABLE nodes ADD CONSTRAINT nodes_role_check"
	" CHECK (role IN ('leader', 'standby', 'stopped'));"
	"UPDATE sluice_meta SET user_version = 20;";

/* Every PostgreSQL schema version in order, as schema.c's. */
const struct store_migration store_pg_migrations[] = {
	{ 15, schema_pg_v15, NULL, NULL },
	{ 16, schema_pg_v16, NULL, NULL },
	{ 17, schema_pg_v17, NULL, NULL },
	{ 18, schema_pg_v18, NULL, NULL },
	{ 19, schema_pg_v19, NULL, NULL },
	{ 20, schema_pg_v20, NULL, NULL },
};
const size_t store_pg_nmigrations = nitems(store_pg_migrations);
