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
 * rerun.c: an operator's second chances.  retry re-opens a failed or
 * cancelled workflow and runs again the rows it ended on (the leaves:
 * failed or cancelled rows nothing came after), or, with --from, one
 * step and what follows it; completed rows are kept.  skip marks a
 * failed, pending or waiting row skipped and goes on as if it had
 * completed with a null result.  Which rows run again, and why a retry
 * is refused, are the rules of flow/rerun.c, which the console's preview
 * reads too; this file acts on them.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static size_t	 engine_row_find(const struct store_step *, size_t,
		     int64_t);
static int	 engine_rerun_leaf(struct engine *,
		     const struct store_step *);
static void	 engine_rerun_row(struct engine *, struct ewf *,
		     const struct store_step *);
static int	 engine_reopen(struct engine *, int64_t, struct ewf **,
		     struct buf *, int64_t);

/*
 * The rows as the retry rules (flow/rerun.c) read them, for the engine and
 * the console's preview alike; free the array.
 */
struct flow_row *
engine_flow_rows(const struct store_step *rows, size_t n)
{
	struct flow_row	*fr;
	size_t		 i;

	fr = xcalloc(n > 0 ? n : 1, sizeof *fr);
	for (i = 0; i < n; i++) {
		fr[i].id = rows[i].id;
		fr[i].parent_id = rows[i].parent_id;
		fr[i].fanout_id = rows[i].fanout_id;
		fr[i].item_of = rows[i].item_of;
		fr[i].items = rows[i].items;
		fr[i].item_index = rows[i].item_index;
		fr[i].step_key = rows[i].step_key;
		fr[i].status = rows[i].status;
		fr[i].branch_end = rows[i].branch_end != NULL;
	}
	return (fr);
}

/* The index of the row with this id, or n. */
static size_t
engine_row_find(const struct store_step *rows, size_t n, int64_t id)
{
	size_t	i;

	for (i = 0; i < n && rows[i].id != id; i++)
		/* nothing */;
	return (i);
}

/*
 * Is a failed, cancelled or skipped row one its workflow ended on,
 * nothing having come after it (flow_rerun_leaf, without the flow)?
 */
static int
engine_rerun_leaf(struct engine *e, const struct store_step *row)
{
	struct store_step	*rows;
	struct flow_row		*fr;
	size_t			 n, i;
	char			*cause = NULL;
	int			 leaf;

	if (store_step_list(e->store, row->workflow_id, &rows, &n,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	fr = engine_flow_rows(rows, n);
	i = engine_row_find(rows, n, row->id);
	leaf = i < n && flow_rerun_leaf(NULL, fr, n, i);
	free(fr);
	store_steps_free(rows, n);
	return (leaf);
}

/* A new pass of the step a row was, in the same branch. */
static void
engine_rerun_row(struct engine *e, struct ewf *wf, const struct store_step *row)
{
	struct estep_origin	 o;
	int			 spec;

	if ((spec = flow_find(wf->flow, row->step_key)) < 0)
		return;
	memset(&o, 0, sizeof o);
	o.parent_id = row->id;
	o.fanout_id = row->fanout_id;
	o.branch_no = row->branch_no;
	engine_step_create(e, wf, spec, &o);
}

/*
 * Re-open an ended workflow: rows it ended on run again (cancelled and
 * failed ones anew; skipped ones go on from where they were).  With from
 * (retry --from), only those in the other branches of a fan-out the row
 * from is in, whose join has not run: the row from and what follows it
 * retry --from runs itself.  The names of what runs again are added to
 * names.  Returns how many.
 */
static int
engine_reopen(struct engine *e, int64_t id, struct ewf **wfp, struct buf *names,
    int64_t from)
{
	struct store_workflow	*w;
	struct store_step	*rows;
	struct flow_row		*fr;
	struct estep		*es;
	struct ewf		*wf;
	unsigned char		*again;
	size_t			 n, i, fi;
	char			*cause = NULL;
	int			 count = 0;

	engine_txn(e);
	if (store_workflow_reopen(e->store, id, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (store_workflow_get(e->store, id, &w, &cause) != 0)
		engine_store_fatal(e, cause);
	if ((wf = engine_wf_get(e, id)) == NULL &&
	    (wf = engine_wf_load(e, w, &cause)) == NULL)
		engine_store_fatal(e, cause);
	wf->ended = 0;
	wf->handling = 0;	/* its handlers run again at its next end */
	free(wf->ending_why);
	wf->ending_why = NULL;
	engine_foreach_forget_all(wf);
	store_workflow_free(w);
	*wfp = wf;
	if (names == NULL)
		return (0);
	if (store_step_list(e->store, id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	/* Which rows run again is the rule flow/rerun.c keeps. */
	fr = engine_flow_rows(rows, n);
	again = xcalloc(n > 0 ? n : 1, 1);
	fi = from != 0 ? engine_row_find(rows, n, from) : n;
	if (from == 0 || fi < n)
		flow_retry_plan(wf->flow, wf->join_of, fr, n, fi, again);
	free(fr);
	for (i = 0; i < n; i++) {
		if (!again[i])
			continue;
		count++;
		if (rows[i].items > 0 &&
		    rows[i].status != STEP_SKIPPED) {
			engine_foreach_rerun(e, wf, &rows[i], names);
			continue;
		}
		buf_printf(names, "%s%s", names->len > 0 ? ", " : "",
		    rows[i].name);
		if (rows[i].status != STEP_SKIPPED) {
			engine_rerun_row(e, wf, &rows[i]);
			continue;
		}
		if ((es = engine_step_from_row(e, &rows[i])) != NULL) {
			engine_advance(e, es, "null", 0, 0);
			engine_step_free(es);
		}
	}
	free(again);
	store_steps_free(rows, n);
	/*
	 * A DAG run decides what is due now (the dependants of a failed
	 * step skipped by an operator); retry --from first makes its row.
	 */
	if (from == 0)
		engine_dag_advance(e, wf);
	return (count);
}

/*
 * retry --from STEP: the latest row of STEP in workflow w, or NULL with
 * the reply saying why (2: no such step, 4: it never ran).
 */
static struct store_step *
engine_retry_from(struct engine *e, const struct store_workflow *w,
    const char *from, struct engine_reply *r)
{
	struct store_step	*rows, *last = NULL;
	struct flow_diags	*d;
	struct flow		*f;
	struct flow_row		*fr;
	size_t			 n, i;
	char			*cause = NULL;

	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (store_step_list(e->store, w->id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	fr = engine_flow_rows(rows, n);
	r->code = flow_retry_from(f, fr, n, w->id, from, &i, &r->message);
	free(fr);
	if (r->code == 0 && store_step_get(e->store, rows[i].id, &last,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	store_steps_free(rows, n);
	if (f != NULL)
		flow_free(f);
	return (last);
}

/*
 * A run queued by retry has the slot of its key now: it runs again as
 * the retry would have (engine/concurrency.c).
 */
void
engine_rerun_queued(struct engine *e, const struct store_workflow *w)
{
	struct ewf	*wf;
	struct buf	 names;

	buf_init(&names);
	if (engine_reopen(e, w->id, &wf, &names, 0) == 0)
		engine_wf_settle(e, wf);
	buf_free(&names);
}

/*
 * retry of a run whose key has no free slot: it is queued (again), to run
 * again when its turn comes.  1 when so, the reply said; else 0.
 */
static int
engine_retry_queue(struct engine *e, const struct store_inbox *m,
    const struct store_workflow *w, const char *from,
    struct engine_reply *r)
{
	char	*key = NULL, *target, *cause = NULL;
	int64_t	 holder;
	int	 limit, refuse;

	if (engine_conc_run_key(w->flow_json, w->input_json, w->name, &key,
	    &limit, &refuse, &cause) != 0 || key == NULL ||
	    engine_conc_run_free(e, key, limit, &holder)) {
		free(cause);
		free(key);
		return (0);
	}
	if (refuse || from != NULL) {
		/* retry --from names rows to run now: it cannot wait. */
		engine_conc_run_refusal(key, limit, holder, &r->message);
		r->code = 4;
		free(key);
		return (1);
	}
	engine_txn(e);
	if (store_workflow_queue(e->store, w->id, key, limit,
	    time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	xasprintf(&target, "workflow %lld %s", (long long)w->id, w->name);
	engine_audit(e, m, "retry", w->id, 0, target, "queued", NULL);
	free(target);
	xasprintf(&r->message, "workflow %lld is queued behind #%lld "
	    "(concurrency key %s)", (long long)w->id, (long long)holder, key);
	free(key);
	return (1);
}

/* retry [--from STEP]: run a failed or cancelled workflow again. */
int
engine_cmd_retry(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_workflow	*w = NULL;
	struct store_step	*last = NULL;
	struct ewf		*wf;
	struct buf		 names;
	cJSON			*detail;
	char			*from, *cause = NULL, *target, *dtext = NULL;

	buf_init(&names);
	from = engine_arg_string(m->args_json, "from");
	r->workflow_id = m->workflow_id;
	if (store_workflow_get(e->store, m->workflow_id, &w, &cause) != 0) {
		r->code = 3;
		xasprintf(&r->message, "no workflow %lld",
		    (long long)m->workflow_id);
		goto out;
	}
	if (w->status == RUN_RUNNING && from == NULL &&
	    engine_foreach_retry(e, m, w->id, r) >= 0)
		goto out;
	if ((r->code = flow_retry_refusal(w->id, w->status,
	    w->started_at != 0, &r->message)) != 0)
		goto out;
	if (engine_retry_queue(e, m, w, from, r))
		goto out;
	if (from != NULL) {
		if ((last = engine_retry_from(e, w, from, r)) == NULL)
			goto out;
		/*
		 * The step and what follows it run again; so do the other
		 * rows the run ended on (the other branches of a fan-out),
		 * without which a join could never run.
		 */
		buf_puts(&names, last->name);
		engine_reopen(e, w->id, &wf, &names, last->id);
		engine_rerun_row(e, wf, last);
		detail = cJSON_CreateObject();
		cJSON_AddStringToObject(detail, "from", last->step_key);
		dtext = json_print(detail);
		cJSON_Delete(detail);
	} else if (engine_reopen(e, w->id, &wf, &names, 0) == 0) {
		/* Nothing ended it: it can only complete. */
		engine_wf_settle(e, wf);
	}
	xasprintf(&target, "workflow %lld %s", (long long)w->id, w->name);
	engine_audit(e, m, "retry", w->id, 0, target, names.data, dtext);
	free(target);
	xasprintf(&r->message, "retrying workflow %lld: %s", (long long)w->id,
	    names.len > 0 ? names.data : "nothing to run again");
out:
	if (last != NULL)
		store_step_free(last);
	if (w != NULL)
		store_workflow_free(w);
	buf_free(&names);
	free(dtext);
	free(cause);
	free(from);
	return (r->code);
}

/* Any failed row (other than id) nothing came after? */
static int
engine_has_failed_leaf(struct engine *e, int64_t wf, int64_t id)
{
	struct store_step	*rows;
	struct flow_row		*fr;
	size_t			 n, i;
	char			*cause = NULL;
	int			 found = 0;

	if (store_step_list(e->store, wf, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	fr = engine_flow_rows(rows, n);
	for (i = 0; i < n && !found; i++) {
		if (rows[i].id != id && rows[i].status == STEP_FAILED &&
		    flow_rerun_leaf(NULL, fr, n, i))
			found = 1;
	}
	free(fr);
	store_steps_free(rows, n);
	return (found);
}

/*
 * Who may skip this row: a waiting gate needs the right to approve it
 * (by the policy on its row; *gate set), any other step the operator
 * right; both need a reason.  0, or the refusal answered and audited.
 */
static int
engine_skip_refusal(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_step *row,
    int *gate, struct engine_reply *r)
{
	struct authority_ask	 q;
	struct ewf		*wf;
	struct flow_policy	 p;
	char			*reason;

	*gate = row->status == STEP_WAITING && row->gate_json != NULL;
	if (*gate && engine_wait_is(row)) {
		/* A wait step: skipping it needs the right to finish it. */
		r->message = engine_wait_skip_refusal(e, m, caller, row);
	} else if (*gate) {
		r->message = engine_gate_refusal(e, m, caller, row, "skip", &p,
		    &wf);
		flow_policy_free(&p);
	} else {
		reason = engine_arg_string(m->args_json, "comment");
		memset(&q, 0, sizeof q);
		q.verb = "skip";
		q.need_reason = 1;
		q.reason = reason;
		authority_check(&e->opts.authority, caller, &q, &r->message);
		free(reason);
	}
	if (r->message == NULL)
		return (0);
	return (engine_refuse(e, m, "skip", row, r));
}

/* skip STEP -m REASON: a failed, pending or waiting row counts as done. */
int
engine_cmd_skip(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_step	*row = NULL;
	struct store_workflow	*w = NULL;
	struct estep		*es;
	struct ewf		*wf;
	char			*comment, *why = NULL, *target, *cause = NULL;
	int			 gate = 0;

	comment = engine_arg_comment(m->args_json);
	if (store_step_get(e->store, m->step_id, &row, &cause) != 0) {
		r->code = 3;
		xasprintf(&r->message, "no step %lld", (long long)m->step_id);
		goto out;
	}
	r->step_id = row->id;
	r->workflow_id = row->workflow_id;
	if (store_workflow_get(e->store, row->workflow_id, &w, &cause) != 0)
		engine_store_fatal(e, cause);
	if (row->status == STEP_FAILED ?
	    (w->status != RUN_FAILED ||
	    !engine_rerun_leaf(e, row)) :
	    (row->status != STEP_WAITING &&
	    row->status != STEP_PENDING)) {
		xasprintf(&r->message, "step %lld (%s) is %s: only a waiting "
		    "or pending step, or the failed step that ended its "
		    "workflow, can be skipped", (long long)row->id, row->name,
		    status_step_name(row->status));
		engine_refuse(e, m, "skip", row, r);
		goto out;
	}
	if (engine_skip_refusal(e, m, caller, row, &gate, r) != 0)
		goto out;
	xasprintf(&why, "skipped by %s: %s", m->who,
	    comment != NULL ? comment : "");
	xasprintf(&target, "step %lld %s", (long long)row->id, row->name);
	engine_audit(e, m, "skip", row->workflow_id, row->id, target, comment,
	    !gate ? NULL : engine_wait_is(row) ?
	    "{\"wait\":true,\"right\":\"complete\"}" :
	    "{\"gate\":true,\"right\":\"approve\"}");
	free(target);
	if (store_timers_del_step(e->store, row->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	xasprintf(&r->message, "skipped step %lld (%s)", (long long)row->id,
	    row->name);
	if (row->status != STEP_FAILED) {
		if ((es = engine_step_from_row(e, row)) != NULL) {
			engine_step_skipped(e, es, why);
			engine_step_free(es);
		}
		goto out;
	}
	/* The failed row that ended its workflow: re-open when it was the last. */
	row->status = STEP_SKIPPED;
	free(row->error);
	row->error = xstrdup(why);
	free(row->result_json);
	row->result_json = xstrdup("null");
	if (store_step_end(e->store, row, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (engine_has_failed_leaf(e, row->workflow_id, row->id)) {
		free(r->message);
		xasprintf(&r->message, "skipped step %lld (%s); workflow %lld "
		    "still has failed steps", (long long)row->id, row->name,
		    (long long)row->workflow_id);
		goto out;
	}
	{
		struct buf	 names;

		buf_init(&names);
		engine_reopen(e, row->workflow_id, &wf, &names, 0);
		buf_free(&names);
		engine_wf_settle(e, wf);
	}
out:
	if (w != NULL)
		store_workflow_free(w);
	if (row != NULL)
		store_step_free(row);
	free(why);
	free(cause);
	free(comment);
	return (r->code);
}
