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
 * from the tables and each matching command is run as a child of the loop
 * with the payload on stdin and in SLUICE_* variables, at most a few at
 * once, each with a timeout.  A failure is tried once more, then logged
 * and audited as notify-failed.  An engine with no loop (a command
 * applied while no engine runs) stores its events in the inbox instead,
 * for the next engine to send.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

extern char	**environ;

#define NOTIFY_RUNNING_MAX	8	/* notification children at once */
#define NOTIFY_QUEUE_MAX	256	/* events or runs waiting, at most */
#define NOTIFY_ATTEMPTS		2	/* a failure is tried once more */
#define NOTIFY_RETRY_MS		5000
#define NOTIFY_ERR_MAX		512	/* bytes of stderr kept */
#define NOTIFY_ENV_MAX		4000	/* bytes of one variable's value */

/* An event of the open turn, sent once the turn has committed. */
struct notify_event {
	char			*event;
	int64_t			 at;
	int64_t			 workflow_id;
	int64_t			 step_id;
	cJSON			*extra;		/* merged into the payload */
	cJSON			*payload;	/* replayed from the inbox */
	TAILQ_ENTRY(notify_event) entry;
};
TAILQ_HEAD(notify_events, notify_event);

/* One command run for one event. */
struct notify_job {
	struct engine		*engine;
	const struct notify_cmd	*cmd;
	size_t			 index;		/* in config.json's array */
	char			*event;
	int64_t			 workflow_id;
	int64_t			 step_id;
	char			*payload;	/* JSON text, for stdin */
	char			**envp;
	struct proc		*proc;
	struct loop_timer	*timer;		/* its timeout, or its retry */
	struct buf		 err;		/* the start of its stderr */
	int			 attempt;
	int			 timed_out;
	TAILQ_ENTRY(notify_job)	 entry;
};
TAILQ_HEAD(notify_jobs, notify_job);

struct engine_notifier {
	struct notify_events	 pending;	/* this turn's events */
	size_t			 npending;
	struct notify_jobs	 queue;		/* waiting for a slot */
	struct notify_jobs	 active;	/* running, or to be retried */
	size_t			 nqueued;
	size_t			 nactive;
	size_t			 nrunning;
	int			 killing;	/* the engine stops now */
};

static struct engine_notifier *notify_get(struct engine *);
static int	 notify_wanted(struct engine *, int);
static void	 notify_event_free(struct notify_event *);
static cJSON	*notify_payload(struct engine *, const struct notify_event *);
static void	 notify_payload_workflow(struct engine *, cJSON *, int64_t);
static void	 notify_payload_step(struct engine *, cJSON *, int64_t,
		     int);
static char	*notify_console(struct engine *, int64_t);
static char	*notify_message(const cJSON *);
static const char *notify_str(const cJSON *, const char *, const char *);
static void	 notify_defer(struct engine *, cJSON *);
static void	 notify_enqueue(struct engine *, cJSON *);
static char	**notify_env(const cJSON *, const struct notify_cmd *);
static void	 notify_env_set(char ***, size_t *, const char *,
		     const char *);
static void	 notify_env_json(char ***, size_t *, const char *,
		     const cJSON *);
static void	 notify_run(struct engine *);
static void	 notify_spawn(struct notify_job *);
static void	 notify_output(struct proc *, int, const char *, size_t,
		     void *);
static void	 notify_exit(struct proc *, int, void *);
static void	 notify_timer(void *);
static char	*notify_why(struct notify_job *, int);
static void	 notify_failed(struct notify_job *, const char *);
static void	 notify_audit(struct notify_job *, const char *);
static void	 notify_job_free(struct notify_job *);

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
    struct engine_reply *r)
{
	struct notify_event	*ev;
	struct engine_notifier	*n;
	cJSON			*p;
	const char		*event;

	p = m->args_json != NULL ? cJSON_Parse(m->args_json) : NULL;
	event = notify_str(p, "event", NULL);
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
			notify_enqueue(e, p);
		cJSON_Delete(p);
		notify_event_free(ev);
	}
	if (!e->offline)
		notify_run(e);
}

/* A string member (of a member, when sub is set), or NULL. */
static const char *
notify_str(const cJSON *o, const char *key, const char *sub)
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
	    (s = (char *)notify_str(o, "workflow", "error")) != NULL)
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
	if (notify_str(o, "message", NULL) == NULL) {
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
	cJSON			*so, *go, *g, *v;
	int64_t			 n = 0;
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
		g = json_parse_or_null(row->gate_json);
		go = cJSON_AddObjectToObject(o, "gate");
		v = cJSON_GetObjectItemCaseSensitive(g, "message");
		cJSON_AddStringToObject(go, "message", cJSON_IsString(v) ?
		    v->valuestring : "");
		if (store_approval_count(e->store, id, &n) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		cJSON_AddNumberToObject(go, "approvals", (double)n);
		v = cJSON_GetObjectItemCaseSensitive(g, "quorum");
		cJSON_AddNumberToObject(go, "quorum", cJSON_IsNumber(v) ?
		    v->valuedouble : 1);
		v = cJSON_GetObjectItemCaseSensitive(g, "approvers");
		cJSON_AddItemToObject(go, "approvers", cJSON_IsArray(v) ?
		    cJSON_Duplicate(v, 1) : cJSON_CreateArray());
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g,
		    "interrupted")))
			cJSON_AddTrueToObject(go, "interrupted");
		cJSON_Delete(g);
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

	ev = notify_str(o, "event", NULL);
	name = notify_str(o, "workflow", "name");
	step = notify_str(o, "step", "name");
	wid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    o, "workflow"), "id");
	buf_init(&b);
	buf_printf(&b, "workflow %lld (%s)", cJSON_IsNumber(wid) ?
	    (long long)wid->valuedouble : 0LL, name != NULL ? name : "?");
	if (strcmp(ev, "gate_waiting") == 0) {
		buf_printf(&b, ": gate %s is waiting for approval",
		    step != NULL ? step : "?");
		if ((text = notify_str(o, "gate", "message")) != NULL &&
		    *text != '\0')
			buf_printf(&b, ": %s", text);
	} else if (strcmp(ev, "gate_decided") == 0) {
		buf_printf(&b, ": gate %s ", step != NULL ? step : "?");
		text = notify_str(o, "decision", "outcome");
		who = notify_str(o, "decision", "who");
		if (who != NULL)
			buf_printf(&b, "%s by %s", text != NULL ? text : "?",
			    who);
		else
			buf_puts(&b, "timed out waiting for approval");
		if ((text = notify_str(o, "decision", "escalated_to")) != NULL)
			buf_printf(&b, "; escalated to %s", text);
		if ((text = notify_str(o, "decision", "comment")) != NULL &&
		    who != NULL)
			buf_printf(&b, ": %s", text);
	} else if (strcmp(ev, "workflow_failed") == 0) {
		buf_puts(&b, " failed");
		if ((text = notify_str(o, "error", NULL)) != NULL)
			buf_printf(&b, ": %s", text);
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

/* Queue a run of every command that wants this event. */
static void
notify_enqueue(struct engine *e, cJSON *p)
{
	const struct notify_config	*nc = e->opts.notify;
	struct engine_notifier		*n = e->notifier;
	struct notify_job		*job;
	const char			*event = notify_str(p, "event", NULL);
	char				*text;
	const cJSON			*v;
	size_t				 i;
	int				 bit = notify_event_bit(event);

	text = json_print(p);
	for (i = 0; nc != NULL && i < nc->ncmds; i++) {
		if (!(nc->cmds[i].events & bit))
			continue;
		if (n->killing || n->nqueued + n->nactive >= NOTIFY_QUEUE_MAX) {
			log_debug("%s: notify[%zu] %s: %s dropped: %s",
			    __func__, i, nc->cmds[i].label, event, n->killing ?
			    "the engine is stopping" : "too many waiting");
			continue;
		}
		job = xcalloc(1, sizeof *job);
		job->engine = e;
		job->cmd = &nc->cmds[i];
		job->index = i;
		job->event = xstrdup(event);
		v = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(p, "workflow"), "id");
		job->workflow_id = cJSON_IsNumber(v) ?
		    (int64_t)v->valuedouble : 0;
		v = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(p, "step"), "id");
		job->step_id = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
		xasprintf(&job->payload, "%s\n", text);
		job->envp = notify_env(p, job->cmd);
		job->attempt = 1;
		buf_init(&job->err);
		TAILQ_INSERT_TAIL(&n->queue, job, entry);
		n->nqueued++;
	}
	free(text);
}

/* Set NAME=value in an environment, replacing NAME if it is there. */
static void
notify_env_set(char ***envp, size_t *np, const char *name, const char *value)
{
	size_t	 i, len = strlen(name), vlen = strlen(value);
	char	*entry;

	/* Cut a long value (whole in the JSON) on a character boundary. */
	if (vlen > NOTIFY_ENV_MAX) {
		vlen = NOTIFY_ENV_MAX;
		while (vlen > 0 && ((unsigned char)value[vlen] & 0xc0) == 0x80)
			vlen--;
	}
	xasprintf(&entry, "%s=%.*s", name, (int)vlen, value);
	for (i = 0; i < *np; i++) {
		if (strncmp((*envp)[i], name, len) == 0 &&
		    (*envp)[i][len] == '=') {
			free((*envp)[i]);
			(*envp)[i] = entry;
			return;
		}
	}
	*envp = xreallocarray(*envp, *np + 2, sizeof **envp);
	(*envp)[(*np)++] = entry;
	(*envp)[*np] = NULL;
}

/* Set NAME to a payload value: a string as it is, a number as digits. */
static void
notify_env_json(char ***envp, size_t *np, const char *name, const cJSON *v)
{
	char	 num[32];

	if (cJSON_IsString(v))
		notify_env_set(envp, np, name, v->valuestring);
	else if (cJSON_IsNumber(v)) {
		snprintf(num, sizeof num, "%lld", (long long)v->valuedouble);
		notify_env_set(envp, np, name, num);
	}
}

/*
 * A notification's environment: the engine's without its SLUICE_*
 * variables, the command's "env", then the event's SLUICE_* variables.
 */
static char **
notify_env(const cJSON *p, const struct notify_cmd *c)
{
	static const struct {
		const char	*name, *key, *sub;
	} vars[] = {
		{ "SLUICE_EVENT", "event", NULL },
		{ "SLUICE_AT", "at", NULL },
		{ "SLUICE_DB", "db", NULL },
		{ "SLUICE_MESSAGE", "message", NULL },
		{ "SLUICE_CONSOLE", "console", NULL },
		{ "SLUICE_WORKFLOW_ID", "workflow", "id" },
		{ "SLUICE_WORKFLOW_NAME", "workflow", "name" },
		{ "SLUICE_STATUS", "workflow", "status" },
		{ "SLUICE_CREATED_BY", "workflow", "created_by" },
		{ "SLUICE_STEP_ID", "step", "id" },
		{ "SLUICE_STEP", "step", "name" },
		{ "SLUICE_STEP_STATUS", "step", "status" },
		{ "SLUICE_GATE_MESSAGE", "gate", "message" },
		{ "SLUICE_APPROVALS", "gate", "approvals" },
		{ "SLUICE_QUORUM", "gate", "quorum" },
		{ "SLUICE_DECISION", "decision", "outcome" },
		{ "SLUICE_DECIDED_BY", "decision", "who" },
		{ "SLUICE_COMMENT", "decision", "comment" },
		{ "SLUICE_ERROR", "error", NULL },
		{ "SLUICE_SLA_MS", "sla", "sla_ms" },
	};
	const cJSON	*v;
	char		**envp = NULL;
	size_t		 n = 0, i;

	envp = xcalloc(1, sizeof *envp);
	for (i = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], "SLUICE_", 7) == 0)
			continue;
		envp = xreallocarray(envp, n + 2, sizeof *envp);
		envp[n++] = xstrdup(environ[i]);
		envp[n] = NULL;
	}
	for (i = 0; c->env != NULL && c->env[i] != NULL; i++) {
		envp = xreallocarray(envp, n + 2, sizeof *envp);
		envp[n++] = xstrdup(c->env[i]);
		envp[n] = NULL;
	}
	for (i = 0; i < nitems(vars); i++) {
		v = cJSON_GetObjectItemCaseSensitive(p, vars[i].key);
		if (vars[i].sub != NULL)
			v = cJSON_GetObjectItemCaseSensitive(v, vars[i].sub);
		notify_env_json(&envp, &n, vars[i].name, v);
	}
	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    p, "workflow"), "template");
	notify_env_json(&envp, &n, "SLUICE_TEMPLATE",
	    cJSON_GetObjectItemCaseSensitive(v, "name"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "deferred")))
		notify_env_set(&envp, &n, "SLUICE_DEFERRED", "1");
	return (envp);
}

/* Start queued runs while there are free slots. */
static void
notify_run(struct engine *e)
{
	struct engine_notifier	*n = e->notifier;
	struct notify_job	*job;

	while (n != NULL && !n->killing && n->nrunning < NOTIFY_RUNNING_MAX &&
	    (job = TAILQ_FIRST(&n->queue)) != NULL) {
		TAILQ_REMOVE(&n->queue, job, entry);
		n->nqueued--;
		TAILQ_INSERT_TAIL(&n->active, job, entry);
		n->nactive++;
		notify_spawn(job);
	}
}

/* Run one notification: the payload on its stdin, its timeout armed. */
static void
notify_spawn(struct notify_job *job)
{
	struct engine		*e = job->engine;
	struct proc_spec	 spec;
	char			*cause = NULL;
	char			*shargv[5];

	memset(&spec, 0, sizeof spec);
	if (job->cmd->argv != NULL)
		spec.argv = job->cmd->argv;
	else {
		shargv[0] = (char *)"/bin/sh";
		shargv[1] = (char *)"-c";
		shargv[2] = job->cmd->shell;
		shargv[3] = (char *)"sluice-notify";
		shargv[4] = NULL;
		spec.argv = shargv;
	}
	spec.envp = job->envp;
	spec.stdin_data = job->payload;
	spec.stdin_len = strlen(job->payload);
	buf_reset(&job->err);
	job->timed_out = 0;
	job->proc = proc_spawn(e->loop, &spec, notify_output, notify_exit,
	    job, &cause);
	if (job->proc == NULL) {
		notify_failed(job, cause);
		free(cause);
		return;
	}
	e->notifier->nrunning++;
	log_debug("%s: notify[%zu] %s: %s of workflow %lld, attempt %d",
	    __func__, job->index, job->cmd->label, job->event,
	    (long long)job->workflow_id, job->attempt);
	if (job->timer == NULL)
		job->timer = loop_timer_create(e->loop, notify_timer, job);
	loop_timer_start(job->timer, job->cmd->timeout);
}

/* Output of a notification: only the start of stderr is kept. */
static void
notify_output(struct proc *p, int stream, const char *data, size_t len,
    void *arg)
{
	struct notify_job	*job = arg;

	(void)p;
	if (stream != 2 || job->err.len >= NOTIFY_ERR_MAX)
		return;
	buf_add(&job->err, data, len < NOTIFY_ERR_MAX - job->err.len ? len :
	    NOTIFY_ERR_MAX - job->err.len);
}

/*
 * Its timeout (while it runs): kill its group.  If even SIGKILL leaves
 * its output open (something escaped the group), let it go rather than
 * hold a slot.  Or its retry (after a failure): queue it again.
 */
static void
notify_timer(void *arg)
{
	struct notify_job	*job = arg;
	struct engine		*e = job->engine;
	struct engine_notifier	*n = e->notifier;

	if (job->proc != NULL && !job->timed_out) {
		job->timed_out = 1;
		proc_kill(job->proc, e->opts.kill_grace);
		loop_timer_start(job->timer, e->opts.kill_grace + 1000);
		return;
	}
	if (job->proc != NULL) {
		proc_abandon(job->proc);
		job->proc = NULL;
		n->nrunning--;
		notify_failed(job, "timed out, and its output stayed open "
		    "after SIGKILL");
		notify_run(e);
		return;
	}
	TAILQ_REMOVE(&n->active, job, entry);
	n->nactive--;
	TAILQ_INSERT_TAIL(&n->queue, job, entry);
	n->nqueued++;
	notify_run(e);
}

/* A notification ended: sent, or a failure to retry or report. */
static void
notify_exit(struct proc *p, int status, void *arg)
{
	struct notify_job	*job = arg;
	struct engine		*e = job->engine;
	struct engine_notifier	*n = e->notifier;
	char			*why;

	(void)p;
	job->proc = NULL;
	n->nrunning--;
	loop_timer_stop(job->timer);
	if (!job->timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		log_debug("%s: notify[%zu] %s: %s of workflow %lld sent",
		    __func__, job->index, job->cmd->label, job->event,
		    (long long)job->workflow_id);
		TAILQ_REMOVE(&n->active, job, entry);
		n->nactive--;
		notify_job_free(job);
	} else {
		why = notify_why(job, status);
		notify_failed(job, why);
		free(why);
	}
	notify_run(e);
}

/* Why a run failed, with the first line of its stderr. */
static char *
notify_why(struct notify_job *job, int status)
{
	char	 dur[32], *line, *why, *full;
	size_t	 len;

	if (job->timed_out)
		xasprintf(&why, "timed out after %s", flow_duration_format(
		    job->cmd->timeout, dur, sizeof dur));
	else if (WIFEXITED(status))
		xasprintf(&why, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		xasprintf(&why, "killed by signal %d", WTERMSIG(status));
	else
		why = xstrdup("ended oddly");
	len = job->err.len;
	if (job->err.data != NULL)
		len = strcspn(job->err.data, "\n");
	if (len > job->err.len)
		len = job->err.len;
	if (len > 0) {
		line = str_utf8_repair(job->err.data, len);
		xasprintf(&full, "%s: %s", why, line);
		free(line);
		free(why);
		why = full;
	}
	return (why);
}

/*
 * A run failed.  Unless it timed out (a hung receiver is not asked
 * again) or the engine is stopping, it is tried once more a little
 * later; the last failure is audited.
 */
static void
notify_failed(struct notify_job *job, const char *why)
{
	struct engine		*e = job->engine;
	struct engine_notifier	*n = e->notifier;

	log_debug("%s: notify[%zu] %s: %s of workflow %lld, attempt %d: %s",
	    __func__, job->index, job->cmd->label, job->event,
	    (long long)job->workflow_id, job->attempt, why);
	if (!job->timed_out && !n->killing && job->attempt < NOTIFY_ATTEMPTS) {
		job->attempt++;
		if (job->timer == NULL)
			job->timer = loop_timer_create(e->loop, notify_timer,
			    job);
		loop_timer_start(job->timer, NOTIFY_RETRY_MS);
		return;
	}
	if (!n->killing)
		notify_audit(job, why);
	TAILQ_REMOVE(&n->active, job, entry);
	n->nactive--;
	notify_job_free(job);
}

/* Put a notification's last failure on the audit trail. */
static void
notify_audit(struct notify_job *job, const char *why)
{
	struct engine			*e = job->engine;
	struct store_audit_entry	 a;
	cJSON				*d;
	char				*target, *detail, *cause = NULL;
	int				 n;

	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "event", job->event);
	cJSON_AddNumberToObject(d, "notify", (double)job->index);
	if (job->cmd->argv != NULL) {
		for (n = 0; job->cmd->argv[n] != NULL; n++)
			;
		cJSON_AddItemToObject(d, "run", cJSON_CreateStringArray(
		    (const char *const *)job->cmd->argv, n));
	} else
		cJSON_AddStringToObject(d, "shell", job->cmd->shell);
	cJSON_AddNumberToObject(d, "attempts", job->attempt);
	cJSON_AddStringToObject(d, "reason", why);
	detail = json_print(d);
	cJSON_Delete(d);
	xasprintf(&target, "notify[%zu] %s", job->index, job->cmd->label);
	memset(&a, 0, sizeof a);
	a.action = "notify-failed";
	a.target = target;
	a.workflow_id = job->workflow_id;
	a.step_id = job->step_id;
	a.comment = why;
	a.detail_json = detail;
	engine_txn(e);
	if (store_audit_add(e->store, NULL, &a, &cause) != 0)
		engine_store_fatal(e, cause);
	free(target);
	free(detail);
}

/* Free a run (off every list). */
static void
notify_job_free(struct notify_job *job)
{
	size_t	 i;

	if (job->timer != NULL)
		loop_timer_free(job->timer);
	for (i = 0; job->envp[i] != NULL; i++)
		free(job->envp[i]);
	free(job->envp);
	buf_free(&job->err);
	free(job->payload);
	free(job->event);
	free(job);
}

/* Are notifications still queued, running or to be retried? */
int
engine_notify_busy(const struct engine *e)
{
	const struct engine_notifier	*n = e->notifier;

	if (n == NULL)
		return (0);
	if (n->killing)
		return (n->nrunning > 0);
	return (n->nqueued + n->nactive > 0);
}

/*
 * The engine stops now: drop what waits and kill what runs.  (A stop
 * that waits lets notifications finish, bounded by their timeouts.)
 */
void
engine_notify_shutdown(struct engine *e, int now)
{
	struct engine_notifier	*n = e->notifier;
	struct notify_job	*job, *job1;

	if (!now || n == NULL || n->killing)
		return;
	n->killing = 1;
	TAILQ_FOREACH_SAFE(job, &n->queue, entry, job1) {
		log_debug("%s: notify[%zu]: %s dropped", __func__, job->index,
		    job->event);
		TAILQ_REMOVE(&n->queue, job, entry);
		n->nqueued--;
		notify_job_free(job);
	}
	TAILQ_FOREACH_SAFE(job, &n->active, entry, job1) {
		if (job->proc != NULL) {
			proc_kill(job->proc, e->opts.kill_grace);
			continue;
		}
		log_debug("%s: notify[%zu]: %s not retried", __func__,
		    job->index, job->event);
		TAILQ_REMOVE(&n->active, job, entry);
		n->nactive--;
		notify_job_free(job);
	}
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
		notify_job_free(job);
	}
	while ((job = TAILQ_FIRST(&n->active)) != NULL) {
		TAILQ_REMOVE(&n->active, job, entry);
		if (job->proc != NULL) {
			log_debug("%s: notify[%zu]: %s abandoned", __func__,
			    job->index, job->event);
			proc_kill(job->proc, 0);
			proc_abandon(job->proc);
		}
		notify_job_free(job);
	}
	free(n);
	e->notifier = NULL;
}
