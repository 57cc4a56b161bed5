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
 * messages.c: every message of the session, kept so none is lost to the
 * one message line: the echoed command an operator wants in a runbook is
 * often wider than the terminal.  m (or :messages) shows them whole,
 * wrapped, newest at the bottom; Y copies the last echoed command to the
 * terminal's clipboard with OSC 52, which works over ssh and in tmux.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

/* Older messages are dropped beyond this many. */
#define MESSAGES_MAX	500

struct ui_message {
	int64_t		 at;
	int		 error;
	char		*text;
};

struct ui_messages {
	struct ui_message	*v;
	size_t			 n;
	char			*last_command;	/* the last echoed command */
};

struct messages_view {
	int		 top;		/* first message shown; -1: the end */
	int		 shown;		/* messages on screen at the last draw */
};

static void	 messages_draw(struct ui *, struct view *, int, int);
static int	 messages_key(struct ui *, struct view *, int);
static void	 messages_free(struct view *);
static void	 messages_base64(const char *, struct buf *);

const struct view_ops ui_view_messages = {
	.kind = VIEW_MESSAGES,
	.title = "Messages",
	.draw = messages_draw,
	.key = messages_key,
	.free = messages_free
};

/* Keep a message (a copy) with when it was shown. */
void
ui_messages_add(struct ui *ui, const char *text, int error)
{
	struct ui_messages	*m;

	if ((m = ui->messages) == NULL)
		m = ui->messages = xcalloc(1, sizeof *m);
	if (m->n == MESSAGES_MAX) {
		free(m->v[0].text);
		memmove(m->v, m->v + 1, (m->n - 1) * sizeof *m->v);
		m->n--;
	}
	m->v = xreallocarray(m->v, m->n + 1, sizeof *m->v);
	m->v[m->n].at = time_now_ms();
	m->v[m->n].error = error;
	m->v[m->n++].text = xstrdup(text);
}

/* Is text the newest message already? */
int
ui_messages_last_is(const struct ui *ui, const char *text)
{
	const struct ui_messages	*m = ui->messages;

	return (m != NULL && m->n > 0 &&
	    strcmp(m->v[m->n - 1].text, text) == 0);
}

/* Remember the command an action was echoed as, for Y. */
void
ui_messages_command(struct ui *ui, const char *command)
{
	struct ui_messages	*m;

	if ((m = ui->messages) == NULL)
		m = ui->messages = xcalloc(1, sizeof *m);
	free(m->last_command);
	m->last_command = xstrdup(command);
}

/* Free the history when the console ends. */
void
ui_messages_free(struct ui *ui)
{
	struct ui_messages	*m = ui->messages;
	size_t			 i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].text);
	free(m->v);
	free(m->last_command);
	free(m);
	ui->messages = NULL;
}

/* Open the history, its end in view. */
void
ui_messages_open(struct ui *ui)
{
	struct messages_view	*mv;

	mv = xcalloc(1, sizeof *mv);
	mv->top = -1;
	ui_view_push(ui, &ui_view_messages, mv);
}

/*
 * The messages from the top one down, each wrapped whole under its time;
 * with top -1, as many of the newest as fit.
 */
static void
messages_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct messages_view	*mv = v->data;
	struct ui_messages	*m = ui->messages;
	char			 when[32], *line;
	int			 i, lines, used, first;

	if (m == NULL || m->n == 0) {
		ui_draw_text(ui, y + 1, 2, ui->cols - 4, "No messages yet.",
		    PAINT_DIM);
		return;
	}
	first = mv->top;
	if (first < 0) {
		/* From the end back, as many as fit. */
		for (first = (int)m->n, used = 0; first > 0; first--) {
			xasprintf(&line, "%s  %s", ui_draw_when(
			    m->v[first - 1].at, when, sizeof when),
			    m->v[first - 1].text);
			lines = ui_draw_wrap(ui, -1, 0, ui->cols, h, line,
			    PAINT_NORMAL);
			free(line);
			if (used + lines > h)
				break;
			used += lines;
		}
	}
	mv->shown = 0;
	for (i = first, used = 0; i < (int)m->n && used < h; i++) {
		xasprintf(&line, "%s  %s", ui_draw_when(m->v[i].at, when,
		    sizeof when), m->v[i].text);
		used += ui_draw_wrap(ui, y + used, 0, ui->cols, h - used, line,
		    m->v[i].error ? PAINT_ERROR : PAINT_NORMAL);
		free(line);
		mv->shown++;
	}
	mv->top = first;
}

/* Scroll a message at a time; g and G to the first and the newest. */
static int
messages_key(struct ui *ui, struct view *v, int key)
{
	struct messages_view	*mv = v->data;
	int			 n = ui->messages != NULL ?
				    (int)ui->messages->n : 0;

	switch (key) {
	case 'j':
	case KEY_FN(KEY_DOWN):
		if (mv->top + mv->shown < n)
			mv->top++;
		break;
	case 'k':
	case KEY_FN(KEY_UP):
		if (mv->top > 0)
			mv->top--;
		break;
	case 'g':
	case KEY_FN(KEY_HOME):
		mv->top = 0;
		break;
	case 'G':
	case KEY_FN(KEY_END):
		mv->top = -1;
		break;
	default:
		return (0);
	}
	ui_dirty(ui);
	return (1);
}

/* Free the view (the history stays with the console). */
static void
messages_free(struct view *v)
{
	free(v->data);
}

/* Standard base64 (RFC 4648) of a string, for OSC 52. */
static void
messages_base64(const char *s, struct buf *b)
{
	static const char	 abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 len = strlen(s), i;
	unsigned int		 v;

	for (i = 0; i + 2 < len; i += 3) {
		v = p[i] << 16 | p[i + 1] << 8 | p[i + 2];
		buf_putc(b, abc[v >> 18 & 63]);
		buf_putc(b, abc[v >> 12 & 63]);
		buf_putc(b, abc[v >> 6 & 63]);
		buf_putc(b, abc[v & 63]);
	}
	if (len - i == 1) {
		v = p[i] << 16;
		buf_putc(b, abc[v >> 18 & 63]);
		buf_putc(b, abc[v >> 12 & 63]);
		buf_puts(b, "==");
	} else if (len - i == 2) {
		v = p[i] << 16 | p[i + 1] << 8;
		buf_putc(b, abc[v >> 18 & 63]);
		buf_putc(b, abc[v >> 12 & 63]);
		buf_putc(b, abc[v >> 6 & 63]);
		buf_putc(b, '=');
	}
}

/*
 * Y: put the last echoed command on the clipboard of the operator's
 * terminal with OSC 52 (the terminal, or tmux with set-clipboard, takes
 * it; over ssh it reaches the desk the operator sits at).
 */
void
ui_messages_copy(struct ui *ui)
{
	struct ui_messages	*m = ui->messages;
	struct buf		 b;

	if (m == NULL || m->last_command == NULL) {
		ui_screen_message(ui, 1, "no command to copy yet: actions "
		    "echo theirs on this line");
		return;
	}
	buf_init(&b);
	buf_puts(&b, "\033]52;c;");
	messages_base64(m->last_command, &b);
	buf_puts(&b, "\a");
	fflush(stdout);
	if (write(STDOUT_FILENO, b.data, b.len) != (ssize_t)b.len)
		ui_screen_message(ui, 1, "could not write to the terminal");
	else
		ui_screen_message(ui, 0, "copied to the clipboard (OSC 52): %s",
		    m->last_command);
	buf_free(&b);
}
