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
 * deadline.c: a run's "deadline".  A stored timer from the run's start,
 * so it survives restarts; when it fires on a run that has not ended,
 * the run is cancelled with the reason "deadline passed" (its running
 * processes killed as for any cancel), audited, and announced as
 * workflow_deadline.  An SLA, by contrast, only alerts.
 */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* A run's stored timer of a kind, ms after from (none when ms is 0). */
void
engine_run_timer_arm(struct engine *e, const char *kind, int64_t id,
    int64_t ms, int64_t from)
{
	int64_t	 due;

	if (ms <= 0)
		return;
	due = from + ms;
	engine_txn(e);
	if (store_timer_add(e->store, due, kind, id, 0) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, due);
}

/* Arm a run's deadline: a stored timer deadline_ms after from. */
void
engine_deadline_arm(struct engine *e, int64_t id, int64_t deadline_ms,
    int64_t from)
{
	engine_run_timer_arm(e, "deadline", id, deadline_ms, from);
}

/* A deadline is due: cancel the run if it has not ended. */
void
engine_deadline_due(struct engine *e, int64_t id)
{
	struct ewf		*wf;
	struct store_inbox	 self;
	cJSON			*d;
	char			*target, *comment, *text, span[32];

	if ((wf = engine_wf_get(e, id)) == NULL || wf->ended)
		return;
	engine_txn(e);
	flow_duration_format(wf->flow->deadline_ms, span, sizeof span);
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "deadline_ms",
	    (double)wf->flow->deadline_ms);
	text = json_print(d);
	xasprintf(&comment, "deadline passed: unfinished %s after it "
	    "started", span);
	xasprintf(&target, "workflow %lld %s", (long long)id, wf->name);
	engine_self(&self);
	engine_audit(e, &self, "deadline", id, 0, target, comment, text);
	log_debug("%s: workflow %lld: deadline passed", __func__,
	    (long long)id);
	engine_notify(e, "workflow_deadline", id, 0, d);
	engine_wf_cancel_why(e, wf, "deadline passed");
	free(target);
	free(comment);
	free(text);
}
