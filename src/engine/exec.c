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
 * exec.c: running one step.  Built-ins (noop, echo, fail, sleep) end in
 * the engine itself; everything else is a process in its own group,
 * spawned once the turn that records it running has committed (so no
 * process exists without its row), its pid, group and start time
 * recorded in the next transaction.  Output is logged as it comes; the
 * step ends when the process is reaped and both pipes are at EOF.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

extern char	**environ;

static void	 engine_exec_builtin(struct engine *, struct estep *,
		     const char *);
static void	 engine_exec_child(struct engine *, struct estep *,
		     const cJSON *);
static void	 engine_exec_process(struct engine *, struct estep *,
		     const struct flow_tool *, const char *, cJSON *);
static void	 engine_exec_piece(struct estep *, int, const char *,
		     size_t);
static void	 engine_exec_flush(struct estep *);
static void	 engine_exec_output(struct proc *, int, const char *, size_t,
		     void *);
static void	 engine_exec_exit(struct proc *, int, void *);
static void	 engine_exec_timeout(void *);
static void	 engine_exec_silent(void *);
static void	 engine_exec_slept(void *);
static void	 engine_exec_running(struct engine *, struct estep *,
		     const char *, const char *);
static void	 engine_exec_end(struct engine *, struct estep *);
static void	 engine_record_pid(struct engine *, struct estep *,
		     struct proc *);

/* The tool a step names, when it is a tool step. */
static const struct flow_tool *
engine_exec_tool(struct engine *e, const struct flow_step *fs)
{
	if (fs->exec != KIND_TOOL || e->tools == NULL)
		return (NULL);
	return (flow_tools_find(e->tools, fs->tool));
}

/* Whether a step needs a process (and so one of the job slots). */
int
engine_step_is_process(struct engine *e, const struct flow_step *fs)
{
	const struct flow_tool	*t;

	if (fs->exec == KIND_RUN || fs->exec == KIND_SHELL)
		return (1);
	if (fs->exec != KIND_TOOL)
		return (0);
	t = engine_exec_tool(e, fs);
	return (t != NULL && !t->builtin);
}

/* Start a ready step: resolve its args, then run it. */
void
engine_exec(struct engine *e, struct estep *es)
{
	const struct flow_step	*fs = engine_spec(es);
	const struct flow_tool	*t = NULL;
	cJSON			*scope;
	char			*args, *why;

	engine_txn(e);
	es->engine = e;
	if (engine_when_skip(e, es))
		return;
	if (es->role == ESTEP_FOREACH) {
		engine_foreach_begin(e, es);
		return;
	}
	scope = engine_item_scope(e, es);
	args = interp_json(fs->args_json != NULL ? fs->args_json : "{}",
	    scope);
	if (args == NULL)
		args = xstrdup("{}");
	if (fs->exec == KIND_TOOL &&
	    (t = engine_exec_tool(e, fs)) == NULL) {
		xasprintf(&why, "unknown tool \"%s\" (not in the engine's "
		    "catalog)", fs->tool);
		engine_exec_running(e, es, args, NULL);
		engine_step_failed(e, es, why, 0, 0, NULL);
		free(why);
		engine_exec_end(e, es);
	} else if (fs->exec == KIND_WORKFLOW)
		engine_exec_child(e, es, scope);
	else if (t != NULL && t->builtin)
		engine_exec_builtin(e, es, args);
	else
		engine_exec_process(e, es, t, args, scope);
	free(args);
	cJSON_Delete(scope);
}

/* Record that a step started, with its resolved args. */
static void
engine_exec_running(struct engine *e, struct estep *es, const char *args,
    const char *host)
{
	const struct flow_step	*fs = engine_spec(es);
	const struct flow_tool	*t;
	struct store_step	 row;
	int64_t			 now = time_now_ms();

	memset(&row, 0, sizeof row);
	row.id = es->id;
	row.args_json = (char *)args;
	row.host = (char *)host;
	/* A process's timeout: kept for the timer armed at its spawn. */
	if (es->rq == &e->ready[1]) {
		es->timeout = engine_step_timeout(e, fs);
		if (es->timeout > 0)
			row.timeout_at = now + es->timeout;
		/* The step's own heartbeat, else its catalog tool's. */
		t = engine_exec_tool(e, fs);
		es->heartbeat = fs->heartbeat > 0 ? fs->heartbeat :
		    t != NULL ? t->heartbeat : 0;
	}
	if (store_step_start(e->store, &row, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	RB_INSERT(estep_tree, &e->running, es);
}

/* A step left the running set: forget it, and let others have its slot. */
static void
engine_exec_end(struct engine *e, struct estep *es)
{
	RB_REMOVE(estep_tree, &e->running, es);
	if (es->pid_dirty)
		TAILQ_REMOVE(&e->pids, es, pentry);
	engine_step_free(es);
	engine_kick(e);
}

/*
 * A sub-workflow step: record it running with its child's input as its
 * args, and start the child.  Nothing of the step stays in memory: the
 * child's end finishes its row (child.c).
 */
static void
engine_exec_child(struct engine *e, struct estep *es, const cJSON *scope)
{
	const struct flow_step	*fs = engine_spec(es);
	char			*input, *why = NULL;

	input = interp_json(fs->input_json != NULL ? fs->input_json : "{}",
	    scope);
	if (input == NULL)
		input = xstrdup("{}");
	engine_exec_running(e, es, input, NULL);
	engine_trace(e, 'S', es->id);
	/* A child that fails is not started again unless retry says so. */
	es->no_retry = !fs->retry.set;
	if (engine_child_start(e, es, fs->workflow, input, &why) == 0) {
		engine_step_failed(e, es, why, 0, 0, NULL);
		free(why);
	}
	free(input);
	engine_exec_end(e, es);
}

/* The built-in tools: noop, echo, fail and sleep. */
static void
engine_exec_builtin(struct engine *e, struct estep *es, const char *args)
{
	const struct flow_step	*fs = engine_spec(es);
	cJSON			*a, *v;
	int64_t			 ms = 0;
	const char		*bad = NULL;
	char			*why;

	engine_exec_running(e, es, args, NULL);
	engine_trace(e, 'S', es->id);
	if (strcmp(fs->tool, "noop") == 0)
		engine_step_done(e, es, "null", 0, 0);
	else if (strcmp(fs->tool, "echo") == 0)
		engine_step_done(e, es, args, 0, 0);
	else if (strcmp(fs->tool, "fail") == 0) {
		a = cJSON_Parse(args);
		v = cJSON_GetObjectItemCaseSensitive(a, "message");
		engine_step_failed(e, es, cJSON_IsString(v) ?
		    v->valuestring : "failed", 0, 0, NULL);
		cJSON_Delete(a);
	} else if (strcmp(fs->tool, "sleep") == 0) {
		a = cJSON_Parse(args);
		v = cJSON_GetObjectItemCaseSensitive(a, "seconds");
		if (v != NULL && flow_duration_json(v, &ms, &bad) != 0)
			ms = -1;
		cJSON_Delete(a);
		if (ms < 0) {
			xasprintf(&why, "sleep: bad seconds: %s",
			    bad != NULL ? bad : "?");
			engine_step_failed(e, es, why, 0, 0, NULL);
			free(why);
		} else if (e->offline) {
			return;		/* stays running: the next engine */
		} else {
			es->timer = loop_timer_create(e->loop,
			    engine_exec_slept, es);
			loop_timer_start(es->timer, ms);
			return;
		}
	}
	engine_exec_end(e, es);
}

/* A sleep step's time is up. */
static void
engine_exec_slept(void *arg)
{
	struct estep	*es = arg;
	struct engine	*e = es->engine;

	/* Cut short by a shutdown, it stays running: on_interrupt decides. */
	if (!es->cancelled && !es->interrupted)
		engine_step_done(e, es, "null", 0, 0);
	engine_exec_end(e, es);
}

/*
 * Set NAME=value in a command's environment: every step process carries
 * its database, so a later engine can tell its processes from another
 * database's (and steps can call sluice on the same database).
 */
static void
engine_env_set(struct tool_cmd *cmd, const char *name, const char *value)
{
	size_t	 n, len = strlen(name);
	char	*entry;

	xasprintf(&entry, "%s=%s", name, value);
	for (n = 0; cmd->envp[n] != NULL; n++) {
		if (strncmp(cmd->envp[n], name, len) == 0 &&
		    cmd->envp[n][len] == '=') {
			free(cmd->envp[n]);
			cmd->envp[n] = entry;
			return;
		}
	}
	cmd->envp = xreallocarray(cmd->envp, n + 2, sizeof *cmd->envp);
	cmd->envp[n] = entry;
	cmd->envp[n + 1] = NULL;
}

/*
 * The site secrets a step's environment names, read now (a secret that
 * changed since the run began is used as it is now, and masked too).
 * NULL with none; -1 and why when one cannot be read, or the step runs
 * over ssh, whose command line anyone on either host can read in ps.
 */
static int
engine_exec_secrets(struct engine *e, struct estep *es,
    const struct flow_tool *t, cJSON **secretsp, char **cause)
{
	const struct flow_step	*fs = engine_spec(es);
	char			**names, *v;
	size_t			  n, i;
	int			  rc = 0;

	(void)e;
	*secretsp = NULL;
	engine_secret_step_names(fs, t, &names, &n);
	if (n > 0 && (fs->host != NULL || (t != NULL && t->host != NULL))) {
		xasprintf(cause, "step \"%s\": secret \"%s\" is not passed "
		    "over ssh (the remote command line shows in ps)",
		    fs->name, names[0]);
		rc = -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (engine_secret_read(names[i], &v, cause) != 0) {
			rc = -1;
			break;
		}
		mask_add(es->wf->mask, v, strlen(v));
		if (*secretsp == NULL)
			*secretsp = cJSON_CreateObject();
		cJSON_AddStringToObject(*secretsp, names[i], v);
		explicit_bzero(v, strlen(v));
		free(v);
	}
	engine_secret_names_free(names, n);
	if (rc != 0) {
		cJSON_Delete(*secretsp);
		*secretsp = NULL;
	}
	return (rc);
}

/*
 * A process step: record it running in this turn's transaction and queue
 * it; the process is spawned only after the turn commits (engine_spawn),
 * so the row always exists, durably, before its process does.
 */
static void
engine_exec_process(struct engine *e, struct estep *es,
    const struct flow_tool *t, const char *args, cJSON *scope)
{
	const struct flow_step	*fs = engine_spec(es);
	struct tool_ctx		 ctx;
	char			*cause = NULL, *id;
	cJSON			*secrets = NULL;
	int			 rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.workflow_id = es->wf->id;
	ctx.step_id = es->id;
	ctx.step = fs->name;
	ctx.attempt = es->attempt;
	ctx.environ = environ;
	ctx.ssh = e->opts.ssh;
	es->cmd = xcalloc(1, sizeof *es->cmd);
	rc = engine_exec_secrets(e, es, t, &secrets, &cause);
	ctx.secrets = secrets;
	ctx.secret_input = es->wf->secret_input;
	if (rc == 0)
		rc = tool_cmd_build(fs, t, args, scope, &ctx, es->cmd, &cause);
	engine_secret_wipe(secrets);
	if (rc != 0) {
		tool_cmd_free(es->cmd);
		free(es->cmd);
		es->cmd = NULL;
		engine_exec_running(e, es, args, NULL);
		/* The same inputs build the same bad command: no retry. */
		es->no_retry = 1;
		engine_step_failed(e, es, cause, 0, 0, NULL);
		free(cause);
		engine_exec_end(e, es);
		return;
	}
	if (t != NULL && t->mcp)
		es->mcp = engine_mcp_create(t, args);
	/* Also on ssh itself, so recovery can find a remote step's client. */
	engine_env_set(es->cmd, "SLUICE_DB", e->dbpath);
	xasprintf(&id, "%lld", (long long)es->wf->id);
	engine_env_set(es->cmd, "SLUICE_WORKFLOW_ID", id);
	free(id);
	xasprintf(&id, "%lld", (long long)es->id);
	engine_env_set(es->cmd, "SLUICE_STEP_ID", id);
	free(id);
	engine_exec_running(e, es, args, es->cmd->host);
	e->nprocs++;
	es->queued = 1;
	TAILQ_INSERT_TAIL(&e->spawn, es, qentry);
}

/* Spawn one queued step's process now that its row is committed. */
static void
engine_spawn_one(struct engine *e, struct estep *es)
{
	struct proc_spec	 spec;
	struct proc		*p;
	char			*cause = NULL, *why, *marks[3];

	memset(&spec, 0, sizeof spec);
	spec.argv = es->cmd->argv;
	spec.envp = es->cmd->envp;
	spec.cwd = es->cmd->cwd;
	spec.fence = &e->fence;
	e->fence.lost = 0;
	/* Its descendants that leave its group are found by these. */
	xasprintf(&marks[0], "SLUICE_STEP_ID=%lld", (long long)es->id);
	xasprintf(&marks[1], "SLUICE_DB=%s", e->dbpath);
	marks[2] = NULL;
	spec.marks = marks;
	spec.pipe_grace = e->opts.kill_grace;
	if (es->mcp != NULL)
		spec.flags |= PROC_F_TALK;	/* its stdin carries requests */
	p = proc_spawn(e->loop, &spec, engine_exec_output, engine_exec_exit,
	    es, &cause);
	free(marks[0]);
	free(marks[1]);
	tool_cmd_free(es->cmd);
	free(es->cmd);
	es->cmd = NULL;
	if (p == NULL && e->fence.lost) {
		xasprintf(&why, "step %lld not started: %s", (long long)es->id,
		    cause);
		engine_superseded(e, why);
	}
	if (p == NULL) {
		e->nprocs--;
		engine_txn(e);
		engine_step_failed(e, es, cause, 1, 127, NULL);
		free(cause);
		engine_exec_end(e, es);
		return;
	}
	engine_trace(e, 'S', es->id);
	(void)proc_start_time(p);	/* now, before a quick step is reaped */
	es->proc = p;
	es->pid_dirty = 1;
	TAILQ_INSERT_TAIL(&e->pids, es, pentry);
	if (es->timeout > 0) {
		es->timer = loop_timer_create(e->loop, engine_exec_timeout, es);
		loop_timer_start(es->timer, es->timeout);
	}
	if (es->heartbeat > 0) {
		es->hb_last = time_mono_ms();
		es->hb_timer = loop_timer_create(e->loop, engine_exec_silent,
		    es);
		loop_timer_start(es->hb_timer, es->heartbeat);
	}
	if (es->mcp != NULL)
		engine_mcp_start(e, es);
}

#ifdef SLUICE_TEST_CLOCK
/*
 * Test builds only: with $SLUICE_TEST_HOLD naming this point, stop
 * ourselves (SIGSTOP) the first time we reach it, so a test can do what
 * it likes (take over, kill us) before we go on.  The points: "spawn"
 * (between a commit and a step's start), "apply" (a socket request read,
 * not applied) and "answer" (a request committed, not yet answered).
 */
void
engine_test_hold(const char *point)
{
	static int	 held;
	const char	*want = getenv("SLUICE_TEST_HOLD");

	if (held || want == NULL || strcmp(want, point) != 0)
		return;
	held = 1;
	raise(SIGSTOP);
}
#endif

/*
 * The turn committed: start the processes it recorded, each only if this
 * engine still holds the lease.  The commit itself was fenced by the
 * epoch; between it and a start, another engine may have taken over
 * (this one frozen, DB.lock removed) and already run the step again, so
 * the lease is asked again before each start: the epoch here, and the
 * lock file once more in the child as its last step before exec.  What
 * is left is the child's own few microseconds between that look and its
 * exec: only a take-over that both begins and finishes its recovery
 * (which kills what it finds by the step's environment) inside them, with
 * the child itself frozen there, could still run the step twice.
 */
void
engine_spawn(struct engine *e)
{
	struct estep	*es;
	char		*why;

	while ((es = TAILQ_FIRST(&e->spawn)) != NULL) {
		TAILQ_REMOVE(&e->spawn, es, qentry);
		es->queued = 0;
		if (es->cancelled) {
			e->nprocs--;
			tool_cmd_free(es->cmd);
			free(es->cmd);
			es->cmd = NULL;
			engine_exec_end(e, es);
			continue;
		}
#ifdef SLUICE_TEST_CLOCK
		engine_test_hold("spawn");
#endif
		if (!engine_lease_held(e)) {
			xasprintf(&why, "step %lld not started",
			    (long long)es->id);
			engine_superseded(e, why);
		}
		engine_spawn_one(e, es);
	}
}

/* Record one step's pid, group and start time. */
static void
engine_record_pid(struct engine *e, struct estep *es, struct proc *p)
{
	struct store_step	 row;

	TAILQ_REMOVE(&e->pids, es, pentry);
	es->pid_dirty = 0;
	memset(&row, 0, sizeof row);
	row.id = es->id;
	row.pid = proc_pid(p);
	row.pgid = proc_pgid(p);
	row.proc_start = proc_start_time(p);
	if (store_step_set_proc(e->store, &row) != 0)
		engine_store_fatal(e, store_last_error(e->store));
}

/*
 * Record the pid, group and start time of processes spawned since the
 * last transaction, in the one now opening.  Until then a crash is
 * covered by recovery finding the process by its environment.
 */
void
engine_record_pids(struct engine *e)
{
	struct estep	*es;

	while ((es = TAILQ_FIRST(&e->pids)) != NULL)
		engine_record_pid(e, es, es->proc);
}

/*
 * Output from a step: the log, and stdout for the result, both with the
 * run's secrets masked.  The tail of a piece that may be the start of a
 * secret waits for the next piece (or the end, engine_exec_flush).
 */
static void
engine_exec_output(struct proc *p, int stream, const char *data, size_t len,
    void *arg)
{
	struct estep	*es = arg;
	struct buf	 m;

	(void)p;
	es->hb_last = time_mono_ms();	/* a heartbeat: engine_exec_silent */
	if (stream == 1 && es->mcp != NULL) {
		engine_mcp_output(es->engine, es, data, len);
		return;
	}
	if (mask_empty(es->wf->mask)) {
		engine_exec_piece(es, stream, data, len);
		return;
	}
	buf_init(&m);
	mask_stream(es->wf->mask, &es->mcarry[stream == 1 ? 0 : 1], data, len,
	    0, &m);
	if (m.len > 0)
		engine_exec_piece(es, stream, m.data, m.len);
	buf_free(&m);
}

/* The held tails of both pipes, at the end of a step's output. */
static void
engine_exec_flush(struct estep *es)
{
	struct buf	 m;
	int		 i;

	for (i = 0; i < 2; i++) {
		if (es->mcarry[i].len == 0)
			continue;
		buf_init(&m);
		mask_stream(es->wf->mask, &es->mcarry[i], "", 0, 1, &m);
		if (m.len > 0)
			engine_exec_piece(es, i == 0 ? 1 : 2, m.data, m.len);
		buf_free(&m);
	}
}

/* A masked piece of a step's output: progress, result, log. */
static void
engine_exec_piece(struct estep *es, int stream, const char *data, size_t len)
{
	engine_progress_feed(es->engine, es, stream == 1 ? 0 : 1, data, len);
	if (stream == 1 && es->out.len < ENGINE_RESULT_MAX) {
		buf_add(&es->out, data, len < ENGINE_RESULT_MAX - es->out.len ?
		    len : ENGINE_RESULT_MAX - es->out.len);
	}
	engine_exec_log(es->engine, es, stream == 1 ? "out" : "err", data,
	    len);
}

/* Keep a chunk of output, up to the per-step limit, then say it was cut. */
void
engine_exec_log(struct engine *e, struct estep *es, const char *stream,
    const char *data, size_t len)
{
	char	*note;
	size_t	 room;
	struct buf m;

	if (es->log_cut)
		return;
	/* Whole lines (an MCP exchange's) are masked here as text. */
	buf_init(&m);
	if (!mask_empty(es->wf->mask)) {
		mask_buf(es->wf->mask, &m, data, len);
		data = m.data;
		len = m.len;
	}
	engine_txn(e);
	room = (size_t)(e->opts.log_max - es->log_bytes);
	if (len > room) {
		if (room > 0 && store_log_add(e->store, es->id, time_now_ms(),
		    stream, data, room) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		es->log_bytes += (int64_t)room;
		es->log_cut = 1;
		xasprintf(&note, STORE_LOG_CUT " a step keeps at most %lld "
		    "bytes of log]\n", (long long)e->opts.log_max);
		data = note;
		len = strlen(note);
		stream = "sluice";
	} else
		note = NULL;
	if (store_log_add(e->store, es->id, time_now_ms(), stream, data,
	    len) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (note == NULL)
		es->log_bytes += (int64_t)len;
	free(note);
	buf_free(&m);
}

/* A step's result: its stdout as JSON when it parses, else as text. */
char *
engine_exec_result(const struct buf *out)
{
	cJSON		*j;
	const char	*end;
	char		*text;
	size_t		 len = out->len;

	if (len > 0 && out->data[len - 1] == '\n')
		len--;
	if (len > 0 && (j = cJSON_ParseWithLengthOpts(out->data, len, &end,
	    0)) != NULL) {
		/* JSON only if nothing but white space follows it. */
		while (end < out->data + len && isspace((unsigned char)*end))
			end++;
		if (end == out->data + len) {
			text = json_print(j);
			cJSON_Delete(j);
			return (text);
		}
		cJSON_Delete(j);
	}
	text = str_utf8_repair(out->data != NULL ? out->data : "", len);
	if ((j = cJSON_CreateString(text)) == NULL)
		fatalx("%s: out of memory", __func__);
	free(text);
	text = json_print(j);
	cJSON_Delete(j);
	return (text);
}

/* Reaped with both pipes at EOF: done, failed, or already cancelled. */
static void
engine_exec_exit(struct proc *p, int status, void *arg)
{
	struct estep	*es = arg;
	struct engine	*e = es->engine;
	char		*result, *why;
	int		 code, i;

	engine_trace(e, 'E', es->id);
	engine_txn(e);
	if (es->pid_dirty)
		engine_record_pid(e, es, p);
	es->proc = NULL;
	e->nprocs--;
	if (es->timer != NULL)
		loop_timer_stop(es->timer);
	if (es->hb_timer != NULL)
		loop_timer_stop(es->hb_timer);
	engine_txn(e);
	engine_exec_flush(es);
	if (es->log_bytes > 0 &&
	    store_step_set_log_bytes(e->store, es->id, es->log_bytes) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (es->cancelled || es->interrupted) {
		/*
		 * Cancelled: its row has ended already.  Interrupted by a
		 * shutdown: its row stays running, so the next engine applies
		 * the step's on_interrupt.
		 */
		engine_exec_end(e, es);
		return;
	}
	if (es->mcp != NULL) {
		engine_mcp_exit(e, es, status);
		engine_exec_end(e, es);
		return;
	}
	/* A last progress line with no newline still counts. */
	for (i = 0; i < 2; i++) {
		if (es->pmid[i] == 2)
			engine_progress_feed(e, es, i, "\n", 1);
	}
	engine_progress_strip(&es->out);
	result = engine_exec_result(&es->out);
	if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
		if (es->timed_out || es->no_heartbeat)
			engine_step_failed(e, es, es->timed_out ? "timeout" :
			    "no heartbeat", 1, code, result);
		else if (code == 0)
			engine_step_done(e, es, result, 1, 0);
		else {
			xasprintf(&why, "exit status %d", code);
			engine_step_failed(e, es, why, 1, code, result);
			free(why);
		}
	} else {
		code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		if (es->timed_out)
			why = xstrdup("timeout");
		else if (es->no_heartbeat)
			why = xstrdup("no heartbeat");
		else
			xasprintf(&why, "killed by signal %d", code);
		engine_step_failed(e, es, why, 1, 128 + code, result);
		free(why);
	}
	free(result);
	engine_exec_end(e, es);
}

/* A step ran past its timeout: kill its group; it fails when reaped. */
static void
engine_exec_timeout(void *arg)
{
	struct estep	*es = arg;

	es->timed_out = 1;
	engine_exec_kill(es->engine, es);
}

/*
 * A heartbeat step's watch: output since the last look moves the watch
 * on (output itself only notes the time, so a chatty step costs no timer
 * work); silence for the whole heartbeat kills it like a timeout.
 */
static void
engine_exec_silent(void *arg)
{
	struct estep	*es = arg;
	int64_t		 quiet;

	quiet = time_mono_ms() - es->hb_last;
	if (quiet < es->heartbeat) {
		loop_timer_start(es->hb_timer, es->heartbeat - quiet);
		return;
	}
	if (es->timed_out || es->no_heartbeat)
		return;
	es->no_heartbeat = 1;
	engine_exec_kill(es->engine, es);
}

/* Kill a running step's process group (TERM, then KILL after grace). */
void
engine_exec_kill(struct engine *e, struct estep *es)
{
	if (es->queued)
		return;		/* engine_spawn drops it */
	if (es->proc != NULL)
		proc_kill(es->proc, e->opts.kill_grace);
	else if (es->timer != NULL && !es->timed_out) {
		/* A sleep: ends now. */
		loop_timer_start(es->timer, 0);
	}
}
