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
 * recover-foreach.c: what an engine taking over needs of every for-each
 * and DAG run left in flight, read for all of them at once.  Resuming
 * them one by one cost about six reads per for-each (its row, its
 * items' failures, its gates, the items in flight, the first not
 * ended) and one per DAG run: a round trip each to PostgreSQL, so a
 * takeover grew with the runs in flight.  Here it is three reads
 * whatever their number.  The answers are those of store_items_each (as
 * the engine counts failures from it), store_item_gates,
 * store_items_inflight, store_items_first (store/foreach.c) and
 * store_step_list (for a DAG run's decisions), row for row.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The first row of every for-each whose current row is running. */
#define RECOVER_ROOTS \
	"SELECT DISTINCT COALESCE(f.item_of, f.id) AS root" \
	" FROM workflow_steps f WHERE f.status = 'running' AND f.items > 0"

/*
 * Per for-each (by its first row): its current row (the newest that took
 * it over, as foreach_current_sql); items whose latest row failed or was
 * cancelled; items in flight (as items_inflight_sql: every row counts,
 * an older one is never in flight); the lowest index not ended, or -1.
 */
static const char recover_foreachs_sql[] =
	"SELECT r.root,"
	" (SELECT max(c.id) FROM workflow_steps c WHERE c.id = r.root"
	"  OR (c.item_of = r.root AND c.items IS NOT NULL)),"
	" (SELECT count(*) FROM workflow_steps s WHERE s.item_of = r.root"
	"  AND s.item_index IS NOT NULL"
	"  AND s.status IN ('failed', 'cancelled')"
	"  AND NOT EXISTS (SELECT 1 FROM workflow_steps l"
	"   WHERE l.item_of = r.root AND l.item_index = s.item_index"
	"   AND l.id > s.id)),"
	" (SELECT count(*) FROM workflow_steps s WHERE s.item_of = r.root"
	"  AND s.status IN ('ready', 'running', 'waiting')"
	"  AND s.item_index IS NOT NULL)"
	" + (SELECT count(*) FROM timers t CROSS JOIN workflow_steps s"
	"  WHERE s.id = t.step_id AND s.item_of = r.root"
	"  AND s.status = 'pending' AND s.item_index IS NOT NULL),"
	" COALESCE((SELECT min(s.item_index) FROM workflow_steps s"
	"  WHERE s.item_of = r.root"
	"  AND s.status IN ('pending', 'ready', 'running', 'waiting')), -1)"
	" FROM (" RECOVER_ROOTS ") r ORDER BY r.root";
/* The gates every running for-each row asked, by row, oldest first. */
static const char recover_gates_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE item_of IN (SELECT id FROM workflow_steps"
	"  WHERE status = 'running' AND items > 0)"
	" AND item_index IS NULL AND items IS NULL"
	" ORDER BY item_of, id";
/*
 * Every running workflow's rows a DAG decision reads: all but a
 * for-each's items and gates (a for-each row of none counts as one).
 */
static const char recover_dag_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE workflow_id IN (SELECT id FROM workflows"
	"  WHERE status = 'running')"
	" AND item_index IS NULL AND (item_of IS NULL OR items <> 0)"
	" ORDER BY workflow_id, id";

/*
 * Every for-each in flight, ordered by its first row.  The caller frees
 * *listp.
 */
int
store_recover_foreachs(struct store *s, struct store_recover_foreach **listp,
    size_t *np)
{
	struct store_recover_foreach	*list = NULL, *fe;
	struct store_stmt		*st;
	char				*cause = NULL;
	size_t				 n = 0;
	int				 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, recover_foreachs_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		list = xreallocarray(list, n + 1, sizeof *list);
		fe = &list[n++];
		fe->root = store_col_int64(st, 0);
		fe->current = store_col_int64(st, 1);
		fe->failed = store_col_int64(st, 2);
		fe->inflight = store_col_int64(st, 3);
		fe->first = store_col_int64(st, 4);
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else {
		rc = store_fail(s, store_errcode(s), "read for-eachs in flight",
		    &cause);
		store_keep_error(s, cause);
		free(list);
		list = NULL;
		n = 0;
	}
	store_release(s, st);
	*listp = list;
	*np = n;
	return (rc);
}

/* Read step rows with sql, which binds nothing. */
static int
recover_steps(struct store *s, const char *sql, struct store_step **listp,
    size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list = NULL;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_prepare(s, sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &store_step_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/*
 * The gate rows of every for-each row in flight, ordered by their
 * for-each row (item_of), then oldest first.
 */
int
store_recover_foreach_gates(struct store *s, struct store_step **listp,
    size_t *np, char **cause)
{
	return (recover_steps(s, recover_gates_sql, listp, np, cause));
}

/*
 * The rows of every running workflow a DAG decision reads (as
 * store_step_list's, less for-each items and gates), ordered by
 * workflow, then by id.
 */
int
store_recover_dag_rows(struct store *s, struct store_step **listp,
    size_t *np, char **cause)
{
	return (recover_steps(s, recover_dag_sql, listp, np, cause));
}
