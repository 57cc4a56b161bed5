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
 * driver-pg-async.c: one statement whose answer is not waited for, for
 * the lock session (store/leader.c): its heartbeat and a standby's tries
 * must not hold up the engine's loop, which during a partition would
 * hang in a blocking call for as long as the cut lasts.  The statement
 * is sent at once and the loop polls the session's socket; the answer is
 * read as it comes.  The send itself does not wait: one statement at a
 * time is in flight, a few hundred bytes, which the socket's buffer
 * always has room for, since the last one's answer was read.
 */

#include <stdlib.h>
#include <string.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-pg.h"
#include "store/driver-pg-int.h"

/* Send sql (the store's dialect) with n text parameters (NULL: NULL). */
enum store_drv_code
store_pg_send(struct store_conn *conn, const char *sql, int n,
    const char *const *values)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	char		*text;
	int		 sent;

	text = store_pg_sql(sql, NULL);
	sent = PQsendQueryParams(c->pg, text, n, NULL, values, NULL, NULL, 0);
	free(text);
	c->answer = 0;
	c->answer_failed = 0;
	if (!sent) {
		pg_fail(c, NULL);
		return (c->code);
	}
	return (STORE_DRV_OK);
}

/*
 * Read what has come of the answer (readable: the socket was): 1 while
 * it is not all in; 0 with the first row's first column in *value (0
 * without one); -1 with the failure noted.
 */
int
store_pg_answer(struct store_conn *conn, int readable, int64_t *value)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	PGresult	*res;

	*value = 0;
	if (readable && !PQconsumeInput(c->pg)) {
		pg_fail(c, NULL);
		return (-1);
	}
	/* Each result as it is complete; the end (NULL) may come later. */
	while (!PQisBusy(c->pg) && (res = PQgetResult(c->pg)) != NULL) {
		switch (PQresultStatus(res)) {
		case PGRES_TUPLES_OK:
			if (PQntuples(res) > 0 && PQnfields(res) > 0 &&
			    !PQgetisnull(res, 0, 0))
				c->answer = strtoll(PQgetvalue(res, 0, 0),
				    NULL, 10);
			break;
		case PGRES_COMMAND_OK:
			break;
		default:
			pg_fail(c, res);
			c->answer_failed = 1;
			break;
		}
		PQclear(res);
	}
	if (PQisBusy(c->pg))
		return (1);
	if (!c->answer_failed && PQstatus(c->pg) != CONNECTION_OK) {
		pg_fail(c, NULL);
		c->answer_failed = 1;
	}
	*value = c->answer;
	return (c->answer_failed ? -1 : 0);
}
