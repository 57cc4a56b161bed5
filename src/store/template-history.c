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
 * template-history.c: a template's past, read back: every saved version
 * with who saved it and how its runs went, any version's document even
 * after the template was removed, and the version that last ran to
 * completion.  This is what "template history", "template diff" and a
 * gate's "changed since the last good run" read; nothing here writes.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* Versions oldest first, with their runs; removed templates included. */
static const char history_sql[] =
	"SELECT v.version, v.saved_at, v.saved_by, v.description,"
	" (SELECT count(*) FROM workflows w WHERE w.template_name = t.name"
	"  AND w.template_version = v.version),"
	" (SELECT count(*) FROM workflows w WHERE w.template_name = t.name"
	"  AND w.template_version = v.version AND w.status = 'completed')"
	" FROM workflow_templates t JOIN template_versions v"
	" ON v.template_id = t.id WHERE t.name = ? ORDER BY v.version";
static const char removed_sql[] =
	"SELECT coalesce(cancelled_at, 0) FROM workflow_templates"
	" WHERE name = ?";
/* A version of a template whether or not it was removed; 0 the latest. */
static const char any_version_sql[] =
	"SELECT t.id, v.version, t.created_at, v.saved_at, t.cancelled_at,"
	" t.name, v.description, v.document, v.flow_json, v.input_json,"
	" t.created_by, v.saved_by"
	" FROM workflow_templates t JOIN template_versions v"
	" ON v.template_id = t.id"
	" WHERE t.name = ?1 AND v.version = CASE WHEN ?2 > 0 THEN ?2"
	" ELSE t.version END";
static const char last_completed_sql[] =
	"SELECT template_version FROM workflows WHERE template_name = ?"
	" AND status = 'completed' AND template_version IS NOT NULL"
	" ORDER BY completed_at DESC, id DESC LIMIT 1";

static int	store_template_version_read(struct store_stmt *, void *,
		    char **);
static void	store_template_version_rows_free(void *, size_t);

static const struct store_rows store_template_version_rows = {
	.what = "read template history",
	.size = sizeof (struct store_template_version),
	.fill = store_template_version_read,
	.free = store_template_version_rows_free
};

/* Fill one version from the current row of history_sql. */
static int
store_template_version_read(struct store_stmt *st, void *p, char **cause)
{
	struct store_template_version	*v = p;

	memset(v, 0, sizeof *v);
	v->version = store_col_int64(st, 0);
	v->saved_at = store_col_int64(st, 1);
	v->saved_by = store_column_text(st, 2);
	v->description = store_column_text(st, 3);
	v->runs = store_col_int64(st, 4);
	v->completed = store_col_int64(st, 5);
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read array. */
static void
store_template_version_rows_free(void *list, size_t n)
{
	store_template_versions_free(list, n);
}

/*
 * Every version of the named template, oldest first, and when it was
 * removed (0 if it is live).  A name never saved is STORE_NOTFOUND.
 */
int
store_template_history(struct store *s, const char *name,
    struct store_template_version **listp, size_t *np, int64_t *removed_at,
    char **cause)
{
	struct store_stmt	*st;
	void			*list = NULL;
	int			 rc;

	*listp = NULL;
	*np = 0;
	*removed_at = 0;
	if ((rc = store_prepare(s, removed_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_text(st, 1, name) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s),
		    "read template history", cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW)
		*removed_at = store_col_int64(st, 0);
	store_stmt_finalize(st);
	if (rc == STORE_DRV_DONE) {
		xasprintf(cause, "no template \"%s\"", name);
		return (STORE_NOTFOUND);
	}
	if (rc != STORE_DRV_ROW)
		return (store_fail(s, rc, "read template history", cause));

	if ((rc = store_prepare(s, history_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_text(st, 1, name) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s),
		    "read template history", cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_template_version_rows, &list, np,
	    cause);
	*listp = list;
	return (rc);
}

/*
 * Read any saved version of a template, removed or not (0: the latest);
 * t->cancelled_at says whether it was removed.
 */
int
store_template_get_any(struct store *s, const char *name, int64_t version,
    struct store_template **tp, char **cause)
{
	return (store_template_read(s, any_version_sql, name, version, tp,
	    cause));
}

/*
 * The version of the named template whose run completed last, in
 * *version (0 when none has completed).
 */
int
store_template_last_completed(struct store *s, const char *name,
    int64_t *version, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*version = 0;
	if ((rc = store_prepare(s, last_completed_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_text(st, 1, name) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s),
		    "find the last completed run", cause);
		goto out;
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*version = store_col_int64(st, 0);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "find the last completed run", cause);
out:
	store_stmt_finalize(st);
	return (rc);
}

/* Free a history from store_template_history. */
void
store_template_versions_free(struct store_template_version *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(list[i].saved_by);
		free(list[i].description);
	}
	free(list);
}
