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
 * help.c: "sluice help [COMMAND [SUBCOMMAND]]" and the top-level help
 * that --help prints: both read the command table, so they list exactly
 * the commands there are.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "cli/cli.h"

static int	cmd_help_run(struct client *, const struct cli_args *);

const struct cli_cmd cli_cmd_help = {
	.name = "help",
	.complete = "command",
	.usage = "[COMMAND [SUBCOMMAND]]",
	.summary = "Show the commands, or one command's usage and options.",
	.args_min = 0,
	.args_max = 2,
	.run = cmd_help_run
};

/* Print sluice's own help: global options and every command. */
void
cli_help_top(FILE *f)
{
	const struct cli_cmd *const	*c;
	int				 width = 0, len;

	fprintf(f, "usage: sluice [--db PATH] [--tools FILE] [--no-mouse] [-v] "
	    "[COMMAND [ARGS...]]\n\n");
	fprintf(f, "With no command, sluice opens the console on the "
	    "database.\n\n");
	fprintf(f, "Commands:\n");
	for (c = cli_cmds; *c != NULL; c++) {
		if (!(*c)->hidden && (len = (int)strlen((*c)->name)) > width)
			width = len;
	}
	for (c = cli_cmds; *c != NULL; c++) {
		if (!(*c)->hidden)
			fprintf(f, "  %-*s  %s\n", width, (*c)->name,
			    (*c)->summary);
	}
	fprintf(f, "\nGlobal options:\n"
	    "  --db PATH     database (default $SLUICE_DB, else the site "
	    "config's \"database\",\n"
	    "                else $XDG_STATE_HOME/sluice/sluice.db;\n"
	    "                postgresql:service=NAME for cluster mode)\n"
	    "  --tools FILE  tools catalog (default $SLUICE_TOOLS, else "
	    "$XDG_CONFIG_HOME/sluice/tools.json)\n"
	    "  --no-mouse    the console leaves the mouse to the terminal, to "
	    "select text\n"
	    "                (also SLUICE_MOUSE=0)\n"
	    "  -v            write a debug log to sluice-PID.log\n"
	    "  -h, --help    this help; sluice help COMMAND for a command's\n"
	    "  -V, --version print the version\n\n"
	    "See sluice(1) and sluice-flow(5).\n");
}

/* "sluice help": the commands; "sluice help CMD [SUB]": that one's help. */
static int
cmd_help_run(struct client *ctx, const struct cli_args *args)
{
	const struct cli_cmd	*cmd, *sub;

	(void)ctx;
	if (args->argc == 0) {
		cli_help_top(stdout);
		return (EXIT_OK);
	}
	if ((cmd = cli_find(args->argv[0])) == NULL)
		return (cli_unknown(NULL, args->argv[0]));
	if (args->argc == 2) {
		if (cmd->subs == NULL) {
			cli_error("help: %s has no subcommands", cmd->name);
			return (EXIT_USAGE);
		}
		if ((sub = cli_sub_find(cmd, args->argv[1])) == NULL)
			return (cli_unknown(cmd, args->argv[1]));
		cmd = sub;
	}
	cli_print_help(cmd, stdout);
	return (EXIT_OK);
}
