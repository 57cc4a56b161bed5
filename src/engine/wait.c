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
 * wait.c: steps finished from outside.  A wait step's row is created
 * waiting, with its policy (message, who may finish it, timeout) fixed
 * on the row as a gate's is; "complete" ends it done with a result and
 * "fail" ends it failed with a reason, for whoever the row's policy
 * names (authority.c), every one of them and every refusal audited.
 * Its timeout is a stored timer, so it survives restarts; it fails the
 * step or starts an escalation step instead.  The outside system names
 * the row by its id or as WORKFLOW:STEP (the step's name or key).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static struct store_step *engine_wait_row(struct engine *,
		     const struct store_inbox *, struct engine_reply *);
static struct store_step *engine_wait_named(struct engine *, int64_t,
		     const char *, struct engine_reply *);
static char	*engine_wait_refusal(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, const struct store_step *,
		     const char *);
static int	 engine_wait_finish(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, int, struct engine_reply *);

/* Is this row a wait step's (finished from outside)? */
int
engine_wait_is(const struct store_step *row)
{
	return (row->kind == KIND_WAIT);
}

/*
 * A wait step's policy as its row keeps it: the message interpolated,
 * who may finish it, and whether the site's operators rule applies (no
 * "by": then the operators, when the site names any, else anyone).
 */
char *
engine_wait_json(struct engine *e, struct ewf *wf, const struct flow_step *fs)
{
	struct flow_policy	 p;
	cJSON			*scope;
	char			*out;
	size_t			 i;

	scope = engine_scope(e, wf, wf->uses_steps[fs - wf->flow->steps]);
	flow_policy_init(&p, KIND_WAIT);
	p.message = interp_text(fs->wait.message != NULL ?
	    fs->wait.message : "", scope);
	p.nby = fs->wait.nby;
	p.by = xcalloc(fs->wait.nby + 1, sizeof *p.by);
	for (i = 0; i < fs->wait.nby; i++)
		p.by[i] = xstrdup(fs->wait.by[i]);
	p.operators = fs->wait.nby == 0 && e->opts.authority.has_operators;
	if (fs->wait.timeout > 0)
		p.timeout_ms = fs->wait.timeout;
	if (fs->wait.on_timeout != NULL)
		p.on_timeout = xstrdup(fs->wait.on_timeout);
	out = flow_policy_write(&p);
	flow_policy_free(&p);
	cJSON_Delete(scope);
	return (out);
}

/* A wait row was created: arm its timeout, a stored timer. */
void
engine_wait_waiting(struct engine *e, struct ewf *wf,
    const struct flow_step *fs, int64_t id, int64_t now)
{
	if (fs->wait.timeout <= 0)
		return;
	if (store_timer_add(e->store, now + fs->wait.timeout, "wait_timeout",
	    wf->id, id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, now + fs->wait.timeout);
}

/*
 * The row a workflow's step name (or key) names: its newest waiting row,
 * else its newest row (to say what it is).  NULL with code 3 when none.
 */
static struct store_step *
engine_wait_named(struct engine *e, int64_t wf, const char *name,
    struct engine_reply *r)
{
	struct store_workflow	*w;
	struct store_step	*rows, *row = NULL;
	size_t			 n, i, pick = SIZE_MAX;
	char			*cause = NULL;

	r->workflow_id = wf;
	if (store_workflow_get(e->store, wf, &w, &cause) != 0) {
		free(cause);
		r->code = 3;
		xasprintf(&r->message, "no workflow %lld", (long long)wf);
		return (NULL);
	}
	store_workflow_free(w);
	if (store_step_list(e->store, wf, &rows, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].name, name) != 0 &&
		    strcmp(rows[i].step_key, name) != 0)
			continue;
		if (pick == SIZE_MAX || rows[i].status == STEP_WAITING ||
		    rows[pick].status != STEP_WAITING)
			pick = i;
	}
	if (pick == SIZE_MAX) {
		r->code = 3;
		xasprintf(&r->message, "workflow %lld has no step \"%s\" "
		    "(yet)", (long long)wf, name);
	} else if (store_step_get(e->store, rows[pick].id, &row,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	store_steps_free(rows, n);
	return (row);
}

/* The row a complete or fail names: by id, or WORKFLOW:STEP. */
static struct store_step *
engine_wait_row(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	struct store_step	*row;
	char			*name, *cause = NULL;

	if (m->step_id == 0 && m->workflow_id != 0 &&
	    (name = engine_arg_string(m->args_json, "step")) != NULL) {
		row = engine_wait_named(e, m->workflow_id, name, r);
		free(name);
		return (row);
	}
	if (store_step_get(e->store, m->step_id, &row, &cause) != 0) {
		free(cause);
		r->code = 3;
		xasprintf(&r->message, "no step %lld", (long long)m->step_id);
		return (NULL);
	}
	return (row);
}

/*
 * Why the caller may not finish this row now, or NULL: it must be a
 * waiting wait step of a running workflow, and the caller one the row's
 * policy names (authority.c); fail needs a reason.
 */
static char *
engine_wait_refusal(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_step *row,
    const char *verb)
{
	struct authority_ask	 q;
	struct flow_policy	 p;
	char			*why = NULL, *target, *reason;

	if (!engine_wait_is(row)) {
		xasprintf(&why, "step %lld (%s) is not a wait step: only a "
		    "step with \"wait\" is finished from outside%s",
		    (long long)row->id, row->name,
		    row->status == STEP_WAITING ? " (a gate is "
		    "decided with approve or reject)" : "");
		return (why);
	}
	if (row->status != STEP_WAITING) {
		xasprintf(&why, "step %lld (%s) is not waiting to be "
		    "finished: it is %s", (long long)row->id, row->name,
		    status_step_name(row->status));
		return (why);
	}
	if (engine_wf_get(e, row->workflow_id) == NULL) {
		xasprintf(&why, "workflow %lld is not running",
		    (long long)row->workflow_id);
		return (why);
	}
	xasprintf(&target, "%s (step %lld)", row->name, (long long)row->id);
	if (flow_policy_read(row->gate_json, KIND_WAIT, &p, &why) != 0) {
		reason = flow_policy_unreadable(why);
		free(why);
		xasprintf(&why, "wait step %s: %s, so it cannot be finished "
		    "from outside", target, reason);
		free(reason);
		free(target);
		return (why);
	}
	reason = engine_arg_string(m->args_json, "comment");
	memset(&q, 0, sizeof q);
	q.verb = verb;
	q.target = target;
	q.wait = &p;
	q.workflow_id = row->workflow_id;
	q.need_reason = strcmp(verb, "complete") != 0;
	q.reason = reason;
	authority_check(&e->opts.authority, caller, &q, &why);
	flow_policy_free(&p);
	free(reason);
	free(target);
	return (why);
}

/*
 * Why a skip of this waiting wait row is refused (the right to finish
 * it, and a reason), or NULL; for rerun.c's skip.
 */
char *
engine_wait_skip_refusal(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_step *row)
{
	return (engine_wait_refusal(e, m, caller, row, "skip"));
}

/* complete or fail: end a waiting wait row, on the record. */
static int
engine_wait_finish(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, int complete,
    struct engine_reply *r)
{
	struct store_step	*row;
	struct estep		*es;
	cJSON			*a, *res;
	char			*result = NULL, *comment, *target, *why;
	const char		*verb = complete ? "complete" : "fail";

	if ((row = engine_wait_row(e, m, r)) == NULL)
		return (r->code);
	r->workflow_id = row->workflow_id;
	r->step_id = row->id;
	comment = engine_arg_comment(m->args_json);
	if ((r->message = engine_wait_refusal(e, m, caller, row,
	    verb)) != NULL) {
		engine_refuse(e, m, verb, row, r);
		goto out;
	}
	a = json_parse_or_null(m->args_json);
	res = cJSON_GetObjectItemCaseSensitive(a, "result");
	result = res != NULL ? json_print(res) : xstrdup("null");
	cJSON_Delete(a);
	xasprintf(&target, "step %lld %s", (long long)row->id, row->name);
	engine_audit(e, m, verb, row->workflow_id, row->id, target, comment,
	    NULL);
	free(target);
	if (store_timers_del_step(e->store, row->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if ((es = engine_step_from_row(e, row)) == NULL)
		goto out;
	if (complete) {
		engine_step_done(e, es, result, 0, 0);
		xasprintf(&r->message, "completed step %lld (%s)",
		    (long long)row->id, row->name);
	} else {
		/* The outside said it failed: final, not tried again. */
		es->no_retry = 1;
		xasprintf(&why, "failed by %s: %s", m->who, comment);
		engine_step_failed(e, es, why, 0, 0, NULL);
		free(why);
		xasprintf(&r->message, "failed step %lld (%s)",
		    (long long)row->id, row->name);
	}
	engine_step_free(es);
out:
	free(result);
	free(comment);
	store_step_free(row);
	return (r->code);
}

/* complete STEP [--result JSON]: a wait step is done, with a result. */
int
engine_cmd_complete(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	return (engine_wait_finish(e, m, caller, 1, r));
}

/* fail STEP -m REASON: a wait step failed, for that reason. */
int
engine_cmd_fail(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	return (engine_wait_finish(e, m, caller, 0, r));
}

/* A wait step waited too long: it fails, or its escalation step starts. */
void
engine_wait_timeout(struct engine *e, int64_t id)
{
	struct store_step	*row;
	struct estep		*es;
	struct estep_origin	 o;
	struct flow_policy	 p;
	char			*cause = NULL, *why;
	int			 spec = -1;

	if (store_step_get(e->store, id, &row, &cause) != 0) {
		free(cause);
		return;
	}
	if (!engine_wait_is(row) || row->status != STEP_WAITING ||
	    (es = engine_step_from_row(e, row)) == NULL) {
		store_step_free(row);
		return;
	}
	/* A policy that cannot be read escalates nowhere: it fails. */
	if (flow_policy_read(row->gate_json, KIND_WAIT, &p, &cause) != 0) {
		log_debug("%s: wait step %lld: %s", __func__,
		    (long long)row->id, cause);
		free(cause);
	}
	if (p.on_timeout != NULL && strcmp(p.on_timeout, "fail") != 0)
		spec = flow_find(es->wf->flow, p.on_timeout);
	if (spec >= 0) {
		xasprintf(&why, "timed out waiting to be finished; escalated "
		    "to %s", es->wf->flow->steps[spec].name);
		engine_step_cancelled(e, es, why);
		free(why);
		engine_origin_after(es, 0, &o);
		engine_step_create(e, es->wf, spec, &o);
		engine_wf_settle(e, es->wf);
	} else {
		es->no_retry = 1;
		engine_step_failed(e, es, "timed out waiting to be finished",
		    0, 0, NULL);
	}
	engine_step_free(es);
	flow_policy_free(&p);
	store_step_free(row);
}
