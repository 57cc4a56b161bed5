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
 * preview.c: what a retry would run again, said before it is asked for.
 * It follows the engine's own rules (engine/rerun.c): a plain retry runs
 * again the rows the workflow ended on (failed, cancelled or skipped rows
 * nothing came after, and done rows whose step has a successor that
 * never came), --from runs a step again and whatever follows it in the
 * flow; completed rows are kept either way.  It refuses what the engine
 * refuses, in the engine's words.
 */

#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"

#define PREVIEW_NAMES	12	/* names listed, then "and N more" */

static int	 preview_refuse(const struct store_workflow *, char **);
static int	 preview_budget(const struct store_workflow *,
		     const struct store_step *, size_t, struct buf *, char **);
static int	 preview_leaf(const struct flow *, const struct store_step *,
		     size_t, const unsigned char *);
static void	 preview_leaves(const struct store_workflow *,
		     const struct flow *, const struct store_step *, size_t,
		     struct buf *);
static void	 preview_push(const struct flow *, int, unsigned char *, int *,
		     int *);
static void	 preview_reach(const struct flow *, int, unsigned char *);
static void	 preview_joins(const struct flow *, unsigned char *);
static int	 preview_from(const struct store_workflow *,
		     const struct flow *, const struct store_step *, size_t,
		     const char *, struct buf *, char **);

/* The engine's refusals: only a failed or cancelled run that started. */
static int
preview_refuse(const struct store_workflow *w, char **cause)
{
	if (strcmp(w->status, "failed") != 0 &&
	    strcmp(w->status, "cancelled") != 0) {
		xasprintf(cause, "workflow %lld is %s: only a failed or "
		    "cancelled workflow can be retried", (long long)w->id,
		    w->status);
		return (-1);
	}
	if (w->started_at == 0) {
		xasprintf(cause, "workflow %lld was cancelled before its start "
		    "time; start it again with sluice run", (long long)w->id);
		return (-1);
	}
	return (0);
}

/*
 * A running workflow can be retried only when a for-each waits at its
 * spent failure budget: its failed items run again.
 */
static int
preview_budget(const struct store_workflow *w, const struct store_step *rows,
    size_t n, struct buf *b, char **cause)
{
	const struct store_step	*gate = NULL;
	size_t			 i, j, count = 0;

	for (i = 0; i < n && gate == NULL; i++) {
		if (strcmp(rows[i].status, "waiting") == 0 &&
		    rows[i].item_of != 0 && rows[i].item_index < 0 &&
		    rows[i].label != NULL &&
		    strcmp(rows[i].label, "failure budget") == 0)
			gate = &rows[i];
	}
	if (gate == NULL)
		return (preview_refuse(w, cause));
	buf_printf(b, "Retry the failed items of %s in workflow %lld: ",
	    gate->name, (long long)w->id);
	for (i = 0; i < n; i++) {
		if (rows[i].item_index < 0 || strcmp(rows[i].status,
		    "failed") != 0)
			continue;
		/* Only an item's latest row counts. */
		for (j = i + 1; j < n; j++) {
			if (rows[j].item_of == rows[i].item_of &&
			    rows[j].item_index == rows[i].item_index)
				break;
		}
		if (j < n)
			continue;
		if (count++ < PREVIEW_NAMES)
			buf_printf(b, "%s%s", count > 1 ? ", " : "",
			    rows[i].label != NULL ? rows[i].label : "?");
	}
	buf_printf(b, "%s (%zu item%s) run again, and the rollout goes on.",
	    count > PREVIEW_NAMES ? ", ..." : "", count,
	    count == 1 ? "" : "s");
	return (0);
}

/*
 * Is row i one the workflow ended on (engine_rerun_leaf)?  has_child
 * says which rows some other row came after.
 */
static int
preview_leaf(const struct flow *f, const struct store_step *rows, size_t i,
    const unsigned char *has_child)
{
	const struct store_step	*r = &rows[i];
	const struct flow_step	*fs;
	int			 spec;

	if (has_child[i] || (r->item_of != 0 && r->items == 0))
		return (0);	/* a for-each's items go with its row */
	if (strcmp(r->status, "done") == 0) {
		if (r->branch_end != NULL ||
		    (spec = flow_find(f, r->step_key)) < 0)
			return (0);
		fs = &f->steps[spec];
		return (fs->next_target >= 0 || fs->nbranch > 0 ||
		    fs->nparallel > 0);
	}
	return (strcmp(r->status, "failed") == 0 ||
	    strcmp(r->status, "cancelled") == 0 ||
	    strcmp(r->status, "skipped") == 0);
}

/* The index of the row with this id (rows come by id), or n. */
static size_t
preview_row(const struct store_step *rows, size_t n, int64_t id)
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

/* Which rows some other row came after (a parent is an earlier row). */
static unsigned char *
preview_has_child(const struct store_step *rows, size_t n)
{
	unsigned char	*has_child;
	size_t		 i, p;

	has_child = xcalloc(n > 0 ? n : 1, 1);
	for (i = 0; i < n; i++) {
		if ((p = preview_row(rows, i, rows[i].parent_id)) < i)
			has_child[p] = 1;
	}
	return (has_child);
}

/* Is row i the row with id from, or made after it (engine_row_after)? */
static int
preview_after(const struct store_step *rows, size_t n, size_t i, int64_t from)
{
	size_t	depth = 0;

	while (i < n && depth++ <= n) {
		if (rows[i].id == from)
			return (1);
		i = preview_row(rows, n, rows[i].parent_id);
	}
	return (0);
}

/*
 * Is leaf i in a branch of a fan-out that row from is also inside, whose
 * join has not run (engine_row_sibling)?
 */
static int
preview_sibling(const struct store_step *rows, size_t n, size_t i,
    size_t from)
{
	size_t	 fi = n, gi = n, k, depth = 0;
	int64_t	 fo, g;

	for (fo = rows[i].fanout_id; fo != 0 && depth++ <= n;
	    fo = fi < n ? rows[fi].fanout_id : 0) {
		fi = preview_row(rows, n, fo);
		for (g = rows[from].fanout_id; g != 0 && g != fo;
		    g = gi < n ? rows[gi].fanout_id : 0)
			gi = preview_row(rows, n, g);
		if (g == 0 || fi >= n)
			continue;
		/* Its join ran: a row after the fan-out row, outside it. */
		for (k = 0; k < n; k++) {
			if (rows[k].parent_id == fo && rows[k].fanout_id != fo)
				return (0);
		}
		return (1);
	}
	return (0);
}

/* A plain retry: the rows it ended on, and what follows them. */
static void
preview_leaves(const struct store_workflow *w, const struct flow *f,
    const struct store_step *rows, size_t n, struct buf *b)
{
	unsigned char	*has_child;
	size_t		 i, count = 0;

	has_child = preview_has_child(rows, n);
	buf_printf(b, "Retry workflow %lld %s: ", (long long)w->id, w->name);
	for (i = 0; i < n; i++) {
		if (!preview_leaf(f, rows, i, has_child))
			continue;
		if (count++ == PREVIEW_NAMES)
			buf_puts(b, ", ...");
		if (count > PREVIEW_NAMES)
			continue;
		buf_printf(b, "%s%s (%s%s)", count > 1 ? ", " : "",
		    rows[i].name, rows[i].status, strcmp(rows[i].status,
		    "skipped") == 0 ? ": goes on after it" : "");
	}
	free(has_child);
	if (count == 0) {
		buf_puts(b, "no step ended it, so nothing runs again: it is "
		    "marked completed.");
		return;
	}
	buf_printf(b, " %s again, and what follows %s. Completed steps "
	    "are kept.", count == 1 ? "runs" : "run", count == 1 ? "it" :
	    "them");
	if (count > PREVIEW_NAMES)
		buf_printf(b, " (%zu steps)", count);
}

/* Push a step not seen yet. */
static void
preview_push(const struct flow *f, int spec, unsigned char *mark, int *stack,
    int *top)
{
	if (spec < 0 || (size_t)spec >= f->nsteps || mark[spec])
		return;
	mark[spec] = 1;
	stack[(*top)++] = spec;
}

/* Mark every step reachable from spec (itself included). */
static void
preview_reach(const struct flow *f, int spec, unsigned char *mark)
{
	const struct flow_step	*fs;
	int			*stack, top = 0;
	size_t			 i;

	if (spec < 0 || (size_t)spec >= f->nsteps || mark[spec])
		return;
	/* Marked when pushed, so each step is on the stack once at most. */
	stack = xcalloc(f->nsteps, sizeof *stack);
	mark[spec] = 1;
	stack[top++] = spec;
	while (top > 0) {
		fs = &f->steps[stack[--top]];
		preview_push(f, fs->next_target, mark, stack, &top);
		preview_push(f, fs->join_target, mark, stack, &top);
		preview_push(f, fs->gate.on_timeout_target, mark, stack, &top);
		for (i = 0; i < fs->nbranch; i++)
			preview_push(f, fs->branch[i].target, mark, stack,
			    &top);
		for (i = 0; i < fs->nparallel; i++)
			preview_push(f, fs->parallel_targets[i], mark, stack,
			    &top);
	}
	free(stack);
}

/*
 * A branch that runs again ends at its fan-out's join: add the joins of
 * fan-outs whose branches hold a marked step, and what follows them.
 */
static void
preview_joins(const struct flow *f, unsigned char *mark)
{
	unsigned char	*inside;
	size_t		 i, j, k;
	int		 more = 1;

	inside = xcalloc(f->nsteps, 1);
	while (more) {
		more = 0;
		for (i = 0; i < f->nsteps; i++) {
			if (f->steps[i].nparallel == 0 ||
			    f->steps[i].join_target < 0 ||
			    mark[f->steps[i].join_target])
				continue;
			/* The branches, up to (not past) the join. */
			memset(inside, 0, f->nsteps);
			inside[f->steps[i].join_target] = 1;
			for (j = 0; j < f->steps[i].nparallel; j++) {
				preview_reach(f,
				    f->steps[i].parallel_targets[j], inside);
			}
			for (k = 0; k < f->nsteps; k++) {
				if (inside[k] && mark[k] &&
				    (int)k != f->steps[i].join_target)
					break;
			}
			if (k == f->nsteps)
				continue;
			preview_reach(f, f->steps[i].join_target, mark);
			more = 1;
		}
	}
	free(inside);
}

/*
 * retry --from STEP: that step and everything after it in the flow, and
 * (as engine_cmd_retry does) the other rows the run ended on that do not
 * come after it, such as the other branches of its fan-out.
 */
static int
preview_from(const struct store_workflow *w, const struct flow *f,
    const struct store_step *rows, size_t n, const char *from,
    struct buf *b, char **cause)
{
	unsigned char	*mark, *has_child;
	size_t		 i, last = n, count = 0;
	int		 spec, other;

	if ((spec = flow_find(f, from)) < 0) {
		xasprintf(cause, "workflow %lld has no step \"%s\"",
		    (long long)w->id, from);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].step_key, f->steps[spec].key) == 0)
			last = i;
	}
	if (last == n) {
		xasprintf(cause, "step %s of workflow %lld never ran; retry "
		    "--from a step that did", from, (long long)w->id);
		return (-1);
	}
	mark = xcalloc(f->nsteps, 1);
	preview_reach(f, spec, mark);
	has_child = preview_has_child(rows, n);
	for (i = 0; i < n; i++) {
		if (preview_leaf(f, rows, i, has_child) &&
		    !preview_after(rows, n, i, rows[last].id) &&
		    preview_sibling(rows, n, i, last) &&
		    (other = flow_find(f, rows[i].step_key)) >= 0)
			preview_reach(f, other, mark);
	}
	free(has_child);
	preview_joins(f, mark);
	buf_printf(b, "Retry workflow %lld %s from %s: ", (long long)w->id,
	    w->name, f->steps[spec].name);
	for (i = 0; i < f->nsteps; i++) {
		if (!mark[i] || count++ >= PREVIEW_NAMES)
			continue;
		buf_printf(b, "%s%s", count > 1 ? ", " : "", f->steps[i].name);
	}
	if (count > PREVIEW_NAMES)
		buf_printf(b, " and %zu more", count - PREVIEW_NAMES);
	buf_printf(b, " (%zu step%s) may run again, as the flow leads. "
	    "Completed steps are kept.", count, count == 1 ? "" : "s");
	free(mark);
	return (0);
}

/*
 * Say which steps "retry WF [--from STEP]" would run again, into b; -1
 * with cause when the engine would refuse it.
 */
int
retry_preview(struct ui *ui, int64_t wf, const char *from, struct buf *b,
    char **cause)
{
	struct store_workflow	*w;
	struct store_step	*rows = NULL;
	struct flow_diags	*d;
	struct flow		*f = NULL;
	size_t			 n = 0;
	int			 rc = -1;

	if (store_workflow_get(ui->store, wf, &w, cause) != 0)
		return (-1);
	if ((from != NULL || strcmp(w->status, "running") != 0) &&
	    preview_refuse(w, cause) != 0)
		goto out;
	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (f == NULL) {
		xasprintf(cause, "workflow %lld: its flow does not parse",
		    (long long)wf);
		goto out;
	}
	if (store_step_list(ui->store, wf, &rows, &n, cause) != 0)
		goto out;
	if (strcmp(w->status, "running") == 0) {
		rc = preview_budget(w, rows, n, b, cause);
		store_steps_free(rows, n);
		goto out;
	}
	if (from != NULL)
		rc = preview_from(w, f, rows, n, from, b, cause);
	else {
		preview_leaves(w, f, rows, n, b);
		rc = 0;
	}
	store_steps_free(rows, n);
out:
	if (f != NULL)
		flow_free(f);
	store_workflow_free(w);
	return (rc);
}
