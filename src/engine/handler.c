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
 * handler.c: a run's "on_failure" and "finally" handlers.  When a run
 * would end, what it still has in flight is cancelled as for any end,
 * but the run stays running: its ending (the status it will have, and
 * why) is stored on its row and a row for the handler is made, in the
 * same transaction, so a crash in between resumes the handler like any
 * step.  on_failure runs first when the run fails, then finally, which
 * runs whatever the end.  When the last handler ends, the run ends as it
 * would have, or failed when a handler failed (its reason added).  A
 * cancel (or a deadline) while a handler runs kills it and ends the run.
 */

#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

static void	 engine_handler_start(struct engine *, struct ewf *, int);
static void	 engine_handler_store(struct engine *, struct ewf *);

/* Is a step row one of its run's handlers? */
int
engine_handler_is(const struct estep *es)
{
	return (flow_handler_of(es->wf->flow, es->spec) != NULL);
}

/* Keep a run's ending on its row, where recovery finds it. */
static void
engine_handler_store(struct engine *e, struct ewf *wf)
{
	if (store_workflow_set_ending(e->store, wf->id, wf->ending,
	    wf->ending_why, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
}

/* Make the row of a handler (spec), ready to run. */
static void
engine_handler_start(struct engine *e, struct ewf *wf, int spec)
{
	struct estep_origin	 o;

	log_debug("%s: workflow %lld: %s, ending %s", __func__,
	    (long long)wf->id, flow_handler_of(wf->flow, spec),
	    status_run_name(wf->ending));
	memset(&o, 0, sizeof o);
	engine_step_create(e, wf, spec, &o);
}

/*
 * A run would end with status (why: its reason, or NULL): when it has a
 * handler for that end, cancel what is in flight and start the handler
 * instead; 1 then, 0 when the run ends now.  Handlers run once per end:
 * none begins while one runs.
 */
int
engine_handler_begin(struct engine *e, struct ewf *wf,
    enum run_status status, const char *why)
{
	const struct flow	*f = wf->flow;
	int			 spec;

	if (wf->handling)
		return (0);
	spec = status == RUN_FAILED && f->on_failure >= 0 ? f->on_failure :
	    f->finally;
	if (spec < 0)
		return (0);
	engine_txn(e);
	wf->handling = 1;
	wf->ending = status;
	free(wf->ending_why);
	wf->ending_why = mask_text(wf->mask, why);
	engine_rows_cancel(e, wf, 0, engine_end_reason(status,
	    wf->ending_why));
	engine_handler_store(e, wf);
	engine_handler_start(e, wf, spec);
	return (1);
}

/*
 * A handler's row ended; failed says why it failed, or is NULL.  After
 * on_failure comes finally (when there is one); after the last handler
 * the run ends: failed when a handler failed, else as it would have.
 */
void
engine_handler_ended(struct engine *e, struct estep *es, const char *failed)
{
	struct ewf		*wf = es->wf;
	const struct flow	*f = wf->flow;
	const char		*which = flow_handler_of(f, es->spec);
	char			*why;

	if (!wf->handling || wf->ended)
		return;
	engine_txn(e);
	if (failed != NULL) {
		xasprintf(&why, "%s%shandler %s failed: %s",
		    wf->ending_why != NULL ? wf->ending_why : "",
		    wf->ending_why != NULL ? "; " : "", which, failed);
		free(wf->ending_why);
		wf->ending_why = mask_text(wf->mask, why);
		free(why);
		wf->ending = RUN_FAILED;
	}
	if (es->spec == f->on_failure && f->finally >= 0) {
		engine_handler_store(e, wf);
		engine_handler_start(e, wf, f->finally);
		return;
	}
	engine_wf_end(e, wf, wf->ending, wf->ending_why);
}

/*
 * A running workflow taken into memory (after a restart): is it ending,
 * its handlers running?
 */
void
engine_handler_load(struct engine *e, struct ewf *wf, const char *error)
{
	enum run_status	 ending;

	if (store_workflow_ending(e->store, wf->id, &ending) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_handler_set(wf, ending, error);
}

/*
 * What a running workflow's row says of its ending (RUN_RUNNING: none),
 * and why (its error), read one by one or with every run's at a takeover.
 */
void
engine_handler_set(struct ewf *wf, enum run_status ending, const char *error)
{
	if (ending == RUN_RUNNING)
		return;
	wf->handling = 1;
	wf->ending = ending;
	free(wf->ending_why);
	wf->ending_why = error != NULL ? xstrdup(error) : NULL;
}
