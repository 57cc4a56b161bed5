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
 * advance.c: what follows when a step ends.  Success takes the step's
 * transition (done, branch, parallel, next, join, or the end of its
 * branch); failure retries with a stored timer while attempts last, then
 * fails the workflow unless a branch handles the exit code or the step's
 * fan-out lets a branch fail.  Joins are decided from how the branches of
 * the fan-out row ended, as recorded on the rows that ended them, so the
 * same decision is made after a crash from the table alone.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	 engine_row_end(struct engine *, struct estep *, enum step_status,
		     const char *, const char *, int, int);
static int	 engine_branch_pick(struct engine *, struct estep *,
		     const char *, int, int);
static int	 engine_branch_reads_exit(const struct flow_step *);
static int	 engine_create_next(struct engine *, struct estep *, int);
static void	 engine_branch_ended(struct engine *, struct estep *,
		     const char *);
static struct engine_fanout *engine_fanout_read(struct engine *,
		     struct ewf *, int64_t);
static void	 engine_fanout_count(struct engine_fanout *, int,
		     const char *);
static int	 engine_join_policy_lenient(const struct ewf *, int);
static void	 engine_join_check(struct engine *, struct ewf *, int64_t);
static void	 engine_fanout_ended(struct engine *, struct ewf *,
		     struct engine_fanout *);
static int	 engine_in_fanout(struct engine *, const struct store_step *,
		     int64_t);

/* The timeout of a step: its own, its tool's, else the default. */
int64_t
engine_step_timeout(struct engine *e, const struct flow_step *fs)
{
	const struct flow_tool	*t;

	if (fs->timeout >= 0)
		return (fs->timeout);
	t = engine_step_tool(e, fs);
	if (t != NULL && t->timeout >= 0)
		return (t->timeout);
	if (e->opts.site != NULL && e->opts.site->timeout >= 0)
		return (e->opts.site->timeout);
	return (FLOW_DEFAULT_TIMEOUT);
}

/* Write a step row's end, the run's secrets masked in what it keeps. */
static void
engine_row_end(struct engine *e, struct estep *es, enum step_status status,
    const char *result, const char *error, int has_exit, int exit_code)
{
	struct store_step	 row;

	engine_txn(e);
	memset(&row, 0, sizeof row);
	row.id = es->id;
	row.status = status;
	row.result_json = mask_json(es->wf->mask, result);
	row.error = mask_text(es->wf->mask, error);
	row.has_exit_code = has_exit;
	row.exit_code = exit_code;
	/* A process ended when reaped, not when its row is written. */
	if (store_step_end(e->store, &row, es->ended_at != 0 ? es->ended_at :
	    time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(row.result_json);
	free(row.error);
	es->wf->nactive--;
	/* Its key's slot, if it held one, goes on in this transaction. */
	if (engine_conc_step_keyed(es))
		engine_conc_step_release(e, es->id);
}

/*
 * A row made pending a moment ago ends skipped, for a reason (the DAG
 * form skips a step whose condition is false or whose dependency was
 * skipped): it is written ended, never queued, so no crash can run it.
 */
void
engine_row_skip(struct engine *e, struct ewf *wf, int64_t id,
    const char *why)
{
	struct estep	 tmp;

	memset(&tmp, 0, sizeof tmp);
	tmp.id = id;
	tmp.wf = wf;
	engine_row_end(e, &tmp, STEP_SKIPPED, "null", why, 0, 0);
}

/* A step succeeded with a result: record it and go on. */
void
engine_step_done(struct engine *e, struct estep *es, const char *result,
    int has_exit, int exit_code)
{
	engine_row_end(e, es, STEP_DONE, result, NULL, has_exit, exit_code);
	engine_trace(e, 'D', es->id);
	if (es->wf->ended)
		;
	else if (engine_handler_is(es))
		engine_handler_ended(e, es, NULL);
	else if (es->role == ESTEP_ITEM)
		engine_foreach_item_ended(e, es, 1);
	else if (es->role == ESTEP_FEGATE)
		engine_foreach_gate_decided(e, es, "approved");
	else
		engine_advance(e, es, result, has_exit, exit_code);
	engine_wf_settle(e, es->wf);
}

/* An operator skipped a step: it counts as done with a null result. */
void
engine_step_skipped(struct engine *e, struct estep *es, const char *why)
{
	engine_row_end(e, es, STEP_SKIPPED, "null", why, 0, 0);
	if (es->wf->ended)
		;
	else if (engine_handler_is(es))
		engine_handler_ended(e, es, NULL);
	else if (es->role == ESTEP_ITEM)
		engine_foreach_item_ended(e, es, 1);
	else if (es->role == ESTEP_FEGATE)
		engine_foreach_gate_decided(e, es, "skipped");
	else
		engine_advance(e, es, "null", 0, 0);
	engine_wf_settle(e, es->wf);
}

/*
 * A gate was rejected (or timed out): a branch on its result decides what
 * follows; with no branch the workflow fails, saying who and why.
 */
void
engine_step_rejected(struct engine *e, struct estep *es, const char *why)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];
	char			*msg;

	engine_row_end(e, es, STEP_DONE, "\"rejected\"", why, 0, 0);
	if (es->wf->ended)
		return;
	if (engine_handler_is(es)) {
		/* A handler's gate said no: the handler did not do its job. */
		xasprintf(&msg, "gate rejected: %s", why);
		engine_handler_ended(e, es, msg);
		free(msg);
	} else if (es->role == ESTEP_ITEM)
		engine_foreach_item_ended(e, es, 1);
	else if (es->role == ESTEP_FEGATE)
		engine_foreach_gate_decided(e, es, "rejected");
	else if (fs->nbranch > 0 || (es->wf->flow->form != FLOW_FORM_STEPS &&
	    flow_dag_judged(es->wf->flow, es->spec)))
		engine_advance(e, es, "\"rejected\"", 0, 0);
	else {
		xasprintf(&msg, "gate %s: %s", fs->name, why);
		engine_wf_fail(e, es->wf, msg);
		free(msg);
	}
	engine_wf_settle(e, es->wf);
}

/* A row is cancelled on its own (a gate escalated past its timeout). */
void
engine_step_cancelled(struct engine *e, struct estep *es, const char *why)
{
	engine_row_end(e, es, STEP_CANCELLED, NULL, why, 0, 0);
}

/* Make the row of the next pass of a failed step, after its backoff. */
static void
engine_step_retry(struct engine *e, struct estep *es, int64_t delay)
{
	struct estep_origin	 o;
	int64_t			 id, due;

	engine_origin_after(es, 1, &o);
	o.has_status = 1;
	o.status = STEP_PENDING;
	if ((id = engine_step_create(e, es->wf, es->spec, &o)) == 0)
		return;
	due = time_now_ms() + delay;
	if (store_timer_add(e->store, due, "retry", es->wf->id, id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, due);
}

/*
 * A step's attempt failed.  With attempts left, a new pending row waits
 * out the backoff; otherwise a branch on exit_code may take it, a
 * lenient fan-out may count it as a failed branch, or the workflow fails.
 */
void
engine_step_failed(struct engine *e, struct estep *es, const char *why,
    int has_exit, int exit_code, const char *result)
{
	const struct flow_step	*fs = engine_spec(es);
	const struct flow_tool	*t;
	struct retry_policy	 rp;
	char			*msg;
	int			 arm;

	engine_row_end(e, es, STEP_FAILED, result, why, has_exit, exit_code);
	if (es->wf->ended)
		return;
	t = engine_step_tool(e, fs);
	retry_policy_of(fs, t, e->opts.site != NULL ? &e->opts.site->retry :
	    NULL, &rp);
	if (!es->no_retry && es->attempt < retry_max_attempts(&rp)) {
		engine_step_retry(e, es, retry_delay(&rp, es->attempt,
		    engine_random(e)));
		return;
	}
	if (engine_handler_is(es)) {
		engine_handler_ended(e, es, why);
		return;
	}
	if (es->role == ESTEP_ITEM) {
		engine_foreach_item_ended(e, es, 0);
		engine_wf_settle(e, es->wf);
		return;
	}
	if (engine_branch_reads_exit(fs) &&
	    (arm = engine_branch_pick(e, es, result, has_exit,
	    exit_code)) >= 0) {
		engine_create_next(e, es, fs->branch[arm].target);
		engine_wf_settle(e, es->wf);
		return;
	}
	if (es->wf->flow->form != FLOW_FORM_STEPS &&
	    flow_dag_tolerated(es->wf->flow, es->spec)) {
		/* Its dependants all say "trigger": "all_done". */
		engine_dag_advance(e, es->wf);
		engine_wf_settle(e, es->wf);
		return;
	}
	if (es->fanout_id != 0 &&
	    engine_join_policy_lenient(es->wf, engine_fanout_spec(e, es))) {
		engine_branch_ended(e, es, "failed");
		engine_wf_settle(e, es->wf);
		return;
	}
	if (es->attempt > 1)
		xasprintf(&msg, "step %s failed after %d attempts: %s",
		    fs->name, es->attempt, why);
	else
		xasprintf(&msg, "step %s failed: %s", fs->name, why);
	engine_wf_fail(e, es->wf, msg);
	free(msg);
}

/* Does any branch arm of a step read exit_code? */
static int
engine_branch_reads_exit(const struct flow_step *fs)
{
	size_t	 i;

	for (i = 0; i < fs->nbranch; i++) {
		if (cond_reads(fs->branch[i].cond, "exit_code"))
			return (1);
	}
	return (0);
}

/* The first branch arm whose condition holds (or the else), or -1. */
static int
engine_branch_pick(struct engine *e, struct estep *es, const char *result,
    int has_exit, int exit_code)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];
	cJSON			*scope;
	int			 arm;

	scope = engine_scope(e, es->wf, es->wf->uses_steps[es->spec]);
	arm = flow_branch_pick(fs, scope, result, has_exit, exit_code);
	cJSON_Delete(scope);
	return (arm);
}

/* A new pass of step spec following es, in es's branch. */
static int
engine_create_next(struct engine *e, struct estep *es, int spec)
{
	struct estep_origin	 o;

	if (spec < 0)
		return (0);
	engine_origin_after(es, 0, &o);
	return (engine_step_create(e, es->wf, spec, &o) != 0);
}

/* Take a finished step's transition. */
void
engine_advance(struct engine *e, struct estep *es, const char *result,
    int has_exit, int exit_code)
{
	struct ewf		*wf = es->wf;
	const struct flow_step	*fs = &wf->flow->steps[es->spec];
	struct estep_origin	 o;
	char			*msg;
	size_t			 i;
	int			 arm;

	if (fs->done) {
		engine_wf_end(e, wf, RUN_COMPLETED, NULL);
		return;
	}
	if (wf->flow->form != FLOW_FORM_STEPS) {
		engine_dag_advance(e, wf);
		return;
	}
	if (fs->nbranch > 0) {
		arm = engine_branch_pick(e, es, result, has_exit, exit_code);
		if (arm < 0) {
			xasprintf(&msg, "step %s: no branch matched its "
			    "result %s", fs->name, result != NULL ? result :
			    "null");
			engine_wf_fail(e, wf, msg);
			free(msg);
		} else
			engine_create_next(e, es, fs->branch[arm].target);
		return;
	}
	if (fs->nparallel > 0) {
		for (i = 0; i < fs->nparallel && !wf->ended; i++) {
			memset(&o, 0, sizeof o);
			o.parent_id = es->id;
			o.fanout_id = es->id;
			o.branch_no = (int)i;
			engine_step_create(e, wf, fs->parallel_targets[i], &o);
		}
		return;
	}
	if (fs->next_target >= 0) {
		engine_create_next(e, es, fs->next_target);
		return;
	}
	if (es->fanout_id == 0) {
		if (fs->join_target >= 0)	/* a join outside a fan-out */
			engine_create_next(e, es, fs->join_target);
		return;
	}
	/* The end of a branch: at its join, or (lenient) without. */
	if (fs->join_target >= 0 ||
	    wf->flow->steps[engine_fanout_spec(e, es)].join_target >= 0)
		engine_branch_ended(e, es, "join");
	else
		engine_branch_ended(e, es, "end");
}

/* The flow step of the fan-out row a step's branch belongs to. */
int
engine_fanout_spec(struct engine *e, struct estep *es)
{
	return (engine_fanout_read(e, es->wf, es->fanout_id)->spec);
}

/* Does a fan-out's join let branches fail (all_done or a count)? */
static int
engine_join_policy_lenient(const struct ewf *wf, int fanout_spec)
{
	int	 j;

	if (fanout_spec < 0 || (j = wf->join_of[fanout_spec]) < 0)
		return (0);
	return (wf->flow->steps[j].join_policy != FLOW_JOIN_ALL_SUCCESS);
}

/* A row ended its branch of a fan-out; see whether the join may run. */
static void
engine_branch_ended(struct engine *e, struct estep *es, const char *how)
{
	struct engine_fanout	*fo;

	if (store_step_set_branch_end(e->store, es->id, how) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	TAILQ_FOREACH(fo, &es->wf->fanouts, entry) {
		if (fo->id == es->fanout_id) {
			engine_fanout_count(fo, es->branch_no, how);
			break;
		}
	}
	engine_join_check(e, es->wf, es->fanout_id);
}

/* Count one branch's end into a fan-out's tally (once per branch). */
static void
engine_fanout_count(struct engine_fanout *fo, int branch, const char *how)
{
	if (branch < 0 || branch >= fo->nbranches || fo->seen[branch])
		return;
	fo->seen[branch] = 1;
	if (strcmp(how, "join") == 0)
		fo->joined++;
	else if (strcmp(how, "failed") == 0)
		fo->failed++;
	else
		fo->ended++;
}

/*
 * How a fan-out row's branches have ended: kept in memory once read from
 * the table, so each arrival costs nothing however wide the fan-out.
 */
static struct engine_fanout *
engine_fanout_read(struct engine *e, struct ewf *wf, int64_t id)
{
	struct engine_fanout	*fo;
	struct store_step	*row;
	struct store_branch_end	*ends;
	char			*cause = NULL;
	size_t			 n, i;

	TAILQ_FOREACH(fo, &wf->fanouts, entry) {
		if (fo->id == id)
			return (fo);
	}
	if (store_step_get(e->store, id, &row, &cause) != 0)
		engine_store_fatal(e, cause);
	fo = xcalloc(1, sizeof *fo);
	fo->id = id;
	fo->spec = flow_find(wf->flow, row->step_key);
	fo->fanout_id = row->fanout_id;
	fo->branch_no = row->branch_no;
	store_step_free(row);
	fo->join = fo->spec >= 0 ? wf->join_of[fo->spec] : -1;
	fo->nbranches = fo->spec >= 0 ?
	    (int)wf->flow->steps[fo->spec].nparallel : 0;
	fo->seen = xcalloc((size_t)fo->nbranches + 1, 1);
	if (store_branch_ends(e->store, id, &ends, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++)
		engine_fanout_count(fo, ends[i].branch_no, ends[i].end);
	free(ends);
	TAILQ_INSERT_TAIL(&wf->fanouts, fo, entry);
	return (fo);
}

/* Forget a fan-out's tally (its join is made, or the workflow is gone). */
void
engine_fanout_forget(struct ewf *wf, struct engine_fanout *fo)
{
	TAILQ_REMOVE(&wf->fanouts, fo, entry);
	free(fo->seen);
	free(fo);
}

/*
 * Decide a fan-out's join from its branches' ends: run it (once), wait,
 * or fail the workflow when the policy can no longer be met.
 */
static void
engine_join_check(struct engine *e, struct ewf *wf, int64_t fanout)
{
	struct engine_fanout	 fo, *f;
	const struct flow_step	*js;
	struct estep_origin	 o;
	int64_t			 exists;
	char			*msg = NULL;
	int			 go = 0, need, done;

	f = engine_fanout_read(e, wf, fanout);
	if (f->join < 0) {
		engine_fanout_ended(e, wf, f);
		return;
	}
	fo = *f;
	js = &wf->flow->steps[fo.join];
	done = fo.joined + fo.failed + fo.ended;
	switch (js->join_policy) {
	case FLOW_JOIN_ALL_SUCCESS:
		if (fo.ended > 0 || fo.failed > 0)
			xasprintf(&msg, "join %s: a branch of %s ended "
			    "without reaching it", js->name,
			    wf->flow->steps[fo.spec].name);
		else
			go = fo.joined == fo.nbranches;
		break;
	case FLOW_JOIN_ALL_DONE:
		go = done == fo.nbranches;
		break;
	case FLOW_JOIN_COUNT:
		need = js->join_count;
		if (fo.joined >= need)
			go = 1;
		else if (fo.nbranches - fo.failed - fo.ended < need)
			xasprintf(&msg, "join %s: only %d of the %d branches "
			    "it needs can still arrive", js->name,
			    fo.nbranches - fo.failed - fo.ended, need);
		break;
	}
	if (msg != NULL) {
		engine_wf_fail(e, wf, msg);
		free(msg);
		return;
	}
	if (!go)
		return;
	engine_fanout_forget(wf, f);
	if (store_step_join_exists(e->store, fanout, js->key, &exists) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (exists != 0)
		return;
	if (js->join_policy == FLOW_JOIN_COUNT)
		engine_rows_cancel(e, wf, fanout, "cancelled: the join had "
		    "enough branches");
	memset(&o, 0, sizeof o);
	o.parent_id = fanout;
	o.fanout_id = fo.fanout_id;
	o.branch_no = fo.branch_no;
	engine_step_create(e, wf, fo.join, &o);
}

/*
 * A fan-out with no join of its own, inside another fan-out, ends its
 * branch of the enclosing one when all its own branches have ended: it
 * arrives at the enclosing join when any of them did or a join is named.
 */
static void
engine_fanout_ended(struct engine *e, struct ewf *wf, struct engine_fanout *f)
{
	struct estep	 tmp;
	const char	*how;
	int		 outer, named;

	if (f->fanout_id == 0 || f->joined + f->failed + f->ended <
	    f->nbranches)
		return;
	memset(&tmp, 0, sizeof tmp);
	tmp.id = f->id;
	tmp.wf = wf;
	tmp.spec = f->spec;
	tmp.fanout_id = f->fanout_id;
	tmp.branch_no = f->branch_no;
	outer = engine_fanout_spec(e, &tmp);
	named = (f->spec >= 0 && wf->flow->steps[f->spec].join_target >= 0) ||
	    (outer >= 0 && wf->flow->steps[outer].join_target >= 0);
	if (f->failed > 0)
		how = "failed";
	else if (f->joined > 0 || named)
		how = "join";
	else
		how = "end";
	engine_fanout_forget(wf, f);
	engine_branch_ended(e, &tmp, how);
}

/*
 * Nothing is left to run but a fan-out still waits for branches that can
 * no longer come: its join will never run, so the workflow fails.
 */
static int
engine_join_stranded(struct engine *e, struct ewf *wf)
{
	struct engine_fanout	*fo;
	char			*msg;

	TAILQ_FOREACH(fo, &wf->fanouts, entry) {
		if (fo->join < 0)
			continue;
		xasprintf(&msg, "join %s: %d of the %d branches of %s arrived "
		    "and nothing else can run", wf->flow->steps[fo->join].name,
		    fo->joined, fo->nbranches, wf->flow->steps[fo->spec].name);
		engine_wf_fail(e, wf, msg);
		free(msg);
		return (1);
	}
	return (0);
}

/* The workflow fails: everything unfinished is cancelled. */
void
engine_wf_fail(struct engine *e, struct ewf *wf, const char *why)
{
	engine_wf_end(e, wf, RUN_FAILED, why);
}

/* An operator cancelled the workflow. */
void
engine_wf_cancel(struct engine *e, struct ewf *wf)
{
	engine_wf_end(e, wf, RUN_CANCELLED, NULL);
}

/* The engine cancelled the workflow itself, for a reason (a deadline). */
void
engine_wf_cancel_why(struct engine *e, struct ewf *wf, const char *why)
{
	engine_wf_end(e, wf, RUN_CANCELLED, why);
}

/* Nothing left to run: the workflow completed. */
void
engine_wf_settle(struct engine *e, struct ewf *wf)
{
	/* While its handlers run, their end decides the run's. */
	if (!wf->ended && !wf->handling && wf->nactive <= 0 &&
	    !engine_join_stranded(e, wf))
		engine_wf_end(e, wf, RUN_COMPLETED, NULL);
}

/* Why a run's end cancels the rows it still has in flight. */
const char *
engine_end_reason(enum run_status status, const char *why)
{
	if (status == RUN_CANCELLED)
		return (why != NULL ? why : "cancelled");
	if (status == RUN_FAILED)
		return ("cancelled: the workflow failed");
	return ("cancelled: the workflow completed");
}

/*
 * End a workflow with a status; cancel what it still has in flight, and
 * notify a failure or a completion.  A run with a handler for that end
 * runs it first (handler.c), and ends when it has; a cancel while it
 * runs ends the run at once.
 */
void
engine_wf_end(struct engine *e, struct ewf *wf, enum run_status status,
    const char *why)
{
	char	*output = NULL, *masked, *why_masked;

	if (wf->ended || engine_handler_begin(e, wf, status, why))
		return;
	if (wf->handling && why == NULL)
		why = wf->ending_why;
	engine_txn(e);
	why = why_masked = mask_text(wf->mask, why);
	if (status == RUN_COMPLETED &&
	    (output = engine_wf_output(e, wf)) != NULL) {
		masked = mask_json(wf->mask, output);
		free(output);
		output = masked;
	}
	if (output != NULL &&
	    store_workflow_set_output(e->store, wf->id, output) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	wf->ended = 1;
	wf->refs++;	/* cancelling its steps must not free it yet */
	engine_rows_cancel(e, wf, 0, engine_end_reason(status, why));
	if (store_workflow_end(e->store, wf->id, status, why,
	    time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	/* Its slot is free with the end: the next queued run takes it. */
	if (wf->conc_key != NULL)
		engine_conc_run_release(e, wf->conc_key);
	log_debug("%s: workflow %lld %s%s%s", __func__, (long long)wf->id,
	    status_run_name(status), why != NULL ? ": " : "",
	    why != NULL ? why : "");
	if (status != RUN_CANCELLED)
		engine_notify(e, status == RUN_FAILED ?
		    "workflow_failed" : "workflow_completed", wf->id, 0, NULL);
	engine_child_ended(e, wf, status, why, output);
	engine_secret_input_drop(e, wf);
	free(output);
	free(why_masked);
	wf->refs--;
	engine_wf_ended(e, wf, status);
}

/* Is a row inside fan-out row fanout (at any depth)? */
static int
engine_in_fanout(struct engine *e, const struct store_step *row,
    int64_t fanout)
{
	struct store_step	*up;
	int64_t			 id = row->fanout_id;
	char			*cause = NULL;
	int			 depth = 0;

	while (id != 0 && depth++ < 1000) {
		if (id == fanout)
			return (1);
		if (store_step_get(e->store, id, &up, &cause) != 0)
			engine_store_fatal(e, cause);
		id = up->fanout_id;
		store_step_free(up);
	}
	return (0);
}

/*
 * Cancel a workflow's unfinished rows (those inside one fan-out, when
 * fanout is set): kill what runs, drop what is queued, forget timers.
 */
void
engine_rows_cancel(struct engine *e, struct ewf *wf, int64_t fanout,
    const char *why)
{
	struct store_step	*rows;
	struct estep		 find, *es;
	struct estep		 tmp;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_steps_unfinished(e->store, wf->id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (fanout != 0 && !engine_in_fanout(e, &rows[i], fanout))
			continue;
		find.id = rows[i].id;
		if ((es = RB_FIND(estep_tree, &e->running, &find)) != NULL) {
			es->cancelled = 1;
			engine_exec_kill(e, es);
		}
		if ((es = engine_step_queued(e, rows[i].id)) != NULL) {
			TAILQ_REMOVE(es->rq, es, qentry);
			engine_step_free(es);
		}
		memset(&tmp, 0, sizeof tmp);
		tmp.id = rows[i].id;
		tmp.wf = wf;
		engine_row_end(e, &tmp, STEP_CANCELLED, NULL, why, 0, 0);
		if (store_timers_del_step(e->store, rows[i].id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		/* After its row ended, so the child's end leaves it be. */
		engine_child_cancel(e, rows[i].child_id);
	}
	store_steps_free(rows, n);
}
