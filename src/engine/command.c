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
 * command.c: the commands people give the engine (start, approve, reject,
 * cancel, retry, skip, pause, resume, complete, fail, the schedule-* and
 * template-* ones),
 * from the socket, the inbox or a process that became the engine to
 * apply one.  One table; each command answers with a code (0, or 3 for an unknown id, 4
 * for a refusal) and a line, and every one is audited with the person
 * who asked.  The person is the command's uid as the system knows it
 * (authority.c decides what it may do, and a template's own operators
 * narrow that for its runs: owners.c); an inbox row without sluice's
 * seal was not posted by sluice and is refused.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/*
 * A command the engine applies.  The caller (the command's uid, with its
 * names and groups) is resolved once by engine_apply() and handed down
 * as a parameter to whatever decides a right; the engine keeps no
 * "current caller" of its own that a timer or a later command could read.
 */
struct engine_command {
	const char	*name;
	int		(*apply)(struct engine *, const struct store_inbox *,
			    const struct authority_caller *,
			    struct engine_reply *);
	int		 operate;	/* needs the operator right */
	int		 owners;	/* and its template's (owners.c) */
	/*
	 * A gate decision instead of apply: what it reads comes in one
	 * statement with the request's record (engine_gate_read).
	 */
	int		(*decide)(struct engine *, const struct store_inbox *,
			    const struct authority_caller *,
			    const struct store_gate_read *,
			    struct engine_reply *);
};

static int	 engine_cmd_start(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
static int	 engine_cmd_approve(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *,
		     const struct store_gate_read *, struct engine_reply *);
static int	 engine_cmd_reject(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *,
		     const struct store_gate_read *, struct engine_reply *);
static int	 engine_cmd_cancel(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
static int	 engine_cmd_pause(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
static int	 engine_cmd_resume(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* Gate decisions and skip decide their own rule (gate.c, rerun.c). */
static const struct engine_command engine_commands[] = {
	{ "start", engine_cmd_start, 1, 1, NULL },
	{ "approve", NULL, 0, 0, engine_cmd_approve },
	{ "reject", NULL, 0, 0, engine_cmd_reject },
	{ "cancel", engine_cmd_cancel, 1, 1, NULL },
	{ "retry", engine_cmd_retry, 1, 1, NULL },
	{ "skip", engine_cmd_skip, 0, 1, NULL },
	{ "complete", engine_cmd_complete, 0, 0, NULL },	/* wait.c: the row's "by" */
	{ "fail", engine_cmd_fail, 0, 0, NULL },
	{ "pause", engine_cmd_pause, 1, 1, NULL },
	{ "resume", engine_cmd_resume, 1, 1, NULL },
	{ "notify", engine_cmd_notify, 0, 0, NULL },	/* kept while no engine ran */
	{ "schedule-add", engine_cmd_schedule_add, 1, 1, NULL },
	{ "schedule-rm", engine_cmd_schedule_rm, 1, 0, NULL },
	{ "schedule-pause", engine_cmd_schedule_pause, 1, 0, NULL },
	{ "schedule-resume", engine_cmd_schedule_resume, 1, 0, NULL },
	{ "schedule-run", engine_cmd_schedule_run, 1, 1, NULL },
	{ "template-save", engine_cmd_template_save, 0, 0, NULL },	/* template.c */
	{ "template-rm", engine_cmd_template_rm, 0, 0, NULL },
	{ "handover", engine_cmd_handover, 1, 0, NULL },	/* engine.c */
	{ "prune", engine_cmd_prune, 1, 0, NULL },	/* prune.c */
};

/* A string member of a command's JSON arguments, or NULL. */
char *
engine_arg_string(const char *args_json, const char *key)
{
	cJSON	*a;
	cJSON	*v;
	char	*out = NULL;

	if (args_json == NULL || (a = cJSON_Parse(args_json)) == NULL)
		return (NULL);
	v = cJSON_GetObjectItemCaseSensitive(a, key);
	if (cJSON_IsString(v) && v->valuestring[0] != '\0')
		out = xstrdup(v->valuestring);
	cJSON_Delete(a);
	return (out);
}

/* A comment, or NULL when it is absent or only white space. */
char *
engine_arg_comment(const char *args_json)
{
	char	*c;

	c = engine_arg_string(args_json, "comment");
	if (c != NULL && !authority_has_reason(c)) {
		free(c);
		c = NULL;
	}
	return (c);
}

/*
 * Refuse a command: code 4, the message already in r, and an audit row
 * "VERB-refused" on what it named (row, else the command's ids).
 */
int
engine_refuse(struct engine *e, const struct store_inbox *m,
    const char *verb, const struct store_step *row, struct engine_reply *r)
{
	char	*action, *target;
	int64_t	 wf, step;

	wf = row != NULL ? row->workflow_id : m->workflow_id;
	step = row != NULL ? row->id : m->step_id;
	if (row != NULL)
		xasprintf(&target, "step %lld %s", (long long)row->id,
		    row->name);
	else if (step != 0)
		xasprintf(&target, "step %lld", (long long)step);
	else if (wf != 0)
		xasprintf(&target, "workflow %lld", (long long)wf);
	else
		target = NULL;
	xasprintf(&action, "%s-refused", verb);
	engine_audit(e, m, action, wf, step, target, r->message, NULL);
	free(action);
	free(target);
	r->code = 4;
	return (r->code);
}

/* Audit an operator action on a workflow (or one of its steps). */
void
engine_audit(struct engine *e, const struct store_inbox *m, const char *action,
    int64_t wf, int64_t step, const char *target, const char *comment,
    const char *detail)
{
	struct store_actor		 actor;
	struct store_audit_entry	 a;
	struct ewf			*w;
	char				*cause = NULL, *mc = NULL, *md = NULL;

	/* A run's secrets are masked in what is said about it too. */
	if (wf != 0 && (w = engine_wf_get(e, wf)) != NULL &&
	    !mask_empty(w->mask)) {
		comment = mc = mask_text(w->mask, comment);
		detail = md = mask_json(w->mask, detail);
	}
	actor.uid = (uid_t)m->uid;
	actor.user = m->who;
	actor.tty = m->tty;
	actor.host = m->host;
	actor.via = m->via;
	actor.node = m->node;
	memset(&a, 0, sizeof a);
	a.action = action;
	a.target = target;
	a.workflow_id = wf;
	a.step_id = step;
	a.comment = comment;
	a.detail_json = detail;
	if (store_audit_add(e->store, &actor, &a, &cause) != 0)
		engine_store_fatal(e, cause);
	free(mc);
	free(md);
}

/* Find a workflow for a command: in memory, or say what it is. */
struct ewf *
engine_cmd_workflow(struct engine *e, int64_t id, const char *verb,
    struct engine_reply *r)
{
	struct store_workflow	*w;
	struct ewf		*wf;
	char			*cause = NULL;

	r->workflow_id = id;
	if ((wf = engine_wf_get(e, id)) != NULL && !wf->ended)
		return (wf);
	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		free(cause);
		r->code = 3;
		xasprintf(&r->message, "no workflow %lld", (long long)id);
		return (NULL);
	}
	r->code = 4;
	xasprintf(&r->message, "cannot %s workflow %lld: it is %s", verb,
	    (long long)id, status_run_name(w->status));
	store_workflow_free(w);
	return (NULL);
}

/* The command named, or NULL. */
static const struct engine_command *
engine_command_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(engine_commands); i++) {
		if (strcmp(engine_commands[i].name, name) == 0)
			return (&engine_commands[i]);
	}
	return (NULL);
}

/*
 * Apply one command (cmd, NULL when unknown) as its uid, caller (the
 * name it carries is replaced by the uid's): the operator right first
 * where the command needs it, then the command; a gate decision with
 * what engine_gate_read() read into g.  Fills the reply and returns its
 * code.
 */
static int
engine_apply_one(struct engine *e, const struct store_inbox *m,
    const struct engine_command *cmd, const struct authority_caller *caller,
    const struct store_gate_read *g, struct engine_reply *r)
{
	struct authority_ask		 q;
	struct store_inbox		 as = *m;

	if (cmd == NULL) {
		r->code = 1;
		xasprintf(&r->message, "unknown command \"%s\"", m->command);
		return (r->code);
	}
	as.who = caller->name;
	memset(&q, 0, sizeof q);
	q.verb = m->command;
	if (engine_relay_caller_ok(e, m, caller, &r->message) != 0) {
		r->workflow_id = m->workflow_id;
		r->step_id = m->step_id;
		engine_refuse(e, m, m->command, NULL, r);
	} else if (cmd->operate && !authority_check(&e->opts.authority,
	    caller, &q, &r->message)) {
		r->workflow_id = m->workflow_id;
		r->step_id = m->step_id;
		engine_refuse(e, &as, m->command, NULL, r);
	} else if (cmd->decide != NULL)
		cmd->decide(e, &as, caller, g, r);
	else if (!cmd->owners || engine_owners_may(e, &as, caller, r))
		cmd->apply(e, &as, caller, r);
	return (r->code);
}

/* Apply a request in this process, which is the engine (run --wait). */
int
engine_request_apply(struct engine *e, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r)
{
	struct store_inbox	 m;
	const struct user_info	*self = user_self();

	memset(&m, 0, sizeof m);
	m.uid = actor != NULL ? (int64_t)actor->uid : (int64_t)self->uid;
	m.who = (char *)(actor != NULL && actor->user != NULL ? actor->user :
	    self->name);
	m.tty = (char *)(actor != NULL ? actor->tty : self->tty);
	m.host = (char *)(actor != NULL ? actor->host : self->host);
	m.via = (char *)(actor != NULL ? actor->via : NULL);
	m.command = (char *)q->command;
	m.workflow_id = q->workflow_id;
	m.step_id = q->step_id;
	m.args_json = (char *)q->args_json;
	m.request = (char *)q->request;
	return (engine_apply(e, &m, r));
}

/*
 * Apply one command (engine_apply_one), once: a command with a request id
 * that is applied is recorded with its answer in the same transaction,
 * and the same id again gets that answer without being applied again.  A
 * refusal records nothing (a bad input changes nothing): asked later, it
 * was not applied, and sent again it is refused again, saying why.
 */
int
engine_apply(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	const struct engine_command	*cmd;
	struct authority_caller		 caller;
	struct store_gate_read		 g;
	int				 seen;

	memset(r, 0, sizeof *r);
	memset(&g, 0, sizeof g);
	engine_txn(e);
	cmd = engine_command_find(m->command);
	authority_caller_init(&caller, (uid_t)m->uid);
	if (cmd != NULL && cmd->decide != NULL)
		seen = engine_gate_read(e, m, caller.name, &g, r);
	else
		seen = m->request != NULL && engine_request_seen(e, m, r);
	if (!seen) {
		engine_apply_one(e, m, cmd, &caller, &g, r);
		if (m->request != NULL && r->code == 0)
			engine_request_record(e, m, r);
	}
	store_gate_read_clear(&g);
	authority_caller_clear(&caller);
	return (r->code);
}

/* Answer a command on its inbox row. */
static void
engine_answer(struct engine *e, const struct store_inbox *m,
    const struct engine_reply *r)
{
	cJSON	*o;
	char	*text;

	o = engine_reply_json(r);
	text = json_print(o);
	cJSON_Delete(o);
	if (store_inbox_reply(e->store, m->id, r->code == 0 ? "done" :
	    "refused", text, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(text);
}

/*
 * Apply every new command in the inbox, in order.  In cluster mode a
 * standby may withdraw a command its leader did not answer in time
 * (server-relay.c) until this turn holds the write lock: what is new is
 * read again under it, so a withdrawn command is never applied.
 */
void
engine_inbox(struct engine *e)
{
	struct store_inbox	*list;
	struct engine_reply	 r;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_inbox_new(e->store, &list, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	if (n > 0 && e->leader != NULL && !e->in_txn) {
		store_inboxes_free(list, n);
		engine_txn(e);
		if (store_inbox_new(e->store, &list, &n, &cause) != 0)
			engine_store_fatal(e, cause);
	}
#ifdef SLUICE_TEST_CLOCK
	if (n > 0 && e->leader != NULL)
		engine_test_hold("inbox");	/* read under the lock */
#endif
	for (i = 0; i < n; i++) {
		if (store_inbox_sealed(&list[i]))
			engine_apply(e, &list[i], &r);
		else {
			/* Written around sluice: refuse it, on record. */
			memset(&r, 0, sizeof r);
			engine_txn(e);
			xasprintf(&r.message, "command %lld was not posted by "
			    "sluice (no valid seal): refused",
			    (long long)list[i].id);
			engine_refuse(e, &list[i], "command", NULL, &r);
		}
		engine_answer(e, &list[i], &r);
		engine_reply_clear(&r);
	}
	store_inboxes_free(list, n);
}

/* start: a new workflow from a flow, its input and name. */
static int
engine_cmd_start(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	char	*cause = NULL;
	int64_t	 id;
	int	 rc;

	if ((rc = engine_wf_start(e, m, &id, &cause)) != 0) {
		/* 3: no such template; 4: a secret's policy */
		r->code = rc == 2 || rc == 3 || rc == 4 ? rc : 1;
		r->message = cause;
		return (r->code);
	}
	r->workflow_id = id;
	engine_conc_started(e, id, &r->message);
	return (0);
}

/* approve: a vote for a waiting gate. */
static int
engine_cmd_approve(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_gate_read *g,
    struct engine_reply *r)
{
	return (engine_gate_decide(e, m, caller, 1, g, r));
}

/* reject: a gate is turned down (a comment is required). */
static int
engine_cmd_reject(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const struct store_gate_read *g,
    struct engine_reply *r)
{
	return (engine_gate_decide(e, m, caller, 0, g, r));
}

/* cancel: kill what runs, cancel the rest, and the workflow. */
static int
engine_cmd_cancel(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct ewf	*wf;
	char		*comment, *target;
	int64_t		 id;

	/* A step and no workflow: one for-each item (cancel --step). */
	if (m->workflow_id == 0 && m->step_id != 0)
		return (engine_foreach_cancel_item(e, m, r));
	if (engine_sched_cancel(e, m, r) == 0)	/* not started yet */
		return (r->code);
	if ((wf = engine_cmd_workflow(e, m->workflow_id, "cancel", r)) == NULL)
		return (r->code);
	comment = engine_arg_comment(m->args_json);
	xasprintf(&target, "workflow %lld %s", (long long)wf->id, wf->name);
	engine_audit(e, m, "cancel", wf->id, 0, target, comment, NULL);
	id = wf->id;
	engine_wf_cancel(e, wf);	/* may free wf */
	if ((wf = engine_wf_get(e, id)) != NULL && !wf->ended)
		xasprintf(&r->message, "cancelling workflow %lld: its finally "
		    "handler runs first (cancel again to kill it)",
		    (long long)id);
	else
		xasprintf(&r->message, "cancelled workflow %lld",
		    (long long)id);
	free(target);
	free(comment);
	return (0);
}

/* pause: start nothing new in a workflow until resumed. */
static int
engine_cmd_pause(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct ewf	*wf;
	char		*target;

	if ((wf = engine_cmd_workflow(e, m->workflow_id, "pause", r)) == NULL)
		return (r->code);
	if (wf->paused) {
		r->code = 4;
		xasprintf(&r->message, "workflow %lld is already paused",
		    (long long)wf->id);
		return (r->code);
	}
	wf->paused = 1;
	if (store_workflow_set_paused(e->store, wf->id, 1, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_children_pause(e, wf, 1);
	xasprintf(&target, "workflow %lld %s", (long long)wf->id, wf->name);
	engine_audit(e, m, "pause", wf->id, 0, target, NULL, NULL);
	free(target);
	xasprintf(&r->message, "paused workflow %lld", (long long)wf->id);
	return (0);
}

/* resume: a paused workflow goes on. */
static int
engine_cmd_resume(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct ewf	*wf;
	char		*target;

	if ((wf = engine_cmd_workflow(e, m->workflow_id, "resume", r)) == NULL)
		return (r->code);
	if (!wf->paused) {
		r->code = 4;
		xasprintf(&r->message, "workflow %lld is not paused",
		    (long long)wf->id);
		return (r->code);
	}
	wf->paused = 0;
	if (store_workflow_set_paused(e->store, wf->id, 0, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_children_pause(e, wf, 0);
	xasprintf(&target, "workflow %lld %s", (long long)wf->id, wf->name);
	engine_audit(e, m, "resume", wf->id, 0, target, NULL, NULL);
	free(target);
	engine_wf_requeue(e, wf);
	xasprintf(&r->message, "resumed workflow %lld", (long long)wf->id);
	return (0);
}
