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

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "sched/sched.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cmd_run_run(struct cli_ctx *, const struct cli_args *);
static int	 cli_run_load(struct cli_ctx *, const char *,
		     struct flow_doc **, struct store_template **);
static int	 cli_run_check_name(const char *);
static int	 cli_run_secrets_ok(struct cli_ctx *, const struct flow_doc *,
		     const struct store_template *);
static char	*cli_run_default_name(const char *);
static char	*cli_run_request(const struct flow_doc *, const char *,
		     const char *, const struct store_template *, int64_t,
		     const cJSON *);

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

/* Is the argument a flow file rather than a template name? */
int
cli_run_is_file(const char *what)
{
	size_t	len = strlen(what);

	return (strchr(what, '/') != NULL ||
	    (len > 5 && strcmp(what + len - 5, ".json") == 0));
}

/* Check a workflow name: printable text of a bounded length. */
static int
cli_run_check_name(const char *name)
{
	size_t	len = strlen(name);

	if (len == 0 || len > SLUICE_MAX_NAME) {
		cli_error("--name: a name has 1 to %d bytes", SLUICE_MAX_NAME);
		return (-1);
	}
	if (!utf8_valid(name, len, NULL)) {
		cli_error("--name: not valid UTF-8");
		return (-1);
	}
	if (vis_needed(name)) {		/* C0, DEL and C1 */
		cli_error("--name: control characters are not allowed");
		return (-1);
	}
	return (0);
}

/* The name a run gets from its file: the base name without ".json". */
static char *
cli_run_default_name(const char *path)
{
	char	*copy, *base, *name;
	size_t	 len;

	copy = xstrdup(path);
	base = basename(copy);
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	if (len > SLUICE_MAX_NAME)
		len = SLUICE_MAX_NAME;
	name = xstrndup(base, len);
	free(copy);
	return (name);
}

/*
 * Load and validate the document a run starts from, printing every
 * problem.  Returns 0 or an exit status.
 */
static int
cli_run_load(struct cli_ctx *ctx, const char *what, struct flow_doc **docp,
    struct store_template **tp)
{
	const struct flow_tools	*tools;
	char			*text = NULL, *cause = NULL, *where;
	size_t			 len;
	int			 rc;

	*docp = NULL;
	*tp = NULL;
	if ((rc = client_tools(ctx, &tools)) != 0)
		return (rc);
	if (cli_run_is_file(what)) {
		text = file_read(what, SLUICE_MAX_DOCUMENT, &len, &cause);
		if (text == NULL) {
			cli_error("%s", cause);
			free(cause);
			return (EXIT_USAGE);
		}
		where = xstrdup(what);
	} else {
		if ((rc = client_store(ctx, CLIENT_STORE_ANY)) != 0)
			return (rc);
		rc = store_template_get(ctx->store, what, 0, tp, &cause);
		if (rc != 0)
			return (client_name_fail(ctx, rc, cause,
			    CLIENT_NAME_TEMPLATE, what));
		text = xstrdup((*tp)->document);
		len = strlen(text);
		xasprintf(&where, "template %s", what);
	}
	*docp = client_doc_parse(ctx, text, len, tools, where, NULL);
	free(where);
	free(text);
	return (*docp == NULL ? EXIT_USAGE : 0);
}

/*
 * The start command's arguments: the flow, its input, name, template,
 * SLA and start time (0: now).
 */
static char *
cli_run_request(const struct flow_doc *doc, const char *input,
    const char *name, const struct store_template *t, int64_t start_at,
    const cJSON *secrets)
{
	cJSON	*a;
	char	*text;

	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "name", name);
	cJSON_AddItemToObject(a, "flow", json_raw(doc->flow_json));
	cJSON_AddItemToObject(a, "input", json_raw(input));
	if (t != NULL) {
		cJSON_AddStringToObject(a, "template", t->name);
		cJSON_AddNumberToObject(a, "version", (double)t->version);
	}
	if (doc->sla_ms > 0)
		cJSON_AddNumberToObject(a, "sla_ms", (double)doc->sla_ms);
	if (start_at > 0)
		cJSON_AddNumberToObject(a, "start_at", (double)start_at);
	if (secrets != NULL)
		cJSON_AddItemToObject(a, "secret_input",
		    cJSON_Duplicate(secrets, 1));
	text = json_print(a);
	if (secrets != NULL)
		cli_secret_inputs_free(cJSON_DetachItemFromObjectCaseSensitive(
		    a, "secret_input"));
	cJSON_Delete(a);
	return (text);
}

/*
 * The site's secrets policy, asked before anything is sent: a refusal
 * (which the engine would give too) then touches nothing.
 */
static int
cli_run_secrets_ok(struct cli_ctx *ctx, const struct flow_doc *doc,
    const struct store_template *t)
{
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	char			*cause = NULL;
	int			 rc;

	if (doc->flow_json == NULL || strstr(doc->flow_json, "secrets") ==
	    NULL)
		return (0);
	memset(&opts, 0, sizeof opts);
	if ((rc = client_tools(ctx, &tools)) != 0 ||
	    (rc = client_engine_opts(ctx, &opts)) != 0)
		return (rc);
	if (engine_secret_start_ok(tools, &opts, t != NULL ? t->name : NULL,
	    doc->flow_json, &cause) != 0) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_REFUSED);
	}
	return (0);
}

/*
 * Validate what to run and its input, then ask the engine to start it
 * (or, with --wait, drive or follow it to its end).  Prints the id as
 * soon as it is known; returns the exit status.
 */
int
cli_run_start(struct cli_ctx *ctx, const struct cli_run_opts *o)
{
	struct flow_doc		*doc = NULL;
	struct store_template	*t = NULL;
	struct engine_request	 q;
	struct engine_reply	 r;
	char			*input = NULL, *cause = NULL, *name = NULL;
	cJSON			*given = NULL, *secrets = NULL;
	int64_t			 start_at = 0;
	int			 rc;

	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	if (o->name != NULL && cli_run_check_name(o->name) != 0)
		return (EXIT_USAGE);
	if (o->at != NULL &&
	    when_parse(o->at, time_now_ms(), &start_at, &cause) != 0) {
		cli_error("--at: %s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if ((rc = cli_run_load(ctx, o->what, &doc, &t)) != 0)
		goto out;
	given = cJSON_Duplicate(o->input, 1);
	if ((rc = cli_secret_inputs(ctx, doc, given, &secrets)) != 0)
		goto out;
	if ((input = flow_doc_input_text(doc, given, o->texts,
	    &cause)) == NULL) {
		cli_error("%s", cause);
		free(cause);
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = cli_run_secrets_ok(ctx, doc, t)) != 0)
		goto out;
	if ((rc = client_store(ctx, CLIENT_STORE_ANY|CLIENT_STORE_CREATE)) != 0)
		goto out;
	if (o->name != NULL)
		name = xstrdup(o->name);
	else if (t != NULL)
		name = xstrdup(t->name);
	else
		name = cli_run_default_name(o->what);
	q.command = "start";
	q.args_json = cli_run_request(doc, input, name, t, start_at, secrets);
	q.secret = secrets != NULL;
	if (o->wait)
		rc = cli_run_wait(ctx, &q);
	else if ((rc = cli_submit(ctx, &q, &r, 1)) == 0) {
		printf("%lld\n", (long long)r.workflow_id);
		fflush(stdout);
	}
out:
	engine_reply_clear(&r);
	if (q.secret)
		explicit_bzero((char *)q.args_json, strlen(q.args_json));
	free((char *)q.args_json);
	cli_secret_inputs_free(secrets);
	cJSON_Delete(given);
	free(name);
	free(input);
	if (t != NULL)
		store_template_free(t);
	if (doc != NULL)
		flow_doc_free(doc);
	return (rc);
}

/*
 * Start what the parsed command line of "run" or "template run" says:
 * what is the flow file or template.
 */
int
cli_run_args(struct cli_ctx *ctx, const struct cli_args *args,
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
cmd_run_run(struct cli_ctx *ctx, const struct cli_args *args)
{
	return (cli_run_args(ctx, args, args->argv[0]));
}
