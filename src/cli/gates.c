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

/* gates.c: "sluice gates" shows the approval queue, oldest first. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_gates_run(struct client *, const struct cli_args *);

static const struct cli_opt cmd_gates_opts[] = {
	{ "json", 0, NULL, 0, "a JSON array" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_gates = {
	.name = "gates",
	.summary = "Show the gates waiting for approval, oldest first.",
	.opts = cmd_gates_opts,
	.run = cmd_gates_run
};

/* Print the waiting gates as a table or a JSON array. */
static int
cmd_gates_run(struct client *ctx, const struct cli_args *args)
{
	static const char		*header[] = { "STEP", "WORKFLOW",
	    "GATE", "WAITING", "BY", "OK", "MESSAGE" };
	struct store_gate		*g;
	struct cli_table		*t;
	cJSON				*arr;
	char				*cause = NULL, id[64], age[16], ok[32];
	char				*wname;
	const char			*cells[7];
	size_t				 n, i;
	int				 rc;

	if (cli_args_has(args, "json")) {
		if ((rc = client_read_gates(ctx, &arr)) != 0)
			return (rc);
		cli_json_out(arr);
		return (EXIT_OK);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = client_gate_list(ctx->store, &g, &n, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	t = cli_table_create(header, nitems(header));
	cli_table_flex(t, ".ff...f");
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "%lld",
		    (long long)g[i].step_id);
		snprintf(ok, sizeof ok, "%d/%d", g[i].approvals,
		    g[i].quorum);
		cells[0] = id;
		/* A child run's gate names its parent run. */
		wname = NULL;
		if (g[i].parent_id != 0)
			xasprintf(&wname, "%s (of %lld %s)",
			    g[i].workflow_name, (long long)g[i].parent_id,
			    g[i].parent_name != NULL ? g[i].parent_name :
			    "-");
		cells[1] = wname != NULL ? wname : g[i].workflow_name;
		cells[2] = g[i].title;
		cells[3] = cli_ago(g[i].waiting_since, age, sizeof age);
		cells[4] = g[i].started_by;
		cells[5] = ok;
		cells[6] = g[i].message;
		cli_table_add(t, cells);
		free(wname);
	}
	cli_table_print(t, "no gates waiting");
	store_gates_free(g, n);
	return (EXIT_OK);
}
