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
 * handler.c: a flow's run-level handlers, "on_failure" and "finally"
 * (SPEC §3).  Each is one step object written inline beside the steps.
 * It is kept as a step of the flow, after the others, so everything a
 * step has (kinds, retry, timeout, logs, recovery after a crash) is a
 * handler's too; what sets it apart is that nothing leads to it: the
 * engine starts it when the run would end, and it has no transitions of
 * its own (when it ends, the run ends).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 handler_refuse(const char *, const char *, const char *,
		     struct flow_diags *);

/* Is key one of the run-level handlers' names? */
int
flow_handler_key(const char *key)
{
	return (key != NULL && (strcmp(key, FLOW_ON_FAILURE) == 0 ||
	    strcmp(key, FLOW_FINALLY) == 0));
}

/* The handler a step index is ("on_failure", "finally"), or NULL. */
const char *
flow_handler_of(const struct flow *f, int spec)
{
	if (f == NULL || spec < 0)
		return (NULL);
	if (spec == f->on_failure)
		return (FLOW_ON_FAILURE);
	if (spec == f->finally)
		return (FLOW_FINALLY);
	return (NULL);
}

/* How many handlers a flow has (they are among its steps). */
size_t
flow_handler_count(const struct flow *f)
{
	return ((f->on_failure >= 0) + (f->finally >= 0));
}

/*
 * How people see a handler's row, from its step key and name: "on
 * failure", "finally", or with a name of its own "on failure: page".
 * NULL for any other step (the keys are the handlers' alone).
 */
const char *
flow_handler_title(const char *key, const char *name, char *buf, size_t len)
{
	const char	*label;

	if (key == NULL)
		return (NULL);
	if (strcmp(key, FLOW_ON_FAILURE) == 0)
		label = "on failure";
	else if (strcmp(key, FLOW_FINALLY) == 0)
		label = "finally";
	else
		return (NULL);
	if (name == NULL || strcmp(name, key) == 0)
		snprintf(buf, len, "%s", label);
	else
		snprintf(buf, len, "%s: %s", label, name);
	return (buf);
}

/* Say that field has no place in a handler (at path.field). */
static void
handler_refuse(const char *path, const char *field, const char *which,
    struct flow_diags *d)
{
	char	*sub;

	sub = flow_path_key(path, field);
	flow_diags_add(d, FLOW_ERROR, sub, "\"%s\" has no place in \"%s\" "
	    "(the run ends when its handler ends)", field, which);
	free(sub);
}

/*
 * Parse a handler's step object (v, at path) and add it to the flow,
 * after the steps; which is "on_failure" or "finally".  Given twice (the
 * template wrapper and its flow), the second is an error.
 */
void
flow_handler_parse(struct flow *f, const cJSON *v, const char *path,
    const char *which, struct flow_diags *d)
{
	struct flow_step	*st;
	char			*sub;
	int			*slot;

	slot = strcmp(which, FLOW_ON_FAILURE) == 0 ? &f->on_failure :
	    &f->finally;
	if (*slot >= 0) {
		flow_diags_add(d, FLOW_ERROR, path, "\"%s\" is given both "
		    "here and in the flow", which);
		return;
	}
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "\"%s\" must be a step "
		    "object (with tool, run, shell, ...), got %s", which,
		    json_type_name(v));
		return;
	}
	f->steps = xreallocarray(f->steps, f->nsteps + 1, sizeof *f->steps);
	st = &f->steps[f->nsteps];
	flow_step_parse(st, v, which, path, d);
	*slot = (int)f->nsteps++;
	if (st->next != NULL)
		handler_refuse(path, "next", which, d);
	if (st->nbranch > 0)
		handler_refuse(path, "branch", which, d);
	if (st->parallel != NULL)
		handler_refuse(path, "parallel", which, d);
	if (st->join != NULL)
		handler_refuse(path, "join", which, d);
	if (st->done)
		handler_refuse(path, "done", which, d);
	if (st->foreach != NULL)
		handler_refuse(path, "foreach", which, d);
	if (st->gate.on_timeout != NULL &&
	    strcmp(st->gate.on_timeout, "reject") != 0) {
		sub = flow_path_key(path, "gate");
		handler_refuse(sub, "on_timeout", which, d);
		free(sub);
	} else if (st->wait.on_timeout != NULL &&
	    strcmp(st->wait.on_timeout, "fail") != 0) {
		sub = flow_path_key(path, "wait");
		handler_refuse(sub, "on_timeout", which, d);
		free(sub);
	}
}
