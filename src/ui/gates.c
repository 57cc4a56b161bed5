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
 * gates.c: view 2, every gate waiting for people, oldest first: what it
 * asks, who started the run, how long it has waited and how many of the
 * approvals it needs it has.  Gates that started waiting since the view
 * was last looked at are marked new (the console rang the bell for them).
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define GATES_BY_MAX	24	/* the BY column grows to this */

struct gates {
	struct ui_list		 list;
	struct store_gate	*all;
	size_t			 nall;
	int			*shown;		/* indexes into all, filtered */
	int64_t			 seen;		/* newest gate already seen */
	char			 step[24], wf[96], gate[128], waited[16];
	char			 votes[16];
};

static void	 gates_load(struct ui *, struct view *);
static void	 gates_draw(struct ui *, struct view *, int, int);
static int	 gates_key(struct ui *, struct view *, int);
static void	 gates_free(struct view *);
static int	 gates_tick(struct ui *, struct view *);
static void	 gates_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);
static int	 gates_match(const struct store_gate *, const char *);

const struct view_ops ui_view_gates = {
	.kind = VIEW_GATES,
	.title = "Gates",
	.load = gates_load,
	.draw = gates_draw,
	.key = gates_key,
	.free = gates_free,
	.tick = gates_tick,
	.cursor_at = offsetof(struct gates, list),
	.cursor_size = sizeof (struct ui_list)
};

/* Does a gate match the filter (workflow, step, message, who, id)? */
static int
gates_match(const struct store_gate *g, const char *f)
{
	char	 id[24];

	if (f == NULL)
		return (1);
	snprintf(id, sizeof id, "%lld", (long long)g->step_id);
	return (strcasestr(g->workflow_name, f) != NULL ||
	    strcasestr(g->title, f) != NULL ||
	    strcasestr(g->message, f) != NULL ||
	    (g->created_by != NULL && strcasestr(g->created_by, f) != NULL) ||
	    strcmp(id, f) == 0);
}

/* Read every waiting gate (there are few), keep the cursor's gate. */
static void
gates_load(struct ui *ui, struct view *v)
{
	struct gates	*g = v->data;
	char		*cause = NULL;
	int64_t		 sel_id = 0;
	size_t		 i;
	int		 n = 0;

	if (g == NULL) {
		g = v->data = xcalloc(1, sizeof *g);
		g->seen = ui->gates_looked;
	} else if (g->list.n > 0)
		sel_id = g->all[g->shown[g->list.sel]].step_id;
	store_gates_free(g->all, g->nall);
	free(g->shown);
	g->all = NULL;
	g->nall = 0;
	if (client_gate_list(ui->store, &g->all, &g->nall, &cause) != 0) {
		ui_screen_read_failed(ui, "%s", cause);
		free(cause);
	}
	g->shown = xcalloc(g->nall + 1, sizeof *g->shown);
	for (i = 0; i < g->nall; i++) {
		if (!gates_match(&g->all[i], v->filter))
			continue;
		if (g->all[i].step_id == sel_id)
			g->list.sel = n;
		g->shown[n++] = (int)i;
		if (g->all[i].step_id > ui->gates_looked)
			ui->gates_looked = g->all[i].step_id;
	}
	g->list.n = n;
	ui_list_fix(&g->list, ui_screen_body_rows(ui) - 1);
}

/* The selected gate: its workflow and step. */
int
ui_gates_selected(struct view *v, int64_t *wf, int64_t *step)
{
	struct gates		*g = v->data;
	const struct store_gate	*sg;

	*wf = *step = 0;
	if (g == NULL || g->list.n == 0)
		return (0);
	sg = &g->all[g->shown[g->list.sel]];
	*wf = sg->workflow_id;
	*step = sg->step_id;
	return (1);
}

/* One gate's cells; new ones stand out. */
static void
gates_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct gates		*g = arg;
	const struct store_gate	*sg = &g->all[g->shown[i]];

	(void)base;
	snprintf(g->step, sizeof g->step, "%lld", (long long)sg->step_id);
	if (sg->parent_id != 0)
		snprintf(g->wf, sizeof g->wf, "%lld %s (of %lld)",
		    (long long)sg->workflow_id, sg->workflow_name,
		    (long long)sg->parent_id);
	else
		snprintf(g->wf, sizeof g->wf, "%lld %s",
		    (long long)sg->workflow_id, sg->workflow_name);
	time_age(time_now_ms() - sg->waiting_since, g->waited,
	    sizeof g->waited);
	snprintf(g->votes, sizeof g->votes, "%d/%d", sg->approvals,
	    sg->quorum);
	snprintf(g->gate, sizeof g->gate, "%s%s", sg->step_id > g->seen ?
	    (ui->utf8 ? "\u2605 " : "* ") : "", sg->title);
	cells[0] = g->step;
	cells[1] = g->wf;
	cells[2] = g->gate;
	cells[3] = sg->message;
	cells[4] = sg->started_by;
	cells[5] = g->waited;
	cells[6] = g->votes;
	if (sg->step_id > g->seen)
		paints[2] = PAINT_WAIT;
}

/* Title row and one row per gate. */
static void
gates_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "STEP", "WORKFLOW", "GATE",
	    "MESSAGE", "BY", "WAITING", "VOTES" };
	int		 widths[] = { 5, 16, 16, 0, 8, 7, 5 };
	struct gates	*g = v->data;
	struct table	 t;
	char		 id[24];
	size_t		 i;
	int		 w, n;

	if (g == NULL)
		return;
	if (g->nall > 0) {
		/* The newest gate has the longest id. */
		snprintf(id, sizeof id, "%lld",
		    (long long)g->all[g->nall - 1].step_id);
		if ((int)strlen(id) > widths[0])
			widths[0] = (int)strlen(id);
	}
	/*
	 * A for-each's gates read "restart (before batch 2 of 3)": the
	 * column grows to fit them, up to a quarter of the screen.
	 */
	for (i = 0; i < g->nall; i++) {
		w = ui_draw_width(g->all[i].title) + 2;
		if (w > widths[2])
			widths[2] = w < ui->cols / 4 ? w : ui->cols / 4;
	}
	if (widths[2] < 16)
		widths[2] = 16;
	/* "alice via mcp" fits whole: who started it, and how, matters. */
	for (i = 0; i < g->nall; i++) {
		n = ui_draw_width(g->all[i].started_by);
		if (n > widths[4])
			widths[4] = n < GATES_BY_MAX ? n : GATES_BY_MAX;
	}
	ui_list_fix(&g->list, h - 1);
	memset(&t, 0, sizeof t);
	t.titles = titles;
	t.widths = widths;
	t.ncols = nitems(titles);
	t.flex = 3;
	t.empty = v->filter != NULL ?
	    "No waiting gate matches the filter (Esc clears it)." :
	    "No gate is waiting. When one is, the bell rings and it shows "
	    "here: y approves, n rejects, Enter shows what it approves.";
	t.row = gates_row;
	t.arg = g;
	ui_table_draw(ui, y, h, &t, g->list.n, g->list.top, g->list.sel);
}

/* Moving; Enter shows the gate's detail. */
static int
gates_key(struct ui *ui, struct view *v, int key)
{
	struct gates	*g = v->data;
	int64_t		 wf, step;

	if (g == NULL)
		return (0);
	if (key == K_ENTER) {
		if (ui_gates_selected(v, &wf, &step))
			ui_step_open(ui, step);
		return (1);
	}
	if (ui_list_key(&g->list, key)) {
		ui_dirty(ui);
		return (1);
	}
	return (0);
}

/* Waiting times move. */
static int
gates_tick(struct ui *ui, struct view *v)
{
	struct gates	*g = v->data;

	(void)ui;
	return (g != NULL && g->list.n > 0);
}

/* Free the gates. */
static void
gates_free(struct view *v)
{
	struct gates	*g = v->data;

	if (g == NULL)
		return;
	store_gates_free(g->all, g->nall);
	free(g->shown);
	free(g);
}
