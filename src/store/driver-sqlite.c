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
 * driver-sqlite.c: the SQLite driver, the store's one today: statements,
 * binding, columns and transactions on a sqlite3 connection, SQLite's
 * result codes turned into the driver-neutral ones of driver.h, and the
 * hooks only SQLite has (busy handler, WAL files, checkpoint on close,
 * pragmas, SQL functions).  Its online backup is driver-sqlite-backup.c.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-sqlite.h"
#include "store/driver-sqlite-lib.h"

/* A statement: the handle the store holds, and SQLite's. */
struct sqlite_stmt {
	struct store_stmt	 base;	/* first: the store's handle */
	sqlite3_stmt		*st;
};

#define SQLITE_STMT(h)	(((struct sqlite_stmt *)(h))->st)

static enum store_drv_code sqlite_int(sqlite3 *, const char *, int64_t *);

/* SQLite's result code as the driver-neutral one. */
enum store_drv_code
store_sqlite_code(sqlite3 *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
		return (STORE_DRV_OK);
	case SQLITE_ROW:
		return (STORE_DRV_ROW);
	case SQLITE_DONE:
		return (STORE_DRV_DONE);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_PROTOCOL:	/* gave up retrying a locked WAL index */
		return (STORE_DRV_BUSY);
	case SQLITE_CONSTRAINT:
		return (STORE_DRV_CONSTRAINT);
	case SQLITE_READONLY:
		/*
		 * The WAL index being recovered or set up by another process
		 * (a plain sqlite3 reader opening or closing beside us), or
		 * its -shm just made by another account: states that pass.
		 */
		switch (db != NULL ? sqlite3_extended_errcode(db) : rc) {
		case SQLITE_READONLY_RECOVERY:
		case SQLITE_READONLY_CANTINIT:
		case SQLITE_READONLY_CANTLOCK:
			return (STORE_DRV_NOTREADY);
		}
		return (STORE_DRV_READONLY);
	case SQLITE_NOTADB:
		return (STORE_DRV_FOREIGN);
	}
	return (STORE_DRV_ERROR);
}

/* Open a connection (no mutexes: one thread uses it). */
static int
sqlite_open(const char *path, int flags, struct store_conn **connp,
    char **cause)
{
	sqlite3	*db = NULL;
	int	 rc, oflags;

	*connp = NULL;
	if (sqlite_lib_load(cause) != 0)
		return (-1);
	if (flags & STORE_DRV_O_READONLY)
		oflags = SQLITE_OPEN_READONLY;
	else
		oflags = SQLITE_OPEN_READWRITE;
	rc = sqlite3_open_v2(path, &db, oflags|SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		xasprintf(cause, "cannot open database %s: %s", path,
		    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return (-1);
	}
	*connp = (struct store_conn *)db;
	return (0);
}

/* Close a connection; the store's statements are finalized already. */
static void
sqlite_close(struct store_conn *conn)
{
	sqlite3	*db = (sqlite3 *)conn;

	store_sqlite_txn_forget(db);
	if (db != NULL && sqlite3_close(db) != SQLITE_OK)
		log_debug("%s: %s", __func__, sqlite3_errmsg(db));
}

/* The last failure on the connection. */
static enum store_drv_code
sqlite_error(struct store_conn *conn)
{
	sqlite3	*db = (sqlite3 *)conn;

	return (store_sqlite_code(db, sqlite3_errcode(db)));
}

/*
 * Its message: for a lock or a state that passes, what another process
 * is doing, in words the store puts after "busy" or "not ready".
 */
static const char *
sqlite_message(struct store_conn *conn)
{
	sqlite3	*db = (sqlite3 *)conn;

	switch (sqlite3_extended_errcode(db)) {
	case SQLITE_PROTOCOL:
		return ("its WAL index is locked by another process");
	case SQLITE_READONLY_RECOVERY:
		return ("its WAL is being recovered");
	case SQLITE_READONLY_CANTINIT:
		return ("its WAL index is being set up");
	case SQLITE_READONLY_CANTLOCK:
		return ("its WAL index cannot be locked for writing");
	}
	switch (sqlite3_errcode(db) & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return ("locked by another process at that moment");
	}
	return (sqlite3_errmsg(db));
}

/* Prepare one statement; a kept one is told so SQLite sizes it so. */
static enum store_drv_code
sqlite_prepare(struct store_conn *conn, const char *sql, int keep,
    struct store_stmt **stp)
{
	sqlite3			*db = (sqlite3 *)conn;
	sqlite3_stmt		*st = NULL;
	struct sqlite_stmt	*h;
	int			 rc;

	*stp = NULL;
	if (keep) {
		rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT,
		    &st, NULL);
	} else
		rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return (store_sqlite_code(db, rc));
	}
	if (st == NULL)		/* no statement: SQLite's own misuse */
		return (STORE_DRV_ERROR);
	h = xmalloc(sizeof *h);
	h->base.drv = &store_driver_sqlite;
	h->st = st;
	*stp = &h->base;
	return (STORE_DRV_OK);
}

/* Free a statement. */
static void
sqlite_finalize(struct store_stmt *h)
{
	sqlite3_finalize(SQLITE_STMT(h));
	free(h);
}

/* Make a statement ready to run again, its bindings cleared if asked. */
static void
sqlite_reset(struct store_stmt *h, int clear)
{
	sqlite3_reset(SQLITE_STMT(h));
	if (clear)
		sqlite3_clear_bindings(SQLITE_STMT(h));
}

/* How many parameters a statement has. */
static int
sqlite_parameters(struct store_stmt *h)
{
	return (sqlite3_bind_parameter_count(SQLITE_STMT(h)));
}

/* Run a statement to its next row. */
static enum store_drv_code
sqlite_step(struct store_stmt *h)
{
	sqlite3_stmt	*st = SQLITE_STMT(h);

	return (store_sqlite_code(sqlite3_db_handle(st), sqlite3_step(st)));
}

static enum store_drv_code
sqlite_bind_int64(struct store_stmt *h, int idx, int64_t v)
{
	sqlite3_stmt	*st = SQLITE_STMT(h);

	return (store_sqlite_code(NULL, sqlite3_bind_int64(st, idx, v)));
}

static enum store_drv_code
sqlite_bind_text(struct store_stmt *h, int idx, const char *v, size_t len)
{
	sqlite3_stmt	*st = SQLITE_STMT(h);

	return (store_sqlite_code(NULL, sqlite3_bind_text64(st, idx, v, len,
	    SQLITE_TRANSIENT, SQLITE_UTF8)));
}

static enum store_drv_code
sqlite_bind_blob(struct store_stmt *h, int idx, const void *v, size_t len)
{
	sqlite3_stmt	*st = SQLITE_STMT(h);

	return (store_sqlite_code(NULL, sqlite3_bind_blob64(st, idx, v, len,
	    SQLITE_TRANSIENT)));
}

static enum store_drv_code
sqlite_bind_null(struct store_stmt *h, int idx)
{
	return (store_sqlite_code(NULL, sqlite3_bind_null(SQLITE_STMT(h), idx)));
}

static int
sqlite_column_null(struct store_stmt *h, int col)
{
	return (sqlite3_column_type(SQLITE_STMT(h), col) == SQLITE_NULL);
}

static int64_t
sqlite_column_int64(struct store_stmt *h, int col)
{
	return (sqlite3_column_int64(SQLITE_STMT(h), col));
}

static const char *
sqlite_column_text(struct store_stmt *h, int col)
{
	return ((const char *)sqlite3_column_text(SQLITE_STMT(h), col));
}

/* A blob column: its bytes (NULL when empty or NULL) and their count. */
static const void *
sqlite_column_blob(struct store_stmt *h, int col, size_t *len)
{
	const void	*data;

	data = sqlite3_column_blob(SQLITE_STMT(h), col);
	*len = (size_t)sqlite3_column_bytes(SQLITE_STMT(h), col);
	return (data);
}

/* Run constant SQL (one or more statements, no values), ignoring rows. */
static enum store_drv_code
sqlite_exec(struct store_conn *conn, const char *sql)
{
	sqlite3		*db = (sqlite3 *)conn;
	sqlite3_stmt	*st;
	const char	*tail = sql;
	int		 rc;

	while (*tail != '\0') {
		rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
		if (rc != SQLITE_OK)
			return (store_sqlite_code(db, rc));
		if (st == NULL)		/* only whitespace or a comment */
			continue;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			/* nothing */;
		if (rc != SQLITE_DONE) {
			rc = store_sqlite_code(db, rc);
			sqlite3_finalize(st);
			return (rc);
		}
		sqlite3_finalize(st);
	}
	return (STORE_DRV_OK);
}

/*
 * Start a transaction: a write one takes the lock now (BEGIN IMMEDIATE),
 * so a busy database is found here and not at commit; above level 0, a
 * savepoint.
 */
static enum store_drv_code
sqlite_begin(struct store_conn *conn, int level, int write)
{
	if (level > 0)
		return (sqlite_exec(conn, "SAVEPOINT store_nested"));
	if (write)
		return (store_sqlite_txn((sqlite3 *)conn,
		    SQLITE_TXN_BEGIN_WRITE));
	return (sqlite_exec(conn, "BEGIN"));
}

static enum store_drv_code
sqlite_commit(struct store_conn *conn, int level)
{
	if (level > 0)
		return (sqlite_exec(conn, "RELEASE store_nested"));
	return (store_sqlite_txn((sqlite3 *)conn, SQLITE_TXN_COMMIT));
}

static enum store_drv_code
sqlite_rollback(struct store_conn *conn, int level)
{
	if (level > 0) {
		return (sqlite_exec(conn, "ROLLBACK TO store_nested; "
		    "RELEASE store_nested"));
	}
	return (sqlite_exec(conn, "ROLLBACK"));
}

static int
sqlite_in_transaction(struct store_conn *conn)
{
	return (!sqlite3_get_autocommit((sqlite3 *)conn));
}

static int64_t
sqlite_last_insert_id(struct store_conn *conn)
{
	return (sqlite3_last_insert_rowid((sqlite3 *)conn));
}

static int64_t
sqlite_changes(struct store_conn *conn)
{
	return (sqlite3_changes64((sqlite3 *)conn));
}

static int64_t
sqlite_total_changes(struct store_conn *conn)
{
	return (sqlite3_total_changes64((sqlite3 *)conn));
}

/* A query for one integer (0 when there is no row). */
static enum store_drv_code
sqlite_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt	*st;
	int		 rc;

	*v = 0;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return (store_sqlite_code(db, rc));
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	rc = store_sqlite_code(db, rc);
	sqlite3_finalize(st);
	return (rc == STORE_DRV_DONE ? STORE_DRV_OK : rc);
}

/* PRAGMA data_version: bumped when another connection commits. */
static enum store_drv_code
sqlite_data_version(struct store_conn *conn, int64_t *v)
{
	return (sqlite_int((sqlite3 *)conn, "PRAGMA data_version", v));
}

/* The file's application id, user_version and schema objects. */
static enum store_drv_code
sqlite_identify(struct store_conn *conn, int64_t *appid, int64_t *version,
    int64_t *objects)
{
	sqlite3	*db = (sqlite3 *)conn;
	int	 rc;

	*version = *objects = 0;
	if ((rc = sqlite_int(db, "PRAGMA application_id", appid)) != 0)
		return (rc);
	if ((rc = sqlite_int(db, "PRAGMA user_version", version)) != 0)
		return (rc);
	return (sqlite_int(db, "SELECT count(*) FROM sqlite_master", objects));
}

/*
 * Our settings: foreign keys enforced, a commit synced whole, and 256 KiB
 * of page cache, not SQLite's 2 MiB: the engine works on a moving front
 * of rows and the console on a screenful, with the file in the kernel's
 * cache; 2 MiB was most of the engine's memory once a run had touched
 * that much (a for-each of 10,000 items), and no faster (bench/README).
 */
static enum store_drv_code
sqlite_tune(struct store_conn *conn)
{
	return (sqlite_exec(conn, "PRAGMA foreign_keys = ON;"
	    " PRAGMA synchronous = FULL; PRAGMA cache_size = -256"));
}

/*
 * WAL: readers beside the one writer, never blocking it.  Checkpointed
 * every 500 pages, not SQLite's 1000: the WAL file keeps the size it
 * once reached, which was then 1000 pages and the commit that crossed
 * them, just short of 4 MiB and past it with a bigger commit.
 */
static enum store_drv_code
sqlite_journal(struct store_conn *conn)
{
	return (sqlite_exec(conn, "PRAGMA journal_mode = WAL;"
	    " PRAGMA wal_autocheckpoint = 500"));
}

/* Wait for locks through the store's handler. */
static void
sqlite_busy_handler(struct store_conn *conn, store_drv_busy_cb cb, void *arg)
{
	sqlite3_busy_handler((sqlite3 *)conn, cb, arg);
}

/* Whether SQLite opened the file read-only. */
static int
sqlite_file_readonly(struct store_conn *conn)
{
	return (sqlite3_db_readonly((sqlite3 *)conn, "main") == 1);
}

/* Whether closing checkpoints the WAL into the database file. */
static void
sqlite_checkpoint_on_close(struct store_conn *conn, int on)
{
	sqlite3_db_config((sqlite3 *)conn, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
	    !on, NULL);
}

/*
 * Keep the -wal and -shm files after close, so that people who may read
 * the database but not write its directory can still open it (SQLite
 * then maps the -shm read-only).
 */
static void
sqlite_keep_journal(struct store_conn *conn)
{
	int	 persist = 1;

	sqlite3_file_control((sqlite3 *)conn, "main",
	    SQLITE_FCNTL_PERSIST_WAL, &persist);
}

/*
 * SQLite's side of a store function: text arguments as text, the others
 * as integers (NULL as 0).
 */
static void
sqlite_function_call(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct store_drv_function	*f = sqlite3_user_data(ctx);
	struct store_drv_arg		 args[8];
	const char			*result;
	char				*why = NULL;
	int				 i;

	if (argc > (int)nitems(args)) {
		sqlite3_result_error(ctx, "too many arguments", -1);
		return;
	}
	for (i = 0; i < argc; i++) {
		if (sqlite3_value_type(argv[i]) == SQLITE_TEXT) {
			args[i].text =
			    (const char *)sqlite3_value_text(argv[i]);
			args[i].i = 0;
		} else {
			args[i].text = NULL;
			args[i].i = sqlite3_value_int64(argv[i]);
		}
	}
	if (f->call(args, argc, &result, &why) != 0) {
		sqlite3_result_error(ctx, why != NULL ? why : f->name, -1);
		free(why);
		return;
	}
	sqlite3_result_text(ctx, result, -1, SQLITE_STATIC);
}

/* Teach the connection a store function. */
static enum store_drv_code
sqlite_function(struct store_conn *conn, const struct store_drv_function *f)
{
	sqlite3	*db = (sqlite3 *)conn;
	int	 rc;

	rc = sqlite3_create_function(db, f->name, f->nargs,
	    SQLITE_UTF8|SQLITE_DETERMINISTIC, (void *)f, sqlite_function_call,
	    NULL, NULL);
	return (store_sqlite_code(db, rc));
}

/* SQLite's handle of a connection (tests look under the store with it). */
struct sqlite3 *
store_sqlite_db(struct store_conn *conn)
{
	return ((sqlite3 *)conn);
}

const struct store_driver store_driver_sqlite = {
	.name = "sqlite",

	.open = sqlite_open,
	.close = sqlite_close,
	.error = sqlite_error,
	.message = sqlite_message,

	.prepare = sqlite_prepare,
	.finalize = sqlite_finalize,
	.reset = sqlite_reset,
	.parameters = sqlite_parameters,
	.step = sqlite_step,

	.bind_int64 = sqlite_bind_int64,
	.bind_text = sqlite_bind_text,
	.bind_blob = sqlite_bind_blob,
	.bind_null = sqlite_bind_null,

	.column_null = sqlite_column_null,
	.column_int64 = sqlite_column_int64,
	.column_text = sqlite_column_text,
	.column_blob = sqlite_column_blob,

	.exec = sqlite_exec,

	.begin = sqlite_begin,
	.commit = sqlite_commit,
	.rollback = sqlite_rollback,
	.in_transaction = sqlite_in_transaction,

	.last_insert_id = sqlite_last_insert_id,
	.changes = sqlite_changes,
	.total_changes = sqlite_total_changes,
	.data_version = sqlite_data_version,
	.identify = sqlite_identify,

	.tune = sqlite_tune,
	.journal = sqlite_journal,
	.function = sqlite_function,

	.busy_handler = sqlite_busy_handler,
	.file_readonly = sqlite_file_readonly,
	.checkpoint_on_close = sqlite_checkpoint_on_close,
	.keep_journal = sqlite_keep_journal,
	.backup = store_sqlite_backup,
};
