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
 * notify.c: config.json's "notify" commands, run on events (a gate
 * waiting or decided, a workflow failed, late or completed).  An event is
 * only noted during the turn; once the turn commits its payload is built
 * from the tables and each matching command is run (notify-job.c).  An
 * engine with no loop (a command applied while no engine runs) stores its
 * events in the inbox instead, for the next engine to send.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static struct engine_notifier *notify_get(struct engine *);
static int	 notify_wanted(struct engine *, int);
static void	 notify_event_free(struct notify_event *);
static cJSON	*notify_payload(struct engine *, const struct notify_event *);
static void	 notify_payload_workflow(struct engine *, cJSON *, int64_t);
static void	 notify_payload_step(struct engine *, cJSON *, int64_t,
		     int);
static char	*notify_console(struct engine *, int64_t);
static char	*notify_message(const cJSON *);
static void	 notify_defer(struct engine *, cJSON *);

/* The engine's notifier, made on first use. */
static struct engine_notifier *
notify_get(struct engine *e)
{
	struct engine_notifier	*n;

	if ((n = e->notifier) != NULL)
		return (n);
	n = e->notifier = xcalloc(1, sizeof *n);
	TAILQ_INIT(&n->pending);
	TAILQ_INIT(&n->queue);
	TAILQ_INIT(&n->active);
	return (n);
}

/* Does any configured command run on this event? */
static int
notify_wanted(struct engine *e, int bit)
{
	const struct notify_config	*nc = e->opts.notify;
	size_t				 i;

	for (i = 0; nc != NULL && i < nc->ncmds; i++) {
		if (nc->cmds[i].events & bit)
			return (1);
	}
	return (0);
}

/*
 * Note an event of this turn (extra, which may be NULL, is merged into
 * its payload and freed).  Nothing runs until the turn commits, so a
 * change a crash rolls back is never announced.  With no loop the event
 * is kept for the next engine, whatever this process's own config says.
 */
void
engine_notify(struct engine *e, const char *event, int64_t workflow_id,
    int64_t step_id, cJSON *extra)
{
	struct engine_notifier	*n;
	struct notify_event	*ev;
	int			 bit;

	if (e->observer != NULL)
		e->observer(event, workflow_id, step_id, e->observer_arg);
	if ((bit = notify_event_bit(event)) == 0 ||
	    (!e->offline && !notify_wanted(e, bit))) {
		cJSON_Delete(extra);
		return;
	}
	n = notify_get(e);
	if (n->npending >= NOTIFY_QUEUE_MAX) {
		log_debug("%s: %s of workflow %lld dropped: %d events in one "
		    "turn already", __func__, event, (long long)workflow_id,
		    NOTIFY_QUEUE_MAX);
		cJSON_Delete(extra);
		return;
	}
	engine_txn(e);
	ev = xcalloc(1, sizeof *ev);
	ev->event = xstrdup(event);
	ev->at = time_now_ms();
	ev->workflow_id = workflow_id;
	ev->step_id = step_id;
	ev->extra = extra;
	TAILQ_INSERT_TAIL(&n->pending, ev, entry);
	n->npending++;
}

/*
 * The inbox's "notify": an event kept by a process that applied a
 * command while no engine ran, sent now as it was built then.
 */
int
engine_cmd_notify(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct notify_event	*ev;
	struct engine_notifier	*n;
	cJSON			*p;
	const char		*event;

	p = m->args_json != NULL ? cJSON_Parse(m->args_json) : NULL;
	event = engine_notify_str(p, "event", NULL);
	if (!cJSON_IsObject(p) || event == NULL ||
	    notify_event_bit(event) == 0) {
		cJSON_Delete(p);
		r->code = 1;
		xasprintf(&r->message, "notify: not an event");
		return (r->code);
	}
	r->workflow_id = m->workflow_id;
	r->step_id = m->step_id;
	if (!notify_wanted(e, notify_event_bit(event))) {
		xasprintf(&r->message, "no notify command for %s", event);
		cJSON_Delete(p);
		return (0);
	}
	n = notify_get(e);
	ev = xcalloc(1, sizeof *ev);
	ev->event = xstrdup(event);
	ev->payload = p;
	TAILQ_INSERT_TAIL(&n->pending, ev, entry);
	n->npending++;
	xasprintf(&r->message, "%s queued", event);
	return (0);
}

/* Free a noted event. */
static void
notify_event_free(struct notify_event *ev)
{
	cJSON_Delete(ev->extra);
	cJSON_Delete(ev->payload);
	free(ev->event);
	free(ev);
}

/*
 * The turn committed: build each event's payload from the tables and run
 * its commands (or, with no loop, keep it in the inbox).
 */
void
engine_notify_commit(struct engine *e)
{
	struct engine_notifier	*n = e->notifier;
	struct notify_event	*ev;
	cJSON			*p;

	if (n == NULL)
		return;
	while ((ev = TAILQ_FIRST(&n->pending)) != NULL) {
		TAILQ_REMOVE(&n->pending, ev, entry);
		n->npending--;
		if (ev->payload != NULL) {
			p = ev->payload;
			ev->payload = NULL;
		} else
			p = notify_payload(e, ev);
		if (e->offline)
			notify_defer(e, p);
		else
			engine_notify_enqueue(e, p);
		cJSON_Delete(p);
		notify_event_free(ev);
	}
	if (!e->offline)
		engine_notify_run(e);
}

/* A string member (of a member, when sub is set), or NULL. */
const char *
engine_notify_str(const cJSON *o, const char *key, const char *sub)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (sub != NULL)
		v = cJSON_GetObjectItemCaseSensitive(v, sub);
	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/* An event's payload, as the tables say now that its turn committed. */
static cJSON *
notify_payload(struct engine *e, const struct notify_event *ev)
{
	cJSON		*o, *v, *next;
	char		*s;
	int		 gate;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "event", ev->event);
	cJSON_AddNumberToObject(o, "at", (double)ev->at);
	cJSON_AddStringToObject(o, "db", e->dbpath);
	cJSON_AddStringToObject(o, "host", user_self()->host);
	notify_payload_workflow(e, o, ev->workflow_id);
	gate = strncmp(ev->event, "gate_", 5) == 0;
	if (ev->step_id != 0)
		notify_payload_step(e, o, ev->step_id, gate);
	if (strcmp(ev->event, "workflow_failed") == 0 &&
	    (s = (char *)engine_notify_str(o, "workflow", "error")) != NULL)
		cJSON_AddStringToObject(o, "error", s);
	s = notify_console(e, ev->workflow_id);
	cJSON_AddStringToObject(o, "console", s);
	free(s);
	/* A lateness comes as the SLA's figures: they go under "sla". */
	if (strcmp(ev->event, "workflow_late") == 0 && ev->extra != NULL &&
	    cJSON_GetObjectItemCaseSensitive(ev->extra, "sla") == NULL)
		cJSON_AddItemToObject(o, "sla", cJSON_Duplicate(ev->extra, 1));
	else if (ev->extra != NULL) {
		for (v = ev->extra->child; v != NULL; v = next) {
			next = v->next;
			cJSON_DeleteItemFromObjectCaseSensitive(o, v->string);
			cJSON_AddItemToObject(o, v->string,
			    cJSON_Duplicate(v, 1));
		}
	}
	if (engine_notify_str(o, "message", NULL) == NULL) {
		s = notify_message(o);
		cJSON_AddStringToObject(o, "message", s);
		free(s);
	}
	return (o);
}

/* The payload's "workflow": id, name, status, who, when, template. */
static void
notify_payload_workflow(struct engine *e, cJSON *o, int64_t id)
{
	struct store_workflow	*w;
	cJSON			*wo, *t;
	char			*cause = NULL;

	wo = cJSON_AddObjectToObject(o, "workflow");
	cJSON_AddNumberToObject(wo, "id", (double)id);
	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return;
	}
	cJSON_AddStringToObject(wo, "name", w->name);
	cJSON_AddStringToObject(wo, "status", status_run_name(w->status));
	cJSON_AddStringToObject(wo, "created_by", w->created_by);
	cJSON_AddNumberToObject(wo, "created_at", (double)w->created_at);
	if (w->template_name != NULL) {
		t = cJSON_AddObjectToObject(wo, "template");
		cJSON_AddStringToObject(t, "name", w->template_name);
		cJSON_AddNumberToObject(t, "version",
		    (double)w->template_version);
	} else
		cJSON_AddNullToObject(wo, "template");
	if (w->error != NULL)
		cJSON_AddStringToObject(wo, "error", w->error);
	else
		cJSON_AddNullToObject(wo, "error");
	store_workflow_free(w);
}

/* The payload's "step", and for a gate event its "gate". */
static void
notify_payload_step(struct engine *e, cJSON *o, int64_t id, int gate)
{
	struct store_step	*row;
	struct flow_policy	 p;
	cJSON			*so, *go, *arr;
	int64_t			 n = 0;
	size_t			 i;
	char			*cause = NULL;

	if (store_step_get(e->store, id, &row, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return;
	}
	so = cJSON_AddObjectToObject(o, "step");
	cJSON_AddNumberToObject(so, "id", (double)row->id);
	cJSON_AddStringToObject(so, "name", row->name);
	cJSON_AddStringToObject(so, "key", row->step_key);
	cJSON_AddStringToObject(so, "status", status_step_name(row->status));
	cJSON_AddNumberToObject(so, "attempt", row->attempt);
	cJSON_AddItemToObject(so, "result", json_parse_or_null(
	    row->result_json));
	if (gate && row->gate_json != NULL) {
		/* Unreadable, it says what can be said: nobody decides it. */
		if (flow_policy_read(row->gate_json, KIND_GATE, &p,
		    &cause) != 0) {
			log_debug("%s: step %lld: %s", __func__,
			    (long long)id, cause);
			free(cause);
		}
		go = cJSON_AddObjectToObject(o, "gate");
		cJSON_AddStringToObject(go, "message", p.message != NULL ?
		    p.message : "");
		if (store_approval_count(e->store, id, &n) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		cJSON_AddNumberToObject(go, "approvals", (double)n);
		cJSON_AddNumberToObject(go, "quorum", p.quorum);
		arr = cJSON_AddArrayToObject(go, "approvers");
		for (i = 0; i < p.napprovers; i++)
			cJSON_AddItemToArray(arr,
			    cJSON_CreateString(p.approvers[i]));
		if (p.interrupted)
			cJSON_AddTrueToObject(go, "interrupted");
		flow_policy_free(&p);
	}
	store_step_free(row);
}

/* The command that shows the workflow, to paste into a terminal. */
static char *
notify_console(struct engine *e, int64_t id)
{
	struct buf	 b;
	const char	*p;

	buf_init(&b);
	buf_puts(&b, "sluice --db ");
	if (e->dbpath[strspn(e->dbpath, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789@%_+=:,./-")] == '\0')
		buf_puts(&b, e->dbpath);
	else {
		buf_putc(&b, '\'');
		for (p = e->dbpath; *p != '\0'; p++) {
			if (*p == '\'')
				buf_puts(&b, "'\\''");
			else
				buf_putc(&b, *p);
		}
		buf_putc(&b, '\'');
	}
	buf_printf(&b, " show %lld", (long long)id);
	return (buf_release(&b));
}

/* One line saying what happened, for a subject or a desktop popup. */
static char *
notify_message(const cJSON *o)
{
	const char	*ev, *name, *step, *text, *who;
	const cJSON	*wid, *sla;
	char		*s, *p, dur[32];
	struct buf	 b;

	ev = engine_notify_str(o, "event", NULL);
	name = engine_notify_str(o, "workflow", "name");
	step = engine_notify_str(o, "step", "name");
	wid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    o, "workflow"), "id");
	buf_init(&b);
	buf_printf(&b, "workflow %lld (%s)", cJSON_IsNumber(wid) ?
	    (long long)wid->valuedouble : 0LL, name != NULL ? name : "?");
	if (strcmp(ev, "gate_waiting") == 0) {
		buf_printf(&b, ": gate %s is waiting for approval",
		    step != NULL ? step : "?");
		if ((text = engine_notify_str(o, "gate", "message")) != NULL &&
		    *text != '\0')
			buf_printf(&b, ": %s", text);
	} else if (strcmp(ev, "gate_decided") == 0) {
		buf_printf(&b, ": gate %s ", step != NULL ? step : "?");
		text = engine_notify_str(o, "decision", "outcome");
		who = engine_notify_str(o, "decision", "who");
		if (who != NULL)
			buf_printf(&b, "%s by %s", text != NULL ? text : "?",
			    who);
		else
			buf_puts(&b, "timed out waiting for approval");
		if ((text = engine_notify_str(o, "decision",
		    "escalated_to")) != NULL)
			buf_printf(&b, "; escalated to %s", text);
		if ((text = engine_notify_str(o, "decision",
		    "comment")) != NULL && who != NULL)
			buf_printf(&b, ": %s", text);
	} else if (strcmp(ev, "workflow_failed") == 0) {
		buf_puts(&b, " failed");
		if ((text = engine_notify_str(o, "error", NULL)) != NULL)
			buf_printf(&b, ": %s", text);
	} else if (strcmp(ev, "workflow_deadline") == 0) {
		buf_puts(&b, " was cancelled: its deadline passed");
	} else if (strcmp(ev, "workflow_late") == 0) {
		buf_puts(&b, " is late");
		sla = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(o, "sla"), "sla_ms");
		if (cJSON_IsNumber(sla))
			buf_printf(&b, ": unfinished %s after it started",
			    flow_duration_format((int64_t)sla->valuedouble,
			    dur, sizeof dur));
	} else
		buf_printf(&b, " %s", ev + strlen("workflow_"));
	s = buf_release(&b);
	for (p = s; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	}
	return (s);
}

/*
 * No loop here: keep the event in the inbox, after this process's own
 * commit, for the next engine to send (marked deferred).
 */
static void
notify_defer(struct engine *e, cJSON *p)
{
	struct store_inbox	 m;
	const cJSON		*v;
	char			*cause = NULL;
	int64_t			 id;

	cJSON_AddTrueToObject(p, "deferred");
	memset(&m, 0, sizeof m);
	m.command = (char *)"notify";
	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    p, "workflow"), "id");
	m.workflow_id = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    p, "step"), "id");
	m.step_id = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
	m.args_json = json_print(p);
	if (store_inbox_post(e->store, NULL, &m, &id, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
	}
	free(m.args_json);
}

/*
 * The engine closes: what still runs gets SIGTERM and is forgotten, what
 * waits is dropped.
 */
void
engine_notify_close(struct engine *e)
{
	struct engine_notifier	*n = e->notifier;
	struct notify_event	*ev;
	struct notify_job	*job;

	if (n == NULL)
		return;
	while ((ev = TAILQ_FIRST(&n->pending)) != NULL) {
		TAILQ_REMOVE(&n->pending, ev, entry);
		notify_event_free(ev);
	}
	while ((job = TAILQ_FIRST(&n->queue)) != NULL) {
		TAILQ_REMOVE(&n->queue, job, entry);
		engine_notify_job_free(job);
	}
	while ((job = TAILQ_FIRST(&n->active)) != NULL) {
		TAILQ_REMOVE(&n->active, job, entry);
		if (job->proc != NULL) {
			log_debug("%s: notify[%zu]: %s abandoned", __func__,
			    job->index, job->event);
			proc_kill(job->proc, 0);
			proc_abandon(job->proc);
		}
		engine_notify_job_free(job);
	}
	free(n);
	e->notifier = NULL;
}
