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
 * scope.c: what {{input...}}, {{workflow...}} and {{steps.X...}} see, and
 * which branch arm a step's outcome takes.  The engine resolves args,
 * gate messages and conditions against this scope; the console's step
 * view previews "what runs next, with which args" against the same one,
 * built by the same code, so the two cannot disagree.  Pure: callers pass
 * the input and the finished rows they read.
 *
 *	input		the workflow's input (an object, or null)
 *	workflow	{"id": N, "name": "..."}
 *	steps.KEY	each finished step's latest {"result", "exit_code",
 *			"status"}, also under its name when that differs
 *	result, exit_code	for a branch, the step's own outcome
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"

/*
 * A new scope with no steps yet.  input is taken into the scope, or only
 * lent when lend is set (the caller keeps it alive longer than the scope:
 * the engine parses a workflow's input once for all its scopes).
 */
cJSON *
flow_scope_create(cJSON *input, int lend, int64_t id, const char *name)
{
	cJSON	*scope, *w;

	scope = cJSON_CreateObject();
	if (input == NULL)
		cJSON_AddNullToObject(scope, "input");
	else if (lend)
		cJSON_AddItemReferenceToObject(scope, "input", input);
	else
		cJSON_AddItemToObject(scope, "input", input);
	w = cJSON_AddObjectToObject(scope, "workflow");
	cJSON_AddNumberToObject(w, "id", (double)id);
	cJSON_AddStringToObject(w, "name", name != NULL ? name : "");
	cJSON_AddObjectToObject(scope, "steps");
	return (scope);
}

/*
 * Add a finished step row to steps, by key and (when it differs) by name;
 * a later row of the same step replaces an earlier one.
 */
void
flow_scope_add(cJSON *scope, const struct flow *f,
    const struct flow_scope_step *s)
{
	cJSON	*steps, *o;
	int	 i;

	steps = cJSON_GetObjectItemCaseSensitive(scope, "steps");
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "result", json_parse_or_null(s->result_json));
	if (s->has_exit_code)
		cJSON_AddNumberToObject(o, "exit_code", s->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_code");
	cJSON_AddStringToObject(o, "status", status_step_name(s->status));
	if ((i = flow_find(f, s->step_key)) >= 0 &&
	    strcmp(f->steps[i].name, f->steps[i].key) != 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(steps,
		    f->steps[i].name);
		cJSON_AddItemToObject(steps, f->steps[i].name,
		    cJSON_Duplicate(o, 1));
	}
	cJSON_DeleteItemFromObjectCaseSensitive(steps, s->step_key);
	cJSON_AddItemToObject(steps, s->step_key, o);
}

/*
 * The first branch arm of fs whose condition holds (or its else) when the
 * step ended with result (JSON text) and maybe an exit code, or -1.  The
 * scope gets "result" and "exit_code" for the conditions and loses them
 * again.
 */
int
flow_branch_pick(const struct flow_step *fs, cJSON *scope,
    const char *result_json, int has_exit, int exit_code)
{
	size_t	i;
	int	arm = -1;

	cJSON_DeleteItemFromObjectCaseSensitive(scope, "result");
	cJSON_DeleteItemFromObjectCaseSensitive(scope, "exit_code");
	cJSON_AddItemToObject(scope, "result",
	    json_parse_or_null(result_json));
	if (has_exit)
		cJSON_AddNumberToObject(scope, "exit_code", exit_code);
	else
		cJSON_AddNullToObject(scope, "exit_code");
	for (i = 0; i < fs->nbranch && arm < 0; i++) {
		if (fs->branch[i].cond == NULL ||
		    cond_eval(fs->branch[i].cond, scope) == 1)
			arm = (int)i;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(scope, "result");
	cJSON_DeleteItemFromObjectCaseSensitive(scope, "exit_code");
	return (arm);
}
