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
 * driver-sqlite-reader.c: the engine's own read-only connection, on which
 * members' reads run in service mode (they may not open the file; their
 * driver, driver-socket.c, ships each statement here).  Only reading gets
 * through: the connection is opened read-only and query_only, an
 * authorizer allows reading tables, the built-in functions and ours and
 * three pragmas that only report, and a statement SQLite does not call
 * read-only is refused.  Nothing a member sends may stall the engine:
 * SQLite's limits keep statements small, rows go back a page at a time
 * (STORE_READ_PAGE_ROWS, _BYTES, or what STORE_READ_TURN_MS of work
 * gives), and one row's work is stopped after STORE_READ_STEP_MAX_MS,
 * answering pings meanwhile through the yield callback.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-sqlite-lib.h"

/* What a member's statement may be, at most (sqlite3_limit). */
static const struct {
	int	 id;
	int	 value;
} reader_limits[] = {
	{ SQLITE_LIMIT_LENGTH, 16 * 1024 * 1024 },	/* a value, a row */
	{ SQLITE_LIMIT_SQL_LENGTH, 256 * 1024 },
	{ SQLITE_LIMIT_COLUMN, 200 },
	{ SQLITE_LIMIT_EXPR_DEPTH, 200 },
	{ SQLITE_LIMIT_COMPOUND_SELECT, 50 },
	{ SQLITE_LIMIT_FUNCTION_ARG, 16 },
	{ SQLITE_LIMIT_ATTACHED, 0 },
	{ SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000 },
	{ SQLITE_LIMIT_VARIABLE_NUMBER, 1000 },
	{ SQLITE_LIMIT_TRIGGER_DEPTH, 1 },
	{ SQLITE_LIMIT_WORKER_THREADS, 0 },
};

/* The pragmas a member may read (never set). */
static const char *reader_pragmas[] = {
	"application_id", "data_version", "user_version"
};

struct sqlite_reader {
	struct store_reader	 base;		/* first: the seam's handle */
	sqlite3			*db;
	char			*path;
	store_reader_yield_cb	 yield;
	void			*arg;
	int64_t			 step_start;	/* this row's work began */
	int64_t			 yielded;	/* last yield, or step_start */
	int			 overran;	/* progress stopped a step */
	int			 ncursors;	/* open: none at close */
};

struct sqlite_cursor {
	struct store_cursor	 base;		/* first: the seam's handle */
	struct sqlite_reader	*r;
	sqlite3_stmt		*st;
	int			 done;
};

static int	reader_authorize(void *, int, const char *, const char *,
		    const char *, const char *);
static int	reader_progress(void *);
static void	sqlite_reader_close(struct store_reader *);
static int	sqlite_cursor_open(struct store_reader *, const char *,
		    const cJSON *, struct store_cursor **, char **);
static int	sqlite_cursor_page(struct store_cursor *, cJSON *, char **);
static void	sqlite_cursor_close(struct store_cursor *);
static int	reader_fail(struct sqlite_reader *, int, char **);
static int	reader_bind(struct sqlite_cursor *, const cJSON *, char **);

static const struct store_reader_ops sqlite_reader_ops = {
	.close = sqlite_reader_close,
	.cursor_open = sqlite_cursor_open,
	.cursor_page = sqlite_cursor_page,
	.cursor_close = sqlite_cursor_close,
};
static cJSON	*reader_value(sqlite3_stmt *, int, size_t *);

/*
 * Open the database's read connection for members' reads; yield (with
 * arg) is called every STORE_READ_TURN_MS of one row's work.
 */
int
store_sqlite_reader_open(const char *path, store_reader_yield_cb yield,
    void *arg, struct store_reader **rp, char **cause)
{
	struct sqlite_reader	*r;
	size_t			 i;

	*rp = NULL;
	if (sqlite_lib_load(cause) != 0)
		return (STORE_ERR);
	r = xcalloc(1, sizeof *r);
	r->base.ops = &sqlite_reader_ops;
	r->path = xstrdup(path);
	r->yield = yield;
	r->arg = arg;
	if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		xasprintf(cause, "cannot open database %s for members' reads: "
		    "%s", path, r->db != NULL ? sqlite3_errmsg(r->db) :
		    "out of memory");
		sqlite_reader_close(&r->base);
		return (STORE_ERR);
	}
	/* Closing must never checkpoint: the writer does that. */
	sqlite3_db_config(r->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(r->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_busy_timeout(r->db, 100);
	if (sqlite3_exec(r->db, "PRAGMA query_only = 1; PRAGMA cache_size = "
	    "-256", NULL, NULL, NULL) != SQLITE_OK ||
	    store_driver_sqlite.function((struct store_conn *)r->db,
	    &store_state_function) != STORE_DRV_OK) {
		if (*cause == NULL)
			xasprintf(cause, "%s: %s", path, sqlite3_errmsg(r->db));
		sqlite_reader_close(&r->base);
		return (STORE_ERR);
	}
	for (i = 0; i < nitems(reader_limits); i++)
		sqlite3_limit(r->db, reader_limits[i].id, reader_limits[i].value);
	sqlite3_set_authorizer(r->db, reader_authorize, r);
	sqlite3_progress_handler(r->db, 1000, reader_progress, r);
	*rp = &r->base;
	return (0);
}

/* Close the read connection, its cursors closed already. */
static void
sqlite_reader_close(struct store_reader *base)
{
	struct sqlite_reader	*r = (struct sqlite_reader *)base;

	if (r->ncursors != 0)
		fatalx("%s: %d cursors open", __func__, r->ncursors);
	if (r->db != NULL && sqlite3_close(r->db) != SQLITE_OK)
		log_debug("%s: %s", __func__, sqlite3_errmsg(r->db));
	free(r->path);
	free(r);
}

/* Allow reading, refuse everything else (and name what was refused). */
static int
reader_authorize(void *arg, int action, const char *a1, const char *a2,
    const char *db, const char *trigger)
{
	size_t	 i;

	(void)arg;
	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return (SQLITE_OK);
	case SQLITE_FUNCTION:
		/* a2: the function's name; loading code is never reading. */
		if (a2 != NULL && strcasecmp(a2, "load_extension") == 0)
			return (SQLITE_DENY);
		return (SQLITE_OK);
	case SQLITE_UPDATE:
		/*
		 * What SQLite asks when a table-valued function (json_each)
		 * declares its table: sqlite_master is never written all the
		 * same (a read-only statement, query_only, defensive).
		 */
		if (a1 != NULL && strcmp(a1, "sqlite_master") == 0)
			return (SQLITE_OK);
		return (SQLITE_DENY);
	case SQLITE_PRAGMA:
		if (a2 != NULL)		/* setting it */
			return (SQLITE_DENY);
		for (i = 0; i < nitems(reader_pragmas); i++) {
			if (a1 != NULL && strcasecmp(a1, reader_pragmas[i]) == 0)
				return (SQLITE_OK);
		}
		return (SQLITE_DENY);
	}
	return (SQLITE_DENY);
}

/*
 * Every thousand of SQLite's instructions: past a turn's work, let the
 * engine answer who asks meanwhile; past a row's limit, stop.
 */
static int
reader_progress(void *arg)
{
	struct sqlite_reader	*r = arg;
	int64_t			 now = time_mono_ms();

	if (now - r->step_start >= STORE_READ_STEP_MAX_MS) {
		r->overran = 1;
		return (1);
	}
	if (now - r->yielded >= STORE_READ_TURN_MS && r->yield != NULL) {
		r->yield(r->arg);
		r->yielded = time_mono_ms();
	}
	return (0);
}

/* An SQLite failure as a store code and one line. */
static int
reader_fail(struct sqlite_reader *r, int rc, char **cause)
{
	switch (rc & 0xff) {
	case SQLITE_AUTH:
	case SQLITE_READONLY:
		xasprintf(cause, "read-only: members write through commands");
		return (STORE_READONLY);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		xasprintf(cause, "database %s is busy (locked by another "
		    "process at that moment)", r->path);
		return (STORE_BUSY);
	case SQLITE_INTERRUPT:
		if (r->overran) {
			xasprintf(cause, "read stopped: one row took more than "
			    "%d ms of work (the limit for members' reads)",
			    STORE_READ_STEP_MAX_MS);
			return (STORE_ERR);
		}
		break;
	}
	xasprintf(cause, "read: %s", sqlite3_errmsg(r->db));
	return (STORE_ERR);
}

/*
 * Start a member's statement, sql with its values (a JSON array of wire
 * values, or NULL).  A statement that would write is refused with
 * STORE_READONLY, as is more than one at once (with STORE_ERR).
 */
static int
sqlite_cursor_open(struct store_reader *base, const char *sql,
    const cJSON *values, struct store_cursor **cp, char **cause)
{
	struct sqlite_reader	*r = (struct sqlite_reader *)base;
	struct sqlite_cursor	*c;
	sqlite3_stmt		*st = NULL;
	const char		*tail = NULL;
	int			 rc;

	*cp = NULL;
	r->overran = 0;
	r->step_start = r->yielded = time_mono_ms();
	rc = sqlite3_prepare_v2(r->db, sql, -1, &st, &tail);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return (reader_fail(r, rc, cause));
	}
	if (st == NULL) {
		xasprintf(cause, "read: no statement");
		return (STORE_ERR);
	}
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		xasprintf(cause, "read-only: members write through commands");
		return (STORE_READONLY);
	}
	tail += strspn(tail, " \t\r\n;");
	if (*tail != '\0') {
		sqlite3_finalize(st);
		xasprintf(cause, "read: one statement at a time");
		return (STORE_ERR);
	}
	c = xcalloc(1, sizeof *c);
	c->base.r = base;
	c->r = r;
	c->st = st;
	r->ncursors++;
	if (reader_bind(c, values, cause) != 0) {
		sqlite_cursor_close(&c->base);
		return (STORE_ERR);
	}
	*cp = &c->base;
	return (0);
}

/* Bind the wire values of a read, in order from parameter 1. */
static int
reader_bind(struct sqlite_cursor *c, const cJSON *values, char **cause)
{
	struct store_wire_value	 w;
	const cJSON		*v;
	int			 i = 0, rc = SQLITE_OK;

	if (values != NULL && !cJSON_IsArray(values)) {
		xasprintf(cause, "read: $.values is not an array");
		return (-1);
	}
	if (cJSON_GetArraySize(values) != sqlite3_bind_parameter_count(c->st)) {
		xasprintf(cause, "read: %d values for %d parameters",
		    cJSON_GetArraySize(values),
		    sqlite3_bind_parameter_count(c->st));
		return (-1);
	}
	cJSON_ArrayForEach(v, values) {
		i++;
		if (store_wire_read(v, &w) != 0) {
			xasprintf(cause, "read: $.values[%d] is not a value",
			    i - 1);
			return (-1);
		}
		switch (w.kind) {
		case STORE_WIRE_NULL:
			rc = sqlite3_bind_null(c->st, i);
			break;
		case STORE_WIRE_INT:
			rc = sqlite3_bind_int64(c->st, i, w.i);
			break;
		case STORE_WIRE_REAL:
			rc = sqlite3_bind_double(c->st, i, w.real);
			break;
		case STORE_WIRE_TEXT:
			rc = sqlite3_bind_text64(c->st, i, w.text, w.len,
			    SQLITE_TRANSIENT, SQLITE_UTF8);
			break;
		case STORE_WIRE_BLOB:
			rc = sqlite3_bind_blob64(c->st, i, w.data, w.len,
			    SQLITE_TRANSIENT);
			free(w.data);
			break;
		}
		if (rc != SQLITE_OK) {
			xasprintf(cause, "read: $.values[%d]: %s", i - 1,
			    sqlite3_errstr(rc));
			return (-1);
		}
	}
	return (0);
}

/* One column of the current row as a wire value; *bytes grows by its size. */
static cJSON *
reader_value(sqlite3_stmt *st, int col, size_t *bytes)
{
	const void	*data;
	size_t		 n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		*bytes += 20;
		return (store_wire_int(sqlite3_column_int64(st, col)));
	case SQLITE_FLOAT:
		*bytes += 24;
		return (cJSON_CreateNumber(sqlite3_column_double(st, col)));
	case SQLITE_TEXT:
		*bytes += (size_t)sqlite3_column_bytes(st, col) + 2;
		return (cJSON_CreateString((const char *)
		    sqlite3_column_text(st, col)));
	case SQLITE_BLOB:
		data = sqlite3_column_blob(st, col);
		n = (size_t)sqlite3_column_bytes(st, col);
		*bytes += n * 4 / 3 + 12;
		return (store_wire_blob(data, n));
	}
	*bytes += 4;
	return (cJSON_CreateNull());
}

/*
 * Add the cursor's next rows to rows (a JSON array of arrays): up to
 * STORE_READ_PAGE_ROWS or _BYTES, or what STORE_READ_TURN_MS of work
 * gives.  Returns 1 when there are more, 0 at the end (the cursor is then
 * finished, its snapshot let go), or a store code with *cause.
 */
static int
sqlite_cursor_page(struct store_cursor *base, cJSON *rows, char **cause)
{
	struct sqlite_cursor	*c = (struct sqlite_cursor *)base;
	struct sqlite_reader	*r = c->r;
	cJSON			*row;
	size_t			 bytes = 0;
	int64_t			 start = time_mono_ms();
	int			 rc, n = 0, i, ncols;

	if (c->done)
		return (0);
	ncols = sqlite3_column_count(c->st);
	for (;;) {
		r->overran = 0;
		r->step_start = r->yielded = time_mono_ms();
		if ((rc = sqlite3_step(c->st)) != SQLITE_ROW)
			break;
		row = cJSON_CreateArray();
		for (i = 0; i < ncols; i++)
			cJSON_AddItemToArray(row, reader_value(c->st, i,
			    &bytes));
		cJSON_AddItemToArray(rows, row);
		if (++n >= STORE_READ_PAGE_ROWS ||
		    bytes >= STORE_READ_PAGE_BYTES ||
		    time_mono_ms() - start >= STORE_READ_TURN_MS)
			return (1);
	}
	if (rc != SQLITE_DONE)
		return (reader_fail(r, rc, cause));
	c->done = 1;
	sqlite3_reset(c->st);		/* the snapshot goes now */
	return (0);
}

/* Finish a cursor, letting go of its snapshot. */
static void
sqlite_cursor_close(struct store_cursor *base)
{
	struct sqlite_cursor	*c = (struct sqlite_cursor *)base;

	c->r->ncursors--;
	sqlite3_finalize(c->st);
	free(c);
}
