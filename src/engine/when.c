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
 * when.c: a step's "when" condition, checked when the step would start.
 * False skips the step ("when was false") and the run goes on as if it
 * had completed with a null result.  A process step is checked as it
 * leaves the ready queue; a gate or a wait step would start waiting for
 * people as its row is made, so it is checked then, and a false one is
 * made ready instead, to be skipped as it leaves the queue.  A retry is
 * never checked again: the pass was already under way.
 */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* Does step fs's "when" hold now in wf (1), or is it false (0)? */
int
engine_when_holds(struct engine *e, struct ewf *wf,
    const struct flow_step *fs)
{
	cJSON	*scope;
	int	 holds;

	if (fs->when == NULL)
		return (1);
	scope = engine_scope(e, wf, wf->uses_steps[fs - wf->flow->steps]);
	holds = cond_eval(fs->when, scope) == 1;
	cJSON_Delete(scope);
	return (holds);
}

/*
 * A ready step is about to start: skip it when its "when" is false.  A
 * plain gate or wait step reaches the queue only when its "when" was
 * false as its row was made.  Returns 1 when es was skipped (and freed).
 */
int
engine_when_skip(struct engine *e, struct estep *es)
{
	const struct flow_step	*fs = &es->wf->flow->steps[es->spec];

	if (fs->when == NULL || es->attempt > 1 ||
	    (es->role != ESTEP_PLAIN && es->role != ESTEP_FOREACH))
		return (0);
	if (fs->foreach != NULL || !kind_decided(fs->exec)) {
		if (engine_when_holds(e, es->wf, fs))
			return (0);
	}
	engine_step_skipped(e, es, "when was false");
	engine_step_free(es);
	return (1);
}
