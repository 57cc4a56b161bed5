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
 * reused pid is never hit), are killed before anything runs again, and
 * each row then follows its step's on_interrupt.
 */

#include <sys/types.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static int	 engine_recover_alive(const struct store_step *);
static void	 engine_recover_kill(struct engine *, struct store_step *,
		     size_t);
static void	 engine_recover_interrupted(struct engine *,
		     const struct store_step *);

/* Is what a running row recorded still there: our leader, or its group? */
static int
engine_recover_alive(const struct store_step *row)
{
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
	return (procstat_group_alive((pid_t)row->pgid));
}

/*
 * A row recorded running but whose pid was not yet recorded: find its
 * process (if it got that far) by the variables every step carries.
 */
static void
engine_recover_find(struct engine *e, struct store_step *row)
{
	char		*needles[4];
	pid_t		 pids[8];
	size_t		 n;

	xasprintf(&needles[0], "SLUICE_STEP_ID=%lld", (long long)row->id);
	xasprintf(&needles[1], "SLUICE_WORKFLOW_ID=%lld",
	    (long long)row->workflow_id);
	xasprintf(&needles[2], "SLUICE_DB=%s", e->dbpath);
	needles[3] = NULL;
	n = procenv_find((const char *const *)needles, pids, nitems(pids));
	if (n > 0) {
		row->pid = pids[0];
		row->pgid = getpgid(pids[0]);
		row->proc_start = procstat_start_time(pids[0]);
		log_debug("%s: step %lld: found pid %lld by its environment",
		    __func__, (long long)row->id, (long long)row->pid);
	}
	free(needles[0]);
	free(needles[1]);
	free(needles[2]);
}

/*
 * Kill the leftovers of interrupted rows: SIGTERM to each live group,
 * then wait (this is start-up, before the loop runs) up to the grace
 * and SIGKILL what remains.
 */
static void
engine_recover_kill(struct engine *e, struct store_step *rows, size_t n)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	int64_t		 deadline;
	size_t		 i, left;
	char		*alive;

	alive = xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		if (rows[i].pid == 0 && strcmp(rows[i].kind, "gate") != 0)
			engine_recover_find(e, &rows[i]);
	}
	for (i = 0, left = 0; i < n; i++) {
		if (!engine_recover_alive(&rows[i]))
			continue;
		alive[i] = 1;
		left++;
		log_debug("%s: step %lld: killing leftover group %lld",
		    __func__, (long long)rows[i].id, (long long)rows[i].pgid);
		killpg((pid_t)rows[i].pgid, SIGTERM);
	}
	deadline = time_mono_ms() + e->opts.kill_grace;
	while (left > 0) {
		for (i = 0, left = 0; i < n; i++) {
			if (alive[i] && procstat_group_alive(
			    (pid_t)rows[i].pgid))
				left++;
			else
				alive[i] = 0;
		}
		if (left == 0)
			break;
		if (time_mono_ms() >= deadline) {
			for (i = 0; i < n; i++) {
				if (alive[i])
					killpg((pid_t)rows[i].pgid, SIGKILL);
			}
			deadline = time_mono_ms() + e->opts.kill_grace;
		}
		nanosleep(&ts, NULL);
	}
	free(alive);
}

/* The gate options of a row asking whether to run a step again. */
static char *
engine_ask_json(const struct flow_step *fs)
{
	cJSON	*g;
	char	*msg, *out;

	xasprintf(&msg, "step %s was running when the engine stopped; "
	    "approve to run it again, reject to fail it", fs->name);
	g = cJSON_CreateObject();
	cJSON_AddStringToObject(g, "message", msg);
	cJSON_AddArrayToObject(g, "approvers");
	cJSON_AddNumberToObject(g, "quorum", 1);
	cJSON_AddBoolToObject(g, "interrupted", 1);
	out = json_print(g);
	cJSON_Delete(g);
	free(msg);
	return (out);
}

/* An interrupted row follows its step's on_interrupt. */
static void
engine_recover_interrupted(struct engine *e, const struct store_step *row)
{
	const struct flow_step	*fs;
	struct estep		*es;
	struct estep_origin	 o;
	char			*gate;
	const char		*why = "interrupted: the engine stopped while "
				    "it ran";

	if ((es = engine_step_from_row(e, row)) == NULL)
		return;
	fs = &es->wf->flow->steps[es->spec];
	switch (fs->on_interrupt) {
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
		o.status = "waiting";
		o.gate_json = gate;
		engine_step_create(e, es->wf, es->spec, &o);
		free(gate);
		break;
	}
	engine_step_free(es);
}

/* Take over: load, kill leftovers, apply on_interrupt, queue, arm timers. */
int
engine_recover(struct engine *e, char **cause)
{
	struct store_workflow	*wfs;
	struct store_step	*rows, *ready;
	struct estep		*es;
	struct ewf		*wf;
	size_t			 n, nready, i;
	int64_t			 next;

	if (store_workflows_active(e->store, &wfs, &n, cause) != 0)
		return (-1);
	for (i = 0; i < n; i++) {
		if (engine_wf_load(e, &wfs[i], cause) == NULL)
			log_debug("%s: %s", __func__, *cause);
		free(*cause);
		*cause = NULL;
	}
	store_workflows_free(wfs, n);

	if (store_steps_with_status(e->store, "running", &rows, &n,
	    cause) != 0)
		return (-1);
	for (i = 0; i < n; i++) {
		/* A for-each row runs no process: it goes on below. */
		if (rows[i].items > 0) {
			free(rows[i].kind);
			rows[i].kind = xstrdup("gate");
			rows[i].pid = rows[i].pgid = 0;
		}
	}
	engine_recover_kill(e, rows, n);
	for (i = 0; i < n; i++) {
		/*
		 * A sub-workflow step (or item) was not interrupted: its
		 * child run goes on (loaded above) and finishes it.
		 */
		if (rows[i].items == 0 && rows[i].child_id == 0)
			engine_recover_interrupted(e, &rows[i]);
	}

	if (store_steps_with_status(e->store, "ready", &ready, &nready,
	    cause) != 0) {
		store_steps_free(rows, n);
		return (-1);
	}
	for (i = 0; i < nready; i++) {
		if (engine_step_queued(e, ready[i].id) == NULL &&
		    (es = engine_step_from_row(e, &ready[i])) != NULL)
			engine_step_ready(e, es);
	}
	store_steps_free(ready, nready);
	for (i = 0; i < n; i++) {
		if (rows[i].items > 0)
			engine_foreach_resume(e, &rows[i]);
	}
	store_steps_free(rows, n);

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
	if (store_timer_next(e->store, &next) != 0) {
		xasprintf(cause, "%s", store_last_error(e->store));
		return (-1);
	}
	engine_timers_rearm(e, next);
	return (0);
}
