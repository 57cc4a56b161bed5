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
#include <getopt.h>
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
	&cli_cmd_pause,
	&cli_cmd_resume,
	&cli_cmd_log,
	&cli_cmd_template,
	&cli_cmd_schedule,
	&cli_cmd_check,
	&cli_cmd_engine,
	&cli_cmd_audit,
	&cli_cmd_init,
	&cli_cmd_backup,
	&cli_cmd_status,
	&cli_cmd_prune,
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

/* Run argv[0] as a command; returns the process exit status. */
int
cli_dispatch(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd;
	char			*prog;
	int			 rc;

	if ((cmd = cli_find(argv[0])) == NULL) {
		cli_error("unknown command \"%s\" (see sluice --help)",
		    argv[0]);
		return (EXIT_USAGE);
	}
	if (cli_wants_help(argc, argv)) {
		cli_print_help(cmd, stdout);
		return (EXIT_OK);
	}
	log_debug("%s: %s", __func__, cmd->name);
	/* getopt names argv[0] in its messages: make them say "sluice run". */
	xasprintf(&prog, "sluice %s", cmd->name);
	argv[0] = prog;
	rc = cmd->exec(ctx, argc, argv);
	free(prog);
	return (rc);
}

/* Release what commands opened. */
void
cli_ctx_free(struct cli_ctx *ctx)
{
	if (ctx->store != NULL)
		store_close(ctx->store);
	ctx->store = NULL;
	if (ctx->tools != NULL)
		flow_tools_free(ctx->tools);
	ctx->tools = NULL;
	if (ctx->site != NULL)
		flow_tools_free(ctx->site);
	ctx->site = NULL;
	notify_config_free(ctx->notify);
	ctx->notify = NULL;
	strv_free(ctx->authority.operators);
	memset(&ctx->authority, 0, sizeof ctx->authority);
}

/*
 * Print "sluice: PREFIXreason" on stderr as one line: reasons echo names
 * and values from input, so control characters and newlines are escaped.
 */
static void
cli_message(const char *prefix, const char *fmt, va_list ap)
{
	char	*s, *v;

	fflush(stdout);
	xvasprintf(&s, fmt, ap);
	v = vis_str(s, 0);
	fprintf(stderr, "sluice: %s%s\n", prefix, v);
	free(v);
	free(s);
}

/* Print "sluice: reason" on stderr. */
void
cli_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_message("", fmt, ap);
	va_end(ap);
}

/* Print "sluice: warning: reason" on stderr. */
void
cli_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cli_message("warning: ", fmt, ap);
	va_end(ap);
}

/* Print a command's usage line on stderr; returns EXIT_USAGE. */
int
cli_usage(const struct cli_cmd *cmd)
{
	fprintf(stderr, "usage: sluice %s %s\n", cmd->name, cmd->usage);
	return (EXIT_USAGE);
}

/* Print a command's help: usage, summary and options. */
void
cli_print_help(const struct cli_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: sluice %s %s\n\n%s\n", cmd->name, cmd->usage,
	    cmd->summary);
	if (cmd->help != NULL)
		fprintf(f, "\n%s", cmd->help);
}

/* Does the command line ask for help right after the command name? */
int
cli_wants_help(int argc, char **argv)
{
	return (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0));
}

/* Reset getopt for a fresh pass over a new argv. */
void
cli_getopt_reset(void)
{
	optind = 0;
	opterr = 1;
}

/* Map a store return code to the exit status of SPEC §10. */
int
cli_exit_code(int rc)
{
	switch (rc) {
	case 0:
		return (EXIT_OK);
	case STORE_NOTFOUND:
		return (EXIT_NOTFOUND);
	case STORE_READONLY:
		return (EXIT_REFUSED);
	case STORE_FOREIGN:
		return (EXIT_USAGE);
	default:
		return (EXIT_FAILED);
	}
}

/* Report a store failure and return its exit status. */
int
cli_store_fail(int rc, char *cause)
{
	cli_error("%s", cause != NULL ? cause : "database error");
	free(cause);
	return (cli_exit_code(rc));
}

/*
 * Whether the database path was named (--db or $SLUICE_DB) rather than
 * the default: a named path that does not exist is a typo until
 * "sluice init" says otherwise.
 */
int
cli_db_named(const struct cli_ctx *ctx)
{
	const char	*env;

	if (ctx->db_path != NULL)
		return (1);
	env = getenv("SLUICE_DB");
	return (env != NULL && *env != '\0');
}

/* The database path the command means, as a new string (NULL: none). */
char *
cli_db_path(const struct cli_ctx *ctx)
{
	if (ctx->db_path != NULL)
		return (xstrdup(ctx->db_path));
	return (store_default_path());
}

/*
 * A database that is not there: say where we looked and how to make one,
 * and change nothing (exit 2, SPEC §10).
 */
static int
cli_store_missing(const struct cli_ctx *ctx, const char *path)
{
	if (cli_db_named(ctx)) {
		cli_error("no database at %s (is the path right? 'sluice "
		    "init %s' creates one)", path, path);
	} else {
		cli_error("no database at %s yet ('sluice init' creates it, "
		    "as does a first 'sluice run', 'template save' or "
		    "'engine')", path);
	}
	return (EXIT_USAGE);
}

/*
 * Open the database once: mode 0 read-only, 1 writable, CLI_STORE_ANY
 * writable where it can and read-only where it cannot (the console).
 * Nothing is created unless mode has CLI_STORE_CREATE and the path is the
 * default one.  Returns 0, or the exit status after reporting why not.
 */
int
cli_store(struct cli_ctx *ctx, int mode)
{
	struct stat	 sb;
	const char	*bak;
	char		*path, *cause = NULL;
	int64_t		 from;
	int		 rc, flags, writable = mode & ~CLI_STORE_CREATE;

	if (ctx->store != NULL) {
		if (writable == 1 && store_is_readonly(ctx->store))
			goto readonly;
		return (0);
	}
	if ((path = cli_db_path(ctx)) == NULL) {
		cli_error("no database path (set --db or SLUICE_DB)");
		return (EXIT_USAGE);
	}
	if (writable == 0)
		flags = STORE_F_READONLY;
	else if ((mode & CLI_STORE_CREATE) && !cli_db_named(ctx))
		flags = 0;
	else
		flags = STORE_F_NOCREATE;
	rc = store_open(path, flags, &ctx->store, &cause);
	if (rc == STORE_NOTFOUND && stat(path, &sb) != 0 && errno == ENOENT) {
		free(cause);
		rc = cli_store_missing(ctx, path);
		free(path);
		ctx->store = NULL;
		return (rc);
	}
	free(path);
	if (rc != 0) {
		ctx->store = NULL;
		return (cli_store_fail(rc, cause));
	}
	if ((bak = store_migration_backup(ctx->store, &from)) != NULL) {
		cli_error("upgraded database %s from schema version %lld to "
		    "%d; the old one is kept at %s", store_path(ctx->store),
		    (long long)from, STORE_SCHEMA_VERSION, bak);
	}
	if (writable == 1 && store_is_readonly(ctx->store))
		goto readonly;
	return (0);
readonly:
	cli_error("database %s is read-only", store_path(ctx->store));
	return (EXIT_REFUSED);
}

/*
 * Where the tools catalog is: --tools or $SLUICE_TOOLS (which must exist),
 * then the user's and the site's config if present; NULL for none.
 */
char *
cli_tools_file(const struct cli_ctx *ctx)
{
	const char	*env, *home;
	char		*path;
	struct stat	 sb;

	if (ctx->tools_path != NULL)
		return (xstrdup(ctx->tools_path));
	if ((env = getenv("SLUICE_TOOLS")) != NULL && *env != '\0')
		return (xstrdup(env));
	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env != '\0')
		xasprintf(&path, "%s/sluice/tools.json", env);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&path, "%s/.config/sluice/tools.json", home);
	else
		path = NULL;
	if (path != NULL && stat(path, &sb) == 0)
		return (path);
	free(path);
	xasprintf(&path, "%s/sluice/tools.json", SYSCONFDIR);
	if (stat(path, &sb) == 0)
		return (path);
	free(path);
	return (NULL);
}

/*
 * Load the tools catalog (built-ins plus tools.json) once.  Returns 0, or
 * the exit status after printing every problem with its place.
 */
int
cli_tools(struct cli_ctx *ctx, const struct flow_tools **out)
{
	struct flow_diags	*diags;
	char			*path, *text = NULL, *cause = NULL;
	size_t			 len = 0;

	if (ctx->tools != NULL) {
		*out = ctx->tools;
		return (0);
	}
	path = cli_tools_file(ctx);
	if (path != NULL) {
		text = file_read(path, SLUICE_MAX_DOCUMENT, &len, &cause);
		if (text == NULL) {
			cli_error("tools catalog %s", cause);
			free(cause);
			free(path);
			return (EXIT_USAGE);
		}
	}
	diags = flow_diags_create();
	ctx->tools = flow_tools_parse(text, len, diags);
	cli_diags_print(diags, path);
	free(text);
	free(path);
	if (ctx->tools == NULL || flow_diags_errors(diags) != 0) {
		flow_diags_free(diags);
		if (ctx->tools != NULL)
			flow_tools_free(ctx->tools);
		ctx->tools = NULL;
		return (EXIT_USAGE);
	}
	flow_diags_free(diags);
	*out = ctx->tools;
	return (0);
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

/* Print every diagnostic on stderr, each as one "sluice: FILE:..." line. */
void
cli_diags_print(const struct flow_diags *diags, const char *file)
{
	struct flow_diag	*d;
	char			*s;

	TAILQ_FOREACH(d, diags, entry) {
		s = flow_diag_format(d, file);
		cli_error("%s", s);
		free(s);
	}
}

/*
 * Parse and check a flow or template document named file.  Returns it, or
 * NULL when it has errors.  The diagnostics go to *diagsp when given, else
 * they are printed.
 */
struct flow_doc *
cli_doc_parse(const char *text, size_t len, const struct flow_tools *tools,
    const char *file, struct flow_diags **diagsp)
{
	struct flow_diags	*diags;
	struct flow_doc		*doc;

	diags = flow_diags_create();
	doc = flow_doc_parse(text, len, tools, diags);
	if (doc != NULL && flow_diags_errors(diags) != 0) {
		flow_doc_free(doc);
		doc = NULL;
	}
	if (diagsp != NULL)
		*diagsp = diags;
	else {
		cli_diags_print(diags, file);
		flow_diags_free(diags);
	}
	return (doc);
}

/*
 * A command of subcommands ("template show", "schedule add"): find the
 * one in argv[1] and run it with argv shifted by one, named "sluice
 * PARENT SUB" so getopt's messages say which.
 */
int
cli_subcommand(struct cli_ctx *ctx, const struct cli_cmd *parent,
    const struct cli_cmd *subs, size_t n, int argc, char **argv)
{
	const struct cli_cmd	*sub = NULL;
	char			*prog;
	size_t			 i, skip = strlen(parent->name) + 1;
	int			 rc;

	if (argc < 2)
		return (cli_usage(parent));
	if (cli_wants_help(argc, argv)) {
		cli_print_help(parent, stdout);
		return (EXIT_OK);
	}
	for (i = 0; i < n && sub == NULL; i++) {
		if (strcmp(subs[i].name + skip, argv[1]) == 0)
			sub = &subs[i];
	}
	if (sub == NULL) {
		cli_error("%s: unknown subcommand \"%s\"", parent->name,
		    argv[1]);
		return (cli_usage(parent));
	}
	if (cli_wants_help(argc - 1, argv + 1)) {
		cli_print_help(sub, stdout);
		return (EXIT_OK);
	}
	xasprintf(&prog, "sluice %s", sub->name);
	argv[1] = prog;
	rc = sub->exec(ctx, argc - 1, argv + 1);
	free(prog);
	return (rc);
}
