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
 * driver-pg-session.c: what a PostgreSQL session is told besides its
 * queries' answers: whether it is read-only or gone, and the channels
 * it LISTENs to (store/notify.c: a standby relaying a command says so to
 * the leader, the leader's commits to every node, and no one polls).
 * Channels are the store's constant names, never input, so they go into
 * the SQL as they are.  (NOTIFY, and the relay's commit that need not
 * wait to be durable, go with a COMMIT: driver-pg.c.)
 */

#include <stdlib.h>
#include <string.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-pg-int.h"

enum store_drv_code
store_pg_listen(struct store_conn *conn, const char *channel)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	char		*sql;
	enum store_drv_code rc;

	if (channel == NULL)
		return (pg_run(c, "UNLISTEN *"));
	xasprintf(&sql, "LISTEN %s", channel);
	rc = pg_run(c, sql);
	free(sql);
	return (rc);
}

int
store_pg_listen_fd(struct store_conn *conn)
{
	return (PQsocket(((struct pg_conn *)conn)->pg));
}

/*
 * What was heard: libpq keeps the notifications that came along with a
 * query's answer, which then leave nothing on the socket to wake a poll,
 * so they are looked for even when it is not readable.
 */
int
store_pg_heard(struct store_conn *conn, int readable,
    void (*cb)(void *, const char *), void *arg)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	PGnotify	*n;

	if (readable && !PQconsumeInput(c->pg))
		return (-1);
	while ((n = PQnotifies(c->pg)) != NULL) {
		cb(arg, n->relname);
		PQfreemem(n);
	}
	return (PQstatus(c->pg) == CONNECTION_OK ? 0 : -1);
}

/* Read-only: a hot standby, or a session that says so. */
int
store_pg_file_readonly(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;
	const char	*v;

	v = PQparameterStatus(c->pg, "in_hot_standby");
	if (v != NULL && strcmp(v, "on") == 0)
		return (1);
	v = PQparameterStatus(c->pg, "default_transaction_read_only");
	return (v != NULL && strcmp(v, "on") == 0);
}

/* The server is gone from this connection: libpq has given it up. */
int
store_pg_lost(struct store_conn *conn)
{
	struct pg_conn	*c = (struct pg_conn *)conn;

	return (PQstatus(c->pg) == CONNECTION_BAD);
}
