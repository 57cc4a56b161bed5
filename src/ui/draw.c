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
 * draw.c: putting text on the screen by display width.  Names and
 * results come from users and processes: they are decoded as UTF-8 here
 * (never through the locale, which may be C), control characters and
 * anything the locale cannot show become '?', and widths come from
 * wcwidth() so CJK and emoji stay aligned.  Nothing is written past the
 * last column, and the bottom-right cell is never written at all (a
 * terminal may scroll when it is).
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define DRAW_MAX	1024	/* characters drawn per call, at most */

static uint32_t	 draw_decode(const unsigned char **);
static int	 draw_char_width(int, uint32_t *);
static int	 draw_measure(int, const char *);

/* The next code point of s (advanced), 0xFFFD for a bad sequence. */
static uint32_t
draw_decode(const unsigned char **sp)
{
	const unsigned char	*s = *sp;
	uint32_t		 c;
	int			 n, i;

	if (s[0] < 0x80) {
		*sp = s + 1;
		return (s[0]);
	}
	if ((s[0] & 0xe0) == 0xc0) {
		c = s[0] & 0x1f;
		n = 1;
	} else if ((s[0] & 0xf0) == 0xe0) {
		c = s[0] & 0x0f;
		n = 2;
	} else if ((s[0] & 0xf8) == 0xf0) {
		c = s[0] & 0x07;
		n = 3;
	} else {
		*sp = s + 1;
		return (0xFFFD);
	}
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*sp = s + i;
			return (0xFFFD);
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*sp = s + n + 1;
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ||
	    (n == 1 && c < 0x80) || (n == 2 && c < 0x800) ||
	    (n == 3 && c < 0x10000))
		return (0xFFFD);
	return (c);
}

/*
 * The width of a character on screen, replacing what cannot be shown
 * (controls, invalid, or non-ASCII in an ASCII locale) with '?'.
 */
static int
draw_char_width(int utf8, uint32_t *c)
{
	int	 w;

	if (*c == '\t')
		*c = ' ';
	if (*c < 0x20 || *c == 0x7f || (*c >= 0x80 && *c < 0xa0) ||
	    *c == 0xFFFD || (!utf8 && *c >= 0x80)) {
		*c = '?';
		return (1);
	}
	if (*c < 0x80)
		return (1);
	w = wcwidth((wchar_t)*c);
	if (w < 0) {
		*c = '?';
		return (1);
	}
	return (w);
}

/* The display width of a UTF-8 string on a UTF-8 terminal. */
int
ui_draw_width(const char *s)
{
	return (draw_measure(1, s));
}

/* The width s takes on screen as ui_draw_text shows it (utf8: the locale's). */
static int
draw_measure(int utf8, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	uint32_t		 c;
	int			 total = 0;

	while (*p != '\0') {
		c = draw_decode(&p);
		total += draw_char_width(utf8, &c);
	}
	return (total);
}

/*
 * Draw s at row y, column x, in at most w columns (clipped to the screen,
 * a cut shown by a last '~' or '…').  Returns the columns used.
 */
int
ui_draw_text(struct ui *ui, int y, int x, int w, const char *s,
    enum ui_paint paint)
{
	const unsigned char	*p = (const unsigned char *)s;
	wchar_t			 out[DRAW_MAX + 1];
	uint32_t		 c;
	int			 n = 0, used = 0, cw, limit, room, cut;

	if (y < 0 || y >= ui->rows || x < 0 || x >= ui->cols || s == NULL)
		return (0);
	limit = ui->cols - x - (y == ui->rows - 1 ? 1 : 0);
	if (w > limit)
		w = limit;
	if (w <= 0)
		return (0);
	cut = draw_measure(ui->utf8, s) > w;
	room = cut ? w - 1 : w;
	while (*p != '\0' && n < DRAW_MAX - 1) {
		c = draw_decode(&p);
		cw = draw_char_width(ui->utf8, &c);
		if (used + cw > room)
			break;
		out[n++] = (wchar_t)c;
		used += cw;
	}
	if (cut) {
		out[n++] = ui->utf8 ? L'\u2026' : L'~';
		used++;
	}
	out[n] = L'\0';
	if (n == 0)
		return (0);
	attrset(ui_term_attr(ui, paint));
	mvaddnwstr(y, x, out, n);
	attrset(A_NORMAL);
	return (used);
}

/* ui_draw_text with a format. */
int
ui_draw_textf(struct ui *ui, int y, int x, int w, enum ui_paint paint,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 used;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	used = ui_draw_text(ui, y, x, w, s, paint);
	free(s);
	return (used);
}

/* Paint w blank columns (a selected row, the header's background). */
void
ui_draw_fill(struct ui *ui, int y, int x, int w, enum ui_paint paint)
{
	int	 limit;

	if (y < 0 || y >= ui->rows || x < 0 || x >= ui->cols)
		return;
	limit = ui->cols - x - (y == ui->rows - 1 ? 1 : 0);
	if (w > limit)
		w = limit;
	if (w <= 0)
		return;
	attrset(ui_term_attr(ui, paint));
	mvhline(y, x, ' ', w);
	attrset(A_NORMAL);
}

/* Encode a code point as UTF-8 into out (4 bytes); the length. */
int
ui_utf8_encode(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return (1);
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return (2);
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return (3);
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return (4);
}

/*
 * Draw text wrapped at spaces into w columns, at most maxrows rows (y < 0
 * only counts); newlines break lines.  Returns the rows it takes.
 */
int
ui_draw_wrap(struct ui *ui, int y, int x, int w, int maxrows, const char *text,
    enum ui_paint paint)
{
	struct buf	 line;
	const char	*p = text, *end, *brk;
	int		 rows = 0, width;

	if (w < 1)
		return (0);
	buf_init(&line);
	while (*p != '\0' && rows < maxrows) {
		buf_reset(&line);
		end = p;
		brk = NULL;
		width = 0;
		while (*end != '\0' && *end != '\n') {
			if (*end == ' ')
				brk = end;
			width += ((unsigned char)*end & 0xc0) != 0x80;
			if (width > w)
				break;
			end++;
		}
		if (*end != '\0' && *end != '\n' && brk != NULL && brk > p)
			end = brk;
		buf_add(&line, p, (size_t)(end - p));
		if (y >= 0)
			ui_draw_text(ui, y + rows, x, w, line.data != NULL ?
			    line.data : "", paint);
		rows++;
		p = end;
		if (*p == ' ' || *p == '\n')
			p++;
	}
	buf_free(&line);
	return (rows);
}

/* A blank box with a border, for questions and forms. */
void
ui_draw_box(struct ui *ui, int y, int x, int h, int w)
{
	int	 i;

	for (i = 0; i < h; i++)
		ui_draw_fill(ui, y + i, x, w, PAINT_NORMAL);
	if (h < 2 || w < 2 || y + h > ui->rows || x + w > ui->cols)
		return;
	attrset(ui_term_attr(ui, PAINT_TITLE));
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	if (y + h - 1 != ui->rows - 1 || x + w < ui->cols)
		mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
}

/* s cut to w columns into b (for building a line before drawing it). */
void
ui_draw_clip(const char *s, int w, struct buf *b)
{
	const unsigned char	*p = (const unsigned char *)s, *start;
	uint32_t		 c;
	int			 used = 0, cw;

	while (*p != '\0') {
		start = p;
		c = draw_decode(&p);
		cw = draw_char_width(1, &c);	/* the bytes are kept as they are */
		if (used + cw > w)
			break;
		buf_add(b, start, (size_t)(p - start));
		used += cw;
	}
}

/*
 * Draw one table row: each cell in its column width, a space between;
 * paints per cell (NULL: all in base).
 */
void
ui_draw_columns(struct ui *ui, int y, const int *widths, size_t n,
    const char *const *cells, const enum ui_paint *paints, enum ui_paint base)
{
	size_t	 i;
	int	 x = 0;

	for (i = 0; i < n && x < ui->cols; i++) {
		if (widths[i] <= 0)
			continue;
		if (cells[i] != NULL)
			ui_draw_text(ui, y, x, widths[i], cells[i],
			    paints != NULL && base == PAINT_NORMAL ?
			    paints[i] : base);
		x += widths[i] + 1;
	}
}

/* A step status's glyph: UTF-8 when the locale has it, ASCII otherwise. */
const char *
ui_draw_glyph(const struct ui *ui, enum step_status st)
{
	return (status_step_glyph(st, ui->utf8));
}

/* A run state's glyph, the same way. */
const char *
ui_draw_state_glyph(const struct ui *ui, enum run_state st)
{
	return (state_glyph(st, ui->utf8));
}

/* The paint of a tone (util's tables say which tone a status has). */
static enum ui_paint
draw_tone_paint(enum status_tone tone)
{
	static const enum ui_paint	 paints[] = {
		[TONE_NORMAL] = PAINT_NORMAL,
		[TONE_DIM] = PAINT_DIM,
		[TONE_OK] = PAINT_OK,
		[TONE_BAD] = PAINT_BAD,
		[TONE_WAIT] = PAINT_WAIT,
		[TONE_RUN] = PAINT_RUN,
		[TONE_LATE] = PAINT_LATE
	};

	if ((unsigned)tone >= nitems(paints))
		return (PAINT_NORMAL);
	return (paints[tone]);
}

/* The paint of a step status. */
enum ui_paint
ui_draw_status_paint(enum step_status st)
{
	return (draw_tone_paint(status_step_tone(st)));
}

/* The paint of a run state. */
enum ui_paint
ui_draw_state_paint(enum run_state st)
{
	return (draw_tone_paint(state_tone(st)));
}

/* A time for a column: "09:41:07" today, "Nov 20 09:41", "2025-11-20". */
const char *
ui_draw_when(int64_t ms, char *buf, size_t len)
{
	struct tm	 tm, now_tm;
	time_t		 t, now;

	if (ms <= 0) {
		snprintf(buf, len, "-");
		return (buf);
	}
	t = (time_t)(ms / 1000);
	now = (time_t)(time_now_ms() / 1000);
	if (localtime_r(&t, &tm) == NULL || localtime_r(&now, &now_tm) ==
	    NULL) {
		snprintf(buf, len, "@%lld", (long long)t);
		return (buf);
	}
	if (tm.tm_year == now_tm.tm_year && tm.tm_yday == now_tm.tm_yday)
		strftime(buf, len, "%H:%M:%S", &tm);
	else if (tm.tm_year == now_tm.tm_year)
		strftime(buf, len, "%b %d %H:%M", &tm);
	else
		strftime(buf, len, "%Y-%m-%d", &tm);
	return (buf);
}

/* A duration for a column: "850ms", "42s", "3m05s", "2h10m", "3d04h". */
const char *
ui_draw_duration(int64_t ms, char *buf, size_t len)
{
	int64_t	 s = ms / 1000;

	if (ms < 0)
		snprintf(buf, len, "-");
	else if (ms < 1000)
		snprintf(buf, len, "%lldms", (long long)ms);
	else if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", (long long)(s / 60),
		    (long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%lldd%02lldh", (long long)(s / 86400),
		    (long long)(s % 86400 / 3600));
	return (buf);
}
