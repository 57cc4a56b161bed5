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
 * recover-batch.c: the for-each steps and DAG runs an engine takes over
 * go on from reads made for all of them at once
 * (store/recover-foreach.c), not from reads of each: on PostgreSQL each
 * read is a round trip, and one per for-each or run made a takeover
 * grow with the work in flight.  Each is then moved on from memory, as
 * from its own reads; one whose state may have changed since (recovery
 * itself moved it) is read again on its own.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* Order what was read of the for-eachs by their first row. */
static int
recover_foreach_cmp(const void *a, const void *b)
{
	const struct store_recover_foreach *x = a, *y = b;

	return (x->root < y->root ? -1 : x->root > y->root);
}

/*
 * The for-each rows among the running rows (ordered by id) go on:
 * each with its counts and its gate rows, all read here at once.
 */
void
engine_recover_foreachs(struct engine *e, const struct store_step *rows,
    size_t n)
{
	struct store_recover_foreach	*fes, key, *rf;
	struct store_step		*gates;
	size_t				 nfes, ngates, i, j, k;
	char				*cause = NULL;

	for (i = 0; i < n && rows[i].items <= 0; i++)
		;
	if (i == n)
		return;
	if (store_recover_foreachs(e->store, &fes, &nfes) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (store_recover_foreach_gates(e->store, &gates, &ngates,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	memset(&key, 0, sizeof key);
	for (i = j = 0; i < n; i++) {
		if (rows[i].items <= 0)
			continue;
		key.root = rows[i].item_of != 0 ? rows[i].item_of :
		    rows[i].id;
		rf = bsearch(&key, fes, nfes, sizeof *fes,
		    recover_foreach_cmp);
		/* Both lists are in the order of the for-each rows. */
		while (j < ngates && gates[j].item_of < rows[i].id)
			j++;
		for (k = j; k < ngates && gates[k].item_of == rows[i].id; k++)
			;
		engine_foreach_resume_read(e, &rows[i], rf, gates + j, k - j);
		j = k;
	}
	free(fes);
	store_steps_free(gates, ngates);
}

/* Order run ids. */
static int
recover_id_cmp(const void *a, const void *b)
{
	const int64_t	*x = a, *y = b;

	return (*x < *y ? -1 : *x > *y);
}

/*
 * DAG runs decide again whatever is due, from their rows alone: the end
 * of a step and what it started commit together, so this finds nothing
 * unless a row was written by hand or by an older engine.  The rows of
 * every run are read at once; once a decision has written (a step
 * started, skipped, a run failed, and with it perhaps its parent's
 * rows), the runs after it read their own again.
 */
void
engine_recover_dag(struct engine *e)
{
	struct ewf		*wf;
	struct store_step	*rows = NULL;
	int64_t			*ids = NULL;
	size_t			 n = 0, nrows = 0, i, j, k;
	char			*cause = NULL;
	int			 as_read = 1;

	RB_FOREACH(wf, ewf_tree, &e->workflows) {
		if (wf->ended || wf->flow->form == FLOW_FORM_STEPS)
			continue;
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = wf->id;
	}
	if (n == 0)
		return;
	qsort(ids, n, sizeof *ids, recover_id_cmp);
	if (store_recover_dag_rows(e->store, &rows, &nrows, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = j = 0; i < n; i++) {
		while (j < nrows && rows[j].workflow_id < ids[i])
			j++;
		for (k = j; k < nrows && rows[k].workflow_id == ids[i]; k++)
			;
		if ((wf = engine_wf_get(e, ids[i])) != NULL) {
			if (!as_read)
				engine_dag_advance(e, wf);
			else if (engine_dag_advance_rows(e, wf, rows + j,
			    k - j) != 0)
				as_read = 0;
		}
		j = k;
	}
	store_steps_free(rows, nrows);
	free(ids);
}
