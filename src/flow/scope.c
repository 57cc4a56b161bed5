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
 *	workflow	{"id": N, "name": "...", "status": "running"}, and
 *			while a handler runs, the status the run ends with
 *			and "error", why it fails (flow_scope_ending)
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
#include "flow/flow-int.h"

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
	cJSON_AddStringToObject(w, "status", "running");
	cJSON_AddObjectToObject(scope, "steps");
	return (scope);
}

/*
 * The run is ending (its on_failure or finally handler runs): what its
 * status will be, and why it fails or was cancelled ("" when it did not).
 */
void
flow_scope_ending(cJSON *scope, const char *status, const char *error)
{
	cJSON	*w;

	w = cJSON_GetObjectItemCaseSensitive(scope, "workflow");
	cJSON_DeleteItemFromObjectCaseSensitive(w, "status");
	cJSON_DeleteItemFromObjectCaseSensitive(w, "error");
	cJSON_AddStringToObject(w, "status", status);
	cJSON_AddStringToObject(w, "error", error != NULL ? error : "");
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

/* Note that u may read the member key of the input. */
static void
scope_use_key(struct flow_input_use *u, const char *key, size_t len)
{
	size_t	 i;

	for (i = 0; i < u->nkeys; i++) {
		if (strlen(u->keys[i]) == len &&
		    strncmp(u->keys[i], key, len) == 0)
			return;
	}
	u->keys = xreallocarray(u->keys, u->nkeys + 1, sizeof *u->keys);
	u->keys[u->nkeys++] = xstrndup(key, len);
}

/*
 * Note one dotted reference: "input" alone reads all of it; "input.a.b"
 * reads the member "a", or "a.b" (a lookup tries parts joined by dots).
 */
static void
scope_use_ref(struct flow_input_use *u, const char *ref)
{
	const char	*p, *key;

	if (strncmp(ref, "input", 5) != 0)
		return;
	if (ref[5] == '\0') {
		u->all = 1;
		return;
	}
	if (ref[5] != '.')
		return;
	key = ref + 6;
	for (p = key; ; p++) {
		if (*p != '.' && *p != '\0')
			continue;
		scope_use_key(u, key, (size_t)(p - key));
		if (*p == '\0')
			break;
	}
}

/* interp_refs callback: note a placeholder's reference. */
static int
scope_use_cb(const char *path, const char *ref, void *arg)
{
	(void)path;
	scope_use_ref(arg, ref);
	return (0);
}

/* Note the placeholders of one string (a catalog's run word or env). */
static void
scope_use_text(struct flow_input_use *u, const char *s)
{
	cJSON	*v;

	if (s == NULL || (v = cJSON_CreateStringReference(s)) == NULL)
		return;
	interp_refs(v, NULL, scope_use_cb, u);
	cJSON_Delete(v);
}

/* Is key one of the flow's steps (rather than "output" or the like)? */
static int
scope_is_step(const struct flow *f, const char *key)
{
	size_t	 i;

	for (i = 0; i < f->nsteps; i++) {
		if (strcmp(f->steps[i].key, key) == 0)
			return (1);
	}
	return (0);
}

/*
 * What input a flow (parsed f, and its text, every string of which is
 * searched for placeholders, fields known or not) may read, with the
 * catalog its tools' words come from.  A for-each's "foreach" is left
 * out: the engine resolves it once from the whole input.  Conditions
 * read paths without braces; their parsed paths are added.
 */
struct flow_input_use *
flow_input_use(const struct flow *f, const char *flow_json,
    const struct flow_tools *tools)
{
	struct flow_input_use	*u;
	const char		**refs;
	cJSON			*doc, *c, *m;
	size_t			 i, j, n;

	u = xcalloc(1, sizeof *u);
	doc = json_parse_or_null(flow_json);
	if (f == NULL || !cJSON_IsObject(doc)) {
		u->all = 1;
		cJSON_Delete(doc);
		return (u);
	}
	for (c = doc->child; c != NULL; c = c->next) {
		if (!cJSON_IsObject(c) || !scope_is_step(f, c->string)) {
			interp_refs(c, NULL, scope_use_cb, u);
			continue;
		}
		for (m = c->child; m != NULL; m = m->next) {
			if (strcmp(m->string, "foreach") != 0 ||
			    !cJSON_IsString(m))
				interp_refs(m, NULL, scope_use_cb, u);
		}
	}
	cJSON_Delete(doc);
	for (i = 0; i < f->nsteps; i++) {
		if (f->steps[i].when != NULL) {
			cond_refs(f->steps[i].when, &refs, &n);
			while (n-- > 0)
				scope_use_ref(u, refs[n]);
		}
		for (j = 0; j < f->steps[i].nbranch; j++) {
			if (f->steps[i].branch[j].cond == NULL)
				continue;
			cond_refs(f->steps[i].branch[j].cond, &refs, &n);
			while (n-- > 0)
				scope_use_ref(u, refs[n]);
		}
		for (j = 0; j < f->steps[i].ndeps; j++) {
			if (f->steps[i].deps[j].cond == NULL)
				continue;
			cond_refs(f->steps[i].deps[j].cond, &refs, &n);
			while (n-- > 0)
				scope_use_ref(u, refs[n]);
		}
	}
	for (i = 0; tools != NULL && i < tools->ntools; i++) {
		for (j = 0; j < tools->tools[i].nrun; j++)
			scope_use_text(u, tools->tools[i].run[j]);
		for (j = 0; j < tools->tools[i].nenv; j++)
			scope_use_text(u, tools->tools[i].env[j].value);
		scope_use_text(u, tools->tools[i].host);
		scope_use_text(u, tools->tools[i].shell);
	}
	return (u);
}

/* Free what flow_input_use returned. */
void
flow_input_use_free(struct flow_input_use *u)
{
	if (u == NULL)
		return;
	flow_strings_free(u->keys, u->nkeys);
	free(u);
}

/*
 * Parse of an input's JSON text only the members u says are read: each
 * is found in the text and parsed alone, so the rest (a for-each's
 * 10,000 hosts) is never built.  The whole input when u reads it all or
 * it is not an object.
 */
cJSON *
flow_input_parse(const char *text, const struct flow_input_use *u)
{
	const char	*end, *vp, *ve, *p;
	cJSON		*input, *v;
	char		*seg;
	size_t		 i;

	if (text == NULL)
		text = "null";
	for (p = text; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
		;
	if (u == NULL || u->all || *p != '{')
		return (json_parse_or_null(text));
	end = text + strlen(text);
	input = cJSON_CreateObject();
	for (i = 0; i < u->nkeys; i++) {
		seg = u->keys[i];
		if (json_scan_lookup(text, end, &seg, 1, &vp, &ve) != 1)
			continue;
		if ((v = cJSON_ParseWithLength(vp, (size_t)(ve - vp))) == NULL) {
			/* Malformed: parse it all, as before. */
			cJSON_Delete(input);
			return (json_parse_or_null(text));
		}
		cJSON_AddItemToObject(input, u->keys[i], v);
	}
	return (input);
}
