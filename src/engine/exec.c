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
 * exec.c: running one step, through its runner (runner.c picks it by
 * kind), and the process runner itself.  A process runs in its own group,
 * spawned once the turn that records it running has committed (so no
 * process exists without its row), its pid, group and start time
 * recorded in the next transaction.  Starts are recorded ahead of the
 * job slots: while the slots' processes run, the next ones' rows commit,
 * so a slot that frees is filled at once, in the turn that reaps, with
 * no commit to wait for, even while a commit runs on its thread
 * (commit-thread.c).  Output is logged as it comes; the step ends when
 * the process is reaped and both pipes are at EOF.
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

static void	 engine_exec_piece(struct estep *, int, const char *,
		     size_t);
static void	 engine_exec_flush(struct estep *);
static void	 engine_exec_output(struct proc *, int, const char *, size_t,
		     void *);
static void	 engine_exec_exit(struct proc *, int, void *);
static void	 engine_exec_timeout(void *);
static void	 engine_exec_silent(void *);
static void	 engine_record_pid(struct engine *, struct estep *);
static void	 engine_exec_ended(struct engine *, struct estep *, int);

/* Start a ready step: resolve its args, then run it. */
void
engine_exec(struct engine *e, struct estep *es)
{
	const struct flow_step		*fs = engine_spec(es);
	const struct flow_tool		*t;
	const struct engine_runner	*r;
	cJSON				*scope;
	char				*args;

	engine_txn(e);
	es->engine = e;
	if (engine_when_skip(e, es))
		return;
	if (es->role == ESTEP_FOREACH) {
		engine_foreach_begin(e, es);
		return;
	}
	if (!engine_conc_step_admit(e, es))
		return;
	scope = engine_item_scope(e, es);
	args = interp_json(fs->args_json != NULL ? fs->args_json : "{}",
	    scope);
	if (args == NULL)
		args = xstrdup("{}");
	/* A kind that never runs has no command: tool_cmd_build says so. */
	if ((r = engine_runner_pick(e, fs, &t)) == NULL)
		r = &engine_runner_process;
	es->runner = r;
	r->start(e, es, t, args, scope);
	free(args);
	cJSON_Delete(scope);
}

/* Record that a step started, with its resolved args. */
void
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
		t = engine_step_tool(e, fs);
		es->heartbeat = fs->heartbeat > 0 ? fs->heartbeat :
		    t != NULL ? t->heartbeat : 0;
	}
	if (store_step_start(e->store, &row, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	RB_INSERT(estep_tree, &e->running, es);
}

/* A step left the running set: forget it, and let others have its slot. */
void
engine_exec_end(struct engine *e, struct estep *es)
{
	engine_exec_log_flush(e, es);
	RB_REMOVE(estep_tree, &e->running, es);
	if (es->pid_dirty)
		TAILQ_REMOVE(&e->pids, es, pentry);
	engine_step_free(es);
	engine_kick(e);
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
void
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
	/* Also on ssh itself, so recovery can find a remote step's client. */
	engine_env_set(es->cmd, "SLUICE_DB", e->dbpath);
	xasprintf(&id, "%lld", (long long)es->wf->id);
	engine_env_set(es->cmd, "SLUICE_WORKFLOW_ID", id);
	free(id);
	xasprintf(&id, "%lld", (long long)es->id);
	engine_env_set(es->cmd, "SLUICE_STEP_ID", id);
	free(id);
	engine_exec_running(e, es, args, es->cmd->host);
	/* Past the slots, it waits for one: its start is stamped at spawn. */
	es->ahead = e->nprocs >= e->opts.max_jobs;
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
	if (es->runner->flags & ENGINE_RUNNER_TALK)
		spec.flags |= PROC_F_TALK;	/* its stdin carries requests */
	else
		spec.flags |= PROC_F_PASS;	/* seen while committing */
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
	es->pid = proc_pid(p);
	es->pgid = proc_pgid(p);
	es->pstart = proc_start_time(p);  /* now, before a quick one is reaped */
	e->nlive++;
	es->spawn_mono = time_mono_ms();
	if (es->ahead)
		es->spawned_at = time_now_ms();
	es->proc = p;
	es->pid_dirty = 1;
	TAILQ_INSERT_TAIL(&e->pids, es, pentry);
	/* Spawned in a turn (a slot freed): its pid commits with it. */
	if (e->in_txn)
		engine_record_pid(e, es);
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
	if (es->runner->spawned != NULL)
		es->runner->spawned(e, es);
}

#ifdef SLUICE_TEST_CLOCK
/*
 * Test builds only: with $SLUICE_TEST_HOLD naming this point, stop
 * ourselves (SIGSTOP) the first time we reach it, so a test can do what
 * it likes (take over, kill us) before we go on.  The points: "spawn"
 * (between a commit and a step's start), "apply" (a socket request read,
 * not applied), "answer" (a request committed, not yet answered),
 * "prune" (a prune batch's first slice done, before it looks for
 * requests), "ended" (a run's end written, not yet committed) and
 * "inbox" (a cluster leader's turn holds the write lock and has read
 * relayed commands, not applied them).
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
 * Start the processes whose running rows have committed (all those queued
 * when committed is set: the turn just committed), in order, while a job
 * slot is free, each only if this engine still holds the lease; drop the
 * queued ones that were cancelled, or interrupted by a shutdown (their
 * rows stay running: the next engine's recovery applies on_interrupt).
 * Called after each commit and when a process is reaped, so a slot is
 * refilled in the turn that frees it.  The commit itself was fenced by
 * the epoch; between it and a start, another engine may have taken over
 * (this one frozen, DB.lock removed) and already run the step again, so
 * the lease is asked again before each start: the epoch here (inside a
 * turn's transaction the fence at its start answers for it), and the lock
 * file once more in the child as its last step before exec.  What is
 * left is the child's own few microseconds between that look and its
 * exec: only a take-over that both begins and finishes its recovery
 * (which kills what it finds by the step's environment) inside them, with
 * the child itself frozen there, could still run the step twice.
 */
void
engine_spawn(struct engine *e, int committed)
{
	struct estep	*es, *es1;
	char		*why;

	/*
	 * A failed start's end may wait for a commit on the thread, whose
	 * end calls here again: then only note what it made durable.
	 */
	if (e->spawning) {
		TAILQ_FOREACH(es, &e->spawn, qentry) {
			if (committed)
				es->durable = 1;
		}
		return;
	}
	e->spawning = 1;
	TAILQ_FOREACH_SAFE(es, &e->spawn, qentry, es1) {
		if (committed)
			es->durable = 1;
		if (es->cancelled || es->interrupted) {
			TAILQ_REMOVE(&e->spawn, es, qentry);
			es->queued = 0;
			e->nprocs--;
			tool_cmd_free(es->cmd);
			free(es->cmd);
			es->cmd = NULL;
			engine_exec_end(e, es);
			continue;
		}
		if (!es->durable || e->nlive >= e->opts.max_jobs)
			continue;
		/* A runner told of its spawn may use the store: after it. */
		if (e->committing && es->runner->spawned != NULL)
			break;
		TAILQ_REMOVE(&e->spawn, es, qentry);
		es->queued = 0;
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
	e->spawning = 0;
}

/* Queued starts whose rows have committed: each waits for a free slot. */
int
engine_spawn_waiting(const struct engine *e)
{
	const struct estep	*es;
	int			 n = 0;

	TAILQ_FOREACH(es, &e->spawn, qentry) {
		if (es->durable && !es->cancelled && !es->interrupted)
			n++;
	}
	return (n);
}

/* Record one step's pid, group and start time. */
static void
engine_record_pid(struct engine *e, struct estep *es)
{
	struct store_step	 row;

	TAILQ_REMOVE(&e->pids, es, pentry);
	es->pid_dirty = 0;
	memset(&row, 0, sizeof row);
	row.id = es->id;
	row.pid = es->pid;
	row.pgid = es->pgid;
	row.proc_start = es->pstart;
	if (es->ahead) {
		/* It waited for a slot: it started now, not when recorded. */
		row.started_at = es->spawned_at;
		if (es->timeout > 0)
			row.timeout_at = es->spawned_at + es->timeout;
	}
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
		engine_record_pid(e, es);
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

	(void)p;
	es->hb_last = time_mono_ms();	/* a heartbeat: engine_exec_silent */
	es->runner->output(es->engine, es, stream, data, len);
}

/* A process's output as it comes: its log, result and progress. */
void
engine_exec_stream(struct engine *e, struct estep *es, int stream,
    const char *data, size_t len)
{
	struct buf	 m;

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

	(void)p;
	engine_trace(e, 'E', es->id);
	es->ended_at = time_now_ms();
	e->nprocs--;
	e->nlive--;
	e->brief = time_mono_ms() - es->spawn_mono < ENGINE_BRIEF_MS;
	if (es->timer != NULL)
		loop_timer_stop(es->timer);
	if (es->hb_timer != NULL)
		loop_timer_stop(es->hb_timer);
	/*
	 * Its slot is free: the next start, already committed, takes it
	 * now, before this step's end is written, so the slot does not wait
	 * for this step's bookkeeping (its row, the steps it makes ready).
	 */
	engine_spawn(e, 0);
	es->proc = NULL;
	if (e->committing) {
		/* The store is the commit's: the row waits for its end. */
		es->end_status = status;
		TAILQ_INSERT_TAIL(&e->ended, es, qentry);
		return;
	}
	engine_exec_ended(e, es, status);
}

/* The steps reaped while a commit ran on the thread: their ends now. */
void
engine_exec_ended_run(void *arg)
{
	struct engine	*e = arg;
	struct estep	*es;

	while ((es = TAILQ_FIRST(&e->ended)) != NULL) {
		TAILQ_REMOVE(&e->ended, es, qentry);
		engine_exec_ended(e, es, es->end_status);
	}
}

/* A reaped step's end: its row, its log, what follows it. */
static void
engine_exec_ended(struct engine *e, struct estep *es, int status)
{
	engine_txn(e);
	if (es->pid_dirty)
		engine_record_pid(e, es);
	engine_exec_flush(es);
	engine_exec_log_flush(e, es);	/* log_bytes counts it all */
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
	} else {
		es->runner->exit(e, es, status);
		engine_exec_end(e, es);
	}
	/* Drop the queued starts its end cancelled. */
	engine_spawn(e, 0);
}

/* A process ended: done on status 0, else failed, with why. */
void
engine_exec_status(struct engine *e, struct estep *es, int status)
{
	char	*result, *why;
	int	 code, i;

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

/* Stop a running step, as its runner stops one. */
void
engine_exec_kill(struct engine *e, struct estep *es)
{
	if (es->queued)
		return;		/* engine_spawn drops it */
	if (es->runner != NULL && es->runner->kill != NULL)
		es->runner->kill(e, es);
}

/* Kill a running process's group (TERM, then KILL after grace). */
void
engine_exec_stop(struct engine *e, struct estep *es)
{
	if (es->proc != NULL)
		proc_kill(es->proc, e->opts.kill_grace);
}

/* A process, run for any kind whose command tool_cmd_build makes. */
const struct engine_runner engine_runner_process = {
	.name = "process",
	.flags = ENGINE_RUNNER_PROCESS,
	.start = engine_exec_process,
	.output = engine_exec_stream,
	.exit = engine_exec_status,
	.kill = engine_exec_stop
};
