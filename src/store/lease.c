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
 * lease.c: the engine row.  Whoever takes the engine lock bumps the epoch;
 * every write transaction of an engine first checks that the epoch is
 * still its own (and records a heartbeat), so an engine that lost its lock
 * without knowing it can never write again.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char lease_take_sql[] =
	"UPDATE engine SET epoch = epoch + 1, pid = ?, host = ?, since = ?,"
	" heartbeat_at = ? WHERE id = 1";
static const char lease_epoch_sql[] =
	"SELECT epoch FROM engine WHERE id = 1";
static const char lease_heartbeat_sql[] =
	"UPDATE engine SET heartbeat_at = ? WHERE id = 1 AND epoch = ?";
static const char lease_drop_sql[] =
	"UPDATE engine SET pid = NULL, heartbeat_at = ? WHERE id = 1"
	" AND epoch = ?";
/*
 * On a server, reading the epoch does not wait for a new leader's bump
 * that has not committed: lock the row, so the bump waits for this
 * transaction and this one for the bump, and a write is fenced either way.
 */
static const char lease_epoch_locked_sql[] =
	"SELECT epoch FROM engine WHERE id = 1 FOR UPDATE";
static const char lease_get_sql[] =
	"SELECT epoch, pid, host, since, heartbeat_at FROM engine WHERE id = 1";

/*
 * Become the engine: a new epoch, with who holds it (pid 0: a command
 * applying itself with no engine running, recorded as no engine); in its
 * own transaction.
 */
int
store_lease_take(struct store *s, int64_t pid, const char *host,
    int64_t *epoch, char **cause)
{
	int64_t	 now = time_now_ms();
	int	 rc;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	rc = store_runf(s, "take engine lease", lease_take_sql, "Ttii", pid,
	    host, now, now);
	if (rc == 0)
		rc = store_int64f(s, "read epoch", epoch, lease_epoch_sql, "");
	if (rc != 0)
		xasprintf(cause, "%s", store_last_error(s));
	return (store_finish(s, rc, cause));
}

/*
 * Check, inside a write transaction (which holds the write lock, so the
 * answer stays true until it commits), that epoch is still the current
 * one; STORE_CONFLICT when another engine took over.  With now set, also
 * note the heartbeat (a page to write, so not on every transaction).
 *
 * A server checks it itself (driver.h, fence): in the engine's turn the
 * check rides with the turn's first read, and a stale epoch fails that
 * read, and so the turn, with STORE_CONFLICT; here 0 then says only that
 * the check is on its way.
 */
int
store_lease_fence(struct store *s, int64_t epoch, int64_t now)
{
	int64_t	 current;
	char	*cause = NULL;
	int	 rc;

	if (s->drv->fence != NULL) {
		if ((rc = s->drv->fence(s->conn, epoch, now)) == STORE_DRV_OK)
			return (0);
		rc = store_fail(s, rc, "engine fence", &cause);
		store_keep_error(s, cause);
		return (rc);
	}
	if (now != 0) {
		rc = store_runf(s, "engine heartbeat", lease_heartbeat_sql,
		    "ii", now, epoch);
		if (rc == 0 && s->drv->changes(s->conn) != 1)
			return (STORE_CONFLICT);
		return (rc);
	}
	rc = store_int64f(s, "read epoch", &current, s->drv->server ?
	    lease_epoch_locked_sql : lease_epoch_sql, "");
	if (rc == 0 && current != epoch)
		return (STORE_CONFLICT);
	return (rc);
}

/*
 * The current epoch, read outside any transaction (so from the latest
 * commit): an engine compares it with its own before starting a process.
 */
int
store_lease_epoch(struct store *s, int64_t *epoch)
{
	return (store_int64f(s, "read epoch", epoch, lease_epoch_sql, ""));
}

/* A clean exit: no engine is recorded any more (if still ours). */
int
store_lease_drop(struct store *s, int64_t epoch)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = store_begin(s, &cause)) != 0) {
		free(cause);
		return (rc);
	}
	rc = store_runf(s, "drop engine lease", lease_drop_sql, "ii",
	    time_now_ms(), epoch);
	rc = store_finish(s, rc, &cause);
	free(cause);
	return (rc);
}

/* Read the engine row, for display. */
int
store_lease_get(struct store *s, struct store_lease *l, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(l, 0, sizeof *l);
	if ((rc = store_prepare(s, lease_get_sql, &st, cause)) != 0)
		return (rc);
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		l->epoch = store_col_int64(st, 0);
		l->pid = store_col_int64(st, 1);
		l->host = store_column_text(st, 2);
		l->since = store_col_int64(st, 3);
		l->heartbeat_at = store_col_int64(st, 4);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "read engine row", cause);
	store_stmt_finalize(st);
	return (rc);
}

/* Free what a lease row owns. */
void
store_lease_clear(struct store_lease *l)
{
	free(l->host);
	memset(l, 0, sizeof *l);
}

/*
 * Whether the database is a server's (cluster mode), not a file: also
 * when a member reads it through a node's engine.
 */
int
store_is_server(const struct store *s)
{
	return (s->drv->server || (store_is_remote(s) &&
	    store_name_is_server(s->path)));
}
