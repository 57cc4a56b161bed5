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
 * step-concurrency.c: step rows held by their concurrency key (SPEC §13).
 * A row is measured against its key when the drain would start it: with
 * a free slot it keeps the key and runs; without one it waits queued (or,
 * "on_busy": "refuse", fails naming the holder).  A row that ends hands
 * its slot to the row queued longest in the same transaction.  The slots
 * are counted from the rows alone, so a restarted engine only fills the
 * slots freed while none ran.
 */

#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static const struct flow_concurrency *conc_step_of(const struct estep *);
static void	 conc_step_refuse(struct engine *, struct estep *,
		     const char *, int);

/*
 * The key a row runs under: its step's; an item's is its "do"'s, else
 * the for-each's own (interpolated with the item).
 */
static const struct flow_concurrency *
conc_step_of(const struct estep *es)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];
	const struct flow_step	*ks = engine_spec(es);

	if (es->role == ESTEP_ITEM && ks->concurrency.key != NULL)
		return (&ks->concurrency);
	if (es->role != ESTEP_ITEM && es->role != ESTEP_PLAIN)
		return (NULL);
	return (fs->concurrency.key != NULL ? &fs->concurrency : NULL);
}

/* A row that finds its key full fails at once, naming the holder. */
static void
conc_step_refuse(struct engine *e, struct estep *es, const char *key,
    int limit)
{
	struct store_step	*row;
	int64_t			 holder;
	char			*cause = NULL, *why;

	if (store_conc_step_holder(e->store, es->id, &holder) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (holder != 0 && store_step_get(e->store, holder, &row,
	    &cause) == 0) {
		xasprintf(&why, "concurrency key %s is held by workflow %lld "
		    "step %s (limit %d)", key, (long long)row->workflow_id,
		    row->name, limit);
		store_step_free(row);
	} else {
		free(cause);
		xasprintf(&why, "concurrency key %s is held (limit %d)", key,
		    limit);
	}
	/* Refused is the answer the flow asked for: no retry. */
	es->no_retry = 1;
	engine_step_failed(e, es, why, 0, 0, NULL);
	free(why);
	engine_step_free(es);
}

/*
 * May a ready row start now?  1 yes (it holds its key, if any); 0 when
 * it was queued, refused or failed instead (es is then gone).
 */
int
engine_conc_step_admit(struct engine *e, struct estep *es)
{
	const struct flow_concurrency	*c;
	cJSON				*scope;
	char				*key, *why = NULL, *msg;
	int64_t				 ok, now = time_now_ms();

	if ((c = conc_step_of(es)) == NULL)
		return (1);
	scope = engine_item_scope(e, es);
	key = flow_concurrency_key(c, scope, &why);
	cJSON_Delete(scope);
	if (key == NULL) {
		xasprintf(&msg, "step %s: %s", engine_spec(es)->name, why);
		free(why);
		es->no_retry = 1;
		engine_step_failed(e, es, msg, 0, 0, NULL);
		free(msg);
		engine_step_free(es);
		return (0);
	}
	if (store_step_set_conc(e->store, es->id, key, c->limit, now) != 0 ||
	    store_conc_step_free(e->store, es->id, &ok) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (ok) {
		free(key);
		return (1);
	}
	if (c->refuse)
		conc_step_refuse(e, es, key, c->limit);
	else {
		if (store_step_queue(e->store, es->id, now) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		log_debug("%s: step %lld queued for %s", __func__,
		    (long long)es->id, key);
		engine_step_free(es);
	}
	free(key);
	return (0);
}

/*
 * Whether es's row may hold a key: only a step with a concurrency key is
 * given one (engine_conc_step_admit), so for any other there is no slot to
 * pass on when it ends, and no query to ask.
 */
int
engine_conc_step_keyed(const struct estep *es)
{
	return (conc_step_of(es) != NULL);
}

/*
 * Row id ended (or was queued and no longer is): while the key it had
 * has free slots, the rows queued longest for it become ready again.
 */
void
engine_conc_step_release(struct engine *e, int64_t id)
{
	struct store_step	*row;
	struct estep		*es;
	int64_t			 next, ok;
	char			*cause = NULL;

	for (;;) {
		if (store_conc_step_next(e->store, id, &next) != 0 ||
		    (next != 0 && store_conc_step_free(e->store, next,
		    &ok) != 0))
			engine_store_fatal(e, store_last_error(e->store));
		if (next == 0 || !ok)
			return;
		if (store_step_dequeue(e->store, next, time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (store_step_get(e->store, next, &row, &cause) != 0)
			engine_store_fatal(e, cause);
		log_debug("%s: step %lld takes a slot", __func__,
		    (long long)next);
		/* Ready with its key, it holds the slot until it starts. */
		if (engine_step_queued(e, next) == NULL &&
		    (es = engine_step_from_row(e, row)) != NULL)
			engine_step_ready(e, es);
		store_step_free(row);
	}
}

/* After a restart: slots freed while no engine ran go to queued rows. */
void
engine_conc_step_recover(struct engine *e)
{
	int64_t	 id = 0;

	engine_txn(e);
	for (;;) {
		if (store_conc_step_after(e->store, id, &id) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (id == 0)
			return;
		engine_conc_step_release(e, id);
	}
}
