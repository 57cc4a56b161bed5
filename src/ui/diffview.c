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
 * diffview.c: a unified diff between two versions of a template, as a
 * page that scrolls: what "sluice template diff" prints, with removed
 * lines painted as failures and added ones as successes.  Opened from the
 * Versions view and from a gate whose run came from a changed template.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

struct diffview {
	struct ui_list	 list;		/* the cursor is the top line */
	char		*text;		/* the diff, escaped for the screen */
	char		**lines;	/* into text */
	char		*name;		/* "deploy v3..v5", for the header */
};

static void	 diffview_load(struct ui *, struct view *);
static void	 diffview_draw(struct ui *, struct view *, int, int);
static int	 diffview_key(struct ui *, struct view *, int);
static void	 diffview_free(struct view *);
static void	 diffview_name(struct view *, struct buf *);

const struct view_ops ui_view_diff = {
	.kind = VIEW_DIFF,
	.title = "Diff",
	.load = diffview_load,
	.draw = diffview_draw,
	.key = diffview_key,
	.free = diffview_free,
	.name = diffview_name
};

/* "Diff: deploy v3..v5". */
static void
diffview_name(struct view *v, struct buf *b)
{
	struct diffview	*d = v->data;

	buf_printf(b, "Diff: %s", d->name);
}

/* Nothing to read again: a saved version never changes. */
static void
diffview_load(struct ui *ui, struct view *v)
{
	struct diffview	*d = v->data;

	ui_list_fix(&d->list, ui_screen_body_rows(ui));
}

/*
 * Open the diff of template name from version v1 to v2 (0: the latest);
 * says so on the message line instead when they are the same.
 */
void
ui_diffview_open(struct ui *ui, const char *name, int64_t v1, int64_t v2)
{
	struct store_template	*t1 = NULL, *t2 = NULL;
	struct diffview		*d;
	struct buf		 words, echo;
	char			*cause, *diff, *l1, *l2, *p;
	char			 when[32];
	size_t			 n;
	int			 pretty;

	if (store_template_get_any(ui->store, name, v1, &t1, &cause) != 0 ||
	    store_template_get_any(ui->store, name, v2, &t2, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		store_template_free(t1);
		return;
	}
	xasprintf(&l1, "%s v%lld (saved %s by %s)", name,
	    (long long)t1->version, ui_draw_when(t1->updated_at, when,
	    sizeof when), t1->updated_by != NULL ? t1->updated_by : "-");
	xasprintf(&l2, "%s v%lld (saved %s by %s)", name,
	    (long long)t2->version, ui_draw_when(t2->updated_at, when,
	    sizeof when), t2->updated_by != NULL ? t2->updated_by : "-");
	/* On the screen readability wins: one-line documents pretty. */
	pretty = diff_documents_reformat(t1->document, t2->document, 1);
	diff = diff_documents(t1->document, t2->document, l1, l2, pretty);
	if (diff == NULL) {
		ui_screen_message(ui, 0, "versions %lld and %lld of %s are the "
		    "same", (long long)t1->version, (long long)t2->version,
		    name);
	} else {
		d = xcalloc(1, sizeof *d);
		xasprintf(&d->name, "%s v%lld..v%lld", name,
		    (long long)t1->version, (long long)t2->version);
		d->text = vis_str(diff, VIS_NL);
		for (n = 1, p = d->text; *p != '\0'; p++)
			n += *p == '\n';
		d->lines = xcalloc(n + 1, sizeof *d->lines);
		for (p = d->text; *p != '\0'; ) {
			d->lines[d->list.n++] = p;
			if ((p = strchr(p, '\n')) == NULL)
				break;
			*p++ = '\0';
		}
		ui_view_push(ui, &ui_view_diff, d);
		buf_init(&words);
		buf_puts(&words, "template diff ");
		ui_action_quote(&words, name);
		buf_printf(&words, " %lld %lld%s", (long long)t1->version,
		    (long long)t2->version, pretty ? " --pretty" : "");
		buf_init(&echo);
		ui_action_echo(ui, &echo, words.data);
		ui_screen_message(ui, 0, "%s", echo.data);
		buf_free(&echo);
		buf_free(&words);
	}
	free(diff);
	free(l1);
	free(l2);
	store_template_free(t1);
	store_template_free(t2);
}

/* The visible lines, painted by their mark. */
static void
diffview_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct diffview	*d = v->data;
	const char	*line;
	enum ui_paint	 paint;
	int		 i;

	ui_list_fix(&d->list, h);
	for (i = 0; i < h && d->list.top + i < d->list.n; i++) {
		line = d->lines[d->list.top + i];
		if (d->list.top + i < 2)
			paint = PAINT_TITLE;
		else if (line[0] == '@')
			paint = PAINT_DIM;
		else if (line[0] == '+')
			paint = PAINT_OK;
		else if (line[0] == '-')
			paint = PAINT_BAD;
		else
			paint = PAINT_NORMAL;
		ui_draw_text(ui, y + i, 0, ui->cols, line, paint);
	}
}

/* Scroll: the cursor is the top line. */
static int
diffview_key(struct ui *ui, struct view *v, int key)
{
	struct diffview	*d = v->data;

	if (!ui_list_key(&d->list, key))
		return (0);
	d->list.top = d->list.sel;
	if (d->list.top > d->list.n - d->list.height)
		d->list.top = d->list.sel = d->list.n - d->list.height;
	if (d->list.top < 0)
		d->list.top = d->list.sel = 0;
	ui_dirty(ui);
	return (1);
}

/* Free the diff. */
static void
diffview_free(struct view *v)
{
	struct diffview	*d = v->data;

	free(d->lines);
	free(d->text);
	free(d->name);
	free(d);
}
