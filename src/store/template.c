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
 * template.c: templates: one row per name holding the current version,
 * every version kept in template_versions, soft delete through
 * cancelled_at.  Versions keep counting across delete and revival.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* What a save needs to know about the row already there. */
struct store_template_row {
	int64_t		 id;
	int64_t		 version;
	int		 deleted;
	char		*updated_by;
};

/* The columns store_template_row_read reads, in order. */
#define TEMPLATE_COLUMNS \
	"t.id, t.version, t.created_at, t.updated_at, t.cancelled_at," \
	" t.name, t.description, t.document, t.flow_json, t.input_json," \
	" t.created_by, t.updated_by"

static const char template_lookup_sql[] =
	"SELECT id, version, cancelled_at IS NOT NULL, updated_by"
	" FROM workflow_templates WHERE name = ?";
static const char template_insert_sql[] =
	"INSERT INTO workflow_templates (updated_at, name, flow_json,"
	" input_json, description, created_by, version, document,"
	" updated_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char template_update_sql[] =
	"UPDATE workflow_templates SET updated_at = ?, flow_json = ?,"
	" input_json = ?, description = ?, version = ?, document = ?,"
	" updated_by = ?, cancelled_at = NULL WHERE id = ?";
static const char template_version_sql[] =
	"INSERT INTO template_versions (template_id, version, document,"
	" flow_json, input_json, description, saved_by, saved_at)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char template_remove_sql[] =
	"UPDATE workflow_templates SET cancelled_at = ?, updated_at = ?"
	" WHERE id = ?";
static const char template_get_sql[] =
	"SELECT " TEMPLATE_COLUMNS " FROM workflow_templates t"
	" WHERE t.name = ? AND t.cancelled_at IS NULL";
static const char template_get_version_sql[] =
	"SELECT t.id, v.version, t.created_at, v.saved_at, t.cancelled_at,"
	" t.name, v.description, v.document, v.flow_json, v.input_json,"
	" t.created_by, v.saved_by"
	" FROM workflow_templates t JOIN template_versions v"
	" ON v.template_id = t.id"
	" WHERE t.name = ? AND t.cancelled_at IS NULL AND v.version = ?";
static const char template_list_sql[] =
	"SELECT " TEMPLATE_COLUMNS " FROM workflow_templates t"
	" WHERE t.cancelled_at IS NULL ORDER BY t.name";

static int	 store_template_lookup(struct store *, const char *,
		     struct store_template_row *, char **);
static int	 store_template_check(const struct store_template_save *,
		     const struct store_template_row *, int, char **);
static int	 store_template_write(struct store *,
		     const struct store_template_save *,
		     const struct store_actor *, struct store_template_row *,
		     int, char **);
static int	 store_template_audit(struct store *,
		     const struct store_actor *, const char *, const char *,
		     int64_t, const char *, char **);
static void	 store_template_clear(struct store_template *);

/* Find the row for a name: 0 found, STORE_NOTFOUND none, or an error. */
static int
store_template_lookup(struct store *s, const char *name,
    struct store_template_row *row, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(row, 0, sizeof *row);
	if ((rc = store_prepare(s, template_lookup_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_text(st, 1, name) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "find template",
		    cause);
		goto out;
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		row->id = store_col_int64(st, 0);
		row->version = store_col_int64(st, 1);
		row->deleted = store_col_int(st, 2);
		row->updated_by = store_column_text(st, 3);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = STORE_NOTFOUND;
	else
		rc = store_fail(s, rc, "find template", cause);
out:
	store_stmt_finalize(st);
	return (rc);
}

/* Refuse a save whose expected version is not the one stored. */
static int
store_template_check(const struct store_template_save *sv,
    const struct store_template_row *row, int found, char **cause)
{
	int	 live = found && !row->deleted;

	if (sv->expect_version < 0)
		return (0);
	if (sv->expect_version == 0 && !live)
		return (0);
	if (sv->expect_version > 0 && live &&
	    row->version == sv->expect_version)
		return (0);
	if (!live) {
		xasprintf(cause, "template %s was removed meanwhile",
		    sv->name);
	} else {
		xasprintf(cause, "template %s was changed meanwhile: now "
		    "version %lld by %s", sv->name, (long long)row->version,
		    row->updated_by != NULL ? row->updated_by : "?");
	}
	return (STORE_CONFLICT);
}

/* Insert or update the template row and add its version row. */
static int
store_template_write(struct store *s, const struct store_template_save *sv,
    const struct store_actor *actor, struct store_template_row *row,
    int found, char **cause)
{
	struct store_stmt	*st;
	const char		*who = store_actor_name(actor);
	int64_t			 now = time_now_ms(), version = row->version + 1;
	int			 rc, bad = 0;

	if (found) {
		if ((rc = store_prepare(s, template_update_sql, &st,
		    cause)) != 0)
			return (rc);
		bad |= store_bind_int64(st, 1, now);
		bad |= store_bind_text(st, 2, sv->flow_json);
		bad |= store_bind_text(st, 3, sv->input_json);
		bad |= store_bind_text(st, 4, sv->description);
		bad |= store_bind_int64(st, 5, version);
		bad |= store_bind_text(st, 6, sv->document);
		bad |= store_bind_text(st, 7, who);
		bad |= store_bind_int64(st, 8, row->id);
	} else {
		if ((rc = store_prepare(s, template_insert_sql, &st,
		    cause)) != 0)
			return (rc);
		bad |= store_bind_int64(st, 1, now);
		bad |= store_bind_text(st, 2, sv->name);
		bad |= store_bind_text(st, 3, sv->flow_json);
		bad |= store_bind_text(st, 4, sv->input_json);
		bad |= store_bind_text(st, 5, sv->description);
		bad |= store_bind_text(st, 6, who);
		bad |= store_bind_int64(st, 7, version);
		bad |= store_bind_text(st, 8, sv->document);
		bad |= store_bind_text(st, 9, who);
		bad |= store_bind_int64(st, 10, now);
	}
	if (bad != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "save template",
		    cause);
	else
		rc = store_step_done(s, st, "save template", cause);
	store_stmt_finalize(st);
	if (rc != 0)
		return (rc);
	if (!found)
		row->id = s->drv->last_insert_id(s->conn);
	row->version = version;

	if ((rc = store_prepare(s, template_version_sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_int64(st, 1, row->id);
	bad |= store_bind_int64(st, 2, version);
	bad |= store_bind_text(st, 3, sv->document);
	bad |= store_bind_text(st, 4, sv->flow_json);
	bad |= store_bind_text(st, 5, sv->input_json);
	bad |= store_bind_text(st, 6, sv->description);
	bad |= store_bind_text(st, 7, who);
	bad |= store_bind_int64(st, 8, now);
	if (bad != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "save template",
		    cause);
	else
		rc = store_step_done(s, st, "save template version", cause);
	store_stmt_finalize(st);
	return (rc);
}

/* Record a template change in the audit trail. */
static int
store_template_audit(struct store *s, const struct store_actor *actor,
    const char *action, const char *name, int64_t version,
    const char *secrets, char **cause)
{
	struct store_audit_entry	 e;
	char				*target, *detail;
	int				 rc;

	xasprintf(&target, "template %s", name);
	if (secrets != NULL)
		xasprintf(&detail, "{\"version\":%lld,\"secrets\":%s}",
		    (long long)version, secrets);
	else
		xasprintf(&detail, "{\"version\":%lld}", (long long)version);
	memset(&e, 0, sizeof e);
	e.action = action;
	e.target = target;
	e.detail_json = detail;
	rc = store_audit_insert(s, actor, &e, cause);
	free(detail);
	free(target);
	return (rc);
}

/* Save a new version of a template, checking the expected version. */
int
store_template_save(struct store *s, const struct store_template_save *sv,
    const struct store_actor *actor, int64_t *versionp, char **cause)
{
	struct store_template_row	 row;
	int				 rc, found;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	rc = store_template_lookup(s, sv->name, &row, cause);
	found = (rc == 0);
	if (rc == STORE_NOTFOUND)
		rc = 0;
	if (rc == 0)
		rc = store_template_check(sv, &row, found, cause);
	if (rc == 0)
		rc = store_template_write(s, sv, actor, &row, found, cause);
	if (rc == 0) {
		rc = store_template_audit(s, actor, "template save", sv->name,
		    row.version, sv->secrets_json, cause);
	}
	free(row.updated_by);
	if ((rc = store_finish(s, rc, cause)) != 0)
		return (rc);
	if (versionp != NULL)
		*versionp = row.version;
	return (0);
}

/* Soft-delete a live template. */
int
store_template_remove(struct store *s, const char *name,
    const struct store_actor *actor, char **cause)
{
	struct store_template_row	 row;
	struct store_stmt		*st;
	int64_t				 now = time_now_ms();
	int				 rc, bad = 0;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	rc = store_template_lookup(s, name, &row, cause);
	free(row.updated_by);
	if (rc == STORE_NOTFOUND || (rc == 0 && row.deleted)) {
		xasprintf(cause, "no template \"%s\"", name);
		rc = STORE_NOTFOUND;
	}
	if (rc != 0)
		goto out;

	if ((rc = store_prepare(s, template_remove_sql, &st, cause)) != 0)
		goto out;
	bad |= store_bind_int64(st, 1, now);
	bad |= store_bind_int64(st, 2, now);
	bad |= store_bind_int64(st, 3, row.id);
	if (bad != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "remove template",
		    cause);
	else
		rc = store_step_done(s, st, "remove template", cause);
	store_stmt_finalize(st);
	if (rc == 0) {
		rc = store_template_audit(s, actor, "template rm", name,
		    row.version, NULL, cause);
	}
out:
	return (store_finish(s, rc, cause));
}

/* Fill a template from the current row of a TEMPLATE_COLUMNS query. */
int
store_template_row_read(struct store_stmt *st, void *p, char **cause)
{
	struct store_template	*t = p;

	memset(t, 0, sizeof *t);
	t->id = store_col_int64(st, 0);
	t->version = store_col_int64(st, 1);
	t->created_at = store_col_int64(st, 2);
	t->updated_at = store_col_int64(st, 3);
	t->cancelled_at = store_col_int64(st, 4);
	t->name = store_column_text(st, 5);
	t->description = store_column_text(st, 6);
	t->document = store_column_text(st, 7);
	t->flow_json = store_column_text(st, 8);
	t->input_json = store_column_text(st, 9);
	t->created_by = store_column_text(st, 10);
	t->updated_by = store_column_text(st, 11);
	(void)cause;
	return (0);
}

/*
 * Read the one template row a query gives for a name (?1) and, when the
 * query has a second parameter, a version (?2); a missing row is
 * STORE_NOTFOUND with a reason naming what was asked for.
 */
int
store_template_read(struct store *s, const char *sql, const char *name,
    int64_t version, struct store_template **tp, char **cause)
{
	struct store_stmt	*st;
	int			 rc, bad = 0;

	*tp = NULL;
	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_text(st, 1, name);
	if (st->drv->parameters(st) >= 2)
		bad |= store_bind_int64(st, 2, version);
	if (bad != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "get template",
		    cause);
		goto out;
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*tp = xmalloc(sizeof **tp);
		store_template_row_read(st, *tp, cause);
		rc = 0;
	} else if (rc == STORE_DRV_DONE && version > 0) {
		xasprintf(cause, "no template \"%s\" version %lld", name,
		    (long long)version);
		rc = STORE_NOTFOUND;
	} else if (rc == STORE_DRV_DONE) {
		xasprintf(cause, "no template \"%s\"", name);
		rc = STORE_NOTFOUND;
	} else
		rc = store_fail(s, rc, "get template", cause);
out:
	store_stmt_finalize(st);
	return (rc);
}

/* Read a live template: its current version (0) or a given one. */
int
store_template_get(struct store *s, const char *name, int64_t version,
    struct store_template **tp, char **cause)
{
	return (store_template_read(s, version > 0 ?
	    template_get_version_sql : template_get_sql, name, version, tp,
	    cause));
}

/* store_rows' way to free a partly read array. */
static void
store_template_rows_free(void *list, size_t n)
{
	store_templates_free(list, n);
}

static const struct store_rows store_template_rows = {
	.what = "list templates",
	.size = sizeof (struct store_template),
	.fill = store_template_row_read,
	.free = store_template_rows_free
};

/* Every live template, by name. */
int
store_template_list(struct store *s, struct store_template **listp,
    size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, template_list_sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &store_template_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Free the strings a template owns, leaving the struct itself. */
static void
store_template_clear(struct store_template *t)
{
	free(t->name);
	free(t->description);
	free(t->document);
	free(t->flow_json);
	free(t->input_json);
	free(t->created_by);
	free(t->updated_by);
	memset(t, 0, sizeof *t);
}

/* Free one template from store_template_get. */
void
store_template_free(struct store_template *t)
{
	if (t == NULL)
		return;
	store_template_clear(t);
	free(t);
}

/* Free an array from store_template_list. */
void
store_templates_free(struct store_template *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		store_template_clear(&list[i]);
	free(list);
}
