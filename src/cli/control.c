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
 * reject, cancel, retry, skip, pause and resume.  One parser for all of
 * them, told by a table what each takes; the engine does the work (for a
 * gate, checks who may decide) and says what it did, and a refusal exits
 * 4 with the reason.
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

const struct cli_cmd cli_cmd_approve = {
	.name = "approve",
	.usage = "STEP [-m TEXT]",
	.summary = "Approve a gate waiting for people.",
	.help = "Options:\n"
	    "  -m TEXT   a comment, kept in the audit trail\n\n"
	    "STEP is the gate's step id, as sluice gates shows it.  Who may\n"
	    "decide is fixed on the gate (approvers, quorum, allow_self); see\n"
	    "AUTHORITY in sluice(1).\n",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_reject = {
	.name = "reject",
	.usage = "STEP -m TEXT",
	.summary = "Reject a gate waiting for people (a reason is required).",
	.help = "Options:\n"
	    "  -m TEXT   why (required), kept in the audit trail\n",
	.exec = cmd_control_exec
};

const struct cli_cmd cli_cmd_cancel = {
	.name = "cancel",
	.usage = "ID [-m TEXT] | --step STEP [-m TEXT]",
	.summary = "Cancel a workflow: kill its running steps, stop the rest.",
	.help = "Options:\n"
	    "  -m TEXT   why, kept in the audit trail\n"
	    "  --step    STEP is a for-each item's step id: cancel that item "
	    "alone\n            (it counts as failed; the for-each goes on)\n",
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
	    "  -m TEXT   why (required), kept in the audit trail\n\n"
	    "A waiting gate may be skipped only by someone who may approve it\n"
	    "(and not when its quorum is above 1); other steps need the\n"
	    "operator right (see AUTHORITY in sluice(1)).\n",
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

/* What each command takes: a step or a workflow, -m, --from. */
#define CONTROL_M_NO		0
#define CONTROL_M_OPTIONAL	1
#define CONTROL_M_REQUIRED	2

static const struct control_rule {
	const struct cli_cmd	*cmd;
	int			 on_step;	/* STEP, else workflow ID */
	int			 comment;	/* CONTROL_M_* */
	int			 from;		/* takes --from */
	int			 step;		/* takes --step: STEP, not ID */
} control_rules[] = {
	{ &cli_cmd_approve, 1, CONTROL_M_OPTIONAL, 0, 0 },
	{ &cli_cmd_reject, 1, CONTROL_M_REQUIRED, 0, 0 },
	{ &cli_cmd_cancel, 0, CONTROL_M_OPTIONAL, 0, 1 },
	{ &cli_cmd_retry, 0, CONTROL_M_NO, 1, 0 },
	{ &cli_cmd_skip, 1, CONTROL_M_REQUIRED, 0, 0 },
	{ &cli_cmd_pause, 0, CONTROL_M_NO, 0, 0 },
	{ &cli_cmd_resume, 0, CONTROL_M_NO, 0, 0 },
};

/* Every command here: ID or STEP, -m, --from; then ask the engine. */
static int
cmd_control_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "message", required_argument, NULL, 'm' },
		{ "step", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	const struct control_rule	*rule = NULL;
	const struct cli_cmd		*cmd;
	const char			*comment = NULL, *from = NULL;
	int64_t				 id;
	size_t				 i;
	int				 ch, on_step;

	for (i = 0; i < nitems(control_rules); i++) {
		if (strcmp(control_rules[i].cmd->name,
		    argv[0] + strlen("sluice ")) == 0)
			rule = &control_rules[i];
	}
	if (rule == NULL)
		fatalx("%s: no rule for %s", __func__, argv[0]);
	cmd = rule->cmd;
	on_step = rule->on_step;
	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "m:", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			if (rule->comment == CONTROL_M_NO)
				return (cli_usage(cmd));
			comment = optarg;
			break;
		case 'f':
			if (!rule->from)
				return (cli_usage(cmd));
			from = optarg;
			break;
		case 's':
			if (!rule->step)
				return (cli_usage(cmd));
			on_step = 1;
			break;
		default:
			return (cli_usage(cmd));
		}
	}
	if (argc - optind != 1)
		return (cli_usage(cmd));
	if (cli_parse_id(argv[optind], &id) != 0) {
		cli_error("%s: bad %s id \"%s\"", cmd->name,
		    on_step ? "step" : "workflow", argv[optind]);
		return (EXIT_USAGE);
	}
	/* A blank -m reaches the engine, which refuses it on the record. */
	if (rule->comment == CONTROL_M_REQUIRED && comment == NULL) {
		cli_error("%s: a reason is required (-m TEXT)", cmd->name);
		return (EXIT_USAGE);
	}
	if (on_step)
		return (cli_submit_action(ctx, cmd->name, 0, id, comment,
		    NULL));
	return (cli_submit_action(ctx, cmd->name, id, 0, comment, from));
}
