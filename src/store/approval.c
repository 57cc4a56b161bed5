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
 * approval.c: people's decisions on gates, one row each, so a quorum
 * counts distinct people and a second vote by the same person is seen.
 * A row counts only beside the audit row that recorded it (audit_id), so
 * an approval written with sqlite3 opens no gate.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char approval_add_sql[] =
	"INSERT INTO approvals (step_id, workflow_id, who, decision, comment,"
	" at, audit_id) VALUES (?, ?, ?, ?, ?, ?, ?)";
static const char approval_count_sql[] =
	"SELECT count(DISTINCT who) FROM approvals p WHERE step_id = ?"
	" AND decision = 'approve'" STORE_APPROVAL_AUDITED;
static const char approval_decision_sql[] =
	"SELECT decision FROM approvals p WHERE step_id = ? AND who = ?"
	STORE_APPROVAL_AUDITED " ORDER BY id LIMIT 1";

/*
 * Record a decision ("approve" or "reject") on a gate row, with the id of
 * the audit row that recorded it.
 */
int
store_approval_add(struct store *s, int64_t step, int64_t wf, const char *who,
    const char *decision, const char *comment, int64_t now, int64_t audit)
{
	return (store_runf(s, "record decision", approval_add_sql, "iittti"
	    "i", step, wf, who, decision, comment, now, audit));
}

/* How many distinct people approved a gate row. */
int
store_approval_count(struct store *s, int64_t step, int64_t *n)
{
	return (store_int64f(s, "count approvals", n, approval_count_sql, "i",
	    step));
}

/* The decision one person made on a gate row ("approve", "reject"). */
int
store_approval_decision(struct store *s, int64_t step, const char *who,
    char **decision)
{
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 rc;

	*decision = NULL;
	if ((rc = store_stmt(s, approval_decision_sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (store_bind_text(st, 2, who) != STORE_DRV_OK ||
	    store_bind_int64(st, 1, step) != STORE_DRV_OK)
		rc = store_fail(s, store_errcode(s), "read decision",
		    &cause);
	else if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		*decision = store_column_text(st, 0);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "read decision", &cause);
	store_release(s, st);
	if (rc != 0)
		store_keep_error(s, cause);
	return (rc);
}
