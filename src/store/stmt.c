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
 * stmt.c: the statement helpers every store file uses: an SQLite result
 * code turned into a store code and a one-line cause, prepare, exec,
 * binding and reading columns, and reading a query's rows into an array.
 */

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * Turn an SQLite result code into a store code and a one-line cause; call
 * it before anything else touches the connection so the message is right.
 */
int
store_fail(struct store *s, int rc, const char *what, char **cause)
{
	s->passing = 0;
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		/* Say what was waited: SQLite does not always wait. */
		if (s->busy_waited >= 0) {
			xasprintf(cause, "database %s is busy (locked by "
			    "another process; gave up after %lld.%llds)",
			    s->path, (long long)(s->busy_waited / 1000),
			    (long long)(s->busy_waited % 1000 / 100));
		} else {
			xasprintf(cause, "database %s is busy (locked by "
			    "another process at that moment)", s->path);
		}
		s->busy_waited = -1;
		return (STORE_BUSY);
	case SQLITE_PROTOCOL:
		/* SQLite gave up retrying a WAL index kept locked. */
		xasprintf(cause, "database %s is busy (its WAL index is locked "
		    "by another process)", s->path);
		s->busy_waited = -1;
		return (STORE_BUSY);
	case SQLITE_READONLY:
		if (store_readonly_passes(s, cause))
			return (STORE_BUSY);
		return (store_fail_readonly(s, cause));
	case SQLITE_NOTADB:
		xasprintf(cause, "%s is not a sluice database (file is not a "
		    "database)", s->path);
		return (STORE_FOREIGN);
	}
	xasprintf(cause, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	return (STORE_ERR);
}

/*
 * Is the read-only error just met one that passes (then say so in cause
 * and mark it): the WAL index being recovered or set up by another
 * process, such as a plain sqlite3 reader opening or closing beside us
 * (SQLITE_READONLY_RECOVERY, _CANTINIT), or its -shm file just made by
 * another account (_CANTLOCK)?  Those are waited out like a lock
 * (store_begin); only a file we may not write is "read-only".
 */
int
store_readonly_passes(struct store *s, char **cause)
{
	const char	*what;

	switch (sqlite3_extended_errcode(s->db)) {
	case SQLITE_READONLY_RECOVERY:
		what = "its WAL is being recovered";
		break;
	case SQLITE_READONLY_CANTINIT:
		what = "its WAL index is being set up";
		break;
	case SQLITE_READONLY_CANTLOCK:
		what = "its WAL index cannot be locked for writing";
		break;
	default:
		return (0);
	}
	s->passing = 1;
	xasprintf(cause, "database %s is not ready for writing (%s by "
	    "another process)", s->path, what);
	return (1);
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
store_prepare(struct store *s, const char *sql, sqlite3_stmt **stp,
    char **cause)
{
	int	 rc;

	*stp = NULL;
	rc = sqlite3_prepare_v2(s->db, sql, -1, stp, NULL);
	if (rc != SQLITE_OK) {
		rc = store_fail(s, rc, "prepare", cause);
		sqlite3_finalize(*stp);
		*stp = NULL;
		return (rc);
	}
	return (0);
}

/* Run constant SQL (one or more statements, no values), ignoring rows. */
int
store_exec(struct store *s, const char *sql, char **cause)
{
	sqlite3_stmt	*st;
	const char	*tail = sql;
	int		 rc;

	while (*tail != '\0') {
		rc = sqlite3_prepare_v2(s->db, tail, -1, &st, &tail);
		if (rc != SQLITE_OK)
			return (store_fail(s, rc, "prepare", cause));
		if (st == NULL)		/* only whitespace or a comment */
			continue;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			/* nothing */;
		if (rc != SQLITE_DONE) {
			rc = store_fail(s, rc, "exec", cause);
			sqlite3_finalize(st);
			return (rc);
		}
		sqlite3_finalize(st);
	}
	return (0);
}

/* Step a statement that returns no rows and reset it. */
int
store_step_done(struct store *s, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	 rc;

	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		rc = store_fail(s, rc, what, cause);
		sqlite3_reset(st);
		return (rc);
	}
	sqlite3_reset(st);
	return (0);
}

/* Run a constant query that returns one integer. */
int
store_query_int(struct store *s, const char *sql, int64_t *v, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		*v = 0;
		rc = 0;
	} else
		rc = store_fail(s, rc, "query", cause);
	store_release(s, st);
	return (rc);
}

/* Bind a string, or NULL. */
int
store_bind_text(sqlite3_stmt *st, int idx, const char *value)
{
	if (value == NULL)
		return (sqlite3_bind_null(st, idx));
	return (sqlite3_bind_text(st, idx, value, -1, SQLITE_TRANSIENT));
}

/* Bind a time or optional id: 0 means none and is stored as NULL. */
int
store_bind_time(sqlite3_stmt *st, int idx, int64_t value)
{
	if (value == 0)
		return (sqlite3_bind_null(st, idx));
	return (sqlite3_bind_int64(st, idx, value));
}

/* A text column as an owned string, or NULL. */
char *
store_column_text(sqlite3_stmt *st, int col)
{
	const unsigned char	*text;

	text = sqlite3_column_text(st, col);
	if (text == NULL)
		return (NULL);
	return (xstrdup((const char *)text));
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
store_rows(struct store *s, sqlite3_stmt *st, const struct store_rows *r,
    void **listp, size_t *np, char **cause)
{
	char	*list = NULL;
	size_t	 n = 0, size = 0;
	int	 rc;

	*listp = NULL;
	*np = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
	if (rc != SQLITE_DONE) {
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
