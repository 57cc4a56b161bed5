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
 * run.c: "sluice run" starts a workflow from a flow file or a template.
 * The flow and its input are validated first; then the workflow and its
 * first step are recorded in one transaction.  Executing steps is the
 * engine's work.
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

static int	 cmd_run_run(struct client *, const struct cli_args *);

/* What "run" and "template run" take: they start a run the same way. */
const struct cli_opt cli_run_options[] = {
	{ "i", 'i', "KEY=VAL", CLI_OPT_MANY|CLI_OPT_SHORT,
	    "an input value (text, read as its declared type); KEY:=JSON "
	    "for any JSON value; a secret input only as KEY=@- (stdin) or "
	    "KEY=@FILE" },
	{ "input", 0, "FILE.json", CLI_OPT_MANY,
	    "input values from a JSON object (-i wins)" },
	{ "name", 0, "NAME", 0,
	    "the workflow's name (default: the template or file name)" },
	{ "at", 0, "WHEN", 0, "start later: \"in 30 minutes\", \"tomorrow "
	    "9am\", ISO 8601, @UNIXTIME" },
	{ "wait", 0, NULL, 0, "drive the run (or follow the running engine) "
	    "to its end" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_run = {
	.name = "run",
	.complete = "flow",
	.usage = "FLOW.json|TEMPLATE",
	.summary = "Start a workflow from a flow file or a template.",
	.help = "An argument containing '/' or ending in .json is a file; "
	    "anything else\nnames a template.  Prints the new workflow's "
	    "id.  --at takes local time\n(\"2026-12-01 09:00\"); with --wait "
	    "it waits through the start time.\nWith --wait the exit status "
	    "is 0 completed, 1 failed, 3 cancelled.\n",
	.opts = cli_run_options,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_run_run
};

/*
 * Validate what to run and its input, then ask the engine to start it
 * (or, with --wait, drive or follow it to its end).  Prints the id as
 * soon as it is known; returns the exit status.
 */
int
cli_run_start(struct client *ctx, const struct cli_run_opts *o)
{
	struct client_start	 s;
	struct engine_request	 q;
	struct engine_reply	 r;
	int			 rc;

	memset(&s, 0, sizeof s);
	memset(&r, 0, sizeof r);
	s.what = o->what;
	s.input = o->input;
	s.texts = o->texts;
	s.name = o->name;
	s.at = o->at;
	if ((rc = client_start(ctx, &s, &q)) != 0)
		goto out;
	if (o->wait)
		rc = cli_run_wait(ctx, &q);
	else if ((rc = cli_submit(ctx, &q, &r, 1)) == 0) {
		printf("%lld\n", (long long)r.workflow_id);
		fflush(stdout);
		/* Held by its concurrency key: say so, beside the id. */
		if (r.message != NULL && strncmp(r.message, "queued ", 7) == 0)
			fprintf(stderr, "sluice: %s\n", r.message);
	}
out:
	engine_reply_clear(&r);
	client_start_clear(&q);
	return (rc);
}

/*
 * Start what the parsed command line of "run" or "template run" says:
 * what is the flow file or template.
 */
int
cli_run_args(struct client *ctx, const struct cli_args *args,
    const char *what)
{
	struct cli_run_opts	 o;
	int			 rc;

	memset(&o, 0, sizeof o);
	if ((o.input = cli_input_args(args, &o.texts)) == NULL)
		return (EXIT_USAGE);
	o.what = what;
	o.name = cli_args_get(args, "name");
	o.at = cli_args_get(args, "at");
	o.wait = cli_args_has(args, "wait");
	rc = cli_run_start(ctx, &o);
	cJSON_Delete(o.input);
	cJSON_Delete(o.texts);
	return (rc);
}

/* "sluice run": start, print the id. */
static int
cmd_run_run(struct client *ctx, const struct cli_args *args)
{
	return (cli_run_args(ctx, args, args->argv[0]));
}
