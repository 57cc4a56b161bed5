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
 * step-held.c: a ready step row the engine means to start in the same
 * turn, written once.  The engine makes the next step's row ready and,
 * a moment later in the same transaction, records it running: two writes
 * of one row (on a server, each some 0.1 ms of its time in the commit
 * the next start waits for).  Instead the row is held here, its id drawn
 * ahead, until either its start comes (store_step_start: it is inserted
 * running, as the UPDATE would have left it) or anything else might see
 * or need it: any statement whose text names a step (every one on
 * workflow_steps, or on a table that refers to it), a nested level, the
 * commit.  Then it is inserted ready, as before.  Statements that name no
 * step (a request's row, a notification) let it wait, so no statement
 * ever finds the table other than it would have been; a rollback drops it
 * with the rest of its transaction.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* SQLite's next rowid, as it would pick it (max + 1), under our lock. */
static const char step_next_id_sql[] =
	"SELECT coalesce(max(id), 0) + 1 FROM workflow_steps";

/* Copy a string a held row keeps past its caller's. */
static char *
held_strdup(const char *s)
{
	return (s != NULL ? xstrdup(s) : NULL);
}

/*
 * Add a ready row that is about to start: held (see above) inside a
 * transaction, else inserted now.  Sets its id and times as
 * store_step_add does.
 */
int
store_step_add_held(struct store *s, struct store_step *step, int64_t now)
{
	struct store_step	*h;
	char			*cause = NULL;
	int64_t			 id = 0;
	int			 rc;

	if (s->depth == 0 || step->status != STEP_READY)
		return (store_step_add(s, step, now));
	if ((rc = store_held_flush(s, NULL, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if (s->drv->turn_id != NULL)
		rc = s->drv->turn_id(s->conn, "workflow_steps", &id);
	else
		rc = store_int64f(s, "draw step id", &id, step_next_id_sql, "");
	if (rc != 0 || id == 0)
		return (store_step_add(s, step, now));

	h = xcalloc(1, sizeof *h);
	*h = *step;
	h->name = held_strdup(step->name);
	h->step_key = held_strdup(step->step_key);
	h->tool = held_strdup(step->tool);
	h->args_json = held_strdup(step->args_json);
	h->result_json = held_strdup(step->result_json);
	h->gate_json = held_strdup(step->gate_json);
	h->error = held_strdup(step->error);
	h->branch_end = NULL;
	h->host = held_strdup(step->host);
	h->label = held_strdup(step->label);
	h->item_json = held_strdup(step->item_json);
	h->progress_text = NULL;
	h->id = id;
	s->held = h;
	s->held_now = now;

	step->id = id;
	step->created_at = step->updated_at = now;
	if (step->ready_at == 0)
		step->ready_at = now;
	return (0);
}

/*
 * Before a statement (its text; NULL: before anything that ends or nests
 * the transaction): write the held row ready if the statement may see or
 * need it.
 */
int
store_held_flush(struct store *s, const char *sql, char **cause)
{
	struct store_step	*h = s->held;
	int			 rc;

	if (h == NULL || (sql != NULL && strstr(sql, "step") == NULL))
		return (0);
	s->held = NULL;		/* its own INSERT must not flush it again */
	rc = store_step_write(s, h, h->id, s->held_now, s->held_now, cause);
	store_step_clear(h);
	free(h);
	return (rc);
}

/* The held row's transaction rolled back: it goes with it. */
void
store_held_drop(struct store *s)
{
	if (s->held == NULL)
		return;
	store_step_clear(s->held);
	free(s->held);
	s->held = NULL;
}

/*
 * A step starts: if it is the held row, insert it running, with what
 * step_start_sql would have set (*done set); else leave it to the UPDATE.
 */
int
store_held_start(struct store *s, const struct store_step *step, int64_t now,
    int *done)
{
	struct store_step	*h = s->held;
	char			*cause = NULL;
	int			 rc;

	*done = 0;
	if (h == NULL || h->id != step->id)
		return (0);
	*done = 1;
	s->held = NULL;
	h->status = STEP_RUNNING;
	h->started_at = now;
	free(h->args_json);
	h->args_json = held_strdup(step->args_json);
	h->pid = step->pid;
	h->pgid = step->pgid;
	h->proc_start = step->proc_start;
	free(h->host);
	h->host = held_strdup(step->host);
	h->timeout_at = step->timeout_at;
	rc = store_step_write(s, h, h->id, s->held_now, now, &cause);
	store_step_clear(h);
	free(h);
	if (rc != 0)
		store_keep_error(s, cause);
	return (rc);
}
