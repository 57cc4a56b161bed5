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
 * chain.c: what makes the audit trail tamper-evident.  Each audit row
 * carries the hash of the row before it (prev_hash) and its own hash, a
 * SHA-256 over that and the row's contents; audit_head keeps the newest
 * row's id and hash, so removing the newest rows is seen too.  Inbox rows
 * carry a seal (a hash of their contents) and approvals the id of the
 * audit row that recorded them, so rows written around sluice with
 * sqlite3 stand out.  None of this is a signature: whoever can write the
 * database and reads this file can compute the same hashes; it catches
 * careless and casual forgery, and the copy in syslog and service mode
 * (where members cannot write at all) do the rest.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The hash before the first row. */
const char store_chain_genesis[SHA256_HEX] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* The v4 migration's reads run before version 9 added via: NULL there. */
static const char chain_rows_v4_sql[] =
	"SELECT id, at, who, uid, tty, host, action, target, workflow_id,"
	" step_id, comment, detail_json, prev_hash, hash, NULL, NULL FROM audit"
	" ORDER BY id";
static const char chain_rows_sql[] =
	"SELECT id, at, who, uid, tty, host, action, target, workflow_id,"
	" step_id, comment, detail_json, prev_hash, hash, via, node FROM audit"
	" ORDER BY id";
static const char chain_set_sql[] =
	"UPDATE audit SET prev_hash = ?, hash = ? WHERE id = ?";
static const char chain_head_set_sql[] =
	"INSERT OR REPLACE INTO audit_head (id, last_id, hash)"
	" VALUES (1, ?, ?)";
static const char chain_head_sql[] =
	"SELECT last_id, hash FROM audit_head WHERE id = 1";
static const char chain_link_sql[] =
	"UPDATE approvals SET audit_id = (SELECT max(a.id) FROM audit a"
	" WHERE a.step_id = approvals.step_id AND a.who = approvals.who"
	" AND a.action = approvals.decision)";
static const char chain_inbox_v4_sql[] =
	"SELECT id, posted_at, uid, who, tty, host, command, workflow_id,"
	" step_id, args_json, seal, NULL, NULL, NULL FROM inbox ORDER BY id";
static const char chain_inbox_sql[] =
	"SELECT id, posted_at, uid, who, tty, host, command, workflow_id,"
	" step_id, args_json, seal, via, request, node FROM inbox"
	" ORDER BY id";
static const char chain_orphan_sql[] =
	"SELECT p.id, p.decision, p.who, p.step_id FROM approvals p"
	" WHERE NOT EXISTS (SELECT 1 FROM audit a WHERE a.id = p.audit_id"
	" AND a.action = p.decision AND a.who = p.who"
	" AND a.step_id = p.step_id) ORDER BY p.id";
static const char chain_seal_sql[] =
	"UPDATE inbox SET seal = ? WHERE id = ?";

static void	chain_text(struct sha256 *, const char *);
static void	chain_inbox_read(struct store_stmt *, struct store_inbox *);
static void	chain_int(struct sha256 *, int64_t);
static void	chain_row_read(struct store_stmt *, struct store_chain_row *);

/* Hash a text field: its length first, so fields cannot run together. */
static void
chain_text(struct sha256 *c, const char *s)
{
	char	 n[32];

	if (s == NULL) {
		sha256_update(c, "N;", 2);
		return;
	}
	snprintf(n, sizeof n, "T%zu:", strlen(s));
	sha256_update(c, n, strlen(n));
	sha256_update(c, s, strlen(s));
	sha256_update(c, ";", 1);
}

/* Hash a number field (0 is how an absent id is kept: NULL). */
static void
chain_int(struct sha256 *c, int64_t v)
{
	char	 n[32];

	snprintf(n, sizeof n, "I%" PRId64 ";", v);
	sha256_update(c, n, strlen(n));
}

/* The hash of an audit row following the row whose hash is prev. */
void
store_chain_hash(const struct store_chain_row *r, const char *prev, char *out)
{
	struct sha256	 c;

	sha256_init(&c);
	sha256_update(&c, "sluice-audit-1;", 15);
	chain_text(&c, prev);
	chain_int(&c, r->id);
	chain_int(&c, r->at);
	chain_text(&c, r->who);
	chain_int(&c, r->uid);
	chain_text(&c, r->tty);
	chain_text(&c, r->host);
	chain_text(&c, r->action);
	chain_text(&c, r->target);
	chain_int(&c, r->workflow_id);
	chain_int(&c, r->step_id);
	chain_text(&c, r->comment);
	chain_text(&c, r->detail_json);
	/* Absent on rows older than version 9, whose hashes stay as they were. */
	if (r->via != NULL) {
		sha256_update(&c, "via;", 4);
		chain_text(&c, r->via);
	}
	if (r->node != NULL) {	/* since version 17; as via */
		sha256_update(&c, "node;", 5);
		chain_text(&c, r->node);
	}
	sha256_hex(&c, out);
}

/* The seal of an inbox row: a hash of everything the engine acts on. */
void
store_chain_seal(const struct store_inbox *m, char *out)
{
	struct sha256	 c;

	sha256_init(&c);
	sha256_update(&c, "sluice-inbox-1;", 15);
	chain_int(&c, m->id);
	chain_int(&c, m->posted_at);
	chain_int(&c, m->uid);
	chain_text(&c, m->who);
	chain_text(&c, m->tty);
	chain_text(&c, m->host);
	chain_text(&c, m->command);
	chain_int(&c, m->workflow_id);
	chain_int(&c, m->step_id);
	chain_text(&c, m->args_json);
	if (m->via != NULL) {
		sha256_update(&c, "via;", 4);
		chain_text(&c, m->via);
	}
	if (m->request != NULL) {	/* since version 14; as via */
		sha256_update(&c, "request;", 8);
		chain_text(&c, m->request);
	}
	if (m->node != NULL) {	/* since version 17; as via */
		sha256_update(&c, "node;", 5);
		chain_text(&c, m->node);
	}
	sha256_hex(&c, out);
}

/* Does an inbox row carry the seal sluice put on it? */
int
store_inbox_sealed(const struct store_inbox *m)
{
	char	 want[SHA256_HEX];

	store_chain_seal(m, want);
	return (m->seal != NULL && strcmp(m->seal, want) == 0);
}

/* Read an inbox row of chain_inbox_sql (strings point into st). */
static void
chain_inbox_read(struct store_stmt *st, struct store_inbox *m)
{
	memset(m, 0, sizeof *m);
	m->id = store_col_int64(st, 0);
	m->posted_at = store_col_int64(st, 1);
	m->uid = store_col_int64(st, 2);
	m->who = (char *)store_col_text(st, 3);
	m->tty = (char *)store_col_text(st, 4);
	m->host = (char *)store_col_text(st, 5);
	m->command = (char *)store_col_text(st, 6);
	m->workflow_id = store_col_int64(st, 7);
	m->step_id = store_col_int64(st, 8);
	m->args_json = (char *)store_col_text(st, 9);
	m->seal = (char *)store_col_text(st, 10);
	m->via = (char *)store_col_text(st, 11);
	m->request = (char *)store_col_text(st, 12);
	m->node = (char *)store_col_text(st, 13);
}

/* Read an audit row of chain_rows_sql (strings point into st). */
static void
chain_row_read(struct store_stmt *st, struct store_chain_row *r)
{
	r->id = store_col_int64(st, 0);
	r->at = store_col_int64(st, 1);
	r->who = store_col_text(st, 2);
	r->uid = store_col_int64(st, 3);
	r->tty = store_col_text(st, 4);
	r->host = store_col_text(st, 5);
	r->action = store_col_text(st, 6);
	r->target = store_col_text(st, 7);
	r->workflow_id = store_col_int64(st, 8);
	r->step_id = store_col_int64(st, 9);
	r->comment = store_col_text(st, 10);
	r->detail_json = store_col_text(st, 11);
	r->via = store_col_text(st, 14);
	r->node = store_col_text(st, 15);
}

/*
 * Migration to version 4: chain the rows already there in id order, set
 * the head, link approvals to the audit rows that recorded them and seal
 * the inbox.  Runs inside the migration's transaction, with the audit
 * table's no-update trigger dropped for the while.
 */
int
store_chain_migrate(struct store *s, char **cause)
{
	struct store_chain_row	 r;
	struct store_inbox	 m;
	struct store_stmt	*st;
	char			 prev[SHA256_HEX], h[SHA256_HEX];
	int64_t			 last = 0;
	int			 rc;

	memcpy(prev, store_chain_genesis, sizeof prev);
	if ((rc = store_prepare(s, chain_rows_v4_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		chain_row_read(st, &r);
		store_chain_hash(&r, prev, h);
		if (store_runf(s, "chain audit", chain_set_sql, "tti", prev, h,
		    r.id) != 0)
			break;
		memcpy(prev, h, sizeof prev);
		last = r.id;
	}
	store_stmt_finalize(st);
	if (rc != STORE_DRV_DONE) {
		xasprintf(cause, "%s: chain the audit trail: %s", s->path,
		    store_last_error(s) != NULL ? store_last_error(s) :
		    store_errmsg(s));
		return (STORE_ERR);
	}
	if (store_runf(s, "audit head", chain_head_set_sql, "it", last,
	    prev) != 0 || store_runf(s, "link approvals", chain_link_sql,
	    "") != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		return (STORE_ERR);
	}
	if ((rc = store_prepare(s, chain_inbox_v4_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		chain_inbox_read(st, &m);
		store_chain_seal(&m, h);
		if (store_runf(s, "seal inbox", chain_seal_sql, "ti", h,
		    m.id) != 0)
			break;
	}
	store_stmt_finalize(st);
	if (rc != STORE_DRV_DONE) {
		xasprintf(cause, "%s: seal the inbox: %s", s->path,
		    store_last_error(s) != NULL ? store_last_error(s) :
		    store_errmsg(s));
		return (STORE_ERR);
	}
	return (0);
}

/* Add a problem to a verification's list. */
static void
chain_problem(struct store_verify *v, int64_t row, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	v->problems = xreallocarray(v->problems, v->nproblems + 1,
	    sizeof *v->problems);
	v->problems[v->nproblems++] = msg;
	if (row != 0 && v->bad_row == 0)
		v->bad_row = row;
}

/* Why a row does not follow the one before it (or the start). */
static void
chain_break(struct store_verify *v, int64_t id, int64_t before)
{
	if (before == 0 && id > 1)
		chain_problem(v, 1, "audit rows 1 to %" PRId64 " were removed "
		    "(row %" PRId64 " does not follow the start of the trail)",
		    id - 1, id);
	else if (before == 0)
		chain_problem(v, id, "audit row %" PRId64 " does not follow "
		    "the start of the trail: it was changed or inserted", id);
	else if (id == before + 2)
		chain_problem(v, id - 1, "audit row %" PRId64 " was removed "
		    "(row %" PRId64 " does not follow row %" PRId64 ")",
		    id - 1, id, before);
	else if (id > before + 2)
		chain_problem(v, before + 1, "audit rows %" PRId64 " to %"
		    PRId64 " were removed (row %" PRId64 " does not follow "
		    "row %" PRId64 ")", before + 1, id - 1, id, before);
	else
		chain_problem(v, id, "audit row %" PRId64 " does not follow "
		    "row %" PRId64 ": a row before it was removed or it was "
		    "inserted out of order", id, before);
}

/* The head record: the newest row's id and hash (NULL: missing). */
static int
chain_head_read(struct store *s, int64_t *id, char **hash, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*id = 0;
	*hash = NULL;
	if ((rc = store_prepare(s, chain_head_sql, &st, cause)) != 0)
		return (rc);
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		*id = store_col_int64(st, 0);
		*hash = store_column_text(st, 1);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "read audit head", cause);
	store_stmt_finalize(st);
	return (rc);
}

/* Walk the chain; the first break (and the end against the head). */
static int
chain_walk(struct store *s, struct store_verify *v, char **cause)
{
	struct store_chain_row	 r;
	struct store_stmt	*st;
	const char		*stored_prev, *stored;
	char			 prev[SHA256_HEX], h[SHA256_HEX];
	int64_t			 before = 0, head_id;
	char			*head_hash = NULL;
	int			 rc, broken = 0;

	memcpy(prev, store_chain_genesis, sizeof prev);
	if ((rc = store_prepare(s, chain_rows_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		chain_row_read(st, &r);
		v->rows++;
		stored_prev = store_col_text(st, 12);
		stored = store_col_text(st, 13);
		if (!broken && (stored_prev == NULL ||
		    strcmp(stored_prev, prev) != 0)) {
			chain_break(v, r.id, before);
			broken = 1;
		}
		store_chain_hash(&r, stored_prev != NULL ? stored_prev : "", h);
		if (!broken && (stored == NULL || strcmp(stored, h) != 0)) {
			chain_problem(v, r.id, "audit row %" PRId64 " was "
			    "changed: its hash does not match what it says",
			    r.id);
			broken = 1;
		}
		strlcpy(prev, stored != NULL ? stored : "", sizeof prev);
		before = r.id;
	}
	store_stmt_finalize(st);
	if (rc != STORE_DRV_DONE)
		return (store_fail(s, rc, "verify audit", cause));
	free(v->head);
	v->head = xstrdup(prev);
	if ((rc = chain_head_read(s, &head_id, &head_hash, cause)) != 0)
		return (rc);
	if (head_hash == NULL) {
		chain_problem(v, 0, "the audit trail's head record is missing "
		    "(audit_head)");
		return (0);
	}
	if (head_id > before)
		chain_problem(v, before + 1, "audit rows after row %" PRId64
		    " were removed: the trail's head is row %" PRId64, before,
		    head_id);
	else if (head_id < before)
		chain_problem(v, head_id + 1, "audit row %" PRId64 " was "
		    "added after the newest row sluice wrote (row %" PRId64 ")",
		    head_id + 1, head_id);
	else if (!broken && (head_hash == NULL || strcmp(head_hash, prev) != 0))
		chain_problem(v, before, "audit row %" PRId64 " was changed: "
		    "the trail's head holds another hash", before);
	free(head_hash);
	return (0);
}

/* Rows beside the chain that sluice did not write: approvals, inbox. */
static int
chain_cross(struct store *s, struct store_verify *v, char **cause)
{
	static const char	*triggers[] = {
		"audit_no_update", "audit_no_delete"
	};
	struct store_inbox	 m;
	struct store_stmt	*st;
	int64_t			 n;
	size_t			 i;
	int			 rc;

	for (i = 0; i < nitems(triggers); i++) {
		if (store_int64f(s, "verify triggers", &n, "SELECT count(*)"
		    " FROM sqlite_master WHERE type = 'trigger' AND name = ?",
		    "t", triggers[i]) != 0) {
			xasprintf(cause, "%s", store_last_error(s));
			return (STORE_ERR);
		}
		if (n == 0)
			chain_problem(v, 0, "the trigger %s, which keeps the "
			    "audit trail append-only, was dropped",
			    triggers[i]);
	}
	if ((rc = store_prepare(s, chain_orphan_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		chain_problem(v, 0, "approval %" PRId64 " (%s by %s on step %"
		    PRId64 ") has no audit row: sluice did not write it",
		    (int64_t)store_col_int64(st, 0),
		    store_col_text(st, 1),
		    store_col_text(st, 2),
		    (int64_t)store_col_int64(st, 3));
	}
	store_stmt_finalize(st);
	if (rc != STORE_DRV_DONE)
		return (store_fail(s, rc, "verify approvals", cause));
	if ((rc = store_prepare(s, chain_inbox_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		chain_inbox_read(st, &m);
		if (!store_inbox_sealed(&m))
			chain_problem(v, 0, "inbox command %" PRId64 " (%s as "
			    "%s) has no valid seal: sluice did not post it",
			    m.id, m.command, m.who);
	}
	store_stmt_finalize(st);
	if (rc != STORE_DRV_DONE)
		return (store_fail(s, rc, "verify inbox", cause));
	return (0);
}

/*
 * Check the audit trail: its chain from the first row to the head, its
 * triggers, and the approvals and inbox rows that should have been
 * written by sluice.  0 with v filled (no problems: intact), or an error.
 */
int
store_audit_verify(struct store *s, struct store_verify *v, char **cause)
{
	int	 rc;

	memset(v, 0, sizeof *v);
	if ((rc = chain_walk(s, v, cause)) != 0)
		return (rc);
	return (chain_cross(s, v, cause));
}

/* Free what a verification holds. */
void
store_verify_clear(struct store_verify *v)
{
	size_t	 i;

	for (i = 0; i < v->nproblems; i++)
		free(v->problems[i]);
	free(v->problems);
	free(v->head);
	memset(v, 0, sizeof *v);
}
