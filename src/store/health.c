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
 * health.c: what "sluice status" reads from the database: its schema
 * version, how many runs are in each state a person sees (the words of
 * the console and "list"), and cheap checks that the
 * audit trail's chain still ends where its head says (the full walk is
 * "audit --verify").
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * Runs per state.  Only a running run's state needs more than its status
 * (paused, waiting, late), worked out for the running rows alone; the
 * rest are the triggers' counts per status (run_counts, schema 16), so
 * a year of finished runs costs a few rows, not a walk of an index.
 */
static const char health_counts_sql[] =
	"SELECT sluice_state(0, status, 0, 0, 0), n FROM run_counts"
	" WHERE status <> 'running' AND n > 0"
	" UNION ALL SELECT " STORE_RUN_STATE("w") ", count(*) FROM workflows w"
	" WHERE w.status = 'running' GROUP BY 1";
static const char health_more_sql[] =
	"SELECT 0,"
	/* The unfinished rows' index, not every step of every run. */
	" (SELECT count(*) FROM workflow_steps INDEXED BY"
	"  workflow_steps_active WHERE " STORE_STEP_ACTIVE
	"  AND status = 'waiting' AND kind <> 'wait'),"
	/* Rows are never deleted (a trigger refuses it): the last id. */
	" (SELECT coalesce(max(id), 0) FROM audit),"
	" (SELECT max(id) FROM audit),"
	" (SELECT hash FROM audit ORDER BY id DESC LIMIT 1),"
	" (SELECT last_id FROM audit_head WHERE id = 1),"
	" (SELECT hash FROM audit_head WHERE id = 1),"
	" (SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND"
	"  name IN ('audit_no_update', 'audit_no_delete'))";

static int	store_health_counts(struct store *, struct store_health *,
		    char **);
static void	store_health_audit(struct store_health *, struct store_stmt *);

/* Runs per state, by the rule the console and "list" use. */
static int
store_health_counts(struct store *s, struct store_health *h, char **cause)
{
	struct store_stmt	*st;
	const char		*word;
	enum run_state		 state;
	int			 rc;

	if ((rc = store_prepare(s, health_counts_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		word = store_col_text(st, 0);
		if (word != NULL && state_parse(word, &state) == 0)
			h->states[state] += store_col_int64(st, 1);
	}
	if (rc != STORE_DRV_DONE)
		rc = store_fail(s, rc, "count runs", cause);
	else
		rc = 0;
	store_stmt_finalize(st);
	return (rc);
}

/* The chain's cheap checks: its head names the newest row, triggers on. */
static void
store_health_audit(struct store_health *h, struct store_stmt *st)
{
	const char	*last_hash, *head_hash;
	int64_t		 last_id, head_id;

	last_id = store_col_int64(st, 3);
	last_hash = store_col_text(st, 4);
	head_id = store_col_int64(st, 5);
	head_hash = store_col_text(st, 6);
	if (store_col_int64(st, 7) != 2) {
		h->audit_problem = xstrdup("the audit table's append-only "
		    "triggers are missing");
	} else if (h->audit_rows > 0 && (head_hash == NULL ||
	    last_hash == NULL)) {
		h->audit_problem = xstrdup("the audit trail has no head or "
		    "an unhashed newest row");
	} else if (h->audit_rows > 0 && (head_id != last_id ||
	    strcmp(head_hash, last_hash) != 0)) {
		xasprintf(&h->audit_problem, "the audit trail's head names "
		    "row %lld but its newest row is %lld, or their hashes "
		    "differ: rows were removed or added around sluice",
		    (long long)head_id, (long long)last_id);
	}
}

/* Read the database's health; free with store_health_clear. */
int
store_health(struct store *s, struct store_health *h, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(h, 0, sizeof *h);
	if ((rc = store_read_begin(s, cause)) != 0)
		return (rc);
	rc = store_schema_version(s, &h->schema, cause);
	if (rc == 0)
		rc = store_health_counts(s, h, cause);
	if (rc == 0)
		rc = store_prepare(s, health_more_sql, &st, cause);
	if (rc == 0) {
		if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
			h->gates = store_col_int64(st, 1);
			h->audit_rows = store_col_int64(st, 2);
			store_health_audit(h, st);
			rc = 0;
		} else
			rc = store_fail(s, rc, "read health", cause);
		store_stmt_finalize(st);
	}
	store_read_end(s);
	if (rc != 0)
		store_health_clear(h);
	return (rc);
}

/* Free what store_health filled. */
void
store_health_clear(struct store_health *h)
{
	free(h->audit_problem);
	memset(h, 0, sizeof *h);
}
