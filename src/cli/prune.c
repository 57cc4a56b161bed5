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
 * prune.c: "sluice prune --older-than D [--dry-run]" removes the runs
 * that finished more than D ago, with their steps and logs, through the
 * engine (a write, for operators), one batch per request so the engine
 * goes on with its work between them; on a terminal, a line says how far
 * it has gone.  --dry-run lists what would go and
 * changes nothing.  The audit trail stays whole.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	cmd_prune_run(struct client *, const struct cli_args *);
static int	cmd_prune_preview(struct client *, int64_t, int);
static int	cmd_prune_apply(struct client *, int64_t, int);
static void	cmd_prune_progress(int64_t, int64_t, int);

static const struct cli_opt cmd_prune_opts[] = {
	{ "older-than", 0, "DURATION", CLI_OPT_REQUIRED,
	    "finished more than DURATION ago (\"90d\", \"12h\")" },
	{ "dry-run", 0, NULL, 0, "list what would be removed; change nothing" },
	{ "json", 0, NULL, 0, "one JSON object" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_prune = {
	.name = "prune",
	.summary = "Remove runs that finished more than DURATION ago.",
	.help = "Unfinished runs, and child runs of unfinished ones, stay; so "
	    "does the audit trail.\n",
	.opts = cmd_prune_opts,
	.run = cmd_prune_run
};

/* List what a prune would remove. */
static int
cmd_prune_preview(struct client *ctx, int64_t before, int json)
{
	static const char		*header[] = { "ID", "NAME", "STATUS",
	    "FINISHED", "RUNS", "STEPS" };
	struct store_prune_run		*list;
	struct cli_table		*t;
	cJSON				*root, *arr, *o;
	char				*cause = NULL, id[32], runs[32];
	char				 steps[32], when[64];
	const char			*cells[6];
	size_t				 n, i;
	int64_t				 nruns = 0, nsteps = 0;
	int				 rc;

	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_prune_preview(ctx->store, before, &list, &n,
	    &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	for (i = 0; i < n; i++) {
		nruns += list[i].runs;
		nsteps += list[i].steps;
	}
	if (json) {
		root = cJSON_CreateObject();
		cJSON_AddTrueToObject(root, "dry_run");
		json_add_time(root, "before", before);
		arr = cJSON_AddArrayToObject(root, "workflows");
		for (i = 0; i < n; i++) {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "id", (double)list[i].id);
			cJSON_AddStringToObject(o, "name", list[i].name);
			cJSON_AddStringToObject(o, "status",
			    status_run_name(list[i].status));
			json_add_time(o, "finished_at", list[i].finished_at);
			cJSON_AddNumberToObject(o, "runs", (double)list[i].runs);
			cJSON_AddNumberToObject(o, "steps",
			    (double)list[i].steps);
			cJSON_AddItemToArray(arr, o);
		}
		o = cJSON_AddObjectToObject(root, "total");
		cJSON_AddNumberToObject(o, "runs", (double)nruns);
		cJSON_AddNumberToObject(o, "steps", (double)nsteps);
		cli_json_out(root);
	} else {
		t = cli_table_create(header, nitems(header));
		cli_table_flex(t, ".f....");
		for (i = 0; i < n; i++) {
			snprintf(id, sizeof id, "%lld", (long long)list[i].id);
			snprintf(runs, sizeof runs, "%lld",
			    (long long)list[i].runs);
			snprintf(steps, sizeof steps, "%lld",
			    (long long)list[i].steps);
			cells[0] = id;
			cells[1] = list[i].name;
			cells[2] = status_run_name(list[i].status);
			cells[3] = time_format(list[i].finished_at, when,
			    sizeof when);
			cells[4] = runs;
			cells[5] = steps;
			cli_table_add(t, cells);
		}
		cli_table_print(t, NULL);
		cli_printf("would remove %lld runs (%lld steps); nothing was "
		    "changed\n", (long long)nruns, (long long)nsteps);
	}
	store_prune_runs_free(list, n);
	return (EXIT_OK);
}

/*
 * On a terminal, how far the prune has gone, on one line rewritten at
 * most a few times a second (done: the line is cleared).
 */
static void
cmd_prune_progress(int64_t runs, int64_t after, int done)
{
	static int64_t	 shown;
	int64_t		 now = time_mono_ms();

	if (!isatty(STDERR_FILENO))
		return;
	if (done) {
		if (shown != 0)
			fprintf(stderr, "\r\033[K");
		return;
	}
	if (shown != 0 && now - shown < 250)
		return;
	shown = now;
	fprintf(stderr, "\rpruning: %lld runs removed, up to run %lld\033[K",
	    (long long)runs, (long long)after);
}

/*
 * Ask the engine for batches until none is left; say what went.  Each
 * batch is a short one, and each request waits for its answer however
 * long the engine takes (a busy engine is not a failed prune).
 */
static int
cmd_prune_apply(struct client *ctx, int64_t before, int json)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	cJSON			*args, *root, *o;
	char			*text, when[64];
	int64_t			 after = 0, runs = 0, steps = 0, logs = 0;
	int			 rc;

	do {
		args = cJSON_CreateObject();
		cJSON_AddNumberToObject(args, "before", (double)before);
		cJSON_AddNumberToObject(args, "after", (double)after);
		text = json_print(args);
		cJSON_Delete(args);
		memset(&q, 0, sizeof q);
		q.command = "prune";
		q.args_json = text;
		q.patient = 1;
		rc = client_ask(ctx, &q, &r);
		free(text);
		if (rc == 0 && r.code != 0) {
			cli_error("%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
		}
		if (rc != 0) {
			cmd_prune_progress(runs, after, 1);
			engine_reply_clear(&r);
			return (rc);
		}
		runs += r.pruned_runs;
		steps += r.pruned_steps;
		logs += r.pruned_logs;
		after = r.next;
		engine_reply_clear(&r);
		cmd_prune_progress(runs, after, after == 0);
	} while (after != 0);
	if (json) {
		root = cJSON_CreateObject();
		cJSON_AddFalseToObject(root, "dry_run");
		json_add_time(root, "before", before);
		o = cJSON_AddObjectToObject(root, "removed");
		cJSON_AddNumberToObject(o, "runs", (double)runs);
		cJSON_AddNumberToObject(o, "steps", (double)steps);
		cJSON_AddNumberToObject(o, "logs", (double)logs);
		cli_json_out(root);
	} else {
		cli_printf("removed %lld runs (%lld steps, %lld log chunks) "
		    "that finished before %s\n", (long long)runs,
		    (long long)steps, (long long)logs, time_format(before, when,
		    sizeof when));
	}
	return (EXIT_OK);
}

/* Preview or prune. */
static int
cmd_prune_run(struct client *ctx, const struct cli_args *args)
{
	const char	*why, *age;
	int64_t		 ms;
	int		 json;

	age = cli_args_get(args, "older-than");
	json = cli_args_has(args, "json");
	if (flow_duration_parse(age, &ms, &why) != 0) {
		cli_error("--older-than: \"%s\": %s", age, why);
		return (EXIT_USAGE);
	}
	if (cli_args_has(args, "dry-run"))
		return (cmd_prune_preview(ctx, time_now_ms() - ms, json));
	return (cmd_prune_apply(ctx, time_now_ms() - ms, json));
}
