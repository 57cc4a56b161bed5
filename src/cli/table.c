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
 * table.c: the one table printer of human output (list, gates, audit,
 * show's steps, template list and history, schedule list, prune).  Each
 * column is as wide as its widest cell, measured in terminal columns
 * (wcwidth, after control characters are escaped), so a long name never
 * pushes the next column out of line.  Only when the output is a terminal
 * narrower than the table are the widest columns cut, each cut cell ending
 * in "…"; piped output is never cut.  A table with no rows prints nothing
 * when piped and says so on a terminal.
 */

#include <sys/ioctl.h>

#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "util/util.h"
#include "cli/cli.h"

#define TABLE_GAP	2	/* columns between columns */
#define TABLE_MIN	6	/* a cut column keeps at least this */

struct cli_table {
	size_t	  ncols;
	size_t	  nrows;	/* with the header */
	char	**cells;	/* nrows * ncols, escaped */
	int	 *widths;
	int	 *flex;		/* cut these first (names, text) */
};

static int	 table_term_width(void);
static void	 table_fit(struct cli_table *, int);
static void	 table_cell(struct buf *, const char *, int, int);

/* A table with these column headers. */
struct cli_table *
cli_table_create(const char *const *header, size_t ncols)
{
	struct cli_table	*t;

	t = xcalloc(1, sizeof *t);
	t->ncols = ncols;
	t->widths = xcalloc(ncols, sizeof *t->widths);
	t->flex = xcalloc(ncols, sizeof *t->flex);
	cli_table_add(t, header);
	return (t);
}

/*
 * Say which columns hold free text (names, messages) to cut first on a
 * narrow terminal, so times and ids stay whole as long as they can:
 * flex is a string with one character a column, 'f' for such a column.
 */
void
cli_table_flex(struct cli_table *t, const char *flex)
{
	size_t	 i;

	for (i = 0; i < t->ncols && flex[i] != '\0'; i++)
		t->flex[i] = flex[i] == 'f';
}

/* Add a row of ncols cells (NULL shows as "-"), escaping them. */
void
cli_table_add(struct cli_table *t, const char *const *cells)
{
	size_t	 i;
	char	*v;
	int	 w;

	t->cells = xreallocarray(t->cells, (t->nrows + 1) * t->ncols,
	    sizeof *t->cells);
	for (i = 0; i < t->ncols; i++) {
		v = vis_str(cells[i] != NULL ? cells[i] : "-", 0);
		if ((w = cli_text_width(v)) > t->widths[i])
			t->widths[i] = w;
		t->cells[t->nrows * t->ncols + i] = v;
	}
	t->nrows++;
}

/* The terminal's width when stdout is one, else 0 (never cut). */
static int
table_term_width(void)
{
	struct winsize	 ws;
	const char	*env;
	int		 n;

	if (!isatty(STDOUT_FILENO))
		return (0);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return (ws.ws_col);
	if ((env = getenv("COLUMNS")) != NULL && (n = atoi(env)) > 0)
		return (n);
	return (80);
}

/*
 * Narrow the widest free-text column, one terminal column at a time, then
 * the widest of any, until the table fits in width or every column is
 * down to TABLE_MIN.
 */
static void
table_fit(struct cli_table *t, int width)
{
	size_t	 i, widest;
	int	 total = 0, pass, w;

	for (i = 0; i < t->ncols; i++)
		total += t->widths[i] + (i + 1 < t->ncols ? TABLE_GAP : 0);
	for (pass = 0; pass < 2 && total > width; pass++) {
		while (total > width) {
			widest = t->ncols;
			for (i = 0; i < t->ncols; i++) {
				if (pass == 0 && !t->flex[i])
					continue;
				w = t->widths[i];
				if (w > TABLE_MIN && (widest == t->ncols ||
				    w > t->widths[widest]))
					widest = i;
			}
			if (widest == t->ncols)
				break;
			t->widths[widest]--;
			total--;
		}
	}
}

/*
 * Append a cell: cut to width with "…" when it is wider, else padded to
 * width unless it is the last.
 */
static void
table_cell(struct buf *b, const char *s, int width, int last)
{
	mbstate_t	 ps;
	size_t		 n;
	int		 w, cw, used = 0, utf8;

	w = cli_text_width(s);
	if (w <= width) {
		buf_puts(b, s);
		if (!last)
			buf_printf(b, "%*s", width - w, "");
		return;
	}
	utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	memset(&ps, 0, sizeof ps);
	while (*s != '\0') {
		n = cli_text_char(s, &ps, &cw);
		if (used + cw > width - 1)
			break;
		buf_add(b, s, n);
		used += cw;
		s += n;
	}
	buf_puts(b, utf8 ? "…" : "~");
	used++;
	if (!last)
		buf_printf(b, "%*s", width - used, "");
}

/*
 * Print the table on stdout and free it.  With no rows, print nothing, or
 * on a terminal the line empty ("no workflows").
 */
void
cli_table_print(struct cli_table *t, const char *empty)
{
	struct buf	 b;
	size_t		 r, i;
	int		 width;

	if (t->nrows == 1) {
		if (empty != NULL && isatty(STDOUT_FILENO))
			printf("%s\n", empty);
		cli_table_free(t);
		return;
	}
	if ((width = table_term_width()) > 0)
		table_fit(t, width);
	buf_init(&b);
	for (r = 0; r < t->nrows; r++) {
		buf_reset(&b);
		for (i = 0; i < t->ncols; i++) {
			if (i > 0)
				buf_printf(&b, "%*s", TABLE_GAP, "");
			table_cell(&b, t->cells[r * t->ncols + i],
			    t->widths[i], i + 1 == t->ncols);
		}
		/* A last column of "-" or short text leaves no blanks. */
		while (b.len > 0 && b.data[b.len - 1] == ' ')
			b.data[--b.len] = '\0';
		buf_putc(&b, '\n');
		fwrite(b.data, 1, b.len, stdout);
	}
	buf_free(&b);
	cli_table_free(t);
}

/* Free a table that was not printed. */
void
cli_table_free(struct cli_table *t)
{
	size_t	 i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->widths);
	free(t->flex);
	free(t);
}
