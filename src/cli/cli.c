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
 * The name an unknown word most likely meant: the only one it is a prefix
 * of, else the closest within a small edit distance; NULL for none.
 */
const char *
cli_suggest(const char *word, const char *const *names, size_t n)
{
	const char	*only = NULL;
	size_t		 i, len = strlen(word), matches = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], word) == 0)
			return (NULL);	/* it is there: not a misspelling */
	}
	for (i = 0; i < n && len > 0; i++) {
		if (strncmp(names[i], word, len) == 0) {
			only = names[i];
			matches++;
		}
	}
	if (matches == 1)
		return (only);
	return (flow_suggest(word, names, n));
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
	best = cli_suggest(word, names, n);
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
cli_cmd_exec(struct cli_ctx *ctx, const struct cli_cmd *cmd, int argc,
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
cli_dispatch(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd;

	if ((cmd = cli_find(argv[0])) == NULL)
		return (cli_unknown(NULL, argv[0]));
	return (cli_cmd_exec(ctx, cmd, argc, argv));
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
	free(ctx->tools_file);
	ctx->tools_file = NULL;
	free(ctx->config_file);
	ctx->config_file = NULL;
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

/*
 * Report a store failure about a template or schedule name and return its
 * exit status; a name that is not there gets the closest one that is.
 */
int
cli_name_fail(struct cli_ctx *ctx, int rc, char *cause, int kind,
    const char *name)
{
	struct store_template	*t = NULL;
	struct store_schedule	*c = NULL;
	struct store		*s = ctx->store, *own = NULL;
	const char		**names = NULL, *best = NULL;
	char			*ignore = NULL, *path;
	size_t			 n = 0, i;

	if (rc != STORE_NOTFOUND || cause == NULL)
		return (cli_store_fail(rc, cause));
	if (s == NULL && (path = cli_db_path(ctx)) != NULL) {
		/* Asked through the engine: read the names ourselves. */
		if (access(path, F_OK) == 0 &&
		    store_open(path, STORE_F_READONLY, &own, &ignore) == 0)
			s = own;
		free(ignore);
		ignore = NULL;
		free(path);
	}
	if (s == NULL)
		return (cli_store_fail(rc, cause));
	if (kind == CLI_NAME_TEMPLATE &&
	    store_template_list(s, &t, &n, &ignore) == 0) {
		names = xcalloc(n + 1, sizeof *names);
		for (i = 0; i < n; i++)
			names[i] = t[i].name;
	} else if (kind == CLI_NAME_SCHEDULE &&
	    store_schedule_list(s, &c, &n, &ignore) == 0) {
		names = xcalloc(n + 1, sizeof *names);
		for (i = 0; i < n; i++)
			names[i] = c[i].name;
	}
	free(ignore);
	if (names != NULL)
		best = cli_suggest(name, names, n);
	if (best != NULL)
		cli_error("%s (did you mean \"%s\"?)", cause, best);
	else
		cli_error("%s", cause);
	free(names);
	if (t != NULL)
		store_templates_free(t, n);
	if (c != NULL)
		store_schedules_free(c, n);
	if (own != NULL)
		store_close(own);
	free(cause);
	return (cli_exit_code(rc));
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
