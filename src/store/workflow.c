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
 * workflow.c: workflow rows: reading one, listing a window of them newest
 * first with the step each is at, inserting one, and freeing them.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The columns store_workflow_row reads, in order. */
#define WORKFLOW_COLUMNS \
	"w.id, w.updated_at, w.created_at, w.started_at, w.completed_at," \
	" w.cancelled_at, w.start_at, w.name, w.flow_json, w.input_json," \
	" w.status, w.created_by, w.template_name, w.template_version," \
	" w.error, w.paused, w.sla_ms, w.late_at, w.schedule_id, w.fire_at," \
	" (SELECT c.name FROM schedules c WHERE c.id = w.schedule_id)," \
	" w.output_json, w.parent_id, w.parent_step_id, w.depth," \
	" (SELECT p.name FROM workflows p WHERE p.id = w.parent_id)," \
	" w.created_via, w.conc_key, w.conc_limit, " STORE_RUN_BEHIND("w") ","\
	" " STORE_RUN_WAITING("w") ","

/*
 * The step a workflow is at: its newest unfinished step, else its newest
 * step.  Both walk the (workflow_id, id) index backwards and stop at one.
 */
#define WORKFLOW_CURRENT_STEP \
	" COALESCE((SELECT s.name FROM workflow_steps s" \
	"  WHERE s.workflow_id = w.id AND s.status NOT IN" \
	"  ('done', 'skipped', 'cancelled', 'failed')" \
	"  ORDER BY s.id DESC LIMIT 1)," \
	" (SELECT s.name FROM workflow_steps s WHERE s.workflow_id = w.id" \
	"  ORDER BY s.id DESC LIMIT 1))"

#define WORKFLOW_NAME_LIKE \
	" (?2 IS NULL OR w.name LIKE ?2 ESCAPE '\\')"

/* With ?5 set, only runs no other run started (list --top). */
#define WORKFLOW_TOP \
	" AND (?5 = 0 OR w.parent_id IS NULL)"

static const char workflow_get_sql[] =
	"SELECT " WORKFLOW_COLUMNS WORKFLOW_CURRENT_STEP
	" FROM workflows w WHERE w.id = ?";

/*
 * Two texts so a state filter can use the (status, id) index: ?1 is the
 * status the state ?6 comes from.
 */
static const char workflow_list_sql[] =
	"SELECT " WORKFLOW_COLUMNS WORKFLOW_CURRENT_STEP
	" FROM workflows w WHERE" WORKFLOW_NAME_LIKE WORKFLOW_TOP
	" ORDER BY w.id DESC LIMIT ?3 OFFSET ?4";
static const char workflow_list_status_sql[] =
	"SELECT " WORKFLOW_COLUMNS WORKFLOW_CURRENT_STEP
	" FROM workflows w WHERE w.status = ?1 AND " STORE_RUN_STATE("w")
	" = ?6 AND" WORKFLOW_NAME_LIKE
	WORKFLOW_TOP " ORDER BY w.id DESC LIMIT ?3 OFFSET ?4";

/* A run's children (sub-workflow runs), oldest first. */
static const char workflow_children_sql[] =
	"SELECT " WORKFLOW_COLUMNS WORKFLOW_CURRENT_STEP
	" FROM workflows w WHERE w.parent_id = ? ORDER BY w.id";

/* Every running workflow, oldest first: what an engine picks up. */
static const char workflow_active_sql[] =
	"SELECT " WORKFLOW_COLUMNS " NULL FROM workflows w"
	" WHERE w.status = 'running' ORDER BY w.id";

static const char workflow_insert_sql[] =
	"INSERT INTO workflows (updated_at, created_at, started_at,"
	" start_at, name, flow_json, input_json, status, created_by,"
	" template_name, template_version, paused, sla_ms, schedule_id,"
	" fire_at, parent_id, parent_step_id, depth, created_via, conc_key,"
	" conc_limit)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	" ?)";

static int	 store_workflow_row(struct store_stmt *, void *, char **);
static char	*store_like_pattern(const char *);

/* Fill a workflow from the current row of a WORKFLOW_COLUMNS query. */
static int
store_workflow_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_workflow	*wf = p;

	memset(wf, 0, sizeof *wf);
	wf->id = store_col_int64(st, 0);
	wf->updated_at = store_col_int64(st, 1);
	wf->created_at = store_col_int64(st, 2);
	wf->started_at = store_col_int64(st, 3);
	wf->completed_at = store_col_int64(st, 4);
	wf->cancelled_at = store_col_int64(st, 5);
	wf->start_at = store_col_int64(st, 6);
	wf->name = store_column_text(st, 7);
	wf->flow_json = store_column_text(st, 8);
	wf->input_json = store_column_text(st, 9);
	wf->created_by = store_column_text(st, 11);
	wf->template_name = store_column_text(st, 12);
	wf->template_version = store_col_int64(st, 13);
	wf->error = store_column_text(st, 14);
	wf->paused = store_col_int(st, 15);
	wf->sla_ms = store_col_int64(st, 16);
	wf->late_at = store_col_int64(st, 17);
	wf->schedule_id = store_col_int64(st, 18);
	wf->fire_at = store_col_int64(st, 19);
	wf->schedule_name = store_column_text(st, 20);
	wf->output_json = store_column_text(st, 21);
	wf->parent_id = store_col_int64(st, 22);
	wf->parent_step_id = store_col_int64(st, 23);
	wf->depth = store_col_int(st, 24);
	wf->parent_name = store_column_text(st, 25);
	wf->created_via = store_column_text(st, 26);
	wf->conc_key = store_column_text(st, 27);
	wf->conc_limit = store_col_int(st, 28);
	wf->behind = store_col_int64(st, 29);
	wf->waiting = store_col_int(st, 30);
	wf->current_step = store_column_text(st, 31);
	return (store_column_run_status(st, 10, wf->id, &wf->status, cause));
}

/* A LIKE pattern matching a substring, with % _ and \ taken literally. */
static char *
store_like_pattern(const char *text)
{
	struct buf	 b;

	buf_init(&b);
	buf_putc(&b, '%');
	for (; *text != '\0'; text++) {
		if (*text == '%' || *text == '_' || *text == '\\')
			buf_putc(&b, '\\');
		buf_putc(&b, *text);
	}
	buf_putc(&b, '%');
	return (buf_release(&b));
}

/* Read one workflow by id. */
int
store_workflow_get(struct store *s, int64_t id, struct store_workflow **wfp,
    char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*wfp = NULL;
	if ((rc = store_prepare(s, workflow_get_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "get workflow",
		    cause);
		goto out;
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*wfp = xmalloc(sizeof **wfp);
		rc = 0;
		if (store_workflow_row(st, *wfp, cause) != 0) {
			store_workflow_free(*wfp);
			*wfp = NULL;
			rc = STORE_ERR;
		}
	} else if (rc == STORE_DRV_DONE) {
		xasprintf(cause, "no workflow %lld", (long long)id);
		rc = STORE_NOTFOUND;
	} else
		rc = store_fail(s, rc, "get workflow", cause);
out:
	store_stmt_finalize(st);
	return (rc);
}

/* store_rows' way to free a partly read array. */
static void
store_workflow_rows_free(void *list, size_t n)
{
	store_workflows_free(list, n);
}

static const struct store_rows store_workflow_rows = {
	.what = "list workflows",
	.size = sizeof (struct store_workflow),
	.fill = store_workflow_row,
	.free = store_workflow_rows_free
};

/* A window of workflows, newest first, optionally filtered. */
int
store_workflow_list(struct store *s, const struct store_workflow_filter *f,
    struct store_workflow **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	const char		*sql;
	char			*like = NULL;
	void			*list;
	int64_t			 limit = 50, offset = 0;
	int			 rc, bad = 0;

	*listp = NULL;
	*np = 0;
	if (f != NULL && f->limit > 0)
		limit = f->limit;
	if (f != NULL && f->offset > 0)
		offset = f->offset;
	if (f != NULL && f->by_state)
		sql = workflow_list_status_sql;
	else
		sql = workflow_list_sql;
	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	if (f != NULL && f->name_like != NULL)
		like = store_like_pattern(f->name_like);
	if (f != NULL && f->by_state) {
		bad |= store_bind_text(st, 1,
		    status_run_name(state_status(f->state)));
		bad |= store_bind_text(st, 6, state_name(f->state));
	}
	bad |= store_bind_text(st, 2, like);
	bad |= store_bind_int64(st, 3, limit);
	bad |= store_bind_int64(st, 4, offset);
	bad |= store_bind_int(st, 5, f != NULL && f->top);
	free(like);
	if (bad != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "list workflows",
		    cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_workflow_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* The runs a workflow's sub-workflow steps started, oldest first. */
int
store_workflow_children(struct store *s, int64_t id,
    struct store_workflow **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, workflow_children_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "list children",
		    cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_workflow_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Every running workflow, for an engine starting up. */
int
store_workflows_active(struct store *s, struct store_workflow **listp,
    size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	if ((rc = store_prepare(s, workflow_active_sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &store_workflow_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/*
 * Insert a workflow row (inside the caller's transaction) and set its id
 * and times.  created_by is who the row names as its creator.
 */
int
store_workflow_insert(struct store *s, struct store_workflow *wf,
    const char *created_by, int64_t now, char **cause)
{
	struct store_stmt	*st;
	int64_t			 started_at;
	int			 rc, bad = 0;

	started_at = wf->started_at;
	if (started_at == 0 && wf->status == RUN_RUNNING)
		started_at = now;

	if ((rc = store_stmt(s, workflow_insert_sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_int64(st, 1, now);
	bad |= store_bind_int64(st, 2, now);
	bad |= store_bind_time(st, 3, started_at);
	bad |= store_bind_time(st, 4, wf->start_at);
	bad |= store_bind_text(st, 5, wf->name);
	bad |= store_bind_text(st, 6, wf->flow_json);
	bad |= store_bind_text(st, 7, wf->input_json);
	bad |= store_bind_text(st, 8, status_run_name(wf->status));
	bad |= store_bind_text(st, 9, created_by);
	bad |= store_bind_text(st, 10, wf->template_name);
	bad |= store_bind_time(st, 11, wf->template_name != NULL ?
	    wf->template_version : 0);
	bad |= store_bind_int(st, 12, wf->paused != 0);
	bad |= store_bind_time(st, 13, wf->sla_ms);
	bad |= store_bind_time(st, 14, wf->schedule_id);
	bad |= store_bind_time(st, 15, wf->fire_at);
	bad |= store_bind_time(st, 16, wf->parent_id);
	bad |= store_bind_time(st, 17, wf->parent_step_id);
	bad |= store_bind_int(st, 18, wf->depth);
	bad |= store_bind_text(st, 19, wf->created_via);
	bad |= store_bind_text(st, 20, wf->conc_key);
	bad |= store_bind_time(st, 21, wf->conc_key != NULL ?
	    wf->conc_limit : 0);
	if (bad != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "insert workflow",
		    cause);
	else
		rc = store_step_done(s, st, "insert workflow", cause);
	store_release(s, st);
	if (rc != 0)
		return (rc);

	wf->id = s->drv->last_insert_id(s->conn);
	wf->created_at = wf->updated_at = now;
	wf->started_at = started_at;
	return (0);
}

/* Free the strings a workflow owns, leaving the struct itself. */
void
store_workflow_clear(struct store_workflow *wf)
{
	free(wf->name);
	free(wf->flow_json);
	free(wf->input_json);
	free(wf->created_by);
	free(wf->created_via);
	free(wf->conc_key);
	free(wf->template_name);
	free(wf->error);
	free(wf->current_step);
	free(wf->schedule_name);
	free(wf->output_json);
	free(wf->parent_name);
	memset(wf, 0, sizeof *wf);
}

/* Free one workflow from store_workflow_get. */
void
store_workflow_free(struct store_workflow *wf)
{
	if (wf == NULL)
		return;
	store_workflow_clear(wf);
	free(wf);
}

/* Free an array from store_workflow_list. */
void
store_workflows_free(struct store_workflow *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		store_workflow_clear(&list[i]);
	free(list);
}
