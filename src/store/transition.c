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
 * transition.c: the engine's state changes on step and workflow rows, and
 * the reads it decides them with (visits, children, how the branches of a
 * fan-out ended).  A row is never reused: a retry, a loop pass or a join
 * is a new row; an old row only moves forward through its statuses.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char step_start_sql[] =
	"UPDATE workflow_steps SET status = 'running', updated_at = ?1,"
	" started_at = ?1, args_json = ?2, pid = ?3, pgid = ?4,"
	" proc_start = ?5, host = ?6, timeout_at = ?7 WHERE id = ?8";
static const char step_proc_sql[] =
	"UPDATE workflow_steps SET pid = ?1, pgid = ?2, proc_start = ?3,"
	" started_at = COALESCE(?4, started_at),"
	" timeout_at = COALESCE(?5, timeout_at) WHERE id = ?6";
static const char step_end_sql[] =
	"UPDATE workflow_steps SET status = ?1, updated_at = ?2,"
	" completed_at = ?2, result_json = ?3, error = ?4, exit_code = ?5,"
	" started_at = COALESCE(started_at, ?2) WHERE id = ?6";
static const char step_status_sql[] =
	"UPDATE workflow_steps SET status = ?1, updated_at = ?2,"
	" ready_at = CASE WHEN ?1 = 'ready' THEN ?2 ELSE ready_at END"
	" WHERE id = ?3";
static const char step_branch_end_sql[] =
	"UPDATE workflow_steps SET branch_end = ? WHERE id = ?";
static const char step_log_bytes_sql[] =
	"UPDATE workflow_steps SET log_bytes = ? WHERE id = ?";
static const char step_progress_sql[] =
	"UPDATE workflow_steps SET progress_pct = ?, progress_text = ?"
	" WHERE id = ?";
/* Passes through each step: first attempts (retries keep the visit). */
static const char step_visits_sql[] =
	"SELECT step_key, count(*) FROM workflow_steps WHERE workflow_id = ?"
	" AND attempt = 1 AND item_of IS NULL GROUP BY step_key";
static const char step_children_sql[] =
	"SELECT count(*) FROM workflow_steps WHERE parent_id = ?";
static const char step_join_sql[] =
	"SELECT id FROM workflow_steps WHERE parent_id = ? AND step_key = ?"
	" LIMIT 1";
static const char steps_status_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps WHERE status = ?"
	" AND " STORE_STEP_ACTIVE " ORDER BY id";
static const char steps_unfinished_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps WHERE"
	" workflow_id = ? AND status IN ('pending', 'ready', 'running',"
	" 'waiting', 'queued') ORDER BY id";
static const char steps_finished_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps WHERE id IN"
	" (SELECT max(id) FROM workflow_steps WHERE workflow_id = ?"
	"  AND status IN ('done', 'skipped', 'failed')"
	"  AND (item_of IS NULL OR items IS NOT NULL)"
	"  GROUP BY step_key)"
	" ORDER BY id";
static const char branch_ends_sql[] =
	"SELECT branch_no, branch_end FROM workflow_steps WHERE fanout_id = ?"
	" AND branch_end IS NOT NULL ORDER BY id";
static const char workflow_end_sql[] =
	"UPDATE workflows SET status = ?1, error = ?2, updated_at = ?3,"
	" ending = NULL,"
	" completed_at = CASE WHEN ?1 = 'cancelled' THEN completed_at"
	"  ELSE ?3 END,"
	" cancelled_at = CASE WHEN ?1 = 'cancelled' THEN ?3"
	"  ELSE cancelled_at END WHERE id = ?4";
static const char workflow_set_ending_sql[] =
	"UPDATE workflows SET ending = ?1, error = ?2, updated_at = ?3"
	" WHERE id = ?4";
static const char workflow_ending_sql[] =
	"SELECT CASE ending WHEN 'completed' THEN ?2 WHEN 'failed' THEN ?3"
	" WHEN 'cancelled' THEN ?4 ELSE ?5 END FROM workflows WHERE id = ?1";
static const char workflow_output_sql[] =
	"UPDATE workflows SET output_json = ? WHERE id = ?";
static const char step_child_sql[] =
	"UPDATE workflow_steps SET child_id = ? WHERE id = ?";
static const char workflow_reopen_sql[] =
	"UPDATE workflows SET status = 'running', error = NULL,"
	" output_json = NULL, ending = NULL,"
	" completed_at = NULL, cancelled_at = NULL, updated_at = ?"
	" WHERE id = ?";
static const char workflow_paused_sql[] =
	"UPDATE workflows SET paused = ?, updated_at = ? WHERE id = ?";
static const char workflow_active_count_sql[] =
	"SELECT count(*) FROM workflow_steps WHERE workflow_id = ?"
	" AND status IN ('pending', 'ready', 'running', 'waiting', 'queued')";

/* Insert a step row the engine made; sets its id. */
int
store_step_add(struct store *s, struct store_step *step, int64_t now)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = store_step_insert(s, step, now, &cause)) != 0) {
		store_keep_error(s, cause);
	}
	return (rc);
}

/* A step's process (or built-in) started: args as resolved, pid, group. */
int
store_step_start(struct store *s, const struct store_step *step,
    int64_t now)
{
	return (store_runf(s, "start step", step_start_sql, "itTTTtTi", now,
	    step->args_json, step->pid, step->pgid, step->proc_start,
	    step->host, step->timeout_at, step->id));
}

/*
 * A step's process: pid, group and start time, to find it after a crash;
 * with started_at (and timeout_at) set, when it really started, for one
 * recorded running ahead of a free job slot.
 */
int
store_step_set_proc(struct store *s, const struct store_step *step)
{
	return (store_runf(s, "record process", step_proc_sql, "TTTTTi",
	    step->pid, step->pgid, step->proc_start, step->started_at,
	    step->timeout_at, step->id));
}

/* A step ended: done, failed, cancelled or skipped, with what it gave. */
int
store_step_end(struct store *s, const struct store_step *step, int64_t now)
{
	return (store_runf(s, "end step", step_end_sql, "tittxi",
	    status_step_name(step->status),
	    now, step->result_json, step->error, step->has_exit_code ?
	    (int64_t)step->exit_code : STORE_NULL, step->id));
}

/* Move a step to another status (pending or waiting to ready...). */
int
store_step_set_status(struct store *s, int64_t id, enum step_status status,
    int64_t now)
{
	return (store_runf(s, "set step status", step_status_sql, "tii",
	    status_step_name(status), now, id));
}

/* Record that this row ended its fan-out branch, and how. */
int
store_step_set_branch_end(struct store *s, int64_t id, const char *end)
{
	return (store_runf(s, "end branch", step_branch_end_sql, "ti", end,
	    id));
}

/* How much output a step has logged so far. */
int
store_step_set_log_bytes(struct store *s, int64_t id, int64_t bytes)
{
	return (store_runf(s, "log size", step_log_bytes_sql, "ii", bytes,
	    id));
}

/* A running step's latest progress: pct (-1: none given) and its line. */
int
store_step_set_progress(struct store *s, int64_t id, int pct,
    const char *text)
{
	return (store_runf(s, "progress", step_progress_sql, "xti",
	    pct < 0 ? STORE_NULL : (int64_t)pct, text, id));
}

/*
 * How many passes a workflow has made through each of its steps: cb is
 * called with each step key and its count.
 */
int
store_step_visits(struct store *s, int64_t wf,
    void (*cb)(const char *, int64_t, void *), void *arg)
{
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 rc;

	if ((rc = store_stmt(s, step_visits_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (store_bind_int64(st, 1, wf) != STORE_DRV_OK)
		rc = STORE_DRV_ERROR;
	while (rc == 0 && (rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		cb(store_col_text(st, 0),
		    store_col_int64(st, 1), arg);
		rc = 0;
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else if (rc != 0) {
		rc = store_fail(s, store_errcode(s), "count visits",
		    &cause);
		store_keep_error(s, cause);
	}
	store_release(s, st);
	return (rc);
}

/* How many rows a row led to (0: nothing came after it). */
int
store_step_children(struct store *s, int64_t id, int64_t *n)
{
	return (store_int64f(s, "count children", n, step_children_sql, "i",
	    id));
}

/* The join row a fan-out row already has for key, or 0. */
int
store_step_join_exists(struct store *s, int64_t fanout, const char *key,
    int64_t *id)
{
	return (store_int64f(s, "find join", id, step_join_sql, "it", fanout,
	    key));
}

/* Read steps with a kept statement bound from fmt. */
static int
store_steps_query(struct store *s, const char *sql, const char *what,
    struct store_step **listp, size_t *np, char **cause, const char *fmt,
    ...)
{
	struct store_stmt	*st;
	va_list			 ap;
	int			 rc;

	if ((rc = store_stmt(s, sql, &st, cause)) != 0)
		return (rc);
	va_start(ap, fmt);
	rc = store_bindv(st, fmt, ap);
	va_end(ap);
	if (rc != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), what, cause);
		store_release(s, st);
		return (rc);
	}
	return (store_rows(s, st, &store_step_rows, (void **)listp, np,
	    cause));
}

/* Every step row in one status, oldest first (start-up and recovery). */
int
store_steps_with_status(struct store *s, enum step_status status,
    struct store_step **listp, size_t *np, char **cause)
{
	return (store_steps_query(s, steps_status_sql, "list steps", listp,
	    np, cause, "t", status_step_name(status)));
}

/* A workflow's rows that have not ended. */
int
store_steps_unfinished(struct store *s, int64_t wf, struct store_step **listp,
    size_t *np, char **cause)
{
	return (store_steps_query(s, steps_unfinished_sql, "list steps",
	    listp, np, cause, "i", wf));
}

/* The latest row of each step of a workflow that ended done, skipped or
 * failed (what steps.* refers to), in order. */
int
store_steps_finished(struct store *s, int64_t wf, struct store_step **listp,
    size_t *np, char **cause)
{
	return (store_steps_query(s, steps_finished_sql, "list steps",
	    listp, np, cause, "i", wf));
}

/* Fill a branch end from a row of branch_ends_sql. */
static int
store_branch_end_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_branch_end	*b = p;
	const char		*end;

	b->branch_no = store_col_int(st, 0);
	end = store_col_text(st, 1);
	strlcpy(b->end, end != NULL ? end : "",
	    sizeof b->end);
	(void)cause;
	return (0);
}

/* Nothing to free in a branch end array but the array. */
static void
store_branch_ends_free(void *list, size_t n)
{
	(void)n;
	free(list);
}

static const struct store_rows store_branch_end_rows = {
	.what = "list branch ends",
	.size = sizeof (struct store_branch_end),
	.fill = store_branch_end_row,
	.free = store_branch_ends_free,
};

/* How the branches of a fan-out row have ended so far. */
int
store_branch_ends(struct store *s, int64_t fanout,
    struct store_branch_end **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if ((rc = store_stmt(s, branch_ends_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, fanout) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "branch ends", cause);
		store_release(s, st);
		return (rc);
	}
	return (store_rows(s, st, &store_branch_end_rows, (void **)listp, np,
	    cause));
}

/* Insert a workflow the engine starts; sets its id. */
int
store_workflow_add(struct store *s, struct store_workflow *wf, int64_t now)
{
	char	*cause = NULL;
	int	 rc;

	rc = store_workflow_insert(s, wf, wf->created_by, now, &cause);
	if (rc != 0) {
		store_keep_error(s, cause);
	}
	return (rc);
}

/* A workflow ended: completed, failed or cancelled, and why. */
int
store_workflow_end(struct store *s, int64_t id, enum run_status status,
    const char *error, int64_t now)
{
	return (store_runf(s, "end workflow", workflow_end_sql, "ttii",
	    status_run_name(status),
	    error, now, id));
}

/*
 * A running workflow's handlers run: the status it ends with after them,
 * and why it fails or was cancelled (NULL: it did not), shown meanwhile.
 */
int
store_workflow_set_ending(struct store *s, int64_t id, enum run_status status,
    const char *error, int64_t now)
{
	return (store_runf(s, "set ending", workflow_set_ending_sql, "ttii",
	    status_run_name(status), error, now, id));
}

/* The status a workflow ends with after its handlers; RUN_RUNNING: none. */
int
store_workflow_ending(struct store *s, int64_t id, enum run_status *status)
{
	int64_t	 v;
	int	 rc;

	rc = store_int64f(s, "workflow ending", &v, workflow_ending_sql,
	    "idddd", id, RUN_COMPLETED, RUN_FAILED, RUN_CANCELLED,
	    RUN_RUNNING);
	*status = (enum run_status)v;
	return (rc);
}

/* A completed workflow's output, as its flow's "output" resolved. */
int
store_workflow_set_output(struct store *s, int64_t id, const char *json)
{
	return (store_runf(s, "set output", workflow_output_sql, "ti", json,
	    id));
}

/* A sub-workflow step's child run. */
int
store_step_set_child(struct store *s, int64_t step, int64_t child)
{
	return (store_runf(s, "set child", step_child_sql, "ii", child,
	    step));
}

/* A failed or cancelled workflow runs again (operator retry or skip). */
int
store_workflow_reopen(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "reopen workflow", workflow_reopen_sql, "ii",
	    now, id));
}

/* Hold or release a workflow. */
int
store_workflow_set_paused(struct store *s, int64_t id, int paused,
    int64_t now)
{
	return (store_runf(s, "pause workflow", workflow_paused_sql, "dii",
	    paused, now, id));
}

/* How many of a workflow's rows have not ended. */
int
store_workflow_count_active(struct store *s, int64_t id, int64_t *n)
{
	return (store_int64f(s, "count active steps", n,
	    workflow_active_count_sql, "i", id));
}
