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
 * then every other key with the views it works in; last, what each
 * state a run shows in means, with its glyph from the state table.
 */

#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "ui/ui-int.h"

struct help {
	struct ui_list	 list;
	unsigned int	 here;		/* the page beneath, as a view bit */
};

static void	 help_load(struct ui *, struct view *);
static void	 help_draw(struct ui *, struct view *, int, int);
static int	 help_key(struct ui *, struct view *, int);
static void	 help_free(struct view *);
static void	 help_where(unsigned int, struct buf *);

/* What each state means, as the STATES section of sluice(1) says it. */
static const char *const help_states[STATE_N] = {
	[STATE_RUNNING] = "its steps run",
	[STATE_WAITING] = "a step waits for people (a gate) or the outside",
	[STATE_PAUSED] = "held by p: no new step starts",
	[STATE_SCHEDULED] = "waits for its start time",
	[STATE_QUEUED] = "held by its concurrency key: \"behind #N\" is the "
	    "run it waits behind; c cancels it",
	[STATE_LATE] = "running past its SLA",
	[STATE_COMPLETED] = "ended: every step done",
	[STATE_FAILED] = "ended: a step failed (R retries)",
	[STATE_CANCELLED] = "ended: cancelled"
};

const struct view_ops ui_view_help = {
	.kind = VIEW_HELP,
	.title = "help",
	.load = help_load,
	.draw = help_draw,
	.key = help_key,
	.free = help_free
};

/* Count the lines: a title, the keys here, a title, the others. */
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
	}
	h->list.n = (int)ui_nkeys + 3 + STATE_N;
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

/* Line i of the help: the keys here, the keys of other views, states. */
static void
help_line(struct ui *ui, struct help *h, int i, struct buf *b,
    enum ui_paint *paint)
{
	size_t	 k;
	int	 n = 0, pass;

	*paint = PAINT_NORMAL;
	for (pass = 0; pass < 2; pass++) {
		if (i == n++) {
			buf_puts(b, pass == 0 ? "Keys here" :
			    "Keys of other views");
			*paint = PAINT_TITLE;
			return;
		}
		for (k = 0; k < ui_nkeys; k++) {
			if (((ui_keys[k].views & h->here) != 0) != (pass == 0))
				continue;
			if (i != n++)
				continue;
			buf_printf(b, "  %-11s %s", ui_keys[k].label,
			    ui_keys[k].help);
			if (pass == 1) {
				buf_puts(b, " (");
				help_where(ui_keys[k].views, b);
				buf_puts(b, ")");
			}
			return;
		}
	}
	if (i == n++) {
		buf_puts(b, "States of a run");
		*paint = PAINT_TITLE;
		return;
	}
	if (i - n >= 0 && i - n < STATE_N)
		buf_printf(b, "  %s %-10s %s", ui_draw_state_glyph(ui,
		    (enum run_state)(i - n)), state_name((enum run_state)(i - n)),
		    help_states[i - n]);
}

/* The visible lines of the help. */
static void
help_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct help	*hp = v->data;
	struct buf	 b;
	enum ui_paint	 paint;
	int		 i;

	if (hp == NULL)
		return;
	ui_list_fix(&hp->list, h);
	buf_init(&b);
	for (i = 0; i < h && hp->list.top + i < hp->list.n; i++) {
		buf_reset(&b);
		help_line(ui, hp, hp->list.top + i, &b, &paint);
		if (b.data != NULL)
			ui_draw_text(ui, y + i, 0, ui->cols, b.data, paint);
	}
	buf_free(&b);
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
	free(v->data);
}
