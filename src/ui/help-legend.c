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
 * help-legend.c: the help's glyph legend, every mark the console draws
 * with what it means, in the form this terminal shows it (and, on a
 * UTF-8 terminal, the ASCII form an ASCII one would show beside it).
 * The status glyphs come from the same tables the views draw from, so
 * the legend cannot miss one; the marks drawn by single views are
 * listed here by hand, and a test holds this list to the sources.
 */

#include <string.h>

#include "ui/ui-int.h"

#define LEGEND_MAX	16	/* distinct status glyphs, at most */

/* Marks drawn by one view each: UTF-8 form, ASCII form, meaning. */
static const struct {
	const char	*utf8;
	const char	*ascii;
	const char	*means;
} legend_marks[] = {
	{ "\u2605", "*", "a gate that began waiting since you last looked "
	    "at the Gates view" },
	{ "\u25b8", "+", "a collapsed fan-out or for-each (Enter expands it)" },
	{ "\u25be", "-", "an expanded one (Enter collapses it)" },
	{ "\u251c\u2500 \u2514\u2500 \u2502", "|- \\- |", "the branches of a "
	    "fan-out in the run view's tree" },
	{ "\u2588", "#", "timeline: the time a step ran" },
	{ "\u2592", "=", "timeline: the time a gate or wait waited" },
	{ "\u2502", "|", "log: a line the step wrote to its output" },
	{ "\u2503", "!", "log: a line it wrote to its error output" },
	{ "\u00bb", "#", "log: a line of sluice's own (a retry, the log cut)" },
	{ "\u2026", "~", "text cut to fit (the header's path: ...)" },
	{ "\u00b7", "-", "in the header, between the database and the view" },
};

/* A status glyph and the words it stands for, steps' and runs'. */
struct legend_status {
	const char	*utf8;
	const char	*ascii;
	struct buf	 words;
};

/* Add word to glyph's entry, making it if it is new; n counts them. */
static void
legend_word(struct legend_status *st, size_t *n, const char *utf8,
    const char *ascii, const char *word)
{
	size_t	 i;

	for (i = 0; i < *n; i++) {
		if (strcmp(st[i].utf8, utf8) == 0)
			break;
	}
	if (i == *n) {
		if (*n == LEGEND_MAX)
			return;
		st[i].utf8 = utf8;
		st[i].ascii = ascii;
		buf_init(&st[i].words);
		(*n)++;
	}
	if (strstr(st[i].words.data != NULL ? st[i].words.data : "",
	    word) != NULL)
		return;
	buf_printf(&st[i].words, "%s%s", st[i].words.len > 0 ? ", " : "",
	    word);
}

/* s, then spaces to w columns (at least one). */
static void
legend_pad(struct buf *b, const char *s, int w)
{
	int	 n;

	buf_puts(b, s);
	for (n = ui_draw_width(s); n < w || n == ui_draw_width(s); n++)
		buf_putc(b, ' ');
}

/* One line of the legend: the glyph, its ASCII form, what it means. */
static void
legend_line(const struct ui *ui, struct help_text *t, const char *utf8,
    const char *ascii, const char *means)
{
	struct buf	 b;

	buf_init(&b);
	buf_puts(&b, "  ");
	if (ui->utf8)
		legend_pad(&b, utf8, 9);
	legend_pad(&b, ascii, 8);
	buf_puts(&b, means);
	ui_help_add(t, PAINT_NORMAL, (int)ui_draw_width(b.data) -
	    ui_draw_width(means), "%s", b.data);
	buf_free(&b);
}

/* The legend: the status glyphs, then every other mark. */
void
ui_help_legend(const struct ui *ui, struct help_text *t)
{
	struct legend_status	 st[LEGEND_MAX];
	size_t			 n = 0, i;
	int			 s;

	ui_help_add(t, PAINT_TITLE, 0, "%s", ui->utf8 ? "Glyphs (beside "
	    "each, the form an ASCII terminal shows, as with LANG=C)" :
	    "Glyphs (a UTF-8 terminal shows symbols for these)");
	for (s = 0; s < STEP_NSTATUS; s++)
		legend_word(st, &n, status_step_glyph(s, 1),
		    status_step_glyph(s, 0), status_step_name(s));
	for (s = 0; s < STATE_N; s++)
		legend_word(st, &n, state_glyph(s, 1), state_glyph(s, 0),
		    state_name(s));
	for (i = 0; i < n; i++) {
		legend_line(ui, t, st[i].utf8, st[i].ascii, st[i].words.data);
		buf_free(&st[i].words);
	}
	for (i = 0; i < nitems(legend_marks); i++)
		legend_line(ui, t, legend_marks[i].utf8, legend_marks[i].ascii,
		    legend_marks[i].means);
}
