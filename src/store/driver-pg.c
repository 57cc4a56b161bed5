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
 * driver-pg.c: the PostgreSQL driver (cluster mode, SPEC §14), the one
 * file with libpq's connection and statements.  A database is named
 * "postgresql:CONNINFO" ("postgresql:service=NAME", hosts and TLS in
 * pg_service.conf) or a postgresql:// URI.
 *
 * The store's SQL is SQLite's, translated once per statement
 * (driver-pg-sql.c).  A kept statement is prepared on the server once per
 * connection, at its first run, when its parameters' kinds are known (a
 * blob is sent as bytea, the rest as text PostgreSQL types by their
 * place); a statement used once goes in one round trip, unnamed.  A
 * statement runs whole at its first step and its rows are read from the
 * result.
 *
 * Write transactions take one advisory lock (the application id), so
 * writers are one at a time as on SQLite and a write transaction reads
 * what every earlier one committed; a lock waited for longer than
 * lock_timeout asks the store's busy handler, as SQLite's does.  Read
 * transactions are REPEATABLE READ: one snapshot, as SQLite's.
 *
 * Round trips are what a commit costs beyond the server's own work (the
 * leader's approve -> next start, issue 23), so none is spent that a
 * pipeline can carry: a write transaction's BEGIN and lock, and a nested
 * transaction's SAVEPOINT and RELEASE, go with the next statement; an
 * INSERT's id comes back with the INSERT (in the engine's turn, only
 * when asked); a transaction's NOTIFYs go with its COMMIT.  A nested
 * transaction in which nothing ran costs nothing, and in the engine's
 * turn none takes a savepoint (driver-pg-defer.c).
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

/* How long one wait for a lock lasts before asking the store again. */
#define PG_LOCK_SLICE	"100ms"


/* Notices (a table already there, say) go to the log, not stderr. */
static void
pg_notice(void *arg, const char *message)
{
	(void)arg;
	log_debug("postgresql: %s", message);
}

/*
 * Note a failure: its code from the SQLSTATE, its message from the
 * server's first line (or libpq's, for a lost connection).
 */
void
pg_fail(struct pg_conn *c, const PGresult *res)
{
	const char	*state = NULL, *msg = NULL, *fence;
	char		*nl;

	if (c->unreachable != NULL) {
		/* Given up (driver-pg-wait.c): whatever libpq says next. */
		free(c->message);
		c->message = xstrdup(c->unreachable);
		c->code = STORE_DRV_ERROR;
		return;
	}
	if (res != NULL) {
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	}
	if (msg == NULL)
		msg = PQerrorMessage(c->pg);
	if (msg == NULL || *msg == '\0')
		msg = "unknown PostgreSQL error";
	free(c->message);
	if ((fence = strstr(msg, "\"" PG_FENCE_MARK)) != NULL) {
		/* The engine's fence refused (driver-pg-fence.c). */
		c->message = xstrdup(fence + 1 + strlen(PG_FENCE_MARK));
		if ((nl = strrchr(c->message, '"')) != NULL)
			*nl = '\0';
		c->code = STORE_DRV_FENCED;
		return;
	}
	c->message = xstrdup(msg);
	if ((nl = strchr(c->message, '\n')) != NULL)
		*nl = '\0';
	c->code = STORE_DRV_ERROR;
	if (state == NULL)
		return;
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "55P03") == 0)
		c->code = STORE_DRV_BUSY;	/* serialization, deadlock, lock */
	else if (strncmp(state, "23", 2) == 0)
		c->code = STORE_DRV_CONSTRAINT;
	else if (strcmp(state, "25006") == 0 || strcmp(state, "42501") == 0)
		c->code = STORE_DRV_READONLY;	/* read-only, no right */
}

/*
 * libpq's message about a failed connection on one line: its line for
 * each host tried (a name may list the primary and its standbys),
 * joined with "; ", without the indented lines of advice.
 */
static char *
pg_connect_error(PGconn *pg)
{
	const char	*m, *eol;
	char		*out, *o;

	if (pg == NULL)
		return (xstrdup("out of memory"));
	m = PQerrorMessage(pg);
	o = out = xmalloc(2 * strlen(m) + 1);
	for (; *m != '\0'; m = *eol != '\0' ? eol + 1 : eol) {
		if ((eol = strchr(m, '\n')) == NULL)
			eol = m + strlen(m);
		if (*m == '\t' || eol == m)
			continue;
		if (o != out) {
			*o++ = ';';
			*o++ = ' ';
		}
		memcpy(o, m, eol - m);
		o += eol - m;
	}
	*o = '\0';
	return (out);
}

/* Whether a name is PostgreSQL's: postgresql:CONNINFO or a URI. */
const char *
pg_conninfo(const char *path)
{
	if (strncmp(path, "postgresql://", 13) == 0)
		return (path);
	if (strncmp(path, STORE_PG_PREFIX, strlen(STORE_PG_PREFIX)) == 0)
		return (path + strlen(STORE_PG_PREFIX));
	return (NULL);
}

/* Connect; a read-only store's transactions are read-only too. */
static int
pg_open(const char *path, int flags, struct store_conn **connp, char **cause)
{
	const char	*keys[] = { "dbname", "fallback_application_name",
			    NULL };
	const char	*vals[] = { NULL, "sluice", NULL };
	struct pg_conn	*c;
	char		*why;

	*connp = NULL;
	if ((vals[0] = pg_conninfo(path)) == NULL) {
		xasprintf(cause, "cannot open database %s: not a PostgreSQL "
		    "name (postgresql:service=NAME)", path);
		return (-1);
	}
	if (pg_lib_load(&why) != 0) {
		xasprintf(cause, "cannot open database %s: %s", path, why);
		free(why);
		return (-1);
	}
	c = xcalloc(1, sizeof *c);
	c->pg = PQconnectdbParams(keys, vals, 1);
	if (c->pg == NULL || PQstatus(c->pg) != CONNECTION_OK) {
		why = pg_connect_error(c->pg);
		xasprintf(cause, "cannot open database %s: %s", path, why);
		free(why);
		PQfinish(c->pg);
		free(c);
		return (-1);
	}
	PQsetNoticeProcessor(c->pg, pg_notice, NULL);
	*connp = (struct store_conn *)c;
	if (pg_run(c, "SET lock_timeout = '" PG_LOCK_SLICE "'") != 0 ||
	    ((flags & STORE_DRV_O_READONLY) &&
	    pg_run(c, "SET default_transaction_read_only = on") != 0)) {
		xasprintf(cause, "cannot open database %s: %s", path,
		    c->message);
		PQfinish(c->pg);
		free(c->message);
		free(c);
		*connp = NULL;
		return (-1);
	}
	return (0);
}

static void
pg_close(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	if (c == NULL)
		return;
	PQfinish(c->pg);
	pg_turn_end(c);
	free(c->queued);
	free(c->message);
	free(c->at_commit);
	free(c->unreachable);
	free(c);
}

static enum store_drv_code
pg_error(struct store_conn *conn)
{
	return (((struct pg_conn *)conn)->code);
}

static const char *
pg_message(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	return (c->message != NULL ? c->message : "no error");
}

/* Constant SQL, translated, one or more statements. */
static enum store_drv_code
pg_exec(struct store_conn *conn, const char *sql)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	enum store_drv_code rc, save;
	char		*text, *guarded;

	if ((rc = pg_flush(c)) != STORE_DRV_OK)
		return (rc);
	c->lastval_known = c->lastval_owed = 0;
	c->writes++;
	text = store_pg_sql(sql, NULL);
	if (PQtransactionStatus(c->pg) == PQTRANS_INTRANS) {
		/* Undone alone when it fails, as pg_execute's statements. */
		xasprintf(&guarded, "SAVEPOINT sluice_stmt; %s;"
		    " RELEASE sluice_stmt", text);
		free(text);
		text = guarded;
	}
	if ((rc = pg_send(c, text)) != STORE_DRV_OK &&
	    PQtransactionStatus(c->pg) == PQTRANS_INERROR) {
		save = c->code;
		PQclear(pg_exec_bounded(c, "ROLLBACK TO sluice_stmt;"
		    " RELEASE sluice_stmt"));
		c->code = save;
	}
	if (rc != STORE_DRV_OK)
		log_debug("%s: %s: %s", __func__, c->message, text);
	free(text);
	return (rc);
}

/*
 * Begin.  A write transaction whose first statement follows at once
 * (STORE_DRV_WRITE_NEXT, and the engine's turn, STORE_DRV_WRITE_TURN,
 * whose writes need not wait: driver-pg-defer.c) is only noted here: it
 * begins on the server with that statement, in its round trip
 * (pg_execute, else pg_flush), where it waits for the write lock.  Any
 * other begins now, as its caller counts on (store_begin_within: the
 * lock within a time).
 */
static enum store_drv_code
pg_begin(struct store_conn *conn, int level, int write)
{
	struct pg_conn		*c = (struct pg_conn *)conn;

	if (pg_turn_nests(c, level)) {
		c->nest_mark[level] = c->writes;
		return (STORE_DRV_OK);
	}
	if (level > 0)
		return (pg_pending(c, "SAVEPOINT store_nested"));
	if (!write)
		return (pg_run(c, "BEGIN ISOLATION LEVEL REPEATABLE READ"));
	pg_turn_end(c);
	c->begin_pending = 1;
	c->defer = write == STORE_DRV_WRITE_TURN;
	if (write == STORE_DRV_WRITE_NEXT || write == STORE_DRV_WRITE_TURN)
		return (STORE_DRV_OK);
	return (pg_flush(c));
}

/* Put a statement before *sqlp. */
static void
pg_prepend(char **sqlp, const char *sql)
{
	char	*all;

	xasprintf(&all, "%s; %s", sql, *sqlp);
	free(*sqlp);
	*sqlp = all;
}

/* Forget what a transaction kept for its COMMIT. */
static void
pg_at_commit_clear(struct pg_conn *c)
{
	free(c->at_commit);
	c->at_commit = NULL;
}

/*
 * Commit, with what was kept for it (NOTIFYs, settings) in the same round
 * trip: a transaction PostgreSQL aborted at a failed statement ends
 * rolled back, and says so, where SQLite would have kept the rest.  One
 * that never reached the server wrote nothing: it is sent whole, only
 * for what was kept.
 */
static enum store_drv_code
pg_commit(struct store_conn *conn, int level)
{
	struct pg_conn		*c = (struct pg_conn *)conn;
	enum store_drv_code	 rc;
	char			*sql;

	if (pg_turn_nests(c, level))
		return (STORE_DRV_OK);
	if (level > 0)
		return (pg_pending(c, "RELEASE store_nested"));
	if (c->begin_pending) {
		/* Nothing ran, so its fence (if any) need not either. */
		pg_turn_end(c);
		c->begin_pending = 0;
		c->npending = 0;
		if (c->at_commit == NULL)
			return (STORE_DRV_OK);
		xasprintf(&sql, "BEGIN; %s; COMMIT", c->at_commit);
		pg_at_commit_clear(c);
		rc = pg_send(c, sql);
		free(sql);
		return (rc);
	}
	if (c->nqueued > 0 && c->failed == STORE_DRV_OK)
		return (pg_commit_piped(c));
	if (c->nqueued > 0 || c->failed != STORE_DRV_OK) {
		/* A write of the turn failed: never COMMIT, roll back. */
		rc = pg_settle(c);
		c->npending = 0;
		pg_at_commit_clear(c);
		if (PQtransactionStatus(c->pg) != PQTRANS_IDLE)
			PQclear(pg_exec_bounded(c, "ROLLBACK"));
		pg_turn_end(c);
		if (rc != STORE_DRV_OK)
			return (rc);
		free(c->message);
		c->message = xstrdup("the transaction failed");
		return (c->code = STORE_DRV_ERROR);
	}
	if (PQtransactionStatus(c->pg) == PQTRANS_INERROR) {
		c->npending = 0;
		pg_at_commit_clear(c);
		free(c->message);
		c->message = xstrdup("a statement of the transaction failed, "
		    "so PostgreSQL aborted it");
		c->code = STORE_DRV_ERROR;
		return (c->code);
	}
	/* The RELEASEs waiting, what was kept, COMMIT: one round trip. */
	sql = xstrdup("COMMIT");
	if (c->at_commit != NULL)
		pg_prepend(&sql, c->at_commit);
	while (c->npending > 0)
		pg_prepend(&sql, c->pending[--c->npending]);
	pg_at_commit_clear(c);
	rc = pg_send(c, sql);
	free(sql);
	pg_turn_end(c);
	return (rc);
}

static enum store_drv_code
pg_rollback(struct store_conn *conn, int level)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	if (pg_turn_nests(c, level))
		return (pg_turn_undo(c, level));
	if (level > 0) {
		/* Its SAVEPOINT not sent yet: nothing of it ran. */
		if (c->npending > 0 && strcmp(c->pending[c->npending - 1],
		    "SAVEPOINT store_nested") == 0) {
			c->npending--;
			return (STORE_DRV_OK);
		}
		return (pg_run(c, "ROLLBACK TO store_nested;"
		    " RELEASE store_nested"));
	}
	pg_at_commit_clear(c);
	c->npending = 0;
	/* The answers still on their way are read and dropped. */
	if (c->nqueued > 0)
		(void)pg_settle(c);
	pg_turn_end(c);
	if (c->begin_pending) {
		c->begin_pending = 0;
		return (STORE_DRV_OK);
	}
	return (pg_send(c, "ROLLBACK"));
}

/*
 * Keep SQL for the transaction's COMMIT, to go with it; outside a
 * transaction, run it now.
 */
static enum store_drv_code
pg_at_commit(struct pg_conn *c, const char *sql)
{
	char	*all;

	if (!c->begin_pending && c->nqueued == 0 &&
	    PQtransactionStatus(c->pg) != PQTRANS_INTRANS)
		return (pg_send(c, sql));
	if (c->at_commit == NULL)
		c->at_commit = xstrdup(sql);
	else {
		xasprintf(&all, "%s; %s", c->at_commit, sql);
		free(c->at_commit);
		c->at_commit = all;
	}
	return (STORE_DRV_OK);
}

/*
 * A NOTIFY goes with the COMMIT: PostgreSQL delivers it only then
 * anyway.  Channels are the store's constant names, never input.
 */
enum store_drv_code
store_pg_notify(struct store_conn *conn, const char *channel)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	char		*sql;
	enum store_drv_code rc;

	xasprintf(&sql, "NOTIFY %s", channel);
	rc = pg_at_commit(c, sql);
	free(sql);
	return (rc);
}

static int
pg_in_transaction(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	return (c->begin_pending || c->nqueued > 0 ||
	    (PQtransactionStatus(c->pg) != PQTRANS_IDLE &&
	    PQtransactionStatus(c->pg) != PQTRANS_UNKNOWN));
}

/* A query for one integer (0 when there is no row or it is NULL). */
enum store_drv_code
pg_int(struct pg_conn *c, const char *sql, int64_t *v)
{
	PGresult	*res;

	*v = 0;
	if (pg_flush(c) != STORE_DRV_OK)
		return (c->code);
	res = pg_exec_bounded(c, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		pg_fail(c, res);
		PQclear(res);
		return (c->code);
	}
	if (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0))
		*v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return (STORE_DRV_OK);
}

/*
 * The id the last INSERT made (sluice_lastval: 0 before any), read back
 * with the INSERT when it was one of the store's statements waited for;
 * one of the engine's turn sent ahead is asked now, with the answers
 * still on their way (pg_lastval_owed).
 */
static int64_t
pg_last_insert_id(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	int64_t		 v;

	if (pg_lastval_owed(c) != STORE_DRV_OK)
		return (0);	/* the next statement fails with it */
	if ((c->nqueued > 0 || c->failed != STORE_DRV_OK) &&
	    pg_settle(c) != STORE_DRV_OK)
		return (0);	/* the next statement fails with it */
	if (c->lastval_known)
		return (c->lastval);
	if (pg_int(c, "SELECT sluice_lastval()", &v) != STORE_DRV_OK)
		return (0);
	return (v);
}

/*
 * What the last writes did: their answers read first, when some are on
 * their way (a failed one: 0, and the next statement fails with it).
 */
static int64_t
pg_changes(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	if (c->nqueued > 0 && pg_settle(c) != STORE_DRV_OK)
		return (0);
	return (c->changes);
}

static int64_t
pg_total_changes(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	if (c->nqueued > 0)
		(void)pg_settle(c);
	return (c->total);
}

/*
 * A counter that moves when a transaction that wrote has begun anywhere
 * since: the next transaction id.  It moves for ours too, which costs a
 * reader one needless look, never a missed change.
 */
static enum store_drv_code
pg_data_version(struct store_conn *conn, int64_t *v)
{
	return (pg_int((struct pg_conn *)conn,
	    "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint", v));
}

/*
 * What the database is: sluice_meta's application id and version, and
 * how many tables, indexes and views its schema has (0, 0, 0: new).
 */
static enum store_drv_code
pg_identify(struct store_conn *conn, int64_t *appid, int64_t *version,
    int64_t *objects)
{
	struct pg_conn		*c = (struct pg_conn *)conn;
	enum store_drv_code	 rc;
	int64_t			 meta;

	*appid = *version = 0;
	rc = pg_int(c, "SELECT count(*) FROM pg_class c JOIN pg_namespace n"
	    " ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
	    " AND c.relkind IN ('r', 'i', 'v', 'S')", objects);
	if (rc == STORE_DRV_OK)
		rc = pg_int(c, "SELECT count(*) FROM pg_class c"
		    " JOIN pg_namespace n ON n.oid = c.relnamespace"
		    " WHERE n.nspname = current_schema()"
		    " AND c.relname = 'sluice_meta'", &meta);
	if (rc != STORE_DRV_OK || meta == 0)
		return (rc);
	if ((rc = pg_int(c, "SELECT application_id FROM sluice_meta",
	    appid)) != STORE_DRV_OK)
		return (rc);
	return (pg_int(c, "SELECT user_version FROM sluice_meta", version));
}

static void
pg_busy_handler(struct store_conn *conn, store_drv_busy_cb cb, void *arg)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	c->busy_cb = cb;
	c->busy_arg = arg;
}

/*
 * The SQL that draws the id of a table's next row from its sequence; the
 * table's name is the store's constant, never input.
 */
static char *
pg_draw_sql(const char *table)
{
	char	*sql;

	xasprintf(&sql, "SELECT nextval(pg_get_serial_sequence('%s', 'id'))",
	    table);
	return (sql);
}

/*
 * The id the table's next row will have (driver.h): the one the last
 * post drew ahead on this connection, else one drawn now.
 */
static enum store_drv_code
pg_next_id(struct store_conn *conn, const char *table, int64_t *id)
{
	struct pg_conn		*c = (struct pg_conn *)conn;
	enum store_drv_code	 rc;
	char			*sql;

	if (c->ahead != 0 && strcmp(c->ahead_table, table) == 0) {
		*id = c->ahead;
		c->ahead = 0;
		return (STORE_DRV_OK);
	}
	sql = pg_draw_sql(table);
	rc = pg_int(c, sql, id);
	free(sql);
	return (rc);
}

/*
 * Read the id a post drew ahead, a pipeline part of its own after the
 * post's (which may have failed without undoing the draw): its result,
 * then its sync.  0 when it has none.
 */
static int64_t
pg_ahead_read(struct pg_conn *c)
{
	PGresult	*r;
	int64_t		 id = 0;

	while ((r = pg_get_result(c)) != NULL) {
		if (PQresultStatus(r) == PGRES_TUPLES_OK &&
		    PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
			id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
	}
	while ((r = pg_get_result(c)) != NULL &&
	    PQresultStatus(r) != PGRES_PIPELINE_SYNC)
		PQclear(r);
	PQclear(r);
	return (id);
}

/*
 * Post a row (driver.h): BEGIN (no write lock), a commit that does not
 * wait, the bound INSERT (prepared first when kept and not yet), NOTIFY
 * and COMMIT, then, after a sync of their own so that it cannot fail
 * them, the draw of the next row's id, all sent at once and answered at
 * once.  A failure leaves no transaction open and nothing written.
 */
static enum store_drv_code
pg_post(struct store_stmt *st, const char *channel, const char *table)
{
	struct pg_stmt	*h = (struct pg_stmt *)st;
	struct pg_conn	*c = h->c;
	PGconn		*pg = c->pg;
	PGresult	*res;
	struct pg_pipe	 p;
	Oid		*types = NULL;
	char		*say, *draw;
	int		 sent, drawn, ok;

	if (c->begin_pending || c->npending > 0 || c->nqueued > 0 ||
	    PQtransactionStatus(pg) != PQTRANS_IDLE) {
		free(c->message);
		c->message = xstrdup("a row is posted in a transaction of its "
		    "own, not inside another");
		return (c->code = STORE_DRV_ERROR);
	}
	types = pg_blob_types(h);
	memset(&p, 0, sizeof p);
	p.prep = p.lock = p.last = -1;
	xasprintf(&say, "NOTIFY %s", channel);
	draw = pg_draw_sql(table);
	c->ahead = 0;
	if ((sent = PQenterPipelineMode(pg)))
		sent = pg_queue(pg, "BEGIN", &p.n);
	if (sent)
		sent = pg_queue(pg, "SET LOCAL synchronous_commit = off", &p.n);
	if (sent)
		sent = pg_queue_bound(h, types, &p);
	if (sent)
		sent = pg_queue(pg, say, &p.n);
	if (sent)
		sent = pg_queue(pg, "COMMIT", &p.n);
	if (sent)
		sent = PQpipelineSync(pg);
	/* The draw ahead: a failure is the next post's to find. */
	drawn = sent && PQsendQueryParams(pg, draw, 0, NULL, NULL, NULL,
	    NULL, 0) && PQpipelineSync(pg);
	free(say);
	free(draw);
	free(types);
	/* Its id was drawn, not the sequence's default: none to read. */
	c->lastval_known = c->lastval_owed = 0;
	if (!sent) {
		/* libpq could not send (a lost connection): say why. */
		PQexitPipelineMode(pg);
		pg_fail(c, NULL);
		return (c->code);
	}
	res = pg_collect(c, &p, &h->prepared);
	if (drawn && (c->ahead = pg_ahead_read(c)) != 0)
		c->ahead_table = table;
	PQexitPipelineMode(pg);
	if (!(ok = PQresultStatus(res) == PGRES_COMMAND_OK))
		pg_fail(c, res);
	PQclear(res);
	if (PQtransactionStatus(pg) != PQTRANS_IDLE)
		PQclear(pg_exec_bounded(c, "ROLLBACK"));
	return (ok ? STORE_DRV_OK : c->code);
}

const struct store_driver store_driver_pg = {
	.name = "postgresql",
	.server = 1,
	.migrations = store_pg_migrations,
	.nmigrations = &store_pg_nmigrations,

	.open = pg_open,
	.close = pg_close,
	.error = pg_error,
	.message = pg_message,

	.prepare = pg_prepare,
	.finalize = pg_finalize,
	.reset = pg_reset,
	.parameters = pg_parameters,
	.step = pg_step,

	.bind_int64 = pg_bind_int64,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_null = pg_bind_null,

	.column_null = pg_column_null,
	.column_int64 = pg_column_int64,
	.column_text = pg_column_text,
	.column_blob = pg_column_blob,

	.exec = pg_exec,

	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.in_transaction = pg_in_transaction,

	.last_insert_id = pg_last_insert_id,
	.changes = pg_changes,
	.total_changes = pg_total_changes,
	.data_version = pg_data_version,
	.identify = pg_identify,

	.busy_handler = pg_busy_handler,
	.file_readonly = store_pg_file_readonly,
	.lost = store_pg_lost,
	.next_id = pg_next_id,
	.post = pg_post,

	.listen = store_pg_listen,
	.notify = store_pg_notify,
	.listen_fd = store_pg_listen_fd,
	.heard = store_pg_heard,
	.send = store_pg_send,
	.answer = store_pg_answer,
	.fence = pg_fence,
	.turn_id = pg_turn_id,
	.wait_bound = pg_wait_bound,
};
