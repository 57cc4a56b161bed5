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
 * submit.c: how a command asks the engine and reports the answer: the
 * engine's line on stdout, a refusal as "sluice: ..." with its exit
 * status, and, when no engine was running, a note saying the change is
 * recorded but nothing runs until one starts, and how to start one.
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

/*
 * Send a request and print nothing: the exit status of the exchange
 * (after saying why it failed), the engine's answer in r.
 */
int
cli_ask(struct cli_ctx *ctx, const struct engine_request *q,
    struct engine_reply *r)
{
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	char			*cause = NULL, *path;
	int			 rc;

	memset(r, 0, sizeof *r);
	memset(&opts, 0, sizeof opts);
	/* An engine answering its socket: ask it first, opening nothing. */
	if (ctx->store == NULL) {
		path = cli_db_path(ctx);
		rc = engine_submit_sock_path(path, &ctx->actor, q, r, &cause);
		free(path);
		if (rc == 0)
			return (EXIT_OK);
		if (rc != 1) {
			cli_error("%s", cause);
			free(cause);
			return (EXIT_FAILED);
		}
	}
	/* Read-only is fine: the engine's socket does the writing. */
	if ((rc = cli_store(ctx, CLI_STORE_ANY)) != 0)
		return (rc);
	if ((rc = cli_tools(ctx, &tools)) != 0)
		return (rc);
	if ((rc = cli_engine_opts(ctx, &opts)) != 0)
		return (rc);
	if ((rc = engine_submit(ctx->store, tools, &opts, &ctx->actor, q, r,
	    &cause)) != 0) {
		cli_error("%s", cause);
		free(cause);
		return (rc == STORE_READONLY ? EXIT_REFUSED : EXIT_FAILED);
	}
	return (EXIT_OK);
}

/* Send a request; returns the exit status after printing the answer. */
int
cli_submit(struct cli_ctx *ctx, const struct engine_request *q,
    struct engine_reply *r, int quiet)
{
	int	 rc;

	if ((rc = cli_ask(ctx, q, r)) != 0)
		return (rc);
	return (cli_reply(ctx, r, quiet));
}

/* Print the engine's answer to a request; returns the exit status. */
int
cli_reply(struct cli_ctx *ctx, struct engine_reply *r, int quiet)
{
	if (r->code != 0) {
		cli_error("%s", r->message != NULL ? r->message : "refused");
		return (r->code);
	}
	if (!quiet && r->message != NULL)
		cli_printf("%s\n", r->message);
	if (r->offline)
		cli_offline_note(ctx);
	return (EXIT_OK);
}

/* No engine runs: say what that means and how to start one. */
void
cli_offline_note(struct cli_ctx *ctx)
{
	cli_warn("no engine is running on %s: this is recorded, but no step "
	    "runs until one starts (sluice engine, or run --wait)",
	    store_path(ctx->store));
}

/*
 * An operator command on a workflow or step, with an optional comment and
 * --from: build its arguments, send it, print the answer.
 */
int
cli_submit_action(struct cli_ctx *ctx, const char *command, int64_t wf,
    int64_t step, const char *comment, const char *from)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	cJSON			*args;
	int			 rc;

	args = cJSON_CreateObject();
	if (comment != NULL)
		cJSON_AddStringToObject(args, "comment", comment);
	if (from != NULL)
		cJSON_AddStringToObject(args, "from", from);
	memset(&q, 0, sizeof q);
	q.command = command;
	q.workflow_id = wf;
	q.step_id = step;
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = cli_submit(ctx, &q, &r, 0);
	free((char *)q.args_json);
	engine_reply_clear(&r);
	return (rc);
}

/*
 * Save (document set) or remove a template through the engine, which
 * writes it (in service mode nobody else can).  expect_version: -1 any,
 * 0 must be new.  The answer in r; the exit status of the exchange.
 */
int
cli_template_request(struct cli_ctx *ctx, const char *name,
    const char *document, int64_t expect_version, struct engine_reply *r)
{
	struct engine_request	 q;
	cJSON			*args;
	int			 rc;

	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "name", name);
	if (document != NULL) {
		cJSON_AddStringToObject(args, "document", document);
		cJSON_AddNumberToObject(args, "expect_version",
		    (double)expect_version);
	}
	memset(&q, 0, sizeof q);
	q.command = document != NULL ? "template-save" : "template-rm";
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = cli_ask(ctx, &q, r);
	free((char *)q.args_json);
	return (rc);
}
