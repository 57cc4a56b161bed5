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
 * the table are refused by triggers (schema.c), so only INSERT lives here;
 * each row is hash-chained to the one before (chain.c) and copied to
 * syslog once its transaction commits (syslog.c).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char audit_insert_sql[] =
	"INSERT INTO audit (id, at, who, uid, tty, host, action, target,"
	" workflow_id, step_id, comment, detail_json, prev_hash, hash, via,"
	" node) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
/* One statement, one round trip on a server: the head, the last row. */
static const char audit_head_sql[] =
	"SELECT " STORE_AUDIT_HEAD_COLUMNS;
static const char audit_head_set_sql[] =
	"INSERT OR REPLACE INTO audit_head (id, last_id, hash)"
	" VALUES (1, ?, ?)";
static const char audit_list_sql[] =
	"SELECT " STORE_AUDIT_COLUMNS " FROM audit ORDER BY id DESC LIMIT ?";

/* The newest refusal for accounts that differ, and how many (status). */
static const char audit_accounts_sql[] =
	"SELECT count(*), max(id) FROM audit"
	" WHERE id > (SELECT coalesce(max(id), 0) FROM audit) - ?"
	" AND at >= ? AND action LIKE '%-refused'"
	" AND comment LIKE '%" STORE_ACCOUNTS_DIFFER "%'";
static const char audit_comment_sql[] =
	"SELECT comment FROM audit WHERE id = ?";

/* The name an actor is recorded under; this process's user if none. */
const char *
store_actor_name(const struct store_actor *actor)
{
	if (actor != NULL && actor->user != NULL)
		return (actor->user);
	return (user_self()->name);
}

/*
 * Where the next row goes and what it follows, from the STORE_AUDIT_HEAD_
 * COLUMNS at col of a row just read: after the head (the newest row
 * sluice wrote), or after a row someone added past it, so an added or
 * removed row breaks the chain where it was rather than being papered
 * over.  A missing head starts again from the genesis hash, which the
 * next verification reports.  Kept until the write transaction ends
 * (struct store_audit_head: under its lock nobody else writes audit
 * rows); outside one it is used once, and the next row reads it again.
 */
void
store_audit_head_keep(struct store *s, struct store_stmt *st, int col)
{
	struct store_audit_head	*h = &s->audit_head;
	int64_t			 max;

	h->next = store_col_int64(st, col);
	strlcpy(h->hash, store_chain_genesis, sizeof h->hash);
	if (store_col_text(st, col + 1) != NULL)
		strlcpy(h->hash, store_col_text(st, col + 1), sizeof h->hash);
	max = store_col_int64(st, col + 2);
	if (max > h->next)
		h->next = max;
	h->next++;
	h->kept = s->depth > 0;
}

/* Forget the kept head: the next row reads it again. */
static void
store_audit_head_drop(struct store *s)
{
	s->audit_head.kept = 0;
}

/*
 * A level of store_begin ended, committed or not: what the trail kept
 * for it goes.  Its rows' syslog copies are sent once the whole
 * transaction committed, passed to the level outside when a nested one
 * did, dropped when it rolled back (syslog.c).  The kept head is
 * forgotten when the transaction ends (the write lock goes with it, and
 * another writer may come next) and at any rollback (the rows it counted
 * may be gone).
 */
void
store_audit_level_end(struct store *s, int committed)
{
	if (!committed) {
		store_syslog_drop(s, s->depth);
		store_audit_head_drop(s);
	} else if (s->depth == 1) {
		store_syslog_release(s, 1);
		if (!s->syslog_later)
			store_syslog_send(s);
		store_audit_head_drop(s);
	} else
		store_syslog_release(s, s->depth);
}

/*
 * Where the next row goes and what it follows: the kept head, or read
 * now (one round trip on a server) and kept.
 */
static int
store_audit_next(struct store *s, int64_t *id, char *prev, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if (!s->audit_head.kept) {
		if ((rc = store_stmt(s, audit_head_sql, &st, cause)) != 0)
			return (rc);
		if ((rc = store_stmt_step(st)) == STORE_DRV_ROW)
			store_audit_head_keep(s, st, 0);
		store_release(s, st);
		if (rc != STORE_DRV_ROW)
			return (store_fail(s, rc, "read audit head", cause));
	}
	*id = s->audit_head.next;
	strlcpy(prev, s->audit_head.hash, SHA256_HEX);
	return (0);
}

/*
 * Append an audit row inside the caller's transaction, chained to the
 * one before (chain.c), and queue its copy for syslog (sent on commit).
 */
int
store_audit_insert(struct store *s, const struct store_actor *actor,
    const struct store_audit_entry *e, char **cause)
{
	const struct user_info	*self = user_self();
	struct store_chain_row	 r;
	char			 prev[SHA256_HEX], hash[SHA256_HEX];
	int			 rc;

	memset(&r, 0, sizeof r);
	r.at = time_now_ms();
	r.who = store_actor_name(actor);
	r.uid = actor != NULL ? (int64_t)actor->uid : (int64_t)self->uid;
	r.tty = actor != NULL ? actor->tty : self->tty;
	r.host = actor != NULL ? actor->host : self->host;
	r.action = e->action;
	r.target = e->target;
	r.workflow_id = e->workflow_id;
	r.step_id = e->step_id;
	r.comment = e->comment;
	r.detail_json = e->detail_json;
	r.via = actor != NULL ? actor->via : NULL;
	r.node = actor != NULL ? actor->node : NULL;
	if ((rc = store_audit_next(s, &r.id, prev, cause)) != 0)
		return (rc);
	store_chain_hash(&r, prev, hash);
	if (store_runf(s, "insert audit", audit_insert_sql,
	    "iitittttTTtttttt", r.id, r.at, r.who, r.uid, r.tty, r.host,
	    r.action, r.target, r.workflow_id, r.step_id, r.comment,
	    r.detail_json, prev, hash, r.via, r.node) != 0 ||
	    store_runf(s, "audit head", audit_head_set_sql, "it", r.id,
	    hash) != 0) {
		/* Which of the two stands is unknown: read it again. */
		store_audit_head_drop(s);
		xasprintf(cause, "%s", store_last_error(s));
		return (STORE_ERR);
	}
	s->audit_head.next = r.id + 1;
	strlcpy(s->audit_head.hash, hash, sizeof s->audit_head.hash);
	s->last_audit_id = r.id;
	store_syslog_queue(s, &r);
	return (0);
}

/* The id of the audit row this connection wrote last. */
int64_t
store_audit_last(const struct store *s)
{
	return (s->last_audit_id);
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
static int
store_audit_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_audit	*a = p;

	a->id = store_col_int64(st, 0);
	a->at = store_col_int64(st, 1);
	a->workflow_id = store_col_int64(st, 2);
	a->step_id = store_col_int64(st, 3);
	a->who = store_column_text(st, 4);
	a->tty = store_column_text(st, 5);
	a->host = store_column_text(st, 6);
	a->action = store_column_text(st, 7);
	a->target = store_column_text(st, 8);
	a->comment = store_column_text(st, 9);
	a->detail_json = store_column_text(st, 10);
	a->uid = store_col_int64(st, 11);
	a->hash = store_column_text(st, 12);
	a->via = store_column_text(st, 13);
	a->node = store_column_text(st, 14);
	(void)cause;
	return (0);
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
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if (limit <= 0)
		limit = 50;
	if ((rc = store_prepare(s, audit_list_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, limit) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "list audit",
		    cause);
		store_stmt_finalize(st);
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
		free(list[i].hash);
		free(list[i].via);
		free(list[i].node);
	}
	free(list);
}

/*
 * Commands a cluster's leader refused because the node they came through
 * names their uid otherwise (engine/relay-caller.c): how many among the
 * newest STORE_ACCOUNTS_ROWS audit rows since since (wall ms), and the
 * newest one's reason in *last (NULL when none; the caller frees).
 */
int
store_audit_accounts(struct store *s, int64_t since, int64_t *n, char **last,
    char **cause)
{
	struct store_stmt	*st;
	int64_t			 id = 0;
	int			 rc;

	*n = 0;
	*last = NULL;
	if ((rc = store_prepare(s, audit_accounts_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, STORE_ACCOUNTS_ROWS) != STORE_DRV_OK ||
	    store_bind_int64(st, 2, since) != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "read audit", cause);
	else if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		*n = store_col_int64(st, 0);
		id = store_col_int64(st, 1);
		rc = 0;
	} else
		rc = store_fail(s, rc, "read audit", cause);
	store_stmt_finalize(st);
	if (rc != 0 || *n == 0)
		return (rc);
	if ((rc = store_prepare(s, audit_comment_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "read audit", cause);
	else if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		*last = store_column_text(st, 0);
		rc = 0;
	} else
		rc = store_fail(s, rc, "read audit", cause);
	store_stmt_finalize(st);
	return (rc);
}
