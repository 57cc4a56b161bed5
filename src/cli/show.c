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

static int	 cmd_show_run(struct client *, const struct cli_args *);
static void	 cmd_show_text(const struct store_workflow *,
		     const struct store_step *, size_t);
static void	 cmd_show_times(const struct store_workflow *);

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
 * For people: who may finish a waiting wait step, and how: "from
 * outside by alice, @ops: sluice complete 12".
 */
static char *
cmd_show_wait_text(const struct store_step *p)
{
	struct flow_policy	 pol;
	struct buf		 b;
	char			*why, *out;

	if (flow_policy_read(p->gate_json, KIND_WAIT, &pol, &why) != 0) {
		out = flow_policy_unreadable(why);
		free(why);
		return (out);
	}
	buf_init(&b);
	buf_join(&b, pol.by, pol.nby);
	if (pol.nby == 0)
		buf_puts(&b, pol.operators ? "operators" : "anyone");
	xasprintf(&out, "from outside by %s: sluice complete %lld", b.data,
	    (long long)p->id);
	buf_free(&b);
	flow_policy_free(&pol);
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
	if (w->conc_key != NULL) {
		cli_printf("key:      %s (limit %d)", w->conc_key,
		    w->conc_limit);
		if (w->status == RUN_QUEUED && w->behind != 0)
			cli_printf(", queued behind #%lld",
			    (long long)w->behind);
		cli_printf("\n");
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
	/* A run that never began (yet) was only asked for, not started. */
	cli_printf("%s %s by %s%s%s\n", w->started_at == 0 ?
	    "created: " : "started: ",
	    time_format(w->created_at, t1,
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
		if (flow_handler_title(st[i].step_key, st[i].name, name,
		    sizeof name) != NULL)
			cells[1] = name;	/* "on failure", "finally" */
		else if (st[i].item_of != 0 && st[i].items == 0) {
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
		if (st[i].status == STEP_QUEUED && st[i].behind != 0) {
			snprintf(child, sizeof child, "queued behind #%lld",
			    (long long)st[i].behind);
			cells[7] = child;
		}
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
cmd_show_run(struct client *ctx, const struct cli_args *args)
{
	struct store_workflow		*w;
	struct store_step		*st;
	char				*cause = NULL;
	cJSON				*o;
	size_t				 n;
	int64_t				 id;
	int				 json, rc;

	json = cli_args_has(args, "json");
	if (cli_parse_id(args->argv[0], &id) != 0) {
		cli_error("\"%s\" is not a workflow id", args->argv[0]);
		return (EXIT_USAGE);
	}
	if (json) {
		if ((rc = client_read_workflow(ctx, id, &o)) != 0)
			return (rc);
		cli_json_out(o);
		return (EXIT_OK);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_workflow_get(ctx->store, id, &w, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	if ((rc = store_step_list_shown(ctx->store, id, &st, &n,
	    &cause)) != 0) {
		store_workflow_free(w);
		return (client_store_fail(ctx, rc, cause));
	}
	cmd_show_text(w, st, n);
	store_steps_free(st, n);
	store_workflow_free(w);
	return (EXIT_OK);
}
