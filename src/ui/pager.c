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
 * pager.c: the log pager, a step's output as lines with the time each
 * began and its stream (stderr and sluice's own notes marked apart).
 * Chunks are read once, by id after the last one seen, so following a
 * running step costs only what it printed since; lines are cut at the
 * window's edge and scroll sideways; "/" searches (the view's filter is
 * the term), n and N go from match to match.
 */

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define PAGER_READ	1000		/* chunks per read */
#define PAGER_LINE_MAX	(16 * 1024)	/* then a line is broken */
#define PAGER_TAB	8

struct pager {
	int64_t		 step_id;
	int64_t		 workflow_id;
	int64_t		 after;		/* the last chunk read */
	char		*name;
	enum step_status status;
	int		 known;		/* the step was read */
	int64_t		 log_bytes;
	struct log_lines lines;
	int		 top;		/* first line on screen */
	int		 height;	/* lines on screen (the last draw) */
	int		 hscroll;	/* columns scrolled sideways */
	int		 widest;	/* the widest line's columns */
	int		 follow;	/* keep the end on screen */
	char		*search;	/* the term the hits are for */
	int		*hits;		/* lines with a match, in order */
	size_t		 nhits;
	size_t		 hitsize;
	size_t		 scanned;	/* lines searched (closed ones) */
	int		 hit;		/* the current one, -1 none */
	int		 pending;	/* no match yet: jump to the first */
};

static void	 pager_load(struct ui *, struct view *);
static void	 pager_draw(struct ui *, struct view *, int, int);
static int	 pager_key(struct ui *, struct view *, int);
static void	 pager_free(struct view *);
static void	 pager_line_close(struct log_line *);
static void	 pager_clean(const char *, struct buf *);
static struct log_line *pager_line_new(struct log_lines *, int64_t, char);
static int	 pager_read(struct ui *, struct pager *);
static void	 pager_search(struct ui *, struct view *, struct pager *);
static void	 pager_scan(struct pager *);
static const char *pager_find(const char *, const char *);
static void	 pager_jump(struct ui *, struct pager *, int);
static void	 pager_title(struct ui *, struct pager *, int);
static void	 pager_line(struct ui *, struct pager *, int, int);
static void	 pager_text(struct ui *, struct pager *, int, int, int,
		     const struct log_line *, enum ui_paint);
static int	 pager_move(struct ui *, struct pager *, int);
static void	 pager_name(struct view *, struct buf *);

const struct view_ops ui_view_log = {
	.kind = VIEW_LOG,
	.title = "Log",
	.load = pager_load,
	.draw = pager_draw,
	.key = pager_key,
	.free = pager_free,
	.name = pager_name
};

/* "Log of step 44 restart". */
static void
pager_name(struct view *v, struct buf *b)
{
	struct pager	*p = v->data;

	buf_printf(b, "Log of step %lld", (long long)p->step_id);
	if (p->name != NULL)
		buf_printf(b, " %s", p->name);
}

/* l: a step's log. */
void
ui_pager_open(struct ui *ui, int64_t step)
{
	struct pager	*p;

	p = xcalloc(1, sizeof *p);
	p->step_id = step;
	p->hit = -1;
	p->follow = -1;		/* decided when the step is first read */
	ui_view_push(ui, &ui_view_log, p);
}

/* The mark in front of a line of a stream, and its paint. */
const char *
ui_pager_stream_mark(const struct ui *ui, char stream, enum ui_paint *paint)
{
	switch (stream) {
	case 'e':
		*paint = PAINT_BAD;
		return (ui->utf8 ? "\u2503" : "!");
	case 's':
	case 'c':
		*paint = PAINT_LATE;
		return (ui->utf8 ? "\u00bb" : "#");
	default:
		*paint = PAINT_DIM;
		return (ui->utf8 ? "\u2502" : "|");
	}
}

/*
 * A line as shown: escape sequences gone, a carriage return starts the
 * line over (progress bars), tabs to the next stop, the newline dropped.
 */
static void
pager_clean(const char *s, struct buf *b)
{
	size_t	 col = 0;

	buf_reset(b);
	for (; *s != '\0'; s++) {
		if (*s == '\033') {
			if (s[1] == '[') {
				s += 2;
				while (*s != '\0' && (*s < 0x40 || *s > 0x7e))
					s++;
			} else if (s[1] != '\0')
				s++;
			if (*s == '\0')
				break;
			continue;
		}
		if (*s == '\r') {
			if (s[1] != '\n' && s[1] != '\0') {
				buf_reset(b);
				col = 0;
			}
			continue;
		}
		if (*s == '\n')
			continue;
		if (*s == '\t') {
			do
				buf_putc(b, ' ');
			while (++col % PAGER_TAB != 0);
			continue;
		}
		buf_putc(b, *s);
		if (((unsigned char)*s & 0xc0) != 0x80)
			col++;
	}
	if (b->data == NULL)
		buf_puts(b, "");
}

/* A line is complete: keep only its shown text. */
static void
pager_line_close(struct log_line *l)
{
	l->open = 0;
	free(l->raw);
	l->raw = NULL;
}

/* A new, open line at the end. */
static struct log_line *
pager_line_new(struct log_lines *ls, int64_t at, char stream)
{
	struct log_line	*l;

	if (ls->n == ls->size) {
		ls->size = ls->size == 0 ? 256 : ls->size * 2;
		ls->v = xreallocarray(ls->v, ls->size, sizeof *ls->v);
	}
	l = &ls->v[ls->n++];
	memset(l, 0, sizeof *l);
	l->at = at;
	l->stream = stream;
	l->open = 1;
	l->raw = xstrdup("");
	l->text = xstrdup("");
	return (l);
}

/*
 * Add chunks to the lines: a chunk carries on the open last line when it
 * is of the same stream, else starts its own; each newline closes one.
 */
void
ui_pager_lines_add(struct log_lines *ls, const struct store_log *c, size_t n)
{
	struct log_line	*l;
	struct buf	 b;
	const char	*p, *nl;
	char		 stream;
	size_t		 i, j, len, had, left;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		stream = c[i].stream[0] != '\0' ? c[i].stream[0] : 'o';
		if (stream == 's' && strncmp(c[i].data, "[sluice: output cut",
		    19) == 0) {
			stream = 'c';
			ls->cut = 1;
		}
		l = ls->n > 0 ? &ls->v[ls->n - 1] : NULL;
		if (l != NULL && l->open && l->stream != stream)
			pager_line_close(l);
		for (p = c[i].data; p < c[i].data + c[i].len; p += len) {
			l = ls->n > 0 ? &ls->v[ls->n - 1] : NULL;
			if (l == NULL || !l->open)
				l = pager_line_new(ls, c[i].at, stream);
			left = c[i].len - (size_t)(p - c[i].data);
			nl = memchr(p, '\n', left);
			len = nl != NULL ? (size_t)(nl - p) + 1 : left;
			had = strlen(l->raw);
			l->raw = xrealloc(l->raw, had + len + 1);
			memcpy(l->raw + had, p, len);
			l->raw[had + len] = '\0';
			for (j = had; j < had + len; j++) {
				if (l->raw[j] == '\0')
					l->raw[j] = '?';	/* binary */
			}
			pager_clean(l->raw, &b);
			free(l->text);
			l->text = buf_release(&b);
			if (nl != NULL || had + len > PAGER_LINE_MAX)
				pager_line_close(l);
		}
	}
	buf_free(&b);
}

/* Free the lines. */
void
ui_pager_lines_free(struct log_lines *ls)
{
	size_t	 i;

	for (i = 0; i < ls->n; i++) {
		free(ls->v[i].raw);
		free(ls->v[i].text);
	}
	free(ls->v);
	memset(ls, 0, sizeof *ls);
}

/* Read the step's row and the chunks after the last one read. */
static int
pager_read(struct ui *ui, struct pager *p)
{
	struct store_step	*s;
	struct store_log	*c;
	size_t			 n;
	char			*cause = NULL;
	size_t			 before = p->lines.n, i;
	int			 w;

	if (store_step_get(ui->store, p->step_id, &s, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return (-1);
	}
	free(p->name);
	p->name = xstrdup(s->name);
	p->status = s->status;
	p->known = 1;
	p->workflow_id = s->workflow_id;
	p->log_bytes = s->log_bytes;
	store_step_free(s);
	do {
		if (store_log_read(ui->store, p->step_id, p->after, PAGER_READ,
		    &c, &n, &cause) != 0) {
			ui_screen_message(ui, 1, "%s", cause);
			free(cause);
			return (-1);
		}
		ui_pager_lines_add(&p->lines, c, n);
		if (n > 0)
			p->after = c[n - 1].id;
		store_logs_free(c, n);
	} while (n == PAGER_READ);
	for (i = before > 0 ? before - 1 : 0; i < p->lines.n; i++) {
		if ((w = ui_draw_width(p->lines.v[i].text)) > p->widest)
			p->widest = w;
	}
	return (p->lines.n != before);
}

/* The database changed (or the search did): read what is new. */
static void
pager_load(struct ui *ui, struct view *v)
{
	struct pager	*p = v->data;
	int		 height = p->height > 0 ? p->height :
			     ui_screen_body_rows(ui) - 1;

	if (pager_read(ui, p) < 0)
		return;
	if (p->follow == -1)
		p->follow = p->status == STEP_RUNNING;
	pager_search(ui, v, p);
	if (p->follow && (int)p->lines.n > height)
		p->top = (int)p->lines.n - height;
}

/* Where term is in s, ignoring case unless term has capitals. */
static const char *
pager_find(const char *s, const char *term)
{
	const char	*t;

	for (t = term; *t != '\0'; t++) {
		if (*t >= 'A' && *t <= 'Z')
			return (strstr(s, term));
	}
	return (strcasestr(s, term));
}

/* Search the lines not searched yet (an open last line again later). */
static void
pager_scan(struct pager *p)
{
	size_t	 i;

	while (p->nhits > 0 && (size_t)p->hits[p->nhits - 1] >= p->scanned)
		p->nhits--;
	for (i = p->scanned; i < p->lines.n; i++) {
		if (pager_find(p->lines.v[i].text, p->search) == NULL)
			continue;
		if (p->nhits == p->hitsize) {
			p->hitsize = p->hitsize == 0 ? 64 : p->hitsize * 2;
			p->hits = xreallocarray(p->hits, p->hitsize,
			    sizeof *p->hits);
		}
		p->hits[p->nhits++] = (int)i;
	}
	p->scanned = p->lines.n;
	if (p->lines.n > 0 && p->lines.v[p->lines.n - 1].open)
		p->scanned--;
	if (p->hit >= (int)p->nhits)
		p->hit = (int)p->nhits - 1;
}

/*
 * Keep the hits for the view's filter: a new term is searched from the
 * start and the first match at or below the top is brought into view.
 */
static void
pager_search(struct ui *ui, struct view *v, struct pager *p)
{
	size_t	 i;

	if (v->filter == NULL || p->search == NULL ||
	    strcmp(v->filter, p->search) != 0) {
		free(p->search);
		p->search = v->filter != NULL ? xstrdup(v->filter) : NULL;
		p->nhits = 0;
		p->scanned = 0;
		p->hit = -1;
		p->pending = p->search != NULL;
	}
	if (p->search == NULL)
		return;
	pager_scan(p);
	if (!p->pending)
		return;
	if (p->nhits == 0) {
		ui_screen_message(ui, 1, "search: no line has \"%s\"%s",
		    p->search, p->status == STEP_RUNNING ? " yet" : "");
		return;
	}
	/* The first match at or below the top (a live log: when it comes). */
	p->pending = 0;
	p->follow = 0;
	for (i = 0; i < p->nhits && p->hits[i] < p->top; i++)
		;
	pager_jump(ui, p, i < p->nhits ? (int)i : 0);
}

/* Make hit i the current one and put its line on screen. */
static void
pager_jump(struct ui *ui, struct pager *p, int i)
{
	int	 line, height = p->height > 0 ? p->height :
		     ui_screen_body_rows(ui) - 1;

	p->hit = i;
	line = p->hits[i];
	if (line < p->top || line >= p->top + height)
		p->top = line - height / 3;
	if (p->top > (int)p->lines.n - height)
		p->top = (int)p->lines.n - height;
	if (p->top < 0)
		p->top = 0;
	ui_screen_message(ui, 0, "search: %s (n next, N previous, Esc clears)",
	    p->search);
	ui_dirty(ui);
}

/* The pager's first row: the step, where we are, following or not. */
static void
pager_title(struct ui *ui, struct pager *p, int y)
{
	struct buf	 l, r;
	int		 last, w;

	buf_init(&l);
	buf_init(&r);
	buf_printf(&l, "%s %s  step %lld  %s", ui_draw_glyph(ui, p->status),
	    p->name, (long long)p->step_id, status_step_name(p->status));
	if (p->follow)
		buf_puts(&l, "  following (f stops)");
	else if (p->status == STEP_RUNNING)
		buf_puts(&l, "  (f follows)");
	last = p->top + p->height;
	if (last > (int)p->lines.n)
		last = (int)p->lines.n;
	if (p->search != NULL)
		buf_printf(&r, "/%s %d/%zu  ", p->search, p->hit + 1,
		    p->nhits);
	if (p->hscroll > 0)
		buf_printf(&r, "col %d  ", p->hscroll + 1);
	if (p->lines.n == 0)
		buf_puts(&r, "empty");
	else
		buf_printf(&r, "%d-%d of %zu", p->top + 1, last, p->lines.n);
	w = ui_draw_width(r.data);
	ui_draw_text(ui, y, 0, ui->cols - w - 2, l.data, PAINT_TITLE);
	ui_draw_text(ui, y, ui->cols - w, w, r.data, PAINT_DIM);
	buf_free(&l);
	buf_free(&r);
}

/*
 * The visible part of a line's text from column x, matches of the search
 * painted over (the current one apart).
 */
static void
pager_text(struct ui *ui, struct pager *p, int y, int x, int i,
    const struct log_line *l, enum ui_paint paint)
{
	struct buf	 b;
	const char	*s, *m;
	size_t		 tl;
	int		 cur, used;

	buf_init(&b);
	ui_draw_clip(l->text, p->hscroll, &b);
	s = l->text + b.len;
	if (*s != '\0' && ui_draw_width(b.data != NULL ? b.data : "") <
	    p->hscroll) {
		/* A wide character across the edge: skip all of it. */
		s++;
		while (((unsigned char)*s & 0xc0) == 0x80)
			s++;
	}
	cur = p->hit >= 0 && p->hits[p->hit] == i;
	tl = p->search != NULL ? strlen(p->search) : 0;
	while (*s != '\0' && x < ui->cols) {
		m = tl > 0 ? pager_find(s, p->search) : NULL;
		buf_reset(&b);
		buf_add(&b, s, m != NULL ? (size_t)(m - s) : strlen(s));
		buf_putc(&b, '\0');
		used = ui_draw_text(ui, y, x, ui->cols - x, b.data, paint);
		x += used;
		if (m == NULL)
			break;
		buf_reset(&b);
		buf_add(&b, m, tl);
		buf_putc(&b, '\0');
		x += ui_draw_text(ui, y, x, ui->cols - x, b.data, cur ?
		    PAINT_HEADER : PAINT_SELECT);
		s = m + tl;
	}
	buf_free(&b);
}

/* Line i at row y: its time, its stream's mark, its text. */
static void
pager_line(struct ui *ui, struct pager *p, int y, int i)
{
	const struct log_line	*l = &p->lines.v[i];
	const char		*mark;
	enum ui_paint		 paint, text;
	struct tm		 tm;
	time_t			 t;
	char			 when[16];
	int			 x = 0;

	mark = ui_pager_stream_mark(ui, l->stream, &paint);
	if (l->stream == 'c') {
		ui_draw_fill(ui, y, 0, ui->cols, PAINT_NORMAL);
		ui_draw_textf(ui, y, 0, ui->cols, PAINT_LATE, "%s output cut "
		    "here: a step keeps at most 1 MiB of log %s", ui->utf8 ?
		    "\u2500\u2500\u2500\u2500" : "----", ui->utf8 ?
		    "\u2500\u2500\u2500\u2500" : "----");
		return;
	}
	if (ui->cols >= 60) {
		t = (time_t)(l->at / 1000);
		if (localtime_r(&t, &tm) != NULL &&
		    strftime(when, sizeof when, "%H:%M:%S", &tm) > 0)
			x += ui_draw_text(ui, y, x, 9, when, PAINT_DIM) + 1;
	}
	x += ui_draw_text(ui, y, x, 1, mark, paint) + 1;
	text = l->stream == 'e' ? PAINT_WAIT : l->stream == 's' ?
	    PAINT_LATE : PAINT_NORMAL;
	pager_text(ui, p, y, x, i, l, text);
}

/* The title row, then the lines from the top. */
static void
pager_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct pager	*p = v->data;
	int		 i;

	if (p->name == NULL)
		return;
	p->height = h - 1 > 1 ? h - 1 : 1;
	if (p->follow && (int)p->lines.n > p->height)
		p->top = (int)p->lines.n - p->height;
	if (p->top > (int)p->lines.n - p->height)
		p->top = (int)p->lines.n - p->height;
	if (p->top < 0)
		p->top = 0;
	pager_title(ui, p, y);
	if (p->lines.n == 0) {
		ui_draw_text(ui, y + 2, 2, ui->cols - 4, p->status == STEP_RUNNING || p->status == STEP_READY ?
		    "No output yet." : "This step wrote no output.",
		    PAINT_DIM);
		return;
	}
	for (i = 0; i < p->height && p->top + i < (int)p->lines.n; i++)
		pager_line(ui, p, y + 1 + i, p->top + i);
}

/* Scrolling keys; going up stops following.  1 if it was one. */
static int
pager_move(struct ui *ui, struct pager *p, int key)
{
	int	 page = p->height > 1 ? p->height - 1 : 1;
	int	 last = (int)p->lines.n - p->height;

	switch (key) {
	case 'j':
	case KEY_FN(KEY_DOWN):
		p->top++;
		break;
	case 'k':
	case KEY_FN(KEY_UP):
		p->top--;
		p->follow = 0;
		break;
	case KEY_FN(KEY_NPAGE):
	case K_CTRL('F'):
	case ' ':
		p->top += page;
		break;
	case KEY_FN(KEY_PPAGE):
	case K_CTRL('B'):
		p->top -= page;
		p->follow = 0;
		break;
	case 'g':
	case KEY_FN(KEY_HOME):
		p->top = 0;
		p->follow = 0;
		break;
	case 'G':
	case KEY_FN(KEY_END):
		p->top = last;
		break;
	case '<':
	case KEY_FN(KEY_LEFT):
		p->hscroll -= key == '<' ? ui->cols / 2 : 8;
		break;
	case '>':
	case KEY_FN(KEY_RIGHT):
		p->hscroll += key == '>' ? ui->cols / 2 : 8;
		break;
	default:
		return (0);
	}
	if (p->top > last)
		p->top = last;
	if (p->top < 0)
		p->top = 0;
	if (p->hscroll > p->widest - ui->cols / 4)
		p->hscroll = p->widest - ui->cols / 4;
	if (p->hscroll < 0)
		p->hscroll = 0;
	ui_dirty(ui);
	return (1);
}

/* Moving, sideways too; n and N; F (from f) follows the end or stops. */
static int
pager_key(struct ui *ui, struct view *v, int key)
{
	struct pager	*p = v->data;
	int		 i, wrapped;

	if (!p->known)		/* the step could not be read */
		return (0);
	if (pager_move(ui, p, key))
		return (1);
	if (key == 'F') {
		p->follow = !p->follow;
		if (p->follow && p->status != STEP_RUNNING)
			ui_screen_message(ui, 0, "the step is %s: no more "
			    "output will come", status_step_name(p->status));
		ui_dirty(ui);
		return (1);
	}
	if (key != 'n' && key != 'N')
		return (0);
	if (p->search == NULL) {
		ui_screen_message(ui, 1, "no search yet: / searches");
		return (1);
	}
	if (p->nhits == 0) {
		ui_screen_message(ui, 1, "search: no line has \"%s\" yet",
		    p->search);
		return (1);
	}
	p->follow = 0;
	if (p->hit < 0)
		i = 0;
	else if (key == 'n')
		i = (p->hit + 1) % (int)p->nhits;
	else
		i = (p->hit + (int)p->nhits - 1) % (int)p->nhits;
	wrapped = p->hit >= 0 && (key == 'n' ? i < p->hit : i > p->hit);
	pager_jump(ui, p, i);
	if (wrapped)
		ui_screen_message(ui, 0, "search: %s: %s", p->search, key ==
		    'n' ? "past the last match, back to the first" : "before "
		    "the first match, on to the last");
	return (1);
}

/* Free the pager. */
static void
pager_free(struct view *v)
{
	struct pager	*p = v->data;

	ui_pager_lines_free(&p->lines);
	free(p->name);
	free(p->search);
	free(p->hits);
	free(p);
}
