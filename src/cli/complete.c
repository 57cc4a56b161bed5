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
 * complete.c: "complete" and "fail", which finish a wait step from
 * outside.  The step is named by its id or as WORKFLOW:STEP (the step's
 * name or key in that workflow, which the system that starts the outside
 * work can be told before the step exists); the result is checked here,
 * with its line and column, before anything is asked of the engine,
 * which decides who may finish the step.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cmd_complete_run(struct client *, const struct cli_args *);
static cJSON	*cmd_complete_result(const char *);

static const struct cli_opt complete_opts[] = {
	{ "result", 0, "JSON", 0,
	    "the step's result (default null); - reads it from stdin" },
	{ "message", 'm', "TEXT", 0, "a comment, kept in the audit trail" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt fail_opts[] = {
	{ "message", 'm', "TEXT", CLI_OPT_REQUIRED,
	    "why (required): the step's error, and the audit trail's" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_complete = {
	.name = "complete",
	.complete = "step",
	.usage = "STEP",
	.summary = "Finish a wait step from outside, with a result.",
	.help = "STEP is the step's id, or WORKFLOW:NAME (the step's name or "
	    "key in\nworkflow WORKFLOW).  Who may finish it is fixed on the "
	    "step (\"by\");\nsee AUTHORITY in sluice(1).\n",
	.opts = complete_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_complete_run
};

const struct cli_cmd cli_cmd_fail = {
	.name = "fail",
	.complete = "step",
	.usage = "STEP",
	.summary = "Fail a wait step from outside (a reason is required).",
	.help = "STEP is the step's id, or WORKFLOW:NAME.  The step is not "
	    "tried again;\nwhat follows a failure follows (a branch on it, "
	    "else the workflow fails).\n",
	.opts = fail_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_complete_run
};

/*
 * --result: JSON text, or "-" for stdin, at most SLUICE_MAX_INPUT bytes.
 * NULL after saying why (with line and column for bad JSON).
 */
static cJSON *
cmd_complete_result(const char *arg)
{
	cJSON	*v;
	char	*text, *cause = NULL;
	size_t	 len;

	if (strcmp(arg, "-") == 0) {
		if ((text = file_read("-", SLUICE_MAX_INPUT, &len,
		    &cause)) == NULL) {
			cli_error("complete: --result: %s", cause);
			free(cause);
			return (NULL);
		}
	} else {
		len = strlen(arg);
		if (len > SLUICE_MAX_INPUT) {
			cli_error("complete: --result: larger than the limit "
			    "of %d KiB", SLUICE_MAX_INPUT / 1024);
			return (NULL);
		}
		text = xstrdup(arg);
	}
	if (!utf8_valid(text, len, NULL)) {
		cli_error("complete: --result: not valid UTF-8");
		free(text);
		return (NULL);
	}
	if ((v = json_parse(text, len, &cause)) == NULL) {
		cli_error("complete: --result%s: %s", strcmp(arg, "-") == 0 ?
		    " (stdin)" : "", cause);
		free(cause);
	}
	free(text);
	return (v);
}

/* complete STEP [--result JSON|-] [-m TEXT], fail STEP -m TEXT. */
static int
cmd_complete_run(struct client *ctx, const struct cli_args *ca)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	const char		*comment, *result = NULL;
	cJSON			*args, *v;
	int			 rc;

	comment = cli_args_get(ca, "message");
	if (ca->cmd == &cli_cmd_complete)
		result = cli_args_get(ca, "result");
	memset(&q, 0, sizeof q);
	q.command = ca->cmd->name;
	args = cJSON_CreateObject();
	if (client_step_target(ctx, ca->argv[0], &q, args) != 0) {
		cJSON_Delete(args);
		return (EXIT_USAGE);
	}
	if (result != NULL) {
		if ((v = cmd_complete_result(result)) == NULL) {
			cJSON_Delete(args);
			return (EXIT_USAGE);
		}
		cJSON_AddItemToObject(args, "result", v);
	}
	/* A blank -m reaches the engine, which refuses it on the record. */
	if (comment != NULL)
		cJSON_AddStringToObject(args, "comment", comment);
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = cli_submit(ctx, &q, &r, 0);
	free((char *)q.args_json);
	engine_reply_clear(&r);
	return (rc);
}
