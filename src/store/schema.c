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
 * schema.c: the tables and their migrations.  The schema version is PRAGMA
 * user_version; each migration runs in one transaction and sets it, so a
 * later version appends one entry to store_migrations[] and nothing else.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The migration text names the application id as a literal. */
_Static_assert(STORE_APPLICATION_ID == 1936484707,
    "schema_v1 sets PRAGMA application_id as a literal");

/*
 * Version 1.  The first three tables keep the reference engine's column
 * names (seeds/002) and add what sluice needs; ids are row ids.
 */
static const char schema_v1[] =
	"PRAGMA application_id = 1936484707;"

	"CREATE TABLE workflows ("
	" id INTEGER PRIMARY KEY,"
	" updated_at INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" flow_json TEXT NOT NULL,"
	" input_json TEXT,"
	" status TEXT NOT NULL DEFAULT 'running' CHECK (status IN"
	"  ('scheduled', 'running', 'completed', 'failed', 'cancelled')),"
	" created_by TEXT NOT NULL,"
	" completed_at INTEGER,"
	" cancelled_at INTEGER,"
	" created_at INTEGER NOT NULL,"
	" started_at INTEGER,"
	" start_at INTEGER,"
	" template_name TEXT,"
	" template_version INTEGER,"
	" error TEXT,"
	" paused INTEGER NOT NULL DEFAULT 0,"
	" sla_ms INTEGER,"
	" late_at INTEGER);"
	"CREATE INDEX workflows_status ON workflows (status, id);"
	"CREATE INDEX workflows_scheduled ON workflows (start_at)"
	" WHERE status = 'scheduled';"

	"CREATE TABLE workflow_steps ("
	" id INTEGER PRIMARY KEY,"
	" updated_at INTEGER NOT NULL,"
	" workflow_id INTEGER NOT NULL REFERENCES workflows (id),"
	" name TEXT NOT NULL,"
	" tool TEXT,"
	" args_json TEXT,"
	" result_json TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('pending', 'ready',"
	"  'running', 'waiting', 'done', 'failed', 'cancelled', 'skipped')),"
	" attempt INTEGER NOT NULL DEFAULT 1,"
	" ready_at INTEGER,"
	" started_at INTEGER,"
	" completed_at INTEGER,"
	" step_key TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('gate', 'tool', 'run', 'shell')),"
	" gate_json TEXT,"
	" error TEXT,"
	" exit_code INTEGER,"
	" visit INTEGER NOT NULL DEFAULT 1,"
	" parent_id INTEGER REFERENCES workflow_steps (id),"
	" created_at INTEGER NOT NULL,"
	" pid INTEGER,"
	" pgid INTEGER,"
	" proc_start INTEGER,"
	" host TEXT,"
	" timeout_at INTEGER,"
	" log_bytes INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX workflow_steps_ready ON workflow_steps (ready_at, id)"
	" WHERE status = 'ready';"
	"CREATE INDEX workflow_steps_waiting ON workflow_steps (id)"
	" WHERE status = 'waiting';"
	"CREATE INDEX workflow_steps_running ON workflow_steps (id)"
	" WHERE status = 'running';"
	"CREATE INDEX workflow_steps_workflow ON workflow_steps"
	" (workflow_id, id);"

	"CREATE TABLE workflow_templates ("
	" id INTEGER PRIMARY KEY,"
	" updated_at INTEGER NOT NULL,"
	" name TEXT NOT NULL UNIQUE,"
	" flow_json TEXT NOT NULL,"
	" input_json TEXT,"
	" description TEXT,"
	" created_by TEXT NOT NULL,"
	" cancelled_at INTEGER,"
	" version INTEGER NOT NULL,"
	" document TEXT NOT NULL,"
	" updated_by TEXT NOT NULL,"
	" created_at INTEGER NOT NULL);"

	"CREATE TABLE template_versions ("
	" id INTEGER PRIMARY KEY,"
	" template_id INTEGER NOT NULL REFERENCES workflow_templates (id),"
	" version INTEGER NOT NULL,"
	" document TEXT NOT NULL,"
	" flow_json TEXT NOT NULL,"
	" input_json TEXT,"
	" description TEXT,"
	" saved_by TEXT NOT NULL,"
	" saved_at INTEGER NOT NULL,"
	" UNIQUE (template_id, version));"

	"CREATE TABLE audit ("
	" id INTEGER PRIMARY KEY,"
	" at INTEGER NOT NULL,"
	" who TEXT NOT NULL,"
	" uid INTEGER NOT NULL,"
	" tty TEXT,"
	" host TEXT,"
	" action TEXT NOT NULL,"
	" target TEXT,"
	" workflow_id INTEGER,"
	" step_id INTEGER,"
	" comment TEXT,"
	" detail_json TEXT);"
	"CREATE INDEX audit_workflow ON audit (workflow_id, id)"
	" WHERE workflow_id IS NOT NULL;"
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;"
	"CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;"

	"CREATE TABLE approvals ("
	" id INTEGER PRIMARY KEY,"
	" step_id INTEGER NOT NULL REFERENCES workflow_steps (id),"
	" workflow_id INTEGER NOT NULL REFERENCES workflows (id),"
	" who TEXT NOT NULL,"
	" decision TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),"
	" comment TEXT,"
	" at INTEGER NOT NULL);"
	"CREATE INDEX approvals_step ON approvals (step_id, id);"

	"CREATE TABLE inbox ("
	" id INTEGER PRIMARY KEY,"
	" posted_at INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" who TEXT NOT NULL,"
	" tty TEXT,"
	" host TEXT,"
	" command TEXT NOT NULL,"
	" workflow_id INTEGER,"
	" step_id INTEGER,"
	" args_json TEXT,"
	" state TEXT NOT NULL DEFAULT 'new' CHECK (state IN"
	"  ('new', 'done', 'refused')),"
	" reply TEXT,"
	" handled_at INTEGER);"
	"CREATE INDEX inbox_new ON inbox (id) WHERE state = 'new';"

	"CREATE TABLE timers ("
	" id INTEGER PRIMARY KEY,"
	" due_at INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"
	" workflow_id INTEGER,"
	" step_id INTEGER,"
	" payload_json TEXT);"
	"CREATE INDEX timers_due ON timers (due_at, id);"

	"CREATE TABLE step_logs ("
	" id INTEGER PRIMARY KEY,"
	" step_id INTEGER NOT NULL REFERENCES workflow_steps (id),"
	" at INTEGER NOT NULL,"
	" stream TEXT NOT NULL CHECK (stream IN ('out', 'err', 'sluice')),"
	" data BLOB NOT NULL);"
	"CREATE INDEX step_logs_step ON step_logs (step_id, id);"

	"CREATE TABLE engine ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" epoch INTEGER NOT NULL DEFAULT 0,"
	" pid INTEGER,"
	" host TEXT,"
	" since INTEGER,"
	" heartbeat_at INTEGER);"
	"INSERT INTO engine (id, epoch) VALUES (1, 0);"

	"PRAGMA user_version = 1;";

/*
 * Version 2: what the engine needs.  Fan-out bookkeeping on step rows
 * (which fan-out row and branch a row belongs to, and how a branch ended
 * when this row ended it), so joins are decided from the table alone.
 * One index over the unfinished rows replaces three: every index a step's
 * row changes is a page written and synced on each transition.
 */
static const char schema_v2[] =
	"ALTER TABLE workflow_steps ADD COLUMN fanout_id INTEGER"
	" REFERENCES workflow_steps (id);"
	"ALTER TABLE workflow_steps ADD COLUMN branch_no INTEGER;"
	"ALTER TABLE workflow_steps ADD COLUMN branch_end TEXT CHECK"
	" (branch_end IN ('join', 'failed', 'end'));"
	"CREATE INDEX workflow_steps_fanout ON workflow_steps (fanout_id)"
	" WHERE fanout_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_parent ON workflow_steps (parent_id)"
	" WHERE parent_id IS NOT NULL;"
	"DROP INDEX workflow_steps_ready;"
	"DROP INDEX workflow_steps_waiting;"
	"DROP INDEX workflow_steps_running;"
	"CREATE INDEX workflow_steps_active ON workflow_steps (status, id)"
	" WHERE status IN ('pending', 'ready', 'running', 'waiting');"
	"CREATE INDEX timers_step ON timers (step_id) WHERE step_id IS NOT NULL;"
	"PRAGMA user_version = 2;";

/*
 * Version 3: time.  Recurring schedules (soft delete: a name is unique
 * among live ones, and runs and the audit trail keep pointing at the row
 * of a removed one), and which schedule and cron instant made a workflow,
 * so overlap is decided from the table.  next_fire_at is the first cron
 * instant not yet consumed; it is written in the transaction that fires
 * (or skips) the one before, so no instant fires twice.
 */
static const char schema_v3[] =
	"CREATE TABLE schedules ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" cron TEXT NOT NULL,"
	" template_name TEXT NOT NULL,"
	" input_json TEXT NOT NULL,"
	" overlap TEXT NOT NULL DEFAULT 'skip' CHECK (overlap IN"
	"  ('skip', 'allow', 'cancel-previous')),"
	" paused INTEGER NOT NULL DEFAULT 0,"
	" created_by TEXT NOT NULL,"
	" created_at INTEGER NOT NULL,"
	" updated_at INTEGER NOT NULL,"
	" last_fire_at INTEGER,"
	" last_run_id INTEGER REFERENCES workflows (id),"
	" next_fire_at INTEGER,"
	" deleted_at INTEGER);"
	"CREATE UNIQUE INDEX schedules_name ON schedules (name)"
	" WHERE deleted_at IS NULL;"
	"CREATE INDEX schedules_next ON schedules (next_fire_at)"
	" WHERE deleted_at IS NULL AND paused = 0;"
	"ALTER TABLE workflows ADD COLUMN schedule_id INTEGER"
	" REFERENCES schedules (id);"
	"ALTER TABLE workflows ADD COLUMN fire_at INTEGER;"
	"CREATE INDEX workflows_schedule ON workflows (schedule_id, id)"
	" WHERE schedule_id IS NOT NULL;"
	"PRAGMA user_version = 3;";

/*
 * Version 4: a tamper-evident audit trail (chain.c).  Each row carries
 * the hash of the row before it and its own; audit_head keeps the newest
 * row's id and hash; approvals name the audit row that recorded them;
 * inbox rows carry a seal.  The rows already there are chained, linked
 * and sealed by store_chain_migrate between the two texts, with the
 * no-update trigger dropped for the while.
 */
static const char schema_v4[] =
	"DROP TRIGGER audit_no_update;"
	"ALTER TABLE audit ADD COLUMN prev_hash TEXT;"
	"ALTER TABLE audit ADD COLUMN hash TEXT;"
	"CREATE TABLE audit_head ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" last_id INTEGER NOT NULL,"
	" hash TEXT NOT NULL);"
	"ALTER TABLE approvals ADD COLUMN audit_id INTEGER"
	" REFERENCES audit (id);"
	"ALTER TABLE inbox ADD COLUMN seal TEXT;";
static const char schema_v4_after[] =
	"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
	" BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;"
	"PRAGMA user_version = 4;";

/*
 * Version 5: for-each.  A for-each row says how many items it has; each
 * item is a row of its own (item_of: the first for-each row of the step's
 * pass; item_index, label and the item's JSON), and the gates a for-each
 * asks between batches or when its failure budget is spent are rows with
 * item_of set to that for-each row and no index.  The index serves the
 * engine's reads of a for-each's items by status in item order.
 */
static const char schema_v5[] =
	"ALTER TABLE workflow_steps ADD COLUMN item_of INTEGER"
	" REFERENCES workflow_steps (id);"
	"ALTER TABLE workflow_steps ADD COLUMN item_index INTEGER;"
	"ALTER TABLE workflow_steps ADD COLUMN label TEXT;"
	"ALTER TABLE workflow_steps ADD COLUMN items INTEGER;"
	"ALTER TABLE workflow_steps ADD COLUMN item_json TEXT;"
	"CREATE INDEX workflow_steps_items ON workflow_steps"
	" (item_of, status, item_index) WHERE item_of IS NOT NULL;"
	"PRAGMA user_version = 5;";

/*
 * Version 6: workflows made of workflows, and their outputs.  A run keeps
 * its output (SPEC §3 "output"), its parent run and the parent's step
 * that waits for it, and how deep it is in such a chain; a sub-workflow
 * step's row names its child run, so a restarted engine re-attaches the
 * step instead of starting a second child.
 *
 * The step kinds grow by "workflow".  SQLite cannot alter a CHECK, so
 * the constraint's text is swapped in sqlite_schema for one of exactly
 * the same length (lowercase words of under ten letters): loosening a
 * CHECK this way is one of the edits SQLite documents as safe, and with
 * the length kept, the column offsets SQLite holds for the table stay
 * right.  The ALTER TABLE after it changes the schema cookie, so every
 * connection reads the new text.
 */
static const char schema_v6[] =
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'CHECK (kind IN (''gate'', ''tool'', ''run'', ''shell''))',"
	" 'CHECK (kind GLOB ''[a-z]*'' AND length(kind) < 10)')"
	" WHERE type = 'table' AND name = 'workflow_steps';"
	"PRAGMA writable_schema = OFF;"
	"ALTER TABLE workflow_steps ADD COLUMN child_id INTEGER"
	" REFERENCES workflows (id);"
	"ALTER TABLE workflows ADD COLUMN output_json TEXT;"
	"ALTER TABLE workflows ADD COLUMN parent_id INTEGER"
	" REFERENCES workflows (id);"
	"ALTER TABLE workflows ADD COLUMN parent_step_id INTEGER"
	" REFERENCES workflow_steps (id);"
	"ALTER TABLE workflows ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX workflows_parent ON workflows (parent_id, id)"
	" WHERE parent_id IS NOT NULL;"
	"PRAGMA user_version = 6;";

/*
 * Version 7: the run view's reads stay small beside a for-each of many
 * items.  Its rows but the items come through workflow_steps_shown; a
 * closed for-each's counts per status and attempt are read from
 * workflow_steps_tally alone, and the rows a retry made old from
 * workflow_steps_retries, which holds only retry rows.
 */
static const char schema_v7[] =
	"CREATE INDEX workflow_steps_shown ON workflow_steps"
	" (workflow_id, id) WHERE item_index IS NULL;"
	"CREATE INDEX workflow_steps_tally ON workflow_steps"
	" (item_of, status, attempt) WHERE item_index IS NOT NULL;"
	"CREATE INDEX workflow_steps_retries ON workflow_steps"
	" (item_of, parent_id)"
	" WHERE item_index IS NOT NULL AND parent_id IS NOT NULL;"
	"PRAGMA user_version = 7;";

/*
 * Version 8: a for-each's items in item order, each with its rows newest
 * last, so the latest row of every item (its results, at the for-each's
 * end) is read without sorting 10,000 rows in memory.
 */
static const char schema_v8[] =
	"CREATE INDEX workflow_steps_item_rows ON workflow_steps"
	" (item_of, item_index, id) WHERE item_index IS NOT NULL;"
	"PRAGMA user_version = 8;";

/*
 * Version 9: how a command came, beside who gave it.  "mcp" marks the
 * audit rows and inbox commands of an agent's MCP client (sluice mcp) and
 * the runs it started; NULL is a person at the CLI or console.  Old rows
 * stay NULL, and the hash chain covers via only where it is set, so their
 * hashes do not change.
 */
static const char schema_v9[] =
	"ALTER TABLE audit ADD COLUMN via TEXT;"
	"ALTER TABLE inbox ADD COLUMN via TEXT;"
	"ALTER TABLE workflows ADD COLUMN created_via TEXT;"
	"PRAGMA user_version = 9;";

/*
 * Version 10: a running step's latest progress, as it reported it
 * ("::progress 40 copying"): a percentage (NULL: none given) and a line.
 */
static const char schema_v10[] =
	"ALTER TABLE workflow_steps ADD COLUMN progress_pct INTEGER;"
	"ALTER TABLE workflow_steps ADD COLUMN progress_text TEXT;"
	"PRAGMA user_version = 10;";

/*
 * Version 11: a schedule may fire in a time zone of its own (an IANA
 * name, "schedule add --tz"); NULL is the engine's local zone.
 */
static const char schema_v11[] =
	"ALTER TABLE schedules ADD COLUMN tz TEXT;"
	"PRAGMA user_version = 11;";

/*
 * Version 12: an index under every column that references a row, so
 * removing a row (prune) finds what points at it through an index, not
 * by reading a whole table per deleted row: with foreign keys on, the
 * four without one made a batch of 100 runs take seconds on a year of
 * history, the engine held all the while.
 */
static const char schema_v12[] =
	"CREATE INDEX workflows_parent_step ON workflows (parent_step_id)"
	" WHERE parent_step_id IS NOT NULL;"
	"CREATE INDEX workflow_steps_child ON workflow_steps (child_id)"
	" WHERE child_id IS NOT NULL;"
	"CREATE INDEX approvals_workflow ON approvals (workflow_id);"
	"CREATE INDEX approvals_audit ON approvals (audit_id)"
	" WHERE audit_id IS NOT NULL;"
	"CREATE INDEX schedules_last_run ON schedules (last_run_id)"
	" WHERE last_run_id IS NOT NULL;"
	"PRAGMA user_version = 12;";

/*
 * Version 13: a run whose on_failure or finally handler runs is still
 * running; "ending" keeps the status it ends with once its handlers
 * have run (NULL otherwise), so a crash in between loses nothing.
 */
static const char schema_v13[] =
	"ALTER TABLE workflows ADD COLUMN ending TEXT CHECK (ending IN"
	" ('completed', 'failed', 'cancelled'));"
	"PRAGMA user_version = 13;";

/*
 * Version 14: request ids.  Each command a client sends carries an id of
 * its choosing; the engine records it with its answer in the transaction
 * that applies the command, so a client whose answer was lost (the
 * engine died between its commit and its answer) asks and learns whether
 * it was applied (engine/request.c).  Kept per uid, pruned after a week.
 * An inbox row carries its id too, sealed where set, as via is.  A rowid
 * table like every other (not WITHOUT ROWID): the power-loss test and
 * SQLite's update hook name changed rows by rowid.
 */
static const char schema_v14[] =
	"CREATE TABLE requests ("
	" uid INTEGER NOT NULL,"
	" id TEXT NOT NULL,"
	" at INTEGER NOT NULL,"
	" command TEXT NOT NULL,"
	" reply TEXT NOT NULL,"
	" UNIQUE (uid, id));"
	"CREATE INDEX requests_at ON requests (at);"
	"ALTER TABLE inbox ADD COLUMN request TEXT;"
	"CREATE INDEX inbox_request ON inbox (request)"
	" WHERE request IS NOT NULL;"
	"PRAGMA user_version = 14;";

/*
 * Version 15: concurrency keys (SPEC §13).  A run or a step row carries
 * its interpolated key and limit; the runs (steps) holding a key are
 * those with it that are running, so the slots in use are counted from
 * the table alone after a crash, and a row that ends frees its slot by
 * ending.  Those waiting are "queued", in row id order (arrival).
 *
 * Both status CHECKs grow by "queued", swapped in sqlite_schema as
 * version 6 swapped the kinds': each new text is exactly as long as the
 * old (spaces dropped to make room), as ALTER TABLE ADD COLUMN right
 * after needs.  The active index takes queued rows in.
 */
static const char schema_v15[] =
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'DEFAULT ''running'' CHECK (status IN  (''scheduled'', ''running'',"
	" ''completed'', ''failed'', ''cancelled''))',"
	" 'DEFAULT''running''CHECK(status IN(''queued'',''scheduled'',"
	"''running'',''completed'',''failed'',''cancelled''))')"
	" WHERE type = 'table' AND name = 'workflows';"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'CHECK (status IN (''pending'', ''ready'',  ''running'',"
	" ''waiting'', ''done'', ''failed'', ''cancelled'', ''skipped''))',"
	" 'CHECK(status IN (''pending'',''ready'',''running'',''waiting'',"
	"''done'',''failed'',''cancelled'',''skipped'',''queued''))')"
	" WHERE type = 'table' AND name = 'workflow_steps';"
	"PRAGMA writable_schema = OFF;"
	"ALTER TABLE workflows ADD COLUMN conc_key TEXT;"
	"ALTER TABLE workflows ADD COLUMN conc_limit INTEGER;"
	"ALTER TABLE workflow_steps ADD COLUMN conc_key TEXT;"
	"ALTER TABLE workflow_steps ADD COLUMN conc_limit INTEGER;"
	"CREATE INDEX workflows_conc ON workflows (conc_key, status, id)"
	" WHERE conc_key IS NOT NULL;"
	"CREATE INDEX workflow_steps_conc ON workflow_steps"
	" (conc_key, status, id) WHERE conc_key IS NOT NULL;"
	"DROP INDEX workflow_steps_active;"
	"CREATE INDEX workflow_steps_active ON workflow_steps (status, id)"
	" WHERE " STORE_STEP_ACTIVE ";"
	"PRAGMA user_version = 15;";

/*
 * Version 16: how many runs each status holds, kept by triggers as rows
 * come, change status and go, so "sluice status" and the console's
 * header read a few rows however long the history (counting a year of
 * finished runs on the status index took tens of milliseconds at
 * 100,000 runs and grew with them).  The triggers run in the statement's
 * own transaction: a crash, a rollback or a hand-made sqlite3 change
 * keeps the counts exact.  Filled once from the rows already there.  A
 * rowid table, as requests is, for the power-loss test's update hook.
 */
static const char schema_v16[] =
	"CREATE TABLE run_counts ("
	" status TEXT PRIMARY KEY,"
	" n INTEGER NOT NULL);"
	"INSERT INTO run_counts (status, n)"
	" SELECT status, count(*) FROM workflows GROUP BY status;"
	"CREATE TRIGGER run_counts_insert AFTER INSERT ON workflows BEGIN"
	" INSERT INTO run_counts (status, n) VALUES (new.status, 1)"
	"  ON CONFLICT (status) DO UPDATE SET n = n + 1;"
	" END;"
	"CREATE TRIGGER run_counts_update AFTER UPDATE OF status ON workflows"
	" WHEN old.status IS NOT new.status BEGIN"
	" UPDATE run_counts SET n = n - 1 WHERE status = old.status;"
	" INSERT INTO run_counts (status, n) VALUES (new.status, 1)"
	"  ON CONFLICT (status) DO UPDATE SET n = n + 1;"
	" END;"
	"CREATE TRIGGER run_counts_delete AFTER DELETE ON workflows BEGIN"
	" UPDATE run_counts SET n = n - 1 WHERE status = old.status;"
	" END;"
	"PRAGMA user_version = 16;";

/*
 * Version 17: cluster mode's node, on the commands it relayed and on the
 * audit rows of every command (relay.c).  Hashed and sealed only when
 * set, as via is, so older rows keep their hashes.
 */
static const char schema_v17[] =
	"ALTER TABLE audit ADD COLUMN node TEXT;"
	"ALTER TABLE inbox ADD COLUMN node TEXT;"
	"PRAGMA user_version = 17;";

/*
 * Version 18: the nodes of a cluster (SPEC §14), one row each, written
 * by the node's engine as it stands by or leads, read by "sluice
 * status".  Only a server's database is written to (cluster mode); a
 * file has the table so that both kinds stay numbered alike.
 */
#define SCHEMA_NODES(roles)						\
	"CREATE TABLE nodes ("						\
	" name TEXT PRIMARY KEY,"					\
	" role TEXT NOT NULL CHECK (role IN (" roles ")),"		\
	" pid INTEGER NOT NULL,"					\
	" epoch INTEGER,"						\
	" lease_ms INTEGER NOT NULL,"					\
	" started_at INTEGER NOT NULL,"					\
	" seen_at INTEGER NOT NULL,"					\
	" version TEXT NOT NULL);"
static const char schema_v18[] =
	SCHEMA_NODES("'leader', 'standby'")
	"PRAGMA user_version = 18;";

/*
 * Version 19: the step row's checks and its active index's condition as
 * equalities, not IN lists.  SQLite evaluates an IN list of three or more
 * constants by first building a table of them, for every statement that
 * evaluates it: each write of a step row (three in every step of a chain)
 * built three or four such tables, more CPU than the write itself.  The
 * CHECKs are swapped in sqlite_schema (as version 15 did); they accept
 * exactly what they did, so no row need be looked at.  The new text is
 * longer, so the schema cookie is bumped (store_schema_reload): this
 * connection reads the schema again and uses the new checks at once.
 */
static const char schema_v19[] =
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(replace(sql,"
	" 'CHECK(status IN (''pending'',''ready'',''running'',''waiting'',"
	"''done'',''failed'',''cancelled'',''skipped'',''queued''))',"
	" 'CHECK(status = ''pending'' OR status = ''ready'' OR"
	" status = ''running'' OR status = ''waiting'' OR status = ''done'' OR"
	" status = ''failed'' OR status = ''cancelled'' OR"
	" status = ''skipped'' OR status = ''queued'')'),"
	" 'CHECK (branch_end IN (''join'', ''failed'', ''end''))',"
	" 'CHECK (branch_end = ''join'' OR branch_end = ''failed'' OR"
	" branch_end = ''end'')')"
	" WHERE type = 'table' AND name = 'workflow_steps';"
	"PRAGMA writable_schema = OFF;"
	"DROP INDEX workflow_steps_active;"
	"CREATE INDEX workflow_steps_active ON workflow_steps (status, id)"
	" WHERE " STORE_STEP_ACTIVE ";";
static const char schema_v19_after[] =
	"PRAGMA user_version = 19;";

/*
 * Version 20: a node that stops cleanly keeps its row, as "stopped" (an
 * operator sees the node that is down on purpose).  SQLite cannot change
 * a CHECK in place; a file's nodes table is always empty (only a
 * server's database has nodes), so it is made again, as version 18 made
 * it but for the roles.
 */
static const char schema_v20[] =
	"DROP TABLE nodes;"
	SCHEMA_NODES("'leader', 'standby', 'stopped'")
	"PRAGMA user_version = 20;";

/*
 * After a change made in sqlite_schema: a new schema cookie, so that every
 * connection, this one too, parses the schema again.
 */
static int
store_schema_reload(struct store *s, char **cause)
{
	char	*sql;
	int64_t	 cookie;
	int	 rc;

	if ((rc = store_query_int(s, "PRAGMA schema_version", &cookie,
	    cause)) != 0)
		return (rc);
	xasprintf(&sql, "PRAGMA schema_version = %lld", (long long)cookie + 1);
	rc = store_exec(s, sql, cause);
	free(sql);
	return (rc);
}

/*
 * Every schema version in order; each ends by setting user_version (in
 * sql, or in after when a C step runs between the two).  A driver with
 * a dialect of its own (PostgreSQL) names its own list, numbered alike.
 */
static const struct store_migration store_migrations[] = {
	{ 1, schema_v1, NULL, NULL },
	{ 2, schema_v2, NULL, NULL },
	{ 3, schema_v3, NULL, NULL },
	{ 4, schema_v4, store_chain_migrate, schema_v4_after },
	{ 5, schema_v5, NULL, NULL },
	{ 6, schema_v6, NULL, NULL },
	{ 7, schema_v7, NULL, NULL },
	{ 8, schema_v8, NULL, NULL },
	{ 9, schema_v9, NULL, NULL },
	{ 10, schema_v10, NULL, NULL },
	{ 11, schema_v11, NULL, NULL },
	{ 12, schema_v12, NULL, NULL },
	{ 13, schema_v13, NULL, NULL },
	{ 14, schema_v14, NULL, NULL },
	{ 15, schema_v15, NULL, NULL },
	{ 16, schema_v16, NULL, NULL },
	{ 17, schema_v17, NULL, NULL },
	{ 18, schema_v18, NULL, NULL },
	{ 19, schema_v19, store_schema_reload, schema_v19_after },
	{ 20, schema_v20, NULL, NULL },
};
#define STORE_NMIGRATIONS \
    (sizeof store_migrations / sizeof store_migrations[0])

static int	store_schema_apply(struct store *,
		    const struct store_migration *, char **);

/* Apply one migration in its own transaction unless already there. */
static int
store_schema_apply(struct store *s, const struct store_migration *m,
    char **cause)
{
	int64_t	 version;
	int	 rc;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	/* Another process may have migrated since we looked. */
	rc = store_schema_version(s, &version, cause);
	if (rc == 0 && version > STORE_SCHEMA_VERSION) {
		xasprintf(cause, "%s has schema version %lld, newer than this "
		    "sluice (%d); upgrade sluice", store_path(s),
		    (long long)version, STORE_SCHEMA_VERSION);
		rc = STORE_FOREIGN;
	}
	if (rc == 0 && version < m->version) {
		log_debug("%s: %s: version %lld", __func__, store_path(s),
		    (long long)m->version);
		rc = store_exec(s, m->sql, cause);
		if (rc == 0 && m->fn != NULL)
			rc = m->fn(s, cause);
		if (rc == 0 && m->after != NULL)
			rc = store_exec(s, m->after, cause);
	}
	return (store_finish(s, rc, cause));
}

/* Bring the schema up to STORE_SCHEMA_VERSION. */
int
store_schema_migrate(struct store *s, char **cause)
{
	return (store_schema_migrate_to(s, STORE_SCHEMA_VERSION, cause));
}

/*
 * Bring the schema up to version upto, no further: the tests make a
 * database of every older version this way and migrate it.
 */
int
store_schema_migrate_to(struct store *s, int64_t upto, char **cause)
{
	const struct store_migration	*m = store_migrations;
	size_t				 i, n = STORE_NMIGRATIONS;
	int				 rc;

	if (s->drv->migrations != NULL) {
		m = s->drv->migrations;
		n = *s->drv->nmigrations;
	}
	/* A driver's list that stops short is a build's mistake: say so. */
	if (n == 0 || m[n - 1].version < STORE_SCHEMA_VERSION) {
		xasprintf(cause, "%s: the %s driver has no schema version %d "
		    "(this sluice is built wrong)", store_path(s),
		    s->drv->name, STORE_SCHEMA_VERSION);
		return (STORE_ERR);
	}
	for (i = 0; i < n && m[i].version <= upto; i++) {
		if ((rc = store_schema_apply(s, &m[i], cause)) != 0)
			return (rc);
	}
	return (0);
}
