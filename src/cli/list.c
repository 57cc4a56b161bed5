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

/* list.c: "sluice list" shows workflows, newest first. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "sched/sched.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_list_run(struct client *, const struct cli_args *);
static void	cmd_list_text(const struct store_workflow *, size_t);

static const struct cli_opt cmd_list_opts[] = {
	{ "status", 0, "STATUS", 0,
	    "only runs in that state: running, waiting, paused, scheduled, "
	    "queued, late, completed, failed or cancelled" },
	{ "limit", 0, "N", 0, "at most N workflows (default 50)" },
	{ "top", 0, NULL, 0,
	    "leave out child runs (started by a sub-workflow step)" },
	{ "json", 0, NULL, 0, "a JSON array" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_list = {
	.name = "list",
	.summary = "List workflows, newest first.",
	.opts = cmd_list_opts,
	.run = cmd_list_run
};

/* Print workflows as a table for people. */
static void
cmd_list_text(const struct store_workflow *wfs, size_t n)
{
	static const char		*header[] = { "ID", "NAME", "STATUS",
	    "STEP", "BY", "STARTED", "AGE" };
	const struct store_workflow	*w;
	struct cli_table		*t;
	const char			*cells[7];
	char				 id[32], start[32], age[16], step[32];
	char				 left[24], *name;
	size_t				 i;

	t = cli_table_create(header, nitems(header));
	cli_table_flex(t, ".f.f...");
	for (i = 0; i < n; i++) {
		w = &wfs[i];
		snprintf(id, sizeof id, "%lld", (long long)w->id);
		cells[0] = id;
		/* A child run says whose: "deploy (of 12)". */
		name = NULL;
		if (w->parent_id != 0)
			xasprintf(&name, "%s (of %lld)", w->name,
			    (long long)w->parent_id);
		cells[1] = name != NULL ? name : w->name;
		cells[2] = state_name(store_workflow_state(w));
		cells[3] = w->current_step;
		if (w->status == RUN_SCHEDULED) {
			/* Where a run would show its step: the countdown. */
			when_countdown(w->start_at - time_now_ms(), left,
			    sizeof left);
			snprintf(step, sizeof step, "%s%s",
			    strcmp(left, "now") == 0 ? "" : "in ", left);
			cells[3] = step;
		} else if (w->status == RUN_QUEUED && w->behind != 0) {
			/* Where a run would show its step: its place. */
			snprintf(step, sizeof step, "behind #%lld",
			    (long long)w->behind);
			cells[3] = step;
		}
		cells[4] = w->created_by;
		cells[5] = time_format(w->created_at, start, sizeof start);
		cells[6] = cli_ago(w->created_at, age, sizeof age);
		cli_table_add(t, cells);
		free(name);
	}
	cli_table_print(t, "no workflows");
}

/* Print the workflows as a table or a JSON array. */
static int
cmd_list_run(struct client *ctx, const struct cli_args *args)
{
	struct store_workflow_filter	 f;
	struct store_workflow		*wfs;
	enum run_state			 state;
	const char			*s;
	char				*cause = NULL;
	cJSON				*o;
	size_t				 n;
	int				 rc;

	memset(&f, 0, sizeof f);
	if ((s = cli_args_get(args, "status")) != NULL) {
		if (state_parse(s, &state) != 0) {
			cli_error("--status: unknown status \"%s\" (use one of "
			    "%s)", s, state_words());
			return (EXIT_USAGE);
		}
		f.by_state = 1;
		f.state = state;
	}
	if ((s = cli_args_get(args, "limit")) != NULL &&
	    cli_parse_limit(s, &f.limit) != 0)
		return (EXIT_USAGE);
	f.top = cli_args_has(args, "top");
	if (cli_args_has(args, "json")) {
		if ((rc = client_read_workflows(ctx, &f, &o)) != 0)
			return (rc);
		cli_json_out(o);
		return (EXIT_OK);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_workflow_list(ctx->store, &f, &wfs, &n, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	cmd_list_text(wfs, n);
	store_workflows_free(wfs, n);
	return (EXIT_OK);
}
