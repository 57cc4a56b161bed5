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
 * gate.c: steps that wait for people.  A gate row carries its options,
 * resolved when it starts waiting; a decision names that row, so a vote
 * for one gate never opens another.  Approvers by name or @group, a
 * quorum of distinct people, allow_self, a timeout that rejects or
 * escalates; every decision and every refusal goes to the audit trail.
 * A gate starting to wait, and its decision, are notified (notify.c).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* How a gate was decided, for the gate_decided notification. */
struct engine_gate_vote {
	const char	*action;	/* approve reject timeout */
	const char	*outcome;	/* approved rejected escalated */
	const char	*who;		/* NULL for a timeout */
	const char	*comment;
	const char	*escalated_to;	/* the escalation step, or NULL */
};

static void	 engine_gate_audit(struct engine *, const struct store_inbox *,
		     const char *, const struct store_step *, const char *,
		     const char *);
static void	 engine_gate_reject(struct engine *, struct estep *, int,
		     const char *, const char *);
static char	*engine_gate_refuses(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, const struct store_step *,
		     const char *, const char *, struct flow_policy *,
		     struct ewf **);
static void	 engine_gate_approve(struct engine *, struct estep *, int,
		     const struct engine_gate_vote *);
static void	 engine_gate_notify(struct engine *, int64_t, int64_t,
		     const struct engine_gate_vote *);

/*
 * A gate's options as its row keeps them, from the flow's options and
 * the message (interpolated): the effective policy (approvers, quorum,
 * allow_self and agents with the site's defaults applied) fixed for the
 * gate's life.
 * Every gate goes through here, a for-each's too, so one rule decides.
 */
void
engine_gate_policy(struct engine *e, const struct flow_gate *gate,
    const char *msg, struct flow_policy *p)
{
	size_t	 i;

	flow_policy_init(p, KIND_GATE);
	p->message = xstrdup(msg);
	p->napprovers = gate->napprovers;
	p->approvers = xcalloc(gate->napprovers + 1, sizeof *p->approvers);
	for (i = 0; i < gate->napprovers; i++)
		p->approvers[i] = xstrdup(gate->approvers[i]);
	p->quorum = gate->quorum > 0 ? gate->quorum : 1;
	/* Resolved now, so whoever applies a decision applies this rule. */
	p->allow_self = gate->allow_self >= 0 ? gate->allow_self :
	    e->opts.authority.allow_self;
	/* May an agent (a decision via MCP) decide it?  No, unless said. */
	p->agents = gate->agents >= 0 ? gate->agents :
	    e->opts.authority.agents;
	p->timeout_ms = gate->timeout;
	if (gate->on_timeout != NULL)
		p->on_timeout = xstrdup(gate->on_timeout);
}

/* A gate step's options as its row keeps them (engine_gate_policy). */
char *
engine_gate_json(struct engine *e, struct ewf *wf, const struct flow_step *fs)
{
	struct flow_policy	 p;
	cJSON			*scope;
	char			*msg, *out;

	scope = engine_scope(e, wf, wf->uses_steps[fs - wf->flow->steps]);
	msg = interp_text(fs->gate.message != NULL ? fs->gate.message : "",
	    scope);
	engine_gate_policy(e, &fs->gate, msg, &p);
	free(msg);
	out = flow_policy_write(&p);
	flow_policy_free(&p);
	cJSON_Delete(scope);
	return (out);
}

/* A gate row started waiting: say so, and arm its timeout. */
void
engine_gate_waiting(struct engine *e, struct ewf *wf,
    const struct flow_step *fs, int64_t id, int64_t now)
{
	engine_notify(e, "gate_waiting", wf->id, id, NULL);
	if (fs->exec != KIND_GATE || fs->gate.timeout <= 0)
		return;
	if (store_timer_add(e->store, now + fs->gate.timeout, "gate_timeout",
	    wf->id, id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, now + fs->gate.timeout);
}

/* Record a decision (or a refused one) on the audit trail. */
static void
engine_gate_audit(struct engine *e, const struct store_inbox *m,
    const char *action, const struct store_step *row, const char *comment,
    const char *detail)
{
	struct store_actor		 actor;
	struct store_audit_entry	 a;
	char				*target, *cause = NULL;

	actor.uid = (uid_t)m->uid;
	actor.user = m->who;
	actor.tty = m->tty;
	actor.host = m->host;
	actor.via = m->via;
	actor.node = m->node;
	xasprintf(&target, "step %lld %s", (long long)row->id, row->name);
	memset(&a, 0, sizeof a);
	a.action = action;
	a.target = target;
	a.workflow_id = row->workflow_id;
	a.step_id = row->id;
	a.comment = comment;
	a.detail_json = detail;
	if (store_audit_add(e->store, &actor, &a, &cause) != 0)
		engine_store_fatal(e, cause);
	free(target);
}

/*
 * Why the caller may not decide this gate row now (authority.c, by the
 * policy on the row, read into p), or NULL when they may (then *wfp is
 * its workflow).  Skip of a waiting gate asks with approve's right.
 */
char *
engine_gate_refusal(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_step *row,
    const char *verb, struct flow_policy *p, struct ewf **wfp)
{
	char	*decided = NULL, *why;

	if (store_approval_decision(e->store, row->id, m->who, &decided) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	why = engine_gate_refuses(e, m, caller, row, verb, decided, p, wfp);
	free(decided);
	return (why);
}

/*
 * engine_gate_refusal() with the caller's earlier decision on the row
 * (decided, NULL: none) already read.  A policy that cannot be read
 * refuses every decision: the rule it would have said is unknown, and
 * guessing "anyone" would fail open.
 */
static char *
engine_gate_refuses(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_step *row,
    const char *verb, const char *decided, struct flow_policy *p,
    struct ewf **wfp)
{
	struct authority_ask	 q;
	char			*why = NULL, *target, *comment;
	int			 ok;

	flow_policy_init(p, KIND_GATE);
	if (engine_wait_is(row)) {
		xasprintf(&why, "step %lld (%s) is a wait step, finished from "
		    "outside, not a gate: use sluice complete %lld (or sluice "
		    "fail %lld -m REASON)", (long long)row->id, row->name,
		    (long long)row->id, (long long)row->id);
		return (why);
	}
	if (row->status != STEP_WAITING) {
		xasprintf(&why, "step %lld (%s) is not waiting for a decision: "
		    "it is %s", (long long)row->id, row->name,
		    status_step_name(row->status));
		return (why);
	}
	if ((*wfp = engine_wf_get(e, row->workflow_id)) == NULL) {
		xasprintf(&why, "workflow %lld is not running",
		    (long long)row->workflow_id);
		return (why);
	}
	xasprintf(&target, "%s (step %lld)", row->name, (long long)row->id);
	if (flow_policy_read(row->gate_json, KIND_GATE, p, &why) != 0) {
		comment = flow_policy_unreadable(why);
		free(why);
		xasprintf(&why, "gate %s: %s, so no decision is taken", target,
		    comment);
		free(comment);
		free(target);
		return (why);
	}
	comment = engine_arg_string(m->args_json, "comment");
	memset(&q, 0, sizeof q);
	q.verb = verb;
	q.target = target;
	q.gate = p;
	q.starter = (*wfp)->created_by;
	q.via = m->via;
	q.workflow_id = row->workflow_id;
	q.approving = strcmp(verb, "reject") != 0;
	q.need_reason = strcmp(verb, "approve") != 0;
	q.reason = comment;
	q.decided = decided;
	ok = authority_check(&e->opts.authority, caller, &q, &why);
	if (ok && strcmp(verb, "skip") == 0 && p->quorum > 1) {
		xasprintf(&why, "gate %s needs %d approvals: one person's skip "
		    "cannot stand for them (approve it instead)", target,
		    p->quorum);
	}
	free(comment);
	free(target);
	return (why);
}

/* A rejection: the gate ends rejected (an interrupted step fails). */
static void
engine_gate_reject(struct engine *e, struct estep *es, int interrupted,
    const char *who, const char *comment)
{
	char	*why;

	xasprintf(&why, "rejected by %s%s%s", who, comment != NULL ? ": " : "",
	    comment != NULL ? comment : "");
	if (interrupted) {
		es->no_retry = 1;
		engine_step_failed(e, es, why, 0, 0, NULL);
	} else
		engine_step_rejected(e, es, why);
	free(why);
	engine_step_free(es);
}

/* Note a gate's decision, before what follows from it. */
static void
engine_gate_notify(struct engine *e, int64_t wf, int64_t id,
    const struct engine_gate_vote *v)
{
	cJSON	*x, *d;

	x = cJSON_CreateObject();
	d = cJSON_AddObjectToObject(x, "decision");
	cJSON_AddStringToObject(d, "action", v->action);
	cJSON_AddStringToObject(d, "outcome", v->outcome);
	if (v->who != NULL)
		cJSON_AddStringToObject(d, "who", v->who);
	else
		cJSON_AddNullToObject(d, "who");
	if (v->comment != NULL)
		cJSON_AddStringToObject(d, "comment", v->comment);
	else
		cJSON_AddNullToObject(d, "comment");
	if (v->escalated_to != NULL)
		cJSON_AddStringToObject(d, "escalated_to", v->escalated_to);
	engine_notify(e, "gate_decided", wf, id, x);
}

/*
 * An approval that made the quorum: the gate is done (an interrupted
 * step runs again).
 */
static void
engine_gate_approve(struct engine *e, struct estep *es, int interrupted,
    const struct engine_gate_vote *v)
{
	engine_gate_notify(e, es->wf->id, es->id, v);
	if (store_timers_del_step(e->store, es->id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (interrupted) {
		/* Run the interrupted step again. */
		if (store_step_set_status(e->store, es->id, STEP_READY,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_step_ready(e, es);
	} else {
		engine_step_done(e, es, "\"approved\"", 0, 0);
		engine_step_free(es);
	}
}

/*
 * What a decision on a gate reads, in one statement (store/gate-read.c),
 * as the name who the engine knows the caller by: 1 when the command's
 * request id was applied already, with the answer it had in r; else 0.
 */
int
engine_gate_read(struct engine *e, const struct store_inbox *m,
    const char *who, struct store_gate_read *g, struct engine_reply *r)
{
	char	*cause = NULL;

	if (store_gate_read(e->store, m->step_id, who, m->uid, m->request, g,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	if (m->request == NULL || g->reply == NULL)
		return (0);
	if (engine_request_answer(g->reply, m->request, r, &cause) != 0)
		engine_store_fatal(e, cause);
	return (1);
}

/*
 * Approve or reject a waiting gate row, from what engine_gate_read()
 * read.  Fills reply (code 3 unknown step, 4 refused, and the refusal
 * audited) and returns its code.
 */
int
engine_gate_decide(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, int approve,
    const struct store_gate_read *g, struct engine_reply *r)
{
	const struct store_step	*row = g->row;
	struct ewf		*wf = NULL;
	struct estep		*es;
	struct engine_gate_vote	 v;
	struct flow_policy	 p;
	int64_t			 n;
	char			*comment;
	const char		*verb = approve ? "approve" : "reject";

	if (row == NULL) {
		r->code = 3;
		xasprintf(&r->message, "no step %lld", (long long)m->step_id);
		return (r->code);
	}
	r->workflow_id = row->workflow_id;
	r->step_id = row->id;
	comment = engine_arg_comment(m->args_json);
	if ((r->message = engine_gate_refuses(e, m, caller, row, verb,
	    g->decided, &p, &wf)) != NULL) {
		engine_refuse(e, m, verb, row, r);
		goto out;
	}
	engine_gate_audit(e, m, verb, row, comment, NULL);
	if (store_approval_add(e->store, row->id, wf->id, m->who, verb,
	    comment, time_now_ms(), store_audit_last(e->store)) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if ((es = engine_step_from_row(e, row)) == NULL)
		goto out;
	v = (struct engine_gate_vote){ verb, approve ? "approved" : "rejected",
	    m->who, comment, NULL };
	/*
	 * Counted, not read again: the decision was taken only because this
	 * person had none on the row, and under the turn's write lock the
	 * count read with it (engine_gate_read) has not moved, so this
	 * approval is one more person's.
	 */
	n = g->approved + 1;
	if (!approve) {
		if (store_timers_del_step(e->store, row->id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_gate_notify(e, wf->id, row->id, &v);
		engine_gate_reject(e, es, p.interrupted, m->who, comment);
		xasprintf(&r->message, "rejected step %lld (%s)",
		    (long long)row->id, row->name);
	} else if (n < p.quorum) {
		engine_step_free(es);
		xasprintf(&r->message, "approved step %lld (%s): %lld of %d "
		    "approvals", (long long)row->id, row->name, (long long)n,
		    p.quorum);
	} else {
		engine_gate_approve(e, es, p.interrupted, &v);
		xasprintf(&r->message, "approved step %lld (%s)",
		    (long long)row->id, row->name);
	}
out:
	flow_policy_free(&p);
	free(comment);
	return (r->code);
}

/* A gate waited too long: reject it, or start its escalation step. */
void
engine_gate_timeout(struct engine *e, int64_t id)
{
	struct store_step	*row;
	struct estep		*es;
	struct engine_gate_vote	 v;
	struct flow_policy	 p;
	struct estep_origin	 o;
	int			 spec;
	char			*cause = NULL, *why;

	if (store_step_get(e->store, id, &row, &cause) != 0) {
		free(cause);
		return;
	}
	if (row->status != STEP_WAITING ||
	    (es = engine_step_from_row(e, row)) == NULL) {
		store_step_free(row);
		return;
	}
	/* A policy that cannot be read escalates nowhere: it rejects. */
	if (flow_policy_read(row->gate_json, KIND_GATE, &p, &cause) != 0) {
		log_debug("%s: gate step %lld: %s", __func__, (long long)row->id, cause);
		free(cause);
	}
	memset(&v, 0, sizeof v);
	v.action = "timeout";
	v.outcome = "rejected";
	v.comment = "timed out waiting for approval";
	if (p.on_timeout != NULL && strcmp(p.on_timeout, "reject") != 0 &&
	    (spec = flow_find(es->wf->flow, p.on_timeout)) >= 0) {
		v.outcome = "escalated";
		v.escalated_to = es->wf->flow->steps[spec].name;
		engine_gate_notify(e, es->wf->id, es->id, &v);
		xasprintf(&why, "timed out waiting for approval; escalated "
		    "to %s", es->wf->flow->steps[spec].name);
		engine_step_cancelled(e, es, why);
		free(why);
		engine_origin_after(es, 0, &o);
		engine_step_create(e, es->wf, spec, &o);
		engine_wf_settle(e, es->wf);
	} else {
		engine_gate_notify(e, es->wf->id, es->id, &v);
		engine_step_rejected(e, es, "timed out waiting for approval");
	}
	engine_step_free(es);
	flow_policy_free(&p);
	store_step_free(row);
}
