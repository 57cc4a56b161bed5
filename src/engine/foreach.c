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
 * foreach.c: for-each steps.  When its row starts, the items are resolved
 * and checked (an array, at most FLOW_FOREACH_MAX, each with a usable and
 * distinct label) and each becomes a row of its own, pending until its
 * turn.  Items then start in item order, batch by batch (a batch only
 * once the one before has ended), at most "concurrency" at once; a gate
 * may stand before each later batch, and when more items have failed
 * than the budget allows the for-each stops starting items and either
 * fails once those running have ended, or asks: approve to go on, reject
 * to abort, or retry the failed items.  Its result is the items' results
 * in item order.
 *
 * Everything is derived from the rows (an item is its latest row; which
 * batches were let through, and which failures forgiven, is on the gate
 * rows), so after a crash the next engine goes on from the table, and
 * memory holds one small struct per for-each in flight, never per item.
 * What operators do to a for-each (retry of its failed items, a rerun,
 * cancel of one item) is in foreach-ops.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* Items made ready at once when the step sets no concurrency. */
#define FOREACH_WINDOW		256

static struct engine_foreach *foreach_find(struct ewf *, int64_t);
static void	 foreach_forget(struct ewf *, struct engine_foreach *);
static void	 foreach_finish(struct engine *, struct ewf *,
		     struct engine_foreach *, int);
static void	 foreach_ask(struct engine *, struct ewf *,
		     struct engine_foreach *, int);
static const struct flow_foreach *foreach_spec(const struct ewf *,
		     const struct engine_foreach *);
static size_t	 foreach_batch_of(const struct engine_foreach *, int64_t);
static struct engine_foreach *foreach_make(struct ewf *,
		     const struct store_step *);
static void	 foreach_gates_apply(struct engine_foreach *,
		     const struct store_step *, size_t);
static void	 foreach_pump(struct engine *, struct ewf *,
		     struct engine_foreach *,
		     const struct store_recover_foreach *);

/* The for-each options of a for-each in flight. */
static const struct flow_foreach *
foreach_spec(const struct ewf *wf, const struct engine_foreach *fe)
{
	return (wf->flow->steps[fe->spec].foreach);
}

/* The batch (0-based) an item index falls in. */
static size_t
foreach_batch_of(const struct engine_foreach *fe, int64_t index)
{
	size_t	 k;

	for (k = 0; k < fe->nbatches; k++) {
		if ((size_t)index < fe->ends[k])
			return (k);
	}
	return (fe->nbatches > 0 ? fe->nbatches - 1 : 0);
}

/*
 * The scope a step's args, run and env are interpolated in: an item's
 * also holds "item" and "index".
 */
cJSON *
engine_item_scope(struct engine *e, struct estep *es)
{
	cJSON	*scope;

	scope = engine_scope(e, es->wf, es->wf->uses_steps[es->spec]);
	if (es->role != ESTEP_ITEM)
		return (scope);
	cJSON_AddItemToObject(scope, "item", json_parse_or_null(
	    es->item_json));
	cJSON_AddNumberToObject(scope, "index", es->item_index);
	return (scope);
}

/* A for-each in memory, by its row or its first row. */
static struct engine_foreach *
foreach_find(struct ewf *wf, int64_t id)
{
	struct engine_foreach	*fe;

	TAILQ_FOREACH(fe, &wf->foreachs, entry) {
		if (fe->id == id || fe->root == id)
			return (fe);
	}
	return (NULL);
}

/* Count one item's latest row into a for-each being loaded. */
static int
foreach_count(const struct store_item *it, void *arg)
{
	struct engine_foreach	*fe = arg;

	/* An item an operator cancelled counts as failed. */
	if (it->status == STEP_FAILED ||
	    it->status == STEP_CANCELLED)
		fe->failed++;
	return (0);
}

/*
 * What a for-each's gate rows (oldest first) say: the gate waiting,
 * batches let through, failures forgiven.
 */
static void
foreach_gates_apply(struct engine_foreach *fe, const struct store_step *rows,
    size_t n)
{
	struct flow_policy	 p;
	cJSON			*r, *v;
	const char		*decision;
	size_t			 i;
	char			*cause = NULL;

	for (i = 0; i < n; i++) {
		if (rows[i].status == STEP_WAITING) {
			fe->gate = rows[i].id;
			continue;
		}
		if (flow_policy_read(rows[i].gate_json, KIND_GATE, &p,
		    &cause) != 0) {
			log_debug("%s: gate step %lld: %s", __func__,
			    (long long)rows[i].id, cause);
			free(cause);
			cause = NULL;
		}
		r = json_parse_or_null(rows[i].result_json);
		v = cJSON_GetObjectItemCaseSensitive(r, "decision");
		decision = cJSON_IsString(v) ? v->valuestring : "";
		if (strcmp(decision, "abort") == 0) {
			fe->stopping = 1;
			free(fe->why);
			xasprintf(&fe->why, "%s", rows[i].error != NULL ?
			    rows[i].error : "aborted at a gate");
		} else if (p.foreach == FLOW_POLICY_BATCH) {
			if (p.batch > fe->passed)
				fe->passed = p.batch;
		} else if (strcmp(decision, "continue") == 0) {
			v = cJSON_GetObjectItemCaseSensitive(r, "failures");
			if (cJSON_IsNumber(v) && v->valueint > fe->forgiven)
				fe->forgiven = v->valueint;
		}
		flow_policy_free(&p);
		cJSON_Delete(r);
	}
}

/*
 * A for-each in memory from its row, before its items and gates are
 * counted in; NULL when the row's step is no for-each of the flow.
 */
static struct engine_foreach *
foreach_make(struct ewf *wf, const struct store_step *row)
{
	struct engine_foreach	*fe;
	const struct flow_foreach *ffe;
	int			 spec;

	spec = flow_find(wf->flow, row->step_key);
	if (spec < 0 || (ffe = wf->flow->steps[spec].foreach) == NULL)
		return (NULL);
	fe = xcalloc(1, sizeof *fe);
	fe->id = row->id;
	fe->root = row->item_of != 0 ? row->item_of : row->id;
	fe->spec = spec;
	fe->fanout_id = row->fanout_id;
	fe->branch_no = row->branch_no;
	fe->attempt = row->attempt;
	fe->visit = row->visit;
	fe->n = (int)row->items;
	fe->nbatches = flow_foreach_batches(ffe, (size_t)fe->n, &fe->ends);
	fe->budget = flow_foreach_budget(ffe, (size_t)fe->n);
	return (fe);
}

/* Read a for-each row and its items' state into memory. */
struct engine_foreach *
engine_foreach_load(struct engine *e, struct ewf *wf, int64_t id)
{
	struct engine_foreach	*fe;
	struct store_step	*row, *gates;
	size_t			 n;
	char			*cause = NULL;

	if (store_step_get(e->store, id, &row, &cause) != 0)
		engine_store_fatal(e, cause);
	fe = foreach_make(wf, row);
	store_step_free(row);
	if (fe == NULL)
		return (NULL);
	if (store_items_each(e->store, fe->root, foreach_count, fe) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (store_item_gates(e->store, fe->id, &gates, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	foreach_gates_apply(fe, gates, n);
	store_steps_free(gates, n);
	TAILQ_INSERT_TAIL(&wf->foreachs, fe, entry);
	return (fe);
}

/*
 * The for-each an item (by its first row) or a gate (by its for-each
 * row) belongs to, loaded when it is not in memory (then *fresh is set:
 * what just happened is already in what was read).
 */
struct engine_foreach *
engine_foreach_of(struct engine *e, struct ewf *wf, int64_t id, int *fresh)
{
	struct engine_foreach	*fe;
	int64_t			 cur;

	*fresh = 0;
	if ((fe = foreach_find(wf, id)) != NULL)
		return (fe);
	if (store_foreach_current(e->store, id, &cur) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	*fresh = 1;
	return (engine_foreach_load(e, wf, cur != 0 ? cur : id));
}

/* Forget a for-each (it ended, or its workflow did). */
static void
foreach_forget(struct ewf *wf, struct engine_foreach *fe)
{
	TAILQ_REMOVE(&wf->foreachs, fe, entry);
	free(fe->ends);
	free(fe->why);
	free(fe);
}

/* Forget every for-each of a workflow (it is freed, or opened again). */
void
engine_foreach_forget_all(struct ewf *wf)
{
	while (!TAILQ_EMPTY(&wf->foreachs))
		foreach_forget(wf, TAILQ_FIRST(&wf->foreachs));
}

/* Insert a row a for-each makes (an item, a gate, a new for-each row). */
int64_t
engine_foreach_row_add(struct engine *e, struct ewf *wf,
    struct store_step *row)
{
	engine_txn(e);
	row->workflow_id = wf->id;
	if (store_step_add(e->store, row, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (row->status != STEP_DONE)
		wf->nactive++;
	return (row->id);
}

/* Fill the fields every row of a for-each step shares. */
void
engine_foreach_row_init(struct store_step *row, const struct flow_step *fs)
{
	const struct flow_step	*b = fs->foreach->body;

	memset(row, 0, sizeof *row);
	row->name = fs->name;
	row->step_key = fs->key;
	engine_step_row_kind(row, b);
	row->item_index = -1;
}

/* Add an item's results to the result array being built. */
static int
foreach_result_add(const struct store_item *it, void *arg)
{
	struct buf	*b = arg;

	if (b->len > 1)
		buf_putc(b, ',');
	if (it->status == STEP_DONE && it->result_json != NULL)
		buf_puts(b, it->result_json);
	else
		buf_puts(b, "null");
	return (0);
}

/*
 * A for-each ended: items still waiting are cancelled; the row is done
 * with the items' results, or fails saying why.
 */
static void
foreach_finish(struct engine *e, struct ewf *wf, struct engine_foreach *fe,
    int ok)
{
	struct estep	*es;
	struct buf	 b;
	int64_t		 n;
	char		*why;

	engine_txn(e);
	if (store_items_cancel_waiting(e->store, fe->root, "not run: the "
	    "for-each stopped", time_now_ms(), &n) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	wf->nactive -= n;
	es = engine_step_new(e, wf, fe->spec, fe->id);
	es->role = ESTEP_FOREACH;
	es->fanout_id = fe->fanout_id;
	es->branch_no = fe->branch_no;
	es->attempt = fe->attempt;
	es->visit = fe->visit;
	es->no_retry = 1;
	why = fe->why != NULL ? xstrdup(fe->why) : xstrdup("stopped");
	buf_init(&b);
	buf_putc(&b, '[');
	if (ok && store_items_each(e->store, fe->root, foreach_result_add,
	    &b) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	buf_putc(&b, ']');
	foreach_forget(wf, fe);
	if (ok)
		engine_step_done(e, es, b.data, 0, 0);
	else
		engine_step_failed(e, es, why, 0, 0, NULL);
	buf_free(&b);
	free(why);
	engine_step_free(es);
}

/* Name up to FOREACH_NAMES failed items, for messages. */
struct foreach_names {
	struct buf	 b;
	int		 n;
};

static int
foreach_name_failed(const struct store_item *it, void *arg)
{
	struct foreach_names	*fn = arg;

	if (it->status != STEP_FAILED &&
	    it->status != STEP_CANCELLED)
		return (0);
	if (fn->n++ < FOREACH_NAMES)
		buf_printf(&fn->b, "%s%s", fn->b.len > 0 ? ", " : "",
		    it->label != NULL ? it->label : "?");
	else if (fn->n == FOREACH_NAMES + 1)
		buf_puts(&fn->b, ", ...");
	return (0);
}

/* Why the budget is spent: "2 of 20 items failed (a, b); 1 allowed". */
static char *
foreach_spent_why(struct engine *e, struct ewf *wf, struct engine_foreach *fe)
{
	struct foreach_names	 fn;
	char			*why;

	buf_init(&fn.b);
	fn.n = 0;
	if (store_items_each(e->store, fe->root, foreach_name_failed,
	    &fn) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	xasprintf(&why, "for-each %s: %d of %d items failed (%s), more than "
	    "the %d allowed", wf->flow->steps[fe->spec].name, fe->failed,
	    fe->n, fn.b.len > 0 ? fn.b.data : "", fe->budget + fe->forgiven);
	buf_free(&fn.b);
	return (why);
}

/* The label of the first item waiting below end, or NULL. */
static char *
foreach_next_label(struct engine *e, struct engine_foreach *fe, size_t end)
{
	struct store_step	*rows;
	size_t			 n;
	char			*cause = NULL, *label = NULL;

	if (store_items_queued(e->store, fe->root, (int)end, 1, &rows, &n,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	if (n > 0 && rows[0].label != NULL)
		label = xstrdup(rows[0].label);
	store_steps_free(rows, n);
	return (label);
}

/*
 * The message of a for-each's gate: the step's own (interpolated), then
 * what finished and what comes next, or what failed and the choices.
 */
static char *
foreach_gate_message(struct engine *e, struct ewf *wf,
    struct engine_foreach *fe, int batch)
{
	const struct flow_foreach *ffe = foreach_spec(wf, fe);
	cJSON			*scope;
	char			*own = NULL, *what, *msg, *first;
	size_t			 lo;

	if (ffe->gate.message != NULL && *ffe->gate.message != '\0') {
		scope = engine_scope(e, wf, wf->uses_steps[fe->spec]);
		own = interp_text(ffe->gate.message, scope);
		cJSON_Delete(scope);
	}
	if (batch > 0) {
		lo = fe->ends[batch - 1];
		first = foreach_next_label(e, fe, fe->ends[batch]);
		xasprintf(&what, "batch %d of %zu finished: %zu of %d items "
		    "ended, %d failed so far; next: batch %d of %zu, %zu "
		    "item%s from %s", batch, fe->nbatches, lo, fe->n,
		    fe->failed, batch + 1, fe->nbatches, fe->ends[batch] - lo,
		    fe->ends[batch] - lo == 1 ? "" : "s",
		    first != NULL ? first : "?");
		free(first);
	} else {
		what = foreach_spent_why(e, wf, fe);
		msg = what;
		xasprintf(&what, "%s; approve to go on, reject to abort, or "
		    "retry the failed items (sluice retry %lld)", msg,
		    (long long)wf->id);
		free(msg);
	}
	if (own == NULL)
		return (what);
	xasprintf(&msg, "%s: %s", own, what);
	free(own);
	free(what);
	return (msg);
}

/*
 * Ask people: before batch (0-based, > 0), or (batch -1) whether to go on
 * past a spent failure budget.  The gate takes gate_between_batches'
 * options; its row is one of the for-each's.
 */
static void
foreach_ask(struct engine *e, struct ewf *wf, struct engine_foreach *fe,
    int batch)
{
	const struct flow_step	*fs = &wf->flow->steps[fe->spec];
	const struct flow_gate	*g = &fs->foreach->gate;
	struct store_step	 row;
	struct flow_policy	 p;
	char			*msg, *json, label[64];
	int64_t			 now = time_now_ms();

	msg = foreach_gate_message(e, wf, fe, batch < 0 ? 0 : batch);
	/* The policy as every gate's, by the one rule; a timeout rejects. */
	engine_gate_policy(e, g, msg, &p);
	free(p.on_timeout);
	p.on_timeout = NULL;
	p.timeout_ms = -1;
	if (g->timeout > 0) {
		p.timeout_ms = g->timeout;
		p.on_timeout = xstrdup("reject");
	}
	p.foreach = batch < 0 ? FLOW_POLICY_BUDGET : FLOW_POLICY_BATCH;
	if (batch >= 0) {
		p.batch = batch + 1;
		snprintf(label, sizeof label, "before batch %d of %zu",
		    batch + 1, fe->nbatches);
	} else
		snprintf(label, sizeof label, "failure budget");
	json = flow_policy_write(&p);
	flow_policy_free(&p);
	engine_foreach_row_init(&row, fs);
	row.kind = KIND_GATE;
	row.tool = NULL;
	row.status = STEP_WAITING;
	row.gate_json = json;
	row.item_of = fe->id;
	row.label = label;
	row.visit = fe->visit;
	fe->gate = engine_foreach_row_add(e, wf, &row);
	engine_gate_waiting(e, wf, fs, fe->gate, now);
	if (g->timeout > 0) {
		if (store_timer_add(e->store, now + g->timeout, "gate_timeout",
		    wf->id, fe->gate) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_timers_rearm(e, now + g->timeout);
	}
	log_debug("%s: for-each %lld: %s: %s", __func__, (long long)fe->id,
	    label, msg);
	free(json);
	free(msg);
}

/* Make ready the rows of items waiting below end, up to room of them. */
static void
foreach_start(struct engine *e, struct engine_foreach *fe, size_t end,
    int room)
{
	struct store_step	*rows;
	struct estep		*es;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_items_queued(e->store, fe->root, (int)end, room, &rows, &n,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (store_step_set_status(e->store, rows[i].id, STEP_READY,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if ((es = engine_step_from_row(e, &rows[i])) != NULL)
			engine_step_ready(e, es);
	}
	store_steps_free(rows, n);
}

/*
 * Move a for-each on: mind the budget, end it when every item has, ask
 * before a batch, and start what the batch and concurrency allow.
 */
void
engine_foreach_pump(struct engine *e, struct ewf *wf,
    struct engine_foreach *fe)
{
	foreach_pump(e, wf, fe, NULL);
}

/*
 * engine_foreach_pump, with the items in flight and the first not ended
 * given by read (recovery read them for every for-each at once), else
 * read here.
 */
static void
foreach_pump(struct engine *e, struct ewf *wf, struct engine_foreach *fe,
    const struct store_recover_foreach *read)
{
	const struct flow_foreach *ffe = foreach_spec(wf, fe);
	int64_t			 inflight, first, ran;
	size_t			 k;
	int			 limit;

	if (wf->ended || fe->gate != 0)
		return;
	engine_txn(e);
	if (!fe->stopping && fe->failed - fe->forgiven > fe->budget) {
		if (ffe->on_budget_spent == FLOW_BUDGET_ASK) {
			foreach_ask(e, wf, fe, -1);
			return;
		}
		fe->stopping = 1;
		free(fe->why);
		fe->why = foreach_spent_why(e, wf, fe);
	}
	if (read != NULL) {
		inflight = read->inflight;
		first = read->first;
	} else if (store_items_inflight(e->store, fe->root, &inflight) != 0 ||
	    store_items_first(e->store, fe->root, &first) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (fe->stopping) {
		if (inflight == 0)
			foreach_finish(e, wf, fe, 0);
		return;
	}
	if (first < 0) {
		foreach_finish(e, wf, fe, 1);
		return;
	}
	k = foreach_batch_of(fe, first);
	if (k > 0 && ffe->gated && fe->passed < (int)k + 1) {
		if (store_items_ran(e->store, fe->root, (int)fe->ends[k - 1],
		    (int)fe->ends[k], &ran) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (!ran) {
			foreach_ask(e, wf, fe, (int)k);
			return;
		}
	}
	limit = ffe->concurrency > 0 ? ffe->concurrency : FOREACH_WINDOW;
	if (inflight < limit)
		foreach_start(e, fe, fe->ends[k], limit - (int)inflight);
}

/*
 * Walk a for-each's items in place in the run's input text when they
 * are one reference into it ("{{input.hosts}}") naming an array there:
 * each item is parsed only while it is looked at, and the input is never
 * parsed whole.  0 when they are not.
 */
static int
foreach_items_input(struct ewf *wf, const struct flow_foreach *ffe,
    struct flow_items *it)
{
	const char	*vp, *ve, *end;
	char		*ref, *segs[16], *p, *seg;
	size_t		 n = 0;
	int		 ok;

	if ((ref = interp_ref_text(ffe->items_src)) == NULL)
		return (0);
	ok = strncmp(ref, "input.", 6) == 0;
	p = ref + 6;
	while (ok && (seg = strsep(&p, ".")) != NULL) {
		if (*seg == '\0' || n == nitems(segs))
			ok = 0;
		else
			segs[n++] = seg;
	}
	end = wf->input_json + strlen(wf->input_json);
	if (ok && json_scan_lookup(wf->input_json, end, segs, n, &vp,
	    &ve) == 1 && *vp == '[')
		flow_items_text(it, vp, ve);
	else
		ok = 0;
	free(ref);
	return (ok);
}

/*
 * A for-each's items resolved in scope (which holds the whole input):
 * the literal array, the value one reference names (read in place, not
 * copied), or any other interpolation.  What must be freed is in *owned.
 */
static const cJSON *
foreach_items_resolve(const struct flow_foreach *ffe, cJSON *scope,
    cJSON **owned)
{
	const cJSON	*list;
	cJSON		*src;

	*owned = NULL;
	if (ffe->items_json != NULL)
		return (*owned = json_parse_or_null(ffe->items_json));
	/* Not when the scope has an item of its own: labels replace it. */
	if (cJSON_GetObjectItemCaseSensitive(scope, "item") == NULL &&
	    cJSON_GetObjectItemCaseSensitive(scope, "index") == NULL &&
	    (list = interp_ref(ffe->items_src, scope)) != NULL)
		return (list);
	src = cJSON_CreateString(ffe->items_src);
	*owned = interp_value(src, scope);
	cJSON_Delete(src);
	return (*owned);
}

/* A for-each's items were refused: the step fails saying why.  Takes es. */
static void
foreach_refused(struct engine *e, struct estep *es, struct flow_diags *d)
{
	const struct flow_step	*fs = engine_spec(es);
	const struct flow_foreach *ffe = fs->foreach;
	char			*first, *why;

	first = flow_diags_first_error(d, NULL);
	xasprintf(&why, "for-each %s: %s%s", fs->name,
	    ffe->items_src != NULL ? ffe->items_src : "items",
	    first != NULL && strncmp(first, "$", 1) == 0 ?
	    first + 1 : first != NULL ? first : "");
	free(first);
	engine_step_failed(e, es, why, 0, 0, NULL);
	free(why);
	engine_step_free(es);
}

/*
 * A for-each row starts: resolve and check its items, make a row for
 * each, and start the first batch.  Nothing holds the items meanwhile
 * but the walk: one at a time from the input's text, else the resolved
 * array.  Takes es.
 */
void
engine_foreach_begin(struct engine *e, struct estep *es)
{
	struct ewf		*wf = es->wf;
	const struct flow_step	*fs = &wf->flow->steps[es->spec];
	const struct flow_foreach *ffe = fs->foreach;
	struct engine_foreach	*fe;
	struct flow_diags	*d;
	struct flow_items	 it;
	struct store_step	 row, item;
	cJSON			*scope, *items = NULL;
	const cJSON		*list, *c;
	char			*why, *label, *json;
	int			 n, i, errors;

	es->no_retry = 1;
	memset(&row, 0, sizeof row);
	row.id = es->id;
	row.args_json = (char *)"{}";
	if (store_step_start(e->store, &row, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	scope = engine_scope(e, wf, wf->uses_steps[es->spec]);
	d = flow_diags_create();
	if (foreach_items_input(wf, ffe, &it))
		errors = flow_foreach_walk(ffe, &it, "$", d);
	else {
		/* The workflow keeps only what its steps read of the input. */
		cJSON_ReplaceItemInObjectCaseSensitive(scope, "input",
		    json_parse_or_null(wf->input_json));
		list = foreach_items_resolve(ffe, scope, &items);
		flow_items_array(&it, cJSON_IsArray(list) ? list : NULL);
		errors = flow_foreach_items(ffe, list, "$", d);
	}
	if (errors > 0) {
		flow_items_free(&it);
		cJSON_Delete(items);
		cJSON_Delete(scope);
		foreach_refused(e, es, d);
		flow_diags_free(d);
		return;
	}
	flow_diags_free(d);
	n = (int)flow_items_count(&it);
	if (store_foreach_set_items(e->store, es->id, n) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	for (i = 0; (c = flow_items_next(&it)) != NULL; i++) {
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "item");
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "index");
		cJSON_AddItemToObject(scope, "item", cJSON_Duplicate(c, 1));
		cJSON_AddNumberToObject(scope, "index", i);
		label = flow_foreach_label(ffe, c, scope, &why);
		json = json_print(c);
		engine_foreach_row_init(&item, fs);
		item.status = STEP_PENDING;
		item.visit = es->visit;
		item.item_of = es->id;
		item.item_index = i;
		item.label = label;
		item.item_json = json;
		engine_foreach_row_add(e, wf, &item);
		free(label);
		free(why);
		free(json);
	}
	flow_items_free(&it);
	cJSON_Delete(items);
	cJSON_Delete(scope);
	if (n == 0) {
		engine_step_done(e, es, "[]", 0, 0);
		engine_step_free(es);
		return;
	}
	engine_step_free(es);
	if ((fe = engine_foreach_load(e, wf, row.id)) != NULL)
		engine_foreach_pump(e, wf, fe);
}

/* An item ended: done (or skipped) when ok, else failed for good. */
void
engine_foreach_item_ended(struct engine *e, struct estep *es, int ok)
{
	struct engine_foreach	*fe;
	int			 fresh;

	if ((fe = engine_foreach_of(e, es->wf, es->item_of, &fresh)) == NULL)
		return;
	if (!ok && !fresh)
		fe->failed++;
	engine_foreach_pump(e, es->wf, fe);
}

/* Rewrite a decided gate's result with the decision the for-each took. */
static void
foreach_gate_result(struct engine *e, int64_t id, const char *result)
{
	struct store_step	*row;
	char			*cause = NULL;

	if (store_step_get(e->store, id, &row, &cause) != 0)
		engine_store_fatal(e, cause);
	free(row->result_json);
	row->result_json = xstrdup(result);
	if (store_step_end(e->store, row, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	store_step_free(row);
}

/*
 * A for-each's gate was decided (approved, rejected, skipped): go on with
 * the next batch or past the failures, or abort.
 */
void
engine_foreach_gate_decided(struct engine *e, struct estep *es,
    const char *how)
{
	struct engine_foreach	*fe;
	struct store_step	*row;
	struct flow_policy	 p;
	char			*cause = NULL, *result;
	int			 fresh, batch;

	if ((fe = engine_foreach_of(e, es->wf, es->item_of, &fresh)) == NULL)
		return;
	if (store_step_get(e->store, es->id, &row, &cause) != 0)
		engine_store_fatal(e, cause);
	if (flow_policy_read(row->gate_json, KIND_GATE, &p, &cause) != 0) {
		log_debug("%s: gate step %lld: %s", __func__,
		    (long long)row->id, cause);
		free(cause);
	}
	batch = p.foreach == FLOW_POLICY_BATCH ? p.batch : 0;
	flow_policy_free(&p);
	if (fe->gate == es->id)
		fe->gate = 0;
	if (strcmp(how, "rejected") == 0) {
		fe->stopping = 1;
		free(fe->why);
		xasprintf(&fe->why, "for-each %s: aborted at its %s gate: %s",
		    es->wf->flow->steps[fe->spec].name, batch > 0 ? "batch" :
		    "failure budget", row->error != NULL ? row->error : "");
		result = xstrdup("{\"decision\":\"abort\"}");
	} else if (batch > 0) {
		if (batch > fe->passed)
			fe->passed = batch;
		result = xstrdup("{\"decision\":\"continue\"}");
	} else {
		fe->forgiven = fe->failed;
		xasprintf(&result, "{\"decision\":\"continue\","
		    "\"failures\":%d}", fe->failed);
	}
	foreach_gate_result(e, es->id, result);
	free(result);
	store_step_free(row);
	engine_foreach_pump(e, es->wf, fe);
}

/* The engine took over: a for-each row that was running goes on. */
void
engine_foreach_resume(struct engine *e, const struct store_step *row)
{
	struct engine_foreach	*fe;
	struct ewf		*wf;
	int			 fresh;

	if ((wf = engine_wf_get(e, row->workflow_id)) == NULL || wf->ended)
		return;
	if ((fe = engine_foreach_of(e, wf, row->id, &fresh)) != NULL)
		engine_foreach_pump(e, wf, fe);
}

/*
 * engine_foreach_resume from what recovery read of every for-each in
 * flight at once (recover-batch.c): read, the counts of its items, and
 * its gate rows, oldest first.  The state and the pump are those the
 * reads one by one give; a for-each that is not as read (in memory
 * already, since an item of it ended during recovery; or no longer its
 * current row) is read again on its own.
 */
void
engine_foreach_resume_read(struct engine *e, const struct store_step *row,
    const struct store_recover_foreach *read, const struct store_step *gates,
    size_t ngates)
{
	struct engine_foreach	*fe;
	struct ewf		*wf;

	if ((wf = engine_wf_get(e, row->workflow_id)) == NULL || wf->ended)
		return;
	if (read == NULL || read->current != row->id ||
	    foreach_find(wf, row->id) != NULL) {
		engine_foreach_resume(e, row);
		return;
	}
	if ((fe = foreach_make(wf, row)) == NULL)
		return;
	fe->failed = (int)read->failed;
	foreach_gates_apply(fe, gates, ngates);
	TAILQ_INSERT_TAIL(&wf->foreachs, fe, entry);
	foreach_pump(e, wf, fe, read);
}
