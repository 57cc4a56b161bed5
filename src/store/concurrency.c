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
 * concurrency.c: the slots of concurrency keys (SPEC §13), read from the
 * rows alone.  A run (step) holds its key while it is running; those
 * waiting for one are queued, first come first served by row id.  So a
 * restarted engine counts the slots in use without any state of its own,
 * and a row that ends frees its slot in the transaction that ends it.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char conc_runs_held_sql[] =
	"SELECT count(*) FROM workflows WHERE conc_key = ?"
	" AND status = 'running'";
static const char conc_run_holder_sql[] =
	"SELECT min(id) FROM workflows WHERE conc_key = ?"
	" AND status = 'running'";
static const char conc_run_next_sql[] =
	"SELECT min(id) FROM workflows WHERE conc_key = ?"
	" AND status = 'queued'";
static const char conc_run_after_sql[] =
	"SELECT min(id) FROM workflows WHERE status = 'queued' AND id > ?";
static const char conc_run_dequeue_sql[] =
	"UPDATE workflows SET status = 'running', started_at = ?1,"
	" updated_at = ?1 WHERE id = ?2 AND status = 'queued'";
static const char conc_run_requeue_sql[] =
	"UPDATE workflows SET status = 'queued', conc_key = ?1,"
	" conc_limit = ?2, error = NULL, completed_at = NULL,"
	" cancelled_at = NULL, updated_at = ?3 WHERE id = ?4";

/*
 * A step row holds its key from the moment it is let through (ready with
 * the key set) until it ends, so a row handed a slot keeps it until the
 * drain starts it.  Queued rows wait for the key of row ?1.
 */
#define CONC_STEP_HOLDS	"status IN ('ready', 'running')"
static const char conc_step_free_sql[] =
	"SELECT (SELECT count(*) FROM workflow_steps h WHERE"
	" h.conc_key = r.conc_key AND h.id <> r.id AND h." CONC_STEP_HOLDS ")"
	" < r.conc_limit FROM workflow_steps r WHERE r.id = ?";
static const char conc_step_holder_sql[] =
	"SELECT min(h.id) FROM workflow_steps h, workflow_steps r"
	" WHERE r.id = ?1 AND h.conc_key = r.conc_key AND h.id <> r.id"
	" AND h." CONC_STEP_HOLDS;
/* What a queued step waits behind: as STORE_RUN_BEHIND for runs. */
static const char conc_step_behind_sql[] =
	"SELECT COALESCE((SELECT max(q.id) FROM workflow_steps q,"
	" workflow_steps r WHERE r.id = ?1 AND q.conc_key = r.conc_key"
	" AND q.status = 'queued' AND q.id < r.id), (SELECT min(h.id)"
	" FROM workflow_steps h, workflow_steps r WHERE r.id = ?1"
	" AND h.conc_key = r.conc_key AND h.id <> r.id AND h."
	CONC_STEP_HOLDS "))";
static const char conc_step_next_sql[] =
	"SELECT min(q.id) FROM workflow_steps q, workflow_steps r"
	" WHERE r.id = ? AND q.conc_key = r.conc_key AND q.status = 'queued'";
/*
 * The active index's own condition beside "queued", or SQLite does not
 * see that the partial index holds the rows, and a restarted engine
 * walks every step row ever made (0.25 s at 100,000 runs).
 */
static const char conc_step_after_sql[] =
	"SELECT min(id) FROM workflow_steps WHERE status = 'queued'"
	" AND " STORE_STEP_ACTIVE " AND id > ?";
static const char conc_step_key_sql[] =
	"UPDATE workflow_steps SET conc_key = ?1, conc_limit = ?2,"
	" updated_at = ?3 WHERE id = ?4";
static const char conc_step_queue_sql[] =
	"UPDATE workflow_steps SET status = 'queued', updated_at = ?1"
	" WHERE id = ?2 AND status = 'ready'";
static const char conc_step_dequeue_sql[] =
	"UPDATE workflow_steps SET status = 'ready', ready_at = ?1,"
	" updated_at = ?1 WHERE id = ?2 AND status = 'queued'";

/* How many runs hold key now. */
int
store_conc_runs_held(struct store *s, const char *key, int64_t *n)
{
	return (store_int64f(s, "count key holders", n, conc_runs_held_sql,
	    "t", key));
}

/* The oldest run holding key (0: none). */
int
store_conc_run_holder(struct store *s, const char *key, int64_t *id)
{
	return (store_int64f(s, "find key holder", id, conc_run_holder_sql,
	    "t", key));
}

/* The run queued longest for key (0: none). */
int
store_conc_run_next(struct store *s, const char *key, int64_t *id)
{
	return (store_int64f(s, "find queued run", id, conc_run_next_sql,
	    "t", key));
}

/* The first queued run after id, for a walk over them all (0: none). */
int
store_conc_run_after(struct store *s, int64_t after, int64_t *id)
{
	return (store_int64f(s, "walk queued runs", id, conc_run_after_sql,
	    "i", after));
}

/* A queued run takes its slot: it runs from now. */
int
store_workflow_dequeue(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "dequeue workflow", conc_run_dequeue_sql, "ii",
	    now, id));
}

/* A run waits (again) for a slot of key. */
int
store_workflow_queue(struct store *s, int64_t id, const char *key,
    int limit, int64_t now)
{
	return (store_runf(s, "queue workflow", conc_run_requeue_sql, "tdii",
	    key, limit, now, id));
}

/* Has the key of step row id a slot for it (1), or none (0)? */
int
store_conc_step_free(struct store *s, int64_t id, int64_t *ok)
{
	return (store_int64f(s, "count key holders", ok, conc_step_free_sql,
	    "i", id));
}

/* The oldest other step row holding the key of row id (0: none). */
int
store_conc_step_holder(struct store *s, int64_t id, int64_t *holder)
{
	return (store_int64f(s, "find key holder", holder,
	    conc_step_holder_sql, "i", id));
}

/*
 * Fill in what each queued step of a list waits behind (SPEC §13: a
 * queued run or step shows it): a query for each queued row, and most
 * lists have none.
 */
int
store_steps_behind(struct store *s, struct store_step *list, size_t n,
    char **cause)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (list[i].status != STEP_QUEUED)
			continue;
		if (store_int64f(s, "find what a step waits behind",
		    &list[i].behind, conc_step_behind_sql, "i",
		    list[i].id) != 0) {
			xasprintf(cause, "%s", store_last_error(s));
			return (STORE_ERR);
		}
	}
	return (0);
}

/* The step row queued longest for the key of row id (0: none). */
int
store_conc_step_next(struct store *s, int64_t id, int64_t *next)
{
	return (store_int64f(s, "find queued step", next, conc_step_next_sql,
	    "i", id));
}

/* The first queued step row after id (0: none). */
int
store_conc_step_after(struct store *s, int64_t after, int64_t *id)
{
	return (store_int64f(s, "walk queued steps", id, conc_step_after_sql,
	    "i", after));
}

/* A step row's key, as interpolated when it would start. */
int
store_step_set_conc(struct store *s, int64_t id, const char *key, int limit,
    int64_t now)
{
	return (store_runf(s, "set step key", conc_step_key_sql, "tdii", key,
	    limit, now, id));
}

/* A ready step row waits for a slot of its key. */
int
store_step_queue(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "queue step", conc_step_queue_sql, "ii", now,
	    id));
}

/* A queued step row has its slot: ready to start. */
int
store_step_dequeue(struct store *s, int64_t id, int64_t now)
{
	return (store_runf(s, "dequeue step", conc_step_dequeue_sql, "ii",
	    now, id));
}
