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
 * completed with a null result.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static int	 engine_rerun_leaf(struct engine *, const struct ewf *,
		     const struct store_step *);
static void	 engine_rerun_row(struct engine *, struct ewf *,
		     const struct store_step *);
static int	 engine_reopen(struct engine *, int64_t, struct ewf **,
		     struct buf *, int64_t);
static size_t	 engine_row_index(const struct store_step *, size_t,
		     int64_t);
static int	 engine_row_after(const struct store_step *, size_t,
		     const struct store_step *, int64_t);
static int	 engine_row_sibling(struct engine *, const struct ewf *,
		     const struct store_step *, size_t,
		     const struct store_step *, const struct store_step *);

/*
 * Is a row one its workflow ended on: failed, cancelled or skipped with
 * nothing after it, or done with nothing after it although its step has
 * a successor (a rejected gate, a branch no arm matched)?
 */
static int
engine_rerun_leaf(struct engine *e, const struct ewf *wf,
    const struct store_step *row)
{
	const struct flow_step	*fs;
	int64_t			 n;
	int			 spec;

	if (strcmp(row->status, "done") == 0) {
		if (wf == NULL || row->branch_end != NULL ||
		    (spec = flow_find(wf->flow, row->step_key)) < 0)
			return (0);
		fs = &wf->flow->steps[spec];
		if (fs->next_target < 0 && fs->nbranch == 0 &&
		    fs->nparallel == 0)
			return (0);
	} else if (strcmp(row->status, "failed") != 0 &&
	    strcmp(row->status, "cancelled") != 0 &&
	    strcmp(row->status, "skipped") != 0)
		return (0);
	if (store_step_children(e->store, row->id, &n) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	return (n == 0);
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

/* The index of the row with this id (rows come in id order), or n. */
static size_t
engine_row_index(const struct store_step *rows, size_t n, int64_t id)
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

/* Is row r the row from, or made (at any depth) after it? */
static int
engine_row_after(const struct store_step *rows, size_t n,
    const struct store_step *r, int64_t from)
{
	size_t	i, depth = 0;

	for (i = engine_row_index(rows, n, r->id); i < n && depth++ <= n;
	    i = engine_row_index(rows, n, rows[i].parent_id)) {
		if (rows[i].id == from)
			return (1);
	}
	return (0);
}

/*
 * For retry --from: is leaf r in a branch of a fan-out that row from is
 * also inside, whose join has not run?  Then the join needs r's branch
 * again.  (A leaf elsewhere, an old failed branch whose join went on
 * without it, say, is left as it is.)
 */
static int
engine_row_sibling(struct engine *e, const struct ewf *wf,
    const struct store_step *rows, size_t n, const struct store_step *r,
    const struct store_step *from)
{
	size_t	 fi = n, gi = n, depth = 0;
	int64_t	 f, g, exists;
	int	 spec, join;

	for (f = r->fanout_id; f != 0 && depth++ <= n;
	    f = fi < n ? rows[fi].fanout_id : 0) {
		fi = engine_row_index(rows, n, f);
		for (g = from->fanout_id; g != 0 && g != f;
		    g = gi < n ? rows[gi].fanout_id : 0)
			gi = engine_row_index(rows, n, g);
		if (g == 0 || fi >= n)
			continue;
		/* The nearest fan-out both are in. */
		if ((spec = flow_find(wf->flow, rows[fi].step_key)) < 0 ||
		    (join = wf->join_of[spec]) < 0)
			return (1);
		if (store_step_join_exists(e->store, f,
		    wf->flow->steps[join].key, &exists) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		return (exists == 0);
	}
	return (0);
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
	struct estep		*es;
	struct ewf		*wf;
	size_t			 n, i, fi = 0;
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
	engine_foreach_forget_all(wf);
	store_workflow_free(w);
	*wfp = wf;
	if (names == NULL)
		return (0);
	if (store_step_list(e->store, id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	if (from != 0)
		fi = engine_row_index(rows, n, from);
	for (i = 0; i < n; i++) {
		/* A for-each's items and gates go with its own row. */
		if (rows[i].item_of != 0 && rows[i].items == 0)
			continue;
		if (!engine_rerun_leaf(e, wf, &rows[i]) || (from != 0 &&
		    (fi >= n || engine_row_after(rows, n, &rows[i], from) ||
		    !engine_row_sibling(e, wf, rows, n, &rows[i], &rows[fi]))))
			continue;
		count++;
		if (rows[i].items > 0 &&
		    strcmp(rows[i].status, "skipped") != 0) {
			engine_foreach_rerun(e, wf, &rows[i], names);
			continue;
		}
		buf_printf(names, "%s%s", names->len > 0 ? ", " : "",
		    rows[i].name);
		if (strcmp(rows[i].status, "skipped") != 0) {
			engine_rerun_row(e, wf, &rows[i]);
			continue;
		}
		if ((es = engine_step_from_row(e, &rows[i])) != NULL) {
			engine_advance(e, es, "null", 0, 0);
			engine_step_free(es);
		}
	}
	store_steps_free(rows, n);
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
	size_t			 n, i;
	char			*cause = NULL;
	int64_t			 id = 0;
	int			 spec = -1;

	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (f == NULL || (spec = flow_find(f, from)) < 0) {
		r->code = 2;
		xasprintf(&r->message, "workflow %lld has no step \"%s\"",
		    (long long)w->id, from);
		goto out;
	}
	if (store_step_list(e->store, w->id, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].step_key, f->steps[spec].key) == 0 &&
		    (rows[i].item_of == 0 || rows[i].items != 0))
			id = rows[i].id;
	}
	store_steps_free(rows, n);
	if (id == 0) {
		r->code = 4;
		xasprintf(&r->message, "step %s of workflow %lld never ran; "
		    "retry --from a step that did", from, (long long)w->id);
	} else if (store_step_get(e->store, id, &last, &cause) != 0)
		engine_store_fatal(e, cause);
out:
	if (f != NULL)
		flow_free(f);
	return (last);
}

/* retry [--from STEP]: run a failed or cancelled workflow again. */
int
engine_cmd_retry(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
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
	if (strcmp(w->status, "running") == 0 && from == NULL &&
	    engine_foreach_retry(e, m, w->id, r) >= 0)
		goto out;
	if (strcmp(w->status, "failed") != 0 &&
	    strcmp(w->status, "cancelled") != 0) {
		r->code = 4;
		xasprintf(&r->message, "workflow %lld is %s: only a failed or "
		    "cancelled workflow can be retried", (long long)w->id,
		    w->status);
		goto out;
	}
	if (w->started_at == 0) {
		r->code = 4;
		xasprintf(&r->message, "workflow %lld was cancelled before its "
		    "start time; start it again with sluice run",
		    (long long)w->id);
		goto out;
	}
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
	size_t			 n, i;
	char			*cause = NULL;
	int			 found = 0;

	if (store_step_list(e->store, wf, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n && !found; i++) {
		if (rows[i].id != id && strcmp(rows[i].status, "failed") == 0 &&
		    engine_rerun_leaf(e, NULL, &rows[i]))
			found = 1;
	}
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
    const struct store_step *row, int *gate, struct engine_reply *r)
{
	struct authority_ask	 q;
	struct ewf		*wf;
	cJSON			*g;
	char			*reason;

	*gate = strcmp(row->status, "waiting") == 0 && row->gate_json != NULL;
	if (*gate) {
		g = json_parse_or_null(row->gate_json);
		r->message = engine_gate_refusal(e, m, row, g, "skip", &wf);
		cJSON_Delete(g);
	} else {
		reason = engine_arg_string(m->args_json, "comment");
		memset(&q, 0, sizeof q);
		q.verb = "skip";
		q.need_reason = 1;
		q.reason = reason;
		authority_check(&e->opts.authority, e->caller, &q,
		    &r->message);
		free(reason);
	}
	if (r->message == NULL)
		return (0);
	return (engine_refuse(e, m, "skip", row, r));
}

/* skip STEP -m REASON: a failed, pending or waiting row counts as done. */
int
engine_cmd_skip(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
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
	if (strcmp(row->status, "failed") == 0 ?
	    (strcmp(w->status, "failed") != 0 ||
	    !engine_rerun_leaf(e, NULL, row)) :
	    (strcmp(row->status, "waiting") != 0 &&
	    strcmp(row->status, "pending") != 0)) {
		xasprintf(&r->message, "step %lld (%s) is %s: only a waiting "
		    "or pending step, or the failed step that ended its "
		    "workflow, can be skipped", (long long)row->id, row->name,
		    row->status);
		engine_refuse(e, m, "skip", row, r);
		goto out;
	}
	if (engine_skip_refusal(e, m, row, &gate, r) != 0)
		goto out;
	xasprintf(&why, "skipped by %s: %s", m->who,
	    comment != NULL ? comment : "");
	xasprintf(&target, "step %lld %s", (long long)row->id, row->name);
	engine_audit(e, m, "skip", row->workflow_id, row->id, target, comment,
	    gate ? "{\"gate\":true,\"right\":\"approve\"}" : NULL);
	free(target);
	if (store_timers_del_step(e->store, row->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	xasprintf(&r->message, "skipped step %lld (%s)", (long long)row->id,
	    row->name);
	if (strcmp(row->status, "failed") != 0) {
		if ((es = engine_step_from_row(e, row)) != NULL) {
			engine_step_skipped(e, es, why);
			engine_step_free(es);
		}
		goto out;
	}
	/* The failed row that ended its workflow: re-open when it was the last. */
	free(row->status);
	row->status = xstrdup("skipped");
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
