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
 * recover.c: taking over from the last engine.  Everything is in the
 * tables: running workflows are loaded, ready rows queued, the stored
 * timers armed.  Rows still "running" were interrupted: their process
 * groups, if still alive (the leader checked by its start time, so a
 * reused pid is never hit), are killed before the row runs again, and
 * each row then follows its step's on_interrupt.  The killing is on the
 * loop (SIGTERM, a look every 50 ms, SIGKILL at the grace), never a
 * sleep, so a console taking over stays responsive; a group that will not
 * die (uninterruptible, or not ours to signal) is given up after a margin
 * and its row fails for good rather than run twice.
 */

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	 engine_recover_needles(struct engine *,
		     const struct store_step *, char **);
static int	 engine_recover_alive(struct engine *,
		     const struct procscan *, const struct store_step *);
static void	 engine_recover_find(struct engine *,
		     const struct procscan *, struct store_step *);
static int	 engine_recover_signal(struct engine *,
		     const struct procscan *, const struct store_step *, int);
static size_t	 engine_recover_escaped(struct engine *,
		     const struct procscan *, const struct store_step *,
		     pid_t *, size_t);
static void	 engine_recover_kill(struct engine *, struct store_step *,
		     size_t);
static void	 engine_recover_look(struct engine *);
static void	 engine_leftovers_start(struct engine *);
static void	 engine_recover_hold(struct engine *,
		     struct engine_leftovers *);
static void	 engine_leftovers_tick(void *);
static void	 engine_leftovers_release(void *);
static void	 engine_recover_interrupted(struct engine *,
		     const struct store_step *, const char *);
static int	 engine_recover_load(struct engine *, char **);

/* The SLUICE_* entries a row's processes carry (the caller frees). */
static void
engine_recover_needles(struct engine *e, const struct store_step *row,
    char **needles)
{
	xasprintf(&needles[0], "SLUICE_STEP_ID=%lld", (long long)row->id);
	xasprintf(&needles[1], "SLUICE_WORKFLOW_ID=%lld",
	    (long long)row->workflow_id);
	xasprintf(&needles[2], "SLUICE_DB=%s", e->dbpath);
	needles[3] = NULL;
}

/*
 * Whether a running row may have left processes: its kind's runner row
 * says (engine/runner.c); a for-each's own row runs none (its items do).
 */
static int
engine_recover_ran_process(const struct store_step *row)
{
	return (row->items == 0 && engine_kind_ran_process(row->kind));
}

/*
 * A row's processes that left its group (setsid, a daemon): every step
 * process carries its row's SLUICE_* variables, and its descendants
 * inherit them.  From recovery's one scan, those still there (the same
 * start time), and with each the descendants it has now (forked since).
 */
static size_t
engine_recover_escaped(struct engine *e, const struct procscan *ps,
    const struct store_step *row, pid_t *pids, size_t max)
{
	char	*needles[4];
	int64_t	 starts[ENGINE_ESCAPED_MAX];
	size_t	 n, i, j;

	if (!engine_recover_ran_process(row) || ps == NULL)
		return (0);
	if (max > nitems(starts))
		max = nitems(starts);
	engine_recover_needles(e, row, needles);
	/* Members of the recorded group are the group's business. */
	n = procscan_find(ps, (const char *const *)needles,
	    row->pgid > 0 ? (pid_t)row->pgid : 0, pids, starts, max);
	for (i = 0; i < 3; i++)
		free(needles[i]);
	for (i = j = 0; i < n; i++) {
		if (procstat_same(pids[i], starts[i]))
			pids[j++] = pids[i];
	}
	n = j;
	for (i = 0; i < j && n < max; i++)
		n += procstat_descendants(pids[i], pids + n, max - n);
	return (n);
}

/*
 * Is what a running row recorded still there: our leader, its group, or
 * a process of it that left the group?
 */
static int
engine_recover_alive(struct engine *e, const struct procscan *ps,
    const struct store_step *row)
{
	pid_t	 pids[1];

	if (engine_recover_escaped(e, ps, row, pids, nitems(pids)) > 0)
		return (1);
	if (row->pid <= 0 || row->pgid <= 0)
		return (0);
	if (procstat_same((pid_t)row->pid, row->proc_start))
		return (1);
	/*
	 * The leader is gone.  Its group lives on only if members remain,
	 * and a group id is not reused while the group exists; but a new
	 * process with that pid as its own group would answer too, so the
	 * group counts only when no process has the leader's pid.
	 */
	if (procstat_start_time((pid_t)row->pgid) != 0)
		return (0);
	return (procscan_group_alive(ps, (pid_t)row->pgid));
}

/*
 * A row recorded running but whose pid was not yet recorded: find its
 * process (if it got that far) by the variables every step carries.
 */
static void
engine_recover_find(struct engine *e, const struct procscan *ps,
    struct store_step *row)
{
	char		*needles[4];
	pid_t		 pids[8];
	int64_t		 starts[8];
	size_t		 n, i;

	engine_recover_needles(e, row, needles);
	n = procscan_find(ps, (const char *const *)needles, 0, pids, starts,
	    nitems(pids));
	if (n > 0) {
		row->pid = pids[0];
		row->pgid = getpgid(pids[0]);
		row->proc_start = starts[0];
		log_debug("%s: step %lld: found pid %lld by its environment",
		    __func__, (long long)row->id, (long long)row->pid);
	}
	for (i = 0; i < 3; i++)
		free(needles[i]);
}

/*
 * Signal a leftover group: SIGCONT first for SIGTERM, since a stopped
 * group would not see it.  Returns 0, or the errno that refused it.
 */
static int
engine_recover_signal(struct engine *e, const struct procscan *ps,
    const struct store_step *row, int signo)
{
	pid_t	 pids[ENGINE_ESCAPED_MAX];
	size_t	 n, i;
	int	 error = 0;

	n = engine_recover_escaped(e, ps, row, pids, nitems(pids));
	for (i = 0; i < n; i++) {
		log_debug("%s: step %lld: escaped process %ld", __func__,
		    (long long)row->id, (long)pids[i]);
		if (signo == SIGTERM)
			kill(pids[i], SIGCONT);
		if (kill(pids[i], signo) != 0 && errno != ESRCH)
			error = errno;
	}
	if (row->pgid <= 1)
		return (error);
	if (signo == SIGTERM)
		killpg((pid_t)row->pgid, SIGCONT);
	if (killpg((pid_t)row->pgid, signo) == 0)
		return (error);
	return (errno);
}

/*
 * Send SIGTERM to the leftovers of interrupted rows, which the engine
 * keeps from now on (for-each rows run no process and are left to
 * engine_foreach_resume, sub-workflow rows to their child runs).  Rows
 * whose process is gone (or never started) follow their on_interrupt
 * then; the others are held until the loop sees their group end
 * (engine_leftovers_check), so the console and the engine go on
 * meanwhile.
 *
 * The look at /proc that this takes (every process of the host, once)
 * is the loop's first work, not engine_open's: a console hosting the
 * engine draws its first screen before it, however many processes the
 * host runs (3,000 cost 0.6-0.9 s on a loaded machine).  Until then
 * the rows that ran a process are held; nothing else waits for them.
 * Without a loop (an offline engine) the look is made here.
 */
static void
engine_recover_kill(struct engine *e, struct store_step *rows, size_t n)
{
	struct engine_leftovers	*lo;
	size_t			 i;

	lo = xcalloc(1, sizeof *lo);
	lo->rows = rows;
	lo->n = n;
	lo->state = xcalloc(n + 1, 1);
	lo->err = xcalloc(n + 1, sizeof *lo->err);
	e->leftovers = lo;
	if (e->leader != NULL) {
		lo->term_at = time_mono_ms();
		engine_recover_hold(e, lo);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!engine_recover_ran_process(&rows[i]))
			continue;
		lo->state[i] = 1;
		lo->left++;
	}
	if (lo->left > 0 && e->loop != NULL)
		lo->look_due = 1;
	else
		engine_recover_look(e);
	for (i = 0; i < n; i++) {
		/*
		 * A sub-workflow step (or item) was not interrupted: its
		 * child run goes on (loaded already) and finishes it.
		 */
		if (!engine_recover_ran_process(&rows[i]) &&
		    rows[i].items == 0 && rows[i].child_id == 0)
			engine_recover_interrupted(e, &rows[i], NULL);
	}
}

/*
 * The one look at every process, if a row ran one: each held row's
 * group is found, and signalled when it lives, else the row follows its
 * on_interrupt now.
 */
static void
engine_recover_look(struct engine *e)
{
	static const char	*prefixes[] = { "SLUICE_STEP_ID=",
	    "SLUICE_WORKFLOW_ID=", "SLUICE_DB=", NULL };
	struct engine_leftovers	*lo = e->leftovers;
	struct store_step	*row;
	size_t			 i;

	lo->look_due = 0;
	lo->term_at = time_mono_ms();
	if (lo->left == 0)
		return;
	lo->scan = procscan_take(prefixes);
	for (i = 0; i < lo->n; i++) {
		row = &lo->rows[i];
		if (lo->state[i] != 1)
			continue;
		if (row->pid == 0)
			engine_recover_find(e, lo->scan, row);
		if (!engine_recover_alive(e, lo->scan, row)) {
			lo->state[i] = 2;
			lo->left--;
			/* A sub-workflow step's child run finishes it. */
			if (row->items == 0 && row->child_id == 0)
				engine_recover_interrupted(e, row, NULL);
			continue;
		}
		log_debug("%s: step %lld: killing leftover group %lld",
		    __func__, (long long)row->id, (long long)row->pgid);
		lo->err[i] = engine_recover_signal(e, lo->scan, row, SIGTERM);
	}
}

/*
 * Cluster mode: the rows were another node's (or this node's before a
 * crash), whose pids mean nothing here; its fence keeper stops them by
 * its deadline.  So nothing is signalled: every row that ran a process is
 * held until that deadline and the kill grace have surely passed, then
 * follows its on_interrupt.  The rest goes on at once.
 */
static void
engine_recover_hold(struct engine *e, struct engine_leftovers *lo)
{
	size_t	 i;

	lo->hold_until = lo->term_at + leader_hold(e->leader) +
	    e->opts.kill_grace;
	lo->killed = 1;
	for (i = 0; i < lo->n; i++) {
		if (!engine_recover_ran_process(&lo->rows[i]))
			continue;
		lo->state[i] = 1;
		lo->left++;
		log_debug("%s: step %lld: held until the old leader's "
		    "deadline and the kill grace", __func__,
		    (long long)lo->rows[i].id);
	}
	/* As without a cluster: a sub-workflow's child run finishes it. */
	for (i = 0; i < lo->n; i++) {
		if (!engine_recover_ran_process(&lo->rows[i]) &&
		    lo->rows[i].items == 0 && lo->rows[i].child_id == 0)
			engine_recover_interrupted(e, &lo->rows[i], NULL);
	}
}

/*
 * Recovery has queued everything else: watch the held rows from the loop,
 * or with no loop (an offline engine) wait here, as bounded.
 */
static void
engine_leftovers_start(struct engine *e)
{
	struct engine_leftovers	*lo = e->leftovers;
	struct timespec		 ts = { 0, ENGINE_LEFTOVER_MS * 1000000L };

	if (lo == NULL)
		return;
	if (lo->left == 0) {
		engine_leftovers_free(e);
		return;
	}
	if (e->loop != NULL) {
		lo->timer = loop_timer_create(e->loop, engine_leftovers_tick,
		    e);
		loop_timer_start(lo->timer, lo->look_due ? 0 :
		    ENGINE_LEFTOVER_MS);
		return;
	}
	while (e->leftovers != NULL) {
		nanosleep(&ts, NULL);
		engine_leftovers_check(e);
	}
}

/* The loop's look at the leftovers. */
static void
engine_leftovers_tick(void *arg)
{
	struct engine	*e = arg;

	if (e->leftovers->look_due) {
		engine_recover_look(e);
		if (e->leftovers->left == 0)
			engine_leftovers_free(e);
		engine_kick(e);
	} else if (e->leader != NULL &&
	    time_mono_ms() >= e->leftovers->hold_until) {
		/*
		 * Releasing the held rows reads and writes on the engine's
		 * connection, which waits as long as the server cannot be
		 * reached: a leader cut off just then would hang there, its
		 * socket deaf and its stop at the deadline's end never
		 * made.  So just after a heartbeat's answer, as the inbox
		 * poll reads.
		 */
		leader_after_beat(e->leader, engine_leftovers_release, e);
		return;
	} else
		engine_leftovers_check(e);
	if (e->leftovers != NULL)
		loop_timer_start(e->leftovers->timer, ENGINE_LEFTOVER_MS);
}

/* Cluster mode: the server has just answered; release the held rows. */
static void
engine_leftovers_release(void *arg)
{
	struct engine	*e = arg;

	if (e->leftovers == NULL)
		return;
	engine_leftovers_check(e);
	if (e->leftovers != NULL)
		loop_timer_start(e->leftovers->timer, ENGINE_LEFTOVER_MS);
}

/*
 * One look at the held rows: a group that has ended releases its row to
 * its on_interrupt; at the grace the rest get SIGKILL; a group still there
 * a margin after that (a process in uninterruptible sleep, or one we may
 * not signal) is given up: its row fails for good, saying so, rather than
 * running the step a second time beside it, and the engine carries on.
 */
void
engine_leftovers_check(struct engine *e)
{
	struct engine_leftovers	*lo = e->leftovers;
	struct store_step	*row;
	int64_t			 now;
	size_t			 i;
	pid_t			 one;
	char			*why;

	if (lo == NULL || lo->look_due)
		return;
	now = time_mono_ms();
	if (now < lo->hold_until)
		return;
	for (i = 0; i < lo->n; i++) {
		row = &lo->rows[i];
		if (lo->state[i] != 1)
			continue;
		if (e->leader != NULL)	/* held, never signalled */
			engine_recover_interrupted(e, row, NULL);
		else if (procscan_group_alive(lo->scan, (pid_t)row->pgid) ||
		    engine_recover_escaped(e, lo->scan, row, &one, 1) > 0) {
			if (now < lo->term_at + e->opts.kill_grace +
			    ENGINE_LEFTOVER_MARGIN)
				continue;
			xasprintf(&why, "interrupted: the engine stopped while "
			    "it ran, and its process group %lld outlived "
			    "SIGTERM and SIGKILL (%s); not run again while it "
			    "may still be running", (long long)row->pgid,
			    lo->err[i] != 0 ? strerror(lo->err[i]) :
			    "in uninterruptible sleep?");
			log_debug("%s: step %lld: %s", __func__,
			    (long long)row->id, why);
			engine_recover_interrupted(e, row, why);
			free(why);
		} else
			engine_recover_interrupted(e, row, NULL);
		lo->state[i] = 2;
		lo->left--;
	}
	if (lo->left != 0 && !lo->killed &&
	    now >= lo->term_at + e->opts.kill_grace) {
		lo->killed = 1;
		for (i = 0; i < lo->n; i++) {
			if (lo->state[i] != 1)
				continue;
			log_debug("%s: step %lld: SIGKILL to group %lld",
			    __func__, (long long)lo->rows[i].id,
			    (long long)lo->rows[i].pgid);
			if ((lo->err[i] = engine_recover_signal(e, lo->scan,
			    &lo->rows[i], SIGKILL)) == ESRCH)
				lo->err[i] = 0;
		}
	}
	if (lo->left == 0) {
		engine_leftovers_free(e);
		engine_kick(e);
	}
}

/* Forget the held rows (done, or the engine closes: they stay running). */
void
engine_leftovers_free(struct engine *e)
{
	struct engine_leftovers	*lo = e->leftovers;

	if (lo == NULL)
		return;
	loop_timer_free(lo->timer);
	procscan_free(lo->scan);
	store_steps_free(lo->rows, lo->n);
	free(lo->state);
	free(lo->err);
	free(lo);
	e->leftovers = NULL;
}

/* The gate options of a row asking whether to run a step again. */
static char *
engine_ask_json(const struct flow_step *fs)
{
	struct flow_policy	 p;
	char			*out;

	flow_policy_init(&p, KIND_GATE);
	xasprintf(&p.message, "step %s was running when the engine stopped; "
	    "approve to run it again, reject to fail it", fs->name);
	p.interrupted = 1;
	out = flow_policy_write(&p);
	flow_policy_free(&p);
	return (out);
}

/*
 * An interrupted row follows its step's on_interrupt; with given_up set
 * (its process could not be killed) it fails for good with that reason.
 * A row held while its leftovers died is read again first: a cancel may
 * have ended it meanwhile.
 */
static void
engine_recover_interrupted(struct engine *e, const struct store_step *row,
    const char *given_up)
{
	const struct flow_step	*fs;
	struct store_step	*now = NULL;
	struct estep		*es;
	struct estep_origin	 o;
	char			*gate, *cause = NULL;
	const char		*why = "interrupted: the engine stopped while "
				    "it ran";

	if (e->leftovers != NULL) {
		if (store_step_get(e->store, row->id, &now, &cause) != 0) {
			log_debug("%s: %s", __func__, cause);
			free(cause);
			return;
		}
		if (now->status != STEP_RUNNING) {
			store_step_free(now);
			return;
		}
		store_step_free(now);
	}
	if ((es = engine_step_from_row(e, row)) == NULL)
		return;
	engine_txn(e);
	fs = &es->wf->flow->steps[es->spec];
	if (given_up != NULL) {
		es->no_retry = 1;
		engine_step_failed(e, es, given_up, 0, 0, NULL);
		engine_step_free(es);
		return;
	}
	/*
	 * Cluster mode: the old leader's ssh client is gone, but what it
	 * ran on the remote host may have finished or may still run: only
	 * a person can say, so it asks, whatever on_interrupt says.  An
	 * item follows its for-each's "do", which is what it ran.
	 */
	switch (e->leader != NULL && row->host != NULL ? FLOW_INTERRUPT_ASK :
	    engine_spec(es)->on_interrupt) {
	case FLOW_INTERRUPT_RETRY:
		engine_step_failed(e, es, why, 0, 0, NULL);
		break;
	case FLOW_INTERRUPT_FAIL:
		es->no_retry = 1;
		engine_step_failed(e, es, why, 0, 0, NULL);
		break;
	case FLOW_INTERRUPT_ASK:
		es->no_retry = 1;
		/* The row ends; a new row asks whether to run it again. */
		engine_step_cancelled(e, es, why);
		gate = engine_ask_json(fs);
		engine_origin_after(es, 1, &o);
		o.has_status = 1;
		o.status = STEP_WAITING;
		o.gate_json = gate;
		engine_step_create(e, es->wf, es->spec, &o);
		free(gate);
		break;
	}
	engine_step_free(es);
}

/* A step's passes, for a run recovery loaded. */
static void
engine_recover_visit(int64_t id, const char *key, int64_t n, void *arg)
{
	struct ewf	*wf;

	if ((wf = engine_wf_get(arg, id)) != NULL)
		engine_wf_visit(wf, key, n);
}

/*
 * Every running workflow into memory, with the same state engine_wf_load
 * gives one: its row, then its ending and active rows and its visits
 * read for all runs at once (store/recover-read.c), so the reads a
 * takeover makes do not grow with the number of runs.  Both lists are
 * ordered by id; a run the second does not have (none should: no other
 * engine writes meanwhile) is read on its own.
 */
static int
engine_recover_load(struct engine *e, char **cause)
{
	struct store_workflow		*wfs;
	struct store_recover_run	*runs;
	struct ewf			*wf;
	size_t				 n, nruns, i, j;

	if (store_workflows_active(e->store, &wfs, &n, cause) != 0)
		return (-1);
	if (store_recover_runs(e->store, &runs, &nruns) != 0) {
		store_workflows_free(wfs, n);
		xasprintf(cause, "%s", store_last_error(e->store));
		return (-1);
	}
	for (i = j = 0; i < n; i++) {
		while (j < nruns && runs[j].id < wfs[i].id)
			j++;
		if (j == nruns || runs[j].id != wfs[i].id) {
			if (engine_wf_load(e, &wfs[i], cause) == NULL)
				log_debug("%s: %s", __func__, *cause);
			free(*cause);
			*cause = NULL;
			continue;
		}
		if ((wf = engine_wf_make(e, &wfs[i], cause)) == NULL) {
			log_debug("%s: %s", __func__, *cause);
			free(*cause);
			*cause = NULL;
			continue;
		}
		engine_handler_set(wf, runs[j].ending, wfs[i].error);
		wf->nactive = runs[j].nactive;
		RB_INSERT(ewf_tree, &e->workflows, wf);
	}
	free(runs);
	store_workflows_free(wfs, n);
	if (store_recover_visits(e->store, engine_recover_visit, e) != 0) {
		xasprintf(cause, "%s", store_last_error(e->store));
		return (-1);
	}
	return (0);
}

/* Take over: load, kill leftovers, apply on_interrupt, queue, arm timers. */
int
engine_recover(struct engine *e, char **cause)
{
	struct store_step	*rows, *ready;
	struct estep		*es;
	struct ewf		*wf;
	size_t			 n, nready, i;
	int64_t			 next;

	if (engine_recover_load(e, cause) != 0)
		return (-1);

	if (store_steps_with_status(e->store, STEP_RUNNING, &rows, &n,
	    cause) != 0)
		return (-1);
	for (i = 0; i < n; i++) {
		/* A for-each row runs no process: it goes on below. */
		if (rows[i].items > 0)
			rows[i].pid = rows[i].pgid = 0;
	}
	engine_recover_kill(e, rows, n);	/* keeps rows */

	if (store_steps_with_status(e->store, STEP_READY, &ready, &nready,
	    cause) != 0)
		return (-1);
	for (i = 0; i < nready; i++) {
		if (engine_step_queued(e, ready[i].id) == NULL &&
		    (es = engine_step_from_row(e, &ready[i])) != NULL)
			engine_step_ready(e, es);
	}
	store_steps_free(ready, nready);
	engine_recover_foreachs(e, rows, n);
	engine_leftovers_start(e);
	engine_recover_dag(e);

	/* A workflow with nothing left completes (settling may free it). */
	do {
		RB_FOREACH(wf, ewf_tree, &e->workflows) {
			if (wf->nactive == 0 && !wf->ended)
				break;
		}
		if (wf != NULL) {
			engine_txn(e);
			engine_wf_settle(e, wf);
		}
	} while (wf != NULL);
	/* Slots freed while no engine ran go to the runs queued longest. */
	engine_conc_recover(e);
	engine_conc_step_recover(e);
	if (store_timer_next(e->store, &next) != 0) {
		xasprintf(cause, "%s", store_last_error(e->store));
		return (-1);
	}
	engine_timers_rearm(e, next);
	return (0);
}
