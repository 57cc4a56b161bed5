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
 * mouse.c: what a click or the wheel does, as the keys that do the same:
 * a click on a row moves the cursor there with Up and Down (so each view
 * does what its own keys do: a window reads on, f stops following), a
 * double click then presses Enter, and the wheel is three Ups or Downs.
 * The terminal (term.c) and key scripts (script.c) both come here, so
 * a scripted screen test exercises the same path as a real mouse.
 */

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define MOUSE_WHEEL_ROWS	3	/* rows one notch of the wheel moves */

/* The screen row of the page's cursor, or -1 if it shows no rows. */
static int
mouse_cursor_row(struct ui *ui, struct view *v)
{
	const struct ui_window	*w;
	const struct ui_list	*l;
	const char		*at;

	if (ui->list_y < 0 || v->data == NULL || v->ops->cursor_size == 0)
		return (-1);
	at = (const char *)v->data + v->ops->cursor_at;
	if (v->ops->cursor_size == sizeof *w) {
		w = (const struct ui_window *)(const void *)at;
		return (w->n > 0 ? ui->list_y + w->sel : -1);
	}
	l = (const struct ui_list *)(const void *)at;
	return (l->n > 0 ? ui->list_y + l->sel - l->top : -1);
}

/* Whether screen row y shows a row of the page (not past its last). */
static int
mouse_on_row(struct ui *ui, struct view *v, int y)
{
	const struct ui_window	*w;
	const struct ui_list	*l;
	const char		*at = (const char *)v->data + v->ops->cursor_at;

	if (y < ui->list_y || y >= ui->rows - 2)
		return (0);
	if (v->ops->cursor_size == sizeof *w) {
		w = (const struct ui_window *)(const void *)at;
		return (y - ui->list_y < w->n);
	}
	l = (const struct ui_list *)(const void *)at;
	return (l->top + y - ui->list_y < l->n);
}

/* A click (or a double click) at row y, column x; the wheel up or down. */
void
ui_mouse(struct ui *ui, enum ui_mouse what, int y, int x)
{
	struct view	*page = ui_view_page(ui);
	int		 i, at;

	(void)x;
	/* Off (--no-mouse); a prompt, a question or a form takes keys. */
	if (!ui->mouse || page == NULL || ui->too_small || ui->top != page)
		return;
	if (what == UI_MOUSE_WHEEL_UP || what == UI_MOUSE_WHEEL_DOWN) {
		for (i = 0; i < MOUSE_WHEEL_ROWS; i++)
			ui_keys_dispatch(ui, what == UI_MOUSE_WHEEL_UP ?
			    KEY_FN(KEY_UP) : KEY_FN(KEY_DOWN));
		return;
	}
	if ((at = mouse_cursor_row(ui, page)) < 0 ||
	    !mouse_on_row(ui, page, y))
		return;
	for (; at < y; at++)
		ui_keys_dispatch(ui, KEY_FN(KEY_DOWN));
	for (; at > y; at--)
		ui_keys_dispatch(ui, KEY_FN(KEY_UP));
	if (what == UI_MOUSE_DOUBLE)
		ui_keys_dispatch(ui, K_ENTER);
	ui_dirty(ui);
}
