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
 * foreach-ops.c: what operators do to a for-each (foreach.c runs it):
 * retry of the failed items at its failure budget gate, a retry of the
 * workflow that takes the for-each over with a new row (failed and
 * never-run items run again, done ones stay done), and cancel of one
 * item (cancel --step, c in the console).  Each is a change of rows; the
 * for-each then moves on by engine_foreach_pump.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

/* What requeuing collects: the for-each, and the names for the reply. */
struct foreach_requeue {
	struct engine		*e;
	struct ewf		*wf;
	const struct flow_step	*fs;
	int64_t			 root;
	int			 visit;
	int			 failed_only;
	int			 nfailed;
	int			 nother;
	struct buf		 names;
};

/* Give an item that failed (or never ended) a new row, waiting its turn. */
static int
foreach_requeue_one(const struct store_item *it, void *arg)
{
	struct foreach_requeue	*rq = arg;
	struct store_step	 row;
	int			 failed;

	if (rq->failed_only) {
		/* The retry at the budget: the budget's own rule. */
		if (!flow_foreach_budget_again(it->status))
			return (0);
		failed = 1;
	} else {
		failed = it->status == STEP_FAILED;
		if (!failed && it->status != STEP_CANCELLED)
			return (0);
	}
	engine_foreach_row_init(&row, rq->fs);
	row.status = STEP_PENDING;
	row.attempt = it->attempt + (it->ran ? 1 : 0);
	row.visit = rq->visit;
	row.parent_id = it->id;
	row.item_of = rq->root;
	row.item_index = it->index;
	row.label = (char *)it->label;
	row.item_json = (char *)it->item_json;
	engine_foreach_row_add(rq->e, rq->wf, &row);
	if (failed && rq->nfailed < FOREACH_NAMES)
		buf_printf(&rq->names, "%s%s", rq->names.len > 0 ? ", " : "",
		    it->label != NULL ? it->label : "?");
	if (failed)
		rq->nfailed++;
	else
		rq->nother++;
	return (0);
}

/*
 * retry on a running workflow whose for-each waits at its failure budget
 * gate: the failed items run again.  -1 when there is no such gate (the
 * ordinary retry applies), else the reply's code.
 */
int
engine_foreach_retry(struct engine *e, const struct store_inbox *m,
    int64_t wfid, struct engine_reply *r)
{
	struct store_step	*rows, *gate = NULL;
	struct engine_foreach	*fe;
	struct foreach_requeue	 rq;
	struct ewf		*wf;
	char			*cause = NULL, *target, *why;
	size_t			 n, i;
	int			 fresh, rc = -1;

	if ((wf = engine_wf_get(e, wfid)) == NULL || wf->ended)
		return (-1);
	if (store_steps_unfinished(e->store, wfid, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n && gate == NULL; i++) {
		if (flow_foreach_budget_gate(rows[i].status, rows[i].item_of,
		    rows[i].item_index, rows[i].gate_json))
			gate = &rows[i];
	}
	if (gate == NULL ||
	    (fe = engine_foreach_of(e, wf, gate->item_of, &fresh)) == NULL)
		goto out;
	engine_txn(e);
	memset(&rq, 0, sizeof rq);
	rq.e = e;
	rq.wf = wf;
	rq.fs = &wf->flow->steps[fe->spec];
	rq.root = fe->root;
	rq.visit = fe->visit;
	rq.failed_only = 1;
	buf_init(&rq.names);
	if (store_items_each(e->store, fe->root, foreach_requeue_one,
	    &rq) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	xasprintf(&why, "%s chose to retry the failed items", m->who);
	gate->status = STEP_DONE;
	free(gate->result_json);
	xasprintf(&gate->result_json, "{\"decision\":\"retry\",\"items\":%d}",
	    rq.nfailed);
	free(gate->error);
	gate->error = why;
	if (store_step_end(e->store, gate, time_now_ms()) != 0 ||
	    store_timers_del_step(e->store, gate->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	wf->nactive--;
	fe->gate = 0;
	fe->failed -= rq.nfailed;
	if (fe->failed < 0)
		fe->failed = 0;
	xasprintf(&target, "workflow %lld %s", (long long)wf->id, wf->name);
	engine_audit(e, m, "retry", wf->id, gate->id, target,
	    rq.names.len > 0 ? rq.names.data : NULL, NULL);
	free(target);
	r->workflow_id = wf->id;
	r->step_id = gate->id;
	xasprintf(&r->message, "retrying %d failed item%s of %s in workflow "
	    "%lld: %s", rq.nfailed, rq.nfailed == 1 ? "" : "s", rq.fs->name,
	    (long long)wf->id, rq.names.len > 0 ? rq.names.data : "none");
	buf_free(&rq.names);
	rc = 0;
	engine_foreach_pump(e, wf, fe);
out:
	store_steps_free(rows, n);
	return (rc);
}

/*
 * An operator's retry of a workflow that ended in (or while) a for-each:
 * a new row takes the for-each over, and its failed and never-run items
 * run again; items done stay done.
 */
void
engine_foreach_rerun(struct engine *e, struct ewf *wf,
    const struct store_step *old, struct buf *names)
{
	const struct flow_step	*fs;
	struct engine_foreach	*fe;
	struct foreach_requeue	 rq;
	struct store_step	 row;
	int			 spec;
	int64_t			 id;

	if ((spec = flow_find(wf->flow, old->step_key)) < 0)
		return;
	fs = &wf->flow->steps[spec];
	engine_txn(e);
	engine_foreach_row_init(&row, fs);
	row.status = STEP_RUNNING;
	row.started_at = time_now_ms();
	row.args_json = (char *)"{}";
	row.attempt = old->attempt + 1;
	row.visit = old->visit;
	row.parent_id = old->id;
	row.fanout_id = old->fanout_id;
	row.branch_no = old->branch_no;
	row.item_of = old->item_of != 0 ? old->item_of : old->id;
	row.items = old->items;
	id = engine_foreach_row_add(e, wf, &row);
	memset(&rq, 0, sizeof rq);
	rq.e = e;
	rq.wf = wf;
	rq.fs = fs;
	rq.root = row.item_of;
	rq.visit = old->visit;
	buf_init(&rq.names);
	if (store_items_each(e->store, rq.root, foreach_requeue_one,
	    &rq) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	buf_printf(names, "%s%s (%d failed item%s%s%s, %d not run)",
	    names->len > 0 ? ", " : "", fs->name, rq.nfailed,
	    rq.nfailed == 1 ? "" : "s", rq.nfailed > 0 ? ": " : "",
	    rq.names.data != NULL ? rq.names.data : "", rq.nother);
	buf_free(&rq.names);
	if ((fe = engine_foreach_load(e, wf, id)) != NULL)
		engine_foreach_pump(e, wf, fe);
}

/*
 * cancel --step: one item of a for-each ends cancelled (its process is
 * killed, TERM then KILL), which counts as a failure of the for-each; the
 * rest goes on.  Fills the reply (3 no such step, 4 not an item that can
 * be cancelled) and returns its code.
 */
int
engine_foreach_cancel_item(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	struct store_step	*row;
	struct estep		 find, *es, *run;
	struct ewf		*wf;
	char			*cause = NULL, *comment, *why, *target;

	if (store_step_get(e->store, m->step_id, &row, &cause) != 0) {
		free(cause);
		r->code = 3;
		xasprintf(&r->message, "no step %lld", (long long)m->step_id);
		return (r->code);
	}
	r->step_id = row->id;
	r->workflow_id = row->workflow_id;
	wf = engine_wf_get(e, row->workflow_id);
	if (row->item_of == 0 || row->item_index < 0) {
		r->code = 4;
		xasprintf(&r->message, "step %lld (%s) is not a for-each item: "
		    "cancel a workflow by its id", (long long)row->id,
		    row->name);
	} else if (row->status == STEP_DONE ||
	    row->status == STEP_FAILED ||
	    row->status == STEP_CANCELLED ||
	    row->status == STEP_SKIPPED || wf == NULL || wf->ended) {
		r->code = 4;
		xasprintf(&r->message, "item %s (step %lld) is %s: only an item "
		    "that has not ended can be cancelled", row->label != NULL ?
		    row->label : row->name, (long long)row->id,
		    status_step_name(row->status));
	}
	if (r->code != 0 || (es = engine_step_from_row(e, row)) == NULL) {
		store_step_free(row);
		return (r->code);
	}
	engine_txn(e);
	find.id = row->id;
	if ((run = RB_FIND(estep_tree, &e->running, &find)) != NULL) {
		run->cancelled = 1;
		engine_exec_kill(e, run);
	}
	if ((run = engine_step_queued(e, row->id)) != NULL) {
		TAILQ_REMOVE(run->rq, run, qentry);
		engine_step_free(run);
	}
	if (store_timers_del_step(e->store, row->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	comment = engine_arg_comment(m->args_json);
	xasprintf(&why, "cancelled by %s%s%s", m->who, comment != NULL ?
	    ": " : "", comment != NULL ? comment : "");
	xasprintf(&target, "step %lld %s", (long long)row->id,
	    row->label != NULL ? row->label : row->name);
	engine_audit(e, m, "cancel", row->workflow_id, row->id, target,
	    comment, NULL);
	xasprintf(&r->message, "cancelled item %s (step %lld) of %s",
	    row->label != NULL ? row->label : "?", (long long)row->id,
	    row->name);
	engine_step_cancelled(e, es, why);
	engine_foreach_item_ended(e, es, 0);
	engine_wf_settle(e, es->wf);
	engine_step_free(es);
	free(target);
	free(why);
	free(comment);
	store_step_free(row);
	return (0);
}
