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
 * engine.c: the engine's life: taking the lock and a new epoch, recovering
 * what the last engine left, one write transaction per loop turn (opened
 * by the first change, committed by a before-sleep hook, fenced by the
 * epoch; while every job slot is busy, one commit may take in the next
 * turns' too), the socket's answers after each commit, the inbox (a slow
 * fallback for clients with no socket), the stored timers and shutting
 * down.  An idle engine writes nothing: its heartbeat rides on the
 * transactions it makes anyway, and liveness is the lock and the socket.
 * While step processes run, a turn's commit may be made on a thread of
 * its own (commit-thread.c), so that the slots are refilled meanwhile.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine-int.h"

static void	 engine_commit(void *);
static void	 engine_turn_end(void *);
static int	 engine_commit_may_wait(struct engine *);
static int	 engine_commit_may_thread(struct engine *);
static void	 engine_group_due(void *);
static void	 engine_poll(void *);
static void	 engine_timers_fire(void *);
static void	 engine_more(void *);
static void	 engine_pids_due(void *);
static void	 engine_held_by(struct engine *, char **);
static void	 engine_fence_init(struct engine *);

/* Say who holds the lock, from the engine row. */
static void
engine_held_by(struct engine *e, char **cause)
{
	struct store_lease	 l;
	char			*why = NULL;

	if (store_lease_get(e->store, &l, &why) == 0 && l.pid != 0) {
		xasprintf(cause, "an engine is already running on %s: pid "
		    "%lld on %s", store_path(e->store), (long long)l.pid,
		    l.host != NULL ? l.host : "?");
	} else {
		xasprintf(cause, "an engine is already running on %s",
		    store_path(e->store));
	}
	free(why);
	store_lease_clear(&l);
}

/*
 * Become the engine of a database: lock, new epoch, recover.  Returns 0,
 * LOCK_HELD when another engine runs (cause says which), or -1.  With no
 * loop the engine is offline: it applies commands but runs nothing.
 */
int
engine_open(struct loop *loop, struct store *s, const struct flow_tools *tools,
    const struct engine_opts *opts, struct engine **ep, char **cause)
{
	struct engine	*e;
	const char	*trace;
	int		 rc;

	*ep = NULL;
	e = xcalloc(1, sizeof *e);
	e->loop = loop;
	e->store = s;
	e->tools = tools;
	e->offline = loop == NULL;
	e->lock_fd = -1;
	if (opts != NULL)
		e->opts = *opts;
	else
		e->opts.authority.allow_self = 1;
	if (e->opts.max_jobs <= 0)
		e->opts.max_jobs = ENGINE_MAX_JOBS;
	if (e->opts.kill_grace <= 0)
		e->opts.kill_grace = ENGINE_KILL_GRACE;
	if (e->opts.log_max <= 0)
		e->opts.log_max = ENGINE_LOG_MAX;
	e->rng = (uint32_t)getpid() ^ (uint32_t)time_mono_ms();
	RB_INIT(&e->workflows);
	RB_INIT(&e->flows);
	RB_INIT(&e->running);
	TAILQ_INIT(&e->ready[0]);
	TAILQ_INIT(&e->ready[1]);
	TAILQ_INIT(&e->spawn);
	TAILQ_INIT(&e->pids);
	TAILQ_INIT(&e->ended);
	TAILQ_INIT(&e->loglater);

	/* One lock whatever path (relative, a symlink) names the file. */
	if ((e->dbpath = realpath(store_path(s), NULL)) == NULL)
		e->dbpath = xstrdup(store_path(s));
	/* On a server, the leader's lock (leader.c) is the lock. */
	if (store_is_server(s))
		rc = LOCK_TAKEN;
	else
		rc = lock_take(e->dbpath, &e->lock_fd, cause);
	if (rc == LOCK_HELD) {
		engine_held_by(e, cause);
		free(e->dbpath);
		free(e);
		return (LOCK_HELD);
	}
	if (rc != LOCK_TAKEN) {
		free(e->dbpath);
		free(e);
		return (-1);
	}
	if (store_lease_take(s, e->offline ? 0 : getpid(), user_self()->host,
	    &e->epoch, cause) != 0) {
		lock_release(e->lock_fd);
		free(e->dbpath);
		free(e);
		return (-1);
	}
	engine_fence_init(e);
	log_debug("%s: %s: epoch %lld%s", __func__, store_path(s),
	    (long long)e->epoch, e->offline ? " (offline)" : "");
	if (opts != NULL && opts->leader != NULL && loop != NULL) {
		e->leader = opts->leader;
		/* The socket it served standing by, clients and all. */
		e->opts.standby = NULL;
		if (opts->standby != NULL &&
		    engine_standby_adopt(e, opts->standby, cause) != 0) {
			engine_close(e);
			return (-1);
		}
		/* The keeper before any step, recovery's kills included. */
		if (engine_leader_attach(e, cause) != 0) {
			engine_close(e);
			return (-1);
		}
	}
	if (loop != NULL) {
		/* Orphaned descendants of steps come to us, not to init. */
		if (procenv_subreaper() != 0)
			log_debug("%s: cannot be a subreaper", __func__);
		/* Before recovery: early clients wait in the backlog. */
		if (e->server == NULL &&
		    engine_server_open(e, &e->server_cause) != 0)
			log_debug("%s: no socket: %s", __func__,
			    e->server_cause);
		engine_busy_attach(e);
		e->more = loop_timer_create(loop, engine_more, e);
		e->poll = loop_timer_create(loop, engine_poll, e);
		e->pidrec = loop_timer_create(loop, engine_pids_due, e);
		e->group = loop_timer_create(loop, engine_group_due, e);
		e->logrec = loop_timer_create(loop, engine_logs_due, e);
		e->timers = loop_timer_create(loop, engine_timers_fire, e);
		loop_hook_add(loop, engine_turn_end, e);
		/* Audit rows' syslog copies go after the starts. */
		store_syslog_later(s, 1);
		engine_time_open(e);
		/* Not on a server: its fence and leader need the loop's. */
		if (e->opts.commit_thread && e->leader == NULL &&
		    !store_is_server(s) &&
		    engine_committer_open(e, cause) != 0) {
			log_debug("%s: commits stay on the loop: %s",
			    __func__, *cause);
			free(*cause);
			*cause = NULL;
		}
	}
	if ((trace = getenv("SLUICE_TRACE")) != NULL && *trace != '\0' &&
	    (e->trace = file_open_private(trace)) == NULL)
		log_debug("%s: %s: %s", __func__, trace, strerror(errno));
	e->data_version = store_data_version(s);
	if (engine_recover(e, cause) != 0) {
		engine_close(e);
		return (-1);
	}
	engine_secret_input_sweep(e);
	if (loop != NULL) {
		engine_prune_open(e);
		/* Commands posted while no engine ran. */
		engine_inbox(e);
		loop_timer_start(e->poll, ENGINE_POLL_MS);
		engine_kick(e);
	}
	engine_commit(e);
	*ep = e;
	return (0);
}

/* Let go: what runs is abandoned to the next engine's recovery. */
void
engine_close(struct engine *e)
{
	struct ewf	*wf, *wf1;
	struct estep	*es, *es1;
	int		 i;

	if (e == NULL)
		return;
	/* A commit under way, and the ends of the steps reaped meanwhile. */
	engine_commit_join(e);
	engine_exec_ended_run(e);
	/* Log lines still waiting go into the last commit. */
	if (!TAILQ_EMPTY(&e->loglater))
		engine_txn(e);
	engine_commit(e);
	engine_committer_close(e);
	engine_busy_attach(NULL);
	engine_listen_close(e);
	engine_leftovers_free(e);
	engine_notify_close(e);
	if (e->loop != NULL) {
		store_syslog_later(e->store, 0);
		loop_hook_del(e->loop, engine_turn_end, e);
		loop_timer_free(e->group);
		loop_timer_free(e->more);
		loop_timer_free(e->poll);
		loop_timer_free(e->pidrec);
		loop_timer_free(e->logrec);
		e->logrec = NULL;
		loop_timer_free(e->timers);
		engine_time_close(e);
	}
	for (i = 0; i < 2; i++) {
		TAILQ_FOREACH_SAFE(es, &e->ready[i], qentry, es1) {
			TAILQ_REMOVE(&e->ready[i], es, qentry);
			engine_step_free(es);
		}
	}
	RB_FOREACH_SAFE(es, estep_tree, &e->running, es1) {
		RB_REMOVE(estep_tree, &e->running, es);
		if (es->queued)
			TAILQ_REMOVE(&e->spawn, es, qentry);
		if (es->pid_dirty)
			TAILQ_REMOVE(&e->pids, es, pentry);
		if (es->proc != NULL)
			proc_abandon(es->proc);
		if (es->cmd != NULL) {
			tool_cmd_free(es->cmd);
			free(es->cmd);
		}
		engine_step_free(es);
	}
	RB_FOREACH_SAFE(wf, ewf_tree, &e->workflows, wf1)
		engine_wf_free(e, wf);
	engine_server_close(e);
	free(e->server_cause);
	if (RB_EMPTY(&e->running))
		store_lease_drop(e->store, e->epoch);
	lock_release(e->lock_fd);
	if (e->trace != NULL)
		fclose(e->trace);
	free((char *)e->fence.path);
	free(e->dbpath);
	free(e);
}

/*
 * Stop starting steps.  The engine is finished once its running steps
 * have ended; with now set they are killed first (and, being interrupted,
 * follow their on_interrupt at the next engine's start).
 */
void
engine_shutdown(struct engine *e, int now)
{
	struct estep	*es;

	e->stopping = 1;
	engine_notify_shutdown(e, now);
	if (!now)
		return;
	RB_FOREACH(es, estep_tree, &e->running) {
		es->interrupted = 1;
		engine_exec_kill(e, es);
	}
	/* Those recorded but waiting for a job slot never start. */
	engine_spawn(e, 0);
}

/* No workflow is running any more (for engine --drain). */
int
engine_idle(const struct engine *e)
{
	return (RB_EMPTY(&e->workflows) && RB_EMPTY(&e->running) &&
	    TAILQ_EMPTY(&e->ready[0]) && TAILQ_EMPTY(&e->ready[1]) &&
	    !e->in_txn && !e->committing && e->leftovers == NULL);
}

/*
 * Nothing to do until something from outside happens: no step running or
 * ready (runs may wait at gates), for the screen tests' :wait-idle.
 */
int
engine_quiet(const struct engine *e)
{
	return (RB_EMPTY(&e->running) && TAILQ_EMPTY(&e->ready[0]) &&
	    TAILQ_EMPTY(&e->ready[1]) && !e->in_txn && !e->committing);
}

/* Step rows running here now (a console asks before quitting). */
int
engine_nrunning(const struct engine *e)
{
	struct estep_tree	*running = (struct estep_tree *)&e->running;
	struct estep		*es;
	int			 n = 0;

	RB_FOREACH(es, estep_tree, running)
		n++;
	return (n);
}

/* Stopping and nothing left running (notifications included). */
int
engine_finished(const struct engine *e)
{
	return (e->stopping && RB_EMPTY(&e->running) &&
	    !engine_notify_busy(e) && e->leftovers == NULL);
}

/*
 * This engine runs headless now (a console that lost its terminal): it
 * may hand over to an engine started later (engine_cmd_handover).
 */
void
engine_set_headless(struct engine *e)
{
	e->headless = 1;
}

/* Be told of the engine's events (engine_notify), or no longer (NULL). */
void
engine_set_observer(struct engine *e, engine_observer_cb cb, void *arg)
{
	e->observer = cb;
	e->observer_arg = arg;
}

/* Another engine asked this one to hand over (it is stopping for it). */
int
engine_handing_over(const struct engine *e)
{
	return (e->handover);
}

/*
 * "handover": an engine started later asks for the database.  Only a
 * headless engine agrees: it starts nothing new and exits once its
 * running steps have ended, and the asker takes the lock then.  An engine
 * in a console with its operator, or a service, says no.
 */
int
engine_cmd_handover(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	if (e->offline)
		return (0);
	if (!e->headless) {
		r->code = 1;
		xasprintf(&r->message, "the engine (pid %ld) is not headless; "
		    "it does not hand over", (long)getpid());
		return (r->code);
	}
	if (!e->handover)
		engine_audit(e, m, "handover", 0, 0, "engine", NULL, NULL);
	e->handover = 1;
	engine_shutdown(e, 0);
	xasprintf(&r->message, "engine pid %ld hands over once its %d running "
	    "step%s ended", (long)getpid(), engine_nrunning(e),
	    engine_nrunning(e) == 1 ? " has" : "s have");
	return (0);
}

/* A workflow's status as the engine knows it (memory, else the table). */
int
engine_workflow_status(struct engine *e, int64_t id, enum run_status *status)
{
	struct store_workflow	*w;
	char			*cause = NULL;
	int			 rc;

	rc = store_workflow_get(e->store, id, &w, &cause);
	if (rc != 0) {
		free(cause);
		return (rc);
	}
	*status = w->status;
	store_workflow_free(w);
	return (0);
}

/* Note which file the lock is on, for the checks before each start. */
static void
engine_fence_init(struct engine *e)
{
	struct stat	 sb;

	if (e->lock_fd == -1)
		return;		/* a server's: the deadline fences */
	e->fence.path = lock_file(e->dbpath);
	if (fstat(e->lock_fd, &sb) == 0) {
		e->fence.dev = sb.st_dev;
		e->fence.ino = sb.st_ino;
	}
}

/*
 * Whether this engine still holds the lease, asked outside a transaction
 * before each process starts: DB.lock still names the file it locked
 * (else a new engine may lock the new one), in cluster mode the local
 * deadline is still ahead, and the epoch in the last commit is still its
 * own.
 */
int
engine_lease_held(struct engine *e)
{
	int64_t	 epoch;

	if (e->fence.path != NULL && lock_same(e->lock_fd, e->fence.path) != 1)
		return (0);
	if (fence_expired(e->fence.deadline))
		return (0);
	/* The commit under way holds the write lock; its start checked. */
	if (e->committing)
		return (1);
	/*
	 * Cluster mode, starting what the commit just made recorded: that
	 * commit was fenced (the engine row locked from its start to its
	 * end), and a new leader leaves these rows alone until this node's
	 * deadline, just checked, has passed: a read of the epoch now would
	 * cost a round trip to PostgreSQL and tell nothing more.
	 */
	if (e->leader != NULL && e->just_committed)
		return (1);
	if (store_lease_epoch(e->store, &epoch) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	return (epoch == e->epoch);
}

/* Another engine took over (or can): stop at once, starting nothing. */
__dead void
engine_superseded(struct engine *e, const char *why)
{
	if (e->in_txn)
		store_rollback(e->store);
	fatalx("engine: superseded: another engine took over %s (%s); "
	    "stopping",
	    store_path(e->store), why);
}

/* The epoch this engine took. */
int64_t
engine_epoch(const struct engine *e)
{
	return (e->epoch);
}

/* Open the turn's transaction if it is not open: every change is in one. */
void
engine_txn(struct engine *e)
{
	int64_t	 now;
	char	*cause = NULL;
	int	 rc;

	if (e->in_txn)
		return;
	if (e->committing) {
		engine_commit_join(e);
		if (e->in_txn)
			return;
	}
	/* Its first statement is the fence, which takes the lock with it. */
	if (store_begin_next(e->store, &cause) != 0)
		engine_store_fatal(e, cause);
	now = time_mono_ms();
	if (e->heartbeat_at != 0 && now - e->heartbeat_at < ENGINE_HEARTBEAT_MS)
		rc = store_lease_fence(e->store, e->epoch, 0);
	else {
		rc = store_lease_fence(e->store, e->epoch, time_now_ms());
		e->heartbeat_at = now;
	}
	if (rc == STORE_CONFLICT) {
		xasprintf(&cause, "epoch %lld is stale", (long long)e->epoch);
		engine_superseded(e, cause);
	}
	if (rc != 0)
		engine_store_fatal(e, store_last_error(e->store));
	e->in_txn = 1;
	e->txn_at = now;
	engine_record_pids(e);
	engine_clock_check(e);
}

/*
 * The store failed under the engine: nothing of this turn is kept, and
 * the engine cannot go on with memory that disagrees with the tables.
 */
void
engine_store_fatal(struct engine *e, const char *why)
{
	/*
	 * A leader that lost its connection (the server ended a
	 * transaction it left idle while frozen or cut off) cannot know
	 * whether another node leads now: it stops as superseded (one
	 * that gave its connection up, cut off, steps down first, its
	 * socket still answering: cutoff.c).
	 */
	if (e->leader != NULL)
		engine_cutoff(e, why);
	if (e->in_txn)
		store_rollback(e->store);
	fatalx("engine: %s", why);
}

/*
 * Before sleeping: commit the turn, unless the commit may wait for the
 * next turn's (engine_commit_may_wait).
 */
static void
engine_turn_end(void *arg)
{
	struct engine	*e = arg;

	if (e->committing)
		return;		/* its end comes through the barrier */
	/* Copies of rows committed outside a turn (store_syslog_later). */
	store_syslog_send(e->store);
	if (e->in_txn && engine_commit_may_wait(e))
		return;
	if (e->in_txn && engine_commit_may_thread(e)) {
		engine_logs_flush(e);
		e->in_txn = 0;
		loop_timer_stop(e->group);
		engine_committer_start(e);
		return;
	}
	engine_commit(e);
}

/*
 * Whether this turn's commit may wait for the next turn's, to commit
 * both at once (a group commit): every job slot is busy and a start
 * already committed waits for the next slot to free, so committing now
 * would start nothing sooner; no client waits for an answer; and the
 * transaction is younger than ENGINE_GROUP_MS, the most its changes
 * wait.  Fanning out, the ends of the processes and the starts recorded
 * ahead of the slots then commit once for several processes, while the
 * slots run.  A change that waits is acknowledged to no one, so a crash
 * meanwhile loses nothing anyone was told of: it is as if it came a
 * moment later (a reaped step's row is still running: recovery applies
 * its on_interrupt, as for any process the engine died beside).
 */
static int
engine_commit_may_wait(struct engine *e)
{
	int64_t	 age;

	if (e->offline || e->stopping || e->nlive < e->opts.max_jobs ||
	    engine_spawn_waiting(e) == 0 || !engine_server_quiet(e))
		return (0);
	age = time_mono_ms() - e->txn_at;
	if (age >= ENGINE_GROUP_MS)
		return (0);
	if (!loop_timer_pending(e->group))
		loop_timer_start(e->group, ENGINE_GROUP_MS - age);
	return (1);
}

/*
 * Whether this turn's commit may be made on the thread: step processes
 * run that may end during its fsync, and starts committed earlier wait
 * to take their slots.  Otherwise nothing could happen meanwhile (a
 * chain's next step waits for this very commit), and the loop commits.
 */
static int
engine_commit_may_thread(struct engine *e)
{
	return (e->committer != NULL && !e->offline && !e->stopping &&
	    e->nlive > 0 && engine_spawn_waiting(e) > 0);
}

/* A waiting commit's time is up: the turn this wakes commits it. */
static void
engine_group_due(void *arg)
{
	(void)arg;
}

/*
 * Commit the turn, then start the processes it recorded, answer the
 * socket's clients (never ahead of the commit) and send its
 * notifications.
 */
static void
engine_commit(void *arg)
{
	struct engine	*e = arg;
	char		*cause = NULL;

	engine_commit_join(e);
	if (!e->in_txn) {
		engine_busy_over();
		engine_server_flush(e, 0);
		return;
	}
	engine_logs_flush(e);
	e->in_txn = 0;
	if (e->group != NULL)
		loop_timer_stop(e->group);
	/* Cluster mode: the other nodes hear of it (relay.c), once. */
	if (e->leader != NULL && store_notify(e->store,
	    STORE_CHANNEL_CHANGED, &cause) != 0)
		engine_store_fatal(e, cause);
	if (store_commit(e->store, &cause) != 0)
		engine_store_fatal(e, cause);
	engine_committed(e);
}

/*
 * A commit is made (here or on the thread): start the processes it
 * recorded, answer the socket's clients and send its notifications.
 */
void
engine_committed(struct engine *e)
{
	engine_trace(e, 'C', 0);
	engine_secret_input_committed(e);
	engine_busy_over();
	if (!e->offline) {
		e->just_committed = 1;
		engine_spawn(e, 1);
		e->just_committed = 0;
	}
	/* Its audit rows' syslog copies: after the starts, before answers. */
	store_syslog_send(e->store);
	/* New pids are recorded with the next change, or within a second. */
	if (!TAILQ_EMPTY(&e->pids) && !loop_timer_pending(e->pidrec))
		loop_timer_start(e->pidrec, ENGINE_HEARTBEAT_MS);
	engine_server_flush(e, 1);
	engine_notify_commit(e);
}

/* Something is ready: start it in this turn. */
void
engine_kick(struct engine *e)
{
	if (e->offline || e->drain_queued)
		return;
	e->drain_queued = 1;
	loop_defer(e->loop, engine_drain, e);
}

/* Processes started a while ago and nothing written since: record them. */
static void
engine_pids_due(void *arg)
{
	struct engine	*e = arg;

	if (!TAILQ_EMPTY(&e->pids))
		engine_txn(e);
}

/* The drain gave way for a turn; go on. */
static void
engine_more(void *arg)
{
	engine_kick(arg);
}

/*
 * Now and then: has anyone posted to the inbox (a client that found no
 * socket)?  Commands come through the socket and are applied at once;
 * this is only the fallback, so it looks seldom and writes nothing when
 * nothing came (no heartbeat of its own: an idle engine does not fsync).
 */
static void
engine_poll(void *arg)
{
	struct engine		*e = arg;
	int64_t			 v;
	struct store_lease	 l;
	char			*cause = NULL;

	/*
	 * A leader looks just after its heartbeat's answer, when the server
	 * has answered a moment ago: cut off from it, a look would wait for
	 * as long as the cut lasts, and its socket with it.
	 */
	if (e->leader != NULL && !e->poll_now) {
		e->poll_now = 1;
		leader_after_beat(e->leader, engine_poll, e);
		return;
	}
	e->poll_now = 0;
	v = store_data_version(e->store);
	if (v != e->data_version) {
		e->data_version = v;
		/*
		 * Someone else wrote: was it a take-over?  (A read only.)
		 * Stopped as every other way a leader learns it: the one
		 * "superseded" line operators and the tests look for.
		 */
		if (store_lease_get(e->store, &l, &cause) == 0 &&
		    l.epoch != e->epoch) {
			store_lease_clear(&l);
			xasprintf(&cause, "epoch %lld is stale",
			    (long long)e->epoch);
			engine_superseded(e, cause);
		}
		free(cause);
		store_lease_clear(&l);
		engine_inbox(e);
	}
	loop_timer_start(e->poll, ENGINE_POLL_MS);
}

/* Arm the stored-timer alarm for a due time if it is sooner. */
void
engine_timers_rearm(struct engine *e, int64_t due)
{
	int64_t	 wait;

	if (e->offline || due <= 0)
		return;
	if (loop_timer_pending(e->timers) && e->timers_due <= due)
		return;
	wait = due - time_now_ms();
	e->timers_due = due;
	loop_timer_start(e->timers, wait > 0 ? wait : 0);
}

/* Stored timers are due: retries become ready, gates time out, SLAs pass. */
static void
engine_timers_fire(void *arg)
{
	struct engine		*e = arg;
	struct store_timer	*list;
	size_t			 n, i;
	int64_t			 now, next;
	char			*cause = NULL;

	engine_txn(e);
	engine_clock_check(e);	/* a jump moves what is due */
	now = time_now_ms();
	if (store_timers_due(e->store, now, &list, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (store_timer_del(e->store, list[i].id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (strcmp(list[i].kind, "gate_timeout") == 0)
			engine_gate_timeout(e, list[i].step_id);
		else if (strcmp(list[i].kind, "wait_timeout") == 0)
			engine_wait_timeout(e, list[i].step_id);
		else if (strcmp(list[i].kind, "retry") == 0)
			engine_step_wake(e, list[i].step_id);
		else if (strcmp(list[i].kind, "sla") == 0)
			engine_sla_due(e, list[i].workflow_id);
		else if (strcmp(list[i].kind, "deadline") == 0)
			engine_deadline_due(e, list[i].workflow_id);
		else if (strcmp(list[i].kind, "prune") == 0)
			engine_prune_due(e);
	}
	store_timers_free(list, n);
	e->timers_due = 0;
	if (store_timer_next(e->store, &next) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, next);
}

/*
 * With $SLUICE_TRACE naming a file, note when each step starts and ends
 * (monotonic microseconds), for the benchmarks' latency figures.
 */
void
engine_trace(struct engine *e, int what, int64_t id)
{
	if (e->trace == NULL)
		return;
	fprintf(e->trace, "%c %lld %lld\n", what, (long long)time_mono_us(),
	    (long long)id);
}

/* A small PRNG for backoff jitter (xorshift32). */
uint32_t
engine_random(struct engine *e)
{
	uint32_t	 x = e->rng != 0 ? e->rng : 2463534242U;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return (e->rng = x);
}
