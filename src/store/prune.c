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
 * prune.c: removing old finished runs with their steps, logs, approvals
 * and timers, a batch at a time.  A run goes only with its whole family
 * (a top-level run and its child runs, at any depth), and only when
 * every run in it has finished; the audit trail, the inbox and the
 * templates are never touched, so "audit --verify" still holds and the
 * audit rows keep naming the runs they were about.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * The batch: up to ?2 top-level runs after id ?3 that finished before ?1,
 * with every run of their family finished and none of them one the
 * engine still holds (temp.prune_keep).  fam pairs each root with every
 * run under it.  The roots are read in id order from ?3 on ("+status"
 * keeps the planner off workflows_status, which would read and sort every
 * finished run after ?3 for each batch: a whole prune quadratic).
 */
#define PRUNE_FAMILY \
	"WITH RECURSIVE roots(id) AS (" \
	"  SELECT id FROM workflows WHERE parent_id IS NULL AND id > ?3" \
	"  AND +status IN ('completed', 'failed', 'cancelled')" \
	"  AND coalesce(completed_at, cancelled_at, updated_at) < ?1" \
	"  ORDER BY id LIMIT ?2)," \
	" fam(root, id) AS (SELECT id, id FROM roots" \
	"  UNION ALL SELECT fam.root, w.id FROM workflows w" \
	"  JOIN fam ON w.parent_id = fam.id)," \
	" ok(root) AS (SELECT fam.root FROM fam JOIN workflows w" \
	"  ON w.id = fam.id GROUP BY fam.root HAVING" \
	"  sum(w.status NOT IN ('completed', 'failed', 'cancelled')) = 0" \
	"  AND sum(w.id IN (SELECT id FROM temp.prune_keep)) = 0) "

static const char prune_setup_sql[] =
	"CREATE TEMP TABLE IF NOT EXISTS prune_keep (id INTEGER PRIMARY KEY);"
	"CREATE TEMP TABLE IF NOT EXISTS prune_ids (id INTEGER PRIMARY KEY,"
	" root INTEGER NOT NULL);"
	"DELETE FROM temp.prune_keep;"
	"DELETE FROM temp.prune_ids;";
static const char prune_keep_sql[] =
	"INSERT OR IGNORE INTO temp.prune_keep (id) VALUES (?)";
static const char prune_select_sql[] =
	"INSERT INTO temp.prune_ids (id, root) " PRUNE_FAMILY
	"SELECT fam.id, fam.root FROM fam WHERE fam.root IN"
	" (SELECT root FROM ok)";
static const char prune_last_sql[] =
	"SELECT max(id) FROM (SELECT id FROM workflows WHERE parent_id IS NULL"
	" AND id > ?3 AND +status IN ('completed', 'failed', 'cancelled')"
	" AND coalesce(completed_at, cancelled_at, updated_at) < ?1"
	" ORDER BY id LIMIT ?2)";
static const char prune_count_sql[] =
	"SELECT (SELECT count(*) FROM temp.prune_ids),"
	" (SELECT count(*) FROM temp.prune_ids WHERE id = root),"
	" (SELECT count(*) FROM workflow_steps WHERE workflow_id IN"
	"  (SELECT id FROM temp.prune_ids)),"
	" (SELECT count(*) FROM step_logs WHERE step_id IN (SELECT s.id FROM"
	"  workflow_steps s WHERE s.workflow_id IN"
	"  (SELECT id FROM temp.prune_ids)))";
/*
 * Steps and runs point at each other (a sub-workflow step at its child,
 * the child at that step): the foreign keys are checked at commit, once
 * both are gone.
 */
static const char prune_delete_sql[] =
	"PRAGMA defer_foreign_keys = ON;"
	"DELETE FROM step_logs WHERE step_id IN (SELECT s.id FROM"
	" workflow_steps s WHERE s.workflow_id IN"
	" (SELECT id FROM temp.prune_ids));"
	"DELETE FROM approvals WHERE step_id IN (SELECT s.id FROM"
	" workflow_steps s WHERE s.workflow_id IN"
	" (SELECT id FROM temp.prune_ids));"
	"DELETE FROM timers WHERE workflow_id IN"
	" (SELECT id FROM temp.prune_ids);"
	"UPDATE schedules SET last_run_id = NULL WHERE last_run_id IN"
	" (SELECT id FROM temp.prune_ids);"
	"DELETE FROM workflow_steps WHERE workflow_id IN"
	" (SELECT id FROM temp.prune_ids);"
	"DELETE FROM workflows WHERE id IN (SELECT id FROM temp.prune_ids);";
/* Grouped by the root's own key, so its other columns may be read. */
static const char prune_preview_sql[] =
	"WITH RECURSIVE roots(id) AS ("
	"  SELECT id FROM workflows WHERE parent_id IS NULL"
	"  AND status IN ('completed', 'failed', 'cancelled')"
	"  AND coalesce(completed_at, cancelled_at, updated_at) < ?1),"
	" fam(root, id) AS (SELECT id, id FROM roots"
	"  UNION ALL SELECT fam.root, w.id FROM workflows w"
	"  JOIN fam ON w.parent_id = fam.id)"
	" SELECT r.id, r.name, r.status,"
	"  coalesce(r.completed_at, r.cancelled_at, r.updated_at),"
	"  count(*), (SELECT count(*) FROM workflow_steps s WHERE"
	"  s.workflow_id IN (SELECT f2.id FROM fam f2 WHERE f2.root = r.id))"
	" FROM fam JOIN workflows w ON w.id = fam.id"
	" JOIN workflows r ON r.id = fam.root GROUP BY r.id HAVING"
	" sum(w.status NOT IN ('completed', 'failed', 'cancelled')) = 0"
	" ORDER BY r.id";

static int	store_prune_setup(struct store *, const int64_t *, size_t,
		    char **);
static int	store_prune_bound(struct store *, const char *,
		    const struct store_prune_opts *, struct store_stmt **,
		    char **);
static int	store_prune_row(struct store_stmt *, void *, char **);
static void	store_prune_rows_free(void *, size_t);

/* Empty the temporary tables and note the runs to keep. */
static int
store_prune_setup(struct store *s, const int64_t *keep, size_t nkeep,
    char **cause)
{
	struct store_stmt	*st;
	size_t			 i;
	int			 rc;

	if ((rc = store_exec(s, prune_setup_sql, cause)) != 0)
		return (rc);
	if ((rc = store_prepare(s, prune_keep_sql, &st, cause)) != 0)
		return (rc);
	for (i = 0; i < nkeep && rc == 0; i++) {
		store_bind_int64(st, 1, keep[i]);
		rc = store_step_done(s, st, "keep runs", cause);
	}
	store_stmt_finalize(st);
	return (rc);
}

/* Prepare a batch statement and bind before, limit and after. */
static int
store_prune_bound(struct store *s, const char *sql,
    const struct store_prune_opts *o, struct store_stmt **stp, char **cause)
{
	int	 rc;

	if ((rc = store_prepare(s, sql, stp, cause)) != 0)
		return (rc);
	store_bind_int64(*stp, 1, o->before);
	store_bind_int64(*stp, 2, o->limit);
	store_bind_int64(*stp, 3, o->after);
	return (0);
}

/*
 * Remove one batch, in the caller's transaction: the families of up to
 * o->limit top-level runs after o->after.  out gets the counts and next,
 * where the next batch starts (0: nothing older is left to look at).
 */
int
store_prune(struct store *s, const struct store_prune_opts *o,
    struct store_prune_result *out, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(out, 0, sizeof *out);
	if ((rc = store_prune_setup(s, o->keep, o->nkeep, cause)) != 0)
		return (rc);
	if ((rc = store_prune_bound(s, prune_last_sql, o, &st, cause)) != 0)
		return (rc);
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW)
		out->next = store_col_int64(st, 0);
	store_stmt_finalize(st);
	if (rc != STORE_DRV_ROW && rc != STORE_DRV_DONE)
		return (store_fail(s, rc, "prune", cause));
	if (out->next == 0)
		return (0);
	if ((rc = store_prune_bound(s, prune_select_sql, o, &st, cause)) != 0)
		return (rc);
	rc = store_step_done(s, st, "prune", cause);
	store_stmt_finalize(st);
	if (rc != 0)
		return (rc);
	if ((rc = store_prepare(s, prune_count_sql, &st, cause)) != 0)
		return (rc);
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		out->runs = store_col_int64(st, 0);
		out->roots = store_col_int64(st, 1);
		out->steps = store_col_int64(st, 2);
		out->logs = store_col_int64(st, 3);
		rc = 0;
	} else
		rc = store_fail(s, rc, "prune", cause);
	store_stmt_finalize(st);
	if (rc != 0 || out->runs == 0)
		return (rc);
	return (store_exec(s, prune_delete_sql, cause));
}

/* One row of the preview. */
static int
store_prune_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_prune_run	*r = p;

	r->id = store_col_int64(st, 0);
	r->name = store_column_text(st, 1);
	r->finished_at = store_col_int64(st, 3);
	r->runs = store_col_int64(st, 4);
	r->steps = store_col_int64(st, 5);
	return (store_column_run_status(st, 2, r->id, &r->status, cause));
}

/* store_rows' free hook. */
static void
store_prune_rows_free(void *list, size_t n)
{
	store_prune_runs_free(list, n);
}

static const struct store_rows store_prune_rows = {
	.what = "list runs to prune",
	.size = sizeof (struct store_prune_run),
	.fill = store_prune_row,
	.free = store_prune_rows_free,
};

/* What a prune before that time would remove, oldest first (reads only). */
int
store_prune_preview(struct store *s, int64_t before,
    struct store_prune_run **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	if ((rc = store_prepare(s, prune_preview_sql, &st, cause)) != 0)
		return (rc);
	store_bind_int64(st, 1, before);
	return (store_rows(s, st, &store_prune_rows, (void **)listp, np,
	    cause));
}

/* Free a preview. */
void
store_prune_runs_free(struct store_prune_run *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].name);
	}
	free(list);
}
