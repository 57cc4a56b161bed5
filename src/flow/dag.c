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
 * dag.c: the DAG form of a flow (SPEC §3).  A step's "depends_on" lists
 * the steps that must have ended before it starts, each with an optional
 * condition on that step's result, and "trigger" says whether a failed or
 * skipped dependency stops it.  Here: reading those two fields, resolving
 * and checking the graph once every step is read (one form per flow, no
 * unknown or repeated dependency, no cycle, which is named member by
 * member), the order the engine and the console walk it in, and the rule
 * deciding a step from how its dependencies ended, shared by both.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 dag_dep(struct flow_step *, const cJSON *, const char *,
		     struct flow_diags *);
static char	*dag_dep_path(const char *, const struct flow_step *, size_t);
static void	 dag_resolve(struct flow *, const char *, struct flow_diags *);
static void	 dag_mixed(const struct flow *, const char *,
		     struct flow_diags *);
static void	 dag_cycles(struct flow *, const char *, struct flow_diags *);
static void	 dag_cycle_report(const struct flow *, const int *, size_t,
		     const char *, struct flow_diags *);
static void	 dag_order(struct flow *);

/* One "depends_on" entry: "a", or {"step": "b", "if": COND}. */
static void
dag_dep(struct flow_step *st, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	struct flow_dep	 dep;
	const cJSON	*c;
	char		*sub, *cause;

	memset(&dep, 0, sizeof dep);
	dep.target = -1;
	dep.edge = -1;
	if (cJSON_IsString(v))
		dep.ref = flow_json_string(v, path, 1, d);
	else if (cJSON_IsObject(v)) {
		for (c = v->child; c != NULL; c = c->next) {
			sub = flow_path_key(path, c->string);
			if (strcmp(c->string, "step") == 0) {
				free(dep.ref);
				dep.ref = flow_json_string(c, sub, 1, d);
			} else if (strcmp(c->string, "if") == 0) {
				free(dep.cond_src);
				cond_free(dep.cond);
				dep.cond = NULL;
				dep.cond_src = flow_json_string(c, sub, 1, d);
				if (dep.cond_src != NULL && (dep.cond =
				    cond_parse(dep.cond_src, &cause)) == NULL) {
					flow_diags_add(d, FLOW_ERROR, sub, "%s",
					    cause);
					free(cause);
				}
			} else
				flow_diags_add(d, FLOW_ERROR, sub, "unknown key "
				    "\"%s\" in a dependency (use \"step\" and "
				    "\"if\")", c->string);
			free(sub);
		}
		if (cJSON_GetObjectItemCaseSensitive(v, "step") == NULL)
			flow_diags_add(d, FLOW_ERROR, path, "missing \"step\"");
	} else
		flow_diags_add(d, FLOW_ERROR, path, "expected a step name or "
		    "{\"step\": ..., \"if\": ...}, got %s", json_type_name(v));
	if (dep.ref == NULL) {
		free(dep.cond_src);
		cond_free(dep.cond);
		return;
	}
	flow_dag_add(st, &dep);
}

/* Add a dependency to a step (it takes the strings and the condition). */
void
flow_dag_add(struct flow_step *st, const struct flow_dep *dep)
{
	st->deps = xreallocarray(st->deps, st->ndeps + 1, sizeof *st->deps);
	st->deps[st->ndeps++] = *dep;
}

/* "depends_on" and "trigger", the two fields of the DAG form. */
void
flow_dag_field(struct flow_step *st, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	const cJSON	*c;
	char		*sub;
	size_t		 i = 0;

	if (strcmp(v->string, "trigger") == 0) {
		if (cJSON_IsString(v) &&
		    strcmp(v->valuestring, "all_success") == 0)
			st->trigger = FLOW_TRIGGER_ALL_SUCCESS;
		else if (cJSON_IsString(v) &&
		    strcmp(v->valuestring, "all_done") == 0)
			st->trigger = FLOW_TRIGGER_ALL_DONE;
		else
			flow_diags_add(d, FLOW_ERROR, path, "expected "
			    "\"all_success\" or \"all_done\"");
		return;
	}
	st->has_deps = 1;
	if (!cJSON_IsArray(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected an array of "
		    "steps, got %s", json_type_name(v));
		return;
	}
	for (c = v->child; c != NULL; c = c->next, i++) {
		sub = flow_path_index(path, i);
		dag_dep(st, c, sub, d);
		free(sub);
	}
}

/* Free a step's dependencies. */
void
flow_dag_free(struct flow_step *st)
{
	size_t	i;

	for (i = 0; i < st->ndeps; i++) {
		free(st->deps[i].ref);
		free(st->deps[i].cond_src);
		cond_free(st->deps[i].cond);
	}
	free(st->deps);
	st->deps = NULL;
	st->ndeps = 0;
}

/*
 * A step's path ("$.key", or "$.nodes[3]" in the note's document; a
 * handler written beside a template's "flow", "$.finally"), with a field
 * when given: where check and the DAG form report about it.
 */
char *
flow_step_path(const char *base, const struct flow_step *st,
    const char *field)
{
	struct buf	b;

	buf_init(&b);
	buf_puts(&b, st->beside ? "$" : base);
	if (st->node >= 0)
		buf_printf(&b, ".nodes[%d]", st->node);
	else
		flow_path_add_key(&b, st->key);
	if (field != NULL)
		buf_printf(&b, ".%s", field);
	return (buf_release(&b));
}

/* Where dependency j of a step was written: its entry, or its edge. */
static char *
dag_dep_path(const char *base, const struct flow_step *st, size_t j)
{
	char	*p, *q;

	if (st->deps[j].edge >= 0) {
		p = flow_path_key(base, "edges");
		q = flow_path_index(p, (size_t)st->deps[j].edge);
		free(p);
		return (q);
	}
	p = flow_step_path(base, st, "depends_on");
	q = flow_path_index(p, j);
	free(p);
	return (q);
}

/* Resolve dependencies to indexes; refuse unknown and repeated ones. */
static void
dag_resolve(struct flow *f, const char *base, struct flow_diags *d)
{
	struct flow_step	*st;
	const char		**names, *hint;
	char			*path;
	size_t			 i, j, k;

	names = xcalloc(f->nsteps * 2 + 1, sizeof *names);
	for (i = 0; i < f->nsteps; i++) {
		names[2 * i] = f->steps[i].key;
		names[2 * i + 1] = f->steps[i].name;
	}
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		for (j = 0; j < st->ndeps; j++) {
			st->deps[j].target = flow_find(f, st->deps[j].ref);
			path = dag_dep_path(base, st, j);
			if (flow_handler_of(f, st->deps[j].target) != NULL) {
				flow_diags_add(d, FLOW_ERROR, path, "\"%s\" is "
				    "the run's \"%s\" handler, which nothing "
				    "leads to: it runs when the run ends",
				    st->deps[j].ref,
				    flow_handler_of(f, st->deps[j].target));
				st->deps[j].target = -1;
			} else if (st->deps[j].target < 0) {
				hint = flow_suggest(st->deps[j].ref, names,
				    f->nsteps * 2);
				flow_diags_add(d, FLOW_ERROR, path, "unknown "
				    "step \"%s\"%s%s%s", st->deps[j].ref,
				    hint != NULL ? " (did you mean \"" : "",
				    hint != NULL ? hint : "",
				    hint != NULL ? "\"?)" : "");
			}
			for (k = 0; k < j && st->deps[j].target >= 0; k++) {
				if (st->deps[k].target != st->deps[j].target)
					continue;
				flow_diags_add(d, FLOW_ERROR, path, "\"%s\" is "
				    "already a dependency of %s", st->deps[j].ref,
				    st->key);
				st->deps[j].target = -1;
			}
			free(path);
		}
	}
	free(names);
}

/*
 * One flow uses one form: in the DAG form, next, branch, parallel and
 * join are errors at their paths, as is an on_timeout naming a step
 * (a condition on the gate's result says what follows instead).
 */
static void
dag_mixed(const struct flow *f, const char *base, struct flow_diags *d)
{
	const struct flow_step	*st;
	const char		*field;
	char			*path, *first = NULL, *why;
	size_t			 i, k;

	for (i = 0; i < f->nsteps && first == NULL; i++) {
		if (f->steps[i].has_deps)
			first = flow_step_path(base, &f->steps[i],
			    "depends_on");
	}
	if (f->form == FLOW_FORM_NODES)
		why = xstrdup("the nodes and edges form");
	else
		xasprintf(&why, "depends_on, first at %s", first);
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		for (k = 0; k < 6; k++) {
			field = NULL;
			if (k == 0 && st->next != NULL)
				field = "next";
			else if (k == 1 && st->nbranch > 0)
				field = "branch";
			else if (k == 2 && st->parallel != NULL)
				field = "parallel";
			else if (k == 3 && st->join != NULL)
				field = "join";
			else if (k == 4 && st->gate.on_timeout_target >= 0)
				field = "gate.on_timeout";
			else if (k == 5 && st->wait.on_timeout_target >= 0)
				field = "wait.on_timeout";
			if (field == NULL)
				continue;
			path = flow_step_path(base, st, field);
			flow_diags_add(d, FLOW_ERROR, path, "\"%s\" cannot be "
			    "used in a DAG flow (%s): a flow uses one form, "
			    "depends_on or next/branch/parallel/join", field,
			    why);
			free(path);
		}
	}
	free(first);
	free(why);
}

/*
 * Name a cycle, stack[0..n) with each member depending on the next, in
 * the order it runs ("a → b → c → a"), from the member written first, at
 * the path of that member's dependency on the one before it.
 */
static void
dag_cycle_report(const struct flow *f, const int *stack, size_t n,
    const char *base, struct flow_diags *d)
{
	const struct flow_step	*st;
	struct buf		 b;
	char			*path = NULL;
	size_t			 i, first = 0, k, j;
	int			 prev;

	/* Running order is the stack reversed; begin at the lowest index. */
	for (i = 1; i < n; i++) {
		if (stack[i] < stack[first])
			first = i;
	}
	buf_init(&b);
	buf_puts(&b, "cycle: ");
	for (k = 0; k <= n; k++) {
		i = (first + n - k % n) % n;
		buf_printf(&b, "%s%s", k > 0 ? " \xe2\x86\x92 " : "",
		    f->steps[stack[i]].key);
	}
	st = &f->steps[stack[first]];
	prev = stack[(first + 1) % n];
	for (j = 0; j < st->ndeps && path == NULL; j++) {
		if (st->deps[j].target == prev)
			path = dag_dep_path(base, st, j);
	}
	if (path == NULL)
		path = flow_step_path(base, st, "depends_on");
	flow_diags_add(d, FLOW_ERROR, path, "%s", b.data);
	free(path);
	buf_free(&b);
}

/*
 * Find the cycles (depth first along dependencies): each is reported
 * once, and its members are not searched again.
 */
static void
dag_cycles(struct flow *f, const char *base, struct flow_diags *d)
{
	unsigned char	*color;		/* 0 new, 1 on the path, 2 done */
	int		*stack;
	size_t		*next, top, i, k;
	int		 s, t;

	color = xcalloc(f->nsteps + 1, 1);
	stack = xcalloc(f->nsteps + 1, sizeof *stack);
	next = xcalloc(f->nsteps + 1, sizeof *next);
	for (i = 0; i < f->nsteps; i++) {
		if (color[i] != 0)
			continue;
		top = 0;
		stack[top] = (int)i;
		next[top++] = 0;
		color[i] = 1;
		while (top > 0) {
			s = stack[top - 1];
			if (next[top - 1] >= f->steps[s].ndeps) {
				color[s] = 2;
				top--;
				continue;
			}
			t = f->steps[s].deps[next[top - 1]++].target;
			if (t < 0 || color[t] == 2)
				continue;
			if (color[t] == 0) {
				color[t] = 1;
				stack[top] = t;
				next[top++] = 0;
				continue;
			}
			/* t is on the path: the cycle is t .. s. */
			for (k = 0; stack[k] != t; k++)
				/* nothing */;
			dag_cycle_report(f, stack + k, top - k, base, d);
			for (k = 0; k < top; k++)
				color[stack[k]] = 2;
			top = 0;
		}
	}
	free(next);
	free(stack);
	free(color);
}

/*
 * The order the engine decides steps in and the console lists them:
 * every step after its dependencies, else in document order (Kahn's
 * algorithm, taking the lowest ready index first).  Steps on a cycle,
 * already an error, come last; the run's handlers are left out.
 */
static void
dag_order(struct flow *f)
{
	unsigned char	*placed;
	size_t		 n = 0, i, j;
	int		 progress = 1, ok;

	f->order = xcalloc(f->nsteps + 1, sizeof *f->order);
	placed = xcalloc(f->nsteps + 1, 1);
	/* The run's handlers are no part of the graph: the engine's own. */
	for (i = 0; i < f->nsteps; i++) {
		if (flow_handler_of(f, (int)i) != NULL)
			placed[i] = 2;
	}
	while (progress) {
		progress = 0;
		for (i = 0; i < f->nsteps; i++) {
			if (placed[i])
				continue;
			ok = 1;
			for (j = 0; j < f->steps[i].ndeps && ok; j++) {
				if (f->steps[i].deps[j].target >= 0 &&
				    !placed[f->steps[i].deps[j].target])
					ok = 0;
			}
			if (!ok)
				continue;
			placed[i] = 1;
			f->order[n++] = (int)i;
			progress = 1;
			break;
		}
	}
	for (i = 0; i < f->nsteps; i++) {
		if (!placed[i])
			f->order[n++] = (int)i;
	}
	f->norder = n;
	free(placed);
}

/*
 * After every step is read: which form the flow has, and for the DAG
 * form its checks, its order, and its first root as the "start" the
 * rest of sluice expects.
 */
void
flow_dag_finish(struct flow *f, const char *base, struct flow_diags *d)
{
	size_t	i;
	char	*path;

	if (f->form == FLOW_FORM_STEPS) {
		for (i = 0; i < f->nsteps; i++) {
			if (f->steps[i].has_deps)
				f->form = FLOW_FORM_DEPENDS;
		}
	}
	if (f->form == FLOW_FORM_STEPS) {
		for (i = 0; i < f->nsteps; i++) {
			if (f->steps[i].trigger == FLOW_TRIGGER_ALL_SUCCESS)
				continue;
			path = flow_step_path(base, &f->steps[i], "trigger");
			flow_diags_add(d, FLOW_ERROR, path, "\"trigger\" "
			    "belongs to the DAG form (a step with "
			    "\"depends_on\")");
			free(path);
		}
		return;
	}
	for (i = 0; i < f->nsteps; i++) {
		if (!f->steps[i].has_deps ||
		    flow_handler_of(f, (int)i) == NULL)
			continue;
		path = flow_step_path(base, &f->steps[i], "depends_on");
		flow_diags_add(d, FLOW_ERROR, path, "\"depends_on\" has no "
		    "place in \"%s\" (it runs when the run ends)",
		    flow_handler_of(f, (int)i));
		free(path);
		flow_dag_free(&f->steps[i]);
	}
	dag_resolve(f, base, d);
	dag_mixed(f, base, d);
	dag_cycles(f, base, d);
	dag_order(f);
	f->start = -1;
	for (i = 0; i < f->norder && f->start < 0; i++) {
		if (f->steps[f->order[i]].ndeps == 0)
			f->start = f->order[i];
	}
}

/*
 * Decide step spec from how its dependencies ended (ends[], one per
 * dependency, in order): wait, start, skip or fail the run, with why
 * for the last two.  Edge conditions see the dependency's result and
 * exit code as "result" and "exit_code" in scope; under "all_done" only
 * the dependencies that completed are asked.
 */
enum flow_dag_verdict
flow_dag_decide(const struct flow *f, int spec, const struct flow_dag_end *ends,
    cJSON *scope, char **why)
{
	const struct flow_step	*st = &f->steps[spec];
	const struct flow_dep	*dep;
	size_t			 j;
	int			 holds;

	*why = NULL;
	for (j = 0; j < st->ndeps; j++) {
		if (!ends[j].ended)
			return (FLOW_DAG_WAIT);
	}
	for (j = 0; j < st->ndeps &&
	    st->trigger == FLOW_TRIGGER_ALL_SUCCESS; j++) {
		dep = &st->deps[j];
		if (ends[j].status == STEP_FAILED) {
			xasprintf(why, "step %s: its dependency %s failed",
			    st->name, f->steps[dep->target].name);
			return (FLOW_DAG_FAIL);
		}
		if (ends[j].status == STEP_SKIPPED) {
			xasprintf(why, "skipped: dependency %s was skipped",
			    f->steps[dep->target].name);
			return (FLOW_DAG_SKIP);
		}
	}
	for (j = 0; j < st->ndeps; j++) {
		dep = &st->deps[j];
		if (dep->cond == NULL || ends[j].status != STEP_DONE)
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "result");
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "exit_code");
		cJSON_AddItemToObject(scope, "result",
		    json_parse_or_null(ends[j].result_json));
		if (ends[j].has_exit_code)
			cJSON_AddNumberToObject(scope, "exit_code",
			    ends[j].exit_code);
		else
			cJSON_AddNullToObject(scope, "exit_code");
		holds = cond_eval(dep->cond, scope) == 1;
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "result");
		cJSON_DeleteItemFromObjectCaseSensitive(scope, "exit_code");
		if (!holds) {
			xasprintf(why, "skipped: the condition on %s was "
			    "false (%s)", f->steps[dep->target].name,
			    dep->cond_src);
			return (FLOW_DAG_SKIP);
		}
	}
	return (FLOW_DAG_START);
}

/*
 * Does a failure of step spec leave the run going?  Only when it has
 * dependants and every one of them says "trigger": "all_done".
 */
int
flow_dag_tolerated(const struct flow *f, int spec)
{
	size_t	i, j;
	int	n = 0;

	for (i = 0; i < f->nsteps; i++) {
		for (j = 0; j < f->steps[i].ndeps; j++) {
			if (f->steps[i].deps[j].target != spec)
				continue;
			if (f->steps[i].trigger != FLOW_TRIGGER_ALL_DONE)
				return (0);
			n++;
		}
	}
	return (n > 0);
}

/*
 * Does a dependant of step spec put a condition on its result?  Then a
 * rejected gate there goes on (the condition decides) instead of
 * failing the run.
 */
int
flow_dag_judged(const struct flow *f, int spec)
{
	size_t	i, j;

	for (i = 0; i < f->nsteps; i++) {
		for (j = 0; j < f->steps[i].ndeps; j++) {
			if (f->steps[i].deps[j].target == spec &&
			    f->steps[i].deps[j].cond != NULL)
				return (1);
		}
	}
	return (0);
}

/*
 * The steps that depend on step spec, at any depth (spec itself not
 * included): nsteps flags, to free.
 */
unsigned char *
flow_dag_downstream(const struct flow *f, int spec)
{
	unsigned char	*down;
	size_t		 k, j;
	int		 i, changed = 1;

	down = xcalloc(f->nsteps + 1, 1);
	while (changed) {
		changed = 0;
		for (k = 0; k < f->nsteps; k++) {
			if (f->order != NULL && k >= f->norder)
				break;
			i = f->order != NULL ? f->order[k] : (int)k;
			if (down[i])
				continue;
			for (j = 0; j < f->steps[i].ndeps; j++) {
				if (f->steps[i].deps[j].target == spec ||
				    (f->steps[i].deps[j].target >= 0 &&
				    down[f->steps[i].deps[j].target])) {
					down[i] = 1;
					changed = 1;
					break;
				}
			}
		}
	}
	return (down);
}

/* "a, b": the names of a step's dependencies, or NULL when none. */
char *
flow_dag_after(const struct flow *f, int spec)
{
	const struct flow_step	*st = &f->steps[spec];
	struct buf		 b;
	size_t			 j;

	if (st->ndeps == 0)
		return (NULL);
	buf_init(&b);
	for (j = 0; j < st->ndeps; j++) {
		buf_printf(&b, "%s%s", j > 0 ? ", " : "",
		    st->deps[j].target >= 0 ?
		    f->steps[st->deps[j].target].name : st->deps[j].ref);
	}
	return (buf_release(&b));
}

/*
 * The retry rule of a DAG run (flow_retry_plan): each step whose latest
 * row failed or was cancelled runs again, unless it depends (at any
 * depth) on another that does, or on the step retry --from runs again
 * (rows[from]; n for a plain retry), or is that step: those are decided
 * again as their dependencies end anew.  Returns how many are set.
 */
size_t
flow_dag_retry_plan(const struct flow *f, const struct flow_row *rows,
    size_t n, size_t from, unsigned char *again)
{
	size_t		*latest, i, count = 0;
	unsigned char	*down, *pick;
	int		 spec, s;

	latest = xcalloc(f->nsteps + 1, sizeof *latest);
	pick = xcalloc(f->nsteps + 1, 1);
	for (i = 0; i < f->nsteps; i++)
		latest[i] = n;
	for (i = 0; i < n; i++) {
		again[i] = 0;
		if (rows[i].item_of != 0 && rows[i].items == 0)
			continue;
		if ((spec = flow_find(f, rows[i].step_key)) >= 0)
			latest[spec] = i;
	}
	for (s = 0; s < (int)f->nsteps; s++) {
		if (flow_handler_of(f, s) != NULL)
			continue;	/* the engine starts it again itself */
		if (latest[s] < n && (rows[latest[s]].status == STEP_FAILED ||
		    rows[latest[s]].status == STEP_CANCELLED))
			pick[s] = 1;
	}
	if (from < n && (spec = flow_find(f, rows[from].step_key)) >= 0)
		pick[spec] = 2;
	for (s = 0; s < (int)f->nsteps; s++) {
		if (!pick[s])
			continue;
		down = flow_dag_downstream(f, s);
		for (i = 0; i < f->nsteps; i++) {
			if (down[i])
				pick[i] = 0;
		}
		free(down);
	}
	for (s = 0; s < (int)f->nsteps; s++) {
		if (pick[s] == 1) {
			again[latest[s]] = 1;
			count++;
		}
	}
	free(pick);
	free(latest);
	return (count);
}
