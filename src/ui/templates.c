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
 * templates.c: view 3, the saved templates: name, version, description,
 * who may run it (its operators, else the site's) and who changed it
 * last.  r runs one through a form of its inputs, e
 * edits it in the user's editor.
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

struct templates {
	struct ui_list		 list;
	struct store_template	*all;
	size_t			 nall;
	int			*shown;		/* indexes into all, filtered */
	char			**run_by;	/* who may run each of all */
	char			 version[16], when[32];
};

static void	 templates_forget(struct templates *);
static void	 templates_load(struct ui *, struct view *);
static void	 templates_draw(struct ui *, struct view *, int, int);
static int	 templates_key(struct ui *, struct view *, int);
static void	 templates_free(struct view *);
static void	 templates_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);

const struct view_ops ui_view_templates = {
	.kind = VIEW_TEMPLATES,
	.title = "Templates",
	.load = templates_load,
	.draw = templates_draw,
	.key = templates_key,
	.free = templates_free,
	.cursor_at = offsetof(struct templates, list),
	.cursor_size = sizeof (struct ui_list)
};

/* Drop the templates read before. */
static void
templates_forget(struct templates *t)
{
	size_t	i;

	for (i = 0; t->run_by != NULL && i < t->nall; i++)
		free(t->run_by[i]);
	free(t->run_by);
	t->run_by = NULL;
	store_templates_free(t->all, t->nall);
	free(t->shown);
	t->shown = NULL;
	t->all = NULL;
	t->nall = 0;
}

/* Read the templates (one row each), keep the cursor's one. */
static void
templates_load(struct ui *ui, struct view *v)
{
	struct templates	*t = v->data;
	const struct store_template *st;
	char			*cause = NULL, *sel = NULL;
	size_t			 i;
	int			 n = 0;

	if (t == NULL)
		t = v->data = xcalloc(1, sizeof *t);
	else if (t->list.n > 0)
		sel = xstrdup(t->all[t->shown[t->list.sel]].name);
	templates_forget(t);
	if (store_template_list(ui->store, &t->all, &t->nall, &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
	}
	t->shown = xcalloc(t->nall + 1, sizeof *t->shown);
	t->run_by = xcalloc(t->nall + 1, sizeof *t->run_by);
	for (i = 0; i < t->nall; i++) {
		st = &t->all[i];
		t->run_by[i] = authority_template_run_by(
		    &ui->cfg->opts.authority, st->document);
		if (v->filter != NULL && strcasestr(st->name, v->filter) ==
		    NULL && (st->description == NULL ||
		    strcasestr(st->description, v->filter) == NULL))
			continue;
		if (sel != NULL && strcmp(sel, st->name) == 0)
			t->list.sel = n;
		t->shown[n++] = (int)i;
	}
	free(sel);
	t->list.n = n;
	ui_list_fix(&t->list, ui_screen_body_rows(ui) - 1);
}

/* The selected template's name, or NULL. */
const char *
ui_templates_selected(struct view *v)
{
	struct templates	*t = v->data;

	if (t == NULL || t->list.n == 0)
		return (NULL);
	return (t->all[t->shown[t->list.sel]].name);
}

/* One template's cells. */
static void
templates_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct templates		*t = arg;
	const struct store_template	*st = &t->all[t->shown[i]];

	(void)ui;
	(void)paints;
	(void)base;
	snprintf(t->version, sizeof t->version, "%lld",
	    (long long)st->version);
	ui_draw_when(st->updated_at, t->when, sizeof t->when);
	cells[0] = st->name;
	cells[1] = t->version;
	cells[2] = st->description != NULL ? st->description : "";
	cells[3] = t->run_by[t->shown[i]];
	cells[4] = st->updated_by != NULL ? st->updated_by : "";
	cells[5] = t->when;
}

/* Title row and one row per template. */
static void
templates_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "NAME", "VERSION",
	    "DESCRIPTION", "RUN BY", "EDITED BY", "EDITED" };
	static const int widths[] = { 18, 7, 0, 12, 10, 12 };
	struct templates	*t = v->data;
	struct table		 tb;

	if (t == NULL)
		return;
	ui_list_fix(&t->list, h - 1);
	memset(&tb, 0, sizeof tb);
	tb.titles = titles;
	tb.widths = widths;
	tb.ncols = nitems(titles);
	tb.flex = 2;
	tb.empty = v->filter != NULL ?
	    "No template matches the filter (Esc clears it)." :
	    "No templates yet. Save one from a shell: sluice template save "
	    "NAME FILE.json (examples are in share/templates).";
	tb.row = templates_row;
	tb.arg = t;
	ui_table_draw(ui, y, h, &tb, t->list.n, t->list.top, t->list.sel);
}

/* Moving; Enter is r: run it through the form. */
static int
templates_key(struct ui *ui, struct view *v, int key)
{
	struct templates	*t = v->data;
	const char		*name;

	if (t == NULL)
		return (0);
	if (key == K_ENTER) {
		if ((name = ui_templates_selected(v)) != NULL)
			ui_form_open(ui, name, NULL);
		return (1);
	}
	if (ui_list_key(&t->list, key)) {
		ui_dirty(ui);
		return (1);
	}
	return (0);
}

/* Free the templates. */
static void
templates_free(struct view *v)
{
	struct templates	*t = v->data;

	if (t == NULL)
		return;
	templates_forget(t);
	free(t);
}
