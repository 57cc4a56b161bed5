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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"


static int	cmd_template_exec(struct cli_ctx *, int, char **);
static int	cmd_template_list(struct cli_ctx *, int, char **);
static int	cmd_template_show(struct cli_ctx *, int, char **);
static int	cmd_template_save(struct cli_ctx *, int, char **);
static int	cmd_template_edit(struct cli_ctx *, int, char **);
static int	cmd_template_rm(struct cli_ctx *, int, char **);
static int	cmd_template_run(struct cli_ctx *, int, char **);
static int	template_args(const struct cli_cmd *, int, char **, int *,
		    int);
static int	template_name_arg(const char *);
static cJSON	*template_json(const struct store_template *, int);
static void	template_table(struct store_template *, size_t);
static void	template_print_doc(const char *);

const struct cli_cmd cli_cmd_template = {
	.name = "template",
	.usage = "list|show|save|edit|rm|run ...",
	.summary = "list, show, save, edit, remove and run templates",
	.help =
	    "  list [--json]                      live templates\n"
	    "  show NAME [--version N] [--json]   print a template's document\n"
	    "  save NAME FILE                     check FILE (- for stdin) "
	    "and save it\n"
	    "  edit NAME                          edit in $VISUAL or $EDITOR\n"
	    "  rm NAME                            remove (old versions are "
	    "kept)\n"
	    "  run NAME [-i KEY=VAL]... [--input FILE.json] [--name N] "
	    "[--at WHEN]\n"
	    "                                     start a workflow\n",
	.exec = cmd_template_exec
};

/* The subcommands, each with its own usage and --help. */
static const struct cli_cmd template_cmds[] = {
	{
		.name = "template list",
		.usage = "[--json]",
		.summary = "list live templates by name",
		.help = "  --json       print a JSON array\n",
		.exec = cmd_template_list
	},
	{
		.name = "template show",
		.usage = "NAME [--version N] [--json]",
		.summary = "print a template's document as saved",
		.help =
		    "  --version N  an older version (default: the latest)\n"
		    "  --json       the document with its name, version and "
		    "history\n",
		.exec = cmd_template_show
	},
	{
		.name = "template save",
		.usage = "NAME FILE",
		.summary = "check a template document (FILE, or - for stdin) "
		    "and save it as the next version",
		.help = NULL,
		.exec = cmd_template_save
	},
	{
		.name = "template edit",
		.usage = "NAME",
		.summary = "edit a template in $VISUAL, $EDITOR or vi, "
		    "like crontab -e",
		.help = NULL,
		.exec = cmd_template_edit
	},
	{
		.name = "template rm",
		.usage = "NAME",
		.summary = "remove a template (its old versions and runs are "
		    "kept)",
		.help = NULL,
		.exec = cmd_template_rm
	},
	{
		.name = "template run",
		.usage = "NAME [-i KEY=VAL]... [--input FILE.json] [--name N] "
		    "[--at WHEN]",
		.summary = "start a workflow from a template; print its id",
		.help =
		    "  -i KEY=VAL         a string input (KEY:=JSON for any "
		    "JSON value)\n"
		    "  --input FILE.json  inputs from a JSON object\n"
		    "  --name N           the workflow's name\n"
		    "  --at WHEN          start later (see sluice run "
		    "--help)\n",
		.exec = cmd_template_run
	}
};

/* Options shared by the subcommands that take only --json and --help. */
static const struct option template_json_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, 'j' },
	{ "version", required_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* "sluice template SUBCOMMAND ...". */
static int
cmd_template_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	return (cli_subcommand(ctx, &cli_cmd_template, template_cmds,
	    nitems(template_cmds), argc, argv));
}

/*
 * Parse --json, --version and --help for list and show; returns -1 to go
 * on, else the exit code.  Fills *json and, when allowed, *version.
 */
static int
template_args(const struct cli_cmd *cmd, int argc, char **argv, int *json,
    int version_ok)
{
	int	 ch;

	*json = 0;
	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "h", template_json_opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'h':
			cli_print_help(cmd, stdout);
			return (EXIT_OK);
		case 'j':
			*json = 1;
			break;
		case 'V':
			if (version_ok)
				break;
			/* FALLTHROUGH */
		default:
			return (cli_usage(cmd));
		}
	}
	return (-1);
}

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

/* A template as JSON; with_doc adds the parsed document. */
static cJSON *
template_json(const struct store_template *t, int with_doc)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddNumberToObject(o, "version", (double)t->version);
	if (t->description != NULL)
		cJSON_AddStringToObject(o, "description", t->description);
	else
		cJSON_AddNullToObject(o, "description");
	cJSON_AddStringToObject(o, "created_by",
	    t->created_by != NULL ? t->created_by : "");
	cJSON_AddStringToObject(o, "updated_by",
	    t->updated_by != NULL ? t->updated_by : "");
	cJSON_AddNumberToObject(o, "created_at", (double)t->created_at);
	cJSON_AddNumberToObject(o, "updated_at", (double)t->updated_at);
	cJSON_AddItemToObject(o, "inputs", cli_json_raw(t->input_json));
	if (with_doc)
		cJSON_AddItemToObject(o, "document", cli_json_raw(t->document));
	return (o);
}

/* Print live templates as a table: NAME VERSION UPDATED BY DESCRIPTION. */
static void
template_table(struct store_template *t, size_t n)
{
	static const char	*head[] = {
		"NAME", "VERSION", "UPDATED", "BY", "DESCRIPTION"
	};
	const char		*cols[nitems(head)];
	int			 w[nitems(head)];
	char			 ver[32], when[64];
	size_t			 i, j, len;

	for (j = 0; j < nitems(head); j++)
		w[j] = (int)strlen(head[j]);
	for (i = 0; i < n; i++) {
		snprintf(ver, sizeof ver, "%lld", (long long)t[i].version);
		cols[0] = t[i].name;
		cols[1] = ver;
		cols[2] = time_format(t[i].updated_at, when, sizeof when);
		cols[3] = t[i].updated_by != NULL ? t[i].updated_by : "-";
		for (j = 0; j < 4; j++) {
			len = (size_t)cli_cell_width(cols[j]);
			if (len > (size_t)w[j])
				w[j] = (int)len;
		}
	}
	w[nitems(head) - 1] = 0;
	cli_table_row(stdout, w, nitems(head), head);
	for (i = 0; i < n; i++) {
		snprintf(ver, sizeof ver, "%lld", (long long)t[i].version);
		cols[0] = t[i].name;
		cols[1] = ver;
		cols[2] = time_format(t[i].updated_at, when, sizeof when);
		cols[3] = t[i].updated_by != NULL ? t[i].updated_by : "-";
		cols[4] = t[i].description != NULL ? t[i].description : "";
		cli_table_row(stdout, w, nitems(head), cols);
	}
}

/* template list [--json] */
static int
cmd_template_list(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd = &template_cmds[0];
	struct store_template	*t;
	size_t			 n, i;
	char			*cause;
	cJSON			*a;
	int			 json, rc;

	if ((rc = template_args(cmd, argc, argv, &json, 0)) != -1)
		return (rc);
	if (optind != argc)
		return (cli_usage(cmd));
	if ((rc = cli_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_template_list(ctx->store, &t, &n, &cause)) != 0)
		return (cli_store_fail(rc, cause));
	if (json) {
		a = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(a, template_json(&t[i], 0));
		cli_json_out(a);
	} else
		template_table(t, n);
	store_templates_free(t, n);
	return (EXIT_OK);
}

/*
 * Print a stored document as it was saved, ending with one newline; a
 * control character in it (JSON parsers let some through raw) is written
 * as the \u00HH escape that means the same, so it never reaches the
 * terminal and the document stays the same JSON.
 */
static void
template_print_doc(const char *doc)
{
	struct buf	 b;
	size_t		 len = strlen(doc);

	buf_init(&b);
	vis_buf(&b, doc, len, VIS_NL | VIS_TAB | VIS_JSON);
	fwrite(b.data, 1, b.len, stdout);
	if (b.len == 0 || b.data[b.len - 1] != '\n')
		putchar('\n');
	buf_free(&b);
}

/* template show NAME [--version N] [--json] */
static int
cmd_template_show(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd = &template_cmds[1];
	struct store_template	*t;
	const char		*name;
	char			*cause;
	int64_t			 version = 0;
	int			 json, rc, ch;

	json = 0;
	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "h", template_json_opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'h':
			cli_print_help(cmd, stdout);
			return (EXIT_OK);
		case 'j':
			json = 1;
			break;
		case 'V':
			if (str_parse_int64(optarg, &version) != 0 ||
			    version < 1) {
				cli_error("bad version \"%s\"", optarg);
				return (EXIT_USAGE);
			}
			break;
		default:
			return (cli_usage(cmd));
		}
	}
	if (argc - optind != 1)
		return (cli_usage(cmd));
	name = argv[optind];
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if ((rc = cli_store(ctx, 0)) != 0)
		return (rc);
	rc = store_template_get(ctx->store, name, version, &t, &cause);
	if (rc != 0)
		return (cli_store_fail(rc, cause));
	if (json)
		cli_json_out(template_json(t, 1));
	else
		template_print_doc(t->document);
	store_template_free(t);
	return (EXIT_OK);
}

/* template save NAME FILE */
static int
cmd_template_save(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd		*cmd = &template_cmds[2];
	const struct flow_tools		*tools;
	struct engine_reply		 r;
	struct flow_doc			*doc;
	const char			*name, *file, *label;
	char				*text, *cause, *loop;
	size_t				 len;
	int				 rc;

	if (argc != 3 || *argv[1] == '-')
		return (cli_usage(cmd));
	name = argv[1];
	file = argv[2];
	label = strcmp(file, "-") == 0 ? "<stdin>" : file;
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if ((text = file_read(file, SLUICE_MAX_DOCUMENT, &len,
	    &cause)) == NULL) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if (strlen(text) != len) {
		cli_error("%s: contains a NUL byte", label);
		free(text);
		return (EXIT_USAGE);
	}
	if ((rc = cli_tools(ctx, &tools)) != 0) {
		free(text);
		return (rc);
	}
	if ((doc = cli_doc_parse(text, len, tools, label, NULL)) == NULL) {
		free(text);
		return (EXIT_USAGE);
	}
	if ((rc = cli_store(ctx, CLI_STORE_ANY|CLI_STORE_CREATE)) != 0)
		goto out;
	if ((loop = cli_subflow_loop(ctx->store, name, doc)) != NULL) {
		cli_error("%s: template %s would call itself: %s", label,
		    name, loop);
		free(loop);
		rc = EXIT_USAGE;
		goto out;
	}
	/* The engine checks who may, and the document again, and saves. */
	if ((rc = cli_template_request(ctx, name, text, -1, &r)) == 0) {
		if (r.code != 0) {
			cli_error("%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
		} else
			cli_printf("saved template %s version %lld\n", name,
			    (long long)r.version);
	}
	engine_reply_clear(&r);
out:
	flow_doc_free(doc);
	free(text);
	return (rc);
}

/* template edit NAME: the loop is in editor.c. */
static int
cmd_template_edit(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd = &template_cmds[3];
	int			 rc;

	if (argc != 2 || *argv[1] == '-')
		return (cli_usage(cmd));
	if ((rc = template_name_arg(argv[1])) != 0)
		return (rc);
	return (cli_template_edit(ctx, argv[1]));
}

/* template rm NAME: a soft delete; old versions stay for the runs. */
static int
cmd_template_rm(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_cmd	*cmd = &template_cmds[4];
	struct engine_reply	 r;
	const char		*name;
	int			 rc;

	if (argc != 2 || *argv[1] == '-')
		return (cli_usage(cmd));
	name = argv[1];
	if ((rc = template_name_arg(name)) != 0)
		return (rc);
	if ((rc = cli_template_request(ctx, name, NULL, 0, &r)) == 0) {
		if (r.code != 0) {
			cli_error("%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
		} else
			cli_printf("removed template %s\n", name);
	}
	engine_reply_clear(&r);
	return (rc);
}

/* template run NAME [-i KEY=VAL]... [--input FILE.json] [--name N] [--at] */
static int
cmd_template_run(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "input", required_argument, NULL, 'I' },
		{ "name", required_argument, NULL, 'n' },
		{ "at", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_cmd		*cmd = &template_cmds[5];
	struct cli_run_opts		 ro;
	const char			*file = NULL;
	char				**pairs, *cause = NULL;
	int				 npairs = 0, ch, i, rc = EXIT_USAGE;

	memset(&ro, 0, sizeof ro);
	pairs = xcalloc((size_t)argc + 1, sizeof *pairs);
	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "hi:", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			cli_print_help(cmd, stdout);
			free(pairs);
			return (EXIT_OK);
		case 'i':
			pairs[npairs++] = optarg;
			break;
		case 'I':
			file = optarg;
			break;
		case 'n':
			ro.name = optarg;
			break;
		case 'a':
			ro.at = optarg;
			break;
		default:
			free(pairs);
			return (cli_usage(cmd));
		}
	}
	if (argc - optind != 1) {
		free(pairs);
		return (cli_usage(cmd));
	}
	ro.what = argv[optind];
	if ((rc = template_name_arg(ro.what)) != 0) {
		free(pairs);
		return (rc);
	}
	ro.input = cJSON_CreateObject();
	rc = EXIT_USAGE;
	if (file != NULL && cli_input_file(ro.input, file, &cause) != 0)
		goto fail;
	for (i = 0; i < npairs; i++) {
		if (cli_input_pair(ro.input, pairs[i], &cause) != 0)
			goto fail;
	}
	rc = cli_run_start(ctx, &ro);
	goto out;
fail:
	cli_error("%s", cause);
	free(cause);
out:
	cJSON_Delete(ro.input);
	free(pairs);
	return (rc);
}
