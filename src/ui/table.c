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
 * then rows, the selected one painted across the whole width, and a line
 * saying why the list is empty when it is.  Columns are as wide as what
 * the rows on screen hold, so a long step name or message shows whole
 * where the terminal has room; when it has not, the columns wider than
 * their view wants give way first, then the flexible one, and the
 * rightmost columns go last.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

/* The flexible column keeps at least this much before others give way. */
#define TABLE_FLEX_MIN	20
/* ... and below this many, columns on its right are dropped for it. */
#define TABLE_FLEX_READ	12

static void	table_fit(const struct table *, const int *, int, int *);

/*
 * Widths from the content (title and shown cells) of each column: each
 * gets its content; the flexible one what is left, up to its maximum or
 * its content (so the columns after it stay near).  When that leaves the
 * flexible column short, the columns wider than wanted shrink toward
 * wanted, widest excess first; then columns are dropped from the right.
 */
static void
table_fit(const struct table *t, const int *content, int cols, int *widths)
{
	int	 used = 0, room, want_flex, cap, best, excess;
	size_t	 i, pick, kept;

	for (i = 0; i < t->ncols; i++) {
		widths[i] = content[i];
		if (i != t->flex)
			used += widths[i] + 1;
	}
	want_flex = content[t->flex] < TABLE_FLEX_MIN ? content[t->flex] :
	    TABLE_FLEX_MIN;
	for (;;) {
		room = cols - used - 1;
		if (room >= want_flex)
			break;
		pick = t->ncols;
		best = 0;
		for (i = 0; i < t->ncols; i++) {
			excess = widths[i] - t->widths[i];
			if (i != t->flex && excess > best) {
				best = excess;
				pick = i;
			}
		}
		if (pick == t->ncols)
			break;
		widths[pick]--;
		used--;
	}
	/*
	 * Still short: the rightmost columns go, until the flexible one has
	 * room enough to be read.
	 */
	kept = t->ncols;
	while (kept > t->flex + 1 && cols - used - 1 < (want_flex <
	    TABLE_FLEX_READ ? want_flex : TABLE_FLEX_READ)) {
		kept--;
		used -= widths[kept] + 1;
		widths[kept] = 0;
	}
	widths[t->flex] = cols - used - 1 < 1 ? 1 : cols - used - 1;
	/* Spare room past the flexible column's content stays at the end. */
	cap = t->flex_max > content[t->flex] ? t->flex_max : content[t->flex];
	if (widths[t->flex] > cap)
		widths[t->flex] = cap;
}

/*
 * Draw a table in rows [y, y + h): titles, then rows top.. of n.  Each
 * row on screen is formatted once: its cells are kept (row() may reuse
 * its text on the next call) to be measured for the widths, then drawn.
 */
void
ui_table_draw(struct ui *ui, int y, int h, const struct table *t,
    int n, int top, int sel)
{
	const char	*cells[TABLE_MAX_COLS];
	enum ui_paint	*paints, *bases;
	struct buf	 text;
	size_t		*off, c, k;
	int		 widths[TABLE_MAX_COLS], content[TABLE_MAX_COLS] = { 0 };
	int		 i, rows, w;

	rows = h - 1 < n - top ? h - 1 : n - top;
	if (rows < 0)
		rows = 0;
	buf_init(&text);
	off = xcalloc((size_t)rows * t->ncols + 1, sizeof *off);
	paints = xcalloc((size_t)rows * t->ncols + 1, sizeof *paints);
	bases = xcalloc((size_t)rows + 1, sizeof *bases);

	/* Format and measure what is on screen: the titles and the rows. */
	for (c = 0; c < t->ncols; c++)
		content[c] = ui_draw_width(t->titles[c]);
	for (i = 0; i < rows; i++) {
		memset(cells, 0, sizeof cells);
		bases[i] = PAINT_NORMAL;
		t->row(ui, t->arg, top + i, cells, &paints[i * t->ncols],
		    &bases[i]);
		for (c = 0; c < t->ncols; c++) {
			k = (size_t)i * t->ncols + c;
			if (cells[c] == NULL) {
				off[k] = SIZE_MAX;
				continue;
			}
			off[k] = text.len;
			buf_add(&text, cells[c], strlen(cells[c]) + 1);
			if ((w = ui_draw_width(cells[c])) > content[c])
				content[c] = w;
		}
	}
	table_fit(t, content, ui->cols, widths);
	ui_draw_columns(ui, y, widths, t->ncols, t->titles, NULL, PAINT_TITLE);
	ui->list_y = y + 1;	/* where a click finds the rows */
	if (n == 0)
		ui_draw_wrap(ui, y + 2, 2, ui->cols - 4, h - 2, t->empty,
		    PAINT_DIM);
	for (i = 0; i < rows; i++) {
		for (c = 0; c < t->ncols; c++) {
			k = (size_t)i * t->ncols + c;
			cells[c] = off[k] == SIZE_MAX ? NULL : text.data +
			    off[k];
		}
		if (top + i == sel) {
			ui_draw_fill(ui, y + 1 + i, 0, ui->cols, PAINT_SELECT);
			bases[i] = PAINT_SELECT;
		}
		ui_draw_columns(ui, y + 1 + i, widths, t->ncols, cells,
		    &paints[i * t->ncols], bases[i]);
	}
	buf_free(&text);
	free(off);
	free(paints);
	free(bases);
}
