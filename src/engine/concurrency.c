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
 * concurrency.c: runs held by their concurrency key (SPEC §13).  A start
 * whose key has no free slot is refused before anything is written, or
 * recorded queued with no step; when a run holding the key ends, the run
 * queued longest takes the slot in the same transaction.  The slots in
 * use are the running rows with the key (store/concurrency.c), so a
 * restarted engine needs nothing of its own to carry on the queue.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/*
 * A start's key: the flow's run-level key interpolated in its input.  0
 * with *key NULL when the flow has none; -1 with why when it comes out
 * unusable.
 */
int
engine_conc_run_key(const char *flow_json, const char *input_json,
    const char *name, char **key, int *limit, int *refuse, char **cause)
{
	struct flow_diags	*d;
	struct flow		*f;
	cJSON			*input, *scope;
	char			*why = NULL;
	int			 rc = 0;

	*key = NULL;
	d = flow_diags_create();
	f = flow_parse(flow_json, strlen(flow_json), d);
	flow_diags_free(d);
	if (f == NULL || f->concurrency.key == NULL) {
		flow_free(f);
		return (0);
	}
	input = cJSON_Parse(input_json != NULL ? input_json : "{}");
	if (input == NULL)
		input = cJSON_CreateObject();
	scope = flow_scope_create(input, 0, 0, name);
	if ((*key = flow_concurrency_key(&f->concurrency, scope,
	    &why)) == NULL) {
		xasprintf(cause, "start: %s", why);
		free(why);
		rc = -1;
	}
	*limit = f->concurrency.limit;
	*refuse = f->concurrency.refuse;
	cJSON_Delete(scope);
	flow_free(f);
	return (rc);
}

/*
 * Is there a slot of key for one more run?  1 yes; 0 no, with the run
 * that holds it (the oldest) in *holder.
 */
int
engine_conc_run_free(struct engine *e, const char *key, int limit,
    int64_t *holder)
{
	int64_t	 held;

	*holder = 0;
	if (store_conc_runs_held(e->store, key, &held) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (held < limit)
		return (1);
	if (store_conc_run_holder(e->store, key, holder) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	return (0);
}

/* Why a start into a full key is refused, naming the run holding it. */
void
engine_conc_run_refusal(const char *key, int limit, int64_t holder,
    char **cause)
{
	xasprintf(cause, "start: concurrency key %s is held by workflow %lld "
	    "(limit %d)", key, (long long)holder, limit);
}

/*
 * Slots of key may be free (a run holding it ended, or a queued one was
 * cancelled): the runs queued longest take them, in arrival order, each
 * beginning as a start would (or, one queued by retry, running again).
 */
void
engine_conc_run_release(struct engine *e, const char *key)
{
	struct store_workflow	*w;
	int64_t			 id, holder, now;
	char			*cause = NULL;

	for (;;) {
		if (store_conc_run_next(e->store, key, &id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (id == 0)
			return;
		if (store_workflow_get(e->store, id, &w, &cause) != 0)
			engine_store_fatal(e, cause);
		if (!engine_conc_run_free(e, key, w->conc_limit > 0 ?
		    w->conc_limit : 1, &holder)) {
			store_workflow_free(w);
			return;
		}
		engine_txn(e);
		now = time_now_ms();
		log_debug("%s: workflow %lld takes a slot of %s", __func__,
		    (long long)id, key);
		if (w->started_at != 0) {
			/* Queued by retry: it ran before, and runs again. */
			engine_rerun_queued(e, w);
		} else {
			if (store_workflow_dequeue(e->store, id, now) != 0)
				engine_store_fatal(e,
				    store_last_error(e->store));
			w->status = RUN_RUNNING;
			w->started_at = now;
			engine_wf_begin(e, w, now);
		}
		store_workflow_free(w);
	}
}

/*
 * After a restart: every key some run is queued for gets its free slots
 * filled (a queue whose holder ended while no engine ran goes on).
 */
void
engine_conc_recover(struct engine *e)
{
	struct store_workflow	*w;
	int64_t			 id = 0;
	char			*cause = NULL;

	for (;;) {
		if (store_conc_run_after(e->store, id, &id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (id == 0)
			break;
		if (store_workflow_get(e->store, id, &w, &cause) != 0)
			engine_store_fatal(e, cause);
		if (w->conc_key != NULL)
			engine_conc_run_release(e, w->conc_key);
		store_workflow_free(w);
	}
}

/*
 * What a start says: "started workflow 13", or for one that waits its
 * turn "queued workflow 13 behind #12 (concurrency key deploy-shop)".
 */
void
engine_conc_started(struct engine *e, int64_t id, char **message)
{
	struct store_workflow	*w;
	char			*cause = NULL;

	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		free(cause);
		w = NULL;
	}
	if (w != NULL && w->status == RUN_QUEUED && w->conc_key != NULL)
		xasprintf(message, "queued workflow %lld behind #%lld "
		    "(concurrency key %s)", (long long)id, (long long)w->behind,
		    w->conc_key);
	else
		xasprintf(message, "started workflow %lld", (long long)id);
	store_workflow_free(w);
}
