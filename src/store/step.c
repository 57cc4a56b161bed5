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
 * step.c: step rows: reading one or a workflow's steps, inserting one,
 * starting a run (its workflow, first step and audit row together), and
 * the queue of gates waiting for people.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"


static const char step_get_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps WHERE id = ?";
static const char step_list_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps WHERE workflow_id = ?"
	" ORDER BY id";
static const char step_insert_sql[] =
	"INSERT INTO workflow_steps (updated_at, created_at, ready_at,"
	" workflow_id, name, step_key, tool, kind, args_json, result_json,"
	" gate_json, status, attempt, visit, parent_id, started_at,"
	" completed_at, error, exit_code, fanout_id, branch_no, item_of,"
	" item_index, label, items, item_json)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	" ?, ?, ?, ?, ?, ?, ?)";
/* The same with the id given (drawn ahead: driver.h, turn_id). */
static const char step_insert_id_sql[] =
	"INSERT INTO workflow_steps (updated_at, created_at, ready_at,"
	" workflow_id, name, step_key, tool, kind, args_json, result_json,"
	" gate_json, status, attempt, visit, parent_id, started_at,"
	" completed_at, error, exit_code, fanout_id, branch_no, item_of,"
	" item_index, label, items, item_json, id)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
	" ?, ?, ?, ?, ?, ?, ?, ?)";

/*
 * Waiting gates with their workflow.  Approvals count distinct people.
 * The policy comes as it is stored: its one reader is flow_policy_read(),
 * so its message and quorum are read there (client_gate_list()), never
 * picked out here with json_extract.
 */
static const char gate_list_sql[] =
	"SELECT s.id, s.workflow_id, COALESCE(s.ready_at, s.created_at),"
	" w.name, s.name, s.gate_json, w.created_by,"
	" (SELECT count(DISTINCT p.who) FROM approvals p"
	"  WHERE p.step_id = s.id AND p.decision = 'approve'"
	STORE_APPROVAL_AUDITED "),"
	" w.parent_id, (SELECT p.name FROM workflows p WHERE p.id = w.parent_id),"
	" w.created_via, CASE WHEN s.item_of IS NOT NULL THEN s.label END"
	" FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id"
	" WHERE s.status = 'waiting' AND s.kind <> 'wait' AND "
	STORE_STEP_ACTIVE_OF("s.") " ORDER BY s.id";

static char	*store_run_detail(const struct store_workflow *);

/* Fill a step from the current row of a STORE_STEP_COLUMNS query. */
int
store_step_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_step	*step = p;

	memset(step, 0, sizeof *step);
	step->id = store_col_int64(st, 0);
	step->workflow_id = store_col_int64(st, 1);
	step->updated_at = store_col_int64(st, 2);
	step->created_at = store_col_int64(st, 3);
	step->ready_at = store_col_int64(st, 4);
	step->started_at = store_col_int64(st, 5);
	step->completed_at = store_col_int64(st, 6);
	step->name = store_column_text(st, 7);
	step->step_key = store_column_text(st, 8);
	step->tool = store_column_text(st, 9);
	step->args_json = store_column_text(st, 11);
	step->result_json = store_column_text(st, 12);
	step->gate_json = store_column_text(st, 13);
	step->error = store_column_text(st, 15);
	step->attempt = store_col_int(st, 16);
	step->visit = store_col_int(st, 17);
	if (!store_col_null(st, 18)) {
		step->has_exit_code = 1;
		step->exit_code = store_col_int(st, 18);
	}
	step->parent_id = store_col_int64(st, 19);
	step->fanout_id = store_col_int64(st, 20);
	step->branch_no = store_col_int(st, 21);
	step->branch_end = store_column_text(st, 22);
	step->pid = store_col_int64(st, 23);
	step->pgid = store_col_int64(st, 24);
	step->proc_start = store_col_int64(st, 25);
	step->host = store_column_text(st, 26);
	step->timeout_at = store_col_int64(st, 27);
	step->log_bytes = store_col_int64(st, 28);
	step->item_of = store_col_int64(st, 29);
	step->item_index = store_col_null(st, 30) ? -1 :
	    store_col_int(st, 30);
	step->label = store_column_text(st, 31);
	step->items = store_col_int64(st, 32);
	step->item_json = store_column_text(st, 33);
	step->child_id = store_col_int64(st, 34);
	step->progress_pct = store_col_null(st, 35) ? -1 :
	    store_col_int(st, 35);
	step->progress_text = store_column_text(st, 36);
	if (store_column_step_kind(st, 10, step->id, &step->kind,
	    cause) != 0)
		return (-1);
	return (store_column_step_status(st, 14, step->id, &step->status,
	    cause));
}

/* Read one step by id. */
int
store_step_get(struct store *s, int64_t id, struct store_step **stepp,
    char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*stepp = NULL;
	if ((rc = store_prepare(s, step_get_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "get step", cause);
		goto out;
	}
	rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW) {
		*stepp = xmalloc(sizeof **stepp);
		rc = 0;
		if (store_step_row(st, *stepp, cause) != 0) {
			store_step_free(*stepp);
			*stepp = NULL;
			rc = STORE_ERR;
		}
	} else if (rc == STORE_DRV_DONE) {
		xasprintf(cause, "no step %lld", (long long)id);
		rc = STORE_NOTFOUND;
	} else
		rc = store_fail(s, rc, "get step", cause);
out:
	store_stmt_finalize(st);
	return (rc);
}

/* store_rows' way to free a partly read array. */
static void
store_step_rows_free(void *list, size_t n)
{
	store_steps_free(list, n);
}

const struct store_rows store_step_rows = {
	.what = "list steps",
	.size = sizeof (struct store_step),
	.fill = store_step_row,
	.free = store_step_rows_free
};

/* A workflow's steps in the order they were made. */
int
store_step_list(struct store *s, int64_t workflow_id,
    struct store_step **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, step_list_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, workflow_id) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "list steps",
		    cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_step_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/*
 * A workflow's steps as people are shown them (show, show --json): with
 * what each queued row waits behind, which the engine's own lists do
 * without.
 */
int
store_step_list_shown(struct store *s, int64_t workflow_id,
    struct store_step **listp, size_t *np, char **cause)
{
	int	 rc;

	if ((rc = store_step_list(s, workflow_id, listp, np, cause)) == 0)
		rc = store_steps_behind(s, *listp, *np, cause);
	return (rc);
}

/*
 * Insert a step row (inside the caller's transaction) and set its id and
 * times.  Unset fields get their defaults: key from the name, attempt
 * and visit 1.
 */
int
store_step_insert(struct store *s, struct store_step *step, int64_t now,
    char **cause)
{
	struct store_stmt	*st;
	const char		*key;
	int64_t			 ready_at, id = 0;
	int			 rc, bad = 0;

	key = step->step_key != NULL ? step->step_key : step->name;
	ready_at = step->ready_at != 0 ? step->ready_at : now;

	/*
	 * In the engine's turn on a server, an id drawn ahead: the INSERT
	 * then need not be waited for (its id is not asked of it).
	 */
	if (s->drv->turn_id != NULL &&
	    (rc = s->drv->turn_id(s->conn, "workflow_steps", &id)) != 0)
		return (store_fail(s, rc, "draw step id", cause));
	if ((rc = store_stmt(s, id != 0 ? step_insert_id_sql :
	    step_insert_sql, &st, cause)) != 0)
		return (rc);
	if (id != 0)
		bad |= store_bind_int64(st, 27, id);
	bad |= store_bind_int64(st, 1, now);
	bad |= store_bind_int64(st, 2, now);
	bad |= store_bind_int64(st, 3, ready_at);
	bad |= store_bind_int64(st, 4, step->workflow_id);
	bad |= store_bind_text(st, 5, step->name);
	bad |= store_bind_text(st, 6, key);
	bad |= store_bind_text(st, 7, step->tool);
	bad |= store_bind_text(st, 8, kind_name(step->kind));
	bad |= store_bind_text(st, 9, step->args_json);
	bad |= store_bind_text(st, 10, step->result_json);
	bad |= store_bind_text(st, 11, step->gate_json);
	bad |= store_bind_text(st, 12, status_step_name(step->status));
	bad |= store_bind_int(st, 13, step->attempt > 0 ? step->attempt : 1);
	bad |= store_bind_int(st, 14, step->visit > 0 ? step->visit : 1);
	bad |= store_bind_time(st, 15, step->parent_id);
	bad |= store_bind_time(st, 16, step->started_at);
	bad |= store_bind_time(st, 17, step->completed_at);
	bad |= store_bind_text(st, 18, step->error);
	if (step->has_exit_code)
		bad |= store_bind_int(st, 19, step->exit_code);
	else
		bad |= store_bind_null(st, 19);
	bad |= store_bind_time(st, 20, step->fanout_id);
	if (step->fanout_id != 0)
		bad |= store_bind_int(st, 21, step->branch_no);
	else
		bad |= store_bind_null(st, 21);
	bad |= store_bind_time(st, 22, step->item_of);
	if (step->item_of != 0 && step->item_index >= 0)
		bad |= store_bind_int(st, 23, step->item_index);
	else
		bad |= store_bind_null(st, 23);
	bad |= store_bind_text(st, 24, step->label);
	bad |= store_bind_time(st, 25, step->items);
	bad |= store_bind_text(st, 26, step->item_json);
	if (bad != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "insert step",
		    cause);
	else
		rc = store_step_done(s, st, "insert step", cause);
	store_release(s, st);
	if (rc != 0)
		return (rc);

	step->id = id != 0 ? id : s->drv->last_insert_id(s->conn);
	step->created_at = step->updated_at = now;
	step->ready_at = ready_at;
	return (0);
}

/* The audit detail of a run started from a template, or NULL. */
static char *
store_run_detail(const struct store_workflow *wf)
{
	cJSON	*o;
	char	*text, *out;

	if (wf->template_name == NULL)
		return (NULL);
	if ((o = cJSON_CreateObject()) == NULL)
		fatalx("%s: out of memory", __func__);
	if (cJSON_AddStringToObject(o, "template", wf->template_name) == NULL ||
	    cJSON_AddNumberToObject(o, "version",
	    (double)wf->template_version) == NULL ||
	    (text = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("%s: out of memory", __func__);
	cJSON_Delete(o);
	out = xstrdup(text);
	cJSON_free(text);
	return (out);
}

/* Start a workflow: its row, its first step and an audit row, together. */
int
store_run_create(struct store *s, struct store_workflow *wf,
    struct store_step *first, const struct store_actor *actor, char **cause)
{
	struct store_audit_entry	 e;
	const char			*created_by;
	char				*target, *detail;
	int64_t				 now;
	int				 rc;

	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	now = time_now_ms();
	created_by = wf->created_by;
	if (created_by == NULL)
		created_by = store_actor_name(actor);
	if ((rc = store_workflow_insert(s, wf, created_by, now, cause)) != 0)
		goto fail;
	first->workflow_id = wf->id;
	if ((rc = store_step_insert(s, first, now, cause)) != 0)
		goto fail;

	xasprintf(&target, "workflow %lld %s", (long long)wf->id, wf->name);
	detail = store_run_detail(wf);
	memset(&e, 0, sizeof e);
	e.action = "start";
	e.target = target;
	e.workflow_id = wf->id;
	e.detail_json = detail;
	rc = store_audit_insert(s, actor, &e, cause);
	free(detail);
	free(target);
	if (rc != 0)
		goto fail;
	if ((rc = store_commit(s, cause)) != 0)
		goto undo;
	return (0);

fail:
	store_rollback(s);
undo:
	wf->id = 0;
	first->id = first->workflow_id = 0;
	return (rc);
}

/* Fill one gate from a row of gate_list_sql. */
static int
store_gate_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_gate	*g = p;

	g->step_id = store_col_int64(st, 0);
	g->workflow_id = store_col_int64(st, 1);
	g->waiting_since = store_col_int64(st, 2);
	g->workflow_name = store_column_text(st, 3);
	g->step = store_column_text(st, 4);
	g->gate_json = store_column_text(st, 5);
	g->created_by = store_column_text(st, 6);
	g->approvals = store_col_int(st, 7);
	g->parent_id = store_col_int64(st, 8);
	g->parent_name = store_column_text(st, 9);
	g->created_via = store_column_text(st, 10);
	g->label = store_column_text(st, 11);
	/*
	 * A for-each's gates and items share its step's name: the label
	 * says which ("before batch 2 of 3", "failure budget", a host).
	 */
	if (g->label != NULL)
		xasprintf(&g->title, "%s (%s)", g->step != NULL ? g->step : "",
		    g->label);
	else
		g->title = xstrdup(g->step != NULL ? g->step : "");
	if (g->created_via != NULL)
		xasprintf(&g->started_by, "%s via %s", g->created_by != NULL ?
		    g->created_by : "-", g->created_via);
	else
		g->started_by = xstrdup(g->created_by != NULL ?
		    g->created_by : "");
	(void)cause;
	return (0);
}

static void
store_gate_rows_free(void *list, size_t n)
{
	store_gates_free(list, n);
}

static const struct store_rows store_gate_rows = {
	.what = "list gates",
	.size = sizeof (struct store_gate),
	.fill = store_gate_row,
	.free = store_gate_rows_free
};

/* Every gate waiting for people, oldest first. */
int
store_gate_list(struct store *s, struct store_gate **listp, size_t *np,
    char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, gate_list_sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &store_gate_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Free a gate array. */
void
store_gates_free(struct store_gate *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].workflow_name);
		free(list[i].step);
		free(list[i].label);
		free(list[i].title);
		free(list[i].gate_json);
		free(list[i].message);
		free(list[i].created_by);
		free(list[i].created_via);
		free(list[i].started_by);
		free(list[i].parent_name);
	}
	free(list);
}

/* Free the strings a step owns, leaving the struct itself. */
void
store_step_clear(struct store_step *step)
{
	free(step->name);
	free(step->step_key);
	free(step->tool);
	free(step->args_json);
	free(step->result_json);
	free(step->gate_json);
	free(step->error);
	free(step->branch_end);
	free(step->host);
	free(step->label);
	free(step->item_json);
	free(step->progress_text);
	memset(step, 0, sizeof *step);
}

/* Free one step from store_step_get. */
void
store_step_free(struct store_step *step)
{
	if (step == NULL)
		return;
	store_step_clear(step);
	free(step);
}

/* Free an array from store_step_list. */
void
store_steps_free(struct store_step *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		store_step_clear(&list[i]);
	free(list);
}
