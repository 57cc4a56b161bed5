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
 * gate-read.c: everything a decision on a gate reads before it writes,
 * in one statement: the request's recorded answer (was it applied
 * already?), the gate's row, the decider's earlier decision, how many
 * people approved, and the audit head the decision's audit row follows.
 * On a server each statement is a round trip the engine's turn waits
 * for, and the turn is what an approval waits for (issue 23's approve ->
 * next start); on SQLite it is one statement instead of five.
 *
 * The decision and the count are approval.c's, with the same guard: a
 * row counts only beside the audit row that recorded it.  Read in the
 * caller's write transaction, under its lock, so none of it changes
 * before the decision is written: the count after an approval is this
 * count and one more person, and the audit head may be kept (audit.c).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * One row whether or not the step exists (the request's answer outlives
 * a pruned run): its columns are NULL when there is none.
 */
static const char gate_read_sql[] =
	"SELECT " STORE_STEP_COLUMNS ","
	" (SELECT p.decision FROM approvals p WHERE p.step_id = ?"
	" AND p.who = ?" STORE_APPROVAL_AUDITED " ORDER BY p.id LIMIT 1),"
	" (SELECT count(DISTINCT p.who) FROM approvals p WHERE p.step_id = ?"
	" AND p.decision = 'approve'" STORE_APPROVAL_AUDITED "),"
	" (SELECT q.reply FROM requests q WHERE q.uid = ? AND q.id = ?),"
	" " STORE_AUDIT_HEAD_COLUMNS
	" FROM (SELECT 1 AS one) o LEFT JOIN workflow_steps"
	" ON workflow_steps.id = ?";

/* Where the columns after the step's are. */
#define GATE_READ_DECIDED	37
#define GATE_READ_APPROVED	38
#define GATE_READ_REPLY		39
#define GATE_READ_HEAD		40

/*
 * Read what a decision by who on gate row step needs, and uid's answer
 * to request (NULL: none asked) into g; 0, or an error with *cause.  No
 * step is g->row NULL; the caller frees with store_gate_read_clear().
 */
int
store_gate_read(struct store *s, int64_t step, const char *who, int64_t uid,
    const char *request, struct store_gate_read *g, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(g, 0, sizeof *g);
	if ((rc = store_stmt(s, gate_read_sql, &st, cause)) != 0)
		return (rc);
	if (store_bind_int64(st, 1, step) != STORE_DRV_OK ||
	    store_bind_text(st, 2, who) != STORE_DRV_OK ||
	    store_bind_int64(st, 3, step) != STORE_DRV_OK ||
	    store_bind_int64(st, 4, uid) != STORE_DRV_OK ||
	    store_bind_text(st, 5, request) != STORE_DRV_OK ||
	    store_bind_int64(st, 6, step) != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "read gate", cause);
		store_release(s, st);
		return (rc);
	}
	if ((rc = store_stmt_step(st)) != STORE_DRV_ROW) {
		rc = store_fail(s, rc, "read gate", cause);
		store_release(s, st);
		return (rc);
	}
	rc = 0;
	if (!store_col_null(st, 0)) {
		g->row = xmalloc(sizeof *g->row);
		if (store_step_row(st, g->row, cause) != 0) {
			store_step_free(g->row);
			g->row = NULL;
			rc = STORE_ERR;
		}
	}
	if (rc == 0) {
		g->decided = store_column_text(st, GATE_READ_DECIDED);
		g->approved = store_col_int64(st, GATE_READ_APPROVED);
		g->reply = store_column_text(st, GATE_READ_REPLY);
		store_audit_head_keep(s, st, GATE_READ_HEAD);
	}
	store_release(s, st);
	return (rc);
}

/* Free what store_gate_read() read. */
void
store_gate_read_clear(struct store_gate_read *g)
{
	store_step_free(g->row);
	free(g->decided);
	free(g->reply);
	memset(g, 0, sizeof *g);
}
