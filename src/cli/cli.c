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
 * cli.c: the command table and what every command shares: dispatch, help,
 * error reporting, opening the store and loading the tools catalog.
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

/* Every command, in the order --help lists them. */
const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_run,
	&cli_cmd_list,
	&cli_cmd_show,
	&cli_cmd_gates,
	&cli_cmd_approve,
	&cli_cmd_reject,
	&cli_cmd_cancel,
	&cli_cmd_retry,
	&cli_cmd_skip,
	&cli_cmd_complete,
	&cli_cmd_fail,
	&cli_cmd_pause,
	&cli_cmd_resume,
	&cli_cmd_log,
	&cli_cmd_template,
	&cli_cmd_schedule,
	&cli_cmd_check,
	&cli_cmd_engine,
	&cli_cmd_audit,
	&cli_cmd_request,
	&cli_cmd_init,
	&cli_cmd_backup,
	&cli_cmd_status,
	&cli_cmd_prune,
	&cli_cmd_mcp,
	&cli_cmd_help,
	&cli_cmd_completion,
	&cli_cmd_complete_words,
	NULL
};


/* Find a command by its full name. */
const struct cli_cmd *
cli_find(const char *name)
{
	const struct cli_cmd *const	*c;

	for (c = cli_cmds; *c != NULL; c++) {
		if (strcmp((*c)->name, name) == 0)
			return (*c);
	}
	return (NULL);
}

/*
 * Say a command (parent NULL) or a subcommand of parent is unknown, with
 * the closest real one if any; returns EXIT_USAGE.
 */
int
cli_unknown(const struct cli_cmd *parent, const char *word)
{
	const struct cli_cmd *const	*c;
	const struct cli_cmd		*sub;
	const char			*names[64] = { NULL }, *best, *last;
	size_t				 n = 0;

	if (parent == NULL) {
		for (c = cli_cmds; *c != NULL && n < nitems(names); c++) {
			if (!(*c)->hidden)
				names[n++] = (*c)->name;
		}
	} else {
		for (sub = parent->subs; sub->name != NULL &&
		    n < nitems(names); sub++) {
			last = strrchr(sub->name, ' ');
			if (!sub->hidden)
				names[n++] = last != NULL ? last + 1 :
				    sub->name;
		}
	}
	best = client_suggest(word, names, n);
	if (parent == NULL && best != NULL)
		cli_error("unknown command \"%s\" (did you mean %s?)", word,
		    best);
	else if (parent == NULL)
		cli_error("unknown command \"%s\" (see sluice help)", word);
	else if (best != NULL)
		cli_error("%s: unknown subcommand \"%s\" (did you mean %s?)",
		    parent->name, word, best);
	else
		cli_error("%s: unknown subcommand \"%s\" (see sluice help %s)",
		    parent->name, word, parent->name);
	return (EXIT_USAGE);
}

/*
 * Run one command: a command of subcommands passes argv on to the one
 * named in argv[1]; a command with an option table gets its command line
 * parsed against it first.
 */
int
cli_cmd_exec(struct client *ctx, const struct cli_cmd *cmd, int argc,
    char **argv)
{
	const struct cli_cmd	*sub;
	struct cli_args		 args;
	char			*usage;
	int			 rc;

	if (cmd->subs != NULL) {
		if (cli_wants_help(argc, argv)) {
			cli_print_help(cmd, stdout);
			return (EXIT_OK);
		}
		if (argc < 2) {
			usage = cli_args_usage(cmd);
			cli_error("%s: missing subcommand (usage: %s)",
			    cmd->name, usage);
			free(usage);
			return (EXIT_USAGE);
		}
		if ((sub = cli_sub_find(cmd, argv[1])) == NULL)
			return (cli_unknown(cmd, argv[1]));
		return (cli_cmd_exec(ctx, sub, argc - 1, argv + 1));
	}
	log_debug("%s: %s", __func__, cmd->name);
	if (cmd->run == NULL)
		fatalx("%s: %s has neither .run nor .subs", __func__, cmd->name);
	switch (cli_args_parse(cmd, argc, argv, &args)) {
	case 0:
		break;
	case 1:
		cli_print_help(cmd, stdout);
		return (EXIT_OK);
	default:
		return (EXIT_USAGE);
	}
	rc = cmd->run(ctx, &args);
	cli_args_free(&args);
	return (rc);
}

/* Run argv[0] as a command; returns the process exit status. */
int
cli_dispatch(struct client *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd;

	if ((cmd = cli_find(argv[0])) == NULL)
		return (cli_unknown(NULL, argv[0]));
	return (cli_cmd_exec(ctx, cmd, argc, argv));
}

/* Print "sluice: reason" on stderr. */
void
cli_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	client_message("", fmt, ap);
	va_end(ap);
}

/* Print "sluice: warning: reason" on stderr. */
void
cli_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	client_message("warning: ", fmt, ap);
	va_end(ap);
}

/* Say a command was given bad arguments, with its usage; EXIT_USAGE. */
int
cli_usage(const struct cli_cmd *cmd)
{
	char	*usage;

	usage = cli_args_usage(cmd);
	cli_error("%s: bad arguments (usage: %s)", cmd->name, usage);
	free(usage);
	return (EXIT_USAGE);
}

/* Print a command's help: usage, summary and options. */
void
cli_print_help(const struct cli_cmd *cmd, FILE *f)
{
	cli_args_help(cmd, f);
}

/* Does the command line ask for help right after the command name? */
int
cli_wants_help(int argc, char **argv)
{
	return (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0));
}

/* Parse a workflow or step id: a positive decimal integer. */
int
cli_parse_id(const char *s, int64_t *id)
{
	if (str_parse_int64(s, id) != 0 || *id <= 0)
		return (-1);
	return (0);
}

/* Parse --limit N: 1 to 100000; says why not and returns -1. */
int
cli_parse_limit(const char *s, int64_t *limit)
{
	if (str_parse_int64(s, limit) != 0 || *limit < 1 || *limit > 100000) {
		cli_error("--limit: \"%s\" is not a number from 1 to 100000",
		    s);
		return (-1);
	}
	return (0);
}

