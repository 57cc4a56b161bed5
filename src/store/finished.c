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
 * finished.c: the reads that keep the engine's steps.* up to date without
 * reading a workflow's every row each time: the rows made since the last
 * read, how a row stands now, and a scope's rows by id.  A loop of 10,000
 * passes would otherwise sort 10,000 rows (GROUP BY) for every step that
 * reads steps.*: work and memory that grow with the run.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char steps_after_sql[] =
	"SELECT id, step_key, status, item_of, items FROM workflow_steps"
	" WHERE workflow_id = ? AND id > ? ORDER BY id";
static const char step_status_sql[] =
	"SELECT status FROM workflow_steps WHERE id = ?";
static const char step_scope_sql[] =
	"SELECT step_key, result_json, status, exit_code FROM workflow_steps"
	" WHERE id = ?";

/*
 * The rows of workflow wf above id after, oldest first: cb gets each one's
 * id, step key, status, and whether steps.* may show it (every row but a
 * for-each's items).
 */
int
store_steps_after(struct store *s, int64_t wf, int64_t after,
    void (*cb)(int64_t, const char *, enum step_status, int, void *),
    void *arg)
{
	struct store_stmt	*st;
	enum step_status	 status;
	char			*cause = NULL;
	int64_t			 id;
	int			 rc, shown;

	if ((rc = store_stmt(s, steps_after_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (store_bind_int64(st, 1, wf) != STORE_DRV_OK ||
	    store_bind_int64(st, 2, after) != STORE_DRV_OK)
		rc = STORE_DRV_ERROR;
	while (rc == 0 && (rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		id = store_col_int64(st, 0);
		if ((rc = store_column_step_status(st, 2, id, &status,
		    &cause)) != 0)
			break;
		shown = store_col_null(st, 3) || !store_col_null(st, 4);
		cb(id, store_col_text(st, 1), status, shown, arg);
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else if (rc != 0 && cause == NULL)
		rc = store_fail(s, store_errcode(s), "list new steps", &cause);
	if (cause != NULL)
		store_keep_error(s, cause);
	store_release(s, st);
	return (rc);
}

/* How row id stands now (an error when there is no such row). */
int
store_step_status_now(struct store *s, int64_t id, enum step_status *status)
{
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 rc;

	if ((rc = store_stmt(s, step_status_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (store_bind_int64(st, 1, id) != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "step status", &cause);
	else if ((rc = store_stmt_step(st)) == STORE_DRV_ROW)
		rc = store_column_step_status(st, 0, id, status, &cause);
	else if (rc == STORE_DRV_DONE) {
		xasprintf(&cause, "step %lld: no such row", (long long)id);
		rc = -1;
	} else
		rc = store_fail(s, store_errcode(s), "step status", &cause);
	if (cause != NULL)
		store_keep_error(s, cause);
	store_release(s, st);
	return (rc);
}

/*
 * Rows by id, in the order given, with what a scope shows of each: its
 * step key, result, status and exit code (the other fields are empty).
 */
int
store_steps_scope(struct store *s, const int64_t *ids, size_t n,
    struct store_step **listp, char **cause)
{
	struct store_stmt	*st;
	struct store_step	*list, *row;
	const char		*v;
	size_t			 i;
	int			 rc;

	*listp = NULL;
	if (n == 0)
		return (0);
	list = xcalloc(n, sizeof *list);
	if ((rc = store_stmt(s, step_scope_sql, &st, cause)) != 0) {
		free(list);
		return (rc);
	}
	for (i = 0; i < n && rc == 0; i++) {
		row = &list[i];
		row->id = ids[i];
		row->item_index = -1;
		if (i > 0)
			store_stmt_reset(st);
		if (store_bind_int64(st, 1, ids[i]) != STORE_DRV_OK)
			rc = store_fail(s, store_errcode(s), "read step", cause);
		else if ((rc = store_stmt_step(st)) == STORE_DRV_DONE) {
			xasprintf(cause, "step %lld: no such row",
			    (long long)ids[i]);
			rc = -1;
		} else if (rc != STORE_DRV_ROW)
			rc = store_fail(s, store_errcode(s), "read step", cause);
		else {
			row->step_key = xstrdup(store_col_text(st, 0));
			if ((v = store_col_text(st, 1)) != NULL)
				row->result_json = xstrdup(v);
			if ((row->has_exit_code = !store_col_null(st, 3)))
				row->exit_code = store_col_int(st, 3);
			rc = store_column_step_status(st, 2, ids[i],
			    &row->status, cause);
		}
	}
	store_release(s, st);
	if (rc != 0) {
		store_steps_free(list, n);
		return (rc);
	}
	*listp = list;
	return (0);
}
