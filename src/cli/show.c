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

/* show.c: "sluice show ID" prints a workflow and its step rows. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "sched/sched.h"
#include "flow/flow.h"
#include "store/store.h"
#include "cli/cli.h"

static int	 cmd_show_run(struct cli_ctx *, const struct cli_args *);
static cJSON	*cmd_show_json(const struct store_workflow *,
		     const struct store_step *, size_t);
static void	 cmd_show_text(const struct store_workflow *,
		     const struct store_step *, size_t);
static void	 cmd_show_times(const struct store_workflow *);
static cJSON	*cmd_show_step(const struct store_step *);
static void	 cmd_show_nest(const struct store_workflow *, cJSON *,
		     const struct store_step *, size_t);
static cJSON	*cmd_show_tally(const struct flow *,
		     const struct store_step *, const struct store_step *,
		     size_t);

static const struct cli_opt cmd_show_opts[] = {
	{ "json", 0, NULL, 0,
	    "one JSON object: the workflow with a \"steps\" array" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_show = {
	.name = "show",
	.complete = "workflow",
	.usage = "ID",
	.summary = "Show a workflow and its steps.",
	.opts = cmd_show_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_show_run
};

/*
 * A workflow's times beyond the basics: when it is to start, its SLA
 * (ms), whether and when it was marked late, and the schedule (and cron
 * instant) that made it.
 */
void
cli_workflow_time_json(cJSON *o, const struct store_workflow *w)
{
	cli_json_time(o, "start_at", w->start_at);
	if (w->sla_ms > 0)
		cJSON_AddNumberToObject(o, "sla", (double)w->sla_ms);
	else
		cJSON_AddNullToObject(o, "sla");
	cJSON_AddBoolToObject(o, "late", w->late_at != 0);
	cli_json_time(o, "late_at", w->late_at);
	if (w->schedule_name != NULL)
		cJSON_AddStringToObject(o, "schedule", w->schedule_name);
	else
		cJSON_AddNullToObject(o, "schedule");
	cli_json_time(o, "fire_at", w->fire_at);
}

/*
 * A run's output (null until it completes with one), and the parent run
 * and step that started it ({"id", "name", "step_id"}, null for a top run).
 */
void
cli_workflow_family_json(cJSON *o, const struct store_workflow *w)
{
	cJSON	*p;

	cJSON_AddItemToObject(o, "output", cli_json_raw(w->output_json));
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
static cJSON *
cmd_show_json(const struct store_workflow *w, const struct store_step *st,
    size_t n)
{
	cJSON			*o, *arr;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)w->id);
	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "status", status_run_name(w->status));
	cJSON_AddStringToObject(o, "state", state_name(store_workflow_state(w)));
	cJSON_AddBoolToObject(o, "paused", w->paused);
	cJSON_AddBoolToObject(o, "waiting", w->waiting);
	cJSON_AddItemToObject(o, "input", cli_json_raw(w->input_json));
	cJSON_AddStringToObject(o, "created_by",
	    w->created_by != NULL ? w->created_by : "");
	/* "mcp" when an agent started it through sluice mcp, else null. */
	if (w->created_via != NULL)
		cJSON_AddStringToObject(o, "created_via", w->created_via);
	else
		cJSON_AddNullToObject(o, "created_via");
	cli_json_time(o, "created_at", w->created_at);
	cli_json_time(o, "started_at", w->started_at);
	cli_json_time(o, "completed_at", w->completed_at);
	cli_json_time(o, "cancelled_at", w->cancelled_at);
	cli_workflow_time_json(o, w);
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
	cJSON_AddItemToObject(o, "flow", cli_json_raw(w->flow_json));
	cli_workflow_family_json(o, w);
	arr = cJSON_AddArrayToObject(o, "steps");
	cmd_show_nest(w, arr, st, n);
	return (o);
}

/*
 * A wait step's policy for show --json: its message, who may finish it
 * ("by"; empty: "operators" says whether only the site's operators may),
 * and the command that finishes it.
 */
static cJSON *
cmd_show_wait(const struct store_step *p)
{
	cJSON	*g, *o, *v;
	char	*cmd;

	g = json_parse_or_null(p->gate_json);
	o = cJSON_CreateObject();
	v = cJSON_GetObjectItemCaseSensitive(g, "message");
	cJSON_AddStringToObject(o, "message", cJSON_IsString(v) ?
	    v->valuestring : "");
	v = cJSON_DetachItemFromObjectCaseSensitive(g, "by");
	cJSON_AddItemToObject(o, "by", cJSON_IsArray(v) ? v :
	    cJSON_CreateArray());
	if (!cJSON_IsArray(v))
		cJSON_Delete(v);
	cJSON_AddBoolToObject(o, "operators", cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(g, "operators")));
	xasprintf(&cmd, "sluice complete %lld", (long long)p->id);
	cJSON_AddStringToObject(o, "complete", cmd);
	free(cmd);
	cJSON_Delete(g);
	return (o);
}

/*
 * For people: who may finish a waiting wait step, and how: "from
 * outside by alice, @ops: sluice complete 12".
 */
static char *
cmd_show_wait_text(const struct store_step *p)
{
	const cJSON	*a;
	cJSON		*g, *by;
	struct buf	 b;
	char		*out;

	g = json_parse_or_null(p->gate_json);
	by = cJSON_GetObjectItemCaseSensitive(g, "by");
	buf_init(&b);
	buf_puts(&b, "from outside by ");
	if (cJSON_GetArraySize(by) == 0)
		buf_puts(&b, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g,
		    "operators")) ? "operators" : "anyone");
	cJSON_ArrayForEach(a, by) {
		if (cJSON_IsString(a))
			buf_printf(&b, "%s%s", a != by->child ? ", " : "",
			    a->valuestring);
	}
	buf_printf(&b, ": sluice complete %lld", (long long)p->id);
	out = xstrdup(b.data);
	buf_free(&b);
	cJSON_Delete(g);
	return (out);
}

/* A running step's latest progress for people: "40% copying files". */
static char *
cmd_show_progress(const struct store_step *p)
{
	const char	*text = p->progress_text != NULL ? p->progress_text : "";
	char		*out;

	if (p->progress_pct < 0)
		return (xstrdup(text));
	xasprintf(&out, "%d%%%s%s", p->progress_pct, *text != '\0' ? " " : "",
	    text);
	return (out);
}

/* One step row as JSON (SPEC §10), with an item's index and label. */
static cJSON *
cmd_show_step(const struct store_step *p)
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
	cJSON_AddItemToObject(s, "args", cli_json_raw(p->args_json));
	cJSON_AddItemToObject(s, "result", cli_json_raw(p->result_json));
	if (p->error != NULL)
		cJSON_AddStringToObject(s, "error", p->error);
	else
		cJSON_AddNullToObject(s, "error");
	if (p->has_exit_code)
		cJSON_AddNumberToObject(s, "exit_code", p->exit_code);
	else
		cJSON_AddNullToObject(s, "exit_code");
	cli_json_time(s, "created_at", p->created_at);
	cli_json_time(s, "started_at", p->started_at);
	cli_json_time(s, "completed_at", p->completed_at);
	if (p->child_id != 0)
		cJSON_AddNumberToObject(s, "child_id", (double)p->child_id);
	else
		cJSON_AddNullToObject(s, "child_id");
	if (p->kind == KIND_WAIT)
		cJSON_AddItemToObject(s, "wait", cmd_show_wait(p));
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
cmd_show_find(const struct store_step *st, size_t n, int64_t id, size_t *at)
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
cmd_show_tally(const struct flow *f, const struct store_step *fe,
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
cmd_show_nest(const struct store_workflow *w, cJSON *arr,
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
		objs[i] = cmd_show_step(&st[i]);
		if (st[i].items > 0 &&
		    (sub = cmd_show_tally(f, &st[i], st, n)) != NULL)
			cJSON_AddItemToObject(objs[i], "foreach", sub);
	}
	for (i = 0; i < n; i++) {
		up = st[i].item_of != 0 ? cmd_show_find(st, n, st[i].item_of,
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

/* For people: the start time, schedule and SLA lines of the header. */
static void
cmd_show_times(const struct store_workflow *w)
{
	char	 t1[32], span[32];

	if (w->status == RUN_SCHEDULED) {
		when_countdown(w->start_at - time_now_ms(), span, sizeof span);
		cli_printf("start at: %s (%s%s)\n", time_format(w->start_at, t1,
		    sizeof t1), strcmp(span, "now") == 0 ? "" : "in ", span);
	}
	if (w->schedule_name != NULL) {
		cli_printf("schedule: %s", w->schedule_name);
		if (w->fire_at > 0)
			cli_printf(" (for %s)", time_format(w->fire_at, t1,
			    sizeof t1));
		cli_printf("\n");
	}
	if (w->sla_ms > 0) {
		flow_duration_format(w->sla_ms, span, sizeof span);
		cli_printf("sla:      %s", span);
		if (w->late_at > 0)
			cli_printf(", late since %s", time_format(w->late_at, t1,
			    sizeof t1));
		cli_printf("\n");
	}
}

/* Print the workflow for people: a header, then one row per step. */
static void
cmd_show_text(const struct store_workflow *w, const struct store_step *st,
    size_t n)
{
	static const char	*header[] = { "ID", "STEP", "STATUS", "TRY",
	    "TOOL", "STARTED", "TOOK", "RESULT" };
	struct cli_table	*t;
	const char		*cells[8];
	char			 id[32], att[16], t1[32], took[16];
	char			 name[SLUICE_MAX_NAME + 8];
	char			 child[48], *wait = NULL;
	size_t			 i;

	cli_printf("workflow %lld: %s\n", (long long)w->id, w->name);
	cli_printf("status:   %s\n", state_name(store_workflow_state(w)));
	if (w->template_name != NULL)
		cli_printf("template: %s version %lld\n", w->template_name,
		    (long long)w->template_version);
	cli_printf("started:  %s by %s%s%s\n", time_format(w->created_at, t1,
	    sizeof t1), w->created_by != NULL ? w->created_by : "-",
	    w->created_via != NULL ? " via " : "",
	    w->created_via != NULL ? w->created_via : "");
	cmd_show_times(w);
	if (w->completed_at > 0)
		cli_printf("ended:    %s\n",
		    time_format(w->completed_at, t1, sizeof t1));
	if (w->parent_id != 0)
		cli_printf("parent:   workflow %lld %s (step %lld)\n",
		    (long long)w->parent_id, w->parent_name != NULL ?
		    w->parent_name : "-", (long long)w->parent_step_id);
	cli_printf("input:    %s\n", w->input_json != NULL ? w->input_json : "{}");
	if (w->output_json != NULL)
		cli_printf("output:   %s\n", w->output_json);
	if (w->error != NULL)
		cli_printf("error:    %s\n", w->error);
	cli_printf("\n");
	t = cli_table_create(header, nitems(header));
	cli_table_flex(t, ".f.....f");
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "%lld", (long long)st[i].id);
		snprintf(att, sizeof att, "%d", st[i].attempt);
		if (st[i].started_at > 0 && st[i].completed_at > 0)
			flow_duration_format(st[i].completed_at -
			    st[i].started_at, took, sizeof took);
		else
			snprintf(took, sizeof took, "-");
		cells[0] = id;
		cells[1] = st[i].name;
		if (st[i].item_of != 0 && st[i].items == 0) {
			/* An item (or a for-each's gate) under its step. */
			snprintf(name, sizeof name, "  %s", st[i].label != NULL ?
			    st[i].label : st[i].name);
			cells[1] = name;
		}
		cells[2] = status_step_name(st[i].status);
		cells[3] = att;
		cells[4] = st[i].tool != NULL ? st[i].tool : "(gate)";
		cells[5] = time_format(st[i].started_at, t1, sizeof t1);
		cells[6] = took;
		cells[7] = st[i].error != NULL ? st[i].error :
		    st[i].result_json != NULL ? st[i].result_json : "";
		if (st[i].child_id != 0 && st[i].status == STEP_RUNNING) {
			snprintf(child, sizeof child, "child workflow %lld",
			    (long long)st[i].child_id);
			cells[7] = child;
		}
		if (st[i].kind == KIND_WAIT &&
		    st[i].status == STEP_WAITING)
			cells[7] = wait = cmd_show_wait_text(&st[i]);
		else if (st[i].status == STEP_RUNNING &&
		    (st[i].progress_pct >= 0 || st[i].progress_text != NULL)) {
			/* What a running step last said of its progress. */
			cells[7] = wait = cmd_show_progress(&st[i]);
		}
		cli_table_add(t, cells);
		free(wait);
		wait = NULL;
	}
	cli_table_print(t, NULL);
}

/* Look the workflow up and print it. */
static int
cmd_show_run(struct cli_ctx *ctx, const struct cli_args *args)
{
	struct store_workflow		*w;
	struct store_step		*st;
	char				*cause = NULL;
	size_t				 n;
	int64_t				 id;
	int				 json, rc;

	json = cli_args_has(args, "json");
	if (cli_parse_id(args->argv[0], &id) != 0) {
		cli_error("\"%s\" is not a workflow id", args->argv[0]);
		return (EXIT_USAGE);
	}
	if ((rc = cli_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_workflow_get(ctx->store, id, &w, &cause)) != 0)
		return (cli_store_fail(rc, cause));
	if ((rc = store_step_list(ctx->store, id, &st, &n, &cause)) != 0) {
		store_workflow_free(w);
		return (cli_store_fail(rc, cause));
	}
	if (json)
		cli_json_out(cmd_show_json(w, st, n));
	else
		cmd_show_text(w, st, n);
	store_steps_free(st, n);
	store_workflow_free(w);
	return (EXIT_OK);
}
