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
 * (the run form), :open ID (a workflow's run view), :help and :q.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

static void	 command_done(struct ui *, const char *, void *);

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

/* Open the command line. */
void
ui_command_open(struct ui *ui)
{
	ui_prompt_open(ui, ":", NULL, 0, command_done, NULL, NULL);
}

/* Is word a prefix (at least one letter) of name? */
static int
command_is(const char *word, const char *name)
{
	size_t	 len = strlen(word);

	return (len > 0 && strncmp(word, name, len) == 0);
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
		else
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
		ui_screen_message(ui, 1, "unknown command :%s (:workflows "
		    ":gates :templates :schedules :audit :run NAME :versions "
		    "NAME :open ID :help :q)", word);
out:
	free(copy);
}
