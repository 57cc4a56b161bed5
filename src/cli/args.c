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
 * args.c: a command's declared options and argument count (struct cli_opt
 * in its table entry, like tmux's args template) turned into a parsed
 * command line, a usage line and a --help text.  One parser for every
 * command, so each bad command line gets the same one-line reason naming
 * the command, and the help can never disagree with what is accepted.
 *
 * Options may come before, between or after the arguments (as getopt_long
 * permutes them); "--" ends them.  Long options take their value as
 * "--name=VALUE" or "--name VALUE", short ones as "-xVALUE" or "-x VALUE";
 * short flags cluster ("-ft").  -h and --help are every command's.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "cli/cli.h"

static const struct cli_opt *args_find_long(const struct cli_cmd *,
		    const char *, size_t);
static const struct cli_opt *args_find_spelt(const struct cli_cmd *,
		    const char *, size_t);
static const struct cli_opt *args_find_letter(const struct cli_cmd *, int);
static const struct cli_opt *args_lookup(const struct cli_args *,
		    const char *);
static void	args_add(struct cli_args *, const struct cli_opt *,
		    const char *);
static int	args_unknown(const struct cli_cmd *, const char *);
static int	args_long(struct cli_args *, int, char **, int *);
static int	args_short(struct cli_args *, int, char **, int *);
static int	args_check(struct cli_args *);
static char	*args_opt_usage(const struct cli_opt *);
static char	*args_opt_spec(const struct cli_opt *);
static void	 args_wrap(FILE *, int, int, const char *);
static void	 args_help_opt(FILE *, const struct cli_opt *, int);

/* Does the command take the option with this long name? */
int
cli_cmd_takes(const struct cli_cmd *cmd, const char *name)
{
	return (args_find_long(cmd, name, strlen(name)) != NULL);
}

/* The option with this long name (len bytes of it), or NULL. */
static const struct cli_opt *
args_find_long(const struct cli_cmd *cmd, const char *name, size_t len)
{
	const struct cli_opt	*o;

	for (o = cmd->opts; o != NULL && o->name != NULL; o++) {
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return (o);
	}
	return (NULL);
}

/* The option a command line may spell --name (not a CLI_OPT_SHORT one). */
static const struct cli_opt *
args_find_spelt(const struct cli_cmd *cmd, const char *name, size_t len)
{
	const struct cli_opt	*o;

	if ((o = args_find_long(cmd, name, len)) == NULL ||
	    (o->flags & CLI_OPT_SHORT))
		return (NULL);
	return (o);
}

/* The option with this short letter, or NULL. */
static const struct cli_opt *
args_find_letter(const struct cli_cmd *cmd, int letter)
{
	const struct cli_opt	*o;

	for (o = cmd->opts; o != NULL && o->name != NULL; o++) {
		if (o->letter != 0 && o->letter == letter)
			return (o);
	}
	return (NULL);
}

/*
 * The declared option a command asks about by name: asking about one it
 * does not declare is a bug in the command, not in the command line.
 */
static const struct cli_opt *
args_lookup(const struct cli_args *args, const char *name)
{
	const struct cli_opt	*o;

	if ((o = args_find_long(args->cmd, name, strlen(name))) == NULL)
		fatalx("%s: %s has no option --%s", __func__, args->cmd->name,
		    name);
	return (o);
}

/* Record one option as given. */
static void
args_add(struct cli_args *args, const struct cli_opt *o, const char *value)
{
	args->opts = xreallocarray(args->opts, args->nopts + 1,
	    sizeof *args->opts);
	args->opts[args->nopts].opt = o;
	args->opts[args->nopts].value = value;
	args->nopts++;
}

/* Say an option is unknown, with the closest real one if any. */
static int
args_unknown(const struct cli_cmd *cmd, const char *arg)
{
	const struct cli_opt	*o;
	const char		**names, *best;
	size_t			 n = 0;

	for (o = cmd->opts; o != NULL && o->name != NULL; o++)
		n++;
	names = xcalloc(n + 1, sizeof *names);
	n = 0;
	for (o = cmd->opts; o != NULL && o->name != NULL; o++) {
		if (!(o->flags & (CLI_OPT_HIDDEN|CLI_OPT_SHORT)))
			names[n++] = o->name;
	}
	names[n++] = "help";
	best = NULL;
	if (strncmp(arg, "--", 2) == 0)
		best = client_suggest(arg + 2, names, n);
	if (best != NULL)
		cli_error("%s: unknown option %s (did you mean --%s?)",
		    cmd->name, arg, best);
	else
		cli_error("%s: unknown option %s (see sluice help %s)",
		    cmd->name, arg, cmd->name);
	free(names);
	return (-1);
}

/* Parse argv[*i], a "--name" or "--name=VALUE"; -1 on error, 1 for help. */
static int
args_long(struct cli_args *args, int argc, char **argv, int *i)
{
	const struct cli_opt	*o;
	const char		*arg = argv[*i] + 2, *eq, *value = NULL;
	size_t			 len;

	eq = strchr(arg, '=');
	len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	if (len == 4 && strncmp(arg, "help", 4) == 0 && eq == NULL)
		return (1);
	if ((o = args_find_spelt(args->cmd, arg, len)) == NULL)
		return (args_unknown(args->cmd, argv[*i]));
	if (o->value == NULL) {
		if (eq != NULL) {
			cli_error("%s: option --%s takes no value",
			    args->cmd->name, o->name);
			return (-1);
		}
	} else if (eq != NULL)
		value = eq + 1;
	else if (*i + 1 < argc)
		value = argv[++*i];
	else {
		cli_error("%s: option --%s needs a value (%s)",
		    args->cmd->name, o->name, o->value);
		return (-1);
	}
	args_add(args, o, value);
	return (0);
}

/* Parse argv[*i], a cluster of short options; -1 on error, 1 for help. */
static int
args_short(struct cli_args *args, int argc, char **argv, int *i)
{
	const struct cli_opt	*o;
	const char		*p;
	char			 bad[3];

	for (p = argv[*i] + 1; *p != '\0'; p++) {
		if (*p == 'h')
			return (1);
		if ((o = args_find_letter(args->cmd, (u_char)*p)) == NULL) {
			bad[0] = '-';
			bad[1] = *p;
			bad[2] = '\0';
			return (args_unknown(args->cmd, bad));
		}
		if (o->value == NULL) {
			args_add(args, o, NULL);
			continue;
		}
		if (p[1] != '\0')
			args_add(args, o, p + 1);
		else if (*i + 1 < argc)
			args_add(args, o, argv[++*i]);
		else {
			cli_error("%s: option -%c needs a value (%s)",
			    args->cmd->name, *p, o->value);
			return (-1);
		}
		break;
	}
	return (0);
}

/* Check what was given against the table: repeats, required, counts. */
static int
args_check(struct cli_args *args)
{
	const struct cli_cmd	*cmd = args->cmd;
	const struct cli_opt	*o;
	char			*usage, *spec;
	int			 n;

	for (o = cmd->opts; o != NULL && o->name != NULL; o++) {
		n = cli_args_has(args, o->name);
		spec = args_opt_spec(o);
		if (n > 1 && o->value != NULL && (~o->flags & CLI_OPT_MANY)) {
			cli_error("%s: option %s given more than once",
			    cmd->name, spec);
			free(spec);
			return (-1);
		}
		if (n == 0 && (o->flags & CLI_OPT_REQUIRED)) {
			cli_error("%s: option %s is required", cmd->name,
			    spec);
			free(spec);
			return (-1);
		}
		free(spec);
	}
	if (args->argc >= cmd->args_min && (cmd->args_max == CLI_ARGS_ANY ||
	    args->argc <= cmd->args_max))
		return (0);
	usage = cli_args_usage(cmd);
	if (args->argc < cmd->args_min)
		cli_error("%s: missing arguments (usage: %s)", cmd->name,
		    usage);
	else
		cli_error("%s: unexpected argument \"%s\" (usage: %s)",
		    cmd->name, args->argv[cmd->args_max], usage);
	free(usage);
	return (-1);
}

/*
 * Parse argv (argv[0] is the command's name) against cmd's table.  Returns
 * 0 with args filled, 1 when -h or --help asks for help, or -1 after
 * printing why the command line is wrong.  args points into argv.
 */
int
cli_args_parse(const struct cli_cmd *cmd, int argc, char **argv,
    struct cli_args *args)
{
	int	 i, rc = 0, dashdash = 0;

	memset(args, 0, sizeof *args);
	args->cmd = cmd;
	args->argv = xcalloc(argc + 1, sizeof *args->argv);
	for (i = 1; i < argc && rc == 0; i++) {
		if (dashdash || argv[i][0] != '-' || argv[i][1] == '\0')
			args->argv[args->argc++] = argv[i];
		else if (strcmp(argv[i], "--") == 0)
			dashdash = 1;
		else if (argv[i][1] == '-')
			rc = args_long(args, argc, argv, &i);
		else
			rc = args_short(args, argc, argv, &i);
	}
	if (rc == 0)
		rc = args_check(args);
	if (rc != 0)
		cli_args_free(args);
	return (rc);
}

/* Free what cli_args_parse allocated. */
void
cli_args_free(struct cli_args *args)
{
	free(args->opts);
	free(args->argv);
	args->opts = NULL;
	args->argv = NULL;
	args->nopts = 0;
	args->argc = 0;
}

/* How many times the option with this long name was given. */
int
cli_args_has(const struct cli_args *args, const char *name)
{
	const struct cli_opt	*o = args_lookup(args, name);
	size_t			 i;
	int			 n = 0;

	for (i = 0; i < args->nopts; i++) {
		if (args->opts[i].opt == o)
			n++;
	}
	return (n);
}

/* The option's value as last given, or NULL. */
const char *
cli_args_get(const struct cli_args *args, const char *name)
{
	const struct cli_opt	*o = args_lookup(args, name);
	size_t			 i;
	const char		*value = NULL;

	for (i = 0; i < args->nopts; i++) {
		if (args->opts[i].opt == o)
			value = args->opts[i].value;
	}
	return (value);
}

/*
 * The option's next value in the order given, or NULL after the last;
 * *iter starts at 0 (for options given more than once, like -i).
 */
const char *
cli_args_next(const struct cli_args *args, const char *name, size_t *iter)
{
	const struct cli_opt	*o = args_lookup(args, name);

	while (*iter < args->nopts) {
		if (args->opts[(*iter)++].opt == o)
			return (args->opts[*iter - 1].value);
	}
	return (NULL);
}

/* An option as usage shows it: "[-m TEXT]", "[-i KEY=VAL]...". */
static char *
args_opt_usage(const struct cli_opt *o)
{
	char	*spec, *s;

	spec = args_opt_spec(o);
	if (o->flags & CLI_OPT_REQUIRED)
		s = spec;
	else {
		xasprintf(&s, "[%s]%s", spec,
		    (o->flags & CLI_OPT_MANY) ? "..." : "");
		free(spec);
	}
	return (s);
}

/* An option as one word and its value: "-m TEXT", "--limit N", "--json". */
static char *
args_opt_spec(const struct cli_opt *o)
{
	char	*s;

	if (o->letter != 0)
		xasprintf(&s, "-%c%s%s", o->letter, o->value != NULL ? " " : "",
		    o->value != NULL ? o->value : "");
	else
		xasprintf(&s, "--%s%s%s", o->name, o->value != NULL ? " " : "",
		    o->value != NULL ? o->value : "");
	return (s);
}

/*
 * The usage line from the table: "sluice NAME ARGS [OPTIONS]", and for a
 * command of subcommands "sluice NAME SUB|SUB ...".
 */
char *
cli_args_usage(const struct cli_cmd *cmd)
{
	const struct cli_cmd	*sub;
	const struct cli_opt	*o;
	struct buf		 b;
	char			*s;

	buf_init(&b);
	buf_printf(&b, "sluice %s", cmd->name);
	if (cmd->subs != NULL) {
		buf_printf(&b, " ");
		for (sub = cmd->subs; sub->name != NULL; sub++) {
			if (sub->hidden)
				continue;
			buf_printf(&b, "%s%s", sub == cmd->subs ? "" : "|",
			    strrchr(sub->name, ' ') + 1);
		}
		buf_printf(&b, " ...");
	} else if (cmd->run == NULL || (cmd->usage != NULL &&
	    *cmd->usage != '\0'))
		buf_printf(&b, " %s", cmd->usage != NULL ? cmd->usage : "");
	for (o = cmd->opts; cmd->run != NULL && o != NULL && o->name != NULL;
	    o++) {
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		s = args_opt_usage(o);
		buf_printf(&b, " %s", s);
		free(s);
	}
	return (buf_release(&b));
}

/*
 * Print text from column col, wrapped before column 80 at spaces outside
 * brackets (so "[-i KEY=VAL]" stays whole); later lines start at column
 * indent.
 */
static void
args_wrap(FILE *f, int col, int indent, const char *text)
{
	const char	*p = text, *end;
	int		 depth, len;

	while (*p != '\0') {
		/* The next word: up to a space that is not inside brackets. */
		depth = 0;
		for (end = p; *end != '\0' && (*end != ' ' || depth > 0);
		    end++) {
			if (*end == '[')
				depth++;
			else if (*end == ']' && depth > 0)
				depth--;
		}
		len = (int)(end - p);
		if (col > indent && col + 1 + len > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, len, f);
		col += len;
		for (p = end; *p == ' '; p++)
			/* nothing */;
	}
	fputc('\n', f);
}

/* Print one option's line of --help, its help starting at column width. */
static void
args_help_opt(FILE *f, const struct cli_opt *o, int width)
{
	char	*s;

	if (o->letter != 0 && (~o->flags & CLI_OPT_SHORT))
		xasprintf(&s, "-%c, --%s%s%s", o->letter, o->name,
		    o->value != NULL ? " " : "",
		    o->value != NULL ? o->value : "");
	else
		s = args_opt_spec(o);
	fprintf(f, "  %-*s  ", width, s);
	args_wrap(f, width + 4, width + 4, o->help);
	free(s);
}

/*
 * Print a command's help from its table: usage, summary, its subcommands
 * or its options with their help lines, then its notes.
 */
void
cli_args_help(const struct cli_cmd *cmd, FILE *f)
{
	const struct cli_cmd	*sub;
	const struct cli_opt	*o;
	char			*usage, *spec;
	int			 width = 0, len;

	usage = cli_args_usage(cmd);
	fprintf(f, "usage: ");
	args_wrap(f, 7, 11, usage);
	free(usage);
	fprintf(f, "\n%s\n", cmd->summary);
	if (cmd->subs != NULL)
		fprintf(f, "\nCommands:\n");
	for (sub = cmd->subs; sub != NULL && sub->name != NULL; sub++) {
		if (sub->hidden)
			continue;
		usage = cli_args_usage(sub);
		fprintf(f, "  ");
		args_wrap(f, 2, 8, usage);
		fprintf(f, "      ");
		args_wrap(f, 6, 6, sub->summary);
		free(usage);
	}
	for (o = cmd->opts; cmd->run != NULL && o != NULL && o->name != NULL;
	    o++) {
		spec = args_opt_spec(o);
		len = strlen(spec);
		if (o->letter != 0 && (~o->flags & CLI_OPT_SHORT))
			len += strlen(o->name) + 4;
		if (!(o->flags & CLI_OPT_HIDDEN) && len > width)
			width = len;
		free(spec);
	}
	if (cmd->run != NULL && cmd->opts != NULL && cmd->opts->name != NULL)
		fprintf(f, "\nOptions:\n");
	for (o = cmd->opts; cmd->run != NULL && o != NULL && o->name != NULL;
	    o++) {
		if (~o->flags & CLI_OPT_HIDDEN)
			args_help_opt(f, o, width);
	}
	if (cmd->help != NULL)
		fprintf(f, "\n%s", cmd->help);
}

/* The subcommand of cmd named word ("show" for "template show"), or NULL. */
const struct cli_cmd *
cli_sub_find(const struct cli_cmd *cmd, const char *word)
{
	const struct cli_cmd	*sub;
	const char		*last;

	for (sub = cmd->subs; sub != NULL && sub->name != NULL; sub++) {
		last = strrchr(sub->name, ' ');
		last = last != NULL ? last + 1 : sub->name;
		if (strcmp(last, word) == 0)
			return (sub);
	}
	return (NULL);
}
