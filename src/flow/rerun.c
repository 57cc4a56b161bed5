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
 * rerun.c: the retry rules, in one place for the engine (engine/rerun.c),
 * which acts on them, and the console (ui/preview.c), which says before
 * the operator asks what they would do.  Pure: callers fill flow_row
 * arrays from their step rows (in id order, every row of the workflow)
 * and pass the flow and its joins (flow_joins).
 *
 * A plain retry runs again the rows the workflow ended on, its leaves:
 * failed, cancelled or skipped rows nothing came after, and done rows
 * nothing came after although their step has a successor (a rejected
 * gate, a branch no arm matched).  A for-each's items and gates go with
 * the for-each's own row.  retry --from runs a step's latest row again,
 * and with it the leaves in other branches of a fan-out that row is in
 * whose join has not run, without which that join could never run.
 * A DAG run has a rule of its own (flow_dag_retry_plan in dag.c).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"

static size_t	 rerun_index(const struct flow_row *, size_t, int64_t);
static int	 rerun_leaf(const struct flow *, const struct flow_row *,
		     int);
static int	 rerun_after(const struct flow_row *, size_t, size_t, int64_t);
static int	 rerun_sibling(const struct flow *, const int *,
		     const struct flow_row *, size_t, size_t, size_t);
static int	 rerun_join_ran(const struct flow_row *, size_t, int64_t,
		     const char *);

/* The index of the row with this id (rows come in id order), or n. */
static size_t
rerun_index(const struct flow_row *rows, size_t n, int64_t id)
{
	size_t	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < n && rows[lo].id == id ? lo : n);
}

/*
 * Is a row, which nothing came after, one its workflow ended on?  With no
 * flow, done rows are not (only failed, cancelled and skipped ones).
 */
static int
rerun_leaf(const struct flow *f, const struct flow_row *r, int childless)
{
	const struct flow_step	*fs;
	int			 spec;

	if (!childless)
		return (0);
	if (r->status == STEP_DONE) {
		if (f == NULL || r->branch_end ||
		    (spec = flow_find(f, r->step_key)) < 0)
			return (0);
		fs = &f->steps[spec];
		return (fs->next_target >= 0 || fs->nbranch > 0 ||
		    fs->nparallel > 0);
	}
	return (r->status == STEP_FAILED ||
	    r->status == STEP_CANCELLED ||
	    r->status == STEP_SKIPPED);
}

/* Is row i one the workflow ended on (f may be NULL: see rerun_leaf)? */
int
flow_rerun_leaf(const struct flow *f, const struct flow_row *rows, size_t n,
    size_t i)
{
	size_t	k;

	for (k = 0; k < n; k++) {
		if (rows[k].parent_id == rows[i].id)
			return (0);
	}
	return (rerun_leaf(f, &rows[i], 1));
}

/* Is row i the row from, or made (at any depth) after it? */
static int
rerun_after(const struct flow_row *rows, size_t n, size_t i, int64_t from)
{
	size_t	depth = 0;

	while (i < n && depth++ <= n) {
		if (rows[i].id == from)
			return (1);
		i = rerun_index(rows, n, rows[i].parent_id);
	}
	return (0);
}

/* Has the join (step key) of fan-out row fanout run? */
static int
rerun_join_ran(const struct flow_row *rows, size_t n, int64_t fanout,
    const char *key)
{
	size_t	k;

	for (k = 0; k < n; k++) {
		if (rows[k].parent_id == fanout &&
		    strcmp(rows[k].step_key, key) == 0)
			return (1);
	}
	return (0);
}

/*
 * For retry --from: is leaf i in a branch of a fan-out that row from is
 * also inside, whose join has not run?  Then the join needs i's branch
 * again.  (A leaf elsewhere, an old failed branch whose join went on
 * without it, say, is left as it is.)
 */
static int
rerun_sibling(const struct flow *f, const int *join_of,
    const struct flow_row *rows, size_t n, size_t i, size_t from)
{
	size_t	 fi = n, gi = n, depth = 0;
	int64_t	 fo, g;
	int	 spec, join;

	for (fo = rows[i].fanout_id; fo != 0 && depth++ <= n;
	    fo = fi < n ? rows[fi].fanout_id : 0) {
		fi = rerun_index(rows, n, fo);
		for (g = rows[from].fanout_id; g != 0 && g != fo;
		    g = gi < n ? rows[gi].fanout_id : 0)
			gi = rerun_index(rows, n, g);
		if (g == 0 || fi >= n)
			continue;
		/* The nearest fan-out both are in. */
		if ((spec = flow_find(f, rows[fi].step_key)) < 0 ||
		    (join = join_of[spec]) < 0)
			return (1);
		return (!rerun_join_ran(rows, n, fo, f->steps[join].key));
	}
	return (0);
}

/*
 * Which rows a retry runs again: again[i] set for each (a for-each's row
 * standing for its items).  from is the index of the row retry --from
 * runs again itself (flow_retry_from), or n for a plain retry; with it,
 * only the leaves in the other branches of a fan-out it is in, whose
 * join has not run.  Returns how many are set.
 */
size_t
flow_retry_plan(const struct flow *f, const int *join_of,
    const struct flow_row *rows, size_t n, size_t from, unsigned char *again)
{
	unsigned char	*has_child;
	size_t		 i, p, count = 0;

	/* A DAG run has no fan-outs: its own rule (dag.c). */
	if (f != NULL && f->form != FLOW_FORM_STEPS)
		return (flow_dag_retry_plan(f, rows, n, from, again));
	has_child = xcalloc(n > 0 ? n : 1, 1);
	for (i = 0; i < n; i++) {
		if ((p = rerun_index(rows, n, rows[i].parent_id)) < n)
			has_child[p] = 1;
	}
	for (i = 0; i < n; i++) {
		again[i] = 0;
		/* A for-each's items and gates go with its own row. */
		if (rows[i].item_of != 0 && rows[i].items == 0)
			continue;
		/* A handler runs again when the run ends again, not now. */
		if (flow_handler_of(f, flow_find(f, rows[i].step_key)) != NULL)
			continue;
		if (!rerun_leaf(f, &rows[i], !has_child[i]))
			continue;
		if (from < n && (rerun_after(rows, n, i, rows[from].id) ||
		    !rerun_sibling(f, join_of, rows, n, i, from)))
			continue;
		again[i] = 1;
		count++;
	}
	free(has_child);
	return (count);
}

/*
 * Why a retry of workflow id (its status, and whether it ever started)
 * is refused, or 0.  A running workflow's for-each failure budget is the
 * engine's own question, asked before this one.
 */
int
flow_retry_refusal(int64_t id, enum run_status status, int started,
    char **why)
{
	if (status != RUN_FAILED && status != RUN_CANCELLED) {
		xasprintf(why, "workflow %lld is %s: only a failed or "
		    "cancelled workflow can be retried", (long long)id,
		    status_run_name(status));
		return (4);
	}
	if (!started) {
		xasprintf(why, "workflow %lld was cancelled before its start "
		    "time; start it again with sluice run", (long long)id);
		return (4);
	}
	return (0);
}

/*
 * retry --from STEP (a key or a name): the index of STEP's latest row in
 * *last (a for-each's own row, never an item's), or the exit code and why:
 * 2 no such step (or no flow), 4 it never ran.
 */
int
flow_retry_from(const struct flow *f, const struct flow_row *rows, size_t n,
    int64_t id, const char *from, size_t *last, char **why)
{
	size_t	i;
	int	spec;

	if (f == NULL || (spec = flow_find(f, from)) < 0) {
		xasprintf(why, "workflow %lld has no step \"%s\"",
		    (long long)id, from);
		return (2);
	}
	if (flow_handler_of(f, spec) != NULL) {
		xasprintf(why, "\"%s\" is workflow %lld's %s handler: it "
		    "runs again when the run ends again", from, (long long)id,
		    flow_handler_of(f, spec));
		return (2);
	}
	*last = n;
	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].step_key, f->steps[spec].key) == 0 &&
		    (rows[i].item_of == 0 || rows[i].items != 0))
			*last = i;
	}
	if (*last == n) {
		xasprintf(why, "step %s of workflow %lld never ran; retry "
		    "--from a step that did", from, (long long)id);
		return (4);
	}
	return (0);
}
