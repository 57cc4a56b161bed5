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
 * inbox.c: commands for the engine.  A process that is not the engine
 * (the CLI, a second console) posts a row; the engine applies new rows in
 * order, in its own transaction, and answers on the same row.  The person
 * is the posting process's, from its uid.  Each row is sealed (chain.c),
 * so the engine refuses, and `audit --verify` reports, one written with
 * sqlite3.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

#define INBOX_COLUMNS \
	"id, posted_at, uid, who, tty, host, command, workflow_id, step_id," \
	" args_json, state, reply, seal, via, request, node"

static const char inbox_post_sql[] =
	"INSERT INTO inbox (posted_at, uid, who, tty, host, command,"
	" workflow_id, step_id, args_json, via, request, node)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char inbox_relay_sql[] =
	"INSERT INTO inbox (id, posted_at, uid, who, tty, host, command,"
	" workflow_id, step_id, args_json, via, request, node, seal)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char inbox_new_sql[] =
	"SELECT " INBOX_COLUMNS " FROM inbox WHERE state = 'new' ORDER BY id"
	" LIMIT 1000";
static const char inbox_get_sql[] =
	"SELECT " INBOX_COLUMNS " FROM inbox WHERE id = ?";
static const char inbox_seal_sql[] =
	"UPDATE inbox SET seal = ? WHERE id = ?";
static const char inbox_reply_sql[] =
	"UPDATE inbox SET state = ?, reply = ?, handled_at = ? WHERE id = ?";
static const char inbox_withdraw_sql[] =
	"UPDATE inbox SET state = 'refused', reply = ?, handled_at = ?"
	" WHERE id = ? AND state = 'new'";

/* Fill an inbox row from a row of INBOX_COLUMNS. */
static int
store_inbox_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_inbox	*m = p;

	m->id = store_col_int64(st, 0);
	m->posted_at = store_col_int64(st, 1);
	m->uid = store_col_int64(st, 2);
	m->who = store_column_text(st, 3);
	m->tty = store_column_text(st, 4);
	m->host = store_column_text(st, 5);
	m->command = store_column_text(st, 6);
	m->workflow_id = store_col_int64(st, 7);
	m->step_id = store_col_int64(st, 8);
	m->args_json = store_column_text(st, 9);
	m->state = store_column_text(st, 10);
	m->reply = store_column_text(st, 11);
	m->seal = store_column_text(st, 12);
	m->via = store_column_text(st, 13);
	m->request = store_column_text(st, 14);
	m->node = store_column_text(st, 15);
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read array. */
static void
store_inbox_rows_free(void *list, size_t n)
{
	store_inboxes_free(list, n);
}

static const struct store_rows store_inbox_rows = {
	.what = "read inbox",
	.size = sizeof (struct store_inbox),
	.fill = store_inbox_row,
	.free = store_inbox_rows_free,
};

/* Seal a row just posted, from what was stored (chain.c). */
static int
store_inbox_seal(struct store *s, int64_t id, char **cause)
{
	struct store_inbox	*m;
	char			 seal[SHA256_HEX];
	int			 rc;

	if ((rc = store_inbox_get(s, id, &m, cause)) != 0)
		return (rc);
	store_chain_seal(m, seal);
	store_inbox_free(m);
	if (store_runf(s, "seal command", inbox_seal_sql, "ti", seal, id) != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		return (STORE_ERR);
	}
	return (0);
}

/* Post a command in its own transaction, sealed; sets *id. */
int
store_inbox_post(struct store *s, const struct store_actor *actor,
    const struct store_inbox *m, int64_t *id, char **cause)
{
	const struct user_info	*self = user_self();
	int			 rc;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	rc = store_runf(s, "post command", inbox_post_sql, "iittttTTtttt",
	    time_now_ms(), actor != NULL ? (int64_t)actor->uid :
	    (int64_t)self->uid, store_actor_name(actor),
	    actor != NULL ? actor->tty : self->tty,
	    actor != NULL ? actor->host : self->host, m->command,
	    m->workflow_id, m->step_id, m->args_json,
	    actor != NULL ? actor->via : NULL, m->request,
	    actor != NULL ? actor->node : NULL);
	if (rc != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		store_rollback(s);
		return (rc);
	}
	*id = s->drv->last_insert_id(s->conn);
	if ((rc = store_inbox_seal(s, *id, cause)) != 0) {
		store_rollback(s);
		return (rc);
	}
	return (store_commit(s, cause));
}

/* Bind the relayed row's parameters from a format (cache.c's). */
static int
store_inbox_bind(struct store_stmt *st, const char *fmt, ...)
{
	va_list	 ap;
	int	 rc;

	va_start(ap, fmt);
	rc = store_bindv(st, fmt, ap);
	va_end(ap);
	return (rc);
}

/*
 * Relay a command (a standby's, for the leader: relay.c) from its caller,
 * actor, and say so on a channel: one round trip (the driver's post),
 * which also draws the id of the next command relayed, so only a
 * connection's first draws its own.  The seal hashes the id, so with the
 * id drawn first the row goes in sealed, as store_inbox_post's is after
 * its read back: the leader never sees it unsealed, and one written
 * around sluice is still refused.  It takes no write lock: an INSERT of
 * a row nobody has read depends on no earlier writer, so it does not
 * wait behind the leader's turn, which reads the inbox under its own
 * lock.  An id drawn earlier may be below one relayed since by another
 * node: the leader applies what is new in the order of ids, which
 * between callers is no order anyone relied on.  The commit does not
 * wait to be durable (one wait for the disk and the synchronous standby
 * less): the client hears nothing before the leader's answer, whose
 * commit comes later in the log and is durable, so no answered command
 * is lost; one lost with the primary before that is a request that was
 * not applied, as "sluice request" says.
 */
int
store_inbox_relay(struct store *s, const struct store_actor *actor,
    const struct store_inbox *m, const char *channel, int64_t *id,
    char **cause)
{
	struct store_inbox	 row;
	struct store_stmt	*st;
	char			 seal[SHA256_HEX];
	int			 rc;

	if (s->drv->next_id == NULL || s->drv->post == NULL) {
		xasprintf(cause, "%s: commands are relayed only on a "
		    "database server", store_path(s));
		return (STORE_ERR);
	}
	memset(&row, 0, sizeof row);
	row.posted_at = time_now_ms();
	row.uid = actor->uid;
	row.who = (char *)store_actor_name(actor);
	row.tty = (char *)actor->tty;
	row.host = (char *)actor->host;
	row.command = m->command;
	row.workflow_id = m->workflow_id;
	row.step_id = m->step_id;
	row.args_json = m->args_json;
	row.via = (char *)actor->via;
	row.request = m->request;
	row.node = (char *)actor->node;
	if ((rc = s->drv->next_id(s->conn, "inbox", &row.id)) != STORE_DRV_OK)
		return (store_fail(s, rc, "relay command", cause));
	store_chain_seal(&row, seal);
	if ((rc = store_stmt(s, inbox_relay_sql, &st, cause)) != 0)
		return (rc);
	if ((rc = store_inbox_bind(st, "iiittttTTttttt", row.id,
	    row.posted_at, row.uid, row.who, row.tty, row.host, row.command,
	    row.workflow_id, row.step_id, row.args_json, row.via,
	    row.request, row.node, seal)) == STORE_DRV_OK)
		rc = s->drv->post(st, channel, "inbox");
	if (rc != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "relay command", cause);
	store_release(s, st);
	if (rc == 0)
		*id = row.id;
	return (rc);
}

/* The commands not yet applied, oldest first. */
int
store_inbox_new(struct store *s, struct store_inbox **listp, size_t *np,
    char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if ((rc = store_stmt(s, inbox_new_sql, &st, cause)) != 0)
		return (rc);
	return (store_rows(s, st, &store_inbox_rows, (void **)listp, np,
	    cause));
}

/* One command, to read its answer. */
int
store_inbox_get(struct store *s, int64_t id, struct store_inbox **mp,
    char **cause)
{
	struct store_stmt	*st;
	struct store_inbox	*list;
	size_t			 n;
	int			 rc;

	*mp = NULL;
	if ((rc = store_stmt(s, inbox_get_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "read inbox", cause);
		store_release(s, st);
		return (rc);
	}
	rc = store_rows(s, st, &store_inbox_rows, (void **)&list, &n, cause);
	if (rc != 0)
		return (rc);
	if (n == 0) {
		free(list);
		xasprintf(cause, "no command %lld", (long long)id);
		return (STORE_NOTFOUND);
	}
	*mp = list;
	return (0);
}

/* Answer a command: done or refused, with a JSON reply. */
int
store_inbox_reply(struct store *s, int64_t id, const char *state,
    const char *reply, int64_t now)
{
	return (store_runf(s, "answer command", inbox_reply_sql, "ttii", state,
	    reply, now, id));
}

/*
 * Start a write transaction, waiting for the lock ms at most even in a
 * process that waits out a busy database for ever (store_set_waiter,
 * which store_busy then passes over): a standby's loop must not stand
 * still behind a frozen leader's turn (STORE_BUSY: no lock).
 */
static int
store_begin_within(struct store *s, int64_t ms, char **cause)
{
	int	 rc;

	s->busy_since = time_mono_ms();
	s->busy_until = s->busy_since + ms;
	rc = store_begin(s, cause);
	s->busy_until = 0;
	return (rc);
}

/*
 * Withdraw a command no engine has applied (a standby whose leader did
 * not answer, server-relay.c): refused, with reply, in a write
 * transaction, so never in the middle of a turn, which reads the inbox
 * under the same lock (engine_inbox).  Waits ms at most for the lock.
 * 0 with *withdrawn 1 (it was new: no engine will apply it) or 0 (an
 * engine answered it first), STORE_BUSY (a turn held the lock all the
 * while: it may be applying it), or an error.
 */
int
store_inbox_withdraw(struct store *s, int64_t id, const char *reply,
    int64_t ms, int *withdrawn, char **cause)
{
	int	 rc;

	*withdrawn = 0;
	if ((rc = store_begin_within(s, ms, cause)) != 0)
		return (rc);
	if (store_runf(s, "withdraw command", inbox_withdraw_sql, "tii", reply,
	    time_now_ms(), id) != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		store_rollback(s);
		return (STORE_ERR);
	}
	*withdrawn = s->drv->changes(s->conn) == 1;
	return (store_commit(s, cause));
}

/* Free what one inbox row owns, and the row. */
void
store_inbox_free(struct store_inbox *m)
{
	store_inboxes_free(m, m != NULL ? 1 : 0);
}

/* Free an inbox array. */
void
store_inboxes_free(struct store_inbox *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].who);
		free(list[i].tty);
		free(list[i].host);
		free(list[i].command);
		free(list[i].args_json);
		free(list[i].state);
		free(list[i].reply);
		free(list[i].seal);
		free(list[i].via);
		free(list[i].node);
		free(list[i].request);
	}
	free(list);
}
