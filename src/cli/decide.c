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
 * decide.c: "sluice approve STEP [-m TEXT]" and "sluice reject STEP -m
 * TEXT".  The engine checks who may decide (approvers, allow_self, one
 * vote each) and answers; a refusal exits 4 with the reason.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cmd_decide_exec(struct cli_ctx *, int, char **);

const struct cli_cmd cli_cmd_approve = {
	.name = "approve",
	.usage = "STEP [-m TEXT]",
	.summary = "Approve a gate waiting for people.",
	.help = "Options:\n"
	    "  -m TEXT   a comment, kept in the audit trail\n\n"
	    "STEP is the gate's step id, as sluice gates shows it.\n",
	.exec = cmd_decide_exec
};

const struct cli_cmd cli_cmd_reject = {
	.name = "reject",
	.usage = "STEP -m TEXT",
	.summary = "Reject a gate waiting for people (a reason is required).",
	.help = "Options:\n"
	    "  -m TEXT   why (required), kept in the audit trail\n",
	.exec = cmd_decide_exec
};

/* Both commands: parse, then ask the engine. */
static int
cmd_decide_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd;
	const char		*comment = NULL;
	int64_t			 id;
	int			 ch, approve;

	approve = strcmp(argv[0], "sluice approve") == 0;
	cmd = approve ? &cli_cmd_approve : &cli_cmd_reject;
	cli_getopt_reset();
	while ((ch = getopt(argc, argv, "m:")) != -1) {
		switch (ch) {
		case 'm':
			comment = optarg;
			break;
		default:
			return (cli_usage(cmd));
		}
	}
	if (argc - optind != 1)
		return (cli_usage(cmd));
	if (cli_parse_id(argv[optind], &id) != 0) {
		cli_error("%s: bad step id \"%s\"", cmd->name, argv[optind]);
		return (EXIT_USAGE);
	}
	if (!approve && (comment == NULL || *comment == '\0')) {
		cli_error("reject: a reason is required (-m TEXT)");
		return (EXIT_USAGE);
	}
	return (cli_submit_action(ctx, cmd->name, 0, id, comment, NULL));
}
