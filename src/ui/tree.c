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
 * tree.c: a run's step rows laid out as the flow's graph, for the run view
 * and its timeline.  Pure: rows and the parsed flow in, display rows out;
 * no curses, no store.
 *
 * The engine files every row in a lane: (fanout_id, branch_no), the
 * fan-out row whose branch it runs in (0 for the main line).  A lane is a
 * sequence in id order (next steps, retries and loop passes are all new
 * rows after the last), so the tree is: the main lane's rows in order, and
 * under each fan-out row its branches' lanes, indented; its join is the
 * next row of the fan-out's own lane.  Once the run has ended, flow steps
 * that never got a row show as not reached: after the lane they would
 * have followed (along "next"), else at the end in flow order.  Fan-outs
 * with many branches or rows collapse to one row of counts by status.
 *
 * A for-each's items and gates are not in any lane: they show under the
 * for-each's row, the gates that wait always, every item (its latest
 * row, in item order) and gate once it is expanded.
 *
 * Everything is sorts and binary searches over the rows (tree-index.c),
 * then one walk with an explicit stack (a loop can nest fan-outs deeply),
 * so a 60,000 row run lays out in a few milliseconds.  A for-each's rows
 * are laid out in tree-foreach.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

static uint64_t	 tree_child_rails(int, uint64_t, int);
static void	 tree_chain(struct tree_ctx *, int, size_t *, size_t *);
static void	 tree_push(struct tree_ctx *, const struct tree_frame *);
static void	 tree_push_lane(struct tree_ctx *, size_t, size_t, size_t,
		     size_t, int, uint64_t, int);
static void	 tree_step_lane(struct tree_ctx *);
static void	 tree_step_fanout(struct tree_ctx *);
static int	 tree_next_spec(const struct tree_ctx *, int);
static int	 tree_branch_first(const struct tree_ctx *,
		     const struct tree_fanout *, int, size_t, size_t);
static int	 tree_branch(struct tree_ctx *, struct tree_frame *);
static void	 tree_summary(struct tree_ctx *, struct tree_frame *);
static void	 tree_hidden(struct tree_ctx *);
static void	 tree_leftovers(struct tree_ctx *);
static void	 tree_unreached_branches(struct tree_ctx *, int);

/* Append a display row. */
struct tree_row *
ui_tree_emit(struct tree_ctx *c, enum tree_kind kind, int depth, uint64_t rails,
    int last)
{
	struct tree		*t = c->t;
	struct tree_row		*r;

	if (t->n == c->srows) {
		c->srows = c->srows * 2 + 16;
		t->rows = xreallocarray(t->rows, c->srows, sizeof *t->rows);
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	r->kind = kind;
	r->depth = depth;
	r->rails = rails;
	r->last = last;
	r->spec = -1;
	r->fanout = -1;
	r->foreach = -1;
	return (r);
}

/* The rails of a row's children: its own line goes on if it is not last. */
static uint64_t
tree_child_rails(int depth, uint64_t rails, int last)
{
	if (depth >= 1 && depth < 64 && !last)
		rails |= (uint64_t)1 << depth;
	return (rails);
}

/*
 * Once the run has ended: the flow steps with no row that follow a
 * lane's last step along "next" (or start at first, for a branch that
 * never started), claimed for that lane.
 */
static void
tree_chain(struct tree_ctx *c, int first, size_t *lo, size_t *hi)
{
	const struct flow	*f = c->in->flow;
	int			 s = first;

	*lo = *hi = c->nchain;
	if (!c->in->ended || f == NULL || s < 0)
		return;
	while (s >= 0 && (size_t)s < f->nsteps && !c->placed[s]) {
		c->placed[s] = 1;
		c->chain[c->nchain++] = s;
		s = f->steps[s].next_target;
	}
	*hi = c->nchain;
}

/* Push a frame (the stack grows; frame pointers go stale). */
static void
tree_push(struct tree_ctx *c, const struct tree_frame *f)
{
	if (c->nframes == c->sframes) {
		c->sframes = c->sframes * 2 + 8;
		c->frames = xreallocarray(c->frames, c->sframes,
		    sizeof *c->frames);
	}
	c->frames[c->nframes++] = *f;
}

/* Push a lane's rows [lo, hi) and its not-reached steps [clo, chi). */
static void
tree_push_lane(struct tree_ctx *c, size_t lo, size_t hi, size_t clo,
    size_t chi, int depth, uint64_t rails, int tail_last)
{
	struct tree_frame	 f;

	memset(&f, 0, sizeof f);
	f.pos = lo;
	f.hi = hi;
	f.clo = clo;
	f.chi = chi;
	f.depth = depth;
	f.rails = rails;
	f.tail_last = tail_last;
	tree_push(c, &f);
}

/* Lay out a lane's next row (and push its branches), or end it. */
static void
tree_step_lane(struct tree_ctx *c)
{
	struct tree_frame	*f = &c->frames[c->nframes - 1], sub;
	const struct store_step	*s, *up;
	struct tree_row		*r;
	size_t			 i;
	ssize_t			 p;
	int			 last;

	if (f->pos < f->hi) {
		i = c->lane[f->pos++].idx;
		s = &c->in->steps[i];
		last = f->pos == f->hi && f->clo == f->chi && f->tail_last;
		r = ui_tree_emit(c, TREE_STEP, f->depth, f->rails, last);
		r->row = s;
		r->spec = c->spec[i];
		r->status = s->status;
		r->fanout = c->fo[i];
		r->foreach = -1;
		c->shown[i] = 1;
		if (s->items > 0) {
			ui_tree_foreach(c, i, f->depth + 1,
			    tree_child_rails(f->depth, f->rails, last), last);
			return;
		}
		if (s->parent_id != 0 && s->parent_id != s->fanout_id &&
		    (p = ui_tree_find(c, s->parent_id)) >= 0 && c->fo[p] >= 0 &&
		    c->spec[p] != c->spec[i]) {
			r->kind = TREE_JOIN;
			up = &c->in->steps[p];
			r->fanout_id = up->id;
		}
		if (c->fo[i] < 0)
			return;
		memset(&sub, 0, sizeof sub);
		sub.is_fanout = 1;
		sub.fo = c->fo[i];
		sub.branch = -1;
		sub.depth = f->depth + 1;
		sub.rails = tree_child_rails(f->depth, f->rails, last);
		sub.pos = ui_tree_lane_lo(c, s->id, INT32_MIN);
		sub.hi = ui_tree_lane_lo(c, s->id + 1, INT32_MIN);
		tree_push(c, &sub);
		return;
	}
	if (f->clo < f->chi) {
		r = ui_tree_emit(c, TREE_NOT_REACHED, f->depth, f->rails,
		    f->clo + 1 == f->chi && f->tail_last);
		r->spec = c->chain[f->clo++];
		r->status = STEP_SKIPPED;
		return;
	}
	c->nframes--;
}

/* A large fan-out's row of counts: each branch counted by its status. */
static void
tree_summary(struct tree_ctx *c, struct tree_frame *f)
{
	struct tree_fanout	*fo = &c->t->fanouts[f->fo];
	struct tree_row		*r;
	size_t			 lo = f->pos, hi;
	int			 b, seen = 0;

	for (b = 0; b < fo->nbranches; b++) {
		while (lo < f->hi && c->lane[lo].branch < b)
			lo++;
		for (hi = lo; hi < f->hi && c->lane[hi].branch == b; hi++)
			;
		fo->counts[ui_tree_lane_status(c, lo, hi)]++;
		seen += hi > lo;
		lo = hi;
	}
	r = ui_tree_emit(c, TREE_FANOUT, f->depth, f->rails, !fo->expanded);
	r->fanout = f->fo;
	r->fanout_id = fo->id;
	r->row = fo->row;
	r->spec = -1;
	r->status = fo->counts[STEP_RUNNING] > 0 ? STEP_RUNNING :
	    fo->counts[STEP_WAITING] > 0 ? STEP_WAITING :
	    fo->counts[STEP_FAILED] > 0 ? STEP_FAILED :
	    seen == fo->nbranches ? STEP_DONE : STEP_PENDING;
}

/*
 * The flow step that would have come after a lane's last row: its
 * "next", or for a fan-out the join its branches lead to; -1 none.
 */
static int
tree_next_spec(const struct tree_ctx *c, int spec)
{
	const struct flow	*f = c->in->flow;
	size_t			 k;
	int			 s;

	if (f == NULL || spec < 0 || (size_t)spec >= f->nsteps)
		return (-1);
	if (f->steps[spec].next_target >= 0 || f->steps[spec].nparallel == 0)
		return (f->steps[spec].next_target);
	s = f->steps[spec].parallel_targets[0];
	for (k = 0; s >= 0 && k < f->nsteps; k++) {
		if (f->steps[s].join_target >= 0)
			return (f->steps[s].join_target);
		s = f->steps[s].next_target;
	}
	return (-1);
}

/* Where a branch's not-reached steps start (its first, if it has no row). */
static int
tree_branch_first(const struct tree_ctx *c, const struct tree_fanout *fo,
    int b, size_t lo, size_t hi)
{
	const struct flow_step	*fs;
	int			 spec;

	if (lo < hi)
		return (tree_next_spec(c, c->spec[c->lane[hi - 1].idx]));
	spec = c->spec[fo->row - c->in->steps];
	if (spec < 0)
		return (-1);
	fs = &c->in->flow->steps[spec];
	return (b < (int)fs->nparallel ? fs->parallel_targets[b] : -1);
}

/*
 * Lay out one branch of a fan-out: a header over its rows, or its one
 * row in the header's place.  Returns 0 when no branch is left.
 */
static int
tree_branch(struct tree_ctx *c, struct tree_frame *f)
{
	struct tree_fanout	*fo = &c->t->fanouts[f->fo];
	struct tree_row		*r;
	size_t			 lo, hi, clo, chi, count;
	int			 b = f->branch, lastb, depth = f->depth;
	uint64_t		 rails = f->rails;

	if (b >= fo->nbranches)
		return (0);
	while (f->pos < f->hi && c->lane[f->pos].branch < b)
		f->pos++;	/* a branch number out of range: left over */
	lo = f->pos;
	for (hi = lo; hi < f->hi && c->lane[hi].branch == b; hi++)
		;
	f->pos = hi;
	f->branch++;
	lastb = b == fo->nbranches - 1;
	tree_chain(c, tree_branch_first(c, fo, b, lo, hi), &clo, &chi);
	count = (hi - lo) + (chi - clo);
	if (count == 1) {
		tree_push_lane(c, lo, hi, clo, chi, depth, rails, lastb);
		return (1);
	}
	r = ui_tree_emit(c, TREE_BRANCH, depth, rails, lastb);
	r->fanout = f->fo;
	r->fanout_id = fo->id;
	r->row = fo->row;
	r->branch_no = b;
	r->status = ui_tree_lane_status(c, lo, hi);
	if (count > 0)
		tree_push_lane(c, lo, hi, clo, chi, depth + 1,
		    tree_child_rails(depth, rails, lastb), 1);
	return (1);
}

/* Lay out a fan-out's next branch (its summary first when large). */
static void
tree_step_fanout(struct tree_ctx *c)
{
	struct tree_frame	*f = &c->frames[c->nframes - 1];
	struct tree_fanout	*fo = &c->t->fanouts[f->fo];

	if (f->branch < 0) {
		f->branch = 0;
		if (fo->large) {
			tree_summary(c, f);
			if (!fo->expanded) {
				c->nframes--;
				return;
			}
		}
	}
	if (!tree_branch(c, f))
		c->nframes--;	/* f may be stale after a push: not here */
}

/*
 * Mark the rows inside collapsed fan-outs as shown (they are, as counts):
 * in id order, a row is hidden when its fan-out row is collapsed or
 * hidden itself.
 */
static void
tree_hidden(struct tree_ctx *c)
{
	const struct store_step	*s;
	size_t			 k, i;
	ssize_t			 up;
	int			 fo;

	for (k = 0; k < c->n; k++) {
		i = c->byid[k].idx;
		s = &c->in->steps[i];
		if (c->shown[i] || s->fanout_id == 0 ||
		    (up = ui_tree_find(c, s->fanout_id)) < 0)
			continue;
		fo = c->fo[up];
		if (c->shown[up] == 2 ||
		    (fo >= 0 && !c->t->fanouts[fo].expanded))
			c->shown[i] = 2;
	}
}

/* Rows no lane reached (a broken link) and the steps never reached. */
static void
tree_leftovers(struct tree_ctx *c)
{
	const struct flow	*f = c->in->flow;
	struct tree_row		*r;
	size_t			 i;

	tree_hidden(c);
	for (i = 0; i < c->n; i++) {
		if (c->shown[i] || flow_handler_key(c->in->steps[i].step_key))
			continue;
		r = ui_tree_emit(c, TREE_STEP, 0, 0, 1);
		r->row = &c->in->steps[i];
		r->spec = c->spec[i];
		r->status = r->row->status;
	}
	for (i = 0; c->in->ended && f != NULL && i < f->nsteps; i++) {
		/* A handler the run's end did not call for is not missed. */
		if (c->placed[i] || flow_handler_of(f, (int)i) != NULL)
			continue;
		c->placed[i] = 1;
		r = ui_tree_emit(c, TREE_NOT_REACHED, 0, 0, 1);
		r->spec = (int)i;
		r->status = STEP_SKIPPED;
		if (f->steps[i].nparallel > 0)
			tree_unreached_branches(c, (int)i);
	}
	/* The handlers' rows, after everything else, in the order they ran. */
	for (i = 0; i < c->n; i++) {
		if (c->shown[i] || !flow_handler_key(c->in->steps[i].step_key))
			continue;
		r = ui_tree_emit(c, TREE_STEP, 0, 0, 1);
		r->row = &c->in->steps[i];
		r->spec = c->spec[i];
		r->status = r->row->status;
	}
}

/*
 * The branches of a fan-out that was never reached, under it as the
 * flow draws them: each branch's steps along "next" (a header over them
 * when there are several).
 */
static void
tree_unreached_branches(struct tree_ctx *c, int spec)
{
	const struct flow_step	*fs = &c->in->flow->steps[spec];
	struct tree_fanout	*fo;
	struct tree_row		*r;
	size_t			 b, k, clo, chi;
	int			 lastb, nfo;

	nfo = ui_tree_fanout_new(c);
	fo = &c->t->fanouts[nfo];
	fo->nbranches = (int)fs->nparallel;
	fo->expanded = 1;
	for (b = 0; b < fs->nparallel; b++) {
		lastb = b + 1 == fs->nparallel;
		tree_chain(c, fs->parallel_targets[b], &clo, &chi);
		if (chi - clo == 1) {
			r = ui_tree_emit(c, TREE_NOT_REACHED, 1, 0, lastb);
			r->spec = c->chain[clo];
			r->status = STEP_SKIPPED;
			continue;
		}
		r = ui_tree_emit(c, TREE_BRANCH, 1, 0, lastb);
		r->fanout = nfo;
		r->branch_no = (int)b;
		r->status = STEP_SKIPPED;
		for (k = clo; k < chi; k++) {
			r = ui_tree_emit(c, TREE_NOT_REACHED, 2,
			    tree_child_rails(1, 0, lastb), k + 1 == chi);
			r->spec = c->chain[k];
			r->status = STEP_SKIPPED;
		}
	}
}

/* Lay a run out. */
struct tree *
ui_tree_build(const struct tree_input *in)
{
	struct tree_ctx		 c;
	size_t			 lo, hi, clo, chi;
	int			 first = -1;

	memset(&c, 0, sizeof c);
	c.in = in;
	c.n = in->nsteps;
	c.t = xcalloc(1, sizeof *c.t);
	c.t->flow = in->flow;
	c.shown = xcalloc(c.n + 1, 1);
	ui_tree_index(&c);
	for (lo = 0; lo < c.nmember; lo++)
		c.shown[c.member[lo].idx] = 1;	/* only under their for-each */
	ui_tree_specs(&c);
	ui_tree_subtrees(&c);
	ui_tree_fanouts(&c);
	lo = ui_tree_lane_lo(&c, 0, INT32_MIN);
	hi = ui_tree_lane_lo(&c, 1, INT32_MIN);
	if (lo < hi)
		first = tree_next_spec(&c, c.spec[c.lane[hi - 1].idx]);
	else if (in->flow != NULL)
		first = in->flow->start;
	tree_chain(&c, first, &clo, &chi);
	tree_push_lane(&c, lo, hi, clo, chi, 0, 0, 1);
	while (c.nframes > 0) {
		if (c.frames[c.nframes - 1].is_fanout)
			tree_step_fanout(&c);
		else
			tree_step_lane(&c);
	}
	tree_leftovers(&c);
	free(c.byid);
	free(c.lane);
	free(c.member);
	free(c.spec);
	free(c.sub);
	free(c.act);
	free(c.fo);
	free(c.placed);
	free(c.shown);
	free(c.chain);
	free(c.frames);
	return (c.t);
}

/* Free a layout (the rows it points at belong to the caller). */
void
ui_tree_free(struct tree *t)
{
	if (t == NULL)
		return;
	free(t->rows);
	free(t->fanouts);
	free(t->foreachs);
	free(t);
}

/* The display row of a step row's id, or -1. */
int
ui_tree_find_step(const struct tree *t, int64_t id)
{
	size_t	 i;

	for (i = 0; t != NULL && i < t->n; i++) {
		if (t->rows[i].row != NULL && t->rows[i].row->id == id &&
		    (t->rows[i].kind == TREE_STEP ||
		    t->rows[i].kind == TREE_JOIN))
			return ((int)i);
	}
	return (-1);
}
