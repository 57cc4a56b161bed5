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
 * driver-pg-defer.c: the engine's turn (STORE_DRV_WRITE_TURN) without the
 * waits it need not make.  Its fence is checked by the server and goes
 * with the turn's first statement, after the write lock; its INSERTs,
 * UPDATEs and DELETEs (kept statements already prepared, so that
 * nothing can fail them that a retry with typed parameters would cure)
 * go on the open pipeline and are not waited for: their answers are
 * read with the next statement's, or when changes() or last_insert_id()
 * is asked, or with the COMMIT, which goes in the same pipeline.  An
 * INSERT's id is asked of the server only when last_insert_id() wants it.
 *
 * PostgreSQL aborts the rest of a pipeline at its first failure, and
 * with it the transaction: a refused write, or a stale fence, fails
 * every statement after it and the COMMIT, which is never sent once a
 * failure is known and otherwise is aborted unrun; the transaction is
 * then rolled back and the failure named.  Nothing of the turn commits.
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

/*
 * The most answers left unread: a pipeline the server cannot answer
 * into (its socket full while we only send) would stall both ends.
 */
#define PG_QUEUED_MAX	64

/*
 * Whether a statement may go without waiting: a write of the engine's
 * turn, once the turn holds the write lock (a busy lock makes the
 * driver send the turn's start again, which it can only do for what it
 * keeps itself), a kept statement already prepared, and nothing failed.
 */
int
pg_deferrable(struct pg_stmt *h)
{
	struct pg_conn	*c = h->c;

	return (c->defer && h->write && h->keep && h->prepared &&
	    !c->begin_pending && c->failed == STORE_DRV_OK &&
	    (c->nqueued > 0 ||
	    PQtransactionStatus(c->pg) == PQTRANS_INTRANS));
}

/* Note a query sent whose answer is read later. */
void
pg_queue_note(struct pg_conn *c, int kind, const char *sql)
{
	if (c->nqueued == c->queued_max) {
		c->queued_max = c->queued_max == 0 ? 16 : c->queued_max * 2;
		c->queued = xreallocarray(c->queued, c->queued_max,
		    sizeof *c->queued);
	}
	c->queued[c->nqueued].kind = kind;
	c->queued[c->nqueued].sql = xstrdup(sql);
	c->nqueued++;
}

/* Forget the queries noted (their answers read, or never coming). */
void
pg_queued_drop(struct pg_conn *c)
{
	int	 i;

	for (i = 0; i < c->nqueued; i++)
		free(c->queued[i].sql);
	c->nqueued = 0;
}

/*
 * Keep the failure just noted (pg_fail) as the turn's: every statement
 * after it and the COMMIT fail with it.  A write's names the write.
 */
void
pg_failed_set(struct pg_conn *c, const char *sql)
{
	if (c->failed != STORE_DRV_OK)
		return;
	c->failed = c->code;
	free(c->failed_message);
	if (c->code == STORE_DRV_FENCED || sql == NULL)
		c->failed_message = xstrdup(c->message);
	else {
		xasprintf(&c->failed_message, "%s (a write sent ahead: "
		    "%.80s)", c->message, sql + strspn(sql, " \t\n"));
	}
}

/* The turn's failure, as the connection's last. */
enum store_drv_code
pg_failed(struct pg_conn *c)
{
	free(c->message);
	c->message = xstrdup(c->failed_message != NULL ?
	    c->failed_message : "the transaction failed");
	return (c->code = c->failed);
}

/* The turn ended (committed or rolled back): forget what it kept. */
void
pg_turn_end(struct pg_conn *c)
{
	pg_queued_drop(c);
	c->defer = 0;
	c->fence_pending = 0;
	c->failed = STORE_DRV_OK;
	free(c->failed_message);
	c->failed_message = NULL;
}

/*
 * Whether a nested transaction (level > 0) is the turn's to keep
 * without a savepoint.  In the engine's turn a savepoint protects
 * nothing: whatever fails in it fails it whole (a write sent ahead
 * could not be undone alone anyway), and every savepoint and its
 * release are two more statements for the server.  So a level notes
 * only how many writes the turn had sent when it began (nest_mark).
 */
int
pg_turn_nests(struct pg_conn *c, int level)
{
	return (c->defer && level > 0 && level < PG_NEST_MAX);
}

/* The turn is lost: every later statement and the COMMIT fail with why. */
void
pg_turn_lost(struct pg_conn *c, const char *why)
{
	free(c->message);
	c->message = xstrdup(why);
	c->code = STORE_DRV_ERROR;
	pg_failed_set(c, NULL);
}

/*
 * A nested level of the turn rolled back: nothing to undo when it
 * wrote nothing (or the turn is lost already); else, with no savepoint
 * to return to, the turn is undone whole rather than keep its writes.
 */
enum store_drv_code
pg_turn_undo(struct pg_conn *c, int level)
{
	if (c->failed != STORE_DRV_OK || c->writes == c->nest_mark[level])
		return (STORE_DRV_OK);
	pg_turn_lost(c, "a part of the engine's turn that wrote was undone,"
	    " so the turn is undone whole");
	return (c->code);
}

/* Send a write of the turn without waiting for its answer. */
enum store_drv_code
pg_defer(struct pg_stmt *h)
{
	struct pg_conn	*c = h->c;
	PGconn		*pg = c->pg;
	int		 i, sent;

	c->writes++;
	sent = PQpipelineStatus(pg) != PQ_PIPELINE_OFF ||
	    PQenterPipelineMode(pg);
	for (i = 0; sent && i < c->npending; i++) {
		sent = PQsendQueryParams(pg, c->pending[i], 0, NULL, NULL,
		    NULL, NULL, 0);
		pg_queue_note(c, PG_Q_PLAIN, c->pending[i]);
	}
	c->npending = 0;
	if (sent) {
		sent = PQsendQueryPrepared(pg, h->name, h->nparams,
		    (const char *const *)h->values, h->lengths, h->formats, 0);
		pg_queue_note(c, PG_Q_WRITE, h->sql);
	}
	/*
	 * An INSERT's id is not read back with it: the turn's callers seldom
	 * ask (a step's id is drawn ahead), and one that does asks before
	 * the next INSERT, when the server's lastval() is still its answer
	 * (pg_lastval_owed).
	 */
	if (h->insert) {
		c->lastval_known = 0;
		c->lastval_owed = 1;
	}
	/* On the wire now: the server works while the engine does. */
	if (sent)
		sent = PQflush(pg) == 0;
	if (!sent) {
		/* libpq could not send (a lost connection): say why. */
		pg_fail(c, NULL);
		pg_failed_set(c, h->sql);
		return (pg_settle(c));
	}
	if (c->nqueued >= PG_QUEUED_MAX)
		return (pg_settle(c));
	return (STORE_DRV_OK);
}

/*
 * Read the answers of the queries noted, in order (the caller has sent
 * a sync after them): a write's count, an INSERT's id, and the first
 * failure, kept as the turn's.  Returns whether one failed.
 */
int
pg_queued_read(struct pg_conn *c)
{
	struct pg_queued	*q;
	PGresult		*r;
	int			 i;

	for (i = 0; i < c->nqueued; i++) {
		q = &c->queued[i];
		while ((r = pg_get_result(c)) != NULL) {
			switch (PQresultStatus(r)) {
			case PGRES_FATAL_ERROR:
				pg_fail(c, r);
				pg_failed_set(c, q->sql);
				break;
			case PGRES_COMMAND_OK:
				if (q->kind != PG_Q_WRITE)
					break;
				c->changes = strtoll(PQcmdTuples(r), NULL, 10);
				c->total += c->changes;
				break;
			case PGRES_TUPLES_OK:
				if (q->kind != PG_Q_LASTVAL ||
				    PQntuples(r) != 1)
					break;
				c->lastval = strtoll(PQgetvalue(r, 0, 0),
				    NULL, 10);
				c->lastval_known = 1;
				c->lastval_owed = 0;
				break;
			default:	/* aborted after a failure */
				break;
			}
			PQclear(r);
		}
	}
	pg_queued_drop(c);
	return (c->failed != STORE_DRV_OK);
}

/*
 * The id of the turn's last INSERT sent ahead, while the server's
 * lastval() still says it (before anything draws from a sequence
 * again): asked on the open pipeline when answers are still on their
 * way, so it rides with their round trip; else in one of its own.
 */
enum store_drv_code
pg_lastval_owed(struct pg_conn *c)
{
	int64_t		 v;

	if (!c->lastval_owed)
		return (STORE_DRV_OK);
	c->lastval_owed = 0;
	if (c->nqueued > 0 && c->failed == STORE_DRV_OK) {
		if (PQsendQueryParams(c->pg, "SELECT sluice_lastval()", 0,
		    NULL, NULL, NULL, NULL, 0))
			pg_queue_note(c, PG_Q_LASTVAL,
			    "SELECT sluice_lastval()");
		return (pg_settle(c));
	}
	if (pg_int(c, "SELECT sluice_lastval()", &v) != STORE_DRV_OK)
		return (c->code);
	c->lastval = v;
	c->lastval_known = 1;
	return (STORE_DRV_OK);
}

/*
 * Read every answer not yet read, in one round trip, and leave the
 * pipeline: the turn's failure if one failed (or failed before).
 */
enum store_drv_code
pg_settle(struct pg_conn *c)
{
	PGresult	*r;

	if (c->nqueued > 0) {
		if (!PQpipelineSync(c->pg)) {
			pg_fail(c, NULL);
			pg_failed_set(c, NULL);
		} else
			pg_queued_read(c);
		pg_queued_drop(c);
		while ((r = pg_get_result(c)) != NULL &&
		    PQresultStatus(r) != PGRES_PIPELINE_SYNC)
			PQclear(r);
		PQclear(r);
	}
	if (PQpipelineStatus(c->pg) != PQ_PIPELINE_OFF)
		PQexitPipelineMode(c->pg);
	if (c->failed != STORE_DRV_OK)
		return (pg_failed(c));
	return (STORE_DRV_OK);
}

/*
 * The COMMIT of a turn with writes on the pipeline: the RELEASEs and
 * what was kept for the COMMIT (each NOTIFY a query of its own, as a
 * pipeline wants), then COMMIT, after them in the same round trip.  If
 * any of them failed, the COMMIT was aborted unrun: roll back, and say
 * which failed.
 */
enum store_drv_code
pg_commit_piped(struct pg_conn *c)
{
	PGconn			*pg = c->pg;
	enum store_drv_code	 rc;
	char			*all, *next, *one;
	int			 i, sent = 1;

	for (i = 0; sent && i < c->npending; i++) {
		sent = PQsendQueryParams(pg, c->pending[i], 0, NULL, NULL,
		    NULL, NULL, 0);
		pg_queue_note(c, PG_Q_PLAIN, c->pending[i]);
	}
	c->npending = 0;
	all = next = c->at_commit;
	c->at_commit = NULL;
	while (sent && (one = strsep(&next, ";")) != NULL) {
		one += strspn(one, " ");
		if (*one == '\0')
			continue;
		sent = PQsendQueryParams(pg, one, 0, NULL, NULL, NULL, NULL,
		    0);
		pg_queue_note(c, PG_Q_PLAIN, one);
	}
	free(all);
	if (sent)
		sent = PQsendQueryParams(pg, "COMMIT", 0, NULL, NULL, NULL,
		    NULL, 0);
	pg_queue_note(c, PG_Q_PLAIN, "COMMIT");
	if (!sent) {
		pg_fail(c, NULL);
		pg_failed_set(c, NULL);
	}
	if ((rc = pg_settle(c)) != STORE_DRV_OK &&
	    PQtransactionStatus(pg) != PQTRANS_IDLE)
		PQclear(pg_exec_bounded(c, "ROLLBACK"));
	pg_turn_end(c);
	return (rc);
}

/* Ids in the order they were drawn (they are distinct). */
static int
pg_id_cmp(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y ? -1 : x > y);
}

/*
 * The id of the table's next row in the engine's turn (driver.h): from
 * the ids drawn ahead, PG_IDS_AHEAD at a time from its sequence when
 * none is left.  A draw is durable before any row with its ids commits:
 * that commit flushes the log after it.  The table's name is the
 * store's constant, never input.
 */
enum store_drv_code
pg_turn_id(struct store_conn *conn, const char *table, int64_t *id)
{
	struct pg_conn		*c = (struct pg_conn *)conn;
	enum store_drv_code	 rc;
	PGresult		*res;
	char			*sql;
	int			 i;

	*id = 0;
	/* Not in a turn, or its first statement: the INSERT draws one. */
	if (!c->defer || c->begin_pending)
		return (STORE_DRV_OK);
	if (c->ids_table == NULL || strcmp(c->ids_table, table) != 0 ||
	    c->ids_used == c->nids) {
		c->nids = c->ids_used = 0;
		c->ids_table = table;
		/* The draw moves lastval(): an INSERT's id is read first. */
		if ((rc = pg_lastval_owed(c)) != STORE_DRV_OK ||
		    (rc = pg_flush(c)) != STORE_DRV_OK)
			return (rc);
		xasprintf(&sql, "SELECT nextval(pg_get_serial_sequence('%s',"
		    " 'id')) FROM generate_series(1, %d)", table,
		    PG_IDS_AHEAD);
		res = pg_exec_bounded(c, sql);
		free(sql);
		if (PQresultStatus(res) != PGRES_TUPLES_OK ||
		    PQntuples(res) != PG_IDS_AHEAD) {
			pg_fail(c, res);
			PQclear(res);
			return (c->code);
		}
		for (i = 0; i < PG_IDS_AHEAD; i++)
			c->ids[i] = strtoll(PQgetvalue(res, i, 0), NULL, 10);
		PQclear(res);
		qsort(c->ids, PG_IDS_AHEAD, sizeof *c->ids, pg_id_cmp);
		c->nids = PG_IDS_AHEAD;
	}
	*id = c->ids[c->ids_used++];
	return (STORE_DRV_OK);
}
