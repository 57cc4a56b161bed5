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
 * check.c: checks over the whole graph of a parsed flow: what is reachable
 * from "start", joins without a fan-out, join counts, unknown tools, and
 * the step names that {{...}} placeholders and conditions read.  Loops are
 * allowed: a branch may lead back to an earlier step.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* The steps each step leads to, built once. */
struct check_graph {
	int		**adj;
	size_t		 *nadj;
	size_t		  n;
};

/* What the reference callbacks need. */
struct check_refs {
	const struct flow	*flow;
	const struct flow_doc	*doc;	/* declared inputs, or NULL */
	struct flow_diags	*d;
	const char		*path;	/* for conditions: the "if" path */
	int			 in_do;	/* a for-each's "do": item, index */
};

static void	 check_graph_build(const struct flow *, struct check_graph *);
static void	 check_graph_free(struct check_graph *);
static void	 check_edge(struct check_graph *, size_t, int);
static void	 check_walk(const struct check_graph *, const int *, size_t,
		     char *);
static void	 check_reach(const struct flow *, const struct check_graph *,
		     const char *, struct flow_diags *);
static void	 check_join_agree(const struct flow *, const char *,
		     struct flow_diags *);
static void	 check_joins(const struct flow *, const struct check_graph *,
		     const char *, struct flow_diags *);
static void	 check_tools(const struct flow *, const struct flow_tools *,
		     const char *, struct flow_diags *);
static int	 check_step_ref(const struct flow *, const char *);
static int	 check_arg_ref(const char *, const char *, void *);
static void	 check_input_ref(const struct check_refs *, const char *,
		     const char *, const char *);
static void	 check_args(const struct flow *, const char *,
		     struct check_refs *);
static void	 check_cond(const struct flow_step *, const struct cond *,
		     const char *, const char *, struct check_refs *);
static void	 check_conds(const struct flow *, const char *,
		     struct check_refs *);
static void	 check_foreach(const struct flow *, const struct flow_tools *,
		     const char *, struct check_refs *);
static void	 check_text_refs(const char *, const char *,
		     struct check_refs *);
static void	 check_foreach_default(const struct flow_foreach *,
		     const char *, struct check_refs *);

/* Add an edge when the target is known. */
static void
check_edge(struct check_graph *g, size_t from, int to)
{
	if (to < 0)
		return;
	g->adj[from] = xreallocarray(g->adj[from], g->nadj[from] + 1,
	    sizeof *g->adj[from]);
	g->adj[from][g->nadj[from]++] = to;
}

/* Build the successor lists: next, branch, parallel, join, on_timeout. */
static void
check_graph_build(const struct flow *f, struct check_graph *g)
{
	const struct flow_step	*st;
	size_t			 i, j;

	g->n = f->nsteps;
	g->adj = xcalloc(g->n + 1, sizeof *g->adj);
	g->nadj = xcalloc(g->n + 1, sizeof *g->nadj);
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		check_edge(g, i, st->next_target);
		for (j = 0; j < st->nbranch; j++)
			check_edge(g, i, st->branch[j].target);
		for (j = 0; j < st->nparallel; j++)
			check_edge(g, i, st->parallel_targets[j]);
		check_edge(g, i, st->join_target);
		check_edge(g, i, st->gate.on_timeout_target);
		check_edge(g, i, st->wait.on_timeout_target);
	}
}

/* Free successor lists. */
static void
check_graph_free(struct check_graph *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++)
		free(g->adj[i]);
	free(g->adj);
	free(g->nadj);
}

/* Mark everything reachable from the given roots (iterative). */
static void
check_walk(const struct check_graph *g, const int *roots, size_t nroots,
    char *seen)
{
	int	*stack;
	size_t	 top = 0, i;
	int	 s;

	stack = xcalloc(g->n + nroots + 1, sizeof *stack);
	for (i = 0; i < nroots; i++) {
		if (roots[i] >= 0 && !seen[roots[i]]) {
			seen[roots[i]] = 1;
			stack[top++] = roots[i];
		}
	}
	while (top > 0) {
		s = stack[--top];
		for (i = 0; i < g->nadj[s]; i++) {
			if (seen[g->adj[s][i]])
				continue;
			seen[g->adj[s][i]] = 1;
			stack[top++] = g->adj[s][i];
		}
	}
	free(stack);
}

/* Warn about steps that nothing leads to from "start". */
static void
check_reach(const struct flow *f, const struct check_graph *g,
    const char *base, struct flow_diags *d)
{
	char	*seen, *path;
	size_t	 i;
	int	 roots[3];

	/* In the DAG form every step is decided; a cycle is its own error. */
	if (f->start < 0 || f->form != FLOW_FORM_STEPS)
		return;
	/* The handlers: nothing leads to them, the run's end starts them. */
	roots[0] = f->start;
	roots[1] = f->on_failure;
	roots[2] = f->finally;
	seen = xcalloc(f->nsteps + 1, 1);
	check_walk(g, roots, 3, seen);
	for (i = 0; i < f->nsteps; i++) {
		if (seen[i])
			continue;
		path = flow_step_path(base, &f->steps[i], NULL);
		flow_diags_add(d, FLOW_WARNING, path, "unreachable step "
		    "(nothing leads here from \"start\")");
		free(path);
	}
	free(seen);
}

/*
 * A "join" must sit inside a fan-out (or be on the fan-out step itself),
 * and a join count cannot exceed the fan-out's branches.
 */
static void
check_joins(const struct flow *f, const struct check_graph *g,
    const char *base, struct flow_diags *d)
{
	const struct flow_step	*fo, *st;
	char			*inside, *seen, *joined, *path, *fpath;
	size_t			 i, j;
	int			 t;

	inside = xcalloc(f->nsteps + 1, 1);
	joined = xcalloc(f->nsteps + 1, 1);
	seen = xcalloc(f->nsteps + 1, 1);
	for (i = 0; i < f->nsteps; i++) {
		fo = &f->steps[i];
		if (fo->nparallel == 0)
			continue;
		memset(seen, 0, f->nsteps);
		check_walk(g, fo->parallel_targets, fo->nparallel, seen);
		for (j = 0; j < f->nsteps; j++) {
			if (!seen[j] && j != i)
				continue;
			inside[j] |= seen[j];
			if ((t = f->steps[j].join_target) < 0)
				continue;
			joined[t] = 1;
			st = &f->steps[t];
			if (st->join_policy != FLOW_JOIN_COUNT ||
			    (size_t)st->join_count <= fo->nparallel)
				continue;
			path = flow_step_path(base, st, "join_policy");
			fpath = flow_step_path(base, fo, NULL);
			flow_diags_add(d, FLOW_ERROR, path, "join_policy %d is "
			    "more than the %zu branches of the fan-out at %s",
			    st->join_count, fo->nparallel, fpath);
			free(fpath);
			free(path);
		}
	}
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		if (st->join != NULL && st->nparallel == 0 && !inside[i]) {
			path = flow_step_path(base, st, "join");
			flow_diags_add(d, FLOW_ERROR, path,
			    "join with no enclosing parallel fan-out");
			free(path);
		}
		if (st->join_policy != FLOW_JOIN_ALL_SUCCESS && !joined[i]) {
			path = flow_step_path(base, st, "join_policy");
			flow_diags_add(d, FLOW_WARNING, path, "join_policy on "
			    "a step that no branch joins at");
			free(path);
		}
	}
	free(seen);
	free(joined);
	free(inside);
}

/*
 * The branches of one fan-out must meet at one join, and at the join the
 * fan-out step names when it names one; else the engine would wait at
 * one and the others would be passed by (a nested fan-out's own join
 * never run).  The reason says the form that works: the inner fan-out
 * names its own join, which names the outer one.
 */
static void
check_join_agree(const struct flow *f, const char *base,
    struct flow_diags *d)
{
	const struct flow_step	*fo, *br, *jn;
	int			*join_of, want, got, first;
	size_t			 i, k;
	char			*path, *bpath;

	join_of = flow_joins(f);
	for (i = 0; i < f->nsteps; i++) {
		fo = &f->steps[i];
		if (fo->nparallel == 0)
			continue;
		want = fo->join_target;
		first = -1;
		for (k = 0; k < fo->nparallel; k++) {
			if (fo->parallel_targets[k] < 0)
				continue;
			got = flow_join_reached(f, fo->parallel_targets[k],
			    join_of);
			if (got < 0)
				continue;
			br = &f->steps[fo->parallel_targets[k]];
			if (want < 0) {
				want = got;
				first = (int)k;
				continue;
			}
			if (got == want)
				continue;
			jn = &f->steps[got];
			bpath = flow_step_path(base, br, NULL);
			if (fo->join_target >= 0) {
				path = flow_step_path(base, fo, "join");
				flow_diags_add(d, FLOW_ERROR, path, "fan-out "
				    "\"%s\" names join \"%s\", but its branch "
				    "%s reaches join \"%s\" first, which would "
				    "never run: write \"join\": \"%s\" here and "
				    "give \"%s\" \"join\": \"%s\" to go on to "
				    "the outer join", fo->name,
				    f->steps[want].name, bpath, jn->name,
				    jn->name, jn->name, f->steps[want].name);
			} else {
				path = flow_step_path(base, fo, "parallel");
				flow_diags_add(d, FLOW_ERROR, path, "the "
				    "branches of fan-out \"%s\" reach different "
				    "joins: \"%s\" (from \"%s\") and \"%s\" "
				    "(from \"%s\"); all branches of one "
				    "fan-out meet at one join", fo->name,
				    f->steps[want].name,
				    f->steps[fo->parallel_targets[first]].name,
				    jn->name, br->name);
			}
			free(bpath);
			free(path);
			break;
		}
	}
	free(join_of);
}

/* Every tool a step names must be built in or in the catalog. */
static void
check_tools(const struct flow *f, const struct flow_tools *tools,
    const char *base, struct flow_diags *d)
{
	static const char	 *builtins[] = { "noop", "echo", "sleep",
	    "fail" };
	const struct flow_step	 *st;
	const struct flow_tool	 *tl;
	const char		**names, *hint;
	size_t			  i, n = 0;
	char			 *path, *sub;

	names = xcalloc((tools != NULL ? tools->ntools : 0) + 5,
	    sizeof *names);
	for (i = 0; tools != NULL && i < tools->ntools; i++)
		names[n++] = tools->tools[i].name;
	for (i = 0; tools == NULL && i < 4; i++)
		names[n++] = builtins[i];
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		path = NULL;
		if (st->foreach != NULL && st->foreach->body != NULL) {
			st = st->foreach->body;
			path = flow_step_path(base, st, "do.tool");
		}
		tl = st->exec == KIND_TOOL ?
		    flow_tools_find(tools, st->tool) : NULL;
		if (tl != NULL && tl->mcp && st->host != NULL) {
			sub = flow_step_path(base, st, path != NULL ?
			    "do.host" : "host");
			flow_diags_add(d, FLOW_ERROR, sub, "tool \"%s\" is "
			    "an MCP server's, which runs on the engine's "
			    "machine: \"host\" is not supported", st->tool);
			free(sub);
		}
		if (st->exec != KIND_TOOL || st->tool == NULL ||
		    *st->tool == '\0' || tl != NULL) {
			free(path);
			continue;
		}
		if (path == NULL)
			path = flow_step_path(base, st, "tool");
		hint = flow_suggest(st->tool, names, n);
		if (hint != NULL)
			flow_diags_add(d, FLOW_ERROR, path, "unknown tool "
			    "\"%s\" (did you mean \"%s\"?)", st->tool, hint);
		else
			flow_diags_add(d, FLOW_ERROR, path,
			    "unknown tool \"%s\"", st->tool);
		free(path);
	}
	free(names);
}

/*
 * Does the text after "steps." start with a step's key or name?  The
 * longest run of dotted parts that names a step wins, as in lookups.
 */
static int
check_step_ref(const struct flow *f, const char *rest)
{
	char	*copy, *dot;
	int	 found = 0;

	copy = xstrdup(rest);
	for (;;) {
		if (*copy != '\0' && flow_find(f, copy) != -1) {
			found = 1;
			break;
		}
		if ((dot = strrchr(copy, '.')) == NULL)
			break;
		*dot = '\0';
	}
	free(copy);
	return (found);
}

/*
 * When the document declares its inputs, a reference must name one of
 * them (the longest declared key that prefixes it, as lookups do).
 */
static void
check_input_ref(const struct check_refs *cr, const char *path,
    const char *ref, const char *rest)
{
	const struct flow_doc	*doc = cr->doc;
	size_t			 i, kl;
	char			*first, *dot;

	if (doc == NULL || doc->inputs_json == NULL || *rest == '\0')
		return;
	for (i = 0; i < doc->ninputs; i++) {
		kl = strlen(doc->inputs[i].key);
		if (strncmp(rest, doc->inputs[i].key, kl) == 0 &&
		    (rest[kl] == '\0' || rest[kl] == '.'))
			return;
	}
	first = xstrdup(rest);
	if ((dot = strchr(first, '.')) != NULL)
		*dot = '\0';
	flow_diags_add(cr->d, FLOW_ERROR, cr->path != NULL ? cr->path : path,
	    "unknown input \"%s\" in %s%s%s (not declared under inputs)",
	    first, cr->path != NULL ? "" : "{{", ref,
	    cr->path != NULL ? "" : "}}");
	free(first);
}

/* Check one {{...}} placeholder found in args. */
static int
check_arg_ref(const char *path, const char *ref, void *arg)
{
	static const char	*roots[] = { "input", "steps", "workflow",
	    "args", "item", "index" };
	struct check_refs	*cr = arg;
	size_t			 i, rl, nroots;
	const char		*rest;
	char			*first, *dot;

	rl = strcspn(ref, ".");
	/* Where a secret may go is secret.c's to say. */
	if (rl == 7 && strncmp(ref, "secrets", 7) == 0)
		return (0);
	nroots = sizeof roots / sizeof roots[0] - (cr->in_do ? 0 : 2);
	for (i = 0; i < nroots; i++) {
		if (strlen(roots[i]) == rl && strncmp(ref, roots[i], rl) == 0)
			break;
	}
	if (i == nroots && rl == 4 && strncmp(ref, "item", 4) == 0) {
		flow_diags_add(cr->d, FLOW_ERROR, path, "\"{{%s}}\" outside a "
		    "for-each's \"do\" or \"label\" (there is no item here)",
		    ref);
		return (0);
	}
	if (i == nroots) {
		flow_diags_add(cr->d, FLOW_ERROR, path, "unknown reference "
		    "\"{{%s}}\" (use input, steps, workflow or args%s)", ref,
		    cr->in_do ? ", item or index" : "");
		return (0);
	}
	if (strcmp(roots[i], "index") == 0 && ref[rl] != '\0') {
		flow_diags_add(cr->d, FLOW_ERROR, path, "\"{{%s}}\": index is "
		    "a number, with no fields", ref);
		return (0);
	}
	rest = ref[rl] == '.' ? ref + rl + 1 : "";
	if (strcmp(roots[i], "input") == 0) {
		check_input_ref(cr, path, ref, rest);
		return (0);
	}
	if (strcmp(roots[i], "steps") != 0)
		return (0);
	if (*rest == '\0') {
		flow_diags_add(cr->d, FLOW_ERROR, path, "\"{{%s}}\" needs a "
		    "step name, as in {{steps.NAME.result}}", ref);
		return (0);
	}
	if (check_step_ref(cr->flow, rest))
		return (0);
	first = xstrdup(rest);
	if ((dot = strchr(first, '.')) != NULL)
		*dot = '\0';
	flow_diags_add(cr->d, FLOW_ERROR, cr->path != NULL ? cr->path : path,
	    "unknown step \"%s\" in %s%s%s", first, cr->path != NULL ? "" :
	    "{{", ref, cr->path != NULL ? "" : "}}");
	free(first);
	return (0);
}

/* A reference in the run's concurrency key: input and workflow only. */
static int
check_run_key_ref(const char *path, const char *ref, void *arg)
{
	struct check_refs	*cr = arg;

	if (strncmp(ref, "input.", 6) == 0 || strcmp(ref, "input") == 0 ||
	    strncmp(ref, "workflow.", 9) == 0)
		return (check_arg_ref(path, ref, arg));
	flow_diags_add(cr->d, FLOW_ERROR, path, "\"{{%s}}\" in the run's "
	    "concurrency key (it is made before any step runs: use input or "
	    "workflow)", ref);
	return (0);
}

/* Check the placeholders in every step's args and gate message. */
static void
check_args(const struct flow *f, const char *base, struct check_refs *crp)
{
	struct check_refs	 cr = *crp;
	const struct flow_step	*st;
	cJSON			*v;
	char			*path;
	size_t			 i;

	cr.path = NULL;
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		if (st->args_json != NULL &&
		    (v = cJSON_Parse(st->args_json)) != NULL) {
			path = flow_step_path(base, st, "args");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
		if (st->input_json != NULL &&
		    (v = cJSON_Parse(st->input_json)) != NULL) {
			path = flow_step_path(base, st, "input");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
		if (st->gate.message != NULL) {
			v = cJSON_CreateString(st->gate.message);
			path = flow_step_path(base, st, "gate.message");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
		if (st->wait.message != NULL) {
			v = cJSON_CreateString(st->wait.message);
			path = flow_step_path(base, st, "wait.message");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
		if (st->concurrency.key != NULL) {
			v = cJSON_CreateString(st->concurrency.key);
			path = flow_step_path(base, st, "concurrency.key");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
	}
	/* The run's key is made before any step ran: no steps.* in it. */
	if (f->concurrency.key != NULL) {
		v = cJSON_CreateString(f->concurrency.key);
		interp_refs(v, "$.concurrency.key", check_run_key_ref, &cr);
		cJSON_Delete(v);
	}
	/* The output, beside the steps or beside "flow": "$.output". */
	if (f->output_json != NULL &&
	    (v = cJSON_Parse(f->output_json)) != NULL) {
		interp_refs(v, "$.output", check_arg_ref, &cr);
		cJSON_Delete(v);
	}
}

/* Check the step and input names one condition (at field) reads. */
static void
check_cond(const struct flow_step *st, const struct cond *c,
    const char *base, const char *field, struct check_refs *crp)
{
	struct check_refs	  cr = *crp;
	const char		**refs;
	char			 *path;
	size_t			  k, n;

	path = flow_step_path(base, st, field);
	cr.path = path;
	cond_refs(c, &refs, &n);
	for (k = 0; k < n; k++) {
		if (strncmp(refs[k], "steps.", 6) == 0 ||
		    strncmp(refs[k], "input.", 6) == 0)
			check_arg_ref(path, refs[k], &cr);
	}
	free(path);
}

/* Check the step and input names that branch and when conditions read. */
static void
check_conds(const struct flow *f, const char *base, struct check_refs *crp)
{
	const struct flow_step	*st;
	char			 field[64];
	size_t			 i, j;

	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		for (j = 0; j < st->nbranch; j++) {
			if (st->branch[j].cond == NULL)
				continue;
			snprintf(field, sizeof field, "branch[%zu].if", j);
			check_cond(st, st->branch[j].cond, base, field, crp);
		}
		if (st->when != NULL)
			check_cond(st, st->when, base, "when", crp);
		for (j = 0; j < st->ndeps; j++) {
			if (st->deps[j].cond == NULL || st->deps[j].edge >= 0)
				continue;
			snprintf(field, sizeof field, "depends_on[%zu].if", j);
			check_cond(st, st->deps[j].cond, base, field, crp);
		}
	}
}

/* Check the placeholders of a string (at path) as args are checked. */
static void
check_text_refs(const char *text, const char *path, struct check_refs *cr)
{
	cJSON	*v;

	v = cJSON_CreateString(text);
	interp_refs(v, path, check_arg_ref, cr);
	cJSON_Delete(v);
}

/*
 * Items that are a declared input's default ("foreach": "{{input.KEY}}"
 * and KEY has a default) are known now: check them as at run time.
 */
static void
check_foreach_default(const struct flow_foreach *fe, const char *path,
    struct check_refs *cr)
{
	const struct flow_doc	*doc = cr->doc;
	cJSON			*v;
	char			*key, *msg, *sub;
	size_t			 i, len;

	len = strlen(fe->items_src);
	if (doc == NULL || len < 11 || strncmp(fe->items_src, "{{input.", 8) ||
	    strcmp(fe->items_src + len - 2, "}}") != 0)
		return;
	key = xstrndup(fe->items_src + 8, len - 10);
	for (i = 0; i < doc->ninputs; i++) {
		if (strcmp(doc->inputs[i].key, key) != 0 ||
		    doc->inputs[i].default_json == NULL ||
		    (v = cJSON_Parse(doc->inputs[i].default_json)) == NULL)
			continue;
		sub = flow_path_key("$.inputs", key);
		xasprintf(&msg, "%s.default", sub);
		if (!cJSON_IsArray(v))
			flow_diags_add(cr->d, FLOW_ERROR, msg, "the default of "
			    "input %s is %s, but it is the items of the "
			    "for-each at %s: expected an array", key,
			    json_type_name(v), path);
		else
			flow_foreach_items(fe, v, msg, cr->d);
		free(sub);
		free(msg);
		cJSON_Delete(v);
	}
	free(key);
}

/*
 * A for-each step: its items reference, its label, and what "do" reads
 * (where item and index exist).
 */
static void
check_foreach(const struct flow *f, const struct flow_tools *tools,
    const char *base, struct check_refs *crp)
{
	struct check_refs	 cr = *crp;
	const struct flow_step	*st;
	const struct flow_foreach *fe;
	cJSON			*v;
	char			*path;
	size_t			 i;

	(void)tools;
	cr.path = NULL;
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		if ((fe = st->foreach) == NULL)
			continue;
		cr.in_do = 0;
		if (fe->items_src != NULL) {
			path = flow_step_path(base, st, "foreach");
			check_text_refs(fe->items_src, path, &cr);
			check_foreach_default(fe, path, &cr);
			free(path);
		}
		if (fe->gate.message != NULL) {
			path = flow_step_path(base, st,
			    "gate_between_batches.message");
			check_text_refs(fe->gate.message, path, &cr);
			free(path);
		}
		cr.in_do = 1;
		if (fe->label != NULL) {
			path = flow_step_path(base, st, "label");
			check_text_refs(fe->label, path, &cr);
			free(path);
		}
		if (fe->body != NULL && fe->body->args_json != NULL &&
		    (v = cJSON_Parse(fe->body->args_json)) != NULL) {
			path = flow_step_path(base, st, "do.args");
			interp_refs(v, path, check_arg_ref, &cr);
			free(path);
			cJSON_Delete(v);
		}
	}
}

/* Run every check on a document's flow, reporting at paths under base. */
void
flow_check(const struct flow_doc *doc, const struct flow_tools *tools,
    const char *base, struct flow_diags *d)
{
	struct check_graph	 g;
	struct check_refs	 cr;
	const struct flow	*f = doc->flow;

	if (f == NULL)
		return;
	if (base == NULL)
		base = "$";
	check_graph_build(f, &g);
	check_reach(f, &g, base, d);
	check_joins(f, &g, base, d);
	check_join_agree(f, base, d);
	check_graph_free(&g);
	check_tools(f, tools, base, d);
	cr.flow = f;
	cr.doc = doc;
	cr.d = d;
	cr.path = NULL;
	cr.in_do = 0;
	check_args(f, base, &cr);
	check_conds(f, base, &cr);
	check_foreach(f, tools, base, &cr);
}
