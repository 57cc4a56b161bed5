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
 * prompt.c: a line of input in the message line, or a question in a box,
 * as overlays on the view stack.  Neither reads keys itself: the loop
 * hands them keys like any view, so the engine goes on while one is open.
 * The callback gets the text (or the answer's letter), or NULL when the
 * user backed out; the view is off the stack before it is called.  A
 * line may also be live (told of each change as it is typed, for the
 * filter) and may complete on Tab from a list its owner gives, each
 * further Tab (BTab: back) putting the next in, as a shell does.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"
#include "ui/curses-lib.h"

#define PROMPT_MAX	4096	/* bytes of input */

struct prompt {
	char		*label;
	struct buf	 text;
	const char	*answers;	/* a question: the letters it takes */
	prompt_cb	 cb;
	void		*arg;
	void		 (*free)(void *);
	prompt_cb	 change;	/* live: each edit */
	prompt_complete_cb complete;	/* Tab's choices for a line */
	char		**cands;	/* while Tab cycles: the choices */
	size_t		 ncands;
	size_t		 cand;		/* the one in the line */
};

static void	 prompt_draw(struct ui *, struct view *, int, int);
static int	 prompt_key(struct ui *, struct view *, int);
static void	 prompt_free(struct view *);
static void	 prompt_finish(struct ui *, struct view *, const char *);
static void	 prompt_footer_cands(struct prompt *, struct buf *);

const struct view_ops ui_view_prompt = {
	.kind = VIEW_PROMPT,
	.title = "prompt",
	.overlay = 1,
	.draw = prompt_draw,
	.key = prompt_key,
	.free = prompt_free
};

/* Ask for a line of text, starting from initial (may be NULL). */
void
ui_prompt_open(struct ui *ui, const char *label, const char *initial, int flags,
    prompt_cb cb, void *arg, void (*freecb)(void *))
{
	struct prompt	*p;

	(void)flags;
	p = xcalloc(1, sizeof *p);
	p->label = xstrdup(label);
	buf_init(&p->text);
	if (initial != NULL)
		buf_puts(&p->text, initial);
	p->cb = cb;
	p->arg = arg;
	p->free = freecb;
	ui_view_push(ui, &ui_view_prompt, p);
}

/* The prompt just opened (on top). */
static struct prompt *
prompt_top(struct ui *ui)
{
	if (ui->top == NULL || ui->top->ops != &ui_view_prompt)
		fatalx("%s: no prompt on top", __func__);
	return (ui->top->data);
}

/* The prompt on top: told of each edit (a live filter). */
void
ui_prompt_live(struct ui *ui, prompt_cb change)
{
	prompt_top(ui)->change = change;
}

/* The prompt on top: Tab completes from what complete gives. */
void
ui_prompt_completion(struct ui *ui, prompt_complete_cb complete)
{
	prompt_top(ui)->complete = complete;
}

/* Stop cycling through Tab's choices. */
static void
prompt_cands_free(struct prompt *p)
{
	size_t	 i;

	for (i = 0; i < p->ncands; i++)
		free(p->cands[i]);
	free(p->cands);
	p->cands = NULL;
	p->ncands = p->cand = 0;
}

/*
 * Tab (dir 1) or BTab (-1): the first choice for the line, then each
 * next one in turn; a single choice is put in with a space after it, so
 * the next Tab completes the word after it.
 */
static void
prompt_tab(struct ui *ui, struct prompt *p, int dir)
{
	if (p->cands == NULL) {
		p->cands = p->complete(ui, p->text.data != NULL ?
		    p->text.data : "", &p->ncands);
		if (p->ncands == 0) {
			prompt_cands_free(p);
			ui_term_bell(ui);
			return;
		}
		p->cand = dir > 0 ? 0 : p->ncands - 1;
	} else
		p->cand = (p->cand + p->ncands + (size_t)dir) % p->ncands;
	buf_reset(&p->text);
	buf_puts(&p->text, p->cands[p->cand]);
	if (p->ncands == 1) {
		buf_putc(&p->text, ' ');
		prompt_cands_free(p);
	}
}

/* Ask a question answered by one of the letters in answers. */
void
ui_confirm_open(struct ui *ui, const char *question, const char *answers,
    prompt_cb cb, void *arg, void (*freecb)(void *))
{
	struct prompt	*p;

	p = xcalloc(1, sizeof *p);
	p->label = xstrdup(question);
	buf_init(&p->text);
	p->answers = answers;
	p->cb = cb;
	p->arg = arg;
	p->free = freecb;
	ui_view_push(ui, &ui_view_prompt, p);
}

/* Free the prompt and what its caller left with it. */
static void
prompt_free(struct view *v)
{
	struct prompt	*p = v->data;

	if (p->free != NULL)
		p->free(p->arg);
	free(p->label);
	buf_free(&p->text);
	prompt_cands_free(p);
	free(p);
}

/* Take the prompt off the stack, then tell the caller. */
static void
prompt_finish(struct ui *ui, struct view *v, const char *text)
{
	struct prompt	*p = v->data;
	prompt_cb	 cb = p->cb;
	void		*arg = p->arg;
	void		(*freecb)(void *) = p->free;
	char		*copy = text != NULL ? xstrdup(text) : NULL;

	p->free = NULL;		/* the callback still needs arg */
	ui_view_pop(ui);
	cb(ui, copy, arg);
	if (freecb != NULL)
		freecb(arg);
	free(copy);
}

/* Remove the last character (whole UTF-8 sequence), or the last word. */
void
ui_prompt_rubout(struct buf *b, int word)
{
	while (b->len > 0 && word && b->data[b->len - 1] == ' ')
		b->len--;
	while (b->len > 0) {
		b->len--;
		if (word) {
			if (b->len > 0 && b->data[b->len - 1] == ' ')
				break;
			continue;
		}
		if (((unsigned char)b->data[b->len] & 0xc0) != 0x80)
			break;
	}
	if (b->data != NULL)
		b->data[b->len] = '\0';
}

/*
 * Add a typed character to a line: as UTF-8, or in a non-UTF-8 locale as
 * the byte the terminal sent (so text is stored as typed).
 */
void
ui_prompt_append(struct ui *ui, struct buf *b, int key)
{
	char	 utf8[8];
	char	 c;

	if (!ui->utf8 && key >= 0x80 && key <= 0xff) {
		c = (char)key;
		buf_add(b, &c, 1);
		return;
	}
	buf_add(b, utf8, (size_t)ui_utf8_encode((uint32_t)key, utf8));
}

/* Every key goes here while a prompt is open. */
static int
prompt_key(struct ui *ui, struct view *v, int key)
{
	struct prompt	*p = v->data;
	char		 ans[2];

	if (p->answers != NULL) {
		if (key < 0x80 && key > 0 && strchr(p->answers, key) != NULL) {
			ans[0] = (char)key;
			ans[1] = '\0';
			prompt_finish(ui, v, ans);
		} else
			prompt_finish(ui, v, NULL);
		return (1);
	}
	if (p->complete != NULL && (key == '\t' || key == KEY_FN(KEY_BTAB))) {
		prompt_tab(ui, p, key == '\t' ? 1 : -1);
		ui_dirty(ui);
		return (1);
	}
	prompt_cands_free(p);
	switch (key) {
	case K_ENTER:
		prompt_finish(ui, v, p->text.data != NULL ? p->text.data : "");
		return (1);
	case K_ESC:
	case K_CTRL('C'):
	case K_CTRL('G'):
		prompt_finish(ui, v, NULL);
		return (1);
	case K_BS:
		ui_prompt_rubout(&p->text, 0);
		break;
	case K_CTRL('W'):
		ui_prompt_rubout(&p->text, 1);
		break;
	case K_CTRL('U'):
		buf_reset(&p->text);
		break;
	default:
		if (key < 0x20 || key >= KEY_FN(0) || key == 0x7f ||
		    p->text.len >= PROMPT_MAX)
			return (1);
		ui_prompt_append(ui, &p->text, key);
		break;
	}
	if (p->change != NULL)
		p->change(ui, p->text.data != NULL ? p->text.data : "",
		    p->arg);
	ui_dirty(ui);
	return (1);
}

/* A line: the label, the text (its end if too long), a cursor block. */
static void
prompt_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct prompt	*p = v->data;
	const char	*text = p->text.data != NULL ? p->text.data : "", *ask;
	char		*target;
	int		 x, room, w, bw, by, bx, lines;

	if (p->answers != NULL) {
		bw = ui->cols - 4 < 72 ? ui->cols - 4 : 72;
		lines = ui_draw_wrap(ui, -1, 0, bw - 4, h, p->label,
		    PAINT_NORMAL);
		by = y + (h - lines - 2) / 2;
		bx = (ui->cols - bw) / 2;
		if (by < y)
			by = y;
		ui_draw_box(ui, by, bx, lines + 2, bw);
		ui_draw_wrap(ui, by + 1, bx + 2, bw - 4, lines, p->label,
		    PAINT_NORMAL);
		return;
	}
	y = ui->rows - 1;
	ui_draw_fill(ui, y, 0, ui->cols, PAINT_NORMAL);
	ask = strstr(p->label, " - ");
	if (ask != NULL && ui_draw_width(p->label) > ui->cols - 16 &&
	    ui->rows >= 8) {
		/*
		 * A label too long for the line ("approve workflow 6 ...,
		 * step ... - comment:"): what it acts on wraps whole above
		 * the footer, never cut, and the line keeps what it asks.
		 */
		target = xstrndup(p->label, (size_t)(ask - p->label));
		lines = ui_draw_wrap(ui, -1, 0, ui->cols, ui->rows / 3,
		    target, PAINT_TITLE);
		for (by = ui->rows - 2 - lines; by < ui->rows - 2; by++)
			ui_draw_fill(ui, by, 0, ui->cols, PAINT_NORMAL);
		ui_draw_wrap(ui, ui->rows - 2 - lines, 0, ui->cols, lines,
		    target, PAINT_TITLE);
		free(target);
		x = ui_draw_text(ui, y, 0, ui->cols - 16, ask + 3,
		    PAINT_TITLE);
	} else
		x = ui_draw_text(ui, y, 0, ui->cols - 16, p->label,
		    PAINT_TITLE);
	room = ui->cols - x - 2;
	w = ui_draw_width(text);
	while (w > room && *text != '\0') {
		text++;
		while ((*text & 0xc0) == 0x80)
			text++;
		w = ui_draw_width(text);
	}
	x += ui_draw_text(ui, y, x, room, text, PAINT_NORMAL);
	ui_draw_fill(ui, y, x, 1, PAINT_SELECT);
}

/* The footer while Tab cycles: every choice, the one in the line marked. */
static void
prompt_footer_cands(struct prompt *p, struct buf *b)
{
	const char	*word;
	size_t		 i;

	buf_puts(b, "Tab/BTab:");
	for (i = 0; i < p->ncands; i++) {
		word = strrchr(p->cands[i], ' ');
		word = word != NULL ? word + 1 : p->cands[i];
		buf_printf(b, i == p->cand ? " [%s]" : " %s", word);
	}
}

/*
 * The footer while a prompt is open, true to what its keys do: a line
 * takes Enter; a question takes its answers, and any other key is no.
 */
void
ui_prompt_footer(struct view *v, struct buf *b)
{
	struct prompt	*p = v->data;
	const char	*a;

	if (p->answers == NULL && p->ncands > 1) {
		prompt_footer_cands(p, b);
		return;
	}
	if (p->answers == NULL) {
		buf_puts(b, p->change != NULL ? "as you type, the view "
		    "narrows  Enter keep  Esc clear" : p->complete != NULL ?
		    "Enter accept  Tab complete  Esc cancel" :
		    "Enter accept  Esc cancel");
		return;
	}
	if (strcmp(p->answers, "yn") == 0) {
		buf_puts(b, "y yes  n, Esc or any other key: no");
		return;
	}
	for (a = p->answers; *a != '\0'; a++) {
		if (*a == '\r')
			buf_puts(b, "Enter");
		else
			buf_printf(b, "%s%c", a > p->answers &&
			    a[-1] != '\r' ? " " : a > p->answers ? "/" : "", *a);
	}
	buf_puts(b, ": as the question says  any other key: no");
}
