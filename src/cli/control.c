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
 * control.c: the operator's commands on a workflow or a step: approve,
 * reject, cancel, retry, skip, pause and resume.  Each declares what it
 * takes in its table entry; the engine does the work (for a
 * gate, checks who may decide) and says what it did, and a refusal exits
 * 4 with the reason.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cmd_control_run(struct client *, const struct cli_args *);
static int	 control_retry_dry(struct client *, int64_t, const char *);

static const struct cli_opt control_comment_opts[] = {
	{ "message", 'm', "TEXT", 0, "a comment, kept in the audit trail" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt control_reason_opts[] = {
	{ "message", 'm', "TEXT", CLI_OPT_REQUIRED,
	    "why (required), kept in the audit trail" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt control_cancel_opts[] = {
	{ "message", 'm', "TEXT", 0, "why, kept in the audit trail" },
	{ "step", 0, NULL, 0,
	    "the argument is a for-each item's step id: cancel that item "
	    "alone" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt control_retry_opts[] = {
	{ "from", 0, "STEP", 0,
	    "run that step (a name or key) and what follows it again" },
	{ "dry-run", 'n', NULL, 0,
	    "say what would run again (as the console's R does); retry "
	    "nothing" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_approve = {
	.name = "approve",
	.complete = "gate",
	.usage = "STEP",
	.summary = "Approve a gate waiting for people.",
	.help = "STEP is the gate's step id, as sluice gates shows it.  Who may\n"
	    "decide is fixed on the gate (approvers, quorum, allow_self); see\n"
	    "AUTHORITY in sluice(1).\n",
	.opts = control_comment_opts,
	.flags = CLI_CMD_F_STEP,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_reject = {
	.name = "reject",
	.complete = "gate",
	.usage = "STEP",
	.summary = "Reject a gate waiting for people (a reason is required).",
	.opts = control_reason_opts,
	.flags = CLI_CMD_F_STEP,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_cancel = {
	.name = "cancel",
	.complete = "workflow",
	.usage = "ID",
	.summary = "Cancel a workflow: kill its running steps, stop the rest.",
	.help = "With --step, a cancelled for-each item counts as failed and "
	    "the for-each\ngoes on.  A workflow with a \"finally\" handler "
	    "runs it first, still\nrunning; cancel it again to kill the "
	    "handler and end it at once.\n",
	.opts = control_cancel_opts,
	.flags = CLI_CMD_F_ITEM,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_retry = {
	.name = "retry",
	.complete = "workflow",
	.usage = "ID",
	.summary = "Run a failed or cancelled workflow again from where it "
	    "ended.",
	.help = "Without --from, the steps the workflow ended on (failed or "
	    "cancelled)\nrun again and the steps that completed keep their "
	    "results; with --from,\nthat step and what follows it run again, "
	    "completed or not.  --dry-run\nsays which, as the console does "
	    "before it asks, and changes nothing.\n",
	.opts = control_retry_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_skip = {
	.name = "skip",
	.complete = "step",
	.usage = "STEP",
	.summary = "Skip a failed, pending or waiting step (as if it "
	    "completed).",
	.help = "A waiting gate may be skipped only by someone who may approve "
	    "it\n(and not when its quorum is above 1), a waiting wait step "
	    "by someone\nwho may finish it; other steps need the operator "
	    "right (see\nAUTHORITY in sluice(1)).\n",
	.opts = control_reason_opts,
	.flags = CLI_CMD_F_STEP,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_pause = {
	.name = "pause",
	.complete = "workflow",
	.usage = "ID",
	.summary = "Hold a workflow: start no new steps (running ones "
	    "finish).",
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

const struct cli_cmd cli_cmd_resume = {
	.name = "resume",
	.complete = "workflow",
	.usage = "ID",
	.summary = "Let a paused workflow go on.",
	.args_min = 1,
	.args_max = 1,
	.run = cmd_control_run
};

/* Every command here: ID or STEP, -m, --from; then ask the engine. */
static int
cmd_control_run(struct client *ctx, const struct cli_args *args)
{
	const struct cli_cmd	*cmd = args->cmd;
	const char		*comment = NULL, *from = NULL;
	int64_t			 id;
	int			 on_step;

	on_step = (cmd->flags & CLI_CMD_F_STEP) ||
	    ((cmd->flags & CLI_CMD_F_ITEM) && cli_args_has(args, "step"));
	if (cli_cmd_takes(cmd, "message"))
		comment = cli_args_get(args, "message");
	if (cli_cmd_takes(cmd, "from"))
		from = cli_args_get(args, "from");
	if (cli_parse_id(args->argv[0], &id) != 0) {
		cli_error("%s: bad %s id \"%s\"", cmd->name,
		    on_step ? "step" : "workflow", args->argv[0]);
		return (EXIT_USAGE);
	}
	if (cmd->opts == control_retry_opts && cli_args_has(args, "dry-run"))
		return (control_retry_dry(ctx, id, from));
	/* A blank -m reaches the engine, which refuses it on the record. */
	if (on_step)
		return (cli_submit_action(ctx, cmd->name, 0, id, comment,
		    NULL));
	return (cli_submit_action(ctx, cmd->name, id, 0, comment, from));
}

/*
 * retry --dry-run: what the retry would run again, by the function the
 * console's R shows before it asks (engine/retry-preview.c), read from
 * the database; nothing is sent.  Refused as the retry would be.
 */
static int
control_retry_dry(struct client *ctx, int64_t id, const char *from)
{
	struct buf	 b;
	char		*cause = NULL;
	int		 rc;

	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	buf_init(&b);
	rc = engine_retry_preview(ctx->store, id, from, &b, &cause);
	if (rc < 0) {
		buf_free(&b);
		return (client_store_fail(ctx, rc, cause));
	}
	if (rc > 0) {
		cli_error("%s", cause);
		free(cause);
		buf_free(&b);
		return (rc);
	}
	printf("%s\n", b.data != NULL ? b.data : "");
	buf_free(&b);
	return (EXIT_OK);
}
