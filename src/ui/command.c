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
 * command.c: the ":" line, for what has a name rather than a key: the
 * views (:workflows, :gates, ... or their first letters), :run TEMPLATE
 * (the run form), :versions TEMPLATE, :open ID (a workflow's run view),
 * :messages, :copy, :help and :q.  Tab completes a command's name, then
 * its argument (a template's name, a workflow's id); a name it does not
 * know is answered with the nearest one it does.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define COMMAND_IDS	100	/* workflow ids Tab offers, newest first */

static void	 command_done(struct ui *, const char *, void *);
static char	**command_complete(struct ui *, const char *, size_t *);

static const struct {
	const char	*name;
	enum view_kind	 view;
} command_views[] = {
	{ "workflows", VIEW_WORKFLOWS },
	{ "gates", VIEW_GATES },
	{ "templates", VIEW_TEMPLATES },
	{ "schedules", VIEW_SCHEDULES },
	{ "audit", VIEW_AUDIT },
};

/* Every command's whole name, as Tab and "did you mean" offer them. */
static const char *const command_names[] = {
	"workflows", "gates", "templates", "schedules", "audit", "run",
	"versions", "history", "open", "messages", "copy", "help", "quit"
};

/* What a command's argument names, for Tab. */
enum command_arg {
	ARG_NONE,
	ARG_TEMPLATE,
	ARG_WORKFLOW
};

/* Open the command line. */
void
ui_command_open(struct ui *ui)
{
	ui_prompt_open(ui, ":", NULL, 0, command_done, NULL, NULL);
	ui_prompt_completion(ui, command_complete);
}

/* Is word a prefix (at least one letter) of name? */
static int
command_is(const char *word, const char *name)
{
	size_t	 len = strlen(word);

	return (len > 0 && strncmp(word, name, len) == 0);
}

/* What the argument of a command (its whole name or short one) names. */
static enum command_arg
command_arg_of(const char *word)
{
	if (strcmp(word, "run") == 0 || strcmp(word, "r") == 0 ||
	    strcmp(word, "versions") == 0 || strcmp(word, "history") == 0)
		return (ARG_TEMPLATE);
	if (strcmp(word, "open") == 0 || strcmp(word, "o") == 0)
		return (ARG_WORKFLOW);
	return (ARG_NONE);
}

/* Add "cmd word" to a list of choices. */
static void
command_choice(char ***v, size_t *n, const char *cmd, const char *word)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	if (cmd != NULL)
		xasprintf(&(*v)[*n], "%s %s", cmd, word);
	else
		(*v)[*n] = xstrdup(word);
	(*n)++;
}

/* Tab's choices for an argument: templates or workflow ids. */
static void
command_complete_arg(struct ui *ui, const char *cmd, enum command_arg arg,
    const char *word, char ***v, size_t *n)
{
	struct store_template	*t;
	struct store_brief	*b;
	struct store_window	 win;
	char			*cause = NULL, id[32];
	size_t			 nt, i;

	if (arg == ARG_TEMPLATE) {
		if (store_template_list(ui->store, &t, &nt, &cause) != 0)
			goto fail;
		for (i = 0; i < nt; i++)
			if (strncmp(t[i].name, word, strlen(word)) == 0)
				command_choice(v, n, cmd, t[i].name);
		store_templates_free(t, nt);
		return;
	}
	memset(&win, 0, sizeof win);
	win.limit = COMMAND_IDS;
	if (store_brief_window(ui->store, &win, &b, &nt, &cause) != 0)
		goto fail;
	for (i = 0; i < nt; i++) {
		snprintf(id, sizeof id, "%lld", (long long)b[i].id);
		if (strncmp(id, word, strlen(word)) == 0)
			command_choice(v, n, cmd, id);
	}
	store_briefs_free(b, nt);
	return;
fail:
	ui_screen_message(ui, 1, "%s", cause);
	free(cause);
}

/*
 * Tab's choices for the line: the commands its word begins, or, after
 * a command that takes one, the arguments its second word begins.
 */
static char **
command_complete(struct ui *ui, const char *line, size_t *n)
{
	char		**v = NULL, *copy, *rest, *word;
	enum command_arg arg;
	size_t		 i;

	*n = 0;
	copy = xstrdup(line + strspn(line, " \t"));
	rest = copy;
	word = strsep(&rest, " \t");
	if (rest == NULL) {
		for (i = 0; i < nitems(command_names); i++)
			if (strncmp(command_names[i], word, strlen(word)) == 0)
				command_choice(&v, n, NULL, command_names[i]);
	} else if ((arg = command_arg_of(word)) != ARG_NONE)
		command_complete_arg(ui, word, arg, str_trim(rest), &v, n);
	free(copy);
	return (v);
}

/* Not a command: say so, with the nearest one when there is one. */
static void
command_unknown(struct ui *ui, const char *word)
{
	const char	*hint;

	hint = flow_suggest(word, command_names, nitems(command_names));
	if (hint != NULL)
		ui_screen_message(ui, 1, "unknown command :%s (did you mean "
		    ":%s?)", word, hint);
	else
		ui_screen_message(ui, 1, "unknown command :%s (:workflows "
		    ":gates :templates :schedules :audit :run NAME :versions "
		    "NAME :open ID :help :q; Tab completes)", word);
}

/*
 * Whether :run's template exists; if not, say so with the nearest name
 * (the form would only say it is not there).
 */
static int
command_template_known(struct ui *ui, const char *name)
{
	struct store_template	*t;
	const char		**names, *hint;
	char			*cause = NULL;
	size_t			 n, i;
	int			 found = 0;

	if (store_template_list(ui->store, &t, &n, &cause) != 0) {
		free(cause);
		return (1);	/* the form says what is wrong */
	}
	names = xcalloc(n + 1, sizeof *names);
	for (i = 0; i < n; i++) {
		names[i] = t[i].name;
		found |= strcmp(t[i].name, name) == 0;
	}
	if (!found) {
		hint = flow_suggest(name, names, n);
		ui_screen_message(ui, 1, "no template %s%s%s%s", name,
		    hint != NULL ? " (did you mean " : " (Tab completes names)",
		    hint != NULL ? hint : "", hint != NULL ? "?)" : "");
	}
	free(names);
	store_templates_free(t, n);
	return (found);
}

/* Run a command line. */
static void
command_done(struct ui *ui, const char *line, void *arg)
{
	char		*copy, *word, *rest;
	int64_t		 id;
	size_t		 i;

	(void)arg;
	if (line == NULL)
		return;
	copy = xstrdup(line);
	rest = str_trim(copy);
	word = strsep(&rest, " \t");
	if (rest != NULL)
		rest = str_trim(rest);
	if (*word == '\0')
		goto out;
	for (i = 0; i < nitems(command_views); i++) {
		if (command_is(word, command_views[i].name)) {
			ui_view_switch(ui, command_views[i].view);
			goto out;
		}
	}
	if (strcmp(word, "q") == 0 || strcmp(word, "quit") == 0)
		ui_keys_dispatch_quit(ui);
	else if (strcmp(word, "help") == 0 || strcmp(word, "h") == 0)
		ui_view_push(ui, &ui_view_help, NULL);
	else if (strcmp(word, "run") == 0 || strcmp(word, "r") == 0) {
		if (rest == NULL || *rest == '\0')
			ui_screen_message(ui, 1, ":run TEMPLATE");
		else if (command_template_known(ui, rest))
			ui_form_open(ui, rest, NULL);
	} else if (strcmp(word, "messages") == 0 ||
	    strcmp(word, "m") == 0)
		ui_messages_open(ui);
	else if (strcmp(word, "copy") == 0)
		ui_messages_copy(ui);
	else if (strcmp(word, "versions") == 0 ||
	    strcmp(word, "history") == 0) {
		/* Also reaches removed templates, which no view lists. */
		if (rest == NULL || *rest == '\0')
			ui_screen_message(ui, 1, ":versions TEMPLATE");
		else
			ui_versions_open(ui, rest);
	} else if (str_parse_int64(word, &id) == 0 ||
	    ((strcmp(word, "open") == 0 || strcmp(word, "o") == 0) &&
	    rest != NULL && str_parse_int64(rest, &id) == 0))
		ui_run_open(ui, id, 0);
	else
		command_unknown(ui, word);
out:
	free(copy);
}
