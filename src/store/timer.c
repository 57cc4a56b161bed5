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
 * timer.c: stored timers.  A retry's backoff and a gate's timeout are rows
 * here, due at a wall-clock time, so they survive the engine; the engine
 * keeps one loop timer for the earliest and takes what is due.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char timer_add_sql[] =
	"INSERT INTO timers (due_at, kind, workflow_id, step_id)"
	" VALUES (?, ?, ?, ?)";
static const char timers_due_sql[] =
	"SELECT id, due_at, kind, workflow_id, step_id FROM timers"
	" WHERE due_at <= ? ORDER BY due_at, id LIMIT 1000";
static const char timer_next_sql[] =
	"SELECT min(due_at) FROM timers";
static const char timer_count_sql[] =
	"SELECT count(*) FROM timers WHERE kind = ?";
static const char timer_del_sql[] =
	"DELETE FROM timers WHERE id = ?";
static const char timers_del_step_sql[] =
	"DELETE FROM timers WHERE step_id = ?";

/* Store a timer. */
int
store_timer_add(struct store *s, int64_t due, const char *kind, int64_t wf,
    int64_t step)
{
	return (store_runf(s, "add timer", timer_add_sql, "itTT", due, kind,
	    wf, step));
}

/* Fill a timer from a row of timers_due_sql. */
static int
store_timer_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_timer	*t = p;

	t->id = store_col_int64(st, 0);
	t->due_at = store_col_int64(st, 1);
	t->kind = store_column_text(st, 2);
	t->workflow_id = store_col_int64(st, 3);
	t->step_id = store_col_int64(st, 4);
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read array. */
static void
store_timer_rows_free(void *list, size_t n)
{
	store_timers_free(list, n);
}

static const struct store_rows store_timer_rows = {
	.what = "list timers",
	.size = sizeof (struct store_timer),
	.fill = store_timer_row,
	.free = store_timer_rows_free,
};

/* Timers due at or before now, earliest first (at most 1000 a call). */
int
store_timers_due(struct store *s, int64_t now, struct store_timer **listp,
    size_t *np, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if ((rc = store_stmt(s, timers_due_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, now) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "due timers", cause);
		store_release(s, st);
		return (rc);
	}
	return (store_rows(s, st, &store_timer_rows, (void **)listp, np,
	    cause));
}

/* When the earliest timer is due, 0 when there is none. */
/* How many stored timers of a kind there are. */
int
store_timer_count(struct store *s, const char *kind, int64_t *n)
{
	return (store_int64f(s, "count timers", n, timer_count_sql, "t",
	    kind));
}

int
store_timer_next(struct store *s, int64_t *due)
{
	return (store_int64f(s, "next timer", due, timer_next_sql, ""));
}

/* A timer fired or is no longer wanted. */
int
store_timer_del(struct store *s, int64_t id)
{
	return (store_runf(s, "delete timer", timer_del_sql, "i", id));
}

/* Drop every timer of a step (it was cancelled or decided). */
int
store_timers_del_step(struct store *s, int64_t step)
{
	return (store_runf(s, "delete timers", timers_del_step_sql, "i",
	    step));
}

/* Free a timer array. */
void
store_timers_free(struct store_timer *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(list[i].kind);
	free(list);
}
