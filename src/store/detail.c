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
 * detail.c: the reads behind one step's details in the console: who
 * decided on a gate and what they said, when a waiting gate times out,
 * and the last chunks of a step's log (without reading the whole of it).
 * Each is one indexed query bounded by one step.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char approval_list_sql[] =
	"SELECT id, at, who, decision, comment FROM approvals p"
	" WHERE step_id = ?" STORE_APPROVAL_AUDITED " ORDER BY id LIMIT ?";
static const char timer_of_step_sql[] =
	"SELECT min(due_at) FROM timers WHERE step_id = ? AND kind = ?";
static const char log_tail_sql[] =
	"SELECT id, at, stream, data FROM (SELECT id, at, stream, data"
	" FROM step_logs WHERE step_id = ? ORDER BY id DESC LIMIT ?)"
	" ORDER BY id";

static int	 store_approval_row(struct store_stmt *, void *, char **);
static void	 store_approval_rows_free(void *, size_t);

static const struct store_rows store_approval_rows = {
	.what = "list decisions",
	.size = sizeof (struct store_approval),
	.fill = store_approval_row,
	.free = store_approval_rows_free
};

/* Fill one decision from a row of approval_list_sql. */
static int
store_approval_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_approval	*a = p;

	a->id = store_col_int64(st, 0);
	a->at = store_col_int64(st, 1);
	a->who = store_column_text(st, 2);
	a->decision = store_column_text(st, 3);
	a->comment = store_column_text(st, 4);
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read array of decisions. */
static void
store_approval_rows_free(void *list, size_t n)
{
	store_approvals_free(list, n);
}

/* The first limit decisions on a gate row, oldest first. */
int
store_approval_list(struct store *s, int64_t step, int64_t limit,
    struct store_approval **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc, bad = 0;

	*listp = NULL;
	*np = 0;
	if ((rc = store_stmt(s, approval_list_sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_int64(st, 1, step);
	bad |= store_bind_int64(st, 2, limit > 0 ? limit : 100);
	if (bad != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "list decisions",
		    cause);
		store_release(s, st);
		return (rc);
	}
	rc = store_rows(s, st, &store_approval_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* Free an array of decisions. */
void
store_approvals_free(struct store_approval *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].who);
		free(list[i].decision);
		free(list[i].comment);
	}
	free(list);
}

/* When a step's stored timer of a kind is due; *due is 0 for none. */
int
store_timer_of_step(struct store *s, int64_t step, const char *kind,
    int64_t *due)
{
	return (store_int64f(s, "find timer", due, timer_of_step_sql, "it",
	    step, kind));
}

/* The last limit chunks of a step's log, in order. */
int
store_log_tail(struct store *s, int64_t step, int64_t limit,
    struct store_log **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc, bad = 0;

	*listp = NULL;
	*np = 0;
	if ((rc = store_stmt(s, log_tail_sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_int64(st, 1, step);
	bad |= store_bind_int64(st, 2, limit > 0 ? limit : 20);
	if (bad != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "read log tail",
		    cause);
		store_release(s, st);
		return (rc);
	}
	rc = store_rows(s, st, &store_log_rows, &list, np, cause);
	*listp = list;
	return (rc);
}
