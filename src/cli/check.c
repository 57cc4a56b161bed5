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
 * check.c: "sluice check FILE" validates a flow or template document
 * without running it and reports every problem at its place.
 */

#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_check_run(struct cli_ctx *, const struct cli_args *);
static void	cmd_check_json(const struct flow_diags *, int);

static const struct cli_opt cmd_check_opts[] = {
	{ "json", 0, NULL, 0, "print the problems as a JSON array" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_check = {
	.name = "check",
	.complete = "file",
	.usage = "FILE",
	.summary = "Validate a flow or template document without running it.",
	.opts = cmd_check_opts,
	.args_min = 1,
	.args_max = 1,
	.help = "Prints every problem as FILE:LINE:COL: PATH: MESSAGE.  Exits 0 "
	    "when valid\n(warnings allowed), 2 otherwise.\n",
	.run = cmd_check_run
};

/* Print the diagnostics as a JSON array on stdout. */
static void
cmd_check_json(const struct flow_diags *diags, int valid)
{
	const struct flow_diag	*d;
	cJSON			*root, *arr, *o;

	root = cJSON_CreateObject();
	cJSON_AddBoolToObject(root, "valid", valid);
	arr = cJSON_AddArrayToObject(root, "problems");
	TAILQ_FOREACH(d, diags, entry) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "severity",
		    d->severity == FLOW_ERROR ? "error" : "warning");
		cJSON_AddStringToObject(o, "path", d->path);
		cJSON_AddNumberToObject(o, "line", d->line);
		cJSON_AddNumberToObject(o, "column", d->col);
		cJSON_AddStringToObject(o, "message", d->message);
		cJSON_AddItemToArray(arr, o);
	}
	cli_json_out(root);
}

/*
 * Where a database exists, follow the templates a document calls: a loop
 * among them is an error ("a -> b -> a").  Never creates a database.
 */
static char *
cmd_check_loop(struct cli_ctx *ctx, const struct flow_doc *doc)
{
	const struct flow_step	*st;
	char			*path;
	size_t			 i;
	int			 found = 0;

	for (i = 0; doc != NULL && doc->flow != NULL &&
	    i < doc->flow->nsteps; i++) {
		st = &doc->flow->steps[i];
		if (st->workflow != NULL || (st->foreach != NULL &&
		    st->foreach->body != NULL &&
		    st->foreach->body->workflow != NULL))
			found = 1;
	}
	if (!found)
		return (NULL);
	path = client_db_path(ctx);
	found = access(path, R_OK) == 0;
	free(path);
	if (!found || client_store(ctx, 0) != 0)
		return (NULL);
	return (cli_subflow_loop(ctx->store, NULL, doc));
}

/* Validate one document against the tools catalog. */
static int
cmd_check_run(struct cli_ctx *ctx, const struct cli_args *args)
{
	const char			*file = args->argv[0];
	const struct flow_tools		*tools;
	struct flow_diags		*diags;
	struct flow_doc			*doc;
	char				*text, *cause = NULL, *loop;
	size_t				 len;
	int				 json, rc, valid;

	json = cli_args_has(args, "json");
	if ((rc = client_tools(ctx, &tools)) != 0)
		return (rc);
	text = file_read(file, SLUICE_MAX_DOCUMENT, &len, &cause);
	if (text == NULL) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	diags = flow_diags_create();
	doc = flow_doc_parse(text, len, tools, diags);
	if ((loop = cmd_check_loop(ctx, doc)) != NULL) {
		flow_diags_add(diags, FLOW_ERROR, "$", "the templates it calls "
		    "call each other in a loop: %s", loop);
		flow_diags_locate(diags, text, len);
		free(loop);
	}
	valid = (doc != NULL && flow_diags_errors(diags) == 0);
	if (json)
		cmd_check_json(diags, valid);
	else {
		client_diags_print(ctx, diags, file);
		if (valid) {
			cli_printf("%s: valid %s, %zu step%s", file,
			    doc->is_template ? "template" : "flow",
			    doc->flow->nsteps, doc->flow->nsteps == 1 ? "" : "s");
			if (flow_diags_warnings(diags) != 0)
				cli_printf(", %d warning%s", flow_diags_warnings(diags),
				    flow_diags_warnings(diags) == 1 ? "" : "s");
			cli_printf("\n");
		}
	}
	if (doc != NULL)
		flow_doc_free(doc);
	flow_diags_free(diags);
	free(text);
	return (valid ? EXIT_OK : EXIT_USAGE);
}
