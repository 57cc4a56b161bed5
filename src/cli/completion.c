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
 * completion.c: shell completion from the command table.  "sluice
 * completion bash|zsh|fish" prints a small script for the shell; the
 * script asks the hidden "sluice __complete -- WORDS..." what may come
 * next, so commands, subcommands, options, their values and the ids and
 * names in the database are never out of date.  The database is only
 * read, and only if it exists: completing never creates one.
 */

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

/* What one completion is working on. */
struct complete_state {
	struct client		*ctx;
	struct store		*store;		/* read-only, or NULL */
	int			 tried;		/* store opened or given up */
	const char		*cur;		/* the word being completed */
	size_t			 curlen;
	int			 describe;	/* -d: "WORD<tab>WHAT" */
};

static int	 cmd_completion_run(struct client *, const struct cli_args *);
static int	 cmd_complete_words_run(struct client *,
		     const struct cli_args *);
static struct store *complete_store(struct complete_state *);
static void	 complete_word(struct complete_state *, const char *,
		     const char *, const char *);
static void	 complete_kind(struct complete_state *, const char *);
static void	 complete_value(struct complete_state *,
		     const struct cli_opt *, const char *);
static int	 complete_global(struct complete_state *, char **, int,
		     int *);
static void	 complete_inputs(struct complete_state *, const char *);
static void	 complete_options(struct complete_state *,
		     const struct cli_cmd *);
static const struct cli_opt *complete_opt(const struct cli_cmd *,
		     const char *);
static char	*complete_arg_kind(const struct cli_cmd *, int);

static const char complete_bash[] =
"# bash completion for sluice(1), as \"sluice completion bash\" prints it.\n"
"# Everything is asked of sluice itself (sluice __complete), so it never\n"
"# goes stale: commands, options, ids, template and schedule names.\n"
"_sluice()\n"
"{\n"
"\tlocal cur=${COMP_WORDS[COMP_CWORD]} w IFS=$'\\n'\n"
"\tlocal -a out\n"
"\tCOMPREPLY=()\n"
"\tout=($(command sluice __complete -- \"${COMP_WORDS[@]:1:COMP_CWORD}\" \\\n"
"\t    2>/dev/null))\n"
"\tfor w in \"${out[@]}\"; do\n"
"\t\tif [ \"$w\" = :files ]; then\n"
"\t\t\tCOMPREPLY+=($(compgen -f -- \"$cur\"))\n"
"\t\telse\n"
"\t\t\tCOMPREPLY+=(\"$w\")\n"
"\t\tfi\n"
"\tdone\n"
"\tcase ${COMPREPLY[0]-} in\n"
"\t*=) [ ${#COMPREPLY[@]} -eq 1 ] && compopt -o nospace 2>/dev/null ;;\n"
"\tesac\n"
"}\n"
"complete -F _sluice sluice\n";

static const char complete_zsh[] =
"#compdef sluice\n"
"# zsh completion for sluice(1), as \"sluice completion zsh\" prints it:\n"
"# put it in a directory of $fpath as _sluice, or source it.  Commands\n"
"# and options come with what they do (sluice __complete -d).\n"
"_sluice()\n"
"{\n"
"\tlocal -a out words1 eq\n"
"\tlocal l w\n"
"\tout=(\"${(@f)$(command sluice __complete -d -- \\\n"
"\t    \"${(@)words[2,CURRENT]}\" 2>/dev/null)}\")\n"
"\tif (( ${out[(I):files]} )); then\n"
"\t\t_files\n"
"\tfi\n"
"\tfor l in ${out:#:files}; do\n"
"\t\tw=${l%%$'\\t'*}\n"
"\t\t# _describe reads NAME:WHAT; a colon in the name is escaped.\n"
"\t\tw=${w//:/\\\\:}\n"
"\t\t[[ $l == *$'\\t'* ]] && w+=:${l#*$'\\t'}\n"
"\t\tif [[ ${l%%$'\\t'*} == *= ]]; then\n"
"\t\t\teq+=(\"$w\")\n"
"\t\telse\n"
"\t\t\twords1+=(\"$w\")\n"
"\t\tfi\n"
"\tdone\n"
"\t(( ${#words1} )) && _describe -t sluice sluice words1 -Q\n"
"\t(( ${#eq} )) && _describe -t sluice sluice eq -Q -S ''\n"
"}\n"
"if [ \"$funcstack[1]\" = _sluice ]; then\n"
"\t_sluice \"$@\"\n"
"else\n"
"\tcompdef _sluice sluice\n"
"fi\n";

static const char complete_fish[] =
"# fish completion for sluice(1), as \"sluice completion fish\" prints it.\n"
"# sluice __complete -d gives WORD<tab>WHAT, which fish shows as is.\n"
"function __sluice_complete\n"
"\tset -l words (commandline -opc) (commandline -ct)\n"
"\tset -e words[1]\n"
"\tfor w in (command sluice __complete -d -- $words 2>/dev/null)\n"
"\t\tif test \"$w\" = :files\n"
"\t\t\t__fish_complete_path (commandline -ct)\n"
"\t\telse\n"
"\t\t\techo $w\n"
"\t\tend\n"
"\tend\n"
"end\n"
"complete -c sluice -f -a '(__sluice_complete)'\n";

static const struct {
	const char	*name;
	const char	*script;
} complete_shells[] = {
	{ "bash", complete_bash },
	{ "zsh", complete_zsh },
	{ "fish", complete_fish },
};

const struct cli_cmd cli_cmd_completion = {
	.name = "completion",
	.complete = "shell",
	.usage = "bash|zsh|fish",
	.summary = "Print shell completion for bash, zsh or fish.",
	.help = "bash:  eval \"$(sluice completion bash)\" in ~/.bashrc\n"
	    "zsh:   sluice completion zsh >~/.zfunc/_sluice (a directory in "
	    "$fpath)\n"
	    "fish:  sluice completion fish >~/.config/fish/completions/"
	    "sluice.fish\n",
	.args_min = 1,
	.args_max = 1,
	.run = cmd_completion_run
};

static const struct cli_opt complete_words_opts[] = {
	{ "describe", 'd', NULL, 0,
	    "follow each word with a tab and what it is (zsh, fish)" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_complete_words = {
	.name = "__complete",
	.usage = "[-d] -- WORD...",
	.opts = complete_words_opts,
	.summary = "What may come next on a command line (for the shells).",
	.args_min = 0,
	.args_max = CLI_ARGS_ANY,
	.hidden = 1,
	.run = cmd_complete_words_run
};

/* "sluice completion SHELL": print that shell's script. */
static int
cmd_completion_run(struct client *ctx, const struct cli_args *args)
{
	const char	*names[nitems(complete_shells)], *best;
	size_t		 i;

	(void)ctx;
	for (i = 0; i < nitems(complete_shells); i++) {
		names[i] = complete_shells[i].name;
		if (strcmp(args->argv[0], names[i]) == 0) {
			fputs(complete_shells[i].script, stdout);
			return (EXIT_OK);
		}
	}
	if ((best = client_suggest(args->argv[0], names, i)) != NULL)
		cli_error("completion: no shell \"%s\" (did you mean %s?)",
		    args->argv[0], best);
	else
		cli_error("completion: no shell \"%s\" (use bash, zsh or fish)",
		    args->argv[0]);
	return (EXIT_USAGE);
}

/* The database, read-only, if there is one; never created. */
static struct store *
complete_store(struct complete_state *cs)
{
	struct stat	 sb;
	char		*path, *cause = NULL;

	if (cs->tried)
		return (cs->store);
	cs->tried = 1;
	if ((path = client_db_path(cs->ctx)) == NULL)
		return (NULL);
	if (stat(path, &sb) == 0 &&
	    store_open(path, STORE_F_READONLY, &cs->store, &cause) != 0) {
		cs->store = NULL;
		free(cause);
	}
	free(path);
	return (cs->store);
}

/*
 * Offer word (then suffix, as "=") if it begins with the current word;
 * with -d, what it is after a tab, as fish reads it and the zsh script
 * splits it.  A description is one line: tabs and newlines become spaces.
 */
static void
complete_word(struct complete_state *cs, const char *word, const char *suffix,
    const char *desc)
{
	const char	*p;

	if (strncmp(word, cs->cur, cs->curlen) != 0)
		return;
	printf("%s%s", word, suffix != NULL ? suffix : "");
	if (cs->describe && desc != NULL && *desc != '\0') {
		putchar('\t');
		for (p = desc; *p != '\0'; p++)
			putchar(*p == '\t' || *p == '\n' ? ' ' : *p);
	}
	putchar('\n');
}

/* Offer what an argument of this kind may be. */
static void
complete_kind(struct complete_state *cs, const char *kind)
{
	const struct cli_cmd *const	*c;
	struct store_workflow_filter	 f;
	struct store_workflow		*w;
	struct store_gate		*g;
	struct store_template		*t;
	struct store_schedule		*sc;
	struct store_step		*st;
	struct store			*s;
	char				*cause = NULL, id[32];
	size_t				 n, i, j, ns;

	if (strcmp(kind, "file") == 0 || strcmp(kind, "flow") == 0)
		printf(":files\n");
	if (strcmp(kind, "command") == 0) {
		for (c = cli_cmds; *c != NULL; c++) {
			if (!(*c)->hidden)
				complete_word(cs, (*c)->name, NULL,
				    (*c)->summary);
		}
	} else if (strcmp(kind, "shell") == 0) {
		for (i = 0; i < nitems(complete_shells); i++)
			complete_word(cs, complete_shells[i].name, NULL, NULL);
	}
	if ((s = complete_store(cs)) == NULL)
		return;
	if (strcmp(kind, "template") == 0 || strcmp(kind, "flow") == 0) {
		if (store_template_list(s, &t, &n, &cause) == 0) {
			for (i = 0; i < n; i++)
				complete_word(cs, t[i].name, NULL, NULL);
			store_templates_free(t, n);
		}
	} else if (strcmp(kind, "schedule") == 0) {
		if (store_schedule_list(s, &sc, &n, &cause) == 0) {
			for (i = 0; i < n; i++)
				complete_word(cs, sc[i].name, NULL, NULL);
			store_schedules_free(sc, n);
		}
	} else if (strcmp(kind, "gate") == 0) {
		if (store_gate_list(s, &g, &n, &cause) == 0) {
			for (i = 0; i < n; i++) {
				snprintf(id, sizeof id, "%lld",
				    (long long)g[i].step_id);
				complete_word(cs, id, NULL, NULL);
			}
			store_gates_free(g, n);
		}
	} else if (strcmp(kind, "workflow") == 0 ||
	    strcmp(kind, "step") == 0) {
		memset(&f, 0, sizeof f);
		f.limit = strcmp(kind, "step") == 0 ? 10 : 50;
		if (store_workflow_list(s, &f, &w, &n, &cause) != 0)
			n = 0;
		for (i = 0; i < n; i++) {
			if (strcmp(kind, "workflow") == 0) {
				snprintf(id, sizeof id, "%lld",
				    (long long)w[i].id);
				complete_word(cs, id, NULL, NULL);
				continue;
			}
			if (store_step_list(s, w[i].id, &st, &ns, &cause) != 0)
				continue;
			for (j = 0; j < ns; j++) {
				snprintf(id, sizeof id, "%lld",
				    (long long)st[j].id);
				complete_word(cs, id, NULL, NULL);
			}
			store_steps_free(st, ns);
		}
		if (n != 0)
			store_workflows_free(w, n);
	}
	free(cause);
}

/* Offer "KEY=" for each input the template declares. */
static void
complete_inputs(struct complete_state *cs, const char *name)
{
	struct store_template	*t;
	struct store		*s;
	const cJSON		*k;
	cJSON			*in;
	char			*cause = NULL;

	if (name == NULL || client_run_is_file(name) ||
	    (s = complete_store(cs)) == NULL)
		return;
	if (store_template_get(s, name, 0, &t, &cause) != 0) {
		free(cause);
		return;
	}
	in = json_raw(t->input_json);
	cJSON_ArrayForEach(k, in) {
		if (k->string != NULL)
			complete_word(cs, k->string, "=", NULL);
	}
	cJSON_Delete(in);
	store_template_free(t);
}

/*
 * Offer an option's values: states, overlap policies, template names,
 * files, and for -i the inputs template tmpl declares.
 */
static void
complete_value(struct complete_state *cs, const struct cli_opt *o,
    const char *tmpl)
{
	static const char	*overlap[] = { "skip", "allow",
	    "cancel-previous" };
	static const char	*by_state[] = { "status", "state" };
	enum run_state		 st;
	size_t			 i;

	for (i = 0; i < nitems(by_state); i++) {
		if (strcmp(o->name, by_state[i]) != 0)
			continue;
		/* The words a person sees, as --status takes them. */
		for (st = 0; st < STATE_N; st++)
			complete_word(cs, state_name(st), NULL, NULL);
		return;
	}
	if (strcmp(o->name, "overlap") == 0) {
		for (i = 0; i < nitems(overlap); i++)
			complete_word(cs, overlap[i], NULL, NULL);
	} else if (strcmp(o->name, "template") == 0)
		complete_kind(cs, "template");
	else if (strcmp(o->name, "i") == 0)
		complete_inputs(cs, tmpl);
	else if (strstr(o->value, "FILE") != NULL)
		printf(":files\n");
}

/* Offer every option of cmd, long forms ("--name") and short-only ones. */
static void
complete_options(struct complete_state *cs, const struct cli_cmd *cmd)
{
	const struct cli_opt	*o;
	char			 s[64];

	for (o = cmd->opts; cmd->run != NULL && o != NULL && o->name != NULL;
	    o++) {
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		if (o->flags & CLI_OPT_SHORT)
			snprintf(s, sizeof s, "-%c", o->letter);
		else
			snprintf(s, sizeof s, "--%s", o->name);
		complete_word(cs, s, NULL, o->help);
	}
	complete_word(cs, "--help", NULL, "show this command's help");
}

/* The option a command-line word names, or NULL. */
static const struct cli_opt *
complete_opt(const struct cli_cmd *cmd, const char *word)
{
	const struct cli_opt	*o;

	for (o = cmd->opts; o != NULL && o->name != NULL; o++) {
		if (word[0] == '-' && word[1] == '-' &&
		    (~o->flags & CLI_OPT_SHORT) && strcmp(word + 2, o->name) == 0)
			return (o);
		if (word[0] == '-' && word[1] != '-' && word[1] != '\0' &&
		    word[2] == '\0' && o->letter == word[1])
			return (o);
	}
	return (NULL);
}

/*
 * Skip the global options before the command (--db PATH sets the database
 * to read, as it would for the command).  Returns 1 when the word being
 * completed is a global option's value or the command itself (and offers
 * what fits), else 0 with *i at the command.
 */
static int
complete_global(struct complete_state *cs, char **w, int n, int *i)
{
	static const struct {
		const char	*name;
		const char	*desc;
	} globals[] = {
		{ "--db", "the database to use" },
		{ "--tools", "the tools catalog to use" },
		{ "--no-mouse", "leave the mouse to the terminal" },
		{ "--help", "show help" },
		{ "--version", "print the version" },
		{ "-v", "write a debug log to sluice-PID.log" },
	};
	size_t			 j;

	for (*i = 0; *i < n - 1; (*i)++) {
		if (strcmp(w[*i], "--db") == 0 || strcmp(w[*i], "--tools") == 0) {
			if (*i + 1 == n - 1) {
				printf(":files\n");
				return (1);
			}
			if (strcmp(w[*i], "--db") == 0)
				cs->ctx->db_path = w[*i + 1];
			(*i)++;
		} else if (strncmp(w[*i], "--db=", 5) == 0)
			cs->ctx->db_path = w[*i] + 5;
		else if (w[*i][0] != '-')
			return (0);
	}
	if (cs->cur[0] == '-') {
		for (j = 0; j < nitems(globals); j++)
			complete_word(cs, globals[j].name, NULL,
			    globals[j].desc);
	} else
		complete_kind(cs, "command");
	return (1);
}

/* The kind of the argument at index npos, from the command's table. */
static char *
complete_arg_kind(const struct cli_cmd *cmd, int npos)
{
	const char	*p = cmd->complete, *end;
	int		 k = 0;

	if (p == NULL || (cmd->args_max != CLI_ARGS_ANY &&
	    npos >= cmd->args_max))
		return (NULL);
	for (;;) {
		end = strchr(p, ' ');
		if (k == npos || end == NULL)
			return (xstrndup(p, end != NULL ? (size_t)(end - p) :
			    strlen(p)));
		p = end + 1;
		k++;
	}
}

/* "sluice __complete -- WORDS...": print what may come next, one a line. */
static int
cmd_complete_words_run(struct client *ctx, const struct cli_args *args)
{
	struct complete_state	 cs;
	const struct cli_cmd	*cmd, *sub;
	const struct cli_opt	*o, *want = NULL;
	const char		*tmpl = NULL, *first = NULL;
	char			**w = args->argv, *kind;
	int			 n = args->argc, i, npos = 0, dashdash = 0;

	if (n == 0)
		return (EXIT_OK);
	memset(&cs, 0, sizeof cs);
	cs.ctx = ctx;
	cs.describe = cli_args_has(args, "describe");
	cs.cur = w[n - 1];
	cs.curlen = strlen(cs.cur);
	if (complete_global(&cs, w, n, &i))
		goto out;
	if ((cmd = cli_find(w[i++])) == NULL || cmd->hidden)
		goto out;
	if (cmd->subs != NULL) {
		if (i == n - 1) {
			for (sub = cmd->subs; sub->name != NULL; sub++) {
				if (!sub->hidden)
					complete_word(&cs,
					    strrchr(sub->name, ' ') + 1, NULL,
					    sub->summary);
			}
			goto out;
		}
		if ((cmd = cli_sub_find(cmd, w[i++])) == NULL)
			goto out;
	}
	for (; i < n - 1; i++) {
		want = NULL;
		if (!dashdash && strcmp(w[i], "--") == 0)
			dashdash = 1;
		else if (!dashdash && w[i][0] == '-' && w[i][1] != '\0') {
			o = complete_opt(cmd, w[i]);
			if (o == NULL || o->value == NULL)
				continue;
			if (i + 1 == n - 1) {
				want = o;
				break;
			}
			if (strcmp(o->name, "template") == 0)
				tmpl = w[i + 1];
			i++;
		} else if (npos++ == 0)
			first = w[i];
	}
	if (want != NULL) {
		if (tmpl == NULL && strcmp(cmd->name, "schedule add") != 0)
			tmpl = first;
		complete_value(&cs, want, tmpl);
	} else if (!dashdash && cs.cur[0] == '-')
		complete_options(&cs, cmd);
	else if ((kind = complete_arg_kind(cmd, npos)) != NULL) {
		complete_kind(&cs, kind);
		free(kind);
	}
out:
	if (cs.store != NULL)
		store_close(cs.store);
	return (EXIT_OK);
}
