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
 * view.c: the view stack.  The bottom is always one of the five top
 * views; pages (a run, a step, a log) and overlays (a prompt, the help,
 * the run form) go on top and come off with Esc or q.  A view reads its
 * rows when it is made, when the database changes while it is visible,
 * and when it comes back to the top.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

static const struct view_ops *const view_tops[] = {
	&ui_view_workflows, &ui_view_gates, &ui_view_templates,
	    &ui_view_schedules,
	&ui_view_audit
};

/* Put a view on top; it reads its rows before it is first drawn. */
struct view *
ui_view_push(struct ui *ui, const struct view_ops *ops, void *data)
{
	struct view	*v;

	v = xcalloc(1, sizeof *v);
	v->ops = ops;
	v->data = data;
	v->below = ui->top;
	v->dirty_data = 1;
	ui->top = v;
	ui_dirty(ui);
	return (v);
}

/* Take the top view off; the one below reads its rows again. */
void
ui_view_pop(struct ui *ui)
{
	struct view	*v = ui->top;

	if (v == NULL || v->below == NULL)
		return;
	ui->top = v->below;
	if (v->ops->free != NULL)
		v->ops->free(v);
	free(v->filter);
	free(v->cursor);
	free(v);
	ui->top->dirty_data = 1;
	ui_dirty(ui);
}

/* Go to a top view: everything above the bottom goes, then the bottom. */
void
ui_view_switch(struct ui *ui, enum view_kind kind)
{
	struct view	*v;

	while (ui->top != NULL && ui->top->below != NULL)
		ui_view_pop(ui);
	if (ui->top != NULL && ui->top->ops->kind == kind)
		return;
	v = ui->top;
	ui->top = NULL;
	if (v != NULL) {
		if (v->ops->free != NULL)
			v->ops->free(v);
		free(v->filter);
		free(v->cursor);
		free(v);
	}
	if ((size_t)kind < nitems(view_tops))
		ui_view_push(ui, view_tops[kind], NULL);
}

/* The page being shown: the top view that is not an overlay. */
struct view *
ui_view_page(struct ui *ui)
{
	struct view	*v;

	for (v = ui->top; v != NULL; v = v->below)
		if (!v->ops->overlay)
			return (v);
	return (NULL);
}

/* The nearest view of a kind on the stack, or NULL. */
struct view *
ui_view_find(struct ui *ui, enum view_kind kind)
{
	struct view	*v;

	for (v = ui->top; v != NULL; v = v->below)
		if (v->ops->kind == kind)
			return (v);
	return (NULL);
}

/* Read again what the visible views show, where they asked for it. */
void
ui_view_load_all(struct ui *ui)
{
	struct view	*v, *page = ui_view_page(ui);

	/*
	 * A member reads through the engine: while it does not answer, the
	 * views keep what they show (the header says it is silent) and read
	 * once it answers again, rather than each wait out the link.
	 */
	if (store_is_remote(ui->store) && ui_attach_silent(ui))
		return;
	for (v = ui->top; v != NULL; v = v->below) {
		if (v->dirty_data && v->ops->load != NULL) {
			v->dirty_data = 0;
			v->ops->load(ui, v);
		}
		if (v == page)
			break;
	}
}

/* What the header calls a view: its name and what it shows. */
void
ui_view_name(struct view *v, struct buf *b)
{
	if (v->ops->name != NULL)
		v->ops->name(v, b);
	else
		buf_puts(b, v->ops->title);
}

/*
 * Put a kept cursor back over the rows read now: where it was, on as
 * many rows as there are now (rows may have gone meanwhile), so the
 * load after it finds its row by id (a window) or index (a list).
 */
static void
view_cursor_back(void *at, const void *kept, size_t size)
{
	struct ui_window	*w = at;
	struct ui_list		*l = at;
	int			 n;

	if (size == sizeof *w) {
		n = w->n;
		memcpy(w, kept, size);
		w->n = n;
		if (w->sel >= n)
			w->sel = n - 1;
		if (w->sel < 0)
			w->sel = 0;
	} else if (size == sizeof *l) {
		n = l->n;
		memcpy(l, kept, size);
		l->n = n;
		ui_list_fix(l, l->height);
	}
}

/*
 * A new filter on a view (NULL or "" clears it).  The cursor as it was
 * before a filter came is kept, and put back when the filter goes: the
 * rows read again unfiltered first, so the view's own load keeps it
 * there from then on.
 */
void
ui_view_set_filter(struct ui *ui, struct view *v, const char *text)
{
	size_t	 size = v->ops->cursor_size;
	char	*at;

	at = v->data != NULL && size > 0 ? (char *)v->data +
	    v->ops->cursor_at : NULL;
	if (v->filter == NULL && at != NULL && v->cursor == NULL) {
		v->cursor = xmalloc(size);
		memcpy(v->cursor, at, size);
	}
	free(v->filter);
	v->filter = text != NULL && *text != '\0' ? xstrdup(text) : NULL;
	v->dirty_data = 1;
	ui_dirty(ui);
	if (v->filter != NULL || v->cursor == NULL)
		return;
	if (at != NULL && v->ops->load != NULL) {
		v->dirty_data = 0;
		v->ops->load(ui, v);
		view_cursor_back(at, v->cursor, size);
		v->ops->load(ui, v);
	}
	free(v->cursor);
	v->cursor = NULL;
}
