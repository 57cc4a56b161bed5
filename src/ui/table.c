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
 * table.c: the shape every list view shares: a title row of column names,
 * then rows, the selected one painted across the whole width, columns fit
 * to the terminal (the flexible one takes what is left; the rightmost go
 * first when even that is too narrow), and a line saying why the list is
 * empty when it is.
 */

#include <string.h>

#include "ui/ui-int.h"

/* Draw a table in rows [y, y + h): titles, then rows top.. of n. */
void
ui_table_draw(struct ui *ui, int y, int h, const struct table *t,
    int n, int top, int sel)
{
	const char	*cells[TABLE_MAX_COLS];
	enum ui_paint	 paints[TABLE_MAX_COLS], base;
	int		 widths[TABLE_MAX_COLS];
	int		 i, row;

	memcpy(widths, t->widths, t->ncols * sizeof widths[0]);
	ui_draw_fit(widths, t->ncols, ui->cols, t->flex);
	if (t->flex_max > 0 && widths[t->flex] > t->flex_max)
		widths[t->flex] = t->flex_max;
	ui_draw_columns(ui, y, widths, t->ncols, t->titles, NULL, PAINT_TITLE);
	if (n == 0) {
		ui_draw_wrap(ui, y + 2, 2, ui->cols - 4, h - 2, t->empty,
		    PAINT_DIM);
		return;
	}
	for (i = 0; i < h - 1 && top + i < n; i++) {
		row = top + i;
		memset(cells, 0, sizeof cells);
		memset(paints, 0, sizeof paints);
		base = PAINT_NORMAL;
		t->row(ui, t->arg, row, cells, paints, &base);
		if (row == sel) {
			ui_draw_fill(ui, y + 1 + i, 0, ui->cols, PAINT_SELECT);
			base = PAINT_SELECT;
		}
		ui_draw_columns(ui, y + 1 + i, widths, t->ncols, cells, paints,
		    base);
	}
}
