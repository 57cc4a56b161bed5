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
 * dag.c: the engine's side of the DAG form (SPEC §3).  Whenever a step of
 * a DAG run ends, every step whose dependencies have all ended since its
 * own latest row is decided (flow_dag_decide): started, skipped (its row
 * made already ended, so dependants are decided in the same pass, in the
 * flow's dependency order) or the run failed.  Everything is read from
 * the run's rows, so the decision after a crash, or after an operator's
 * retry made a dependency's newer row, is the same one: a step is due
 * again when a dependency has a row newer than its own.  All of it lands
 * in the turn's one transaction with the end that caused it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* A step's latest row, as the decisions of one pass see it. */
struct dag_latest {
	int64_t			 id;		/* 0: no row yet */
	enum step_status	 status;
	const char		*result_json;
	int			 has_exit_code;
	int			 exit_code;
};

static void	 engine_dag_latest(const struct flow *,
		     const struct store_step *, size_t, struct dag_latest *);
static int	 engine_dag_ended(enum step_status);
static int	 engine_dag_step(struct engine *, struct ewf *, int,
		     struct dag_latest *, cJSON **, int *);

/* Is a row's status the end of its step, as a dependency? */
static int
engine_dag_ended(enum step_status s)
{
	return (s == STEP_DONE || s == STEP_SKIPPED || s == STEP_FAILED);
}

/* Each step's latest row (a for-each's own row, never its items'). */
static void
engine_dag_latest(const struct flow *f, const struct store_step *rows,
    size_t n, struct dag_latest *latest)
{
	size_t	i;
	int	spec;

	for (i = 0; i < n; i++) {
		if (rows[i].item_of != 0 && rows[i].items == 0)
			continue;
		if ((spec = flow_find(f, rows[i].step_key)) < 0)
			continue;
		latest[spec].id = rows[i].id;
		latest[spec].status = rows[i].status;
		latest[spec].result_json = rows[i].result_json;
		latest[spec].has_exit_code = rows[i].has_exit_code;
		latest[spec].exit_code = rows[i].exit_code;
	}
}

/*
 * Decide step spec when it is due: 0 to go on with the pass, -1 when
 * the run ended.  *scope is built the first time a condition needs it;
 * *decided counts the decisions that wrote (all but waiting).
 */
static int
engine_dag_step(struct engine *e, struct ewf *wf, int spec,
    struct dag_latest *latest, cJSON **scope, int *decided)
{
	const struct flow_step	*st = &wf->flow->steps[spec];
	struct flow_dag_end	*ends;
	struct estep_origin	 o;
	enum flow_dag_verdict	 v;
	int64_t			 newest = 0, id;
	char			*why = NULL;
	size_t			 j;
	int			 t, conds = 0;

	for (j = 0; j < st->ndeps; j++) {
		t = st->deps[j].target;
		if (t < 0 || latest[t].id == 0)
			return (0);
		if (latest[t].id > newest)
			newest = latest[t].id;
	}
	/* Decided since its dependencies last ended (or under way). */
	if (latest[spec].id > newest)
		return (0);
	/*
	 * A dependency under way: the step waits (flow_dag_decide's first
	 * rule), and the run's scope, a read of its rows, is not built for
	 * a join that waits for its last branch.
	 */
	for (j = 0; j < st->ndeps; j++) {
		if (!engine_dag_ended(latest[st->deps[j].target].status))
			return (0);
		if (st->deps[j].cond != NULL)
			conds = 1;
	}
	ends = xcalloc(st->ndeps, sizeof *ends);
	for (j = 0; j < st->ndeps; j++) {
		t = st->deps[j].target;
		ends[j].ended = engine_dag_ended(latest[t].status);
		ends[j].status = latest[t].status;
		ends[j].result_json = latest[t].result_json;
		ends[j].has_exit_code = latest[t].has_exit_code;
		ends[j].exit_code = latest[t].exit_code;
	}
	/* Only an edge's condition reads the scope. */
	if (*scope == NULL && conds)
		*scope = engine_scope(e, wf, 1);
	v = flow_dag_decide(wf->flow, spec, ends, *scope, &why);
	free(ends);
	memset(&o, 0, sizeof o);
	o.parent_id = newest;
	if (v != FLOW_DAG_WAIT)
		(*decided)++;
	switch (v) {
	case FLOW_DAG_WAIT:
		break;
	case FLOW_DAG_START:
		if ((id = engine_step_create(e, wf, spec, &o)) != 0) {
			latest[spec].id = id;
			latest[spec].status = STEP_READY;
		}
		break;
	case FLOW_DAG_SKIP:
		o.has_status = 1;
		o.status = STEP_PENDING;
		if ((id = engine_step_create(e, wf, spec, &o)) != 0) {
			engine_row_skip(e, wf, id, why);
			latest[spec].id = id;
			latest[spec].status = STEP_SKIPPED;
			latest[spec].result_json = NULL;
			latest[spec].has_exit_code = 0;
		}
		log_debug("%s: workflow %lld: %s %s", __func__,
		    (long long)wf->id, st->name, why);
		break;
	case FLOW_DAG_FAIL:
		engine_wf_fail(e, wf, why);
		break;
	}
	free(why);
	return (wf->ended ? -1 : 0);
}

/*
 * A step of a DAG run ended (or the run began, or was recovered):
 * decide every step that is due, dependencies first.
 */
void
engine_dag_advance(struct engine *e, struct ewf *wf)
{
	struct store_step	*rows;
	size_t			 n;
	char			*cause = NULL;

	if (wf->ended || wf->flow->form == FLOW_FORM_STEPS ||
	    wf->flow->order == NULL)
		return;
	engine_txn(e);
	if (store_step_list(e->store, wf->id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	engine_dag_advance_rows(e, wf, rows, n);
	store_steps_free(rows, n);
}

/*
 * engine_dag_advance from the run's rows as read (recovery reads every
 * run's at once: store_recover_dag_rows), in the order they were made.
 * Returns how many decisions wrote: after one, rows read before it may
 * be stale.
 */
int
engine_dag_advance_rows(struct engine *e, struct ewf *wf,
    const struct store_step *rows, size_t n)
{
	const struct flow	*f = wf->flow;
	struct dag_latest	*latest;
	cJSON			*scope = NULL;
	size_t			 k;
	int			 spec, decided = 0;

	if (wf->ended || f->form == FLOW_FORM_STEPS || f->order == NULL)
		return (0);
	engine_txn(e);
	latest = xcalloc(f->nsteps + 1, sizeof *latest);
	engine_dag_latest(f, rows, n, latest);
	wf->refs++;	/* failing the run must not free it under us */
	for (k = 0; k < f->norder; k++) {
		spec = f->order[k];
		if (f->steps[spec].ndeps == 0)
			continue;
		if (engine_dag_step(e, wf, spec, latest, &scope,
		    &decided) != 0)
			break;
	}
	cJSON_Delete(scope);
	free(latest);
	if (--wf->refs == 0 && wf->ended)
		engine_wf_free(e, wf);
	return (decided);
}

/* A DAG run begins: every step with no dependencies starts. */
void
engine_dag_begin(struct engine *e, struct ewf *wf)
{
	struct estep_origin	 o;
	size_t			 k;
	int			 spec;

	for (k = 0; k < wf->flow->norder && !wf->ended; k++) {
		spec = wf->flow->order[k];
		if (wf->flow->steps[spec].ndeps > 0)
			continue;
		memset(&o, 0, sizeof o);
		engine_step_create(e, wf, spec, &o);
	}
}
