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
 * read-workflows.c: the workflows a client reads, as structured answers:
 * the list (list --json, workflow_list) and one run with its step tree
 * (show --json, workflow_get).  Each read opens the database read-only
 * and answers the JSON shape of SPEC §10; the command line prints it,
 * sluice mcp answers with it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

static cJSON	*json_show_step(const struct store_step *);
static void	 json_show_nest(const struct store_workflow *, cJSON *,
		     const struct store_step *, size_t);
static cJSON	*json_show_tally(const struct flow *,
		     const struct store_step *, const struct store_step *,
		     size_t);

/* The workflows a filter picks, newest first, as list --json has them. */
int
client_read_workflows(struct client *cl,
    const struct store_workflow_filter *f, cJSON **out)
{
	struct store_workflow	*wfs;
	char			*cause = NULL;
	size_t			 n;
	int			 rc;

	*out = NULL;
	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	if ((rc = store_workflow_list(cl->store, f, &wfs, &n, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	*out = client_json_workflows(wfs, n);
	store_workflows_free(wfs, n);
	return (EXIT_OK);
}

/* One workflow and its steps, as show --json has them. */
int
client_read_workflow(struct client *cl, int64_t id, cJSON **out)
{
	struct store_workflow	*w;
	struct store_step	*st;
	char			*cause = NULL;
	size_t			 n;
	int			 rc;

	*out = NULL;
	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	if ((rc = store_workflow_get(cl->store, id, &w, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	if ((rc = store_step_list_shown(cl->store, id, &st, &n,
	    &cause)) != 0) {
		store_workflow_free(w);
		return (client_store_fail(cl, rc, cause));
	}
	*out = client_json_workflow(w, st, n);
	store_steps_free(st, n);
	store_workflow_free(w);
	return (EXIT_OK);
}

/* Workflows as a JSON array (list --json). */
cJSON *
client_json_workflows(const struct store_workflow *wfs, size_t n)
{
	const struct store_workflow	*w;
	cJSON				*arr, *o;
	size_t				 i;

	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		w = &wfs[i];
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", (double)w->id);
		cJSON_AddStringToObject(o, "name", w->name);
		/* status: as stored (and in show); state: as people see it. */
		cJSON_AddStringToObject(o, "status", status_run_name(w->status));
		cJSON_AddStringToObject(o, "state",
		    state_name(store_workflow_state(w)));
		cJSON_AddBoolToObject(o, "waiting", w->waiting);
		cJSON_AddBoolToObject(o, "paused", w->paused);
		if (w->template_name != NULL) {
			cJSON_AddStringToObject(o, "template",
			    w->template_name);
			cJSON_AddNumberToObject(o, "template_version",
			    (double)w->template_version);
		} else {
			cJSON_AddNullToObject(o, "template");
			cJSON_AddNullToObject(o, "template_version");
		}
		if (w->current_step != NULL)
			cJSON_AddStringToObject(o, "current_step",
			    w->current_step);
		else
			cJSON_AddNullToObject(o, "current_step");
		cJSON_AddStringToObject(o, "created_by",
		    w->created_by != NULL ? w->created_by : "");
		if (w->created_via != NULL)
			cJSON_AddStringToObject(o, "created_via",
			    w->created_via);
		else
			cJSON_AddNullToObject(o, "created_via");
		json_add_time(o, "created_at", w->created_at);
		json_add_time(o, "updated_at", w->updated_at);
		client_json_workflow_times(o, w);
		if (w->parent_id != 0)
			cJSON_AddNumberToObject(o, "parent_id",
			    (double)w->parent_id);
		else
			cJSON_AddNullToObject(o, "parent_id");
		cJSON_AddItemToArray(arr, o);
	}
	return (arr);
}

/*
 * A workflow's times beyond the basics: when it is to start, its SLA
 * (ms), whether and when it was marked late, and the schedule (and cron
 * instant) that made it.
 */
void
client_json_workflow_times(cJSON *o, const struct store_workflow *w)
{
	json_add_time(o, "start_at", w->start_at);
	if (w->sla_ms > 0)
		cJSON_AddNumberToObject(o, "sla", (double)w->sla_ms);
	else
		cJSON_AddNullToObject(o, "sla");
	cJSON_AddBoolToObject(o, "late", w->late_at != 0);
	json_add_time(o, "late_at", w->late_at);
	if (w->schedule_name != NULL)
		cJSON_AddStringToObject(o, "schedule", w->schedule_name);
	else
		cJSON_AddNullToObject(o, "schedule");
	json_add_time(o, "fire_at", w->fire_at);
	client_json_workflow_conc(o, w);
}

/*
 * A run's concurrency key ({"key", "limit"}, null for none) and, while it
 * is queued, the run it waits behind (null otherwise).
 */
void
client_json_workflow_conc(cJSON *o, const struct store_workflow *w)
{
	cJSON	*c;

	if (w->conc_key == NULL)
		cJSON_AddNullToObject(o, "concurrency");
	else {
		c = cJSON_AddObjectToObject(o, "concurrency");
		cJSON_AddStringToObject(c, "key", w->conc_key);
		cJSON_AddNumberToObject(c, "limit", w->conc_limit);
	}
	if (w->status == RUN_QUEUED && w->behind != 0)
		cJSON_AddNumberToObject(o, "behind", (double)w->behind);
	else
		cJSON_AddNullToObject(o, "behind");
}

/*
 * A run's output (null until it completes with one), and the parent run
 * and step that started it ({"id", "name", "step_id"}, null for a top run).
 */
void
client_json_workflow_family(cJSON *o, const struct store_workflow *w)
{
	cJSON	*p;

	cJSON_AddItemToObject(o, "output", json_raw(w->output_json));
	if (w->parent_id == 0) {
		cJSON_AddNullToObject(o, "parent");
		return;
	}
	p = cJSON_AddObjectToObject(o, "parent");
	cJSON_AddNumberToObject(p, "id", (double)w->parent_id);
	if (w->parent_name != NULL)
		cJSON_AddStringToObject(p, "name", w->parent_name);
	else
		cJSON_AddNullToObject(p, "name");
	cJSON_AddNumberToObject(p, "step_id", (double)w->parent_step_id);
}

/* Build the JSON shape of SPEC §10. */
cJSON *
client_json_workflow(const struct store_workflow *w,
    const struct store_step *st, size_t n)
{
	cJSON			*o, *arr;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)w->id);
	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "status", status_run_name(w->status));
	cJSON_AddStringToObject(o, "state", state_name(store_workflow_state(w)));
	cJSON_AddBoolToObject(o, "paused", w->paused);
	cJSON_AddBoolToObject(o, "waiting", w->waiting);
	cJSON_AddItemToObject(o, "input", json_raw(w->input_json));
	cJSON_AddStringToObject(o, "created_by",
	    w->created_by != NULL ? w->created_by : "");
	/* "mcp" when an agent started it through sluice mcp, else null. */
	if (w->created_via != NULL)
		cJSON_AddStringToObject(o, "created_via", w->created_via);
	else
		cJSON_AddNullToObject(o, "created_via");
	json_add_time(o, "created_at", w->created_at);
	json_add_time(o, "started_at", w->started_at);
	json_add_time(o, "completed_at", w->completed_at);
	json_add_time(o, "cancelled_at", w->cancelled_at);
	client_json_workflow_times(o, w);
	if (w->template_name != NULL) {
		cJSON_AddStringToObject(o, "template", w->template_name);
		cJSON_AddNumberToObject(o, "template_version",
		    (double)w->template_version);
	} else {
		cJSON_AddNullToObject(o, "template");
		cJSON_AddNullToObject(o, "template_version");
	}
	if (w->error != NULL)
		cJSON_AddStringToObject(o, "error", w->error);
	else
		cJSON_AddNullToObject(o, "error");
	cJSON_AddItemToObject(o, "flow", json_raw(w->flow_json));
	client_json_workflow_family(o, w);
	arr = cJSON_AddArrayToObject(o, "steps");
	json_show_nest(w, arr, st, n);
	return (o);
}

/*
 * A wait step's policy for show --json: its message, who may finish it
 * ("by"; empty: "operators" says whether only the site's operators may),
 * and the command that finishes it.  A policy that cannot be read has
 * nobody in "by" and the reason in "error": the engine refuses to finish
 * that step.
 */
static cJSON *
json_show_wait(const struct store_step *p)
{
	struct flow_policy	 pol;
	cJSON			*o, *by;
	char			*cmd, *why;
	size_t			 i;

	o = cJSON_CreateObject();
	if (flow_policy_read(p->gate_json, KIND_WAIT, &pol, &why) != 0) {
		cmd = flow_policy_unreadable(why);
		cJSON_AddStringToObject(o, "error", cmd);
		free(cmd);
		free(why);
	}
	cJSON_AddStringToObject(o, "message", pol.message != NULL ?
	    pol.message : "");
	by = cJSON_AddArrayToObject(o, "by");
	for (i = 0; i < pol.nby; i++)
		cJSON_AddItemToArray(by, cJSON_CreateString(pol.by[i]));
	cJSON_AddBoolToObject(o, "operators", pol.operators);
	xasprintf(&cmd, "sluice complete %lld", (long long)p->id);
	cJSON_AddStringToObject(o, "complete", cmd);
	free(cmd);
	flow_policy_free(&pol);
	return (o);
}

/* One step row as JSON (SPEC §10), with an item's index and label. */
static cJSON *
json_show_step(const struct store_step *p)
{
	cJSON	*s, *o;

	s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "id", (double)p->id);
	cJSON_AddStringToObject(s, "name", p->name);
	cJSON_AddStringToObject(s, "key",
	    p->step_key != NULL ? p->step_key : p->name);
	cJSON_AddStringToObject(s, "status", status_step_name(p->status));
	cJSON_AddNumberToObject(s, "attempt", p->attempt);
	if (p->tool != NULL)
		cJSON_AddStringToObject(s, "tool", p->tool);
	else
		cJSON_AddNullToObject(s, "tool");
	cJSON_AddStringToObject(s, "kind", kind_name(p->kind));
	if (p->item_of != 0 && p->item_index >= 0)
		cJSON_AddNumberToObject(s, "index", p->item_index);
	if (p->label != NULL)
		cJSON_AddStringToObject(s, "label", p->label);
	/* A run-level handler's row: which one (SPEC §3). */
	if (flow_handler_key(p->step_key))
		cJSON_AddStringToObject(s, "handler", p->step_key);
	cJSON_AddItemToObject(s, "args", json_raw(p->args_json));
	cJSON_AddItemToObject(s, "result", json_raw(p->result_json));
	if (p->error != NULL)
		cJSON_AddStringToObject(s, "error", p->error);
	else
		cJSON_AddNullToObject(s, "error");
	if (p->has_exit_code)
		cJSON_AddNumberToObject(s, "exit_code", p->exit_code);
	else
		cJSON_AddNullToObject(s, "exit_code");
	json_add_time(s, "created_at", p->created_at);
	json_add_time(s, "started_at", p->started_at);
	json_add_time(s, "completed_at", p->completed_at);
	if (p->child_id != 0)
		cJSON_AddNumberToObject(s, "child_id", (double)p->child_id);
	else
		cJSON_AddNullToObject(s, "child_id");
	/* A queued step: the step row it waits behind (SPEC §13). */
	if (p->status == STEP_QUEUED && p->behind != 0)
		cJSON_AddNumberToObject(s, "behind", (double)p->behind);
	else
		cJSON_AddNullToObject(s, "behind");
	if (p->kind == KIND_WAIT)
		cJSON_AddItemToObject(s, "wait", json_show_wait(p));
	if (p->progress_pct >= 0 || p->progress_text != NULL) {
		o = cJSON_AddObjectToObject(s, "progress");
		if (p->progress_pct >= 0)
			cJSON_AddNumberToObject(o, "percent", p->progress_pct);
		else
			cJSON_AddNullToObject(o, "percent");
		cJSON_AddStringToObject(o, "message", p->progress_text != NULL ?
		    p->progress_text : "");
	} else
		cJSON_AddNullToObject(s, "progress");
	return (s);
}

/* The row with this id (rows are in id order), or NULL. */
static const struct store_step *
json_show_find(const struct store_step *st, size_t n, int64_t id, size_t *at)
{
	size_t	 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st[mid].id == id) {
			*at = mid;
			return (&st[mid]);
		}
		if (st[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (NULL);
}

/*
 * A for-each row's "foreach" member: its items and batches, the counts
 * per status and its failure budget.
 */
static cJSON *
json_show_tally(const struct flow *f, const struct store_step *fe,
    const struct store_step *st, size_t n)
{
	struct flow_foreach_tally	 t;
	struct flow_foreach_row		*rows;
	cJSON				*o;
	int64_t				 root;
	size_t				 i, nr = 0;
	int				 spec;

	if (f == NULL || (spec = flow_find(f, fe->step_key)) < 0 ||
	    f->steps[spec].foreach == NULL)
		return (NULL);
	root = fe->item_of != 0 ? fe->item_of : fe->id;
	rows = xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++) {
		if (st[i].item_of != root || st[i].item_index < 0)
			continue;
		rows[nr].index = st[i].item_index;
		rows[nr].attempt = st[i].attempt;
		rows[nr].status = st[i].status;
		nr++;
	}
	flow_foreach_tally(f->steps[spec].foreach, (int)fe->items, rows, nr,
	    &t);
	free(rows);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "items", t.n);
	cJSON_AddNumberToObject(o, "batch", t.batch);
	cJSON_AddNumberToObject(o, "batches", t.nbatches);
	cJSON_AddNumberToObject(o, "done", t.done);
	cJSON_AddNumberToObject(o, "failed", t.failed);
	cJSON_AddNumberToObject(o, "running", t.running);
	cJSON_AddNumberToObject(o, "waiting", t.waiting);
	cJSON_AddNumberToObject(o, "cancelled", t.cancelled);
	cJSON_AddNumberToObject(o, "max_failures", t.budget);
	return (o);
}

/*
 * The steps array: a for-each's items nest under its row ("items"), and
 * the gates it asked under "gates"; every other row is a step.
 */
static void
json_show_nest(const struct store_workflow *w, cJSON *arr,
    const struct store_step *st, size_t n)
{
	struct flow_diags	*d;
	struct flow		*f;
	const struct store_step	*up;
	cJSON			**objs, *sub;
	size_t			 i, at;

	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	objs = xcalloc(n + 1, sizeof *objs);
	for (i = 0; i < n; i++) {
		objs[i] = json_show_step(&st[i]);
		if (st[i].items > 0 &&
		    (sub = json_show_tally(f, &st[i], st, n)) != NULL)
			cJSON_AddItemToObject(objs[i], "foreach", sub);
	}
	for (i = 0; i < n; i++) {
		up = st[i].item_of != 0 ? json_show_find(st, n, st[i].item_of,
		    &at) : NULL;
		if (up == NULL || st[i].items > 0) {
			cJSON_AddItemToArray(arr, objs[i]);
			continue;
		}
		sub = cJSON_GetObjectItemCaseSensitive(objs[at],
		    st[i].item_index >= 0 ? "items" : "gates");
		if (sub == NULL)
			sub = cJSON_AddArrayToObject(objs[at],
			    st[i].item_index >= 0 ? "items" : "gates");
		cJSON_AddItemToArray(sub, objs[i]);
	}
	free(objs);
	if (f != NULL)
		flow_free(f);
}

