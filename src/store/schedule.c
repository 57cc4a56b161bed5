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
 * schedule.c: time in the tables.  Recurring schedules (one live row per
 * name, soft delete), the history a schedule shows (its runs and the
 * firings it skipped), the workflows waiting for their start time, the
 * late mark of a workflow past its SLA, and moving stored delays when
 * the wall clock jumps.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The columns store_schedule_row reads, in order. */
#define SCHEDULE_COLUMNS \
	"c.id, c.name, c.cron, c.template_name, c.input_json, c.overlap," \
	" c.paused, c.created_by, c.created_at, c.updated_at," \
	" c.last_fire_at, c.last_run_id, c.next_fire_at, c.deleted_at," \
	" (SELECT w.status FROM workflows w WHERE w.id = c.last_run_id)," \
	" c.tz"

static const char schedule_get_sql[] =
	"SELECT " SCHEDULE_COLUMNS " FROM schedules c"
	" WHERE c.name = ? AND c.deleted_at IS NULL";
static const char schedule_list_sql[] =
	"SELECT " SCHEDULE_COLUMNS " FROM schedules c"
	" WHERE c.deleted_at IS NULL ORDER BY c.name";
static const char schedules_due_sql[] =
	"SELECT " SCHEDULE_COLUMNS " FROM schedules c"
	" WHERE c.deleted_at IS NULL AND c.paused = 0"
	" AND c.next_fire_at <= ? ORDER BY c.next_fire_at, c.id";
static const char schedule_next_sql[] =
	"SELECT min(next_fire_at) FROM schedules"
	" WHERE deleted_at IS NULL AND paused = 0";
static const char schedule_exists_sql[] =
	"SELECT count(*) FROM schedules WHERE name = ? AND deleted_at IS NULL";
static const char schedule_insert_sql[] =
	"INSERT INTO schedules (name, cron, template_name, input_json,"
	" overlap, paused, created_by, created_at, updated_at, next_fire_at,"
	" tz) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)";
static const char schedule_paused_sql[] =
	"UPDATE schedules SET paused = ?, next_fire_at = ?, updated_at = ?"
	" WHERE id = ?";
static const char schedule_remove_sql[] =
	"UPDATE schedules SET deleted_at = ?1, updated_at = ?1,"
	" next_fire_at = NULL WHERE id = ?2";
static const char schedule_fired_sql[] =
	"UPDATE schedules SET"
	" last_fire_at = COALESCE(?1, last_fire_at),"
	" last_run_id = COALESCE(?2, last_run_id),"
	" next_fire_at = ?3, updated_at = ?4 WHERE id = ?5";
static const char schedule_ran_sql[] =
	"UPDATE schedules SET last_run_id = ?, updated_at = ? WHERE id = ?";
static const char schedule_active_sql[] =
	"SELECT id FROM workflows WHERE schedule_id = ?"
	" AND status IN ('scheduled', 'running') ORDER BY id";
static const char schedule_runs_sql[] =
	"SELECT id, status, fire_at, created_at, completed_at, cancelled_at"
	" FROM workflows WHERE schedule_id = ? ORDER BY id DESC LIMIT ?";
static const char schedule_skips_sql[] =
	"SELECT at, detail_json FROM audit WHERE action = 'schedule-skip'"
	" AND json_valid(detail_json)"
	" AND json_extract(detail_json, '$.schedule_id') = ?"
	" ORDER BY id DESC LIMIT ?";

/* The timed side of workflows. */
static const char scheduled_due_sql[] =
	"SELECT id FROM workflows WHERE status = 'scheduled' AND start_at <= ?"
	" ORDER BY start_at, id LIMIT 1000";
static const char scheduled_next_sql[] =
	"SELECT min(start_at) FROM workflows WHERE status = 'scheduled'";
static const char workflow_begin_sql[] =
	"UPDATE workflows SET status = 'running', started_at = ?1,"
	" updated_at = ?1 WHERE id = ?2 AND status = 'scheduled'";
static const char workflow_late_sql[] =
	"UPDATE workflows SET late_at = ?1, updated_at = ?1"
	" WHERE id = ?2 AND late_at IS NULL";
static const char timers_shift_sql[] =
	"UPDATE timers SET due_at = due_at + ?";

static int	 store_schedule_row(struct store_stmt *, void *, char **);
static void	 store_schedule_clear(struct store_schedule *);
static int	 store_schedule_read(struct store *, const char *,
		     const char *, struct store_schedule **, size_t *, char **,
		     const char *, ...);

/* Fill a schedule from a row of SCHEDULE_COLUMNS. */
static int
store_schedule_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_schedule	*c = p;

	memset(c, 0, sizeof *c);
	c->id = store_col_int64(st, 0);
	c->name = store_column_text(st, 1);
	c->cron = store_column_text(st, 2);
	c->template_name = store_column_text(st, 3);
	c->input_json = store_column_text(st, 4);
	c->overlap = store_column_text(st, 5);
	c->paused = store_col_int(st, 6);
	c->created_by = store_column_text(st, 7);
	c->created_at = store_col_int64(st, 8);
	c->updated_at = store_col_int64(st, 9);
	c->last_fire_at = store_col_int64(st, 10);
	c->last_run_id = store_col_int64(st, 11);
	c->next_fire_at = store_col_int64(st, 12);
	c->deleted_at = store_col_int64(st, 13);
	c->tz = store_column_text(st, 15);
	if (store_col_null(st, 14))
		return (0);
	c->has_last_run = 1;
	return (store_column_run_status(st, 14, c->last_run_id,
	    &c->last_run_status, cause));
}

/* store_rows' way to free a partly read array. */
static void
store_schedule_rows_free(void *list, size_t n)
{
	store_schedules_free(list, n);
}

static const struct store_rows store_schedule_rows = {
	.what = "list schedules",
	.size = sizeof (struct store_schedule),
	.fill = store_schedule_row,
	.free = store_schedule_rows_free
};

/* Read schedules with a statement bound from fmt. */
static int
store_schedule_read(struct store *s, const char *sql, const char *what,
    struct store_schedule **listp, size_t *np, char **cause,
    const char *fmt, ...)
{
	struct store_stmt	*st;
	va_list			 ap;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	va_start(ap, fmt);
	rc = store_bindv(st, fmt, ap);
	va_end(ap);
	if (rc != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), what, cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &store_schedule_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* The live schedule of a name. */
int
store_schedule_get(struct store *s, const char *name,
    struct store_schedule **cp, char **cause)
{
	struct store_schedule	*list;
	size_t			 n;
	int			 rc;

	*cp = NULL;
	rc = store_schedule_read(s, schedule_get_sql, "get schedule", &list,
	    &n, cause, "t", name);
	if (rc != 0)
		return (rc);
	if (n == 0) {
		free(list);
		xasprintf(cause, "no schedule \"%s\"", name);
		return (STORE_NOTFOUND);
	}
	*cp = list;
	return (0);
}

/* Every live schedule, by name. */
int
store_schedule_list(struct store *s, struct store_schedule **listp,
    size_t *np, char **cause)
{
	return (store_schedule_read(s, schedule_list_sql, "list schedules",
	    listp, np, cause, ""));
}

/* Live, running schedules whose next instant is at or before now. */
int
store_schedules_due(struct store *s, int64_t now,
    struct store_schedule **listp, size_t *np, char **cause)
{
	return (store_schedule_read(s, schedules_due_sql, "due schedules",
	    listp, np, cause, "i", now));
}

/* The earliest next instant of a live, running schedule; 0 none. */
int
store_schedule_next(struct store *s, int64_t *next)
{
	return (store_int64f(s, "next schedule", next, schedule_next_sql,
	    ""));
}

/*
 * Add a schedule (engine turn).  STORE_CONFLICT when a live one has the
 * name.  Sets c->id.
 */
int
store_schedule_add(struct store *s, struct store_schedule *c, int64_t now)
{
	int64_t	 n;
	int	 rc;

	rc = store_int64f(s, "find schedule", &n, schedule_exists_sql, "t",
	    c->name);
	if (rc != 0)
		return (rc);
	if (n > 0)
		return (STORE_CONFLICT);
	rc = store_runf(s, "add schedule", schedule_insert_sql, "tttttdtiTt",
	    c->name, c->cron, c->template_name, c->input_json, c->overlap,
	    c->paused != 0, c->created_by, now, c->next_fire_at, c->tz);
	if (rc != 0)
		return (rc);
	c->id = s->drv->last_insert_id(s->conn);
	c->created_at = c->updated_at = now;
	return (0);
}

/* Pause or resume a schedule, with its next instant (0: none). */
int
store_schedule_set_paused(struct store *s, int64_t id, int paused,
    int64_t next, int64_t now)
{
	return (store_runf(s, "pause schedule", schedule_paused_sql, "dTii",
	    paused != 0, next, now, id));
}

/* Remove a schedule: soft, so its runs and audit rows still name it. */
int
store_schedule_remove(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "remove schedule", schedule_remove_sql, "ii",
	    now, id));
}

/*
 * Consume a schedule's instants up to next: fire_at is the instant that
 * ran (0: none ran), run its workflow (0: none).
 */
int
store_schedule_fired(struct store *s, int64_t id, int64_t fire_at,
    int64_t run, int64_t next, int64_t now)
{
	return (store_runf(s, "fire schedule", schedule_fired_sql, "TTTii",
	    fire_at, run, next, now, id));
}

/* A schedule was fired by hand: only its newest run changes. */
int
store_schedule_ran(struct store *s, int64_t id, int64_t run, int64_t now)
{
	return (store_runf(s, "fire schedule", schedule_ran_sql, "iii", run,
	    now, id));
}

/* The ids a query of one int64 parameter returns, in its order. */
static int
store_schedule_ids(struct store *s, const char *sql, int64_t arg,
    const char *what, int64_t **idsp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	int64_t			*ids = NULL;
	size_t			 n = 0;
	int			 rc;

	*idsp = NULL;
	*np = 0;
	if ((rc = store_stmt(s, sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, arg) != STORE_DRV_OK)
		rc = STORE_DRV_ERROR;
	while (rc == 0 && (rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = store_col_int64(st, 0);
		rc = 0;
	}
	if (rc != 0 && rc != STORE_DRV_DONE) {
		rc = store_fail(s, store_errcode(s), what, cause);
		free(ids);
		store_release(s, st);
		return (rc);
	}
	store_release(s, st);
	*idsp = ids;
	*np = n;
	return (0);
}

/* The ids of a schedule's runs that have not ended, oldest first. */
int
store_schedule_active(struct store *s, int64_t id, int64_t **idsp,
    size_t *np, char **cause)
{
	return (store_schedule_ids(s, schedule_active_sql, id, "schedule runs",
	    idsp, np, cause));
}

/* Fill one history entry from a row of schedule_runs_sql. */
static int
store_schedule_run_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_schedule_run	*r = p;

	r->workflow_id = store_col_int64(st, 0);
	r->fire_at = store_col_int64(st, 2);
	r->created_at = store_col_int64(st, 3);
	r->ended_at = store_col_int64(st, 4);
	if (r->ended_at == 0)
		r->ended_at = store_col_int64(st, 5);
	return (store_column_run_status(st, 1, r->workflow_id, &r->status,
	    cause));
}

/* Fill one history entry from a row of schedule_skips_sql. */
static int
store_schedule_skip_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_schedule_run	*r = p;

	r->created_at = store_col_int64(st, 0);
	r->detail_json = store_column_text(st, 1);
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read history. */
static void
store_schedule_runs_free_rows(void *list, size_t n)
{
	store_schedule_runs_free(list, n);
}

/*
 * A schedule's history, newest first, at most limit of each: the runs it
 * started (skips NULL) or the firings it skipped (runs NULL).
 */
int
store_schedule_history(struct store *s, int64_t id, int64_t limit,
    int skips, struct store_schedule_run **listp, size_t *np, char **cause)
{
	struct store_rows	 r;
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	memset(&r, 0, sizeof r);
	r.what = skips ? "schedule skips" : "schedule runs";
	r.size = sizeof (struct store_schedule_run);
	r.fill = skips ? store_schedule_skip_row : store_schedule_run_row;
	r.free = store_schedule_runs_free_rows;
	rc = store_prepare(s, skips ? schedule_skips_sql : schedule_runs_sql,
	    &st, cause);
	if (rc != 0)
		return (rc);
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK ||
	    store_bind_int64(st, 2, limit > 0 ? limit : 20) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), r.what, cause);
		store_stmt_finalize(st);
		return (rc);
	}
	rc = store_rows(s, st, &r, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Free a history array. */
void
store_schedule_runs_free(struct store_schedule_run *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].detail_json);
	}
	free(list);
}

/* Free the strings a schedule owns, leaving the struct. */
static void
store_schedule_clear(struct store_schedule *c)
{
	free(c->name);
	free(c->cron);
	free(c->template_name);
	free(c->input_json);
	free(c->overlap);
	free(c->tz);
	free(c->created_by);
	memset(c, 0, sizeof *c);
}

/* Free one schedule from store_schedule_get. */
void
store_schedule_free(struct store_schedule *c)
{
	if (c == NULL)
		return;
	store_schedule_clear(c);
	free(c);
}

/* Free an array of schedules. */
void
store_schedules_free(struct store_schedule *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		store_schedule_clear(&list[i]);
	free(list);
}

/* The ids of workflows whose start time has come, earliest first. */
int
store_workflows_scheduled_due(struct store *s, int64_t now, int64_t **idsp,
    size_t *np, char **cause)
{
	return (store_schedule_ids(s, scheduled_due_sql, now,
	    "scheduled workflows", idsp, np, cause));
}

/* The earliest start time of a scheduled workflow; 0 none. */
int
store_workflow_scheduled_next(struct store *s, int64_t *next)
{
	return (store_int64f(s, "next scheduled", next, scheduled_next_sql,
	    ""));
}

/* A scheduled workflow's time came: it is running from now. */
int
store_workflow_begin(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "begin workflow", workflow_begin_sql, "ii", now,
	    id));
}

/* Mark a workflow late (once: a mark already made stays). */
int
store_workflow_set_late(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "mark late", workflow_late_sql, "ii", now, id));
}

/*
 * The wall clock jumped by delta ms: every stored delay moves with it, so
 * it still ends as long after it began as it was meant to.
 */
int
store_timers_shift(struct store *s, int64_t delta)
{
	return (store_runf(s, "shift timers", timers_shift_sql, "i", delta));
}
