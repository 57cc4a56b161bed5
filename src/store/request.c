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
 * request.c: what became of each request a client sent with an id.  The
 * engine records the id and its answer in the transaction that applies
 * the command, so the record exists exactly when the command's changes
 * do; a request with no record, and no inbox row still waiting, was not
 * applied.  Records are kept per uid (one caller's ids say nothing about
 * another's) for STORE_REQUEST_KEEP_MS, pruned as new ones are made, at
 * most once a minute (a statement less in nearly every command's
 * transaction, which counts on a server: issue 23's approve -> start).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

#define REQUEST_PRUNE_MS	(60 * 1000)

static const char request_add_sql[] =
	"INSERT INTO requests (uid, id, at, command, reply)"
	" VALUES (?, ?, ?, ?, ?)";
static const char request_prune_sql[] =
	"DELETE FROM requests WHERE at < ?";
static const char request_get_sql[] =
	"SELECT reply FROM requests WHERE uid = ? AND id = ?";
static const char request_queued_sql[] =
	"SELECT id FROM inbox WHERE request = ? AND uid = ? AND state = 'new'"
	" ORDER BY id LIMIT 1";

/*
 * Record a request's answer (JSON), in the caller's transaction, and let
 * the records older than the keeping time go (now and then: a prune that
 * rolls back with its transaction is made by the next one after).
 */
int
store_request_add(struct store *s, int64_t uid, const char *id,
    const char *command, const char *reply, int64_t now)
{
	if (now - s->requests_pruned >= REQUEST_PRUNE_MS ||
	    now < s->requests_pruned) {
		if (store_runf(s, "prune requests", request_prune_sql, "i",
		    now - STORE_REQUEST_KEEP_MS) != 0)
			return (STORE_ERR);
		s->requests_pruned = now;
	}
	return (store_runf(s, "record request", request_add_sql, "ititt", uid,
	    id, now, command, reply));
}

/*
 * The recorded answer of uid's request id: 0 with it in *reply (the
 * caller frees), STORE_NOTFOUND when there is none, or an error.
 */
int
store_request_get(struct store *s, int64_t uid, const char *id,
    char **reply, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*reply = NULL;
	if ((rc = store_stmt(s, request_get_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, uid) != STORE_DRV_OK ||
	    store_bind_text(st, 2, id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "read request", cause);
		store_release(s, st);
		return (rc);
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*reply = store_column_text(st, 0);
		rc = *reply != NULL ? 0 : STORE_NOTFOUND;
	} else if (rc == STORE_DRV_DONE)
		rc = STORE_NOTFOUND;
	else
		rc = store_fail(s, store_errcode(s), "read request", cause);
	store_release(s, st);
	if (rc == STORE_NOTFOUND)
		xasprintf(cause, "no request %s", id);
	return (rc);
}

/* The inbox row where uid's request id waits to be applied, or 0. */
int
store_request_queued(struct store *s, int64_t uid, const char *id,
    int64_t *inbox_id)
{
	*inbox_id = 0;
	return (store_int64f(s, "read inbox", inbox_id, request_queued_sql,
	    "ti", id, uid));
}
