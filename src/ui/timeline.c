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
 * timeline.c: the run view's rows as a Gantt chart (t).  The same rows
 * and cursor as the tree: each step row's label on the left, and a bar
 * from when it started to when it ended (to now while it runs, so it
 * grows), scaled so the run's whole span fits the width, painted by
 * status.  A gate's bar is hatched and runs from when it began waiting.
 * The title line is the time axis: the start, middle and end times.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define TIMELINE_MIN_BAR	10	/* narrower than this, no bars */

/* The span a row's bar covers. */
struct timeline_bar {
	int64_t		 from, to;
	int		 hatched;
};

static int	 timeline_bar_of(const struct tree_row *, int64_t,
		     struct timeline_bar *);
static void	 timeline_span(const struct timeline *, int64_t, int64_t *,
		     int64_t *);
static int	 timeline_x(int64_t, int64_t, int64_t, int);
static void	 timeline_axis(struct ui *, int, int, int, int64_t, int64_t);
static void	 timeline_row(struct ui *, const struct timeline *, int, int,
		     int, int, int64_t, int64_t);

/* The bar of a row: 0 when it has none (not started, not a step). */
static int
timeline_bar_of(const struct tree_row *tr, int64_t now,
    struct timeline_bar *bar)
{
	const struct store_step	*s = tr->row;

	if ((tr->kind != TREE_STEP && tr->kind != TREE_JOIN) || s == NULL)
		return (0);
	bar->hatched = s->tool == NULL || tr->status == STEP_WAITING;
	bar->from = bar->hatched ? s->created_at : s->started_at;
	bar->to = s->completed_at;
	if (tr->status == STEP_RUNNING || tr->status == STEP_WAITING)
		bar->to = now;
	if (bar->from <= 0)
		return (0);
	if (bar->to < bar->from)
		bar->to = bar->from;
	return (1);
}

/* The span the chart shows: the run's, widened to cover every bar. */
static void
timeline_span(const struct timeline *tl, int64_t now, int64_t *from,
    int64_t *to)
{
	struct timeline_bar	 bar;
	int			 i;

	*from = tl->start;
	*to = tl->end > 0 ? tl->end : now;
	for (i = 0; i < tl->list->n; i++) {
		if (!timeline_bar_of(&tl->tree->rows[tl->vis[i]], now, &bar))
			continue;
		if (*from <= 0 || bar.from < *from)
			*from = bar.from;
		if (bar.to > *to)
			*to = bar.to;
	}
	if (*from <= 0)
		*from = now;
	if (*to <= *from)
		*to = *from + 1000;
}

/* The column of a time, in a bar area of w columns. */
static int
timeline_x(int64_t t, int64_t from, int64_t to, int w)
{
	int64_t	 x = (t - from) * w / (to - from);

	if (x < 0)
		x = 0;
	if (x > w - 1)
		x = w - 1;
	return ((int)x);
}

/* The title line: "STEP (span)", then start, middle and end times. */
static void
timeline_axis(struct ui *ui, int y, int name_w, int x0, int64_t from,
    int64_t to)
{
	char	 t1[32], t2[32], t3[32], d[16];
	int	 w = ui->cols - x0, n;

	ui_draw_textf(ui, y, 0, name_w, PAINT_TITLE, "STEP (%s)",
	    ui_draw_duration(to - from, d, sizeof d));
	if (w < TIMELINE_MIN_BAR)
		return;
	ui_draw_when(from, t1, sizeof t1);
	ui_draw_when(from + (to - from) / 2, t2, sizeof t2);
	ui_draw_when(to, t3, sizeof t3);
	ui_draw_text(ui, y, x0, w, t1, PAINT_TITLE);
	n = (int)strlen(t3);
	if (w >= 2 * n + 2)
		ui_draw_text(ui, y, ui->cols - n - 1, n, t3, PAINT_TITLE);
	n = (int)strlen(t2);
	if (w >= 3 * n + 4)
		ui_draw_text(ui, y, x0 + (w - n) / 2, n, t2, PAINT_TITLE);
}

/* One row: its label, then its bar and how long it took. */
static void
timeline_row(struct ui *ui, const struct timeline *tl, int y, int i,
    int name_w, int x0, int64_t from, int64_t to)
{
	const struct tree_row	*tr = &tl->tree->rows[tl->vis[i]];
	struct timeline_bar	 bar;
	struct buf		 b;
	const char		*cell;
	char			 d[16];
	int			 sel = i == tl->list->sel, w = ui->cols - x0;
	int			 a, z, k;

	if (sel)
		ui_draw_fill(ui, y, 0, ui->cols, PAINT_SELECT);
	ui_run_label(ui, y, name_w, tl->tree, tr, sel);
	if (w < TIMELINE_MIN_BAR || !timeline_bar_of(tr, time_now_ms(), &bar))
		return;
	a = timeline_x(bar.from, from, to, w);
	z = timeline_x(bar.to, from, to, w);
	if (z < a)
		z = a;
	if (bar.hatched)
		cell = ui->utf8 ? "\u2592" : "=";
	else
		cell = ui->utf8 ? "\u2588" : "#";
	buf_init(&b);
	for (k = a; k <= z; k++)
		buf_puts(&b, cell);
	ui_draw_text(ui, y, x0 + a, z - a + 1, b.data, sel ? PAINT_SELECT :
	    ui_draw_status_paint(tr->status));
	buf_free(&b);
	ui_draw_duration(bar.to - bar.from, d, sizeof d);
	if (z + 2 + (int)strlen(d) < w)
		ui_draw_text(ui, y, x0 + z + 2, (int)strlen(d), d,
		    sel ? PAINT_SELECT : PAINT_DIM);
}

/* The chart: the axis on the title line, then one line per row. */
void
ui_timeline_draw(struct ui *ui, const struct timeline *tl, int y, int h)
{
	int64_t	 from, to, now = time_now_ms();
	int	 name_w, cap, i;

	if (tl->tree == NULL)
		return;
	cap = ui->cols / 3 > 12 ? ui->cols / 3 : 12;
	name_w = tl->name_w < cap ? tl->name_w : cap;
	timeline_span(tl, now, &from, &to);
	timeline_axis(ui, y, name_w, name_w + 1, from, to);
	if (tl->list->n == 0)
		ui_draw_text(ui, y + 2, 2, ui->cols - 4, "No steps yet.",
		    PAINT_DIM);
	for (i = 0; i < h - 1 && tl->list->top + i < tl->list->n; i++)
		timeline_row(ui, tl, y + 1 + i, tl->list->top + i, name_w,
		    name_w + 1, from, to);
}
