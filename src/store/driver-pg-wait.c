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
 * driver-pg-wait.c: every wait for the server's answer on one of the
 * driver's connections ends.  libpq's own waits (PQexec, and PQgetResult
 * while an answer is not all in) poll the socket with no time limit, so
 * a node cut off from PostgreSQL (a partition: its packets go nowhere
 * and nothing says the connection is gone) would wait in them until the
 * cut heals, and its engine's loop, socket and console with it.  Here
 * the answer is waited for with poll() on the connection's socket, up to
 * a bound: a time (the leader's deadline) and a limit per wait, and the
 * engine's socket is served meanwhile (its pings and reads).  Past the
 * bound the connection is given up: its socket is shut down, so libpq
 * fails the statement and every later one at once, and the failure reads
 * "database unreachable: no answer in N s".
 *
 * A statement given up is unknown, not failed: its bytes may still reach
 * the server once the cut heals, and a COMMIT whose answer never came
 * may have committed.  The next leader's recovery reads what did.  None
 * of it can commit after another leader took over: a write transaction
 * of the engine's begins with the epoch fence (driver-pg-fence.c), which
 * the server then refuses, and one already open holds the engine row
 * that the takeover's epoch bump locks, until the server ends it
 * (idle_in_transaction_session_timeout, store/leader.c).
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-pg-int.h"

/*
 * An answer is waited for alone so long before the engine's socket is
 * served, then in slices of PG_WAIT_SLICE_MS between its servings: a
 * commit's answer is seldom slower than the first, a ping seldom waits
 * longer than the second.
 */
#define PG_WAIT_QUIET_MS	20
#define PG_WAIT_SLICE_MS	20

/* Whether a serve callback runs now: a wait inside it serves nothing. */
static int	pg_serving;

/* The bound of a wait begun at start: the monotonic ms it ends, or 0. */
static int64_t
pg_wait_end(const struct pg_bound *b, int64_t start)
{
	int64_t	 end = b->until;

	if (b->limit > 0 && (end == 0 || start + b->limit < end))
		end = start + b->limit;
	return (end);
}

/*
 * Give the connection up after a wait of waited ms: its socket shut down
 * (libpq reads the end of it and fails this statement and every later
 * one without waiting), the reason kept in *why.
 */
static void
pg_give_up(PGconn *pg, int64_t waited, char **why)
{
	int	 fd;

	free(*why);
	xasprintf(why, "database unreachable: no answer in %lld.%lld s",
	    (long long)(waited / 1000), (long long)(waited % 1000 / 100));
	if ((fd = PQsocket(pg)) != -1)
		(void)shutdown(fd, SHUT_RDWR);
	(void)PQconsumeInput(pg);
}

/*
 * Wait until pg's answer is in, so that PQgetResult does not wait: 0;
 * -1 when the connection failed (PQgetResult says so, without waiting);
 * -2 when the bound passed first: the connection is given up, the reason
 * in *why.  serve(arg) is called between slices, unless it is what waits.
 */
int
pg_ready(PGconn *pg, const struct pg_bound *b, char **why)
{
	struct pollfd	 pfd;
	int64_t		 start, now, end, left;
	int		 slice, n;

	if (!PQisBusy(pg))
		return (0);
	start = now = time_mono_ms();
	end = pg_wait_end(b, start);
	slice = PG_WAIT_QUIET_MS;
	for (;;) {
		if ((pfd.fd = PQsocket(pg)) == -1)
			return (-1);
		pfd.events = POLLIN;
		left = end == 0 ? slice : end - now;
		if (left > slice && b->serve != NULL && !pg_serving)
			left = slice;
		if (left < 0)
			left = 0;
		if ((n = poll(&pfd, 1, (int)left)) == -1 && errno != EINTR)
			return (-1);
		if (n > 0) {
			if (!PQconsumeInput(pg))
				return (-1);
			if (!PQisBusy(pg))
				return (0);
		}
		now = time_mono_ms();
		if (end != 0 && now >= end) {
			pg_give_up(pg, now - start, why);
			return (-2);
		}
		if (n == 0 && b->serve != NULL && !pg_serving) {
			pg_serving = 1;
			b->serve(b->arg);
			pg_serving = 0;
			now = time_mono_ms();
		}
		slice = PG_WAIT_SLICE_MS;
	}
}

/* PQgetResult on the connection, its wait bounded (NULL: no more). */
PGresult *
pg_get_result(struct pg_conn *c)
{
	if (c->unreachable != NULL ||
	    pg_ready(c->pg, &c->bound, &c->unreachable) == -2)
		return (NULL);
	return (PQgetResult(c->pg));
}

/*
 * The last result of what was just sent on pg (sent: libpq took it), its
 * waits bounded by b; of two failures in a row, the first, as PQexec.
 * NULL when it could not be sent, or when the answer did not come in
 * time (the reason in *why).
 */
PGresult *
pg_last(PGconn *pg, int sent, const struct pg_bound *b, char **why)
{
	PGresult	*r, *last = NULL;

	if (!sent)
		return (NULL);
	for (;;) {
		if (pg_ready(pg, b, why) == -2) {
			PQclear(last);
			return (NULL);
		}
		if ((r = PQgetResult(pg)) == NULL)
			break;
		if (last != NULL &&
		    PQresultStatus(last) == PGRES_FATAL_ERROR &&
		    PQresultStatus(r) == PGRES_FATAL_ERROR)
			PQclear(r);
		else {
			PQclear(last);
			last = r;
		}
		if (PQstatus(pg) == CONNECTION_BAD)
			break;
	}
	return (last);
}

/*
 * PQexec on the connection, its waits bounded: the results of what was
 * sent before dropped, then sql's last (pg_last).  NULL when it could not
 * be sent or the answer did not come (pg_fail says why).
 */
PGresult *
pg_exec_bounded(struct pg_conn *c, const char *sql)
{
	PGresult	*r;

	while ((r = pg_get_result(c)) != NULL)
		PQclear(r);
	if (c->unreachable != NULL)
		return (NULL);
	return (pg_last(c->pg, PQsendQuery(c->pg, sql), &c->bound,
	    &c->unreachable));
}

/* The bound of the connection's waits (driver.h). */
void
pg_wait_bound(struct store_conn *conn, int64_t until, int64_t limit,
    void (*serve)(void *), void *arg)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	c->bound.until = until;
	c->bound.limit = limit;
	c->bound.serve = serve;
	c->bound.arg = arg;
}
