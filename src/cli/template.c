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
 * template.c: the "sluice template" command and its subcommands list, show,
 * save, edit, rm and run.  Templates are named, versioned flow documents in
 * the store; this file checks names and documents before anything is
 * written, and prints them for people (tables) and scripts (--json).  The
 * interactive edit loop lives in editor.c.
 */

#include <ctype.h>
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


static int	cmd_template_list(struct client *, const struct cli_args *);
static int	cmd_template_show(struct client *, const struct cli_args *);
static int	cmd_template_save(struct client *, const struct cli_args *);
static int	cmd_template_edit(struct client *, const struct cli_args *);
static int	cmd_template_rm(struct client *, const struct cli_args *);
static int	cmd_template_run(struct client *, const struct cli_args *);
static int	template_name_arg(const char *);
static void	template_table(const struct client *, struct store_template *,
		    size_t);
static void	template_print_doc(const char *);

static const struct cli_opt template_list_opts[] = {
	{ "json", 0, NULL, 0, "a JSON array" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt template_show_opts[] = {
	{ "version", 0, "N", 0, "an older version (default: the latest)" },
	{ "json", 0, NULL, 0,
	    "the document with its name, version and history" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt template_diff_opts[] = {
	{ "pretty", 0, NULL, 0, "compare one-line documents pretty-printed "
	    "(easier to read; patch(1) cannot apply it to what show prints)" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt template_history_opts[] = {
	{ "json", 0, NULL, 0, "one JSON object with a \"versions\" array" },
	{ NULL, 0, NULL, 0, NULL }
};

/* The subcommands, each with its own options and --help. */
static const struct cli_cmd template_cmds[] = {
	{
		.name = "template list",
		.summary = "List live templates by name.",
		.opts = template_list_opts,
		.run = cmd_template_list
	},
	{
		.name = "template show",
		.complete = "template",
		.usage = "NAME",
		.summary = "Print a template's document as saved.",
		.opts = template_show_opts,
		.args_min = 1,
		.args_max = 1,
		.run = cmd_template_show
	},
	{
		.name = "template save",
		.complete = "template file",
		.usage = "NAME FILE",
		.summary = "Check a template document (FILE, or - for stdin) "
		    "and save it as the next version.",
		.args_min = 2,
		.args_max = 2,
		.run = cmd_template_save
	},
	{
		.name = "template edit",
		.complete = "template",
		.usage = "NAME",
		.summary = "Edit a template in $VISUAL, $EDITOR or vi, "
		    "like crontab -e.",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_template_edit
	},
	{
		.name = "template rm",
		.complete = "template",
		.usage = "NAME",
		.summary = "Remove a template (its old versions and runs are "
		    "kept).",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_template_rm
	},
	{
		.name = "template run",
		.complete = "template",
		.usage = "NAME",
		.summary = "Start a workflow from a template; print its id.",
		.help = "The same as sluice run NAME; see sluice help run.\n",
		.opts = cli_run_options,
		.args_min = 1,
		.args_max = 1,
		.run = cmd_template_run
	},
	{
		.name = "template history",
		.complete = "template",
		.usage = "NAME",
		.summary = "List every saved version of a template, removed "
		    "or not, with who saved it and how its runs went.",
		.opts = template_history_opts,
		.args_min = 1,
		.args_max = 1,
		.run = cli_template_history
	},
	{
		.name = "template diff",
		.complete = "template",
		.usage = "NAME [V1 [V2]]",
		.summary = "A unified diff of a template's documents: the "
		    "latest against the one before, V1 against the latest, "
		    "or V1 against V2.",
		.opts = template_diff_opts,
		.args_min = 1,
		.args_max = 3,
		.run = cli_template_diff
	},
	{ .name = NULL }
};

const struct cli_cmd cli_cmd_template = {
	.name = "template",
	.summary = "List, show, save, edit, remove, run and compare "
	    "templates.",
	.subs = template_cmds
};

/*
 * Check a template name: 1..SLUICE_MAX_NAME characters of [A-Za-z0-9._-],
 * not starting with '-' or '.', and not ending in ".json" (sluice run would
 * take it for a file).  Returns 0, or -1 with a one-line reason.
 */
int
cli_template_check_name(const char *name, char **cause)
{
	return (str_check_template_name(name, cause));
}

/* Check a NAME argument; 0 if good, else print why and return EXIT_USAGE. */
static int
template_name_arg(const char *name)
{
	char	*cause;

	if (cli_template_check_name(name, &cause) == 0)
		return (0);
	cli_error("%s", cause);
	free(cause);
	return (EXIT_USAGE);
}

/* Print live templates as a table: NAME VERSION UPDATED BY RUN BY ... */
static void
template_table(const struct client *ctx, struct store_template *t,
    size_t n)
{
	static const char	*head[] = {
		"NAME", "VERSION", "UPDATED", "BY", "RUN BY", "DESCRIPTION"
	};
	struct cli_table	*tb;
	const char		*cols[nitems(head)];
	char			 ver[32], when[64], *run_by;
	size_t			 i;

	tb = cli_table_create(head, nitems(head));
	cli_table_flex(tb, "f....f");
	for (i = 0; i < n; i++) {
		snprintf(ver, sizeof ver, "%lld", (long long)t[i].version);
		run_by = authority_template_run_by(&ctx->authority,
		    t[i].document);
		cols[0] = t[i].name;
		cols[1] = ver;
		cols[2] = time_format(t[i].updated_at, when, sizeof when);
		cols[3] = t[i].updated_by != NULL ? t[i].updated_by : "-";
		cols[4] = run_by;
		cols[5] = t[i].description != NULL ? t[i].description : "";
		cli_table_add(tb, cols);
		free(run_by);
	}
	cli_table_print(tb, "no templates");
}

/* template list [--json] */
static int
cmd_template_list(struct client *ctx, const struct cli_args *args)
{
	struct engine_opts	 opts;
	struct store_template	*t;
	size_t			 n;
	char			*cause = NULL;
	cJSON			*a;
	int			 rc;

	if (cli_args_has(args, "json")) {
		if ((rc = client_read_templates(ctx, &a)) != 0)
			return (rc);
		cli_json_out(a);
		return (EXIT_OK);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	/* The site's operators, for who may run a template naming none. */
	memset(&opts, 0, sizeof opts);
	if ((rc = client_config(ctx, &opts)) != 0)
		return (rc);
	if ((rc = store_template_list(ctx->store, &t, &n, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	template_table(ctx, t, n);
	store_templates_free(t, n);
	return (EXIT_OK);
}

/*
 * Print a stored document byte for byte as it was saved, so that patch
 * applies "template diff" to it; only on a terminal does one that does
 * not end with a newline get one, for the prompt's sake.  A control
 * character in it (JSON parsers let some through raw) is written as the
 * \u00HH escape that means the same, so it never reaches the terminal
 * and the document stays the same JSON.
 */
static void
template_print_doc(const char *doc)
{
	struct buf	 b;
	size_t		 len = strlen(doc);

	buf_init(&b);
	vis_buf(&b, doc, len, VIS_NL | VIS_TAB | VIS_JSON);
	fwrite(b.data, 1, b.len, stdout);
	if ((b.len == 0 || b.data[b.len - 1] != '\n') &&
	    isatty(STDOUT_FILENO))
		putchar('\n');
	buf_free(&b);
}

/* template show NAME [--version N] [--json] */
static int
cmd_template_show(struct client *ctx, const struct cli_args *args)
{
	struct store_template	*t;
	const char		*name, *v;
	char			*cause;
	int64_t			 version = 0;
	cJSON			*o;
	int			 json, rc;

	json = cli_args_has(args, "json");
	if ((v = cli_args_get(args, "version")) != NULL &&
	    (str_parse_int64(v, &version) != 0 || version < 1)) {
		cli_error("bad version \"%s\"", v);
		return (EXIT_USAGE);
	}
	name = args->argv[0];
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if (json) {
		if ((rc = client_read_template(ctx, name, version, &o)) != 0)
			return (rc);
		cli_json_out(o);
		return (EXIT_OK);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	/* A removed template's versions stay; asked for, each is shown. */
	if (version > 0)
		rc = store_template_get_any(ctx->store, name, version, &t,
		    &cause);
	else
		rc = store_template_get(ctx->store, name, version, &t, &cause);
	if (rc != 0)
		return (client_name_fail(ctx, rc, cause, CLIENT_NAME_TEMPLATE,
		    name));
	template_print_doc(t->document);
	store_template_free(t);
	return (EXIT_OK);
}

/* template save NAME FILE */
static int
cmd_template_save(struct client *ctx, const struct cli_args *args)
{
	const char	*name, *file, *label;
	char		*text, *cause;
	size_t		 len;
	int64_t		 version;
	int		 rc;

	name = args->argv[0];
	file = args->argv[1];
	label = strcmp(file, "-") == 0 ? "<stdin>" : file;
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if ((text = file_read(file, SLUICE_MAX_DOCUMENT, &len,
	    &cause)) == NULL) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	rc = client_template_save(ctx, name, text, len, label, &version);
	if (rc == 0)
		cli_printf("saved template %s version %lld\n", name,
		    (long long)version);
	free(text);
	return (rc);
}

/* template edit NAME: the loop is in editor.c. */
static int
cmd_template_edit(struct client *ctx, const struct cli_args *args)
{
	int	 rc;

	if ((rc = template_name_arg(args->argv[0])) != 0)
		return (rc);
	return (cli_template_edit(ctx, args->argv[0]));
}

/* template rm NAME: a soft delete; old versions stay for the runs. */
static int
cmd_template_rm(struct client *ctx, const struct cli_args *args)
{
	struct engine_reply	 r;
	const char		*name;
	int			 rc;

	name = args->argv[0];
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if ((rc = client_template_request(ctx, name, NULL, 0, &r)) == 0) {
		if (r.code == EXIT_NOTFOUND && r.message != NULL)
			rc = client_name_fail(ctx, STORE_NOTFOUND,
			    xstrdup(r.message), CLIENT_NAME_TEMPLATE, name);
		else if (r.code != 0) {
			cli_error("%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
		} else
			cli_printf("removed template %s\n", name);
	}
	engine_reply_clear(&r);
	return (rc);
}

/* template run NAME: as "run NAME". */
static int
cmd_template_run(struct client *ctx, const struct cli_args *args)
{
	int	 rc;

	if ((rc = template_name_arg(args->argv[0])) != 0)
		return (rc);
	return (cli_run_args(ctx, args, args->argv[0]));
}
