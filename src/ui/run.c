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
 * run.c: the run view, one workflow: a header block (run-header.c),
 * then its step rows laid out as the flow's graph (tree.c), each drawn
 * with a status glyph, tool, attempt, duration and a one-line result
 * (run-row.c); t shows the same rows as a timeline (timeline.c).  This
 * file reads them, lays them out, keeps the cursor and takes the keys.
 * The rows are read in load when the database changed; the cursor stays
 * on the same row across reads, or with f follows the step that is
 * running (else failed, else waiting).
 */

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

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

static void	 run_load(struct ui *, struct view *);
static void	 run_draw(struct ui *, struct view *, int, int);
static int	 run_key(struct ui *, struct view *, int);
static void	 run_free(struct view *);
static int	 run_tick(struct ui *, struct view *);
static void	 run_clear(struct run *);
static int	 run_read(struct ui *, struct run *);
static void	 run_layout(struct run *, const char *);
static int	 run_filter_same(const char *, const char *);
static int	 run_match(const struct run *, const struct tree_row *,
		     const char *);
static void	 run_mark_get(const struct run *, struct run_mark *);
static int	 run_mark_find(const struct run *, const struct run_mark *);
static int	 run_reveal(struct run *, int64_t);
static int	 run_vis_of(const struct run *, int);
static int	 run_pick(const struct run *, const int *);
static void	 run_place(struct run *, const struct run_mark *);
static void	 run_toggle_open(struct run *, int64_t);
static int	 run_foreach_open(struct run *, int);
static void	 run_open_json(const struct run *, struct buf *);
static int	 run_tallies(struct ui *, struct run *);
static void	 run_name(struct view *, struct buf *);
static void	 run_toggle_foreach(struct run *, const struct store_step *);

const struct view_ops ui_view_run = {
	.kind = VIEW_RUN,
	.title = "Run",
	.load = run_load,
	.draw = run_draw,
	.key = run_key,
	.free = run_free,
	.tick = run_tick,
	.name = run_name,
	.cursor_at = offsetof(struct run, list),
	.cursor_size = sizeof (struct ui_list)
};

/* "Run 12 rolling-restart" (the name once it is read). */
static void
run_name(struct view *v, struct buf *b)
{
	struct run	*r = v->data;

	buf_printf(b, "Run %lld", (long long)r->id);
	if (r->wf != NULL && r->wf->name != NULL)
		buf_printf(b, " %s", r->wf->name);
}

/* Open a workflow's run view, the cursor on one of its steps if given. */
void
ui_run_open(struct ui *ui, int64_t workflow_id, int64_t step_id)
{
	struct run	*r;

	r = xcalloc(1, sizeof *r);
	r->id = workflow_id;
	r->want = step_id;
	ui_view_push(ui, &ui_view_run, r);
}

/* Forget what was read (the expanded fan-outs and the flow stay). */
static void
run_clear(struct run *r)
{
	ui_tree_free(r->tree);
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
	if (strcasestr(ui_run_label_text(r->tree, tr, text, sizeof text),
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

	if (!run_filter_same(r->filter, filter)) {
		free(r->filter);
		r->filter = filter != NULL ? xstrdup(filter) : NULL;
	}
	memset(&in, 0, sizeof in);
	in.flow = r->flow;
	in.steps = r->steps;
	in.nsteps = r->nsteps;
	in.ended = status_run_ended(r->wf->status);
	in.expanded = r->open;
	in.nexpanded = r->nopen;
	in.tallies = r->tallies;
	in.ntallies = r->ntallies;
	ui_tree_free(r->tree);
	r->tree = ui_tree_build(&in);
	free(r->vis);
	r->vis = xcalloc(r->tree->n + 1, sizeof *r->vis);
	r->list.n = 0;
	for (i = 0; i < r->tree->n; i++) {
		if (run_match(r, &r->tree->rows[i], filter))
			r->vis[r->list.n++] = (int)i;
	}
	ui_run_widths(r);
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

/* What f follows: running first, then failed, then waiting. */
static const int run_follow_rank[STEP_NSTATUS] = {
	[STEP_RUNNING] = 3, [STEP_FAILED] = 2, [STEP_WAITING] = 1
};

/*
 * Where a run view opens: the step that needs a person (a waiting gate),
 * else the one that failed, else the one running (SPEC 11), so that y or
 * R act on it at once.
 */
static const int run_attention_rank[STEP_NSTATUS] = {
	[STEP_WAITING] = 3, [STEP_FAILED] = 2, [STEP_RUNNING] = 1
};

/*
 * The newest row of the best rank (a collapsed fan-out counts as its
 * status), or -1 when no row ranks.
 */
static int
run_pick(const struct run *r, const int *rank)
{
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

/* Put the cursor back: on ui_run_open's step, the followed one, or the mark. */
static void
run_place(struct run *r, const struct run_mark *m)
{
	int	 i = -1, rank[STEP_NSTATUS];

	if (r->want != 0) {
		i = run_vis_of(r, ui_tree_find_step(r->tree, r->want));
		r->want = 0;
	} else if (!r->placed && r->list.n > 0) {
		/*
		 * While a run goes on, its failed rows are attempts that were
		 * retried or failures a branch handles: not what needs a
		 * person.
		 */
		memcpy(rank, run_attention_rank, sizeof rank);
		if (r->wf != NULL && r->wf->status != RUN_FAILED)
			rank[STEP_FAILED] = 0;
		i = run_pick(r, rank);
	} else if (r->follow) {
		i = run_pick(r, run_follow_rank);
		if (i >= 0 && run_foreach_open(r, i))
			return;		/* run_load reads its items first */
	}
	if (i < 0)
		i = run_mark_find(r, m);
	if (i < 0)
		i = m->index;
	r->list.sel = i;
	ui_list_fix(&r->list, r->list.height);
	if (r->list.n > 0)
		r->placed = 1;
}

/* Is the filter last laid out the view's filter now? */
static int
run_filter_same(const char *laid, const char *now)
{
	if (laid == NULL || now == NULL)
		return (laid == now);
	return (strcmp(laid, now) == 0);
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
	/*
	 * A new filter is laid out at once: keys typed after it (R, y) must
	 * act on the rows it shows, not on the ones before it.
	 */
	if (r->wf != NULL && !r->force && start < r->next_load &&
	    run_filter_same(r->filter, v->filter)) {
		v->dirty_data = 1;
		return;
	}
	r->force = 0;
	run_mark_get(r, &m);
	do {
		r->reread = 0;
		run_clear(r);
		if (run_read(ui, r) != 0) {
			ui_screen_read_failed(ui, "workflow %lld: %s",
			    (long long)r->id, r->error);
			return;
		}
		run_layout(r, v->filter);
		if (r->want != 0 && ui_tree_find_step(r->tree, r->want) < 0 &&
		    run_reveal(r, r->want))
			run_layout(r, v->filter);
		run_place(r, &m);
	} while (r->reread);	/* f opened a for-each: read its items */
	r->next_load = start + (time_mono_ms() - start) * RUN_LOAD_SHARE;
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
		ui_draw_textf(ui, y + 1, 2, ui->cols - 4, PAINT_ERROR,
		    "workflow %lld: %s", (long long)r->id, r->error != NULL ?
		    r->error : "not read");
		return;
	}
	n = ui_run_header(ui, r, y, h);
	y += n;
	h -= n;
	ui_list_fix(&r->list, h - 1);
	ui->list_y = y + 1;	/* the tree's rows (or the timeline's) */
	if (r->timeline) {
		memset(&tl, 0, sizeof tl);
		tl.tree = r->tree;
		tl.vis = r->vis;
		tl.list = &r->list;
		tl.start = r->wf->started_at;
		tl.end = r->live ? 0 : r->wf->completed_at > 0 ?
		    r->wf->completed_at : r->wf->cancelled_at;
		tl.name_w = r->name_w;
		ui_timeline_draw(ui, &tl, y, h);
		return;
	}
	ui_run_fit(r, ui->cols, &c);
	ui_run_title(ui, &c, y);
	if (r->list.n == 0)
		ui_draw_text(ui, y + 2, 2, ui->cols - 4, v->filter != NULL ?
		    "No step matches the filter (Esc clears it)." :
		    "No steps yet.", PAINT_DIM);
	for (i = 0; i < h - 1 && r->list.top + i < r->list.n; i++)
		ui_run_row(ui, r, y + 1 + i, r->list.top + i, &c);
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
			ui_run_open(ui, tr->row->child_id, 0);
		else if (tr->kind == TREE_STEP || tr->kind == TREE_JOIN)
			ui_step_open(ui, tr->row->id);
		else if (tr->kind == TREE_FANOUT) {
			run_toggle_open(r, tr->fanout_id);
			v->dirty_data = 1;
			r->force = 1;
		} else if (tr->kind == TREE_NOT_REACHED)
			ui_screen_message(ui, 0, "%s was not reached: the run "
			    "ended before it", ui_run_label_text(r->tree, tr,
			    text, sizeof text));
		ui_dirty(ui);
		return (1);
	}
	if (!ui_list_key(&r->list, key))
		return (0);
	if (r->follow) {
		r->follow = 0;
		ui_screen_message(ui, 0, "follow off");
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
	free(r->filter);
	free(r);
}

/*
 * The workflow and the step row under the cursor (0 on a row that is no
 * step).  Only the run view: a step view answers for itself.
 */
int
ui_run_selected(struct view *v, int64_t *wf, int64_t *step)
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
ui_run_toggle_timeline(struct view *v)
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
ui_run_retry_from(struct view *v)
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
ui_run_follow(struct ui *ui, struct view *v)
{
	struct run	*r;
	int		 i;

	if (v == NULL || v->ops->kind != VIEW_RUN || (r = v->data) == NULL)
		return;
	r->follow = !r->follow;
	if (!r->follow) {
		ui_screen_message(ui, 0, "follow off");
		return;
	}
	if (r->tree != NULL && (i = run_pick(r, run_follow_rank)) >= 0) {
		r->list.sel = i;
		ui_list_fix(&r->list, r->list.height);
		/*
		 * A closed for-each whose items run: read them now, not
		 * when the database next changes (an item may run for
		 * hours); run_place then puts the cursor on the item.
		 */
		if (run_foreach_open(r, i)) {
			v->dirty_data = 1;
			r->force = 1;
		}
	}
	ui_screen_message(ui, 0, "follow: the running step, else the newest "
	    "failed, else waiting (f again or a move stops)");
	ui_dirty(ui);
}

/* The selected row's status and whether it is a gate; 0 if no step. */
int
ui_run_state(struct view *v, enum step_status *st, int *gate)
{
	struct run		*r = v->data;
	const struct tree_row	*tr;

	if (r == NULL || r->tree == NULL || r->list.n == 0)
		return (0);
	tr = &r->tree->rows[r->vis[r->list.sel]];
	if ((tr->kind != TREE_STEP && tr->kind != TREE_JOIN) || tr->row == NULL)
		return (0);
	*st = tr->row->status;
	*gate = tr->row->kind == KIND_GATE;
	return (1);
}

/* The run's own status and whether it began; 0 when not read yet. */
int
ui_run_status(struct view *v, enum run_status *st, int *started)
{
	struct run	*r = v->data;

	if (r == NULL || r->wf == NULL)
		return (0);
	*st = r->wf->status;
	*started = r->wf->started_at != 0;
	return (1);
}
