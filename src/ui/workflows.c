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
 * workflows.c: view 1, every run newest first, live.  One screen of rows
 * is read at a time (a window anchored on an id), so the view costs the
 * same with a hundred runs or a million.
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "ui/ui-int.h"

struct workflows {
	struct ui_window	 w;
	struct store_brief	*rows;
	size_t			 n;
	struct ui		*ui;
	struct view		*view;
	char			 id[24], status[40], started[32], age[16];
	char			 behind[32];
	char			 name[SLUICE_MAX_NAME + 32];	/* "x (of N)" */
};

static void	 workflows_load(struct ui *, struct view *);
static void	 workflows_draw(struct ui *, struct view *, int, int);
static void	 workflows_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);
static int	 workflows_key(struct ui *, struct view *, int);
static void	 workflows_free(struct view *);
static int	 workflows_tick(struct ui *, struct view *);
static int	 workflows_fetch(void *, int64_t, int);
static int64_t	 workflows_up(void *, int64_t, int, int *);
static int64_t	 workflows_id_at(void *, int);

const struct view_ops ui_view_workflows = {
	.kind = VIEW_WORKFLOWS,
	.title = "Workflows",
	.load = workflows_load,
	.draw = workflows_draw,
	.key = workflows_key,
	.free = workflows_free,
	.tick = workflows_tick,
	.cursor_at = offsetof(struct workflows, w),
	.cursor_size = sizeof (struct ui_window)
};

/* Read one window of rows from an anchor. */
static int
workflows_fetch(void *arg, int64_t anchor, int limit)
{
	struct workflows	*wf = arg;
	struct store_window	 win;
	char			*cause = NULL;

	store_briefs_free(wf->rows, wf->n);
	wf->rows = NULL;
	wf->n = 0;
	memset(&win, 0, sizeof win);
	win.match = wf->view->filter;
	win.anchor = anchor;
	win.limit = limit;
	if (store_brief_window(wf->ui->store, &win, &wf->rows, &wf->n,
	    &cause) != 0) {
		ui_screen_read_failed(wf->ui, "%s", cause);
		free(cause);
	}
	return ((int)wf->n);
}

/* The id k rows above an anchor (and how many there were). */
static int64_t
workflows_up(void *arg, int64_t after, int k, int *count)
{
	struct workflows	*wf = arg;
	struct store_window	 win;
	struct store_brief	*rows;
	size_t			 n;
	int64_t			 id = 0;
	char			*cause = NULL;

	memset(&win, 0, sizeof win);
	win.match = wf->view->filter;
	win.anchor = after;
	win.up = 1;
	win.limit = k;
	*count = 0;
	if (store_brief_window(wf->ui->store, &win, &rows, &n, &cause) != 0) {
		free(cause);
		return (0);
	}
	if (n > 0)
		id = rows[n - 1].id;
	*count = (int)n;
	store_briefs_free(rows, n);
	return (id);
}

/* A row's id. */
static int64_t
workflows_id_at(void *arg, int i)
{
	struct workflows	*wf = arg;

	return (wf->rows[i].id);
}

/* Read the window the cursor is in. */
static void
workflows_load(struct ui *ui, struct view *v)
{
	struct workflows	*wf = v->data;
	struct window_src	 src;

	if (wf == NULL) {
		wf = v->data = xcalloc(1, sizeof *wf);
		wf->ui = ui;
		wf->view = v;
	}
	src.arg = wf;
	src.fetch = workflows_fetch;
	src.up = workflows_up;
	src.id_at = workflows_id_at;
	ui_window_load(&wf->w, ui_screen_body_rows(ui) - 1, &src);
}

/* The selected workflow's id, 0 if none. */
int64_t
ui_workflows_selected(struct view *v)
{
	struct workflows	*wf = v->data;

	if (wf == NULL || wf->w.n == 0)
		return (0);
	return (wf->rows[wf->w.sel].id);
}

/* The selected workflow's status and whether it began; 0 if none. */
int
ui_workflows_status(struct view *v, enum run_status *st, int *started)
{
	struct workflows	*wf = v->data;

	if (wf == NULL || wf->w.n == 0)
		return (0);
	*st = wf->rows[wf->w.sel].status;
	*started = wf->rows[wf->w.sel].started_at != 0;
	return (1);
}

/* One workflow's cells. */
static void
workflows_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct workflows	*wf = arg;
	const struct store_brief *b = &wf->rows[i];
	char			 in[24];

	snprintf(wf->id, sizeof wf->id, "%lld", (long long)b->id);
	snprintf(wf->status, sizeof wf->status, "%s %s",
	    ui_draw_state_glyph(ui, b->state), state_name(b->state));
	if (b->status == RUN_SCHEDULED && b->start_at > 0) {
		when_countdown(b->start_at - time_now_ms(), in, sizeof in);
		snprintf(wf->started, sizeof wf->started, "in %s", in);
	} else
		ui_draw_when(b->started_at, wf->started, sizeof wf->started);
	time_age(time_now_ms() - b->created_at, wf->age, sizeof wf->age);
	cells[0] = wf->id;
	cells[1] = b->name;
	if (b->parent_id != 0) {
		/* A child run says whose, as list does. */
		snprintf(wf->name, sizeof wf->name, "%s (of %lld)", b->name,
		    (long long)b->parent_id);
		cells[1] = wf->name;
	}
	cells[2] = wf->status;
	cells[3] = b->current_step != NULL ? b->current_step : "";
	if (b->status == RUN_QUEUED && b->behind != 0) {
		/* Where a run shows its step: its place in the queue. */
		snprintf(wf->behind, sizeof wf->behind, "behind #%lld",
		    (long long)b->behind);
		cells[3] = wf->behind;
	}
	cells[4] = b->created_by != NULL ? b->created_by : "";
	cells[5] = wf->started;
	cells[6] = wf->age;
	paints[2] = ui_draw_state_paint(b->state);
	if (b->state == STATE_LATE)
		*base = PAINT_LATE;	/* past its SLA: the whole row stands out */
}

/* Title row and one row per workflow. */
static void
workflows_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "ID", "NAME", "STATUS", "STEP",
				    "WHO", "STARTED", "AGE" };
	struct workflows	*wf = v->data;
	struct table		 t;
	int			 widths[] = { 6, 0, 11, 16, 8, 14, 5 };
	char			 id[24];

	if (wf == NULL)
		return;
	if (wf->w.n > 0) {
		wf->w.sel_id = wf->rows[wf->w.sel].id;
		snprintf(id, sizeof id, "%lld", (long long)wf->rows[0].id);
		if ((int)strlen(id) > widths[0])
			widths[0] = (int)strlen(id);
	}
	memset(&t, 0, sizeof t);
	t.titles = titles;
	t.widths = widths;
	t.ncols = nitems(titles);
	t.flex = 1;
	t.flex_max = 40;
	t.empty = v->filter != NULL ?
	    "No workflow matches the filter (Esc clears it)." :
	    "No workflows yet. Press 3 for the templates and r to run one, "
	    "or from a shell: sluice run FLOW.json";
	t.row = workflows_row;
	t.arg = wf;
	ui_table_draw(ui, y, h, &t, wf->w.n, 0, wf->w.sel);
}

/* Moving, and Enter to open the run. */
static int
workflows_key(struct ui *ui, struct view *v, int key)
{
	struct workflows	*wf = v->data;

	if (wf == NULL)
		return (0);
	if (key == K_ENTER) {
		if (wf->w.n > 0)
			ui_run_open(ui, wf->rows[wf->w.sel].id, 0);
		return (1);
	}
	return (ui_window_key(ui, v, &wf->w, key));
}

/* Ages move every second. */
static int
workflows_tick(struct ui *ui, struct view *v)
{
	(void)ui;
	(void)v;
	return (1);
}

/* Free the view's rows. */
static void
workflows_free(struct view *v)
{
	struct workflows	*wf = v->data;

	if (wf == NULL)
		return;
	store_briefs_free(wf->rows, wf->n);
	free(wf);
}
