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
 * screen.c: the frame around the views.  Line 0 is the header (database,
 * engine, counts), the last two are the footer (the keys that work here)
 * and the message line (what the last action did, as the sluice command
 * that does the same).  The frame is drawn into curses' copy of the
 * screen; curses sends the terminal only the cells that changed.
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define SCREEN_MIN_COLS	40
#define SCREEN_MIN_ROWS	8
#define SCREEN_FILE_LEAST 7	/* columns of its file's name a path shows */

static void	 screen_header(struct ui *);
static char	*screen_db_path(const struct ui *);
static void	 screen_db_fit(const struct ui *, const char *, int,
		     struct buf *);
static int	 screen_db_least(const struct ui *, const char *);
static void	 screen_footer(struct ui *);
static void	 screen_too_small(struct ui *);
static void	 screen_message(struct ui *);

/* Rows between the header and the footer. */
int
ui_screen_body_rows(const struct ui *ui)
{
	return (ui->rows - 3 > 0 ? ui->rows - 3 : 0);
}

/* Set the message line; error ones are painted as errors. */
void
ui_screen_message(struct ui *ui, int error, const char *fmt, ...)
{
	va_list	 ap;

	free(ui->message);
	ui->message = NULL;
	if (fmt != NULL) {
		va_start(ap, fmt);
		xvasprintf(&ui->message, fmt, ap);
		va_end(ap);
		if (*ui->message != '\0')
			ui_messages_add(ui, ui->message, error);
	}
	ui->message_error = error;
	ui->message_whole = error;
	ui_dirty(ui);
}

/*
 * A read failed.  A member's reads fail every second while no engine
 * answers, so the same failure is said once: it neither fills the history
 * (m) nor unfolds again over the footer.  While an action's answer is
 * awaited (lost.c), the line goes on saying that; the failure goes to the
 * history alone.
 */
void
ui_screen_read_failed(struct ui *ui, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if (ui->lost != NULL) {
		if (!ui_messages_last_is(ui, text))
			ui_messages_add(ui, text, 1);
	} else if (ui->message == NULL || !ui->message_error ||
	    strcmp(ui->message, text) != 0)
		ui_screen_message(ui, 1, "%s", text);
	free(text);
}

/*
 * The message line.  An error (a refusal says why) too long for it is
 * never cut while it is new: it wraps upwards over the footer until the
 * next key, then keeps one line (m shows every message whole).
 */
static void
screen_message(struct ui *ui)
{
	enum ui_paint	 paint;
	int		 lines, y;

	paint = ui->message_error ? PAINT_ERROR : PAINT_NORMAL;
	if (!ui->message_whole ||
	    ui_draw_width(ui->message) <= ui->cols) {
		ui_draw_text(ui, ui->rows - 1, 0, ui->cols, ui->message,
		    paint);
		return;
	}
	lines = ui_draw_wrap(ui, -1, 0, ui->cols, ui->rows / 2,
	    ui->message, paint);
	for (y = ui->rows - lines; y < ui->rows; y++)
		ui_draw_fill(ui, y, 0, ui->cols, PAINT_NORMAL);
	ui_draw_wrap(ui, ui->rows - lines, 0, ui->cols, lines, ui->message,
	    paint);
}

/*
 * The database's whole path, so two databases of the same name never look
 * alike: absolute, with the home directory as "~".
 */
static char *
screen_db_path(const struct ui *ui)
{
	const char	*home = getenv("HOME");
	char		*real, *path;
	size_t		 len;

	if ((real = realpath(store_path(ui->store), NULL)) == NULL)
		real = xstrdup(store_path(ui->store));
	len = home != NULL ? strlen(home) : 0;
	if (len > 1 && home[0] == '/' && strncmp(real, home, len) == 0 &&
	    real[len] == '/') {
		xasprintf(&path, "~%s", real + len);
		free(real);
		return (path);
	}
	return (real);
}

/*
 * Put path in at most width columns: when it is wider, cut it from the
 * left behind an ellipsis, so its end (the file and its directory) shows.
 */
static void
screen_db_fit(const struct ui *ui, const char *path, int width,
    struct buf *out)
{
	const char	*ell = ui->utf8 ? "\u2026" : "...";
	int		 ew = ui->utf8 ? 1 : 3;
	size_t		 i;

	if (ui_draw_width(path) <= width) {
		buf_puts(out, path);
		return;
	}
	for (i = 1; path[i] != '\0'; i++) {
		if (((unsigned char)path[i] & 0xc0) == 0x80)
			continue;	/* inside a UTF-8 character */
		if (ui_draw_width(path + i) + ew <= width)
			break;
	}
	if (width >= ew)
		buf_puts(out, ell);
	buf_puts(out, path + i);
}

/* The columns a cut path needs to show its file's name (or its end). */
static int
screen_db_least(const struct ui *ui, const char *path)
{
	const char	*file = strrchr(path, '/');
	int		 w;

	w = ui_draw_width(file != NULL ? file + 1 : path);
	if (w > SCREEN_FILE_LEAST)
		w = SCREEN_FILE_LEAST;
	return ((ui->utf8 ? 1 : 3) + w);
}

/*
 * "sluice PATH · VIEW  engine: ...  N running  N waiting  N failed", then
 * paused, late and scheduled runs when there are any: runs by the state
 * the Workflows view shows them in, counted by the same rule.  VIEW names
 * the page and its subject ("Versions: deploy", "Run 12 restart").  The
 * right part wins the room; the path gets what the view's name leaves,
 * as long as its file's name shows.  When it would not, a view with a
 * subject keeps its name and the path goes (with "sluice"); a top view,
 * named in its columns, gives its name up for the path.
 */
static void
screen_header(struct ui *ui)
{
	static const enum run_state	 shown[] = { STATE_RUNNING,
	    STATE_WAITING, STATE_PAUSED, STATE_LATE, STATE_FAILED,
	    STATE_SCHEDULED, STATE_QUEUED };
	struct buf	 b, right, title;
	struct view	*page = ui_view_page(ui);
	const char	*sep = ui->utf8 ? " \u00b7 " : " - ";
	char		*path;
	int64_t		 n;
	size_t		 i;
	int		 w, left, room;

	ui_draw_fill(ui, 0, 0, ui->cols, PAINT_HEADER);
	buf_init(&right);
	ui_engine_state(ui, &right);
	for (i = 0; i < nitems(shown); i++) {
		n = ui->counts.states[shown[i]];
		if (n > 0 || shown[i] == STATE_RUNNING ||
		    shown[i] == STATE_WAITING || shown[i] == STATE_FAILED)
			buf_printf(&right, "  %lld %s", (long long)n,
			    state_name(shown[i]));
	}
	w = ui_draw_width(right.data);
	if (w > ui->cols - 12)
		w = ui->cols - 12;
	left = ui->cols - w - 1;

	buf_init(&title);
	if (page != NULL)
		ui_view_name(page, &title);
	path = screen_db_path(ui);
	room = left - (int)strlen("sluice ");
	if (title.len > 0 && room - ui_draw_width(sep) -
	    ui_draw_width(title.data) >= screen_db_least(ui, path))
		room -= ui_draw_width(sep) + ui_draw_width(title.data);
	else if (page != NULL && page->ops->name == NULL)
		buf_reset(&title);
	else if (title.len > 0)
		room = 0;
	buf_init(&b);
	if (room > 0) {
		buf_puts(&b, "sluice ");
		screen_db_fit(ui, path, room, &b);
		if (title.len > 0)
			buf_puts(&b, sep);
	}
	free(path);
	if (title.len > 0)
		buf_puts(&b, title.data);
	ui_draw_text(ui, 0, 0, left, b.data, PAINT_HEADER);
	ui_draw_text(ui, 0, ui->cols - w, w, right.data,
	    ui->counts.newest_gate > ui->gates_looked ? PAINT_WAIT :
	    PAINT_HEADER);
	buf_free(&title);
	buf_free(&right);
	buf_free(&b);
}

/* The keys that work in the view on top. */
static void
screen_footer(struct ui *ui)
{
	struct buf	 b;

	buf_init(&b);
	ui_keys_footer(ui, ui->top, &b);
	ui_draw_text(ui, ui->rows - 2, 0, ui->cols, b.data != NULL ? b.data :
	    "", PAINT_DIM);
	buf_free(&b);
}

/* Below the minimum size: say so, and what the size is. */
static void
screen_too_small(struct ui *ui)
{
	erase();
	ui_draw_textf(ui, 0, 0, ui->cols, PAINT_BAD, "sluice: the terminal is "
	    "%dx%d;", ui->cols, ui->rows);
	ui_draw_textf(ui, 1, 0, ui->cols, PAINT_NORMAL, "needs %dx%d",
	    SCREEN_MIN_COLS, SCREEN_MIN_ROWS);
	ui_draw_text(ui, 2, 0, ui->cols, "q quits", PAINT_DIM);
}

/* Draw everything: header, the page and its overlays, footer, message. */
void
ui_screen_draw(struct ui *ui)
{
	struct view	*page, *v, *stack[16];
	int		 n = 0, body;

	ui->too_small = ui->cols < SCREEN_MIN_COLS || ui->rows < SCREEN_MIN_ROWS;
	if (ui->too_small) {
		screen_too_small(ui);
		return;
	}
	erase();
	screen_header(ui);
	body = ui_screen_body_rows(ui);
	page = ui_view_page(ui);
	ui->list_y = -1;	/* until a page draws rows */
	for (v = ui->top; v != NULL && n < (int)nitems(stack); v = v->below) {
		stack[n++] = v;
		if (v == page)
			break;
	}
	/* The page, the frame, then the overlays over all of them. */
	if (n == 0)
		return;
	n--;
	stack[n]->ops->draw(ui, stack[n], 1, body);
	screen_footer(ui);
	if (ui->message != NULL)
		screen_message(ui);
	while (n-- > 0)
		stack[n]->ops->draw(ui, stack[n], 1, body);
}
