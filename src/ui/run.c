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
 * run.c: the run view, one workflow: a header block (what ran, who
 * started it, when, its input and why it failed), then its step rows
 * laid out as the flow's graph (tree.c), each with a status glyph, tool,
 * attempt, duration and a one-line result; t shows the same rows as a
 * timeline (timeline.c).  The rows are read in load when the database
 * changed; the cursor stays on the same row across reads, or with f
 * follows the step that is running (else failed, else waiting).
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
#define RUN_LOAD_SHARE	5	/* wait 5 reads' time for the next */

/* Which row the cursor is on, to find it again after a read. */
struct run_mark {
	enum tree_kind	 kind;
	int64_t		 id;		/* a step row's */
	int64_t		 fanout_id;
	int		 branch_no;
	int		 spec;
	int		 index;
};

/*
 * A run view: the workflow, its rows and their layout; the expanded
 * fan-outs and the flow are kept across reads.
 */
struct run {
	int64_t			 id;
	int64_t			 want;	/* run_open's step, until shown */
	struct store_workflow	*wf;
	struct flow		*flow;
	struct store_step	*steps;
	size_t			 nsteps;
	struct tree		*tree;
	int			*vis;	/* tree rows shown (a filter) */
	struct ui_list		 list;
	int64_t			*open;	/* large fan-outs expanded */
	size_t			 nopen;
	int			 timeline;
	int			 follow;
	int			 live;	/* durations move */
	int			 name_w;	/* widest label */
	int			 tool_w;
	int			 tries;	/* some row has attempt > 1 */
	char			*error;	/* reading failed */
	int64_t			 next_load;	/* reads wait till */
	int			 force;	/* read now (a key asked) */
	const char		*filter;	/* the view's, as last laid out */
	struct tree_tally	*tallies;	/* closed for-eachs, counted */
	size_t			 ntallies;
	int			 reread;	/* f opened a for-each: read again */
};

/* Where the columns go at this width (0: dropped). */
struct run_cols {
	int	 name, tool, try, took, result;
};

static void	 run_load(struct ui *, struct view *);
static void	 run_draw(struct ui *, struct view *, int, int);
static int	 run_key(struct ui *, struct view *, int);
static void	 run_free(struct view *);
static int	 run_tick(struct ui *, struct view *);
static void	 run_clear(struct run *);
static int	 run_read(struct ui *, struct run *);
static void	 run_layout(struct run *, const char *);
static int	 run_match(const struct run *, const struct tree_row *,
		     const char *);
static void	 run_widths(struct run *);
static void	 run_mark_get(const struct run *, struct run_mark *);
static int	 run_mark_find(const struct run *, const struct run_mark *);
static int	 run_reveal(struct run *, int64_t);
static int	 run_vis_of(const struct run *, int);
static int	 run_follow_pick(const struct run *);
static void	 run_place(struct run *, const struct run_mark *);
static const char *run_label_text(const struct tree *,
		     const struct tree_row *, char *, size_t);
static const char *run_glyph(const struct ui *, const struct tree_row *);
static int	 run_prefix(struct ui *, int, int, const struct tree_row *,
		     enum ui_paint);
static int	 run_counts(struct ui *, int, int, int,
		     const struct tree_fanout *, int);
static int	 run_header(struct ui *, const struct run *, int, int);
static void	 run_header_first(struct ui *, const struct run *, int);
static void	 run_header_times(struct ui *, const struct run *, int);
static int	 run_result_x(const struct run_cols *);
static void	 run_fit(const struct run *, int, struct run_cols *);
static void	 run_title(struct ui *, const struct run_cols *, int);
static void	 run_row(struct ui *, const struct run *, int, int,
		     const struct run_cols *);
static const char *run_took(const struct store_step *, int64_t, char *,
		     size_t);
static enum ui_paint run_result(const struct store_step *, struct buf *);
static void	 run_oneline(const char *, struct buf *);
static void	 run_toggle_open(struct run *, int64_t);
static enum ui_paint run_foreach_text(const struct tree_foreach *,
		     struct buf *);
static int	 run_foreach_open(struct run *, int);
static void	 run_open_json(const struct run *, struct buf *);
static int	 run_tallies(struct ui *, struct run *);
static void	 run_toggle_foreach(struct run *, const struct store_step *);

const struct view_ops view_run = {
	.kind = VIEW_RUN,
	.title = "Run",
	.load = run_load,
	.draw = run_draw,
	.key = run_key,
	.free = run_free,
	.tick = run_tick
};

/* Open a workflow's run view, the cursor on one of its steps if given. */
void
run_open(struct ui *ui, int64_t workflow_id, int64_t step_id)
{
	struct run	*r;

	r = xcalloc(1, sizeof *r);
	r->id = workflow_id;
	r->want = step_id;
	view_push(ui, &view_run, r);
}

/* Forget what was read (the expanded fan-outs and the flow stay). */
static void
run_clear(struct run *r)
{
	tree_free(r->tree);
	r->tree = NULL;
	free(r->vis);
	r->vis = NULL;
	r->list.n = 0;
	store_steps_free(r->steps, r->nsteps);
	r->steps = NULL;
	r->nsteps = 0;
	free(r->tallies);
	r->tallies = NULL;
	r->ntallies = 0;
	store_workflow_free(r->wf);
	r->wf = NULL;
	free(r->error);
	r->error = NULL;
}

/* Read the workflow and its rows (the flow is parsed once). */
static int
run_read(struct ui *ui, struct run *r)
{
	struct flow_diags	*d;
	struct buf		 open;
	char			*cause = NULL;
	int			 rc;

	if (store_workflow_get(ui->store, r->id, &r->wf, &cause) != 0) {
		r->error = cause;
		return (-1);
	}
	run_open_json(r, &open);
	rc = store_step_list_view(ui->store, r->id, open.data, &r->steps,
	    &r->nsteps, &cause);
	buf_free(&open);
	if (rc != 0) {
		r->error = cause;
		return (-1);
	}
	if (r->flow == NULL && r->wf->flow_json != NULL) {
		d = flow_diags_create();
		r->flow = flow_parse(r->wf->flow_json,
		    strlen(r->wf->flow_json), d);
		flow_diags_free(d);
	}
	return (run_tallies(ui, r));
}

/* The opened rows as a JSON array of ids, for the rows' read. */
static void
run_open_json(const struct run *r, struct buf *b)
{
	size_t	 i;

	buf_init(b);
	buf_putc(b, '[');
	for (i = 0; i < r->nopen; i++)
		buf_printf(b, "%s%lld", i > 0 ? "," : "", (long long)r->open[i]);
	buf_putc(b, ']');
}

/*
 * A closed for-each's items were not read: the store counts them (one
 * tally per for-each, by its first row).
 */
static int
run_tallies(struct ui *ui, struct run *r)
{
	struct tree_tally	*t;
	char			*cause = NULL;
	int64_t			 root;
	size_t			 i, k;

	for (i = 0; i < r->nsteps; i++) {
		if (r->steps[i].items <= 0)
			continue;
		root = r->steps[i].item_of != 0 ? r->steps[i].item_of :
		    r->steps[i].id;
		for (k = 0; k < r->nopen && r->open[k] != root; k++)
			;
		if (k < r->nopen)
			continue;	/* open: its items were read */
		for (k = 0; k < r->ntallies && r->tallies[k].root != root; k++)
			;
		if (k < r->ntallies)
			continue;
		r->tallies = xreallocarray(r->tallies, r->ntallies + 1,
		    sizeof *r->tallies);
		t = &r->tallies[r->ntallies++];
		t->root = root;
		if (store_items_tally(ui->store, root, &t->counts,
		    &cause) != 0) {
			r->error = cause;
			return (-1);
		}
	}
	return (0);
}

/* Does a row match the filter (its label, tool or status)? */
static int
run_match(const struct run *r, const struct tree_row *tr, const char *filter)
{
	char	 text[128];

	if (filter == NULL)
		return (1);
	if (strcasestr(run_label_text(r->tree, tr, text, sizeof text),
	    filter) != NULL)
		return (1);
	if (strcasestr(status_step_name(tr->status), filter) != NULL)
		return (1);
	return (tr->row != NULL && tr->row->tool != NULL &&
	    (tr->kind == TREE_STEP || tr->kind == TREE_JOIN) &&
	    strcasestr(tr->row->tool, filter) != NULL);
}

/* Lay the rows out and pick the ones the filter shows. */
static void
run_layout(struct run *r, const char *filter)
{
	struct tree_input	 in;
	size_t			 i;

	r->filter = filter;
	memset(&in, 0, sizeof in);
	in.flow = r->flow;
	in.steps = r->steps;
	in.nsteps = r->nsteps;
	in.ended = status_run_ended(r->wf->status);
	in.expanded = r->open;
	in.nexpanded = r->nopen;
	in.tallies = r->tallies;
	in.ntallies = r->ntallies;
	tree_free(r->tree);
	r->tree = tree_build(&in);
	free(r->vis);
	r->vis = xcalloc(r->tree->n + 1, sizeof *r->vis);
	r->list.n = 0;
	for (i = 0; i < r->tree->n; i++) {
		if (run_match(r, &r->tree->rows[i], filter))
			r->vis[r->list.n++] = (int)i;
	}
	run_widths(r);
}

/* The widest label and tool, whether any row retried, whether any moves. */
static void
run_widths(struct run *r)
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
		w = tr->depth * RUN_LEVEL_W + 2 +
		    draw_width(run_label_text(r->tree, tr, text, sizeof text));
		if (w > r->name_w)
			r->name_w = w;
		if (tr->kind != TREE_STEP && tr->kind != TREE_JOIN)
			continue;
		if (tr->row->tool != NULL &&
		    (w = draw_width(tr->row->tool)) > r->tool_w)
			r->tool_w = w;
		if (tr->row->attempt > 1)
			r->tries = 1;
		if (tr->status == STEP_RUNNING || tr->status == STEP_WAITING)
			r->live = 1;
	}
}

/* Remember the row under the cursor. */
static void
run_mark_get(const struct run *r, struct run_mark *m)
{
	const struct tree_row	*tr;

	memset(m, 0, sizeof *m);
	m->index = r->list.sel;
	m->spec = -1;
	m->kind = TREE_STEP;
	if (r->tree == NULL || r->list.n == 0)
		return;
	tr = &r->tree->rows[r->vis[r->list.sel]];
	m->kind = tr->kind;
	m->id = tr->row != NULL ? tr->row->id : 0;
	m->fanout_id = tr->fanout_id;
	m->branch_no = tr->branch_no;
	m->spec = tr->spec;
}

/* The shown row a mark was on, or -1. */
static int
run_mark_find(const struct run *r, const struct run_mark *m)
{
	const struct tree_row	*tr;
	int			 i;

	for (i = 0; i < r->list.n; i++) {
		tr = &r->tree->rows[r->vis[i]];
		if (tr->kind != m->kind &&
		    !(tr->kind == TREE_JOIN && m->kind == TREE_STEP) &&
		    !(tr->kind == TREE_STEP && m->kind == TREE_JOIN))
			continue;
		switch (tr->kind) {
		case TREE_STEP:
		case TREE_JOIN:
			if (tr->row->id == m->id)
				return (i);
			break;
		case TREE_NOT_REACHED:
			if (tr->spec == m->spec)
				return (i);
			break;
		case TREE_BRANCH:
		case TREE_FANOUT:
			if (tr->fanout_id == m->fanout_id &&
			    tr->branch_no == m->branch_no)
				return (i);
			break;
		}
	}
	return (-1);
}

/*
 * Open the large fan-outs a step row is inside, so it can be shown;
 * 1 if one more was opened.
 */
static int
run_reveal(struct run *r, int64_t id)
{
	size_t	 i, k, depth = 0;
	int	 opened = 0;

	while (id != 0 && depth++ < r->nsteps) {
		for (i = 0; i < r->nsteps && r->steps[i].id != id; i++)
			;
		if (i == r->nsteps)
			break;
		id = r->steps[i].fanout_id;
		for (k = 0; id != 0 && k < r->nopen && r->open[k] != id; k++)
			;
		if (id != 0 && k == r->nopen) {
			run_toggle_open(r, id);
			opened = 1;
		}
	}
	return (opened);
}

/* The shown position of a tree row, or -1. */
static int
run_vis_of(const struct run *r, int row)
{
	int	 i;

	for (i = 0; row >= 0 && i < r->list.n; i++)
		if (r->vis[i] == row)
			return (i);
	return (-1);
}

/*
 * The row f follows: the newest running step, else the newest failed,
 * else the newest waiting (a collapsed fan-out counts as its status).
 */
static int
run_follow_pick(const struct run *r)
{
	static const int	 rank[STEP_NSTATUS] = { 0, 0, 3, 1, 0, 2 };
	const struct tree_row	*tr;
	int			 i, best = -1, best_rank = 0;
	int64_t			 id, best_id = 0;

	for (i = 0; i < r->list.n; i++) {
		tr = &r->tree->rows[r->vis[i]];
		if (tr->kind == TREE_FANOUT && tr->status != STEP_RUNNING &&
		    tr->status != STEP_WAITING && tr->status != STEP_FAILED)
			continue;
		if (tr->kind != TREE_STEP && tr->kind != TREE_JOIN &&
		    tr->kind != TREE_FANOUT)
			continue;
		id = tr->kind == TREE_FANOUT ? tr->fanout_id : tr->row->id;
		if (rank[tr->status] > best_rank ||
		    (rank[tr->status] == best_rank && best_rank > 0 &&
		    id > best_id)) {
			best = i;
			best_rank = rank[tr->status];
			best_id = id;
		}
	}
	return (best);
}

/*
 * f follows into a for-each: when the row it picked is a closed for-each
 * with items running or failed, open it (and lay out again); 1 if so.
 */
static int
run_foreach_open(struct run *r, int i)
{
	const struct tree_row		*tr = &r->tree->rows[r->vis[i]];
	const struct tree_foreach	*fe;

	if (tr->foreach < 0)
		return (0);
	fe = &r->tree->foreachs[tr->foreach];
	if (fe->expanded || (fe->tally.running == 0 && fe->tally.failed == 0))
		return (0);
	run_toggle_foreach(r, fe->row);
	r->reread = 1;	/* its items are read with the next rows */
	return (1);
}

/* Open or close a for-each: its row (its gates) and first row (items). */
static void
run_toggle_foreach(struct run *r, const struct store_step *row)
{
	run_toggle_open(r, row->id);
	if (row->item_of != 0)
		run_toggle_open(r, row->item_of);
}

/* Put the cursor back: on run_open's step, the followed one, or the mark. */
static void
run_place(struct run *r, const struct run_mark *m)
{
	int	 i = -1;

	if (r->want != 0) {
		i = run_vis_of(r, tree_find_step(r->tree, r->want));
		r->want = 0;
	} else if (r->follow) {
		i = run_follow_pick(r);
		if (i >= 0 && run_foreach_open(r, i))
			return;		/* run_load reads its items first */
	}
	if (i < 0)
		i = run_mark_find(r, m);
	if (i < 0)
		i = m->index;
	r->list.sel = i;
	list_fix(&r->list, r->list.height);
}

/*
 * Read the run again and lay it out, keeping the cursor's row.  A run of
 * many thousand rows takes a while to read, and any change in the
 * database asks for it: such reads wait (for the next tick) until five
 * times the last one's cost has passed, so the console stays quick.
 */
static void
run_load(struct ui *ui, struct view *v)
{
	struct run	*r = v->data;
	struct run_mark	 m;
	int64_t		 start = time_mono_ms();

	if (r == NULL)
		return;
	if (r->wf != NULL && !r->force && start < r->next_load) {
		v->dirty_data = 1;
		return;
	}
	r->force = 0;
	run_mark_get(r, &m);
	do {
		r->reread = 0;
		run_clear(r);
		if (run_read(ui, r) != 0) {
			screen_message(ui, 1, "workflow %lld: %s",
			    (long long)r->id, r->error);
			return;
		}
		run_layout(r, v->filter);
		if (r->want != 0 && tree_find_step(r->tree, r->want) < 0 &&
		    run_reveal(r, r->want))
			run_layout(r, v->filter);
		run_place(r, &m);
	} while (r->reread);	/* f opened a for-each: read its items */
	r->next_load = start + (time_mono_ms() - start) * RUN_LOAD_SHARE;
}

/* The words of a row's label (not its prefix or glyph). */
static const char *
run_label_text(const struct tree *t, const struct tree_row *tr, char *buf,
    size_t len)
{
	const struct tree_fanout	*fo;

	switch (tr->kind) {
	case TREE_STEP:
	case TREE_JOIN:
		if (tr->item && tr->row->label != NULL)
			return (tr->row->label);
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

/* A row's glyph: its status's; not reached shows as skipped. */
static const char *
run_glyph(const struct ui *ui, const struct tree_row *tr)
{
	if (tr->kind == TREE_NOT_REACHED)
		return (draw_glyph(ui, STEP_SKIPPED));
	return (draw_glyph(ui, tr->status));
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
	used = draw_text(ui, y, 0, w, b.data, paint);
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
		x += draw_textf(ui, y, x, w - (x - start), sel ? PAINT_SELECT :
		    draw_status_paint(order[i]), "  %s %d",
		    draw_glyph(ui, order[i]),
		    fo->counts[order[i]]);
	}
	return (x - start);
}

/*
 * Draw a row's label in the first w columns of line y: rails, glyph,
 * name (a fan-out's counts run on past w).  Returns the columns used.
 */
int
run_label(struct ui *ui, int y, int w, const struct tree *t,
    const struct tree_row *tr, int sel)
{
	const struct tree_fanout	*fo;
	enum ui_paint			 paint;
	char				 text[128];
	int				 x;

	x = run_prefix(ui, y, w, tr, sel ? PAINT_SELECT : PAINT_DIM);
	if (tr->kind == TREE_FANOUT) {
		fo = &t->fanouts[tr->fanout];
		x += draw_textf(ui, y, x, ui->cols - x, sel ? PAINT_SELECT :
		    PAINT_TITLE, "%s %s", fo->expanded ? (ui->utf8 ?
		    "\u25be" : "-") : (ui->utf8 ? "\u25b8" : "+"),
		    run_label_text(t, tr, text, sizeof text));
		x += run_counts(ui, y, x, ui->cols - x, fo, sel);
		x += draw_text(ui, y, x, ui->cols - x, fo->expanded ?
		    "   (Enter collapses)" : "   (Enter expands)",
		    sel ? PAINT_SELECT : PAINT_DIM);
		return (x);
	}
	paint = tr->kind == TREE_NOT_REACHED ? PAINT_DIM :
	    draw_status_paint(tr->status);
	x += draw_text(ui, y, x, w - x, run_glyph(ui, tr),
	    sel ? PAINT_SELECT : paint);
	x += draw_text(ui, y, x, w - x, " ", sel ? PAINT_SELECT : PAINT_NORMAL);
	paint = tr->kind == TREE_NOT_REACHED ? PAINT_DIM :
	    tr->kind == TREE_BRANCH ? PAINT_TITLE : PAINT_NORMAL;
	x += draw_text(ui, y, x, w - x, run_label_text(t, tr, text,
	    sizeof text), sel ? PAINT_SELECT : paint);
	return (x);
}

/* "#12 deploy  ✗ failed  canary-deploy@3  by alice": what and whose. */
static void
run_header_first(struct ui *ui, const struct run *r, int y)
{
	const struct store_workflow	*w = r->wf;
	enum run_state			 st = store_workflow_state(w);
	int				 x = 0;

	x += draw_textf(ui, y, x, ui->cols - x, PAINT_TITLE, "#%lld ",
	    (long long)w->id);
	x += draw_text(ui, y, x, ui->cols - x, w->name, PAINT_TITLE);
	x += draw_textf(ui, y, x, ui->cols - x, draw_state_paint(st),
	    "  %s %s", draw_state_glyph(ui, st), state_name(st));
	if (w->template_name != NULL)
		x += draw_textf(ui, y, x, ui->cols - x, PAINT_DIM, "  %s@%lld",
		    w->template_name, (long long)w->template_version);
	else
		x += draw_text(ui, y, x, ui->cols - x, "  (from a file)",
		    PAINT_DIM);
	if (w->created_by != NULL)
		x += draw_textf(ui, y, x, ui->cols - x, PAINT_DIM, "  by %s",
		    w->created_by);
	if (w->parent_id != 0)
		draw_textf(ui, y, x, ui->cols - x, PAINT_DIM, "  child of #%lld",
		    (long long)w->parent_id);
}

/* When: scheduled start, started, ended, and how long it took or runs. */
static void
run_header_times(struct ui *ui, const struct run *r, int y)
{
	const struct store_workflow	*w = r->wf;
	struct buf			 b;
	char				 t1[32], t2[32], d[16];
	int64_t				 now = time_now_ms(), end;

	buf_init(&b);
	end = w->completed_at > 0 ? w->completed_at : w->cancelled_at;
	if (w->status == RUN_SCHEDULED)
		buf_printf(&b, "starts %s (in %s)", draw_when(w->start_at, t1,
		    sizeof t1), time_age(w->start_at - now, d, sizeof d));
	else if (w->started_at > 0 && end > 0)
		buf_printf(&b, "started %s  ended %s  took %s",
		    draw_when(w->started_at, t1, sizeof t1),
		    draw_when(end, t2, sizeof t2),
		    draw_duration(end - w->started_at, d, sizeof d));
	else if (w->started_at > 0)
		buf_printf(&b, "started %s  running for %s",
		    draw_when(w->started_at, t1, sizeof t1),
		    draw_duration(now - w->started_at, d, sizeof d));
	else
		buf_printf(&b, "created %s", draw_when(w->created_at, t1,
		    sizeof t1));
	if (w->paused)
		buf_puts(&b, "  paused: no new steps start (p resumes)");
	if (w->schedule_name != NULL)
		buf_printf(&b, "  schedule %s", w->schedule_name);
	draw_text(ui, y, 0, ui->cols, b.data, PAINT_DIM);
	buf_free(&b);
}

/*
 * The header block in at most a quarter of the rows: the first line
 * always, then the error, the times and the input as room allows (drawn
 * in that order: times, error, input).  Returns the lines used.
 */
static int
run_header(struct ui *ui, const struct run *r, int y, int h)
{
	struct buf	 b;
	int		 room, n = 1, err, times, input, output;

	room = h >= 16 ? 4 : h >= 12 ? 3 : h >= 9 ? 2 : 1;
	if (r->wf->output_json != NULL && h >= 20)
		room++;
	err = r->wf->error != NULL && room > n;
	times = room > n + err;
	input = room > n + err + times;
	output = r->wf->output_json != NULL && room > n + err + times + input;
	run_header_first(ui, r, y);
	if (times)
		run_header_times(ui, r, y + n++);
	buf_init(&b);
	if (err) {
		run_oneline(r->wf->error, &b);
		draw_textf(ui, y + n++, 0, ui->cols, PAINT_BAD, "error: %s",
		    b.data != NULL ? b.data : "");
	}
	if (input) {
		buf_reset(&b);
		run_oneline(r->wf->input_json != NULL ? r->wf->input_json :
		    "{}", &b);
		draw_textf(ui, y + n++, 0, ui->cols, PAINT_DIM, "input: %s",
		    b.data != NULL ? b.data : "");
	}
	if (output) {
		buf_reset(&b);
		run_oneline(r->wf->output_json, &b);
		draw_textf(ui, y + n++, 0, ui->cols, PAINT_NORMAL,
		    "output: %s", b.data != NULL ? b.data : "");
	}
	buf_free(&b);
	return (n);
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
static void
run_fit(const struct run *r, int cols, struct run_cols *c)
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
static void
run_title(struct ui *ui, const struct run_cols *c, int y)
{
	int	 x = 0;

	draw_text(ui, y, x, c->name, "STEP", PAINT_TITLE);
	x += c->name + 1;
	if (c->tool > 0) {
		draw_text(ui, y, x, c->tool, "TOOL", PAINT_TITLE);
		x += c->tool + 1;
	}
	if (c->try > 0) {
		draw_text(ui, y, x, c->try, "TRY", PAINT_TITLE);
		x += c->try + 1;
	}
	draw_textf(ui, y, x, c->took, PAINT_TITLE, "%*s", c->took, "TOOK");
	x += c->took + 1;
	if (c->result > 0)
		draw_text(ui, y, x, c->result, "RESULT", PAINT_TITLE);
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
	return (draw_duration(to - from, buf, len));
}

/*
 * Text as one line: up to its first newline; a JSON string is decoded
 * first.  At most a screen's worth, cut at a character.
 */
static void
run_oneline(const char *text, struct buf *b)
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
	cJSON		*g, *m;

	switch (s->status) {
	case STEP_FAILED:
		run_oneline(s->error != NULL ? s->error : "failed", b);
		return (PAINT_BAD);
	case STEP_CANCELLED:
	case STEP_SKIPPED:
		run_oneline(s->error != NULL ? s->error : "", b);
		return (PAINT_DIM);
	case STEP_WAITING:
		buf_puts(b, "awaiting approval");
		g = json_parse_or_null(s->gate_json);
		m = cJSON_GetObjectItemCaseSensitive(g, "message");
		if (cJSON_IsString(m) && *m->valuestring != '\0') {
			buf_puts(b, ": ");
			run_oneline(m->valuestring, b);
		}
		cJSON_Delete(g);
		return (PAINT_WAIT);
	case STEP_PENDING:
		buf_puts(b, s->attempt > 1 ? "waiting to retry" : "");
		return (PAINT_DIM);
	case STEP_RUNNING:
		/* A sub-workflow step stands for its child run. */
		if (s->child_id != 0) {
			buf_printf(b, "child run #%lld (Enter opens it)",
			    (long long)s->child_id);
			return (PAINT_DIM);
		}
		return (PAINT_NORMAL);
	case STEP_DONE:
		if (s->result_json != NULL && strcmp(s->result_json, "null"))
			run_oneline(s->result_json, b);
		if (s->error != NULL) {
			buf_puts(b, b->len > 0 ? ": " : "");
			run_oneline(s->error, b);
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
static void
run_row(struct ui *ui, const struct run *r, int y, int i,
    const struct run_cols *c)
{
	const struct tree_row	*tr = &r->tree->rows[r->vis[i]];
	const struct store_step	*s = tr->row;
	struct buf		 b;
	enum ui_paint		 paint;
	char			 took[16];
	int			 sel = i == r->list.sel, x = c->name + 1;

	if (sel)
		draw_fill(ui, y, 0, ui->cols, PAINT_SELECT);
	run_label(ui, y, c->name, r->tree, tr, sel);
	if (tr->kind == TREE_NOT_REACHED && c->result > 0)
		draw_text(ui, y, run_result_x(c), c->result, "not reached",
		    sel ? PAINT_SELECT : PAINT_DIM);
	if (tr->kind != TREE_STEP && tr->kind != TREE_JOIN)
		return;
	if (c->tool > 0) {
		draw_text(ui, y, x, c->tool, s->tool != NULL ? s->tool :
		    "gate", sel ? PAINT_SELECT : PAINT_DIM);
		x += c->tool + 1;
	}
	if (c->try > 0) {
		if (s->attempt > 1)
			draw_textf(ui, y, x, c->try, sel ? PAINT_SELECT :
			    PAINT_WAIT, "#%d", s->attempt);
		x += c->try + 1;
	}
	draw_textf(ui, y, x, c->took, sel ? PAINT_SELECT : tr->status ==
	    STEP_RUNNING ? PAINT_RUN : PAINT_NORMAL, "%*s", c->took,
	    run_took(s, time_now_ms(), took, sizeof took));
	if (c->result <= 0)
		return;
	buf_init(&b);
	if (tr->foreach >= 0)
		paint = run_foreach_text(&r->tree->foreachs[tr->foreach], &b);
	else
		paint = run_result(s, &b);
	draw_text(ui, y, run_result_x(c), c->result, b.data != NULL ? b.data :
	    "", sel ? PAINT_SELECT : paint);
	buf_free(&b);
}

/* The header block, then the tree (or the timeline) with its title line. */
static void
run_draw(struct ui *ui, struct view *v, int y, int h)
{
	struct run	*r = v->data;
	struct run_cols	 c;
	struct timeline	 tl;
	int		 n, i;

	if (r == NULL)
		return;
	if (r->wf == NULL) {
		draw_textf(ui, y + 1, 2, ui->cols - 4, PAINT_ERROR,
		    "workflow %lld: %s", (long long)r->id, r->error != NULL ?
		    r->error : "not read");
		return;
	}
	n = run_header(ui, r, y, h);
	y += n;
	h -= n;
	list_fix(&r->list, h - 1);
	if (r->timeline) {
		memset(&tl, 0, sizeof tl);
		tl.tree = r->tree;
		tl.vis = r->vis;
		tl.list = &r->list;
		tl.start = r->wf->started_at;
		tl.end = r->live ? 0 : r->wf->completed_at > 0 ?
		    r->wf->completed_at : r->wf->cancelled_at;
		tl.name_w = r->name_w;
		timeline_draw(ui, &tl, y, h);
		return;
	}
	run_fit(r, ui->cols, &c);
	run_title(ui, &c, y);
	if (r->list.n == 0)
		draw_text(ui, y + 2, 2, ui->cols - 4, v->filter != NULL ?
		    "No step matches the filter (Esc clears it)." :
		    "No steps yet.", PAINT_DIM);
	for (i = 0; i < h - 1 && r->list.top + i < r->list.n; i++)
		run_row(ui, r, y + 1 + i, r->list.top + i, &c);
}

/* Open or close a large fan-out. */
static void
run_toggle_open(struct run *r, int64_t id)
{
	size_t	 i;

	for (i = 0; i < r->nopen; i++) {
		if (r->open[i] == id) {
			r->open[i] = r->open[--r->nopen];
			return;
		}
	}
	r->open = xreallocarray(r->open, r->nopen + 1, sizeof *r->open);
	r->open[r->nopen++] = id;
}

/* Enter: a step's details, or open/close a fan-out; moving stops f. */
static int
run_key(struct ui *ui, struct view *v, int key)
{
	struct run		*r = v->data;
	const struct tree_row	*tr;
	char			 text[128];

	if (r == NULL || r->tree == NULL)
		return (0);
	if (key == K_ENTER) {
		if (r->list.n == 0)
			return (1);
		tr = &r->tree->rows[r->vis[r->list.sel]];
		if (tr->foreach >= 0) {
			run_toggle_foreach(r, tr->row);
			v->dirty_data = 1;
			r->force = 1;
		} else if (tr->kind == TREE_STEP && tr->row->child_id != 0)
			run_open(ui, tr->row->child_id, 0);
		else if (tr->kind == TREE_STEP || tr->kind == TREE_JOIN)
			step_open(ui, tr->row->id);
		else if (tr->kind == TREE_FANOUT) {
			run_toggle_open(r, tr->fanout_id);
			v->dirty_data = 1;
			r->force = 1;
		} else if (tr->kind == TREE_NOT_REACHED)
			screen_message(ui, 0, "%s was not reached: the run "
			    "ended before it", run_label_text(r->tree, tr, text,
			    sizeof text));
		ui_dirty(ui);
		return (1);
	}
	if (!list_key(&r->list, key))
		return (0);
	if (r->follow) {
		r->follow = 0;
		screen_message(ui, 0, "follow off");
	}
	ui_dirty(ui);
	return (1);
}

/* Durations move while anything runs or waits; a read may be waiting. */
static int
run_tick(struct ui *ui, struct view *v)
{
	struct run	*r = v->data;

	(void)ui;
	return (r != NULL && (r->live || v->dirty_data));
}

/* Free the view's rows and state. */
static void
run_free(struct view *v)
{
	struct run	*r = v->data;

	if (r == NULL)
		return;
	run_clear(r);
	flow_free(r->flow);
	free(r->open);
	free(r);
}

/*
 * The workflow and the step row under the cursor (0 on a row that is no
 * step).  Only the run view: a step view answers for itself.
 */
int
run_selected(struct view *v, int64_t *wf, int64_t *step)
{
	struct run		*r;
	const struct tree_row	*tr;

	*wf = *step = 0;
	if (v == NULL || v->ops->kind != VIEW_RUN || (r = v->data) == NULL)
		return (0);
	*wf = r->id;
	if (r->tree != NULL && r->list.n > 0) {
		tr = &r->tree->rows[r->vis[r->list.sel]];
		if (tr->kind == TREE_STEP || tr->kind == TREE_JOIN)
			*step = tr->row->id;
	}
	return (1);
}

/* t: the timeline in place of the tree, or back; 1 when it is shown. */
int
run_toggle_timeline(struct view *v)
{
	struct run	*r;

	if (v == NULL || v->ops->kind != VIEW_RUN || (r = v->data) == NULL)
		return (0);
	r->timeline = !r->timeline;
	return (r->timeline);
}

/*
 * The step to retry from (retry --from): the selected row's step when it
 * is a step that did not fail or get cancelled (those a plain retry runs
 * again), else NULL.
 */
const char *
run_retry_from(struct view *v)
{
	struct run		*r;
	const struct tree_row	*tr;

	if (v == NULL || v->ops->kind != VIEW_RUN || (r = v->data) == NULL ||
	    r->tree == NULL || r->list.n == 0)
		return (NULL);
	tr = &r->tree->rows[r->vis[r->list.sel]];
	if ((tr->kind != TREE_STEP && tr->kind != TREE_JOIN) ||
	    tr->status == STEP_FAILED || tr->status == STEP_CANCELLED)
		return (NULL);
	/* A for-each's item or gate: the for-each's retry, not --from. */
	if (tr->item || (r->wf != NULL && r->wf->status == RUN_RUNNING))
		return (NULL);
	return (tr->row->step_key);
}

/* f: keep the cursor on the active step until it is moved; f again stops. */
void
run_follow(struct ui *ui, struct view *v)
{
	struct run	*r;
	int		 i;

	if (v == NULL || v->ops->kind != VIEW_RUN || (r = v->data) == NULL)
		return;
	r->follow = !r->follow;
	if (!r->follow) {
		screen_message(ui, 0, "follow off");
		return;
	}
	if (r->tree != NULL && (i = run_follow_pick(r)) >= 0) {
		r->list.sel = i;
		list_fix(&r->list, r->list.height);
	}
	screen_message(ui, 0, "follow: the running step, else the newest "
	    "failed, else waiting (f again or a move stops)");
	ui_dirty(ui);
}
