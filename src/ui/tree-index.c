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
 * tree-index.c: the sorts and binary searches the layout (tree.c) walks
 * over: the rows by id and by lane, each row's flow step, what is under
 * each fan-out row and its most active status, and which fan-outs
 * collapse.  Pure, like tree.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define TREE_MAX_BRANCHES	8	/* wider fan-outs collapse */
#define TREE_MAX_ROWS		30	/* and fan-outs with more rows */

static int	 tree_cmp_id(const void *, const void *);
static int	 tree_cmp_lane(const void *, const void *);
static int	 tree_cmp_spec(const void *, const void *);
static int	 tree_activity(enum step_status);
static int	 tree_is_member(const struct store_step *);

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
void
ui_tree_index(struct tree_ctx *c)
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
		if (flow_handler_key(s->step_key))
			c->lane[i].fanout = -1;	/* after all the steps */
		else if (tree_is_member(s)) {
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
ssize_t
ui_tree_find(const struct tree_ctx *c, int64_t id)
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
size_t
ui_tree_lane_lo(const struct tree_ctx *c, int64_t fanout, int branch)
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
void
ui_tree_specs(struct tree_ctx *c)
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
void
ui_tree_subtrees(struct tree_ctx *c)
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
		    (up = ui_tree_find(c, s->fanout_id)) < 0 ||
		    c->in->steps[up].id >= s->id)
			continue;
		c->sub[up] += 1 + c->sub[i];
		if (c->act[i] > c->act[up])
			c->act[up] = c->act[i];
	}
}

/* A new, empty fan-out entry; its index. */
int
ui_tree_fanout_new(struct tree_ctx *c)
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
void
ui_tree_fanouts(struct tree_ctx *c)
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
		lo = ui_tree_lane_lo(c, in->steps[i].id, INT32_MIN);
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
		c->fo[i] = ui_tree_fanout_new(c);
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
enum step_status
ui_tree_lane_status(const struct tree_ctx *c, size_t lo, size_t hi)
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
