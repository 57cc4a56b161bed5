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
 * audit.c: view 5, the audit trail newest first: who did what, when, from
 * which terminal and host, with their comment.  Read a window at a time
 * like the workflows; Enter opens the workflow a row is about.
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

struct audit {
	struct ui_window	 w;
	struct store_audit	*rows;
	size_t			 n;
	struct ui		*ui;
	struct view		*view;
	char			 when[32], from[96], target[96];
};

static void	 audit_load(struct ui *, struct view *);
static void	 audit_draw(struct ui *, struct view *, int, int);
static int	 audit_key(struct ui *, struct view *, int);
static void	 audit_free(struct view *);
static int	 audit_fetch(void *, int64_t, int);
static int64_t	 audit_up(void *, int64_t, int, int *);
static int64_t	 audit_id_at(void *, int);
static void	 audit_row(struct ui *, void *, int, const char **,
		     enum ui_paint *, enum ui_paint *);

const struct view_ops ui_view_audit = {
	.kind = VIEW_AUDIT,
	.title = "Audit",
	.load = audit_load,
	.draw = audit_draw,
	.key = audit_key,
	.free = audit_free,
	.cursor_at = offsetof(struct audit, w),
	.cursor_size = sizeof (struct ui_window)
};

/* Read one window of rows from an anchor. */
static int
audit_fetch(void *arg, int64_t anchor, int limit)
{
	struct audit		*a = arg;
	struct store_window	 win;
	char			*cause = NULL;

	store_audits_free(a->rows, a->n);
	a->rows = NULL;
	a->n = 0;
	memset(&win, 0, sizeof win);
	win.match = a->view->filter;
	win.anchor = anchor;
	win.limit = limit;
	if (store_audit_window(a->ui->store, &win, &a->rows, &a->n,
	    &cause) != 0) {
		ui_screen_read_failed(a->ui, "%s", cause);
		free(cause);
	}
	return ((int)a->n);
}

/* The id k rows above an anchor (and how many there were). */
static int64_t
audit_up(void *arg, int64_t after, int k, int *count)
{
	struct audit		*a = arg;
	struct store_window	 win;
	struct store_audit	*rows;
	size_t			 n;
	int64_t			 id = 0;
	char			*cause = NULL;

	memset(&win, 0, sizeof win);
	win.match = a->view->filter;
	win.anchor = after;
	win.up = 1;
	win.limit = k;
	*count = 0;
	if (store_audit_window(a->ui->store, &win, &rows, &n, &cause) != 0) {
		free(cause);
		return (0);
	}
	if (n > 0)
		id = rows[n - 1].id;
	*count = (int)n;
	store_audits_free(rows, n);
	return (id);
}

/* A row's id. */
static int64_t
audit_id_at(void *arg, int i)
{
	struct audit	*a = arg;

	return (a->rows[i].id);
}

/* Read the window the cursor is in. */
static void
audit_load(struct ui *ui, struct view *v)
{
	struct audit		*a = v->data;
	struct window_src	 src;

	if (a == NULL) {
		a = v->data = xcalloc(1, sizeof *a);
		a->ui = ui;
		a->view = v;
	}
	src.arg = a;
	src.fetch = audit_fetch;
	src.up = audit_up;
	src.id_at = audit_id_at;
	ui_window_load(&a->w, ui_screen_body_rows(ui) - 1, &src);
}

/* The workflow the selected row is about, 0 if none. */
int64_t
ui_audit_selected(struct view *v)
{
	struct audit	*a = v->data;

	if (a == NULL || a->w.n == 0)
		return (0);
	return (a->rows[a->w.sel].workflow_id);
}

/* One audit row's cells; refusals stand out. */
static void
audit_row(struct ui *ui, void *arg, int i, const char **cells,
    enum ui_paint *paints, enum ui_paint *base)
{
	struct audit			*a = arg;
	const struct store_audit	*r = &a->rows[i];

	(void)ui;
	(void)base;
	ui_draw_when(r->at, a->when, sizeof a->when);
	snprintf(a->from, sizeof a->from, "%s%s%s", r->tty != NULL ?
	    r->tty : "", r->tty != NULL && r->host != NULL ? "@" : "",
	    r->host != NULL ? r->host : "");
	cells[0] = a->when;
	cells[1] = r->who != NULL ? r->who : "";
	cells[2] = r->action != NULL ? r->action : "";
	cells[3] = r->target != NULL ? r->target : "";
	cells[4] = r->comment != NULL ? r->comment : "";
	cells[5] = a->from;
	if (r->action != NULL && (strstr(r->action, "refused") != NULL ||
	    strstr(r->action, "fail") != NULL))
		paints[2] = PAINT_BAD;
}

/* Title row and one row per audit entry. */
static void
audit_draw(struct ui *ui, struct view *v, int y, int h)
{
	static const char *const titles[] = { "WHEN", "WHO", "ACTION",
	    "TARGET", "COMMENT", "FROM" };
	static const int widths[] = { 14, 8, 14, 24, 0, 16 };
	struct audit	*a = v->data;
	struct table	 t;

	if (a == NULL)
		return;
	if (a->w.n > 0)
		a->w.sel_id = a->rows[a->w.sel].id;
	memset(&t, 0, sizeof t);
	t.titles = titles;
	t.widths = widths;
	t.ncols = nitems(titles);
	t.flex = 4;
	t.empty = v->filter != NULL ?
	    "No audit entry matches the filter (Esc clears it)." :
	    "The audit trail is empty: every operator action will be "
	    "recorded here.";
	t.row = audit_row;
	t.arg = a;
	ui_table_draw(ui, y, h, &t, a->w.n, 0, a->w.sel);
}

/* Moving, and Enter to open the workflow. */
static int
audit_key(struct ui *ui, struct view *v, int key)
{
	struct audit	*a = v->data;

	if (a == NULL)
		return (0);
	if (key == K_ENTER) {
		if (ui_audit_selected(v) != 0)
			ui_run_open(ui, ui_audit_selected(v),
			    a->rows[a->w.sel].step_id);
		else
			ui_screen_message(ui, 0, "this entry is not about a "
			    "workflow");
		return (1);
	}
	return (ui_window_key(ui, v, &a->w, key));
}

/* Free the view's rows. */
static void
audit_free(struct view *v)
{
	struct audit	*a = v->data;

	if (a == NULL)
		return;
	store_audits_free(a->rows, a->n);
	free(a);
}
