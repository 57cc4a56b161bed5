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
 * control.c: the operator's commands on a workflow or a step: cancel,
 * retry, skip, pause and resume.  One parser for all of them; the engine
 * does the work and says what it did.
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

static int	 cmd_control_exec(struct cli_ctx *, int, char **);

const struct cli_cmd cli_cmd_cancel = {
	.name = "cancel",
	.usage = "ID [-m TEXT]",
	.summary = "Cancel a workflow: kill its running steps, stop the rest.",
	.help = "Options:\n"
	    "  -m TEXT   why, kept in the audit trail\n",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_retry = {
	.name = "retry",
	.usage = "ID [--from STEP]",
	.summary = "Run a failed or cancelled workflow again from where it "
	    "ended.",
	.help = "Options:\n"
	    "  --from STEP   run that step (a name or key) and what follows "
	    "it again\n\n"
	    "Completed steps are kept; without --from, the steps the "
	    "workflow ended\non (failed or cancelled) run again.\n",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_skip = {
	.name = "skip",
	.usage = "STEP -m TEXT",
	.summary = "Skip a failed, pending or waiting step (as if it "
	    "completed).",
	.help = "Options:\n"
	    "  -m TEXT   why (required), kept in the audit trail\n",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_pause = {
	.name = "pause",
	.usage = "ID",
	.summary = "Hold a workflow: start no new steps (running ones "
	    "finish).",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_resume = {
	.name = "resume",
	.usage = "ID",
	.summary = "Let a paused workflow go on.",
	.exec = cmd_control_exec
};

/* Every command here: ID or STEP, -m, --from; then ask the engine. */
static int
cmd_control_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "message", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_cmd		*cmd;
	const char			*comment = NULL, *from = NULL;
	int64_t				 id;
	int				 ch;

	cmd = cli_find(argv[0] + strlen("sluice "));
	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "m:", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (cmd == &cli_cmd_pause || cmd == &cli_cmd_resume ||
			    cmd == &cli_cmd_retry)
				return (cli_usage(cmd));
			comment = optarg;
			break;
		case 'f':
			if (cmd != &cli_cmd_retry)
				return (cli_usage(cmd));
			from = optarg;
			break;
		default:
			return (cli_usage(cmd));
		}
	}
	if (argc - optind != 1)
		return (cli_usage(cmd));
	if (cli_parse_id(argv[optind], &id) != 0) {
		cli_error("%s: bad %s id \"%s\"", cmd->name,
		    cmd == &cli_cmd_skip ? "step" : "workflow", argv[optind]);
		return (EXIT_USAGE);
	}
	if (cmd == &cli_cmd_skip && (comment == NULL || *comment == '\0')) {
		cli_error("skip: a reason is required (-m TEXT)");
		return (EXIT_USAGE);
	}
	if (cmd == &cli_cmd_skip)
		return (cli_submit_action(ctx, cmd->name, 0, id, comment,
		    NULL));
	return (cli_submit_action(ctx, cmd->name, id, 0, comment, from));
}
