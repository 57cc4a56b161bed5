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
 * parse.c: a flow's JSON to struct flow.  The document is read as one JSON
 * object (size, UTF-8, syntax and duplicate members checked first), each
 * member becomes a step (step.c), and step references are resolved to
 * indexes by key, then by name.  The cJSON tree is never kept.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 parse_step(struct flow *, const cJSON *, const char *,
		     struct flow_diags *);
static int	 parse_resolve(const struct flow *, const char *,
		     const char *, struct flow_diags *);

/* Parse one member of the flow object into a new step. */
static void
parse_step(struct flow *f, const cJSON *obj, const char *path,
    struct flow_diags *d)
{
	const char	*hint;

	if (!cJSON_IsObject(obj)) {
		/* A template's own keys written into a bare flow. */
		hint = "";
		if (obj->string != NULL && (strcmp(obj->string, "sla") == 0 ||
		    strcmp(obj->string, "description") == 0 ||
		    strcmp(obj->string, "inputs") == 0))
			hint = " (a flow's keys are steps; write {\"flow\": "
			    "{...}} with it beside \"flow\")";
		flow_diags_add(d, FLOW_ERROR, path, "a step must be an object, "
		    "got %s%s", json_type_name(obj), hint);
		return;
	}
	f->steps = xreallocarray(f->steps, f->nsteps + 1, sizeof *f->steps);
	flow_step_parse(&f->steps[f->nsteps++], obj, obj->string, path, d);
}

/* Keys and names share one namespace: report every clash. */
void
parse_names(struct flow *f, const char *base, struct flow_diags *d)
{
	struct flow_step	*a, *b;
	size_t			 i, j;
	char			*path, *other, *np;

	for (i = 0; i < f->nsteps; i++) {
		a = &f->steps[i];
		if (strcmp(a->name, a->key) == 0)
			continue;
		for (j = 0; j < f->nsteps; j++) {
			b = &f->steps[j];
			if (j == i)
				continue;
			if (strcmp(a->name, b->key) != 0 &&
			    (j > i || strcmp(a->name, b->name) != 0))
				continue;
			path = flow_path_key(base, a->key);
			other = flow_path_key(base, b->key);
			np = flow_path_key(path, "name");
			flow_diags_add(d, FLOW_ERROR, np, "duplicate step name "
			    "\"%s\" (also %s)", a->name, other);
			free(np);
			free(path);
			free(other);
			break;
		}
	}
}

/*
 * Resolve one reference; report an unknown one at path with the closest
 * name as a hint.  Returns the index or -1.
 */
static int
parse_resolve(const struct flow *f, const char *ref, const char *path,
    struct flow_diags *d)
{
	const char	**names, *hint;
	size_t		  i;
	int		  idx;

	if (ref == NULL)
		return (-1);
	if ((idx = flow_find(f, ref)) != -1 &&
	    flow_handler_of(f, idx) != NULL) {
		flow_diags_add(d, FLOW_ERROR, path, "\"%s\" is the run's "
		    "\"%s\" handler, which nothing leads to: it runs when "
		    "the run ends", ref, flow_handler_of(f, idx));
		return (-1);
	}
	if (idx != -1)
		return (idx);
	names = xcalloc(f->nsteps * 2 + 1, sizeof *names);
	for (i = 0; i < f->nsteps; i++) {
		names[2 * i] = f->steps[i].key;
		names[2 * i + 1] = f->steps[i].name;
	}
	hint = flow_suggest(ref, names, f->nsteps * 2);
	if (hint != NULL)
		flow_diags_add(d, FLOW_ERROR, path, "unknown step \"%s\" "
		    "(did you mean \"%s\"?)", ref, hint);
	else
		flow_diags_add(d, FLOW_ERROR, path, "unknown step \"%s\"", ref);
	free(names);
	return (-1);
}

/* Resolve every step reference of every step to an index. */
void
parse_resolve_all(struct flow *f, const char *base, struct flow_diags *d)
{
	struct flow_step	*st;
	struct buf		 b;
	size_t			 i, j, mark;

	buf_init(&b);
	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		buf_reset(&b);
		buf_puts(&b, base);
		flow_path_add_key(&b, st->key);
		mark = b.len;
		buf_puts(&b, ".next");
		st->next_target = parse_resolve(f, st->next, b.data, d);
		for (j = 0; j < st->nbranch; j++) {
			b.len = mark;
			buf_printf(&b, ".branch[%zu].%s", j,
			    st->branch[j].cond_src != NULL ? "then" : "else");
			st->branch[j].target = parse_resolve(f,
			    st->branch[j].then, b.data, d);
		}
		for (j = 0; j < st->nparallel; j++) {
			b.len = mark;
			buf_printf(&b, ".parallel[%zu]", j);
			st->parallel_targets[j] = parse_resolve(f,
			    st->parallel[j], b.data, d);
		}
		b.len = mark;
		buf_puts(&b, ".join");
		st->join_target = parse_resolve(f, st->join, b.data, d);
		if (st->gate.on_timeout != NULL &&
		    strcmp(st->gate.on_timeout, "reject") != 0) {
			b.len = mark;
			buf_puts(&b, ".gate.on_timeout");
			st->gate.on_timeout_target = parse_resolve(f,
			    st->gate.on_timeout, b.data, d);
		}
		if (st->wait.on_timeout != NULL &&
		    strcmp(st->wait.on_timeout, "fail") != 0) {
			b.len = mark;
			buf_puts(&b, ".wait.on_timeout");
			st->wait.on_timeout_target = parse_resolve(f,
			    st->wait.on_timeout, b.data, d);
		}
	}
	buf_free(&b);
}

/*
 * A run-level span ("sla", "deadline"): a duration above zero, in *ms;
 * else a diagnostic naming what at path, and -1.
 */
int
parse_span(const cJSON *v, const char *path, const char *what,
    int64_t *ms, struct flow_diags *d)
{
	const char	*why;

	if (flow_duration_json(v, ms, &why) != 0) {
		flow_diags_add(d, FLOW_ERROR, path, "%s", why);
		return (-1);
	}
	if (*ms <= 0) {
		flow_diags_add(d, FLOW_ERROR, path, "%s must be above zero",
		    what);
		return (-1);
	}
	return (0);
}

/*
 * "deadline": how long after its start the run may take; past it the run
 * is cancelled ("deadline passed").  An SLA only alerts.
 */
void
parse_deadline(struct flow *f, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	int64_t	 ms;

	if (parse_span(v, path, "a deadline", &ms, d) == 0)
		f->deadline_ms = ms;
}

/*
 * Build a flow from a JSON object of steps at base_path, reporting every
 * problem.  NULL only when the value is not an object.  The object has no
 * duplicate members: flow_json_document reported and dropped them.
 */
struct flow *
flow_from_json(const cJSON *obj, const char *base, struct flow_diags *d)
{
	struct flow	*f;
	const cJSON	*c, *handlers[2] = { NULL, NULL };
	char		*path;
	size_t		 n = 0, nplain;

	if (base == NULL)
		base = "$";
	if (!cJSON_IsObject(obj)) {
		flow_diags_add(d, FLOW_ERROR, base, "a flow must be a JSON "
		    "object of steps, got %s", json_type_name(obj));
		return (NULL);
	}
	f = xcalloc(1, sizeof *f);
	f->start = -1;
	f->on_failure = f->finally = -1;
	if (flow_nodes_is(obj)) {
		/* The DAG note's own document (nodes.c). */
		flow_nodes_parse(f, obj, base, d);
		return (f);
	}
	for (c = obj->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "output") == 0) {
			/* The run's output, not a step (SPEC §3). */
			free(f->output_json);
			f->output_json = json_print(c);
			continue;
		}
		if (strcmp(c->string, "deadline") == 0) {
			/* When the run is cancelled, not a step (SPEC §3). */
			path = flow_path_key(base, c->string);
			parse_deadline(f, c, path, d);
			free(path);
			continue;
		}
		if (strcmp(c->string, "concurrency") == 0) {
			/* The run's key, not a step (SPEC §13). */
			path = flow_path_key(base, c->string);
			flow_concurrency_parse(&f->concurrency, c, path, d);
			free(path);
			continue;
		}
		if (flow_handler_key(c->string)) {
			/* A handler: a step, after all the others. */
			handlers[strcmp(c->string, FLOW_FINALLY) == 0] = c;
			continue;
		}
		if (++n > SLUICE_MAX_STEPS) {
			flow_diags_add(d, FLOW_ERROR, base, "too many steps "
			    "(max %d)", SLUICE_MAX_STEPS);
			break;
		}
		path = flow_path_key(base, c->string);
		if (*c->string == '\0')
			flow_diags_add(d, FLOW_ERROR, path,
			    "a step key must not be empty");
		else if (vis_needed(c->string))
			flow_diags_add(d, FLOW_ERROR, path, "a step key must "
			    "not hold control characters");
		else
			parse_step(f, c, path, d);
		free(path);
	}
	nplain = f->nsteps;
	for (n = 0; n < 2; n++) {
		if (handlers[n] == NULL)
			continue;
		path = flow_path_key(base, handlers[n]->string);
		flow_handler_parse(f, handlers[n], path,
		    handlers[n]->string, d);
		free(path);
	}
	parse_names(f, base, d);
	for (n = 0; n < nplain; n++) {
		if (strcmp(f->steps[n].key, "start") == 0)
			f->start = (int)n;
	}
	/* As the reference engine does: no "start", the first step. */
	if (f->start == -1 && nplain > 0)
		f->start = 0;
	if (nplain == 0)
		flow_diags_add(d, FLOW_ERROR, base, "a flow needs at least "
		    "one step");
	parse_resolve_all(f, base, d);
	flow_dag_finish(f, base, d);
	return (f);
}

/*
 * Read a document's text as a JSON object: within the size limit, valid
 * UTF-8, parsable, and an object ("a WHAT must be a JSON object of
 * MEMBERS").  NULL after reporting why, with its line and column.
 */
cJSON *
flow_json_document(const char *text, size_t len, const char *what,
    const char *members, struct flow_diags *d)
{
	cJSON	*v;
	char	*cause;
	size_t	 bad;
	int	 line, col;

	if (len > SLUICE_MAX_DOCUMENT) {
		flow_diags_add_at(d, 1, 1, "document larger than 1 MiB");
		return (NULL);
	}
	if (!utf8_valid(text, len, &bad)) {
		str_linecol(text, bad, &line, &col);
		flow_diags_add_at(d, line, col, "invalid UTF-8");
		return (NULL);
	}
	if ((v = json_parse(text, len, &cause)) == NULL) {
		flow_diags_add_json(d, cause);
		free(cause);
		return (NULL);
	}
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, "$", "a %s must be a JSON object "
		    "of %s, got %s", what, members, json_type_name(v));
		flow_diags_locate(d, text, len);
		cJSON_Delete(v);
		return (NULL);
	}
	flow_json_dups(v, "$", d);
	return (v);
}

/* Parse flow text: UTF-8, JSON, a top-level object, then the steps. */
struct flow *
flow_parse(const char *text, size_t len, struct flow_diags *d)
{
	struct flow	*f;
	cJSON		*v;

	if ((v = flow_json_document(text, len, "flow", "steps", d)) == NULL)
		return (NULL);
	f = flow_from_json(v, "$", d);
	cJSON_Delete(v);
	return (f);
}

/* Find a step by key, then by name; -1 when there is none. */
int
flow_find(const struct flow *f, const char *ref)
{
	size_t	i;

	if (f == NULL || ref == NULL)
		return (-1);
	for (i = 0; i < f->nsteps; i++) {
		if (strcmp(f->steps[i].key, ref) == 0)
			return ((int)i);
	}
	for (i = 0; i < f->nsteps; i++) {
		if (strcmp(f->steps[i].name, ref) == 0)
			return ((int)i);
	}
	return (-1);
}

/* Free a flow. */
void
flow_free(struct flow *f)
{
	size_t	i;

	if (f == NULL)
		return;
	for (i = 0; i < f->nsteps; i++)
		flow_step_free(&f->steps[i]);
	free(f->steps);
	free(f->output_json);
	flow_concurrency_clear(&f->concurrency);
	free(f->order);
	free(f);
}
