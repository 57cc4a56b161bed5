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
 * stmt.c: the statement helpers every store file uses: a driver's result
 * code turned into a store code and a one-line cause, prepare, exec,
 * binding and reading columns, and reading a query's rows into an array.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * Turn a driver's code into a store code and a one-line cause; call it
 * before anything else touches the connection so the message is right.
 */
int
store_fail(struct store *s, int rc, const char *what, char **cause)
{
	s->passing = 0;
	switch (rc) {
	case STORE_DRV_BUSY:
		/* Say what was waited: the driver does not always wait. */
		if (s->busy_waited >= 0) {
			xasprintf(cause, "database %s is busy (locked by "
			    "another process; gave up after %lld.%llds)",
			    s->path, (long long)(s->busy_waited / 1000),
			    (long long)(s->busy_waited % 1000 / 100));
		} else {
			xasprintf(cause, "database %s is busy (%s)", s->path,
			    store_errmsg(s));
		}
		s->busy_waited = -1;
		return (STORE_BUSY);
	case STORE_DRV_NOTREADY:
		/*
		 * Another process is setting up or recovering what we need
		 * to write (SQLite: its WAL index): waited out like a lock
		 * (store_begin); only a file we may not write is "read-only".
		 */
		s->passing = 1;
		xasprintf(cause, "database %s is not ready for writing (%s by "
		    "another process)", s->path, store_errmsg(s));
		return (STORE_BUSY);
	case STORE_DRV_READONLY:
		return (store_fail_readonly(s, cause));
	case STORE_DRV_FENCED:
		/* The server's epoch fence (lease.c): superseded. */
		xasprintf(cause, "%s: %s: %s", s->path, what, store_errmsg(s));
		return (STORE_CONFLICT);
	case STORE_DRV_FOREIGN:
		xasprintf(cause, "%s is not a sluice database (file is not a "
		    "database)", s->path);
		return (STORE_FOREIGN);
	}
	xasprintf(cause, "%s: %s: %s", s->path, what, store_errmsg(s));
	return (STORE_ERR);
}

/* The code of the connection's last failure, for a failed bind. */
int
store_errcode(struct store *s)
{
	return (s->drv->error(s->conn));
}

/* The message of the connection's last failure. */
const char *
store_errmsg(struct store *s)
{
	return (s->drv->message(s->conn));
}

/* Refuse a write: the database is read-only for us. */
int
store_fail_readonly(struct store *s, char **cause)
{
	s->readonly = 1;
	xasprintf(cause, "database %s is read-only", s->path);
	return (STORE_READONLY);
}

/* Prepare one statement. */
int
store_prepare(struct store *s, const char *sql, struct store_stmt **stp,
    char **cause)
{
	int	 rc;

	if ((rc = s->drv->prepare(s->conn, sql, 0, stp)) != STORE_DRV_OK)
		return (store_fail(s, rc, "prepare", cause));
	return (0);
}

/* Run constant SQL (one or more statements, no values), ignoring rows. */
int
store_exec(struct store *s, const char *sql, char **cause)
{
	int	 rc;

	if ((rc = s->drv->exec(s->conn, sql)) != STORE_DRV_OK)
		return (store_fail(s, rc, "exec", cause));
	return (0);
}

/* Step a statement that returns no rows and reset it. */
int
store_step_done(struct store *s, struct store_stmt *st, const char *what,
    char **cause)
{
	int	 rc;

	rc = store_stmt_step(st);
	if (rc != STORE_DRV_DONE && rc != STORE_DRV_ROW) {
		rc = store_fail(s, rc, what, cause);
		store_stmt_reset(st);
		return (rc);
	}
	store_stmt_reset(st);
	return (0);
}

/* Run a constant query that returns one integer. */
int
store_query_int(struct store *s, const char *sql, int64_t *v, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*v = store_col_int64(st, 0);
		rc = 0;
	} else if (rc == STORE_DRV_DONE) {
		*v = 0;
		rc = 0;
	} else
		rc = store_fail(s, rc, "query", cause);
	store_release(s, st);
	return (rc);
}

/*
 * A read transaction: the reads until store_read_end see one state of
 * the database.
 */
int
store_read_begin(struct store *s, char **cause)
{
	int	 rc;

	rc = s->drv->begin(s->conn, 0, STORE_DRV_READ);
	if (rc != STORE_DRV_OK)
		return (store_fail(s, rc, "begin", cause));
	return (0);
}

/*
 * What the database is (application id, schema version, objects in it),
 * as its driver says; a driver without identify reads through one that
 * checked it: ours, and current.
 */
int
store_drv_identify(struct store *s, int64_t *appid, int64_t *version,
    int64_t *objects, char **cause)
{
	int	 rc;

	if (s->drv->identify == NULL) {
		*appid = STORE_APPLICATION_ID;
		*version = STORE_SCHEMA_VERSION;
		*objects = 1;
		return (0);
	}
	rc = s->drv->identify(s->conn, appid, version, objects);
	if (rc != STORE_DRV_OK)
		return (store_fail(s, rc, "identify", cause));
	return (0);
}

/* The database's schema version, as its driver keeps it. */
int
store_schema_version(struct store *s, int64_t *v, char **cause)
{
	int64_t	 appid, objects;

	return (store_drv_identify(s, &appid, v, &objects, cause));
}

/* End a read transaction, if one is open. */
void
store_read_end(struct store *s)
{
	if (s->drv->in_transaction(s->conn))
		s->drv->commit(s->conn, 0);
}

/* Bind a string, or NULL. */
int
store_bind_text(struct store_stmt *st, int idx, const char *value)
{
	if (value == NULL)
		return (store_bind_null(st, idx));
	return (st->drv->bind_text(st, idx, value, strlen(value)));
}

/* Bind a time or optional id: 0 means none and is stored as NULL. */
int
store_bind_time(struct store_stmt *st, int idx, int64_t value)
{
	if (value == 0)
		return (store_bind_null(st, idx));
	return (store_bind_int64(st, idx, value));
}

/* A text column as an owned string, or NULL. */
char *
store_column_text(struct store_stmt *st, int col)
{
	const char	*text;

	text = store_col_text(st, col);
	if (text == NULL)
		return (NULL);
	return (xstrdup(text));
}

/* End a write: commit when rc is 0, else roll back; returns the outcome. */
int
store_finish(struct store *s, int rc, char **cause)
{
	if (rc != 0) {
		store_rollback(s);
		return (rc);
	}
	return (store_commit(s, cause));
}

/*
 * Read every row of a prepared, bound statement into a new array whose
 * elements r->fill sets from each row; st is finalized.  On an error what
 * was read is freed with r->free and cause says why.
 */
int
store_rows(struct store *s, struct store_stmt *st, const struct store_rows *r,
    void **listp, size_t *np, char **cause)
{
	char	*list = NULL;
	size_t	 n = 0, size = 0;
	int	 rc;

	*listp = NULL;
	*np = 0;
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		if (n == size) {
			size = size == 0 ? 16 : size * 2;
			list = xreallocarray(list, size, r->size);
		}
		memset(list + n * r->size, 0, r->size);
		if (r->fill(st, list + n * r->size, cause) != 0) {
			/* A row sluice cannot read: say which, use none. */
			r->free(list, n + 1);
			store_release(s, st);
			return (STORE_ERR);
		}
		n++;
	}
	if (rc != STORE_DRV_DONE) {
		rc = store_fail(s, rc, r->what, cause);
		r->free(list, n);
	} else {
		rc = 0;
		*listp = list;
		*np = n;
	}
	store_release(s, st);
	return (rc);
}
