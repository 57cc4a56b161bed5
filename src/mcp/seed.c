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
 * seed.c: the reference engine's eight MCP tools, answered with its own
 * argument names.  Four share their names with sluice's tools
 * (workflow_create, _list, _get, _cancel): their calls are translated here
 * into the native arguments before the native tool runs.  The other four
 * (workflow_step_ready, workflow_template_list, _save, _delete) are rows
 * of the one tool table whose functions live here, each a translation onto
 * a native tool, so every rule (authority, the agents rule for gates,
 * checks) is the native tool's.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "client/client.h"
#include "mcp/mcp-int.h"

/* A seed argument and the native one it stands for, per tool. */
static const struct seed_arg {
	const char	*tool;
	const char	*seed;
	const char	*native;
} seed_args[] = {
	{ "workflow_get", "id", "workflow_id" },
	{ "workflow_cancel", "id", "workflow_id" },
	{ "workflow_create", "schedule", "at" },
};

/* Native arguments that must be there once the seed's are translated. */
static const struct seed_need {
	const char	*tool;
	const char	*native;
} seed_needs[] = {
	{ "workflow_get", "workflow_id" },
	{ "workflow_cancel", "workflow_id" },
};

static int	 seed_run(struct mcp_call *, const char *, cJSON *, cJSON **);

/*
 * The arguments a tool's function sees: the seed's names replaced by the
 * native ones (an integer schedule is a Unix time, "@N" to --at), a null
 * input none, workflow_list's "all" no filter.  NULL when nothing needs
 * translating; else a new object, or NULL with *why.
 */
cJSON *
mcp_seed_translate(const struct mcp_tool *t, const cJSON *args, char **why)
{
	const struct seed_arg	*a;
	const cJSON		*v;
	cJSON			*out = NULL;
	char			*at;
	size_t			 i;

	*why = NULL;
	for (i = 0; i < nitems(seed_args); i++) {
		a = &seed_args[i];
		if (strcmp(a->tool, t->name) != 0 ||
		    (v = cJSON_GetObjectItemCaseSensitive(args, a->seed)) ==
		    NULL)
			continue;
		if (cJSON_GetObjectItemCaseSensitive(args, a->native) != NULL) {
			xasprintf(why, "arguments: give %s or %s, not both",
			    a->native, a->seed);
			goto fail;
		}
		if (out == NULL)
			out = cJSON_Duplicate(args, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(out, a->seed);
		if (strcmp(a->seed, "schedule") == 0 && cJSON_IsNumber(v)) {
			if (v->valuedouble < 1) {
				xasprintf(why, "arguments.schedule: a Unix "
				    "time is a positive number of seconds");
				goto fail;
			}
			xasprintf(&at, "@%" PRId64, (int64_t)v->valuedouble);
			cJSON_AddStringToObject(out, a->native, at);
			free(at);
		} else
			cJSON_AddItemToObject(out, a->native,
			    cJSON_Duplicate(v, 1));
	}
	if (strcmp(t->name, "workflow_create") == 0 &&
	    cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, "input"))) {
		if (out == NULL)
			out = cJSON_Duplicate(args, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(out, "input");
	}
	v = cJSON_GetObjectItemCaseSensitive(args, "status");
	if (strcmp(t->name, "workflow_list") == 0 && cJSON_IsString(v) &&
	    strcmp(v->valuestring, "all") == 0) {
		if (out == NULL)
			out = cJSON_Duplicate(args, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(out, "status");
	}
	for (i = 0; i < nitems(seed_needs); i++) {
		if (strcmp(seed_needs[i].tool, t->name) != 0 ||
		    cJSON_GetObjectItemCaseSensitive(out != NULL ? out : args,
		    seed_needs[i].native) != NULL)
			continue;
		xasprintf(why, "arguments.%s: missing (or the seed's id)",
		    seed_needs[i].native);
		goto fail;
	}
	return (out);
fail:
	cJSON_Delete(out);
	return (NULL);
}

/* Run the native tool called name on args (consumed), as this call. */
static int
seed_run(struct mcp_call *c, const char *name, cJSON *args, cJSON **out)
{
	const struct mcp_tool	*t = mcp_tool_find(name);
	const cJSON		*given = c->args;
	int			 rc;

	c->args = args;
	rc = t->call(c, out);
	c->args = given;
	cJSON_Delete(args);
	return (rc);
}

/* A step id the seed's way (id) or sluice's (step_id); 0 if neither. */
static int64_t
seed_step_id(const struct mcp_call *c)
{
	const cJSON	*v;

	if ((v = cJSON_GetObjectItemCaseSensitive(c->args, "step_id")) == NULL)
		v = cJSON_GetObjectItemCaseSensitive(c->args, "id");
	return (cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0);
}

/*
 * workflow_step_ready: the seed unblocks a step.  A gate is approved
 * (under the agents rule: the gate must say "agents": true), a wait step
 * completed with the given result; any other step is refused.
 */
int
mcp_seed_step_ready(struct mcp_call *c, cJSON **out)
{
	const cJSON	*v;
	cJSON		*a;
	enum step_kind	 kind;
	int64_t		 id = seed_step_id(c);
	const char	*comment = mcp_str(c->args, "comment");
	int		 rc;

	if (id == 0 || (cJSON_HasObjectItem(c->args, "id") &&
	    cJSON_HasObjectItem(c->args, "step_id"))) {
		client_error(c->cl, "arguments: give the step's id (id or "
		    "step_id), once");
		return (EXIT_USAGE);
	}
	if ((rc = client_step_kind(c->cl, id, &kind)) != 0)
		return (rc);
	a = cJSON_CreateObject();
	switch (kind) {
	case KIND_GATE:
		cJSON_AddNumberToObject(a, "step_id", (double)id);
		cJSON_AddStringToObject(a, "decision", "approve");
		if (comment != NULL)
			cJSON_AddStringToObject(a, "comment", comment);
		return (seed_run(c, "gate_decide", a, out));
	case KIND_WAIT:
		cJSON_AddNumberToObject(a, "step", (double)id);
		if ((v = cJSON_GetObjectItemCaseSensitive(c->args, "result")) !=
		    NULL)
			cJSON_AddItemToObject(a, "result", cJSON_Duplicate(v, 1));
		if (comment != NULL)
			cJSON_AddStringToObject(a, "comment", comment);
		if ((rc = seed_run(c, "step_complete", a, out)) == 0)
			cJSON_AddNumberToObject(*out, "step_id", (double)id);
		return (rc);
	default:
		cJSON_Delete(a);
		client_error(c->cl, "step %" PRId64 " is a %s step: "
		    "workflow_step_ready unblocks a gate or a wait step", id,
		    kind_name(kind));
		return (EXIT_USAGE);
	}
}

/* workflow_template_list: template_list, each with its id (its name). */
int
mcp_seed_template_list(struct mcp_call *c, cJSON **out)
{
	cJSON	*t, *name;
	int	 rc;

	if ((rc = seed_run(c, "template_list", cJSON_CreateObject(), out)) !=
	    0)
		return (rc);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(*out,
	    "templates")) {
		if ((name = cJSON_GetObjectItemCaseSensitive(t, "name")) != NULL)
			cJSON_AddItemToObject(t, "id", cJSON_Duplicate(name, 1));
	}
	return (EXIT_OK);
}

/*
 * A seed's JSON argument: an object as it is, a string parsed (with the
 * path of what is wrong), null or missing NULL.  -1 after saying why.
 */
static int
seed_json(struct mcp_call *c, const char *key, cJSON **v)
{
	const cJSON	*a = cJSON_GetObjectItemCaseSensitive(c->args, key);
	const char	*end = NULL;

	*v = NULL;
	if (a == NULL || cJSON_IsNull(a))
		return (0);
	if (cJSON_IsObject(a)) {
		*v = cJSON_Duplicate(a, 1);
		return (0);
	}
	*v = cJSON_ParseWithOpts(a->valuestring, &end, 1);
	if (*v == NULL || !cJSON_IsObject(*v)) {
		client_error(c->cl, "arguments.%s: not a JSON object%s%.20s",
		    key, end != NULL && *end != '\0' ? " near " : "",
		    end != NULL ? end : "");
		cJSON_Delete(*v);
		*v = NULL;
		return (-1);
	}
	return (0);
}

/*
 * workflow_template_save: the seed keeps a flow, default input values and
 * a description; sluice a document with "flow", "inputs" (each value its
 * input's default) and "description".  A flow_json that is already such
 * a document is taken as it is.
 */
int
mcp_seed_template_save(struct mcp_call *c, cJSON **out)
{
	const char	*description = mcp_str(c->args, "description");
	cJSON		*flow, *input, *doc, *inputs, *v, *a;
	int		 rc;

	if (seed_json(c, "flow_json", &flow) != 0)
		return (EXIT_USAGE);
	if (seed_json(c, "input_json", &input) != 0) {
		cJSON_Delete(flow);
		return (EXIT_USAGE);
	}
	if (cJSON_HasObjectItem(flow, "flow"))
		doc = flow;
	else {
		doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "flow", flow);
	}
	if (description != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "description");
		cJSON_AddStringToObject(doc, "description", description);
	}
	if (input != NULL && cJSON_GetArraySize(input) > 0) {
		if ((inputs = cJSON_GetObjectItemCaseSensitive(doc,
		    "inputs")) == NULL)
			inputs = cJSON_AddObjectToObject(doc, "inputs");
		cJSON_ArrayForEach(v, input) {
			cJSON_DeleteItemFromObjectCaseSensitive(inputs,
			    v->string);
			a = cJSON_AddObjectToObject(inputs, v->string);
			cJSON_AddItemToObject(a, "default",
			    cJSON_Duplicate(v, 1));
		}
	}
	cJSON_Delete(input);
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "name", mcp_str(c->args, "name"));
	cJSON_AddItemToObject(a, "document", doc);
	if ((rc = seed_run(c, "template_save", a, out)) == 0)
		cJSON_AddStringToObject(*out, "id",
		    mcp_str(*out, "name") != NULL ? mcp_str(*out, "name") : "");
	return (rc);
}

/* workflow_template_delete: a template's id is its name. */
int
mcp_seed_template_delete(struct mcp_call *c, cJSON **out)
{
	const char	*name = mcp_str(c->args, "id");
	cJSON		*a;

	if (name == NULL)
		name = mcp_str(c->args, "name");
	if (name == NULL) {
		client_error(c->cl, "arguments: give the template's id (its "
		    "name, as workflow_template_list says)");
		return (EXIT_USAGE);
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "name", name);
	return (seed_run(c, "template_delete", a, out));
}
