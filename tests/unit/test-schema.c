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
 * test-schema.c: a database of every schema version, from none to the
 * one before the newest, made by the migrations up to it and opened by
 * store_open, ends at the newest version with an index led by every
 * column that references a row (without one, deleting a referenced row
 * reads the whole referencing table), the same as a new database, and
 * with step rows written without building a table for an IN list (their
 * checks and active index as equalities, version 19) yet as strict.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-sqlite.h"
#include "tap.h"

static char	 tmpdir[] = "/tmp/test-schema.XXXXXX";

/* Every referencing column with no index that it leads, one per row. */
static const char unindexed_sql[] =
	"SELECT t.name || '.' || f.\"from\" FROM sqlite_schema t,"
	" pragma_foreign_key_list(t.name) f"
	" WHERE t.type = 'table' AND NOT EXISTS (SELECT 1 FROM"
	"  pragma_index_list(t.name) l, pragma_index_info(l.name) i"
	"  WHERE i.seqno = 0 AND i.name = f.\"from\")"
	" ORDER BY 1";

/* The whole schema's text, for comparing two databases. */
static const char schema_sql[] =
	"SELECT group_concat(type || ' ' || name, ', ') FROM"
	" (SELECT type, name FROM sqlite_schema ORDER BY type, name)";

/* The writes of a step row every step of a chain makes (schema v19). */
static const char *const step_writes[] = {
	"INSERT INTO workflow_steps (updated_at, created_at, workflow_id,"
	" name, step_key, kind, status) VALUES (1, 1, 1, 'a', 'a', 'tool',"
	" 'ready')",
	"UPDATE workflow_steps SET status = 'running' WHERE id = 1",
	"UPDATE workflow_steps SET status = 'done', result_json = 'null'"
	" WHERE id = 1",
};

static int	 test_rm(const char *, const struct stat *, int,
		     struct FTW *);
static char	*test_text(const char *, const char *);
static int	 test_opcode(const char *, const char *, const char *);
static int	 test_refused(const char *, const char *);
static void	 test_make(const char *, int64_t);
static void	 test_from(int64_t, const char *);

/* nftw callback removing everything under the temporary directory. */
static int
test_rm(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return (0);
}

/* One query's rows joined by spaces, from a raw connection ("" none). */
static char *
test_text(const char *path, const char *sql)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	char		*text = xstrdup(""), *more;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, sql, -1, &st, NULL) !=
	    SQLITE_OK)
		fatalx("%s: %s", path, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		xasprintf(&more, "%s%s%s", text, *text != '\0' ? " " : "",
		    (const char *)sqlite3_column_text(st, 0));
		free(text);
		text = more;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (text);
}

/* How many times sql's program has opcode (EXPLAIN). */
static int
test_opcode(const char *path, const char *sql, const char *opcode)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	char		*explain;
	const char	*op;
	int		 n = 0;

	xasprintf(&explain, "EXPLAIN %s", sql);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, explain, -1, &st, NULL) !=
	    SQLITE_OK)
		fatalx("%s: %s", path, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		op = (const char *)sqlite3_column_text(st, 1);
		if (op != NULL && strcmp(op, opcode) == 0)
			n++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(explain);
	return (n);
}

/* Whether a write is refused by a constraint (and rolled back). */
static int
test_refused(const char *path, const char *sql)
{
	sqlite3	*db;
	int	 rc;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK || sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) !=
	    SQLITE_OK)
		fatalx("%s: %s", path, sqlite3_errmsg(db));
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return ((rc & 0xff) == SQLITE_CONSTRAINT);
}

/*
 * A database at schema version v, as that sluice made it: the migrations
 * up to v on a connection of our own (store_open would go to the end).
 */
static void
test_make(const char *path, int64_t v)
{
	struct store	 s;
	char		*cause = NULL;
	FILE		*f;

	memset(&s, 0, sizeof s);
	s.path = (char *)path;
	s.create_fd = -1;
	s.busy_waited = -1;
	s.busy_timeout = STORE_BUSY_TIMEOUT;
	s.drv = &store_driver_sqlite;
	if ((f = fopen(path, "a")) == NULL || fclose(f) != 0)
		fatalx("cannot create %s", path);
	if (s.drv->open(path, 0, &s.conn, &cause) != 0)
		fatalx("%s", cause);
	if (store_exec(&s, "PRAGMA foreign_keys = ON;"
	    "PRAGMA journal_mode = WAL", &cause) != 0 ||
	    store_schema_migrate_to(&s, v, &cause) != 0)
		fatalx("%s: version %lld: %s", path, (long long)v, cause);
	while (s.ncached > 0)	/* the statements the store kept */
		store_stmt_finalize(s.cached[--s.ncached].st);
	s.drv->close(s.conn);
}

/* Migrate a database of version v and look at what it ends as. */
static void
test_from(int64_t v, const char *fresh)
{
	struct store	*s = NULL;
	char		 name[32], what[128], *path, *cause = NULL, *got;
	char		*want;
	size_t		 i;

	snprintf(name, sizeof name, "/v%lld.db", (long long)v);
	xasprintf(&path, "%s%s", tmpdir, name);
	if (v > 0)
		test_make(path, v);
	snprintf(what, sizeof what, "version %lld opens", (long long)v);
	if (!tap_is_int(store_open(path, 0, &s, &cause), 0, what))
		printf("# %s\n", cause);
	store_close(s);
	free(cause);
	got = test_text(path, "PRAGMA user_version");
	xasprintf(&want, "%d", STORE_SCHEMA_VERSION);
	snprintf(what, sizeof what, "version %lld is migrated to the newest",
	    (long long)v);
	tap_is(got, want, what);
	free(want);
	free(got);
	got = test_text(path, unindexed_sql);
	snprintf(what, sizeof what, "version %lld: every referencing column "
	    "is indexed", (long long)v);
	tap_is(got, "", what);
	free(got);
	got = test_text(path, schema_sql);
	want = test_text(fresh, schema_sql);
	snprintf(what, sizeof what, "version %lld: the same tables and "
	    "indexes as a new database", (long long)v);
	tap_is(got, want, what);
	free(want);
	free(got);
	for (i = 0; i < nitems(step_writes); i++) {
		snprintf(what, sizeof what, "version %lld: step write %zu "
		    "builds no table for an IN list", (long long)v, i + 1);
		tap_is_int(test_opcode(path, step_writes[i], "OpenEphemeral"),
		    0, what);
	}
	snprintf(what, sizeof what, "version %lld: an unknown step status "
	    "is refused", (long long)v);
	tap_ok(test_refused(path, "INSERT INTO workflow_steps (updated_at,"
	    " created_at, workflow_id, name, step_key, kind, status) VALUES"
	    " (1, 1, 1, 'a', 'a', 'tool', 'finished')"), "%s", what);
	snprintf(what, sizeof what, "version %lld: an unknown branch end "
	    "is refused", (long long)v);
	tap_ok(test_refused(path, "INSERT INTO workflow_steps (updated_at,"
	    " created_at, workflow_id, name, step_key, kind, status,"
	    " branch_end) VALUES (1, 1, 1, 'a', 'a', 'tool', 'done', 'x')"),
	    "%s", what);
	free(path);
}

int
main(void)
{
	char	*fresh;
	int64_t	 v;

	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	xasprintf(&fresh, "%s/v0.db", tmpdir);
	test_from(0, fresh);
	for (v = 1; v < STORE_SCHEMA_VERSION; v++)
		test_from(v, fresh);
	free(fresh);
	nftw(tmpdir, test_rm, 16, FTW_DEPTH|FTW_PHYS);
	return (tap_done());
}
