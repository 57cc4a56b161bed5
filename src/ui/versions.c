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
 * versions.c: one template's versions, newest first, as "sluice template
 * history" lists them: when and by whom each was saved, how many runs it
 * started and how many completed.  Enter shows what a version changed
 * from the one before it, d what changed from it to the latest.  It also
 * says how a run's version stands to the one that last ran to completion
 * (ui_versions_good), for a gate's detail and D on a gate.
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

struct versions {
	struct ui_list			 list;
	char				*name;
	struct store_template_version	*v;
	size_t				 n;
	int64_t				 removed_at;
	int64_t				 latest;
	char				 version[16], when[32];
	char				 runs[16], done[16];
};

static void	 versions_load(struct ui *, struct view *);
static void	 versions_draw(struct ui *, struct view *, int, int);
static int	 versions_key(struct ui *, struct view *, int);
static void	 versions_free(struct view *);
static void	 versions_name(struct view *, struct buf *);
static void	 versions_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);

const struct view_ops ui_view_versions = {
	.kind = VIEW_VERSIONS,
	.title = "Versions",
	.load = versions_load,
	.draw = versions_draw,
	.key = versions_key,
	.free = versions_free,
	.name = versions_name,
	.cursor_at = offsetof(struct versions, list),
	.cursor_size = sizeof (struct ui_list)
};

/* "Versions: deploy-release". */
static void
versions_name(struct view *v, struct buf *b)
{
	struct versions	*vs = v->data;

	buf_printf(b, "Versions: %s", vs->name);
}

/* Open the versions of the named template. */
void
ui_versions_open(struct ui *ui, const char *name)
{
	struct versions	*vs;
	struct buf	 words, echo;

	vs = xcalloc(1, sizeof *vs);
	vs->name = xstrdup(name);
	ui_view_push(ui, &ui_view_versions, vs);
	buf_init(&words);
	buf_puts(&words, "template history ");
	ui_action_quote(&words, name);
	buf_init(&echo);
	ui_action_echo(ui, &echo, words.data);
	ui_screen_message(ui, 0, "%s", echo.data);
	buf_free(&echo);
	buf_free(&words);
}

/* Read the versions again; keep the cursor on the same one. */
static void
versions_load(struct ui *ui, struct view *v)
{
	struct versions	*vs = v->data;
	int64_t		 sel = 0;
	char		*cause;
	size_t		 i, kept;

	if (vs->list.n > 0)
		sel = vs->v[vs->n - 1 - vs->list.sel].version;
	store_template_versions_free(vs->v, vs->n);
	vs->v = NULL;
	vs->n = 0;
	if (store_template_history(ui->store, vs->name, &vs->v, &vs->n,
	    &vs->removed_at, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
	}
	vs->latest = vs->n > 0 ? vs->v[vs->n - 1].version : 0;
	/* The filter keeps the versions whose saver or description match. */
	for (i = 0, kept = 0; i < vs->n; i++) {
		if (v->filter != NULL && (vs->v[i].saved_by == NULL ||
		    strcasestr(vs->v[i].saved_by, v->filter) == NULL) &&
		    (vs->v[i].description == NULL ||
		    strcasestr(vs->v[i].description, v->filter) == NULL)) {
			free(vs->v[i].saved_by);
			free(vs->v[i].description);
			continue;
		}
		vs->v[kept++] = vs->v[i];
	}
	vs->n = kept;
	vs->list.n = (int)vs->n;
	for (i = 0; i < vs->n; i++) {
		if (vs->v[i].version == sel)
			vs->list.sel = (int)(vs->n - 1 - i);
	}
	ui_list_fix(&vs->list, ui_screen_body_rows(ui) - 1);
}

/* One version's cells; row 0 is the newest. */
static void
versions_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct versions				*vs = arg;
	const struct store_template_version	*tv = &vs->v[vs->n - 1 - i];

	(void)ui;
	(void)paints;
	(void)base;
	snprintf(vs->version, sizeof vs->version, "%lld",
	    (long long)tv->version);
	snprintf(vs->runs, sizeof vs->runs, "%lld", (long long)tv->runs);
	snprintf(vs->done, sizeof vs->done, "%lld", (long long)tv->completed);
	ui_draw_when(tv->saved_at, vs->when, sizeof vs->when);
	cells[0] = vs->version;
	cells[1] = vs->when;
	cells[2] = tv->saved_by != NULL ? tv->saved_by : "";
	cells[3] = vs->runs;
	cells[4] = vs->done;
	cells[5] = tv->description != NULL ? tv->description : "";
}

/* Title row and one row per version. */
static void
versions_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "VERSION", "SAVED", "BY",
	    "RUNS", "COMPLETED", "DESCRIPTION" };
	static const int widths[] = { 7, 12, 10, 5, 9, 0 };
	struct versions	*vs = v->data;
	struct table	 tb;
	char		 when[32];

	if (vs->removed_at != 0 && h > 2) {
		ui_draw_textf(ui, y + h - 1, 0, ui->cols, PAINT_DIM,
		    "%s was removed %s; its versions are kept", vs->name,
		    ui_draw_when(vs->removed_at, when, sizeof when));
		h--;
	}
	ui_list_fix(&vs->list, h - 1);
	memset(&tb, 0, sizeof tb);
	tb.titles = titles;
	tb.widths = widths;
	tb.ncols = nitems(titles);
	tb.flex = 5;
	tb.empty = "This template has no saved versions.";
	tb.row = versions_row;
	tb.arg = vs;
	ui_table_draw(ui, y, h, &tb, vs->list.n, vs->list.top, vs->list.sel);
}

/* Enter: what this version changed; d: from it to the latest. */
static int
versions_key(struct ui *ui, struct view *v, int key)
{
	struct versions				*vs = v->data;
	const struct store_template_version	*tv;

	if (vs->list.n > 0 && (key == K_ENTER || key == 'd')) {
		tv = &vs->v[vs->n - 1 - vs->list.sel];
		if (key == 'd') {
			if (tv->version == vs->latest)
				ui_screen_message(ui, 0, "version %lld is the "
				    "latest", (long long)tv->version);
			else
				ui_diffview_open(ui, vs->name, tv->version, 0);
		} else if (tv->version == 1)
			ui_screen_message(ui, 0, "version 1 is the first");
		else
			ui_diffview_open(ui, vs->name, tv->version - 1,
			    tv->version);
		return (1);
	}
	if (ui_list_key(&vs->list, key)) {
		ui_dirty(ui);
		return (1);
	}
	return (0);
}

/* Free the versions. */
static void
versions_free(struct view *v)
{
	struct versions	*vs = v->data;

	store_template_versions_free(vs->v, vs->n);
	free(vs->name);
	free(vs);
}

/*
 * How a run's template version stands to the version of its template
 * that last ran to completion (*good, 0 when none has): the gate's
 * detail and D on a gate both say it.  -1 with *cause when the store
 * cannot tell.
 */
int
ui_versions_good(struct ui *ui, const struct store_workflow *w,
    int64_t *good, char **cause)
{
	*good = 0;
	if (w->template_name == NULL)
		return (UI_GOOD_NO_TEMPLATE);
	if (store_template_last_completed(ui->store, w->template_name, good,
	    cause) != 0)
		return (-1);
	if (*good == 0)
		return (UI_GOOD_NONE_YET);
	return (*good == w->template_version ? UI_GOOD_SAME : UI_GOOD_DIFFERS);
}

/*
 * The diff from the version of a run's template that last ran to
 * completion to the run's own version (D on a gate).
 */
void
ui_versions_run_diff(struct ui *ui, int64_t wf)
{
	struct store_workflow	*w;
	int64_t			 good;
	char			*cause;

	if (store_workflow_get(ui->store, wf, &w, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	switch (ui_versions_good(ui, w, &good, &cause)) {
	case -1:
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		break;
	case UI_GOOD_NO_TEMPLATE:
		ui_screen_message(ui, 0, "workflow %lld was not started from a "
		    "template", (long long)wf);
		break;
	case UI_GOOD_NONE_YET:
		ui_screen_message(ui, 0, "no run of %s has completed yet",
		    w->template_name);
		break;
	case UI_GOOD_SAME:
		ui_screen_message(ui, 0, "%s v%lld is the version that last "
		    "ran to completion", w->template_name, (long long)good);
		break;
	case UI_GOOD_DIFFERS:
		ui_diffview_open(ui, w->template_name, good,
		    w->template_version);
		break;
	}
	store_workflow_free(w);
}
