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
 * driver-pg-fence.c: the engine's fence (driver.h) on PostgreSQL.  It
 * goes with every turn of the leader, so it is a named statement the
 * server parses once per connection (its Parse rides in the pipeline of
 * its first run; a new connection, after a reconnect, has none and
 * parses it again), its epoch and heartbeat bound as parameters: the
 * server then neither parses nor plans it again each turn.
 *
 * The statement fails by construction (a text that is no number, cast
 * to one) unless the engine row, locked, still has the epoch, so the
 * server compares and a stale epoch fails the turn without the engine
 * reading the answer.  The failing text is built from the row read,
 * never from constants and parameters alone, so that no planner, given
 * the parameters' values, can fold the failing branch into a failure
 * at planning time.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"
#include "store/driver-pg.h"
#include "store/driver-pg-int.h"

/* The fence's two forms: [0] reads the epoch, [1] sets the heartbeat. */
static const char *const pg_fence_names[2] = {
	"sluice_fence", "sluice_fence_beat"
};
static const char *const pg_fence_sqls[2] = {
	"SELECT CASE WHEN f.e = $1 THEN 0 ELSE ('" PG_FENCE_MARK
	"engine epoch ' || $1::text || ' is stale (the engine row has '"
	" || coalesce(f.e::text, 'none') || '): another engine took"
	" over')::bigint END FROM (SELECT (SELECT epoch FROM engine"
	" WHERE id = 1 FOR UPDATE) AS e) f",

	"WITH u AS (UPDATE engine SET heartbeat_at = $2 WHERE id = 1 AND"
	" epoch = $1 RETURNING epoch) SELECT CASE WHEN count(*) = 1 THEN 0"
	" ELSE ('" PG_FENCE_MARK "engine epoch ' || $1::text || ' is stale:"
	" another engine took over' || coalesce(max(u.epoch)::text, ''))"
	"::bigint END FROM u"
};
static const Oid pg_fence_types[2] = { PG_INT8, PG_INT8 };

/* The form of the fence kept for the turn. */
static int
pg_fence_form(const struct pg_conn *c)
{
	return (c->fence_now != 0);
}

/*
 * Queue the fence kept for the turn on the open pipeline (*n counts the
 * queries): its Parse first when this connection has not prepared it
 * (its place in p->fparse, whose success pg_collect notes), then the
 * fence itself, in p->fence.  0: libpq could not send.
 */
int
pg_fence_queue(struct pg_conn *c, struct pg_pipe *p)
{
	char		 epoch[32], now[32];
	const char	*values[2] = { epoch, now };
	int		 form = pg_fence_form(c);

	if (!(c->fence_prepared & (1 << form))) {
		p->fparse = p->n++;
		p->fform = form;
		if (!PQsendPrepare(c->pg, pg_fence_names[form],
		    pg_fence_sqls[form], form + 1, pg_fence_types))
			return (0);
	}
	snprintf(epoch, sizeof epoch, "%lld", (long long)c->fence_epoch);
	snprintf(now, sizeof now, "%lld", (long long)c->fence_now);
	p->fence = p->n++;
	return (PQsendQueryPrepared(c->pg, pg_fence_names[form], form + 1,
	    values, NULL, NULL, 0));
}

/* Whether the pipeline's first failure was the fence's (or its Parse's). */
int
pg_fence_failed(const struct pg_pipe *p)
{
	if (p->fence < 0 || p->failed < 0)
		return (0);
	return (p->failed == p->fence || (p->fparse >= 0 &&
	    p->failed == p->fparse));
}

/* Note what pg_collect found of the fence's Parse: prepared, or not. */
void
pg_fence_parsed(struct pg_conn *c, const struct pg_pipe *p)
{
	if (p->fparse >= 0 && p->fparsed)
		c->fence_prepared |= 1 << p->fform;
}

/*
 * Run the fence kept for the turn now, in one round trip of its own
 * (the transaction on the server already): a stale epoch is the
 * failure noted and returned.
 */
enum store_drv_code
pg_fence_run(struct pg_conn *c)
{
	struct pg_pipe	 p;
	PGresult	*res;
	int		 sent, ok, unused = 0;

	c->fence_pending = 0;
	memset(&p, 0, sizeof p);
	p.prep = p.lock = p.last = p.fence = p.fparse = -1;
	sent = PQpipelineStatus(c->pg) != PQ_PIPELINE_OFF ||
	    PQenterPipelineMode(c->pg);
	if (sent)
		sent = pg_fence_queue(c, &p);
	p.want = p.fence;
	if (sent)
		sent = PQpipelineSync(c->pg);
	if (!sent) {
		/* libpq could not send (a lost connection): say why. */
		PQexitPipelineMode(c->pg);
		pg_fail(c, NULL);
		return (c->code);
	}
	res = pg_collect(c, &p, &unused);
	PQexitPipelineMode(c->pg);
	pg_fence_parsed(c, &p);
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		pg_fail(c, res);
	PQclear(res);
	return (ok ? STORE_DRV_OK : c->code);
}

/*
 * The fence (driver.h): in a transaction not yet on the server, kept
 * to go after the write lock with its first statement; else run now.
 */
enum store_drv_code
pg_fence(struct store_conn *conn, int64_t epoch, int64_t now)
{
	struct pg_conn		*c = (struct pg_conn *)conn;
	enum store_drv_code	 rc;

	if (!c->begin_pending && (rc = pg_flush(c)) != STORE_DRV_OK)
		return (rc);
	c->fence_epoch = epoch;
	c->fence_now = now;
	c->fence_pending = 1;
	if (c->begin_pending)
		return (STORE_DRV_OK);
	return (pg_fence_run(c));
}
