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
 * step.c: step rows as the engine makes them (a new row for every pass,
 * retry and join, with the fan-out branch it belongs to), and the ready
 * queue that the drain empties into running steps, a bounded number per
 * loop turn so a long chain of built-ins cannot starve the loop.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

static int	 engine_jobs_room(const struct engine *);
static int	 engine_may_go_ahead(const struct engine *,
		     const struct estep *);

RB_GENERATE(estep_tree, estep, entry, estep_cmp);

/* Order running steps by row id. */
int
estep_cmp(struct estep *a, struct estep *b)
{
	return (a->id < b->id ? -1 : a->id > b->id);
}

/* A step of a workflow, in memory. */
struct estep *
engine_step_new(struct engine *e, struct ewf *wf, int spec, int64_t id)
{
	struct estep	*es;

	es = xcalloc(1, sizeof *es);
	es->engine = e;
	es->id = id;
	es->wf = wf;
	es->spec = spec;
	es->attempt = 1;
	es->visit = 1;
	es->item_index = -1;
	buf_init(&es->out);
	buf_init(&es->pline[0]);
	buf_init(&es->pline[1]);
	buf_init(&es->mcarry[0]);
	buf_init(&es->mcarry[1]);
	wf->refs++;
	return (es);
}

/* Forget a step (its row stays as it is), and an ended workflow with it. */
void
engine_step_free(struct estep *es)
{
	struct ewf	*wf = es->wf;
	struct engine	*e = es->engine;

	if (es->timer != NULL)
		loop_timer_free(es->timer);
	if (es->hb_timer != NULL)
		loop_timer_free(es->hb_timer);
	buf_free(&es->out);
	buf_free(&es->pline[0]);
	buf_free(&es->pline[1]);
	buf_free(&es->mcarry[0]);
	buf_free(&es->mcarry[1]);
	engine_mcp_free(es->mcp);
	if (e != NULL)
		engine_exec_log_drop(e, es);
	free(es->label);
	free(es->item_json);
	free(es);
	if (--wf->refs == 0 && wf->ended)
		engine_wf_free(e, wf);
}

/*
 * A row's kind and tool column from the step that runs: the tool or
 * template it names, else the kind's word (NULL for a gate).
 */
void
engine_step_row_kind(struct store_step *row, const struct flow_step *ks)
{
	row->kind = ks->exec;
	if (kind_names_target(ks->exec))
		row->tool = (char *)flow_step_target(ks);
	else if (ks->exec == KIND_GATE)
		row->tool = NULL;
	else
		row->tool = (char *)kind_name(ks->exec);
}

/*
 * Make the row for a pass through step spec: ready (queued to start),
 * waiting for a gate, or pending for a retry.  Returns its id, or 0 when
 * the pass is refused (too many visits: the workflow fails).
 */
int64_t
engine_step_create(struct engine *e, struct ewf *wf, int spec,
    const struct estep_origin *o)
{
	const struct flow_step	*fs = &wf->flow->steps[spec], *ks = fs;
	struct store_step	 row;
	struct estep		*es;
	int64_t			 visits = 0, now = time_now_ms();
	char			*gate = NULL, *why;
	int			 max;

	/* A for-each row and its items show what "do" runs. */
	if (fs->foreach != NULL && fs->foreach->body != NULL)
		ks = fs->foreach->body;

	engine_txn(e);
	memset(&row, 0, sizeof row);
	if (o->attempt <= 1) {
		visits = wf->visits[spec];
		max = fs->max_visits > 0 ? fs->max_visits :
		    FLOW_DEFAULT_MAX_VISITS;
		if (visits >= max) {
			xasprintf(&why, "step %s reached its limit of %d "
			    "visits (max_visits)", fs->name, max);
			engine_wf_fail(e, wf, why);
			free(why);
			return (0);
		}
		row.visit = (int)visits + 1;
		row.attempt = 1;
		wf->visits[spec]++;
	} else {
		row.attempt = o->attempt;
		row.visit = o->visit;
	}
	row.workflow_id = wf->id;
	row.name = fs->name;
	row.step_key = fs->key;
	engine_step_row_kind(&row, ks);
	row.args_json = ks->args_json;
	row.parent_id = o->parent_id;
	row.fanout_id = o->fanout_id;
	row.branch_no = o->branch_no;
	row.item_of = o->item_of;
	row.item_index = o->item_of != 0 ? o->item_index : -1;
	row.label = (char *)o->label;
	row.item_json = (char *)o->item_json;
	if (o->has_status)
		row.status = o->status;
	else if (kind_decided(fs->exec) &&
	    fs->foreach == NULL && (o->item_of != 0 ||
	    o->attempt > 1 || engine_when_holds(e, wf, fs)))
		row.status = STEP_WAITING;
	else
		row.status = STEP_READY;
	if (o->gate_json != NULL)
		row.gate_json = (char *)o->gate_json;
	else if (row.status == STEP_WAITING)
		row.gate_json = gate = engine_kind_policy(e, wf, fs);
	if (store_step_add(e->store, &row, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(gate);
	wf->nactive++;
	if (row.status == STEP_WAITING)
		engine_kind_waiting(e, wf, fs, row.id, now);
	else if (row.status == STEP_READY) {
		es = engine_step_new(e, wf, spec, row.id);
		es->attempt = row.attempt;
		es->visit = row.visit;
		es->fanout_id = row.fanout_id;
		es->branch_no = row.branch_no;
		engine_step_role(es, &row);
		engine_step_ready(e, es);
	}
	return (row.id);
}

/*
 * Where a row that follows es begins: after it, in its branch; with again
 * set, as es's next attempt (same pass) rather than a new pass.
 */
void
engine_origin_after(const struct estep *es, int again, struct estep_origin *o)
{
	memset(o, 0, sizeof *o);
	o->parent_id = es->id;
	o->fanout_id = es->fanout_id;
	o->branch_no = es->branch_no;
	if (again) {
		o->attempt = es->attempt + 1;
		o->visit = es->visit;
		if (es->role == ESTEP_ITEM) {
			/* The same item, tried again. */
			o->item_of = es->item_of;
			o->item_index = es->item_index;
			o->label = es->label;
			o->item_json = es->item_json;
		}
	}
}

/*
 * The step spec a row runs: an item runs its for-each's "do", every
 * other row its own step.
 */
const struct flow_step *
engine_spec(const struct estep *es)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];

	if (es->role == ESTEP_ITEM && fs->foreach != NULL &&
	    fs->foreach->body != NULL)
		return (fs->foreach->body);
	return (fs);
}

/* Tell from its row what a step is: plain, a for-each, an item, a gate. */
void
engine_step_role(struct estep *es, const struct store_step *row)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];

	es->item_of = row->item_of;
	es->item_index = row->item_of != 0 ? row->item_index : -1;
	if (row->item_of != 0 && row->item_index >= 0)
		es->role = ESTEP_ITEM;
	else if (row->item_of != 0 && row->items == 0)
		es->role = ESTEP_FEGATE;
	else if (fs->foreach != NULL)
		es->role = ESTEP_FOREACH;
	else
		es->role = ESTEP_PLAIN;
	if (es->role == ESTEP_ITEM) {
		free(es->label);
		es->label = row->label != NULL ? xstrdup(row->label) : NULL;
		free(es->item_json);
		es->item_json = row->item_json != NULL ?
		    xstrdup(row->item_json) : NULL;
	}
}

/*
 * Queue a ready step; the drain starts it this turn.  Processes wait for
 * a slot in their own queue, so built-ins and gates never wait behind
 * them.
 */
void
engine_step_ready(struct engine *e, struct estep *es)
{
	const struct flow_step	*fs = engine_spec(es);

	es->engine = e;
	es->rq = &e->ready[engine_step_is_process(e, fs) ? 1 : 0];
	TAILQ_INSERT_TAIL(es->rq, es, qentry);
	engine_kick(e);
}

/* The queued (ready) step of a row, or NULL. */
struct estep *
engine_step_queued(struct engine *e, int64_t id)
{
	struct estep	*es;
	int		 i;

	for (i = 0; i < 2; i++) {
		TAILQ_FOREACH(es, &e->ready[i], qentry) {
			if (es->id == id)
				return (es);
		}
	}
	return (NULL);
}

/* A step in memory for a row read from the table. */
struct estep *
engine_step_from_row(struct engine *e, const struct store_step *row)
{
	struct ewf	*wf;
	struct estep	*es;
	int		 spec;

	if ((wf = engine_wf_get(e, row->workflow_id)) == NULL)
		return (NULL);
	if ((spec = flow_find(wf->flow, row->step_key)) < 0)
		return (NULL);
	es = engine_step_new(e, wf, spec, row->id);
	es->attempt = row->attempt;
	es->visit = row->visit;
	es->fanout_id = row->fanout_id;
	es->branch_no = row->branch_no;
	engine_step_role(es, row);
	return (es);
}

/* A retry's backoff is over: its pending row becomes ready. */
void
engine_step_wake(struct engine *e, int64_t id)
{
	struct store_step	*row;
	struct estep		*es;
	char			*cause = NULL;

	if (store_step_get(e->store, id, &row, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return;
	}
	if (row->status == STEP_PENDING &&
	    (es = engine_step_from_row(e, row)) != NULL) {
		engine_txn(e);
		if (store_step_set_status(e->store, id, STEP_READY,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_step_ready(e, es);
	}
	store_step_free(row);
}

/* A paused workflow resumed: queue its ready rows again. */
void
engine_wf_requeue(struct engine *e, struct ewf *wf)
{
	struct store_step	*rows;
	struct estep		*es;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_steps_unfinished(e->store, wf->id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (rows[i].status != STEP_READY)
			continue;
		if (engine_step_queued(e, rows[i].id) == NULL &&
		    (es = engine_step_from_row(e, &rows[i])) != NULL)
			engine_step_ready(e, es);
	}
	store_steps_free(rows, n);
}

/*
 * Whether one more process may be recorded running.  Past the job slots
 * only while processes end briefly (the last ran under ENGINE_BRIEF_MS,
 * so a slot frees soon), and as many more as there are slots, at least
 * ENGINE_AHEAD_MIN (with few slots, one commit then still covers the
 * starts of several processes): those wait, committed, for a slot, and
 * take it the moment one frees (engine_spawn), so the slots do not idle
 * while the next starts commit.  Processes that run longer wait
 * "ready", as the commit is then a small part of their time.
 */
static int
engine_jobs_room(const struct engine *e)
{
	int	 ahead = 0;

	if (e->brief)
		ahead = e->opts.max_jobs > ENGINE_AHEAD_MIN ?
		    e->opts.max_jobs : ENGINE_AHEAD_MIN;
	return (e->nprocs < e->opts.max_jobs + ahead);
}

/*
 * Whether a process step may be recorded running before a slot is free.
 * Not one whose on_interrupt is ask or fail: those must not run twice,
 * and an engine that died while such a row waited would have an operator
 * asked about (or a run failed for) a step that never started.  It waits
 * ready for a slot, and so do the steps queued behind it.
 */
static int
engine_may_go_ahead(const struct engine *e, const struct estep *es)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];

	return (e->nprocs < e->opts.max_jobs ||
	    fs->on_interrupt == FLOW_INTERRUPT_RETRY);
}

/*
 * Start what is ready, in order, until the queue is empty, the process
 * slots are full, or this turn's share is used (then go on next turn).
 */
void
engine_drain(void *arg)
{
	struct engine		*e = arg;
	struct estep		*es;
	int			 n = 0;

	e->drain_queued = 0;
	for (;;) {
		if (e->stopping)
			return;
		if ((es = TAILQ_FIRST(&e->ready[0])) == NULL &&
		    (!engine_jobs_room(e) ||
		    (es = TAILQ_FIRST(&e->ready[1])) == NULL ||
		    !engine_may_go_ahead(e, es)))
			return;
		if (n++ == ENGINE_TURN_STEPS) {
			loop_timer_start(e->more, 0);
			return;
		}
		TAILQ_REMOVE(es->rq, es, qentry);
		if (es->wf->ended || es->wf->paused) {
			/* Its row stays ready; resume queues it again. */
			engine_step_free(es);
			continue;
		}
		engine_exec(e, es);
	}
}
