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
 * notify-job.c: running the notify commands of an event that committed
 * (notify.c notes them and builds their payloads).  Each matching command
 * is a child of the loop with the payload on stdin and in SLUICE_*
 * variables, at most a few at once, each with a timeout.  A failure is
 * tried once more, then logged and audited as notify-failed.
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
#define NOTIFY_ATTEMPTS		2	/* a failure is tried once more */
#define NOTIFY_RETRY_MS		5000
#define NOTIFY_ERR_MAX		512	/* bytes of stderr kept */
#define NOTIFY_ENV_MAX		4000	/* bytes of one variable's value */

static char	**notify_env(const cJSON *, const struct notify_cmd *);
static void	 notify_env_set(char ***, size_t *, const char *,
		     const char *);
static void	 notify_env_json(char ***, size_t *, const char *,
		     const cJSON *);
static void	 notify_spawn(struct notify_job *);
static void	 notify_output(struct proc *, int, const char *, size_t,
		     void *);
static void	 notify_exit(struct proc *, int, void *);
static void	 notify_timer(void *);
static char	*notify_why(struct notify_job *, int);
static void	 notify_failed(struct notify_job *, const char *);
static void	 notify_audit(struct notify_job *, const char *);

/* Queue a run of every command that wants this event. */
void
engine_notify_enqueue(struct engine *e, cJSON *p)
{
	const struct notify_config	*nc = e->opts.notify;
	struct engine_notifier		*n = e->notifier;
	struct notify_job		*job;
	const char			*event = engine_notify_str(p,
					     "event", NULL);
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
void
engine_notify_run(struct engine *e)
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
		engine_notify_run(e);
		return;
	}
	TAILQ_REMOVE(&n->active, job, entry);
	n->nactive--;
	TAILQ_INSERT_TAIL(&n->queue, job, entry);
	n->nqueued++;
	engine_notify_run(e);
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
		engine_notify_job_free(job);
	} else {
		why = notify_why(job, status);
		notify_failed(job, why);
		free(why);
	}
	engine_notify_run(e);
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
	engine_notify_job_free(job);
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
void
engine_notify_job_free(struct notify_job *job)
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
		engine_notify_job_free(job);
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
		engine_notify_job_free(job);
	}
}
