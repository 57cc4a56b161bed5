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
 * foreach.c: the reads and writes of a for-each's item rows.  An item's
 * state is its latest row (a retry is a newer row with the same index);
 * an item waiting for its turn is a pending row with no timer (a pending
 * row with a timer is a retry waiting out its backoff).  Every read that
 * runs as items come and go is bounded by the items in flight or asked
 * for, through the (item_of, status, item_index) index; reads over every
 * item run once per load, decision or end.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char items_queued_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps s"
	" WHERE item_of = ?1 AND status = 'pending' AND item_index < ?2"
	" AND NOT EXISTS (SELECT 1 FROM timers t WHERE t.step_id = s.id)"
	" ORDER BY item_index LIMIT ?3";
static const char items_first_sql[] =
	"SELECT COALESCE(min(m), -1) FROM ("
	" SELECT min(item_index) AS m FROM workflow_steps"
	"  WHERE item_of = ?1 AND status = 'pending'"
	" UNION ALL SELECT min(item_index) FROM workflow_steps"
	"  WHERE item_of = ?1 AND status = 'ready'"
	" UNION ALL SELECT min(item_index) FROM workflow_steps"
	"  WHERE item_of = ?1 AND status = 'running'"
	" UNION ALL SELECT min(item_index) FROM workflow_steps"
	"  WHERE item_of = ?1 AND status = 'waiting')";
/*
 * Timers are few, items waiting many: CROSS JOIN keeps timers outer.
 * Every row of an item is counted, not only its latest: an item gets a
 * newer row only once its older one has ended (a retry after a failed
 * row, an interrupted row's question after a cancelled one, an
 * operator's requeue of a failed or cancelled one), so an older row is
 * never ready, running or waiting, and the count is the latest rows'.
 */
static const char items_inflight_sql[] =
	"SELECT (SELECT count(*) FROM workflow_steps WHERE item_of = ?1"
	"  AND status IN ('ready', 'running', 'waiting')"
	"  AND item_index IS NOT NULL)"
	" + (SELECT count(*) FROM timers t CROSS JOIN workflow_steps s"
	"  WHERE s.id = t.step_id AND s.item_of = ?1 AND s.status = 'pending'"
	"  AND s.item_index IS NOT NULL)";
/*
 * Walks workflow_steps_item_rows in item order, one seek per item for its
 * latest row: no sort, so a for-each's end holds no copy of its items.
 */
static const char items_latest_sql[] =
	"SELECT s.item_index, s.status, s.result_json, s.id, s.attempt,"
	" s.args_json IS NOT NULL, s.label, s.error, s.item_json"
	" FROM workflow_steps s"
	" WHERE s.item_of = ?1 AND s.item_index IS NOT NULL"
	" AND s.id = (SELECT max(id) FROM workflow_steps"
	"  WHERE item_of = ?1 AND item_index = s.item_index)"
	" ORDER BY s.item_index";
static const char items_ran_sql[] =
	"SELECT EXISTS (SELECT 1 FROM workflow_steps WHERE item_of = ?1"
	" AND item_index >= ?2 AND item_index < ?3"
	" AND args_json IS NOT NULL)";
static const char item_gates_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE item_of = ?1 AND item_index IS NULL AND items IS NULL"
	" ORDER BY id";
static const char items_queued_count_sql[] =
	"SELECT count(*) FROM workflow_steps s WHERE item_of = ?1"
	" AND status = 'pending' AND item_index IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM timers t WHERE t.step_id = s.id)";
static const char items_cancel_sql[] =
	"UPDATE workflow_steps SET status = 'cancelled', updated_at = ?2,"
	" completed_at = ?2, error = ?3 WHERE item_of = ?1"
	" AND status = 'pending' AND item_index IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM timers t"
	"  WHERE t.step_id = workflow_steps.id)";

static const char foreach_items_sql[] =
	"UPDATE workflow_steps SET items = ?2 WHERE id = ?1";
static const char foreach_current_sql[] =
	"SELECT max(id) FROM workflow_steps WHERE id = ?1"
	" OR (item_of = ?1 AND items IS NOT NULL)";

/* A for-each row's number of items, once they are known. */
int
store_foreach_set_items(struct store *s, int64_t id, int64_t n)
{
	return (store_runf(s, "set items", foreach_items_sql, "ii", id, n));
}

/*
 * The current row of a for-each whose first row is root: root, or the
 * newest row that took it over (an operator's retry).
 */
int
store_foreach_current(struct store *s, int64_t root, int64_t *id)
{
	return (store_int64f(s, "current for-each", id, foreach_current_sql,
	    "i", root));
}

/* Read steps with a kept statement bound from fmt. */
static int
store_items_query(struct store *s, const char *sql, struct store_step **listp,
    size_t *np, char **cause, const char *fmt, ...)
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
		rc = store_fail(s, store_errcode(s), "list items", cause);
		store_release(s, st);
		return (rc);
	}
	return (store_rows(s, st, &store_step_rows, (void **)listp, np,
	    cause));
}

/*
 * Up to limit items of a for-each (root: its first row) waiting for their
 * turn with an index below below, in item order.
 */
int
store_items_queued(struct store *s, int64_t root, int below, int limit,
    struct store_step **listp, size_t *np, char **cause)
{
	return (store_items_query(s, items_queued_sql, listp, np, cause,
	    "idd", root, below, limit));
}

/* The lowest index of an item not ended (waiting, in flight), or -1. */
int
store_items_first(struct store *s, int64_t root, int64_t *idx)
{
	return (store_int64f(s, "first item", idx, items_first_sql, "i",
	    root));
}

/* How many items are in flight (started, or waiting out a backoff). */
int
store_items_inflight(struct store *s, int64_t root, int64_t *n)
{
	return (store_int64f(s, "items in flight", n, items_inflight_sql, "i",
	    root));
}

/* How many items wait for their turn. */
int
store_items_waiting(struct store *s, int64_t root, int64_t *n)
{
	return (store_int64f(s, "items waiting", n, items_queued_count_sql,
	    "i", root));
}

/* Has any item with an index in [lo, hi) started, ever? */
int
store_items_ran(struct store *s, int64_t root, int lo, int hi, int64_t *yes)
{
	return (store_int64f(s, "items ran", yes, items_ran_sql, "idd", root,
	    lo, hi));
}

/*
 * Call cb with the latest row of each item of a for-each, in item order;
 * only the columns of a store_item are read, so memory stays flat.
 */
int
store_items_each(struct store *s, int64_t root,
    int (*cb)(const struct store_item *, void *), void *arg)
{
	struct store_item	 it;
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 rc;

	if ((rc = store_stmt(s, items_latest_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (store_bind_int64(st, 1, root) != STORE_DRV_OK)
		rc = STORE_DRV_ERROR;
	while (rc == 0 && (rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		it.index = store_col_int(st, 0);
		it.result_json = store_col_text(st, 2);
		it.id = store_col_int64(st, 3);
		if (store_column_step_status(st, 1, it.id, &it.status,
		    &cause) != 0) {
			store_keep_error(s, cause);
			store_release(s, st);
			return (STORE_ERR);
		}
		it.attempt = store_col_int(st, 4);
		it.ran = store_col_int(st, 5);
		it.label = store_col_text(st, 6);
		it.error = store_col_text(st, 7);
		it.item_json = store_col_text(st, 8);
		rc = cb(&it, arg) != 0 ? STORE_DRV_DONE : 0;
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else if (rc != 0) {
		rc = store_fail(s, store_errcode(s), "read items",
		    &cause);
		store_keep_error(s, cause);
	}
	store_release(s, st);
	return (rc);
}

/* The gates a for-each row asked (between batches, budget), oldest first. */
int
store_item_gates(struct store *s, int64_t row, struct store_step **listp,
    size_t *np, char **cause)
{
	return (store_items_query(s, item_gates_sql, listp, np, cause, "i",
	    row));
}

/*
 * The items still waiting for their turn end cancelled (the for-each
 * stopped); *n says how many.
 */
int
store_items_cancel_waiting(struct store *s, int64_t root, const char *why,
    int64_t now, int64_t *n)
{
	int	 rc;

	if ((rc = store_items_waiting(s, root, n)) != 0)
		return (rc);
	if (*n == 0)
		return (0);
	return (store_runf(s, "cancel items", items_cancel_sql, "iit", root,
	    now, why));
}

/*
 * Three disjoint parts, so each is read through an index and none walks
 * a for-each's items: the rows that are not items (workflow_steps_shown),
 * the items that wait (workflow_steps_items, by the for-each rows of the
 * first part) and the items of opened for-eachs.  The unary + keeps
 * SQLite from reading the last part through every row of the workflow.
 */
static const char steps_view_sql[] =
	"SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE workflow_id = ?1 AND item_index IS NULL"
	" AND (item_of IS NULL OR items IS NOT NULL OR status = 'waiting'"
	" OR item_of IN (SELECT value FROM json_each(?2)))"
	" UNION ALL SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE item_of IN (SELECT id FROM workflow_steps"
	"  WHERE workflow_id = ?1 AND item_index IS NULL)"
	" AND status = 'waiting' AND item_index IS NOT NULL"
	" AND +workflow_id = ?1"
	" UNION ALL SELECT " STORE_STEP_COLUMNS " FROM workflow_steps"
	" WHERE item_of IN (SELECT value FROM json_each(?2))"
	" AND item_index IS NOT NULL AND status <> 'waiting'"
	" AND +workflow_id = ?1"
	" ORDER BY id";
/* In the order of workflow_steps_tally: no sort, no read of a row. */
static const char items_count_sql[] =
	"SELECT status, attempt, count(*) FROM workflow_steps"
	" WHERE item_of = ?1 AND item_index IS NOT NULL"
	" GROUP BY status, attempt";
static const char items_retried_sql[] =
	"SELECT p.status, count(*) FROM workflow_steps c"
	" JOIN workflow_steps p ON p.id = c.parent_id"
	" WHERE c.item_of = ?1 AND c.item_index IS NOT NULL"
	" AND c.parent_id IS NOT NULL"
	" AND p.item_of = ?1 AND p.item_index IS NOT NULL"
	" GROUP BY p.status";

/*
 * A workflow's rows for the run view: every row but the items and gates
 * of for-each steps (only those that wait), except the members of the
 * for-each rows in open_json (a JSON array of ids: first rows for items,
 * for-each rows for gates).  A closed for-each of many items costs a
 * tally (store_items_tally), not a read of every item.
 */
int
store_step_list_view(struct store *s, int64_t wf, const char *open_json,
    struct store_step **listp, size_t *np, char **cause)
{
	int	rc;

	rc = store_items_query(s, steps_view_sql, listp, np, cause, "it",
	    wf, open_json != NULL ? open_json : "[]");
	if (rc == 0)
		rc = store_steps_behind(s, *listp, *np, cause);
	return (rc);
}

/* Add one count of a latest status to a tally. */
static void
store_items_add(struct store_item_tally *t, enum step_status status,
    int again, int64_t n)
{
	if (status == STEP_DONE || status == STEP_SKIPPED)
		t->done += n;
	else if (status == STEP_FAILED)
		t->failed += n;
	else if (status == STEP_CANCELLED)
		t->cancelled += n;
	else if (status == STEP_PENDING && !again)
		t->waiting += n;
	else
		t->running += n;
}

/*
 * How a for-each's items stand, each by its latest row, from counts over
 * the index: rows by status, less the rows a retry made old (each retry
 * row names the row it follows as its parent).
 */
int
store_items_tally(struct store *s, int64_t root, struct store_item_tally *t,
    char **cause)
{
	struct store_stmt	*st;
	enum step_status status;
	int		 rc, pass;

	memset(t, 0, sizeof *t);
	for (pass = 0; pass < 2; pass++) {
		if ((rc = store_stmt(s, pass == 0 ? items_count_sql :
		    items_retried_sql, &st, cause)) != 0)
			return (rc);
		if (store_bind_int64(st, 1, root) != STORE_DRV_OK) {
			rc = store_fail(s, store_errcode(s), "tally",
			    cause);
			store_release(s, st);
			return (rc);
		}
		while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
			/* Counts have no row: the for-each's names them. */
			if (store_column_step_status(st, 0, root, &status,
			    cause) != 0) {
				store_release(s, st);
				return (STORE_ERR);
			}
			if (pass == 0)
				store_items_add(t, status,
				    store_col_int(st, 1) > 1,
				    store_col_int64(st, 2));
			else
				store_items_add(t, status, 0,
				    -store_col_int64(st, 1));
		}
		if (rc != STORE_DRV_DONE) {
			rc = store_fail(s, rc, "tally", cause);
			store_release(s, st);
			return (rc);
		}
		store_release(s, st);
	}
	if (store_items_first(s, root, &t->first) != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		return (STORE_ERR);
	}
	return (0);
}
