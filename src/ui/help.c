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
 * help.c: the help view, made from the key table (so it cannot disagree
 * with what the keys do): the keys that work on the page beneath first,
 * then every other key with the views it works in, what the mouse does,
 * and the glyph legend (help-legend.c).  Its lines are wrapped to the
 * width (again when it changes), a long one going on under its text, so
 * nothing is cut at any width; it scrolls by rows.
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

/* A line before wrapping: continuation rows start at column hang. */
struct help_line {
	char		*text;
	enum ui_paint	 paint;
	int		 hang;
};

struct help_text {
	struct help_line *v;
	size_t		  n;
};

/* A row on screen: a piece of a line. */
struct help_row {
	char		*text;
	enum ui_paint	 paint;
};

struct help {
	struct help_text text;
	struct help_row	*rows;
	int		*first;		/* each line's first row */
	int		 width;		/* the rows were wrapped to */
	struct ui_list	 list;		/* over rows; sel is the top row */
	unsigned int	 here;		/* the page beneath, as a view bit */
	const char	*here_name;
};

static void	 help_load(struct ui *, struct view *);
static void	 help_draw(struct ui *, struct view *, int, int);
static int	 help_key(struct ui *, struct view *, int);
static void	 help_free(struct view *);
static void	 help_name(struct view *, struct buf *);
static void	 help_where(unsigned int, struct buf *);
static void	 help_build(struct ui *, struct help *);
static void	 help_wrap(struct help *, int);
static void	 help_rows_free(struct help *);

const struct view_ops ui_view_help = {
	.kind = VIEW_HELP,
	.title = "Help",
	.load = help_load,
	.draw = help_draw,
	.key = help_key,
	.free = help_free,
	.name = help_name
};

/* "Help: Workflows", the page whose keys come first. */
static void
help_name(struct view *v, struct buf *b)
{
	struct help	*h = v->data;

	if (h != NULL && h->here_name != NULL)
		buf_printf(b, "Help: %s", h->here_name);
	else
		buf_puts(b, "Help");
}

/* Add a line to the help's text. */
void
ui_help_add(struct help_text *t, enum ui_paint paint, int hang,
    const char *fmt, ...)
{
	va_list	 ap;

	t->v = xreallocarray(t->v, t->n + 1, sizeof *t->v);
	va_start(ap, fmt);
	xvasprintf(&t->v[t->n].text, fmt, ap);
	va_end(ap);
	t->v[t->n].paint = paint;
	t->v[t->n].hang = hang;
	t->n++;
}

/* Write the text once; wrap it to the width of the screen. */
static void
help_load(struct ui *ui, struct view *v)
{
	struct help	*h = v->data;
	struct view	*page;

	if (h == NULL) {
		h = v->data = xcalloc(1, sizeof *h);
		page = v->below;
		while (page != NULL && page->ops->overlay)
			page = page->below;
		h->here = page != NULL ? VIEW_BIT(page->ops->kind) : 0;
		h->here_name = page != NULL ? page->ops->title : NULL;
		help_build(ui, h);
	}
	if (h->width != ui->cols)
		help_wrap(h, ui->cols);
	ui_list_fix(&h->list, ui_screen_body_rows(ui));
}

/* The names of the views in a mask, for the "elsewhere" part. */
static void
help_where(unsigned int views, struct buf *b)
{
	static const char *const names[] = {
		"Workflows", "Gates", "Templates", "Schedules", "Audit", "Run",
		"Step", "Log", "Help", "Prompt", "Form", "Versions", "Diff",
		"Messages"
	};
	size_t	 i;
	int	 n = 0;

	if ((views & VIEW_PAGES) == VIEW_PAGES) {
		buf_puts(b, "everywhere");
		return;
	}
	for (i = 0; i < nitems(names); i++) {
		if (!(views & VIEW_BIT(i)))
			continue;
		buf_printf(b, "%s%s", n++ > 0 ? ", " : "", names[i]);
	}
}

/* The keys of the page beneath (pass 0) or of the others (pass 1). */
static void
help_keys(struct help *h, int pass)
{
	struct buf	 b;
	size_t		 k;

	buf_init(&b);
	for (k = 0; k < ui_nkeys; k++) {
		if (((ui_keys[k].views & h->here) != 0) != (pass == 0))
			continue;
		buf_reset(&b);
		buf_printf(&b, "  %-11s %s", ui_keys[k].label,
		    ui_keys[k].help);
		if (pass == 1) {
			buf_puts(&b, " (");
			help_where(ui_keys[k].views, &b);
			buf_puts(&b, ")");
		}
		ui_help_add(&h->text, PAINT_NORMAL, 14, "%s", b.data);
	}
	buf_free(&b);
}

/* The help's lines: keys here, keys elsewhere, the mouse, the glyphs. */
static void
help_build(struct ui *ui, struct help *h)
{
	if (h->here_name != NULL)
		ui_help_add(&h->text, PAINT_TITLE, 0, "Keys here (%s)",
		    h->here_name);
	else
		ui_help_add(&h->text, PAINT_TITLE, 0, "Keys here");
	help_keys(h, 0);
	ui_help_add(&h->text, PAINT_NORMAL, 0, "%s", "");
	ui_help_add(&h->text, PAINT_TITLE, 0, "Keys of other views");
	help_keys(h, 1);
	ui_help_add(&h->text, PAINT_NORMAL, 0, "%s", "");
	ui_help_add(&h->text, PAINT_TITLE, 0, "Mouse");
	if (ui->mouse)
		ui_help_add(&h->text, PAINT_NORMAL, 2, "  a click selects a "
		    "row, a double click opens it, the wheel moves three rows "
		    "(--no-mouse or SLUICE_MOUSE=0 leaves the mouse to the "
		    "terminal, to select text)");
	else
		ui_help_add(&h->text, PAINT_NORMAL, 2, "  off (--no-mouse or "
		    "SLUICE_MOUSE=0): the terminal selects text with it");
	ui_help_add(&h->text, PAINT_NORMAL, 0, "%s", "");
	ui_help_legend(ui, &h->text);
}

/* Free the wrapped rows. */
static void
help_rows_free(struct help *h)
{
	int	 i;

	for (i = 0; i < h->list.n; i++)
		free(h->rows[i].text);
	free(h->rows);
	h->rows = NULL;
	h->list.n = 0;
}

/* Add a row: len bytes of s after indent spaces. */
static void
help_row(struct help *h, enum ui_paint paint, int indent, const char *s,
    size_t len)
{
	struct help_row	*r;

	h->rows = xreallocarray(h->rows, h->list.n + 1, sizeof *h->rows);
	r = &h->rows[h->list.n++];
	xasprintf(&r->text, "%*s%.*s", indent, "", (int)len, s);
	r->paint = paint;
}

/*
 * Wrap every line to width columns at spaces (a word wider than the room
 * is broken), continuation rows indented to the line's hang; the top row
 * shown stays on the same line.
 */
static void
help_wrap(struct help *h, int width)
{
	const struct help_line	*l;
	const char		*p, *end, *brk;
	size_t			 i, line_of_top = 0;
	int			 room, hang, cols;

	for (i = 0; h->first != NULL && i < h->text.n; i++) {
		if (h->first[i] <= h->list.top)
			line_of_top = i;
	}
	help_rows_free(h);
	h->first = xreallocarray(h->first, h->text.n + 1, sizeof *h->first);
	for (i = 0; i < h->text.n; i++) {
		l = &h->text.v[i];
		h->first[i] = h->list.n;
		hang = width - l->hang >= 20 ? l->hang : 0;
		p = l->text;
		room = width;
		do {
			end = p;
			brk = NULL;
			for (cols = 0; *end != '\0'; end++) {
				if (*end == ' ' && end > p)
					brk = end;
				if (((unsigned char)*end & 0xc0) == 0x80)
					continue;
				if (++cols > room)
					break;
			}
			if (*end != '\0' && brk != NULL)
				end = brk;
			while (*end != '\0' && ((unsigned char)*end & 0xc0) ==
			    0x80)
				end--;		/* never split a character */
			if (end == p && *end != '\0')
				end++;
			help_row(h, l->paint, room == width ? 0 : hang, p,
			    (size_t)(end - p));
			p = end;
			while (*p == ' ')
				p++;
			room = width - hang;
		} while (*p != '\0');
	}
	h->list.top = h->list.sel = h->first[line_of_top];
	h->width = width;
}

/* The visible rows of the help. */
static void
help_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct help	*hp = v->data;
	int		 i;

	if (hp == NULL)
		return;
	if (hp->width != ui->cols)
		help_wrap(hp, ui->cols);
	ui_list_fix(&hp->list, h);
	for (i = 0; i < h && hp->list.top + i < hp->list.n; i++)
		ui_draw_text(ui, y + i, 0, ui->cols,
		    hp->rows[hp->list.top + i].text,
		    hp->rows[hp->list.top + i].paint);
}

/* The footer under the help: its keys, and where in it the screen is. */
void
ui_help_footer(struct view *v, struct buf *b)
{
	struct help	*h = v->data;
	int		 last;

	buf_puts(b, "j/k PgUp/PgDn g/G scroll  q/Esc/? close");
	if (h == NULL || h->list.n <= h->list.height)
		return;
	last = h->list.top + h->list.height;
	if (last > h->list.n)
		last = h->list.n;
	buf_printf(b, "  rows %d-%d of %d", h->list.top + 1, last,
	    h->list.n);
}

/* Scroll; q, Esc or ? close. */
static int
help_key(struct ui *ui, struct view *v, int key)
{
	struct help	*h = v->data;

	if (key == 'q' || key == K_ESC || key == '?') {
		ui_view_pop(ui);
		return (1);
	}
	if (h != NULL && ui_list_key(&h->list, key)) {
		/* The cursor is the top line: the help only scrolls. */
		h->list.top = h->list.sel;
		if (h->list.top > h->list.n - h->list.height)
			h->list.top = h->list.sel = h->list.n - h->list.height;
		if (h->list.top < 0)
			h->list.top = h->list.sel = 0;
		ui_dirty(ui);
		return (1);
	}
	return (0);
}

/* Free the help. */
static void
help_free(struct view *v)
{
	struct help	*h = v->data;
	size_t		 i;

	if (h == NULL)
		return;
	help_rows_free(h);
	for (i = 0; i < h->text.n; i++)
		free(h->text.v[i].text);
	free(h->text.v);
	free(h->first);
	free(h);
}
