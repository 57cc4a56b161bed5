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
 * driver-pg-pipe.c: how the PostgreSQL driver's statements travel.  A
 * round trip is what a commit costs beyond the server's own work, so a
 * statement goes in one pipeline with what may ride along: a write
 * transaction's BEGIN and lock, pending SAVEPOINTs and RELEASEs, the
 * Parse of a kept statement at its first run, and the read of an
 * INSERT's id.  The results come back in order and the first failure
 * is the statement's.
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

static const char pg_lock_sql[] =
	"SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK ")";

/*
 * Run SQL without parameters, its rows ignored, as it is: after the
 * answers of the turn's writes still on their way (driver-pg-defer.c),
 * and not at all once one failed.
 */
enum store_drv_code
pg_send(struct pg_conn *c, const char *sql)
{
	PGresult	*res;
	int		 ok;

	if ((c->nqueued > 0 || c->failed != STORE_DRV_OK) &&
	    pg_settle(c) != STORE_DRV_OK)
		return (c->code);
	res = pg_exec_bounded(c, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK ||
	    PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		pg_fail(c, res);
	PQclear(res);
	return (ok ? STORE_DRV_OK : c->code);
}

/* Run SQL without parameters, after what waits for the next statement. */
enum store_drv_code
pg_run(struct pg_conn *c, const char *sql)
{
	enum store_drv_code	 rc;

	if ((rc = pg_flush(c)) != STORE_DRV_OK)
		return (rc);
	return (pg_send(c, sql));
}

/*
 * Send what waits for the next statement, when that statement is not a
 * prepared one (whose pipeline carries it): a write transaction begun
 * here, waiting for the write lock in slices of lock_timeout and asking
 * the store's busy handler between them, and its fence, then the nested
 * transactions' SAVEPOINTs and RELEASEs.
 */
enum store_drv_code
pg_flush(struct pg_conn *c)
{
	enum store_drv_code	 rc = STORE_DRV_OK;
	char			*sql, *all;
	int			 count, i;

	if ((c->nqueued > 0 || c->failed != STORE_DRV_OK) &&
	    (rc = pg_settle(c)) != STORE_DRV_OK)
		return (rc);
	if (c->begin_pending) {
		c->begin_pending = 0;
		for (count = 0;; count++) {
			rc = pg_send(c, "BEGIN; SELECT pg_advisory_xact_lock("
			    PG_WRITE_LOCK ")");
			if (rc == STORE_DRV_OK)
				break;
			if (PQtransactionStatus(c->pg) != PQTRANS_IDLE)
				PQclear(pg_exec_bounded(c, "ROLLBACK"));
			if (rc != STORE_DRV_BUSY || c->busy_cb == NULL ||
			    !c->busy_cb(c->busy_arg, count)) {
				c->npending = 0;
				c->fence_pending = 0;
				return (rc);
			}
		}
		if (c->fence_pending &&
		    (rc = pg_fence_run(c)) != STORE_DRV_OK) {
			c->npending = 0;
			pg_failed_set(c, NULL);
			return (rc);
		}
	}
	if (c->npending == 0)
		return (STORE_DRV_OK);
	sql = xstrdup(c->pending[0]);
	for (i = 1; i < c->npending; i++) {
		xasprintf(&all, "%s; %s", sql, c->pending[i]);
		free(sql);
		sql = all;
	}
	c->npending = 0;
	rc = pg_send(c, sql);
	free(sql);
	return (rc);
}

/*
 * Keep a statement (a constant) for the next statement's round trip; a
 * full list is sent first.  A RELEASE of a SAVEPOINT not yet sent leaves
 * neither: nothing ran between them.
 */
enum store_drv_code
pg_pending(struct pg_conn *c, const char *sql)
{
	enum store_drv_code	 rc;

	if (strncmp(sql, "RELEASE ", 8) == 0 && c->npending > 0 &&
	    strncmp(c->pending[c->npending - 1], "SAVEPOINT ", 10) == 0 &&
	    strcmp(c->pending[c->npending - 1] + 10, sql + 8) == 0) {
		c->npending--;
		return (STORE_DRV_OK);
	}
	if (c->npending == (int)(sizeof c->pending / sizeof c->pending[0]) &&
	    (rc = pg_flush(c)) != STORE_DRV_OK)
		return (rc);
	c->pending[c->npending++] = sql;
	return (STORE_DRV_OK);
}

/*
 * Collect a pipeline's results: p->n queries, then the sync.  Returned:
 * the first failure (its place in p->failed), else the result of query
 * p->want.  On the way: whether the Parse succeeded (*prepared), and the
 * fence's (p->fparsed), and the INSERT's id (c->lastval).
 */
PGresult *
pg_collect(struct pg_conn *c, struct pg_pipe *p, int *prepared)
{
	PGresult	*r, *keep = NULL, *fail = NULL;
	int		 i;

	p->failed = -1;
	p->fparsed = 0;
	for (i = 0; i < p->n; i++) {
		while ((r = pg_get_result(c)) != NULL) {
			if (i == p->prep &&
			    PQresultStatus(r) == PGRES_COMMAND_OK)
				*prepared = 1;
			if (i == p->fparse &&
			    PQresultStatus(r) == PGRES_COMMAND_OK)
				p->fparsed = 1;
			if (i == p->last &&
			    PQresultStatus(r) == PGRES_TUPLES_OK &&
			    PQntuples(r) == 1) {
				c->lastval = strtoll(PQgetvalue(r, 0, 0), NULL,
				    10);
				c->lastval_known = 1;
				c->lastval_owed = 0;
			}
			if (PQresultStatus(r) == PGRES_FATAL_ERROR &&
			    fail == NULL) {
				fail = r;
				p->failed = i;
			} else if (i == p->want && keep == NULL)
				keep = r;
			else
				PQclear(r);
		}
	}
	while ((r = pg_get_result(c)) != NULL &&
	    PQresultStatus(r) != PGRES_PIPELINE_SYNC)
		PQclear(r);
	PQclear(r);
	if (fail != NULL) {
		PQclear(keep);
		return (fail);
	}
	return (keep);
}

/* Queue a query without parameters on the pipeline (0: not sent). */
int
pg_queue(PGconn *pg, const char *sql, int *n)
{
	(*n)++;
	return (PQsendQueryParams(pg, sql, 0, NULL, NULL, NULL, NULL, 0));
}

/*
 * Queue a bound statement on the pipeline: its Parse first when it is
 * kept and not yet prepared (p->prep), then the statement (p->want).
 * types are its parameters' (pg_blob_types).
 */
int
pg_queue_bound(struct pg_stmt *h, const Oid *types, struct pg_pipe *p)
{
	PGconn	*pg = h->c->pg;

	if (h->keep && !h->prepared) {
		p->prep = p->n++;
		if (!PQsendPrepare(pg, h->name, h->sql, h->nparams, types))
			return (0);
	}
	p->want = p->n++;
	if (h->keep)
		return (PQsendQueryPrepared(pg, h->name, h->nparams,
		    (const char *const *)h->values, h->lengths, h->formats, 0));
	return (PQsendQueryParams(pg, h->sql, h->nparams, types,
	    (const char *const *)h->values, h->lengths, h->formats, 0));
}

/* Parameters' types: bytea for blobs, the rest the server's to say. */
Oid *
pg_blob_types(struct pg_stmt *h)
{
	Oid	*types;
	int	 i;

	if (h->nparams == 0)
		return (NULL);
	types = xcalloc(h->nparams, sizeof *types);
	for (i = 0; i < h->nparams; i++)
		types[i] = h->formats[i] == 1 ? PG_BYTEA : 0;
	return (types);
}

/*
 * Run the statement in one round trip, as a pipeline: prepared first
 * when kept and not yet, and inside a transaction between a savepoint
 * and its release, so that a statement that fails undoes itself alone
 * and the transaction goes on, as on SQLite (PostgreSQL would abort it
 * whole), except in the engine's turn, which fails whole.  A write
 * transaction begun here and not yet on the server begins first, in
 * the same pipeline (its lock waited for as pg_flush does: when it is
 * busy nothing else ran, and the whole is sent again), with its fence;
 * an INSERT's id follows it.  The turn's writes sent before it and not
 * yet answered are answered first (driver-pg-defer.c): when one failed,
 * so does this statement.  types are the parameters' (NULL: bytea for
 * blobs, the rest left to the server).
 */
PGresult *
pg_execute(struct pg_stmt *h, const Oid *types)
{
	struct pg_conn	*c = h->c;
	PGconn		*pg = c->pg;
	PGresult	*res;
	struct pg_pipe	 p;
	Oid		*own = NULL;
	int		 i, guard, begin, queued, sent, count = 0;

	if (c->failed != STORE_DRV_OK)	/* the turn is lost: pg_step says */
		return (PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR));
	if (types == NULL)
		types = own = pg_blob_types(h);
again:
	memset(&p, 0, sizeof p);
	p.prep = p.lock = p.last = p.fence = p.fparse = -1;
	begin = c->begin_pending;
	queued = c->nqueued > 0;	/* writes of the turn before it */
	/*
	 * In the engine's turn a statement prepared already is not
	 * guarded: its failure fails the turn whole, as a write sent
	 * ahead's does (driver-pg-defer.c).  One whose Parse goes with it
	 * is, so that a retry with typed parameters may follow.
	 */
	guard = (begin || queued || c->npending > 0 ||
	    PQtransactionStatus(pg) == PQTRANS_INTRANS) &&
	    (!c->defer || !h->keep || !h->prepared);
	if (!h->reads)
		c->writes++;
	sent = PQpipelineStatus(pg) != PQ_PIPELINE_OFF ||
	    PQenterPipelineMode(pg);
	if (sent && begin) {
		sent = pg_queue(pg, "BEGIN", &p.n);
		p.lock = p.n;
		if (sent)
			sent = pg_queue(pg, pg_lock_sql, &p.n);
		if (sent && c->fence_pending)
			sent = pg_fence_queue(c, &p);
	}
	for (i = 0; sent && i < c->npending; i++)
		sent = pg_queue(pg, c->pending[i], &p.n);
	if (sent && guard)
		sent = pg_queue(pg, "SAVEPOINT sluice_stmt", &p.n);
	if (sent)
		sent = pg_queue_bound(h, types, &p);
	if (sent && h->insert) {
		p.last = p.n;
		sent = pg_queue(pg, "SELECT sluice_lastval()", &p.n);
	}
	if (sent && guard)
		sent = pg_queue(pg, "RELEASE sluice_stmt", &p.n);
	if (sent)
		sent = PQpipelineSync(pg);
	if (!sent) {
		/* libpq could not send (a lost connection): say why. */
		if (queued) {
			pg_fail(c, NULL);
			pg_failed_set(c, NULL);
			pg_queued_drop(c);
		}
		PQexitPipelineMode(pg);
		free(own);
		c->begin_pending = 0;
		c->npending = 0;
		return (PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR));
	}
	/* The answers of the writes before it come first. */
	if (queued)
		pg_queued_read(c);
	res = pg_collect(c, &p, &h->prepared);
	PQexitPipelineMode(pg);
	pg_fence_parsed(c, &p);
	if (c->failed != STORE_DRV_OK) {
		/* One failed: the rest was aborted, this statement too. */
		PQclear(res);
		free(own);
		c->npending = 0;
		return (PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR));
	}
	if (begin && p.failed >= 0 && p.failed <= p.lock) {
		/* The transaction could not begin: nothing of it ran. */
		pg_fail(c, res);
		if (PQtransactionStatus(pg) != PQTRANS_IDLE)
			PQclear(pg_exec_bounded(c, "ROLLBACK"));
		if (c->code == STORE_DRV_BUSY && c->busy_cb != NULL &&
		    c->busy_cb(c->busy_arg, count++)) {
			PQclear(res);
			goto again;
		}
		c->begin_pending = 0;
		c->npending = 0;
		c->fence_pending = 0;
		free(own);
		return (res);
	}
	c->begin_pending = 0;
	c->npending = 0;
	free(own);
	if (begin)
		c->fence_pending = 0;
	if (pg_fence_failed(&p)) {
		/* Stale: the turn is lost (pg_step says so). */
		pg_fail(c, res);
		pg_failed_set(c, NULL);
		return (res);
	}
	if (guard && PQresultStatus(res) == PGRES_FATAL_ERROR)
		PQclear(pg_exec_bounded(c, "ROLLBACK TO sluice_stmt; RELEASE sluice_stmt"));
	else if (PQresultStatus(res) == PGRES_FATAL_ERROR &&
	    PQtransactionStatus(pg) == PQTRANS_INERROR) {
		/* Unguarded in the turn: the turn is lost (pg_step says). */
		pg_fail(c, res);
		pg_failed_set(c, NULL);
	}
	return (res);
}

/*
 * A parameter PostgreSQL cannot type from its place (?1 IS NULL alone:
 * indeterminate or ambiguous) is typed from its value instead: integers
 * as bigint, the rest as text.
 */
PGresult *
pg_execute_typed(struct pg_stmt *h)
{
	PGresult	*res;
	Oid		*types;
	char		*end;
	int		 i;

	types = xcalloc(h->nparams, sizeof *types);
	for (i = 0; i < h->nparams; i++) {
		if (h->formats[i] == 1)
			types[i] = PG_BYTEA;
		else if (h->values[i] != NULL && *h->values[i] != '\0' &&
		    (strtoll(h->values[i], &end, 10), *end == '\0'))
			types[i] = PG_INT8;
		else
			types[i] = PG_TEXT;
	}
	res = pg_execute(h, types);
	free(types);
	return (res);
}
