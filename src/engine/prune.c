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
 * prune.c: the engine's side of removing old finished runs: the "prune"
 * command (one batch per command, so the loop is never held for long; the
 * CLI sends the next), and the daily prune of the site's "retention", a
 * stored timer that goes on batch by batch, one per loop turn.  The runs
 * the engine still holds in memory (a step of an ended run whose process
 * is still being reaped) are never pruned under it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/*
 * A batch is as many slices of a few top-level runs (with their families)
 * as fit in ENGINE_PRUNE_MS of the loop's time: one family can be
 * large (a for-each of 10,000 items), a fixed count of runs is no bound
 * on the time, and commands wait while a batch runs.  A batch also ends
 * after the slice during which a client's request came: the request is
 * applied at once after it, in the same transaction (engine_server_take),
 * so it waits for one slice and shares the batch's commit.
 */
#define ENGINE_PRUNE_SLICE	8		/* top-level runs per slice */
#define ENGINE_PRUNE_MS		20		/* loop time per batch */
#define ENGINE_PRUNE_DAY	(24LL * 3600 * 1000)

static int64_t	engine_prune_ms(void);
static int	engine_prune_batch(struct engine *, int64_t, int64_t,
		    struct store_prune_result *, char **);
static char	*engine_prune_detail(int64_t, const struct store_prune_result *);

/* A batch's loop time (test builds: $SLUICE_TEST_PRUNE_MS, to see it end). */
static int64_t
engine_prune_ms(void)
{
#ifdef SLUICE_TEST_CLOCK
	const char	*v = getenv("SLUICE_TEST_PRUNE_MS");
	int64_t		 n;

	if (v != NULL && str_parse_int64(v, &n) == 0 && n > 0)
		return (n);
#endif
	return (ENGINE_PRUNE_MS);
}

/*
 * One batch in the open transaction, keeping what the engine holds:
 * slices from after on until ENGINE_PRUNE_MS have gone, a request waits
 * on the socket or nothing older is left; out has their sum and where
 * the next batch starts.
 */
static int
engine_prune_batch(struct engine *e, int64_t before, int64_t after,
    struct store_prune_result *out, char **cause)
{
	struct store_prune_opts		 o;
	struct store_prune_result	 p;
	struct ewf			*wf;
	int64_t				*keep = NULL, start;
	size_t				 n = 0;
	int				 rc;

	RB_FOREACH(wf, ewf_tree, &e->workflows) {
		keep = xreallocarray(keep, n + 1, sizeof *keep);
		keep[n++] = wf->id;
	}
	memset(&o, 0, sizeof o);
	o.before = before;
	o.after = after;
	o.limit = ENGINE_PRUNE_SLICE;
	o.keep = keep;
	o.nkeep = n;
	memset(out, 0, sizeof *out);
	engine_txn(e);
	start = time_mono_ms();
	do {
		if ((rc = store_prune(e->store, &o, &p, cause)) != 0)
			break;
		out->runs += p.runs;
		out->roots += p.roots;
		out->steps += p.steps;
		out->logs += p.logs;
		out->next = o.after = p.next;
#ifdef SLUICE_TEST_CLOCK
		engine_test_hold("prune");
#endif
		if (p.next != 0 && engine_server_pending(e)) {
			loop_defer(e->loop, engine_server_take, e);
			break;
		}
	} while (p.next != 0 && time_mono_ms() - start < engine_prune_ms());
	free(keep);
	return (rc);
}

/* The audit row's detail: what went, and the time it was cut at. */
static char *
engine_prune_detail(int64_t before, const struct store_prune_result *p)
{
	cJSON	*d;
	char	*text;

	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "before", (double)before);
	cJSON_AddNumberToObject(d, "runs", (double)p->runs);
	cJSON_AddNumberToObject(d, "top_level", (double)p->roots);
	cJSON_AddNumberToObject(d, "steps", (double)p->steps);
	cJSON_AddNumberToObject(d, "logs", (double)p->logs);
	text = json_print(d);
	cJSON_Delete(d);
	return (text);
}

/*
 * prune {"before": MS, "after": ID}: remove one batch of the runs that
 * finished before MS, from top-level id ID up; the reply says what went
 * and where the next batch starts (next 0: done).
 */
int
engine_cmd_prune(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_prune_result	 p;
	cJSON				*a, *v;
	int64_t				 before = -1, after = 0;
	char				*cause = NULL, *detail, *target;

	if (m->args_json != NULL && (a = cJSON_Parse(m->args_json)) != NULL) {
		v = cJSON_GetObjectItemCaseSensitive(a, "before");
		if (cJSON_IsNumber(v))
			before = (int64_t)v->valuedouble;
		v = cJSON_GetObjectItemCaseSensitive(a, "after");
		if (cJSON_IsNumber(v) && v->valuedouble > 0)
			after = (int64_t)v->valuedouble;
		cJSON_Delete(a);
	}
	if (before < 0) {
		r->code = 2;
		r->message = xstrdup("prune: no time to prune before");
		return (r->code);
	}
	if (engine_prune_batch(e, before, after, &p, &cause) != 0)
		engine_store_fatal(e, cause);
	r->next = p.next;
	r->pruned_runs = p.runs;
	r->pruned_steps = p.steps;
	r->pruned_logs = p.logs;
	if (p.runs > 0) {
		detail = engine_prune_detail(before, &p);
		xasprintf(&target, "%lld runs", (long long)p.runs);
		engine_audit(e, m, "prune", 0, 0, target, NULL, detail);
		free(target);
		free(detail);
	}
	xasprintf(&r->message, "removed %lld runs (%lld steps, %lld log "
	    "chunks)", (long long)p.runs, (long long)p.steps,
	    (long long)p.logs);
	return (0);
}

/*
 * The retention timer fired: prune a batch of the runs finished longer
 * ago than the site's retention, audited as the engine's own account;
 * the next batch on the next turn, and a day later once none is left.
 */
void
engine_prune_due(struct engine *e)
{
	struct store_prune_result	 p;
	struct store_inbox		 self;
	const struct user_info		*me = user_self();
	int64_t				 now = time_now_ms(), before;
	char				*cause = NULL, *detail, *target;

	if (e->opts.retention <= 0)
		return;		/* retention was taken out of the config */
	before = e->prune_before != 0 ? e->prune_before :
	    now - e->opts.retention;
	if (engine_prune_batch(e, before, e->prune_after, &p, &cause) != 0)
		engine_store_fatal(e, cause);
	if (p.runs > 0) {
		memset(&self, 0, sizeof self);
		self.uid = me->uid;
		self.who = me->name;
		self.host = me->host;
		detail = engine_prune_detail(before, &p);
		xasprintf(&target, "%lld runs (retention)", (long long)p.runs);
		engine_audit(e, &self, "prune", 0, 0, target, NULL, detail);
		free(target);
		free(detail);
	}
	e->prune_after = p.next;
	e->prune_before = p.next != 0 ? before : 0;
	if (store_timer_add(e->store, p.next != 0 ? now : now +
	    ENGINE_PRUNE_DAY, "prune", 0, 0) != 0)
		engine_store_fatal(e, store_last_error(e->store));
}

/*
 * At start: with a retention, make sure a prune timer is stored (the
 * first prune runs at once); without one, a stored one is dropped when
 * it fires.
 */
void
engine_prune_open(struct engine *e)
{
	int64_t	 n;

	if (e->opts.retention <= 0 || e->offline)
		return;
	if (store_timer_count(e->store, "prune", &n) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (n > 0)
		return;
	engine_txn(e);
	if (store_timer_add(e->store, time_now_ms(), "prune", 0, 0) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, time_now_ms());
}
