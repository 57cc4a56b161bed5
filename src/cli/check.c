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

static int	cmd_check_run(struct client *, const struct cli_args *);

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

/* Validate one document against the tools catalog. */
static int
cmd_check_run(struct client *ctx, const struct cli_args *args)
{
	const char			*file = args->argv[0];
	const struct flow_tools		*tools;
	struct flow_diags		*diags;
	struct flow_doc			*doc;
	char				*text, *cause = NULL;
	size_t				 len, ns, nh;
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
	valid = client_check(ctx, text, len, tools, &doc, &diags);
	if (json)
		cli_json_out(client_json_check(diags, valid));
	else {
		client_diags_print(ctx, diags, file);
		if (valid) {
			nh = flow_handler_count(doc->flow);
			ns = doc->flow->nsteps - nh;
			cli_printf("%s: valid %s, %zu step%s", file,
			    doc->is_template ? "template" : "flow",
			    ns, ns == 1 ? "" : "s");
			if (nh != 0)
				cli_printf(" and %zu handler%s", nh,
				    nh == 1 ? "" : "s");
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
