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
 * driver-pg-stmt.c: the PostgreSQL driver's statement handles: prepared
 * here (translated now, sent at the first step), their parameters bound
 * as text or bytea, their rows read from the result of their one run.
 */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"
#include "store/driver-pg.h"
#include "store/driver-pg-int.h"

/* Whether SQL (translated) is an INSERT, whose id may be asked for. */
static int
pg_is_insert(const char *sql)
{
	sql += strspn(sql, " \t\n");
	return (strncasecmp(sql, "INSERT", 6) == 0);
}

/*
 * Whether SQL (translated) is a write that returns no rows, which the
 * engine's turn need not wait for (driver-pg-defer.c).
 */
static int
pg_is_write(const char *sql)
{
	sql += strspn(sql, " \t\n");
	return ((strncasecmp(sql, "INSERT", 6) == 0 ||
	    strncasecmp(sql, "UPDATE", 6) == 0 ||
	    strncasecmp(sql, "DELETE", 6) == 0) &&
	    strcasestr(sql, "RETURNING") == NULL);
}

/* Prepare: translate now, send at the first step. */
enum store_drv_code
pg_prepare(struct store_conn *conn, const char *sql, int keep,
    struct store_stmt **stp)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	struct pg_stmt	*h;

	h = xcalloc(1, sizeof *h);
	h->base.drv = &store_driver_pg;
	h->c = c;
	h->sql = store_pg_sql(sql, &h->nparams);
	h->keep = keep;
	h->insert = pg_is_insert(h->sql);
	h->write = pg_is_write(h->sql);
	h->reads = strncasecmp(h->sql + strspn(h->sql, " \t\n"), "SELECT",
	    6) == 0;
	if (keep)
		snprintf(h->name, sizeof h->name, "sluice_%u", ++c->nstmts);
	if (h->nparams > 0) {
		h->values = xcalloc(h->nparams, sizeof *h->values);
		h->lengths = xcalloc(h->nparams, sizeof *h->lengths);
		h->formats = xcalloc(h->nparams, sizeof *h->formats);
	}
	*stp = &h->base;
	return (STORE_DRV_OK);
}

/* Forget the rows of the last run. */
void
pg_rows_clear(struct pg_stmt *h)
{
	int	 i;

	if (h->bytes != NULL) {
		for (i = 0; i < PQnfields(h->res); i++)
			free(h->bytes[i]);
		free(h->bytes);
		free(h->nbytes);
		h->bytes = NULL;
		h->nbytes = NULL;
	}
	PQclear(h->res);
	h->res = NULL;
}

void
pg_reset(struct store_stmt *st, int clear)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	int		 i;

	pg_rows_clear(h);
	if (!clear)
		return;
	for (i = 0; i < h->nparams; i++) {
		free(h->values[i]);
		h->values[i] = NULL;
		h->lengths[i] = h->formats[i] = 0;
	}
}

void
pg_finalize(struct store_stmt *st)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	char		*sql;

	pg_reset(st, 1);
	/* The server's copy goes with the statement, as SQLite's does. */
	if (h->prepared && PQstatus(h->c->pg) == CONNECTION_OK) {
		if (h->c->nqueued > 0)	/* answers on their way first */
			(void)pg_settle(h->c);
		xasprintf(&sql, "DEALLOCATE %s", h->name);
		PQclear(pg_exec_bounded(h->c, sql));
		free(sql);
	}
	free(h->values);
	free(h->lengths);
	free(h->formats);
	free(h->sql);
	free(h);
}

int
pg_parameters(struct store_stmt *st)
{
	return (((struct pg_stmt *)st)->nparams);
}

/* The next row: the statement runs at the first step after a reset. */
enum store_drv_code
pg_step(struct store_stmt *st)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	struct pg_conn	*c = h->c;
	PGresult	*res;
	const char	*state, *cmd;

	if (h->res == NULL && pg_deferrable(h)) {
		/* Sent, not waited for: answered later, or fails the turn. */
		if (pg_defer(h) != STORE_DRV_OK)
			return (c->code);
		h->res = PQmakeEmptyPGresult(c->pg, PGRES_COMMAND_OK);
		h->nrows = 0;
		h->row = -1;
	}
	if (h->res == NULL) {
		res = pg_execute(h, NULL);
		if (c->failed != STORE_DRV_OK) {
			/* A write sent ahead, or the fence, failed. */
			PQclear(res);
			return (pg_failed(c));
		}
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (state != NULL && (strcmp(state, "42P18") == 0 ||
		    strcmp(state, "42P08") == 0)) {
			PQclear(res);
			res = pg_execute_typed(h);
		}
		if (PQresultStatus(res) != PGRES_TUPLES_OK &&
		    PQresultStatus(res) != PGRES_COMMAND_OK) {
			pg_fail(c, res);
			log_debug("%s: %s: %s", __func__, c->message, h->sql);
			PQclear(res);
			return (c->code);
		}
		cmd = PQcmdStatus(res);
		if (strncmp(cmd, "INSERT", 6) == 0 ||
		    strncmp(cmd, "UPDATE", 6) == 0 ||
		    strncmp(cmd, "DELETE", 6) == 0) {
			c->changes = strtoll(PQcmdTuples(res), NULL, 10);
			c->total += c->changes;
		}
		/* An INSERT that did not read its id back: ask, if wanted. */
		if (strncmp(cmd, "INSERT", 6) == 0 && !h->insert)
			c->lastval_known = c->lastval_owed = 0;
		h->res = res;
		h->nrows = PQntuples(res);
		h->row = -1;
	}
	if (++h->row < h->nrows)
		return (STORE_DRV_ROW);
	h->row = h->nrows;
	return (STORE_DRV_DONE);
}

/* Keep a value for parameter idx (from 1). */
static enum store_drv_code
pg_bind(struct pg_stmt *h, int idx, char *value, int len, int format)
{
	if (idx < 1 || idx > h->nparams) {
		free(value);
		free(h->c->message);
		xasprintf(&h->c->message, "no parameter %d", idx);
		h->c->code = STORE_DRV_ERROR;
		return (STORE_DRV_ERROR);
	}
	free(h->values[idx - 1]);
	h->values[idx - 1] = value;
	h->lengths[idx - 1] = len;
	h->formats[idx - 1] = format;
	return (STORE_DRV_OK);
}

enum store_drv_code
pg_bind_int64(struct store_stmt *st, int idx, int64_t v)
{
	char	*text;

	xasprintf(&text, "%lld", (long long)v);
	return (pg_bind((struct pg_stmt *)st, idx, text, 0, 0));
}

enum store_drv_code
pg_bind_text(struct store_stmt *st, int idx, const char *v, size_t len)
{
	char	*text;

	text = xmalloc(len + 1);
	memcpy(text, v, len);
	text[len] = '\0';
	return (pg_bind((struct pg_stmt *)st, idx, text, 0, 0));
}

enum store_drv_code
pg_bind_blob(struct store_stmt *st, int idx, const void *v, size_t len)
{
	char	*bytes;

	bytes = xmalloc(len + 1);
	if (len > 0)
		memcpy(bytes, v, len);
	return (pg_bind((struct pg_stmt *)st, idx, bytes, (int)len, 1));
}

enum store_drv_code
pg_bind_null(struct store_stmt *st, int idx)
{
	return (pg_bind((struct pg_stmt *)st, idx, NULL, 0, 0));
}

/* Whether the current row has a column col. */
static int
pg_has(struct pg_stmt *h, int col)
{
	return (h->res != NULL && h->row >= 0 && h->row < h->nrows &&
	    col >= 0 && col < PQnfields(h->res));
}

int
pg_column_null(struct store_stmt *st, int col)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;

	return (!pg_has(h, col) || PQgetisnull(h->res, h->row, col));
}

/* An integer column; a boolean as 1 or 0, as SQLite gives a test. */
int64_t
pg_column_int64(struct store_stmt *st, int col)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	const char	*v;

	if (pg_column_null(st, col))
		return (0);
	v = PQgetvalue(h->res, h->row, col);
	if (strcmp(v, "t") == 0)
		return (1);
	if (strcmp(v, "f") == 0)
		return (0);
	return (strtoll(v, NULL, 10));
}

/*
 * A bytea column's bytes, decoded once per row into a buffer of ours,
 * with a NUL after them so they read as text too (as SQLite's blobs).
 */
static const unsigned char *
pg_bytes(struct pg_stmt *h, int col, size_t *len)
{
	unsigned char	*raw;
	size_t		 n;

	if (h->bytes == NULL) {
		h->bytes = xcalloc(PQnfields(h->res), sizeof *h->bytes);
		h->nbytes = xcalloc(PQnfields(h->res), sizeof *h->nbytes);
	}
	raw = PQunescapeBytea((const unsigned char *)PQgetvalue(h->res,
	    h->row, col), &n);
	if (raw == NULL)
		fatalx("%s: out of memory", __func__);
	free(h->bytes[col]);
	h->bytes[col] = xmalloc(n + 1);
	memcpy(h->bytes[col], raw, n);
	h->bytes[col][n] = '\0';
	h->nbytes[col] = n;
	PQfreemem(raw);
	*len = n;
	return (h->bytes[col]);
}

const char *
pg_column_text(struct store_stmt *st, int col)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	size_t		 len;

	if (pg_column_null(st, col))
		return (NULL);
	if (PQftype(h->res, col) != PG_BYTEA)
		return (PQgetvalue(h->res, h->row, col));
	return ((const char *)pg_bytes(h, col, &len));
}

const void *
pg_column_blob(struct store_stmt *st, int col, size_t *len)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;

	*len = 0;
	if (pg_column_null(st, col))
		return (NULL);
	if (PQftype(h->res, col) != PG_BYTEA) {
		*len = (size_t)PQgetlength(h->res, h->row, col);
		return (PQgetvalue(h->res, h->row, col));
	}
	pg_bytes(h, col, len);
	return (*len > 0 ? h->bytes[col] : NULL);
}
