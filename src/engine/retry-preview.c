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
 * retry-preview.c: what a retry would run again, said before it is asked
 * for, in the console (R) and by "sluice retry --dry-run" alike.  Which
 * rows run again and why a retry is refused are not worked out here:
 * they are the rules of flow/rerun.c, the ones the engine acts on (a
 * plain retry runs again the rows the workflow ended on, --from runs a
 * step again and whatever follows it in the flow, with the other
 * branches its fan-out's join waits for).  This file only says them,
 * and says true: steps that completed and run again are named as such.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"

#define PREVIEW_NAMES	12	/* names listed, then "and N more" */

static int	 preview_refuse(const struct store_workflow *, char **);
static int	 preview_budget(const struct store_workflow *,
		     const struct store_step *, size_t, struct buf *, char **);
static void	 preview_leaves(const struct store_workflow *,
		     const struct flow *, const int *,
		     const struct store_step *, size_t, struct buf *);
static void	 preview_push(const struct flow *, int, unsigned char *, int *,
		     int *);
static void	 preview_reach(const struct flow *, int, unsigned char *);
static void	 preview_joins(const struct flow *, unsigned char *);
static int	 preview_from(const struct store_workflow *,
		     const struct flow *, const int *,
		     const struct store_step *, size_t, const char *,
		     struct buf *, char **);

/* The engine's refusals: only a failed or cancelled run that started. */
static int
preview_refuse(const struct store_workflow *w, char **cause)
{
	return (flow_retry_refusal(w->id, w->status, w->started_at != 0,
	    cause));
}

/*
 * A running workflow can be retried only when a for-each waits at its
 * spent failure budget: the items flow_foreach_budget_plan says (the
 * engine's rule) run again.
 */
static int
preview_budget(const struct store_workflow *w, const struct store_step *rows,
    size_t n, struct buf *b, char **cause)
{
	struct flow_row	*fr;
	unsigned char	*again;
	size_t		 i, gate, count = 0;

	for (gate = 0; gate < n; gate++) {
		if (flow_foreach_budget_gate(rows[gate].status,
		    rows[gate].item_of, rows[gate].item_index,
		    rows[gate].gate_json))
			break;
	}
	if (gate == n)
		return (preview_refuse(w, cause));
	fr = engine_flow_rows(rows, n);
	again = xcalloc(n, 1);
	flow_foreach_budget_plan(fr, n, gate, again);
	free(fr);
	buf_printf(b, "Retry the failed items of %s in workflow %lld: ",
	    rows[gate].name, (long long)w->id);
	for (i = 0; i < n; i++) {
		if (again[i] && count++ < PREVIEW_NAMES)
			buf_printf(b, "%s%s", count > 1 ? ", " : "",
			    rows[i].label != NULL ? rows[i].label : "?");
	}
	free(again);
	buf_printf(b, "%s (%zu item%s) run again, and the rollout goes on.",
	    count > PREVIEW_NAMES ? ", ..." : "", count,
	    count == 1 ? "" : "s");
	return (0);
}

/* A plain retry: the rows it ended on, and what follows them. */
static void
preview_leaves(const struct store_workflow *w, const struct flow *f,
    const int *join_of, const struct store_step *rows, size_t n,
    struct buf *b)
{
	struct flow_row	*fr;
	unsigned char	*again;
	size_t		 i, count = 0;

	fr = engine_flow_rows(rows, n);
	again = xcalloc(n > 0 ? n : 1, 1);
	flow_retry_plan(f, join_of, fr, n, n, again);
	free(fr);
	buf_printf(b, "Retry workflow %lld %s: ", (long long)w->id, w->name);
	for (i = 0; i < n; i++) {
		if (!again[i])
			continue;
		if (count++ == PREVIEW_NAMES)
			buf_puts(b, ", ...");
		if (count > PREVIEW_NAMES)
			continue;
		buf_printf(b, "%s%s (%s%s)", count > 1 ? ", " : "",
		    rows[i].name, status_step_name(rows[i].status),
		    rows[i].status == STEP_SKIPPED ? ": goes on after it" : "");
	}
	free(again);
	if (count == 0) {
		buf_puts(b, "no step ended it, so nothing runs again: it is "
		    "marked completed.");
		return;
	}
	buf_printf(b, " %s again, and what follows %s as the flow leads; "
	    "the steps that completed keep their results and do not run "
	    "again.", count == 1 ? "runs" : "run", count == 1 ? "it" :
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

/*
 * Mark every step reachable from spec (itself included): along the
 * transitions, or in the DAG form to everything depending on it.
 */
static void
preview_reach(const struct flow *f, int spec, unsigned char *mark)
{
	const struct flow_step	*fs;
	unsigned char		*down;
	int			*stack, top = 0;
	size_t			 i;

	if (spec < 0 || (size_t)spec >= f->nsteps || mark[spec])
		return;
	if (f->form != FLOW_FORM_STEPS) {
		/* The DAG form: what depends on it, at any depth. */
		mark[spec] = 1;
		down = flow_dag_downstream(f, spec);
		for (i = 0; i < f->nsteps; i++)
			mark[i] |= down[i];
		free(down);
		return;
	}
	/* Marked when pushed, so each step is on the stack once at most. */
	stack = xcalloc(f->nsteps, sizeof *stack);
	mark[spec] = 1;
	stack[top++] = spec;
	while (top > 0) {
		fs = &f->steps[stack[--top]];
		preview_push(f, fs->next_target, mark, stack, &top);
		preview_push(f, fs->join_target, mark, stack, &top);
		preview_push(f, fs->gate.on_timeout_target, mark, stack, &top);
		preview_push(f, fs->wait.on_timeout_target, mark, stack, &top);
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
    const int *join_of, const struct store_step *rows, size_t n,
    const char *from, struct buf *b, char **cause)
{
	struct flow_row	*fr;
	struct buf	 done;
	unsigned char	*mark, *again, *ran;
	size_t		 i, last, count = 0, ndone = 0;
	int		 spec, other, rc;

	fr = engine_flow_rows(rows, n);
	if ((rc = flow_retry_from(f, fr, n, w->id, from, &last,
	    cause)) != 0) {
		free(fr);
		return (rc);
	}
	spec = flow_find(f, from);
	again = xcalloc(n > 0 ? n : 1, 1);
	flow_retry_plan(f, join_of, fr, n, last, again);
	free(fr);
	mark = xcalloc(f->nsteps, 1);
	preview_reach(f, spec, mark);
	for (i = 0; i < n; i++) {
		if (again[i] && (other = flow_find(f, rows[i].step_key)) >= 0)
			preview_reach(f, other, mark);
	}
	free(again);
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
	buf_printf(b, " (%zu step%s) may run again as the flow leads, "
	    "completed or not", count, count == 1 ? "" : "s");
	/* Say which of them had completed: they are not kept. */
	ran = xcalloc(f->nsteps, 1);
	for (i = 0; i < n; i++) {
		if (rows[i].item_of == 0 && rows[i].status == STEP_DONE &&
		    (other = flow_find(f, rows[i].step_key)) >= 0)
			ran[other] = 1;
	}
	buf_init(&done);
	for (i = 0; i < f->nsteps; i++) {
		if (!mark[i] || !ran[i] || ndone++ >= PREVIEW_NAMES)
			continue;
		buf_printf(&done, "%s%s", ndone > 1 ? ", " : "",
		    f->steps[i].name);
	}
	if (ndone > PREVIEW_NAMES)
		buf_printf(&done, " and %zu more", ndone - PREVIEW_NAMES);
	if (ndone > 0)
		buf_printf(b, ": %s %s completed", done.data, ndone == 1 ?
		    "has" : "have");
	buf_puts(b, ". The other steps keep their results.");
	buf_free(&done);
	free(ran);
	free(mark);
	return (0);
}

/*
 * Say which steps "retry WF [--from STEP]" would run again, into b: 0, or
 * with cause a store error (< 0) or the exit code of the engine's refusal
 * (2 no such step, 4 refused).
 */
int
engine_retry_preview(struct store *store, int64_t wf, const char *from,
    struct buf *b, char **cause)
{
	struct store_workflow	*w;
	struct store_step	*rows = NULL;
	struct flow_diags	*d;
	struct flow		*f = NULL;
	int			*join_of = NULL;
	size_t			 n = 0;
	int			 rc = -1;

	if ((rc = store_workflow_get(store, wf, &w, cause)) != 0)
		return (rc);
	rc = -1;
	if ((from != NULL || w->status != RUN_RUNNING) &&
	    (rc = preview_refuse(w, cause)) != 0)
		goto out;
	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (f == NULL) {
		xasprintf(cause, "workflow %lld: its flow does not parse",
		    (long long)wf);
		rc = STORE_ERR;
		goto out;
	}
	if ((rc = store_step_list(store, wf, &rows, &n, cause)) != 0)
		goto out;
	join_of = flow_joins(f);
	if (w->status == RUN_RUNNING) {
		rc = preview_budget(w, rows, n, b, cause);
		store_steps_free(rows, n);
		goto out;
	}
	if (from != NULL)
		rc = preview_from(w, f, join_of, rows, n, from, b, cause);
	else {
		preview_leaves(w, f, join_of, rows, n, b);
		rc = 0;
	}
	store_steps_free(rows, n);
out:
	free(join_of);
	if (f != NULL)
		flow_free(f);
	store_workflow_free(w);
	return (rc);
}
