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
 * run-row.c: the run view's step rows.  Each shown row is its label (the
 * tree's rails, a status glyph and the name), then tool, attempt,
 * duration and a one-line result; the columns are fitted to the width,
 * dropping the tool, the attempt and then the result when it is narrow.
 * The timeline (timeline.c) draws the same labels.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

#define RUN_TOOK_W	6	/* "3m05s", "12d04h" */
#define RUN_TRY_W	3	/* "#12" */
#define RUN_TOOL_MAX	16
#define RUN_RESULT_MIN	10	/* narrower, no result column */
#define RUN_LEVEL_W	3	/* columns per level of the tree */

static enum step_status run_shown_status(const struct tree *,
		     const struct tree_row *);
static const char *run_glyph(const struct ui *, const struct tree *,
		     const struct tree_row *);
static int	 run_prefix(struct ui *, int, int, const struct tree_row *,
		     enum ui_paint);
static int	 run_counts(struct ui *, int, int, int,
		     const struct tree_fanout *, int);
static int	 run_result_x(const struct run_cols *);
static const char *run_after(const struct tree *, const struct tree_row *,
		     char *, size_t);
static const char *run_took(const struct store_step *, int64_t, char *,
		     size_t);
static enum ui_paint run_result(const struct store_step *, struct buf *);
static enum ui_paint run_foreach_text(const struct tree_foreach *,
		     struct buf *);

/* The widest label and tool, whether any row retried, whether any moves. */
void
ui_run_widths(struct run *r)
{
	const struct tree_row	*tr;
	char			 text[128];
	int			 i, w;

	r->name_w = 8;
	r->tool_w = 4;
	r->tries = 0;
	r->live = r->wf->status == RUN_RUNNING ||
	    r->wf->status == RUN_SCHEDULED;
	for (i = 0; i < r->list.n; i++) {
		tr = &r->tree->rows[r->vis[i]];
		if (tr->kind == TREE_FANOUT)
			continue;
		w = tr->depth * RUN_LEVEL_W + 2 + ui_draw_width(
		    ui_run_label_text(r->tree, tr, text, sizeof text));
		if (run_after(r->tree, tr, text, sizeof text) != NULL)
			w += ui_draw_width(text);
		if (w > r->name_w)
			r->name_w = w;
		if (tr->kind != TREE_STEP && tr->kind != TREE_JOIN)
			continue;
		if (tr->row->tool != NULL &&
		    (w = ui_draw_width(tr->row->tool)) > r->tool_w)
			r->tool_w = w;
		if (tr->row->attempt > 1)
			r->tries = 1;
		if (tr->status == STEP_RUNNING || tr->status == STEP_WAITING)
			r->live = 1;
	}
}

/* The words of a row's label (not its prefix or glyph). */
const char *
ui_run_label_text(const struct tree *t, const struct tree_row *tr, char *buf,
    size_t len)
{
	const struct tree_fanout	*fo;

	switch (tr->kind) {
	case TREE_STEP:
	case TREE_JOIN:
		if (tr->item && tr->row->label != NULL)
			return (tr->row->label);
		if (flow_handler_title(tr->row->step_key, tr->row->name, buf,
		    len) != NULL)
			return (buf);
		return (tr->row->name != NULL ? tr->row->name :
		    tr->row->step_key != NULL ? tr->row->step_key : "?");
	case TREE_NOT_REACHED:
		return (t->flow != NULL && tr->spec >= 0 ?
		    t->flow->steps[tr->spec].name : "?");
	case TREE_BRANCH:
		fo = &t->fanouts[tr->fanout];
		snprintf(buf, len, "branch %d of %d", tr->branch_no + 1,
		    fo->nbranches);
		return (buf);
	case TREE_FANOUT:
		fo = &t->fanouts[tr->fanout];
		snprintf(buf, len, "%d branches", fo->nbranches);
		return (buf);
	}
	return ("");
}

/*
 * " after a, b" beside a step of the DAG form with several dependencies:
 * the tree lists each step once, in the order its rows were made, so
 * this says what it waited for.  NULL for any other row.
 */
static const char *
run_after(const struct tree *t, const struct tree_row *tr, char *buf,
    size_t len)
{
	char	*names;

	if ((tr->kind != TREE_STEP && tr->kind != TREE_NOT_REACHED) ||
	    tr->item || t->flow == NULL || tr->spec < 0 ||
	    (size_t)tr->spec >= t->flow->nsteps ||
	    t->flow->steps[tr->spec].ndeps < 2)
		return (NULL);
	names = flow_dag_after(t->flow, tr->spec);
	snprintf(buf, len, "  after %s", names);
	free(names);
	return (buf);
}

/*
 * The status a row shows: its own, but a for-each whose gate waits and
 * none of whose items runs is waiting, as its run is, not running.
 */
static enum step_status
run_shown_status(const struct tree *t, const struct tree_row *tr)
{
	const struct tree_foreach	*fe;

	if (tr->foreach < 0 || tr->item || tr->status != STEP_RUNNING)
		return (tr->status);
	fe = &t->foreachs[tr->foreach];
	if (fe->gate_waits && fe->tally.running == 0)
		return (STEP_WAITING);
	return (tr->status);
}

/* A row's glyph: its status's; not reached shows as skipped. */
static const char *
run_glyph(const struct ui *ui, const struct tree *t,
    const struct tree_row *tr)
{
	if (tr->kind == TREE_NOT_REACHED)
		return (ui_draw_glyph(ui, STEP_SKIPPED));
	return (ui_draw_glyph(ui, run_shown_status(t, tr)));
}

/*
 * The tree's rails and corner in front of a row ("│  ├─ "), up to w
 * columns.  Returns the columns used.
 */
static int
run_prefix(struct ui *ui, int y, int w, const struct tree_row *tr,
    enum ui_paint paint)
{
	struct buf	 b;
	int		 k, used, levels = tr->depth;

	if (tr->depth == 0 || w <= 0)
		return (0);
	if (levels > w / RUN_LEVEL_W + 1)
		levels = w / RUN_LEVEL_W + 1;
	buf_init(&b);
	for (k = 1; k < levels; k++) {
		if (k < 64 && (tr->rails >> k) & 1)
			buf_puts(&b, ui->utf8 ? "\u2502  " : "|  ");
		else
			buf_puts(&b, "   ");
	}
	if (levels == tr->depth) {
		if (tr->last)
			buf_puts(&b, ui->utf8 ? "\u2514\u2500 " : "\\- ");
		else
			buf_puts(&b, ui->utf8 ? "\u251c\u2500 " : "|- ");
	}
	used = ui_draw_text(ui, y, 0, w, b.data, paint);
	buf_free(&b);
	return (used);
}

/* A fan-out's counts by status ("✓ 100  ▶ 3  ✗ 2"), from column x. */
static int
run_counts(struct ui *ui, int y, int x, int w, const struct tree_fanout *fo,
    int sel)
{
	static const enum step_status	 order[] = { STEP_DONE,
	    STEP_RUNNING, STEP_WAITING, STEP_FAILED, STEP_READY, STEP_PENDING,
	    STEP_CANCELLED, STEP_SKIPPED };
	size_t				 i;
	int				 start = x;

	for (i = 0; i < nitems(order); i++) {
		if (fo->counts[order[i]] == 0)
			continue;
		x += ui_draw_textf(ui, y, x, w - (x - start), sel ?
		    PAINT_SELECT : ui_draw_status_paint(order[i]), "  %s %d",
		    ui_draw_glyph(ui, order[i]), fo->counts[order[i]]);
	}
	return (x - start);
}

/*
 * Draw a row's label in the first w columns of line y: rails, glyph,
 * name (a fan-out's counts run on past w).  Returns the columns used.
 */
int
ui_run_label(struct ui *ui, int y, int w, const struct tree *t,
    const struct tree_row *tr, int sel)
{
	const struct tree_fanout	*fo;
	enum ui_paint			 paint;
	char				 text[128];
	int				 x;

	x = run_prefix(ui, y, w, tr, sel ? PAINT_SELECT : PAINT_DIM);
	if (tr->kind == TREE_FANOUT) {
		fo = &t->fanouts[tr->fanout];
		x += ui_draw_textf(ui, y, x, ui->cols - x, sel ? PAINT_SELECT :
		    PAINT_TITLE, "%s %s", fo->expanded ? (ui->utf8 ?
		    "\u25be" : "-") : (ui->utf8 ? "\u25b8" : "+"),
		    ui_run_label_text(t, tr, text, sizeof text));
		x += run_counts(ui, y, x, ui->cols - x, fo, sel);
		x += ui_draw_text(ui, y, x, ui->cols - x, fo->expanded ?
		    "   (Enter collapses)" : "   (Enter expands)",
		    sel ? PAINT_SELECT : PAINT_DIM);
		return (x);
	}
	paint = tr->kind == TREE_NOT_REACHED ? PAINT_DIM :
	    ui_draw_status_paint(run_shown_status(t, tr));
	x += ui_draw_text(ui, y, x, w - x, run_glyph(ui, t, tr),
	    sel ? PAINT_SELECT : paint);
	x += ui_draw_text(ui, y, x, w - x, " ", sel ? PAINT_SELECT :
	    PAINT_NORMAL);
	paint = tr->kind == TREE_NOT_REACHED ? PAINT_DIM :
	    tr->kind == TREE_BRANCH ? PAINT_TITLE : PAINT_NORMAL;
	x += ui_draw_text(ui, y, x, w - x, ui_run_label_text(t, tr, text,
	    sizeof text), sel ? PAINT_SELECT : paint);
	if (run_after(t, tr, text, sizeof text) != NULL && w - x > 0)
		x += ui_draw_text(ui, y, x, w - x, text, sel ? PAINT_SELECT :
		    PAINT_DIM);
	return (x);
}

/* Where the result column starts: after every other and its gap. */
static int
run_result_x(const struct run_cols *c)
{
	return (c->name + 1 + (c->tool > 0 ? c->tool + 1 : 0) +
	    (c->try > 0 ? c->try + 1 : 0) + c->took + 1);
}

/*
 * Fit the columns to the width: the result takes what is left; when too
 * little is, the tool goes, then the attempt, then the result itself
 * (its room going to the names).
 */
void
ui_run_fit(const struct run *r, int cols, struct run_cols *c)
{
	int	 cap = cols * 2 / 5 > 16 ? cols * 2 / 5 : 16;

	c->took = RUN_TOOK_W;
	c->try = r->tries ? RUN_TRY_W : 0;
	c->tool = r->tool_w < RUN_TOOL_MAX ? r->tool_w : RUN_TOOL_MAX;
	c->name = r->name_w < cap ? r->name_w : cap;
	c->result = cols - run_result_x(c);
	if (c->result < RUN_RESULT_MIN) {
		c->tool = 0;
		c->result = cols - run_result_x(c);
	}
	if (c->result < RUN_RESULT_MIN) {
		c->try = 0;
		c->result = cols - run_result_x(c);
	}
	if (c->result < RUN_RESULT_MIN) {
		c->result = 0;
		c->name += cols - run_result_x(c) + 1;
	}
	if (c->name < 1)
		c->name = 1;
}

/* The column titles. */
void
ui_run_title(struct ui *ui, const struct run_cols *c, int y)
{
	int	 x = 0;

	ui_draw_text(ui, y, x, c->name, "STEP", PAINT_TITLE);
	x += c->name + 1;
	if (c->tool > 0) {
		ui_draw_text(ui, y, x, c->tool, "TOOL", PAINT_TITLE);
		x += c->tool + 1;
	}
	if (c->try > 0) {
		ui_draw_text(ui, y, x, c->try, "TRY", PAINT_TITLE);
		x += c->try + 1;
	}
	ui_draw_textf(ui, y, x, c->took, PAINT_TITLE, "%*s", c->took, "TOOK");
	x += c->took + 1;
	if (c->result > 0)
		ui_draw_text(ui, y, x, c->result, "RESULT", PAINT_TITLE);
}

/* How long a row ran (runs, or has waited, for live ones); "" unknown. */
static const char *
run_took(const struct store_step *s, int64_t now, char *buf, size_t len)
{
	enum step_status	 st = s->status;
	int64_t			 from = s->started_at, to = s->completed_at;

	if (st == STEP_WAITING || st == STEP_RUNNING)
		to = now;
	if (st == STEP_WAITING || s->tool == NULL)
		from = s->created_at;	/* a gate: since it began to wait */
	if (from <= 0 || to <= 0 || to < from) {
		snprintf(buf, len, "%s", "");
		return (buf);
	}
	return (ui_draw_duration(to - from, buf, len));
}

/*
 * Text as one line: up to its first newline; a JSON string is decoded
 * first.  At most a screen's worth, cut at a character.
 */
void
ui_run_oneline(const char *text, struct buf *b)
{
	cJSON		*j = NULL;
	const char	*p = text, *end;
	size_t		 n;

	if (*p == '"' && (j = json_parse_or_null(text)) != NULL &&
	    cJSON_IsString(j))
		p = j->valuestring;
	for (end = p; *end != '\0' && *end != '\n' && *end != '\r' &&
	    end - p < 1024; end++)
		;
	n = (size_t)(end - p);
	while (n > 0 && *end != '\0' && *end != '\n' && *end != '\r' &&
	    ((unsigned char)p[n] & 0xc0) == 0x80)
		n--;
	buf_add(b, p, n);
	if (b->data == NULL)
		buf_puts(b, "");
	cJSON_Delete(j);
}

/* A row's one-line result, error or state, and its paint. */
static enum ui_paint
run_result(const struct store_step *s, struct buf *b)
{
	struct flow_policy	 p;
	char			*why, *unreadable;

	switch (s->status) {
	case STEP_FAILED:
		ui_run_oneline(s->error != NULL ? s->error : "failed", b);
		return (PAINT_BAD);
	case STEP_CANCELLED:
	case STEP_SKIPPED:
		ui_run_oneline(s->error != NULL ? s->error : "", b);
		return (PAINT_DIM);
	case STEP_WAITING:
		/* A wait step is finished from outside, not approved. */
		buf_puts(b, s->kind == KIND_WAIT ?
		    "awaiting completion from outside" : "awaiting approval");
		if (flow_policy_read(s->gate_json, s->kind == KIND_WAIT ?
		    KIND_WAIT : KIND_GATE, &p, &why) != 0) {
			unreadable = flow_policy_unreadable(why);
			buf_printf(b, ": %s", unreadable);
			free(unreadable);
			free(why);
		} else if (p.message != NULL && *p.message != '\0') {
			buf_puts(b, ": ");
			ui_run_oneline(p.message, b);
		}
		flow_policy_free(&p);
		return (PAINT_WAIT);
	case STEP_PENDING:
		buf_puts(b, s->attempt > 1 ? "waiting to retry" : "");
		return (PAINT_DIM);
	case STEP_QUEUED:
		/* Held by its concurrency key: behind which step row. */
		if (s->behind != 0)
			buf_printf(b, "behind #%lld", (long long)s->behind);
		return (PAINT_DIM);
	case STEP_RUNNING:
		/* A sub-workflow step stands for its child run. */
		if (s->child_id != 0) {
			buf_printf(b, "child run #%lld (Enter opens it)",
			    (long long)s->child_id);
			return (PAINT_DIM);
		}
		/* What the step last said of its progress: "40% copying". */
		if (s->progress_pct >= 0)
			buf_printf(b, "%d%%", s->progress_pct);
		if (s->progress_text != NULL) {
			buf_puts(b, b->len > 0 ? " " : "");
			ui_run_oneline(s->progress_text, b);
		}
		return (PAINT_NORMAL);
	case STEP_DONE:
		if (s->result_json != NULL && strcmp(s->result_json, "null"))
			ui_run_oneline(s->result_json, b);
		if (s->error != NULL) {
			buf_puts(b, b->len > 0 ? ": " : "");
			ui_run_oneline(s->error, b);
		}
		return (PAINT_NORMAL);
	default:
		return (PAINT_NORMAL);
	}
}

/*
 * A for-each row's result column: "batch 2/3; 1 of 1 failures; 6 done,
 * 2 running, 1 failed, 11 waiting (Enter expands)": the budget first, it
 * matters most when the column is cut.
 */
static enum ui_paint
run_foreach_text(const struct tree_foreach *fe, struct buf *b)
{
	const struct flow_foreach_tally	*t = &fe->tally;
	const char			*sep = "; ";

	if (t->nbatches > 1)
		buf_printf(b, "batch %d/%d; ", t->batch, t->nbatches);
	else
		buf_printf(b, "%d item%s; ", t->n, t->n == 1 ? "" : "s");
	buf_printf(b, "%d of %d failures", t->failed, t->budget);
#define RUN_COUNT(v, word) do {						\
	if ((v) > 0) {							\
		buf_printf(b, "%s%d %s", sep, (v), (word));		\
		sep = ", ";						\
	}								\
} while (0)
	RUN_COUNT(t->done, "done");
	RUN_COUNT(t->running, "running");
	RUN_COUNT(t->failed, "failed");
	RUN_COUNT(t->waiting, "waiting");
	RUN_COUNT(t->cancelled, "cancelled");
#undef RUN_COUNT
	buf_puts(b, fe->expanded ? " (Enter collapses)" : " (Enter expands)");
	return (t->failed > t->budget ? PAINT_ERROR : t->failed > 0 ?
	    PAINT_WAIT : PAINT_NORMAL);
}

/* One shown row: label, then tool, attempt, duration and result. */
void
ui_run_row(struct ui *ui, const struct run *r, int y, int i,
    const struct run_cols *c)
{
	const struct tree_row	*tr = &r->tree->rows[r->vis[i]];
	const struct store_step	*s = tr->row;
	struct buf		 b;
	enum ui_paint		 paint;
	char			 took[16];
	int			 sel = i == r->list.sel, x = c->name + 1;

	if (sel)
		ui_draw_fill(ui, y, 0, ui->cols, PAINT_SELECT);
	ui_run_label(ui, y, c->name, r->tree, tr, sel);
	if (tr->kind == TREE_NOT_REACHED && c->result > 0)
		ui_draw_text(ui, y, run_result_x(c), c->result, "not reached",
		    sel ? PAINT_SELECT : PAINT_DIM);
	if (tr->kind != TREE_STEP && tr->kind != TREE_JOIN)
		return;
	if (c->tool > 0) {
		ui_draw_text(ui, y, x, c->tool, s->tool != NULL ? s->tool :
		    "gate", sel ? PAINT_SELECT : PAINT_DIM);
		x += c->tool + 1;
	}
	if (c->try > 0) {
		if (s->attempt > 1)
			ui_draw_textf(ui, y, x, c->try, sel ? PAINT_SELECT :
			    PAINT_WAIT, "#%d", s->attempt);
		x += c->try + 1;
	}
	ui_draw_textf(ui, y, x, c->took, sel ? PAINT_SELECT : tr->status ==
	    STEP_RUNNING ? PAINT_RUN : PAINT_NORMAL, "%*s", c->took,
	    run_took(s, time_now_ms(), took, sizeof took));
	if (c->result <= 0)
		return;
	buf_init(&b);
	if (tr->foreach >= 0)
		paint = run_foreach_text(&r->tree->foreachs[tr->foreach], &b);
	else
		paint = run_result(s, &b);
	ui_draw_text(ui, y, run_result_x(c), c->result, b.data != NULL ?
	    b.data : "", sel ? PAINT_SELECT : paint);
	buf_free(&b);
}
