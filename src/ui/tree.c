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
 * Everything is sorts and binary searches over the rows, then one walk
 * with an explicit stack (a loop can nest fan-outs deeply), so a 60,000
 * row run lays out in a few milliseconds.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define TREE_MAX_BRANCHES	8	/* wider fan-outs collapse */
#define TREE_MAX_ROWS		30	/* and fan-outs with more rows */

/* A row's place in a sort: by lane then id, or by id alone. */
struct tree_key {
	int64_t		 fanout;
	int64_t		 id;
	int		 branch;
	size_t		 idx;
};

/* What is being walked: a lane's rows, or a fan-out's branches. */
struct tree_frame {
	int		 is_fanout;
	size_t		 pos, hi;	/* in ctx->lane */
	size_t		 clo, chi;	/* not-reached specs after a lane */
	int		 depth;		/* of the rows it emits */
	uint64_t	 rails;		/* their rails */
	int		 tail_last;	/* a lane's end is its siblings' end */
	int		 fo;		/* fan-out: index in tree->fanouts */
	int		 branch;	/* fan-out: the next branch, -1 first */
};

struct tree_ctx {
	const struct tree_input	*in;
	struct tree		*t;
	size_t			 n;
	struct tree_key		*byid;
	struct tree_key		*lane;
	struct tree_key		*member;	/* items and gates, by owner */
	size_t			 nmember;
	int			*spec;
	int			*sub;		/* rows under a fan-out row */
	unsigned char		*act;		/* most active status under */
	int			*fo;		/* fan-out index of a row */
	char			*placed;	/* a flow step has a row */
	char			*shown;		/* a row was laid out */
	int			*chain;		/* not-reached specs in lanes */
	size_t			 nchain;
	struct tree_frame	*frames;
	size_t			 nframes, sframes;
	size_t			 srows;
	size_t			 sfanouts;
};

static int	 tree_cmp_id(const void *, const void *);
static int	 tree_cmp_lane(const void *, const void *);
static int	 tree_cmp_spec(const void *, const void *);
static void	 tree_index(struct tree_ctx *);
static void	 tree_specs(struct tree_ctx *);
static void	 tree_subtrees(struct tree_ctx *);
static int	 tree_fanout_new(struct tree_ctx *);
static void	 tree_fanouts(struct tree_ctx *);
static size_t	 tree_lane_lo(const struct tree_ctx *, int64_t, int);
static ssize_t	 tree_find(const struct tree_ctx *, int64_t);
static int	 tree_activity(enum step_status);
static enum step_status tree_lane_status(const struct tree_ctx *, size_t,
		     size_t);
static struct tree_row *tree_emit(struct tree_ctx *, enum tree_kind, int,
		     uint64_t, int);
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
static void	 tree_foreach(struct tree_ctx *, size_t, int, uint64_t, int);
static int	 tree_is_member(const struct store_step *);
static int	 tree_foreach_counted(struct tree_ctx *, int64_t, int, int64_t,
		     struct flow_foreach_tally *);

/* Order by id. */
static int
tree_cmp_id(const void *a, const void *b)
{
	const struct tree_key	*x = a, *y = b;

	return (x->id < y->id ? -1 : x->id > y->id);
}

/* Order by lane (fan-out row, branch), then id. */
static int
tree_cmp_lane(const void *a, const void *b)
{
	const struct tree_key	*x = a, *y = b;

	if (x->fanout != y->fanout)
		return (x->fanout < y->fanout ? -1 : 1);
	if (x->branch != y->branch)
		return (x->branch < y->branch ? -1 : 1);
	return (x->id < y->id ? -1 : x->id > y->id);
}

/* Order flow steps by key, for finding a row's step. */
static int
tree_cmp_spec(const void *a, const void *b)
{
	const struct flow_step	*const *x = a, *const *y = b;

	return (strcmp((*x)->key, (*y)->key));
}

/* Sort the rows by id and by lane. */
static void
tree_index(struct tree_ctx *c)
{
	const struct store_step	*s;
	size_t			 i;

	c->byid = xcalloc(c->n + 1, sizeof *c->byid);
	c->lane = xcalloc(c->n + 1, sizeof *c->lane);
	c->member = xcalloc(c->n + 1, sizeof *c->member);
	for (i = 0; i < c->n; i++) {
		s = &c->in->steps[i];
		c->byid[i].id = c->lane[i].id = s->id;
		c->byid[i].idx = c->lane[i].idx = i;
		c->lane[i].fanout = s->fanout_id;
		c->lane[i].branch = s->fanout_id != 0 ? s->branch_no : 0;
		if (tree_is_member(s)) {
			/* In no lane: under its for-each instead. */
			c->lane[i].fanout = -1;
			c->member[c->nmember].fanout = s->item_of;
			c->member[c->nmember].branch = s->item_index;
			c->member[c->nmember].id = s->id;
			c->member[c->nmember++].idx = i;
		}
	}
	qsort(c->byid, c->n, sizeof *c->byid, tree_cmp_id);
	qsort(c->lane, c->n, sizeof *c->lane, tree_cmp_lane);
	qsort(c->member, c->nmember, sizeof *c->member, tree_cmp_lane);
}

/* Is a row a for-each's item or gate (not a step of the flow's own)? */
static int
tree_is_member(const struct store_step *s)
{
	return (s->item_of != 0 && s->items == 0);
}

/* The index of the row with an id, or -1. */
static ssize_t
tree_find(const struct tree_ctx *c, int64_t id)
{
	size_t	 lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->byid[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && c->byid[lo].id == id)
		return ((ssize_t)c->byid[lo].idx);
	return (-1);
}

/* The first position in ctx->lane at or after lane (fanout, branch). */
static size_t
tree_lane_lo(const struct tree_ctx *c, int64_t fanout, int branch)
{
	size_t	 lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->lane[mid].fanout < fanout ||
		    (c->lane[mid].fanout == fanout &&
		    c->lane[mid].branch < branch))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* Each row's flow step, found by key (or name) through a sorted copy. */
static void
tree_specs(struct tree_ctx *c)
{
	const struct flow	*f = c->in->flow;
	const struct flow_step	**keys = NULL, *kp, **hit;
	struct flow_step	 key;
	size_t			 i, ns = f != NULL ? f->nsteps : 0;

	c->spec = xcalloc(c->n + 1, sizeof *c->spec);
	c->placed = xcalloc(ns + 1, 1);
	c->chain = xcalloc(ns + 1, sizeof *c->chain);
	if (ns > 0) {
		keys = xcalloc(ns, sizeof *keys);
		for (i = 0; i < ns; i++)
			keys[i] = &f->steps[i];
		qsort(keys, ns, sizeof *keys, tree_cmp_spec);
	}
	for (i = 0; i < c->n; i++) {
		c->spec[i] = -1;
		if (ns == 0 || c->in->steps[i].step_key == NULL)
			continue;
		key.key = c->in->steps[i].step_key;
		kp = &key;
		hit = bsearch(&kp, keys, ns, sizeof *keys, tree_cmp_spec);
		if (hit != NULL)
			c->spec[i] = (int)(*hit - f->steps);
		else
			c->spec[i] = flow_find(f, key.key);
		if (c->spec[i] >= 0)
			c->placed[c->spec[i]] = 1;
	}
	free(keys);
}

/* How active a status is: running, waiting, ready, pending, else 0. */
static int
tree_activity(enum step_status status)
{
	switch (status) {
	case STEP_RUNNING:
		return (4);
	case STEP_WAITING:
		return (3);
	case STEP_READY:
		return (2);
	case STEP_PENDING:
		return (1);
	default:
		return (0);
	}
}

/*
 * Rows under each fan-out row and the most active status among them:
 * children have higher ids than their fan-out row, so one pass from the
 * newest row adds each finished subtree to its parent.
 */
static void
tree_subtrees(struct tree_ctx *c)
{
	const struct store_step	*s;
	size_t			 k, i;
	ssize_t			 up;

	c->sub = xcalloc(c->n + 1, sizeof *c->sub);
	c->act = xcalloc(c->n + 1, 1);
	for (i = 0; i < c->n; i++)
		c->act[i] = (unsigned char)
		    tree_activity(c->in->steps[i].status);
	for (k = c->n; k > 0; k--) {
		i = c->byid[k - 1].idx;
		s = &c->in->steps[i];
		if (s->fanout_id == 0 ||
		    (up = tree_find(c, s->fanout_id)) < 0 ||
		    c->in->steps[up].id >= s->id)
			continue;
		c->sub[up] += 1 + c->sub[i];
		if (c->act[i] > c->act[up])
			c->act[up] = c->act[i];
	}
}

/* A new, empty fan-out entry; its index. */
static int
tree_fanout_new(struct tree_ctx *c)
{
	struct tree	*t = c->t;

	if (t->nfanouts == c->sfanouts) {
		c->sfanouts = c->sfanouts * 2 + 8;
		t->fanouts = xreallocarray(t->fanouts, c->sfanouts,
		    sizeof *t->fanouts);
	}
	memset(&t->fanouts[t->nfanouts], 0, sizeof *t->fanouts);
	return ((int)t->nfanouts++);
}

/* A fan-out entry for every row that has branches. */
static void
tree_fanouts(struct tree_ctx *c)
{
	const struct tree_input	*in = c->in;
	struct tree_fanout	*fo;
	size_t			 i, lo, hi, j;
	int			 spec, nb, maxb = in->max_branches, maxr;

	maxr = in->max_rows > 0 ? in->max_rows : TREE_MAX_ROWS;
	if (maxb <= 0)
		maxb = TREE_MAX_BRANCHES;
	c->fo = xcalloc(c->n + 1, sizeof *c->fo);
	for (i = 0; i < c->n; i++) {
		c->fo[i] = -1;
		lo = tree_lane_lo(c, in->steps[i].id, INT32_MIN);
		if (in->steps[i].id == 0 || lo >= c->n ||
		    c->lane[lo].fanout != in->steps[i].id)
			continue;
		for (hi = lo; hi < c->n && c->lane[hi].fanout ==
		    in->steps[i].id; hi++)
			;
		spec = c->spec[i];
		nb = spec >= 0 ? (int)in->flow->steps[spec].nparallel : 0;
		if (c->lane[hi - 1].branch + 1 > nb)
			nb = c->lane[hi - 1].branch + 1;
		c->fo[i] = tree_fanout_new(c);
		fo = &c->t->fanouts[c->fo[i]];
		fo->id = in->steps[i].id;
		fo->row = &in->steps[i];
		fo->nbranches = nb;
		fo->nrows = c->sub[i];
		fo->large = nb > maxb || c->sub[i] > maxr;
		fo->expanded = !fo->large;
		for (j = 0; fo->large && j < in->nexpanded; j++)
			if (in->expanded[j] == fo->id)
				fo->expanded = 1;
	}
}

/*
 * A lane's status: the most active status in it (a branch with anything
 * running is running), else how its newest row ended.
 */
static enum step_status
tree_lane_status(const struct tree_ctx *c, size_t lo, size_t hi)
{
	static const enum step_status	 by_act[] = { STEP_PENDING,
	    STEP_PENDING, STEP_READY, STEP_WAITING, STEP_RUNNING };
	size_t				 k;
	int				 act = 0;

	if (lo >= hi)
		return (c->in->ended ? STEP_SKIPPED : STEP_PENDING);
	for (k = lo; k < hi; k++)
		if (c->act[c->lane[k].idx] > act)
			act = c->act[c->lane[k].idx];
	if (act > 0)
		return (by_act[act]);
	return (c->in->steps[c->lane[hi - 1].idx].status);
}

/* Append a display row. */
static struct tree_row *
tree_emit(struct tree_ctx *c, enum tree_kind kind, int depth, uint64_t rails,
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
		r = tree_emit(c, TREE_STEP, f->depth, f->rails, last);
		r->row = s;
		r->spec = c->spec[i];
		r->status = s->status;
		r->fanout = c->fo[i];
		r->foreach = -1;
		c->shown[i] = 1;
		if (s->items > 0) {
			tree_foreach(c, i, f->depth + 1,
			    tree_child_rails(f->depth, f->rails, last), last);
			return;
		}
		if (s->parent_id != 0 && s->parent_id != s->fanout_id &&
		    (p = tree_find(c, s->parent_id)) >= 0 && c->fo[p] >= 0 &&
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
		sub.pos = tree_lane_lo(c, s->id, INT32_MIN);
		sub.hi = tree_lane_lo(c, s->id + 1, INT32_MIN);
		tree_push(c, &sub);
		return;
	}
	if (f->clo < f->chi) {
		r = tree_emit(c, TREE_NOT_REACHED, f->depth, f->rails,
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
		fo->counts[tree_lane_status(c, lo, hi)]++;
		seen += hi > lo;
		lo = hi;
	}
	r = tree_emit(c, TREE_FANOUT, f->depth, f->rails, !fo->expanded);
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
	r = tree_emit(c, TREE_BRANCH, depth, rails, lastb);
	r->fanout = f->fo;
	r->fanout_id = fo->id;
	r->row = fo->row;
	r->branch_no = b;
	r->status = tree_lane_status(c, lo, hi);
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
		    (up = tree_find(c, s->fanout_id)) < 0)
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
		if (c->shown[i])
			continue;
		r = tree_emit(c, TREE_STEP, 0, 0, 1);
		r->row = &c->in->steps[i];
		r->spec = c->spec[i];
		r->status = r->row->status;
	}
	if (!c->in->ended || f == NULL)
		return;
	for (i = 0; i < f->nsteps; i++) {
		if (c->placed[i])
			continue;
		c->placed[i] = 1;
		r = tree_emit(c, TREE_NOT_REACHED, 0, 0, 1);
		r->spec = (int)i;
		r->status = STEP_SKIPPED;
		if (f->steps[i].nparallel > 0)
			tree_unreached_branches(c, (int)i);
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

	nfo = tree_fanout_new(c);
	fo = &c->t->fanouts[nfo];
	fo->nbranches = (int)fs->nparallel;
	fo->expanded = 1;
	for (b = 0; b < fs->nparallel; b++) {
		lastb = b + 1 == fs->nparallel;
		tree_chain(c, fs->parallel_targets[b], &clo, &chi);
		if (chi - clo == 1) {
			r = tree_emit(c, TREE_NOT_REACHED, 1, 0, lastb);
			r->spec = c->chain[clo];
			r->status = STEP_SKIPPED;
			continue;
		}
		r = tree_emit(c, TREE_BRANCH, 1, 0, lastb);
		r->fanout = nfo;
		r->branch_no = (int)b;
		r->status = STEP_SKIPPED;
		for (k = clo; k < chi; k++) {
			r = tree_emit(c, TREE_NOT_REACHED, 2,
			    tree_child_rails(1, 0, lastb), k + 1 == chi);
			r->spec = c->chain[k];
			r->status = STEP_SKIPPED;
		}
	}
}

/* The first position in ctx->member of owner's rows with index >= from. */
static size_t
tree_member_lo(const struct tree_ctx *c, int64_t owner, int from)
{
	size_t	 lo = 0, hi = c->nmember, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->member[mid].fanout < owner ||
		    (c->member[mid].fanout == owner &&
		    c->member[mid].branch < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/*
 * A closed for-each's tally from the store's counts, when the run view
 * gave them (then its items were not read); 0 when it did not.
 */
static int
tree_foreach_counted(struct tree_ctx *c, int64_t root, int spec, int64_t n,
    struct flow_foreach_tally *t)
{
	const struct store_item_tally	*k = NULL;
	const struct flow_foreach	*fe;
	size_t				*ends, nends, i;

	for (i = 0; i < c->in->ntallies && k == NULL; i++) {
		if (c->in->tallies[i].root == root)
			k = &c->in->tallies[i].counts;
	}
	if (k == NULL || spec < 0 || c->in->flow == NULL ||
	    (fe = c->in->flow->steps[spec].foreach) == NULL)
		return (0);
	memset(t, 0, sizeof *t);
	t->n = (int)n;
	t->done = (int)k->done;
	t->failed = (int)k->failed;
	t->running = (int)k->running;
	t->waiting = (int)k->waiting;
	t->cancelled = (int)k->cancelled;
	nends = flow_foreach_batches(fe, (size_t)n, &ends);
	t->nbatches = (int)nends;
	t->batch = (int)nends;
	for (i = 0; k->first >= 0 && i < nends; i++) {
		if ((size_t)k->first < ends[i]) {
			t->batch = (int)i + 1;
			break;
		}
	}
	free(ends);
	t->budget = flow_foreach_budget(fe, (size_t)n);
	return (1);
}

/*
 * A for-each row (c->in->steps[i], just emitted): tally its items; under
 * it, its gates that wait (every gate, and every item's latest row, once
 * it is expanded).  Items belong to the for-each's first row; they show
 * under its newest.
 */
static void
tree_foreach(struct tree_ctx *c, size_t i, int depth, uint64_t rails,
    int last)
{
	const struct store_step		*s = &c->in->steps[i], *m;
	struct flow_foreach_row		*fr;
	struct tree_foreach		*fe;
	struct tree_row			*r, *fer;
	int64_t				 root;
	size_t				 k, lo, hi, glo, ghi, nfr = 0, j;
	size_t				 nshow = 0;
	int				 spec = c->spec[i], newest = 1;

	(void)last;
	fer = &c->t->rows[c->t->n - 1];
	root = s->item_of != 0 ? s->item_of : s->id;
	for (k = 0; k < c->n; k++) {
		m = &c->in->steps[k];
		if (m->items > 0 && m->id > s->id &&
		    (m->id == root || m->item_of == root))
			newest = 0;
	}
	c->t->foreachs = xreallocarray(c->t->foreachs, c->t->nforeachs + 1,
	    sizeof *c->t->foreachs);
	fe = &c->t->foreachs[c->t->nforeachs];
	memset(fe, 0, sizeof *fe);
	fe->id = s->id;
	fe->row = s;
	for (k = 0; k < c->in->nexpanded; k++)
		if (c->in->expanded[k] == s->id)
			fe->expanded = 1;
	fer->foreach = (int)c->t->nforeachs++;
	lo = tree_member_lo(c, root, 0);
	hi = tree_member_lo(c, root + 1, INT32_MIN);
	if (tree_foreach_counted(c, root, spec, s->items, &fe->tally))
		;	/* counted by the store: the items were not read */
	else if (spec >= 0 && c->in->flow != NULL &&
	    c->in->flow->steps[spec].foreach != NULL) {
		fr = xcalloc(hi - lo + 1, sizeof *fr);
		for (k = lo; k < hi; k++) {
			m = &c->in->steps[c->member[k].idx];
			fr[nfr].index = m->item_index;
			fr[nfr].attempt = m->attempt;
			fr[nfr++].status = m->status;
		}
		flow_foreach_tally(c->in->flow->steps[spec].foreach,
		    (int)s->items, fr, nfr, &fe->tally);
		free(fr);
	}
	/* Gates: this row's, index -1, before its items. */
	glo = tree_member_lo(c, s->id, INT32_MIN);
	ghi = tree_member_lo(c, s->id, 0);
	for (k = glo; k < ghi; k++) {
		m = &c->in->steps[c->member[k].idx];
		if (fe->expanded || m->status == STEP_WAITING)
			nshow++;
	}
	for (k = lo; fe->expanded && newest && k < hi; k++) {
		if (k + 1 == hi || c->member[k + 1].branch !=
		    c->member[k].branch)
			nshow++;
	}
	for (k = glo, j = 0; k < ghi; k++) {
		m = &c->in->steps[c->member[k].idx];
		c->shown[c->member[k].idx] = 1;
		if (!fe->expanded && m->status != STEP_WAITING)
			continue;
		r = tree_emit(c, TREE_STEP, depth, rails, ++j == nshow);
		r->row = m;
		r->spec = spec;
		r->status = m->status;
		r->item = 1;
	}
	for (k = lo; k < hi; k++) {
		c->shown[c->member[k].idx] = 1;
		if (!fe->expanded || !newest || (k + 1 < hi &&
		    c->member[k + 1].branch == c->member[k].branch))
			continue;
		m = &c->in->steps[c->member[k].idx];
		r = tree_emit(c, TREE_STEP, depth, rails, ++j == nshow);
		r->row = m;
		r->spec = spec;
		r->status = m->status;
		r->item = 1;
	}
}

/* Lay a run out. */
struct tree *
tree_build(const struct tree_input *in)
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
	tree_index(&c);
	for (lo = 0; lo < c.nmember; lo++)
		c.shown[c.member[lo].idx] = 1;	/* only under their for-each */
	tree_specs(&c);
	tree_subtrees(&c);
	tree_fanouts(&c);
	lo = tree_lane_lo(&c, 0, INT32_MIN);
	hi = tree_lane_lo(&c, 1, INT32_MIN);
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
tree_free(struct tree *t)
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
tree_find_step(const struct tree *t, int64_t id)
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
