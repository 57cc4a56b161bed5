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
 * tree-foreach.c: a for-each's rows in the layout.  Its items and gates
 * are in no lane: under the for-each's row go the gates that wait, and
 * once it is expanded every gate and every item's latest row; its tally
 * comes from the items read, or from the store's counts when they were
 * not.  Pure, like tree.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

static size_t	 tree_member_lo(const struct tree_ctx *, int64_t, int);
static int	 tree_foreach_counted(struct tree_ctx *, int64_t, int, int64_t,
		     struct flow_foreach_tally *);

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
void
ui_tree_foreach(struct tree_ctx *c, size_t i, int depth, uint64_t rails,
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
		if (m->status == STEP_WAITING)
			fe->gate_waits = 1;
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
		r = ui_tree_emit(c, TREE_STEP, depth, rails, ++j == nshow);
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
		r = ui_tree_emit(c, TREE_STEP, depth, rails, ++j == nshow);
		r->row = m;
		r->spec = spec;
		r->status = m->status;
		r->item = 1;
	}
}
