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
 * recover-read.c: what an engine taking over needs of every running
 * workflow besides its row, read for all of them at once.  Loading runs
 * one by one cost three reads each (the ending its handlers run towards,
 * how many rows are active, the passes through each step): a round trip
 * each to PostgreSQL, so a takeover grew with the number of runs.  Here
 * it is two reads whatever their number.  The answers are those of
 * store_workflow_ending, store_workflow_count_active and
 * store_step_visits (transition.c), row for row.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* Each running workflow's ending and count of active rows, by id. */
static const char recover_runs_sql[] =
	"SELECT w.id, CASE w.ending WHEN 'completed' THEN ?1"
	" WHEN 'failed' THEN ?2 WHEN 'cancelled' THEN ?3 ELSE ?4 END,"
	" (SELECT count(*) FROM workflow_steps s WHERE s.workflow_id = w.id"
	" AND s.status IN ('pending', 'ready', 'running', 'waiting',"
	" 'queued'))"
	" FROM workflows w WHERE w.status = 'running' ORDER BY w.id";
/* Passes through each step of every running workflow (first attempts). */
static const char recover_visits_sql[] =
	"SELECT s.workflow_id, s.step_key, count(*) FROM workflow_steps s"
	" WHERE s.workflow_id IN (SELECT id FROM workflows"
	" WHERE status = 'running')"
	" AND s.attempt = 1 AND s.item_of IS NULL"
	" GROUP BY s.workflow_id, s.step_key";

/*
 * Prepare sql (read once an engine start, so not kept), bind the n
 * integers of v to ?1..?n, and give each row to row: 0, or the store's
 * failure, kept for store_last_error.
 */
static int
recover_rows(struct store *s, const char *sql, const char *what,
    const int64_t *v, int n, void (*row)(struct store_stmt *, void *),
    void *arg)
{
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 i, rc;

	if ((rc = store_prepare(s, sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	for (i = 0, rc = STORE_DRV_OK; i < n && rc == STORE_DRV_OK; i++)
		rc = store_bind_int64(st, i + 1, v[i]);
	if (rc == STORE_DRV_OK) {
		while ((rc = store_stmt_step(st)) == STORE_DRV_ROW)
			row(st, arg);
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else {
		rc = store_fail(s, store_errcode(s), what, &cause);
		store_keep_error(s, cause);
	}
	store_release(s, st);
	return (rc);
}

struct recover_runs {
	struct store_recover_run	*list;
	size_t				 n;
};

static void
recover_run_row(struct store_stmt *st, void *arg)
{
	struct recover_runs		*r = arg;
	struct store_recover_run	*run;

	r->list = xreallocarray(r->list, r->n + 1, sizeof *r->list);
	run = &r->list[r->n++];
	run->id = store_col_int64(st, 0);
	run->ending = (enum run_status)store_col_int64(st, 1);
	run->nactive = store_col_int64(st, 2);
}

/*
 * Every running workflow's ending (RUN_RUNNING: none) and active rows,
 * ordered by id as store_workflows_active's list is.  The caller frees
 * *listp.
 */
int
store_recover_runs(struct store *s, struct store_recover_run **listp,
    size_t *np)
{
	static const int64_t	 endings[] = { RUN_COMPLETED, RUN_FAILED,
				     RUN_CANCELLED, RUN_RUNNING };
	struct recover_runs	 r = { NULL, 0 };
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = recover_rows(s, recover_runs_sql, "read running workflows",
	    endings, (int)nitems(endings), recover_run_row, &r)) != 0) {
		free(r.list);
		return (rc);
	}
	*listp = r.list;
	*np = r.n;
	return (0);
}

struct recover_visits {
	void	(*cb)(int64_t, const char *, int64_t, void *);
	void	 *arg;
};

static void
recover_visit_row(struct store_stmt *st, void *arg)
{
	struct recover_visits	*v = arg;

	v->cb(store_col_int64(st, 0), store_col_text(st, 1),
	    store_col_int64(st, 2), v->arg);
}

/*
 * The passes every running workflow has made through each of its steps:
 * cb is called with the workflow, the step key and its count, in no
 * particular order.
 */
int
store_recover_visits(struct store *s,
    void (*cb)(int64_t, const char *, int64_t, void *), void *arg)
{
	struct recover_visits	 v = { cb, arg };

	return (recover_rows(s, recover_visits_sql,
	    "count running workflows' visits", NULL, 0, recover_visit_row,
	    &v));
}
