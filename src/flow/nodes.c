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
 * nodes.c: the DAG note's own document as a flow (SPEC §3):
 *
 *	{"nodes": [{"step_name": "fetch", "max_retries": 3,
 *	    "timeout_s": 60, ...}, ...],
 *	 "edges": [{"from": "fetch", "to": "load", "condition": null}, ...]}
 *
 * Each node is a step keyed by its step_name, with every step field
 * allowed beside the note's own: max_retries N is N retries after the
 * first attempt, with the note's doubling backoff from 2 s; timeout_s is
 * the step's timeout in seconds; a node naming nothing to run runs the
 * tool of its step_name.  Each edge makes "from" a dependency of "to",
 * and a condition C means the dependency's result.branch == C.  Problems
 * are reported at the note's own paths ($.nodes[1].timeout_s,
 * $.edges[2].to).
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 nodes_top(struct flow *, const cJSON *, const char *,
		     struct flow_diags *);
static void	 nodes_node(struct flow *, const cJSON *, size_t,
		     const char *, struct flow_diags *);
static cJSON	*nodes_step(const cJSON *, const char *, const char *,
		     struct flow_diags *);
static void	 nodes_edge(struct flow *, const cJSON *, size_t,
		     const char *, struct flow_diags *);
static int	 nodes_end(const struct flow *, const cJSON *, const char *,
		     const char *, struct flow_diags *);

/* The members a nodes document may have beside its nodes. */
static const char *const nodes_members[] = {
	"nodes", "edges", "output", "deadline", FLOW_ON_FAILURE, FLOW_FINALLY
};
#define NODES_NMEMBERS (sizeof nodes_members / sizeof nodes_members[0])

/* Is this flow object the note's document?  Its "nodes" is an array. */
int
flow_nodes_is(const cJSON *obj)
{
	return (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(obj, "nodes")));
}

/* The document's members other than the nodes and edges. */
static void
nodes_top(struct flow *f, const cJSON *obj, const char *base,
    struct flow_diags *d)
{
	const cJSON	*c;
	char		*path;
	size_t		 i;

	for (c = obj->child; c != NULL; c = c->next) {
		path = flow_path_key(base, c->string);
		for (i = 0; i < NODES_NMEMBERS; i++) {
			if (strcmp(c->string, nodes_members[i]) == 0)
				break;
		}
		if (i == NODES_NMEMBERS)
			flow_diags_unknown(d, path, c->string, nodes_members,
			    NODES_NMEMBERS, " in a nodes and edges flow");
		else if (strcmp(c->string, "output") == 0) {
			free(f->output_json);
			f->output_json = json_print(c);
		} else if (strcmp(c->string, "deadline") == 0)
			parse_deadline(f, c, path, d);
		else if (flow_handler_key(c->string))
			;	/* after the nodes (flow_nodes_parse) */
		else if (strcmp(c->string, "edges") == 0 && !cJSON_IsArray(c))
			flow_diags_add(d, FLOW_ERROR, path, "expected an array "
			    "of edges, got %s", json_type_name(c));
		free(path);
	}
}

/*
 * A node as a step object: the note's fields turned into sluice's, the
 * rest as written.  NULL when the note's fields are wrong.
 */
static cJSON *
nodes_step(const cJSON *node, const char *name, const char *path,
    struct flow_diags *d)
{
	static const char *const runs[] = {
		"tool", "run", "shell", "workflow", "wait", "foreach"
	};
	const cJSON	*v;
	cJSON		*st, *r;
	char		*sub;
	int64_t		 n;
	size_t		 i;
	int		 bad = 0;

	st = cJSON_Duplicate(node, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(st, "step_name");
	if ((v = cJSON_GetObjectItemCaseSensitive(node, "max_retries"))
	    != NULL) {
		sub = flow_path_key(path, "max_retries");
		if (cJSON_GetObjectItemCaseSensitive(node, "retry") != NULL) {
			flow_diags_add(d, FLOW_ERROR, sub, "\"max_retries\" "
			    "cannot be used with \"retry\"");
			bad = 1;
		} else if (flow_json_int(v, sub, 0, 99, &n, d) != 0)
			bad = 1;
		else {
			r = cJSON_CreateObject();
			cJSON_AddNumberToObject(r, "max_attempts",
			    (double)n + 1);
			cJSON_AddStringToObject(r, "base", "2s");
			cJSON_AddNumberToObject(r, "factor", 2);
			cJSON_AddItemToObject(st, "retry", r);
		}
		free(sub);
		cJSON_DeleteItemFromObjectCaseSensitive(st, "max_retries");
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(node, "timeout_s")) != NULL) {
		sub = flow_path_key(path, "timeout_s");
		if (cJSON_GetObjectItemCaseSensitive(node, "timeout") != NULL) {
			flow_diags_add(d, FLOW_ERROR, sub, "\"timeout_s\" "
			    "cannot be used with \"timeout\"");
			bad = 1;
		} else if (!cJSON_IsNumber(v) || v->valuedouble <= 0 ||
		    v->valuedouble > FLOW_DURATION_MAX / 1000) {
			flow_diags_add(d, FLOW_ERROR, sub, "expected a number "
			    "of seconds above zero, got %s",
			    cJSON_IsNumber(v) ? "a number out of range" :
			    json_type_name(v));
			bad = 1;
		} else
			cJSON_AddNumberToObject(st, "timeout", v->valuedouble);
		free(sub);
		cJSON_DeleteItemFromObjectCaseSensitive(st, "timeout_s");
	}
	for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		if (cJSON_GetObjectItemCaseSensitive(node, runs[i]) != NULL)
			break;
	}
	if (i == sizeof runs / sizeof runs[0])
		cJSON_AddStringToObject(st, "tool", name);
	if (bad) {
		cJSON_Delete(st);
		return (NULL);
	}
	return (st);
}

/* Node i: a step keyed by its step_name. */
static void
nodes_node(struct flow *f, const cJSON *node, size_t i, const char *base,
    struct flow_diags *d)
{
	const cJSON	*v;
	cJSON		*st;
	char		*path, *sub = NULL, *name = NULL;
	int		 other;

	path = flow_path_index(base, i);
	if (!cJSON_IsObject(node)) {
		flow_diags_add(d, FLOW_ERROR, path, "a node must be an object "
		    "{\"step_name\": ...}, got %s", json_type_name(node));
		goto out;
	}
	sub = flow_path_key(path, "step_name");
	if ((v = cJSON_GetObjectItemCaseSensitive(node, "step_name")) == NULL) {
		flow_diags_add(d, FLOW_ERROR, path, "missing \"step_name\"");
		goto out;
	}
	if ((name = flow_json_string(v, sub, 1, d)) == NULL)
		goto out;
	if (vis_needed(name)) {
		flow_diags_add(d, FLOW_ERROR, sub, "a step_name must not hold "
		    "control characters");
		goto out;
	}
	for (other = 0; other < (int)f->nsteps; other++) {
		if (strcmp(f->steps[other].key, name) == 0)
			break;
	}
	if (other < (int)f->nsteps) {
		flow_diags_add(d, FLOW_ERROR, sub, "duplicate step_name \"%s\" "
		    "(also %s[%d])", name, base, f->steps[other].node);
		goto out;
	}
	if ((st = nodes_step(node, name, path, d)) == NULL)
		goto out;
	f->steps = xreallocarray(f->steps, f->nsteps + 1, sizeof *f->steps);
	flow_step_parse(&f->steps[f->nsteps], st, name, path, d);
	f->steps[f->nsteps++].node = (int)i;
	cJSON_Delete(st);
out:
	free(name);
	free(sub);
	free(path);
}

/* An edge's "from" or "to": a node's index, or -1 after saying why. */
static int
nodes_end(const struct flow *f, const cJSON *edge, const char *member,
    const char *path, struct flow_diags *d)
{
	const cJSON	 *v;
	const char	**names, *hint;
	char		 *sub, *ref;
	size_t		  i;
	int		  idx = -1;

	if ((v = cJSON_GetObjectItemCaseSensitive(edge, member)) == NULL) {
		flow_diags_add(d, FLOW_ERROR, path, "missing \"%s\"", member);
		return (-1);
	}
	sub = flow_path_key(path, member);
	if ((ref = flow_json_string(v, sub, 1, d)) != NULL &&
	    (idx = flow_find(f, ref)) < 0) {
		names = xcalloc(f->nsteps + 1, sizeof *names);
		for (i = 0; i < f->nsteps; i++)
			names[i] = f->steps[i].key;
		hint = flow_suggest(ref, names, f->nsteps);
		flow_diags_add(d, FLOW_ERROR, sub, "unknown node \"%s\"%s%s%s",
		    ref, hint != NULL ? " (did you mean \"" : "",
		    hint != NULL ? hint : "", hint != NULL ? "\"?)" : "");
		free(names);
	}
	free(ref);
	free(sub);
	return (idx);
}

/* Edge k: "from" becomes a dependency of "to", on its condition. */
static void
nodes_edge(struct flow *f, const cJSON *edge, size_t k, const char *base,
    struct flow_diags *d)
{
	static const char *const known[] = { "from", "to", "condition" };
	struct flow_dep	 dep;
	const cJSON	*c, *cond;
	cJSON		*lit;
	char		*path, *sub, *text, *cause;
	int		 from, to, bad = 0;

	path = flow_path_index(base, k);
	if (!cJSON_IsObject(edge)) {
		flow_diags_add(d, FLOW_ERROR, path, "an edge must be an object "
		    "{\"from\": ..., \"to\": ...}, got %s",
		    json_type_name(edge));
		free(path);
		return;
	}
	for (c = edge->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "from") == 0 ||
		    strcmp(c->string, "to") == 0 ||
		    strcmp(c->string, "condition") == 0)
			continue;
		sub = flow_path_key(path, c->string);
		flow_diags_unknown(d, sub, c->string, known, 3, " in an edge");
		free(sub);
		bad = 1;
	}
	from = nodes_end(f, edge, "from", path, d);
	to = nodes_end(f, edge, "to", path, d);
	memset(&dep, 0, sizeof dep);
	dep.edge = (int)k;
	dep.target = -1;
	cond = cJSON_GetObjectItemCaseSensitive(edge, "condition");
	if (cond != NULL && !cJSON_IsNull(cond)) {
		sub = flow_path_key(path, "condition");
		if (!cJSON_IsString(cond)) {
			flow_diags_add(d, FLOW_ERROR, sub, "expected the "
			    "branch a result names (a string) or null, got %s",
			    json_type_name(cond));
			bad = 1;
		} else {
			lit = cJSON_CreateString(cond->valuestring);
			text = json_print(lit);
			cJSON_Delete(lit);
			xasprintf(&dep.cond_src, "result.branch == %s", text);
			free(text);
			if ((dep.cond = cond_parse(dep.cond_src,
			    &cause)) == NULL) {
				flow_diags_add(d, FLOW_ERROR, sub, "%s", cause);
				free(cause);
				bad = 1;
			}
		}
		free(sub);
	}
	if (from < 0 || to < 0 || bad) {
		free(dep.cond_src);
		cond_free(dep.cond);
		free(path);
		return;
	}
	dep.ref = xstrdup(f->steps[from].key);
	flow_dag_add(&f->steps[to], &dep);
	f->steps[to].has_deps = 1;
	free(path);
}

/* Read the note's document into f, reporting at its own paths. */
void
flow_nodes_parse(struct flow *f, const cJSON *obj, const char *base,
    struct flow_diags *d)
{
	const cJSON	*nodes, *edges, *c;
	char		*path;
	size_t		 i;

	f->form = FLOW_FORM_NODES;
	nodes_top(f, obj, base, d);
	nodes = cJSON_GetObjectItemCaseSensitive(obj, "nodes");
	path = flow_path_key(base, "nodes");
	for (i = 0, c = nodes->child; c != NULL; c = c->next, i++) {
		if (i == SLUICE_MAX_STEPS) {
			flow_diags_add(d, FLOW_ERROR, path, "too many nodes "
			    "(max %d)", SLUICE_MAX_STEPS);
			break;
		}
		nodes_node(f, c, i, path, d);
	}
	if (i == 0)
		flow_diags_add(d, FLOW_ERROR, path, "a flow needs at least "
		    "one node");
	free(path);
	for (c = obj->child; c != NULL; c = c->next) {
		if (!flow_handler_key(c->string))
			continue;
		path = flow_path_key(base, c->string);
		flow_handler_parse(f, c, path, c->string, d);
		free(path);
	}
	parse_names(f, base, d);
	parse_resolve_all(f, base, d);
	edges = cJSON_GetObjectItemCaseSensitive(obj, "edges");
	path = flow_path_key(base, "edges");
	if (cJSON_IsArray(edges)) {
		for (i = 0, c = edges->child; c != NULL; c = c->next, i++)
			nodes_edge(f, c, i, path, d);
	}
	free(path);
	flow_dag_finish(f, base, d);
}
