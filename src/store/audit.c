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
 * audit.c: the append-only audit trail of operator actions: who, when,
 * from which tty and host, what, on what, and why.  UPDATE and DELETE on
 * the table are refused by triggers (schema.c), so only INSERT lives here.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char audit_insert_sql[] =
	"INSERT INTO audit (at, who, uid, tty, host, action, target,"
	" workflow_id, step_id, comment, detail_json)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char audit_list_sql[] =
	"SELECT id, at, workflow_id, step_id, who, tty, host, action, target,"
	" comment, detail_json FROM audit ORDER BY id DESC LIMIT ?";

/* The name an actor is recorded under; this process's user if none. */
const char *
store_actor_name(const struct store_actor *actor)
{
	if (actor != NULL && actor->user != NULL)
		return (actor->user);
	return (user_self()->name);
}

/* Append an audit row inside the caller's transaction. */
int
store_audit_insert(struct store *s, const struct store_actor *actor,
    const struct store_audit_entry *e, char **cause)
{
	const struct user_info	*self = NULL;
	sqlite3_stmt		*st;
	const char		*tty, *host;
	uid_t			 uid;
	int			 rc, bad = 0;

	if (actor == NULL) {
		self = user_self();
		uid = self->uid;
		tty = self->tty;
		host = self->host;
	} else {
		uid = actor->uid;
		tty = actor->tty;
		host = actor->host;
	}
	if ((rc = store_prepare(s, audit_insert_sql, &st, cause)) != 0)
		return (rc);
	bad |= sqlite3_bind_int64(st, 1, time_now_ms());
	bad |= store_bind_text(st, 2, store_actor_name(actor));
	bad |= sqlite3_bind_int64(st, 3, (int64_t)uid);
	bad |= store_bind_text(st, 4, tty);
	bad |= store_bind_text(st, 5, host);
	bad |= store_bind_text(st, 6, e->action);
	bad |= store_bind_text(st, 7, e->target);
	bad |= store_bind_time(st, 8, e->workflow_id);
	bad |= store_bind_time(st, 9, e->step_id);
	bad |= store_bind_text(st, 10, e->comment);
	bad |= store_bind_text(st, 11, e->detail_json);
	if (bad != SQLITE_OK)
		rc = store_fail(s, sqlite3_errcode(s->db), "insert audit",
		    cause);
	else
		rc = store_step_done(s, st, "insert audit", cause);
	sqlite3_finalize(st);
	return (rc);
}

/* Append an audit row, in its own transaction unless one is open. */
int
store_audit_add(struct store *s, const struct store_actor *actor,
    const struct store_audit_entry *e, char **cause)
{
	int	 rc;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	rc = store_audit_insert(s, actor, e, cause);
	return (store_finish(s, rc, cause));
}

/* Fill one audit entry from a row of audit_list_sql. */
static void
store_audit_row(sqlite3_stmt *st, void *p)
{
	struct store_audit	*a = p;

	a->id = sqlite3_column_int64(st, 0);
	a->at = sqlite3_column_int64(st, 1);
	a->workflow_id = sqlite3_column_int64(st, 2);
	a->step_id = sqlite3_column_int64(st, 3);
	a->who = store_column_text(st, 4);
	a->tty = store_column_text(st, 5);
	a->host = store_column_text(st, 6);
	a->action = store_column_text(st, 7);
	a->target = store_column_text(st, 8);
	a->comment = store_column_text(st, 9);
	a->detail_json = store_column_text(st, 10);
}

/* Free a partly read array of audit entries. */
static void
store_audit_rows_free(void *list, size_t n)
{
	store_audits_free(list, n);
}

const struct store_rows store_audit_rows = {
	.what = "list audit",
	.size = sizeof (struct store_audit),
	.fill = store_audit_row,
	.free = store_audit_rows_free
};

/* The newest audit rows, newest first. */
int
store_audit_list(struct store *s, int64_t limit, struct store_audit **listp,
    size_t *np, char **cause)
{
	sqlite3_stmt	*st;
	void		*list;
	int		 rc;

	*listp = NULL;
	*np = 0;
	if (limit <= 0)
		limit = 50;
	if ((rc = store_prepare(s, audit_list_sql, &st, cause)) != 0)
		return (rc);
	if (sqlite3_bind_int64(st, 1, limit) != SQLITE_OK) {
		rc = store_fail(s, sqlite3_errcode(s->db), "list audit",
		    cause);
		sqlite3_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_audit_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Free an array from store_audit_list. */
void
store_audits_free(struct store_audit *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].who);
		free(list[i].tty);
		free(list[i].host);
		free(list[i].action);
		free(list[i].target);
		free(list[i].comment);
		free(list[i].detail_json);
	}
	free(list);
}
