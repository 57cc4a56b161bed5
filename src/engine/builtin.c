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
 * builtin.c: the runner of the built-in tools (noop, echo, fail and
 * sleep), which end in the engine itself, with no process: a sleep is a
 * timer, which a cancel ends at once.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	 engine_builtin_start(struct engine *, struct estep *,
		     const struct flow_tool *, const char *, struct cJSON *);
static void	 engine_builtin_slept(void *);
static void	 engine_builtin_kill(struct engine *, struct estep *);

const struct engine_runner engine_runner_builtin = {
	.name = "built-in",
	.start = engine_builtin_start,
	.kill = engine_builtin_kill
};

/* Run a built-in tool with its resolved args. */
static void
engine_builtin_start(struct engine *e, struct estep *es,
    const struct flow_tool *t, const char *args, struct cJSON *scope)
{
	const struct flow_step	*fs = engine_spec(es);
	cJSON			*a, *v;
	int64_t			 ms = 0;
	const char		*bad = NULL;
	char			*why;

	engine_exec_running(e, es, args, NULL);
	engine_trace(e, 'S', es->id);
	if (strcmp(fs->tool, "noop") == 0)
		engine_step_done(e, es, "null", 0, 0);
	else if (strcmp(fs->tool, "echo") == 0)
		engine_step_done(e, es, args, 0, 0);
	else if (strcmp(fs->tool, "fail") == 0) {
		a = cJSON_Parse(args);
		v = cJSON_GetObjectItemCaseSensitive(a, "message");
		engine_step_failed(e, es, cJSON_IsString(v) ?
		    v->valuestring : "failed", 0, 0, NULL);
		cJSON_Delete(a);
	} else if (strcmp(fs->tool, "sleep") == 0) {
		a = cJSON_Parse(args);
		v = cJSON_GetObjectItemCaseSensitive(a, "seconds");
		if (v != NULL && flow_duration_json(v, &ms, &bad) != 0)
			ms = -1;
		cJSON_Delete(a);
		if (ms < 0) {
			xasprintf(&why, "sleep: bad seconds: %s",
			    bad != NULL ? bad : "?");
			engine_step_failed(e, es, why, 0, 0, NULL);
			free(why);
		} else if (e->offline) {
			return;		/* stays running: the next engine */
		} else {
			es->timer = loop_timer_create(e->loop,
			    engine_builtin_slept, es);
			loop_timer_start(es->timer, ms);
			return;
		}
	}
	engine_exec_end(e, es);
}

/* A sleep step's time is up. */
static void
engine_builtin_slept(void *arg)
{
	struct estep	*es = arg;
	struct engine	*e = es->engine;

	/* Cut short by a shutdown, it stays running: on_interrupt decides. */
	if (!es->cancelled && !es->interrupted)
		engine_step_done(e, es, "null", 0, 0);
	engine_exec_end(e, es);
}

/* Stop a built-in: a sleep ends now. */
static void
engine_builtin_kill(struct engine *e, struct estep *es)
{
	if (es->timer != NULL && !es->timed_out)
		loop_timer_start(es->timer, 0);
}
