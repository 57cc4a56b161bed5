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
 * list.c: moving a cursor.  A ui_list is over rows in memory; a ui_window
 * is over a table too big to read, holding one screen of it: moving past
 * its edge moves the anchor (the top row's id) and the view reads the new
 * window, so a page costs one indexed query however deep it is.
 */

#include <stdint.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

/* The navigation keys every list shares; 1 if the key moved the cursor. */
int
ui_list_key(struct ui_list *l, int key)
{
	int	 page = l->height > 1 ? l->height - 1 : 1;

	switch (key) {
	case 'j':
	case KEY_FN(KEY_DOWN):
		l->sel++;
		break;
	case 'k':
	case KEY_FN(KEY_UP):
		l->sel--;
		break;
	case KEY_FN(KEY_NPAGE):
	case K_CTRL('F'):
	case ' ':
		l->sel += page;
		l->top += page;
		break;
	case KEY_FN(KEY_PPAGE):
	case K_CTRL('B'):
		l->sel -= page;
		l->top -= page;
		break;
	case 'g':
	case KEY_FN(KEY_HOME):
		l->sel = 0;
		break;
	case 'G':
	case KEY_FN(KEY_END):
		l->sel = l->n - 1;
		break;
	default:
		return (0);
	}
	ui_list_fix(l, l->height);
	return (1);
}

/* Keep the cursor on a row and on the screen of the given height. */
void
ui_list_fix(struct ui_list *l, int height)
{
	if (height < 1)
		height = 1;
	l->height = height;
	if (l->sel >= l->n)
		l->sel = l->n - 1;
	if (l->sel < 0)
		l->sel = 0;
	if (l->top > l->n - height)
		l->top = l->n - height;
	if (l->top < 0)
		l->top = 0;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + height)
		l->top = l->sel - height + 1;
}

/*
 * The navigation keys over a window.  The view's load reads the window
 * again when the anchor moved (dirty_data); up is how it asks which ids
 * lie above an anchor, given to the view as view->ops->key's job: here we
 * only move within the rows and set where to read next.
 */
int
ui_window_key(struct ui *ui, struct view *v, struct ui_window *w, int key)
{
	switch (key) {
	case 'j':
	case KEY_FN(KEY_DOWN):
		if (w->sel < w->n - 1)
			w->sel++;
		else if (w->more) {
			w->anchor = -1;		/* one row down */
			v->dirty_data = 1;
		}
		break;
	case 'k':
	case KEY_FN(KEY_UP):
		if (w->sel > 0)
			w->sel--;
		else if (w->anchor != 0) {
			w->anchor = -2;		/* one row up */
			v->dirty_data = 1;
		}
		break;
	case KEY_FN(KEY_NPAGE):
	case K_CTRL('F'):
	case ' ':
		if (w->more) {
			w->anchor = -3;		/* a page down */
			v->dirty_data = 1;
		} else
			w->sel = w->n - 1;
		break;
	case KEY_FN(KEY_PPAGE):
	case K_CTRL('B'):
		if (w->anchor != 0) {
			w->anchor = -4;		/* a page up */
			v->dirty_data = 1;
		} else
			w->sel = 0;
		break;
	case 'g':
	case KEY_FN(KEY_HOME):
		w->anchor = 0;
		w->sel = 0;
		v->dirty_data = 1;
		break;
	case 'G':
	case KEY_FN(KEY_END):
		w->anchor = -5;			/* the last page */
		v->dirty_data = 1;
		break;
	default:
		return (0);
	}
	w->sel_id = 0;
	ui_dirty(ui);
	return (1);
}

/* Where a pending move (a negative anchor) puts the window's top. */
static void
window_resolve(struct ui_window *w, const struct window_src *src)
{
	int64_t	 id;
	int	 count = 0;

	switch (w->anchor) {
	case -1:
		w->anchor = w->second_id;
		break;
	case -2:
		id = src->up(src->arg, w->top_id, 1, &count);
		w->anchor = count < 1 ? 0 : id;
		break;
	case -3:
		w->anchor = w->next_id;
		break;
	case -4:
		id = src->up(src->arg, w->top_id, w->height, &count);
		w->anchor = count < w->height ? 0 : id;
		break;
	case -5:
		id = src->up(src->arg, 0, w->height, &count);
		w->anchor = count < w->height ? 0 : id;
		w->sel = w->height - 1;
		break;
	}
}

/*
 * Read the window: one screen from the anchor plus one row to know
 * whether there is more; then put the cursor back on the row it was on
 * (by id) when the data moved under it.
 */
void
ui_window_load(struct ui_window *w, int height, const struct window_src *src)
{
	int	 n, i;

	w->height = height < 1 ? 1 : height;
	window_resolve(w, src);
	n = src->fetch(src->arg, w->anchor, w->height + 1);
	if (n == 0 && w->anchor != 0) {
		w->anchor = 0;
		n = src->fetch(src->arg, 0, w->height + 1);
	}
	w->more = n > w->height;
	w->n = w->more ? w->height : n;
	w->top_id = w->n > 0 ? src->id_at(src->arg, 0) : 0;
	w->second_id = w->n > 1 ? src->id_at(src->arg, 1) : w->top_id;
	w->next_id = w->more ? src->id_at(src->arg, w->height) : 0;
	if (w->sel_id != 0) {
		for (i = 0; i < w->n; i++) {
			if (src->id_at(src->arg, i) == w->sel_id) {
				w->sel = i;
				break;
			}
		}
	}
	if (w->sel >= w->n)
		w->sel = w->n - 1;
	if (w->sel < 0)
		w->sel = 0;
	w->sel_id = w->n > 0 ? src->id_at(src->arg, w->sel) : 0;
}
