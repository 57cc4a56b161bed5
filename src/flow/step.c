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
 * step.c: one step object to struct flow_step.  Types are checked field by
 * field from a table, every problem is reported with its JSON path (not
 * just the first), and the step's kind and way on are decided once all its
 * fields are read.  Steps hold their own strings, and args as compact JSON
 * text.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* What the field handlers of one step share. */
struct parse_step {
	struct flow_step	*st;
	struct flow_diags	*d;
	const char		*path;		/* the step's path */
	unsigned		 kinds;		/* FLOW_KIND_BIT: keys set */
	const cJSON		*gate;
	const cJSON		*wait;
};

typedef void (*parse_field_cb)(struct parse_step *, const cJSON *,
    const char *);

struct parse_field {
	const char	*name;
	parse_field_cb	 cb;
};

static void	 parse_name(struct parse_step *, const cJSON *, const char *);
static void	 parse_tool(struct parse_step *, const cJSON *, const char *);
static void	 parse_run(struct parse_step *, const cJSON *, const char *);
static void	 parse_shell(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_text(struct parse_step *, const cJSON *, const char *);
static void	 parse_env(struct parse_step *, const cJSON *, const char *);
static void	 parse_args(struct parse_step *, const cJSON *, const char *);
static void	 parse_next(struct parse_step *, const cJSON *, const char *);
static void	 parse_branch(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_parallel(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_done(struct parse_step *, const cJSON *, const char *);
static void	 parse_retry(struct parse_step *, const cJSON *, const char *);
static void	 parse_timeout(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_gate_field(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_wait_field(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_heartbeat(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_interrupt(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_visits(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_policy(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_ignore(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_foreach(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_concurrency(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_workflow(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_input(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_when(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_dag(struct parse_step *, const cJSON *,
		     const char *);
static void	 parse_transitions(struct parse_step *);
static void	 parse_wait_heartbeat(struct parse_step *);
static int	 parse_arm(struct parse_step *, const cJSON *, const char *,
		     struct flow_branch *, int);
static void	 parse_exec(struct parse_step *);
static void	 parse_step_init(struct flow_step *, const char *);

/*
 * Every field a step may have, one line each: a field not listed here is
 * an error (with the closest listed name as a hint), never ignored.
 */
static const struct parse_field parse_fields[] = {
	{ "name", parse_name },
	{ "tool", parse_tool },
	{ "run", parse_run },
	{ "shell", parse_shell },
	{ "host", parse_text },
	{ "cwd", parse_text },
	{ "description", parse_text },
	{ "env", parse_env },
	{ "args", parse_args },
	{ "next", parse_next },
	{ "join", parse_next },
	{ "branch", parse_branch },
	{ "parallel", parse_parallel },
	{ "done", parse_done },
	{ "retry", parse_retry },
	{ "timeout", parse_timeout },
	{ "gate", parse_gate_field },
	{ "wait", parse_wait_field },	/* wait.c: finished from outside */
	{ "heartbeat", parse_heartbeat },
	{ "on_interrupt", parse_interrupt },
	{ "max_visits", parse_visits },
	{ "join_policy", parse_policy },
	{ "workflow", parse_workflow },
	{ "input", parse_input },
	{ "when", parse_when },
	{ "depends_on", parse_dag },	/* the DAG form: dag.c */
	{ "trigger", parse_dag },
	{ "attempt", parse_ignore },	/* set by the reference engine */
	{ "foreach", parse_foreach },	/* the for-each fields: foreach.c */
	{ "do", parse_foreach },
	{ "label", parse_foreach },
	{ "concurrency", parse_concurrency },	/* a number: for-each's */
	{ "batch", parse_foreach },
	{ "gate_between_batches", parse_foreach },
	{ "max_failures", parse_foreach },
	{ "on_budget_spent", parse_foreach },
};
#define PARSE_NFIELDS (sizeof parse_fields / sizeof parse_fields[0])

/* "name": a non-empty label, also an alias for references. */
static void
parse_name(struct parse_step *ps, const cJSON *v, const char *path)
{
	char	*s;

	if ((s = flow_json_string(v, path, 1, ps->d)) == NULL)
		return;
	if (strlen(s) > SLUICE_MAX_NAME) {
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "name too long (max %d bytes)", SLUICE_MAX_NAME);
		free(s);
		return;
	}
	if (vis_needed(s)) {
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "a name must not hold control characters");
		free(s);
		return;
	}
	free(ps->st->name);
	ps->st->name = s;
}

/* "tool": a tool name, or null for a gate. */
static void
parse_tool(struct parse_step *ps, const cJSON *v, const char *path)
{
	if (cJSON_IsNull(v))
		return;
	if ((ps->st->tool = flow_json_string(v, path, 1, ps->d)) == NULL)
		ps->st->tool = xstrdup("");
	ps->kinds |= FLOW_KIND_BIT(KIND_TOOL);
}

/* "run": argv executed directly. */
static void
parse_run(struct parse_step *ps, const cJSON *v, const char *path)
{
	ps->st->run = flow_json_strings(v, path, &ps->st->nrun, ps->d);
	if (ps->st->run == NULL)
		ps->st->run = xcalloc(1, sizeof *ps->st->run);
	ps->kinds |= FLOW_KIND_BIT(KIND_RUN);
}

/* "shell": a script for /bin/sh -c. */
static void
parse_shell(struct parse_step *ps, const cJSON *v, const char *path)
{
	if ((ps->st->shell = flow_json_string(v, path, 1, ps->d)) == NULL)
		ps->st->shell = xstrdup("");
	ps->kinds |= FLOW_KIND_BIT(KIND_SHELL);
}

/* "host", "cwd", "description": plain strings. */
static void
parse_text(struct parse_step *ps, const cJSON *v, const char *path)
{
	char	**dst, *s;

	if (strcmp(v->string, "host") == 0)
		dst = &ps->st->host;
	else if (strcmp(v->string, "cwd") == 0)
		dst = &ps->st->cwd;
	else
		dst = &ps->st->description;
	s = flow_json_string(v, path, strcmp(v->string, "description"),
	    ps->d);
	if (s != NULL) {
		free(*dst);
		*dst = s;
	}
}

/* "env": an object of string values with shell-safe names. */
static void
parse_env(struct parse_step *ps, const cJSON *v, const char *path)
{
	flow_env_parse(v, path, &ps->st->env, &ps->st->nenv, ps->d);
}

/* "args": an object, kept as compact JSON text. */
static void
parse_args(struct parse_step *ps, const cJSON *v, const char *path)
{
	if (cJSON_IsNull(v))
		return;
	if (!cJSON_IsObject(v)) {
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "expected an object, got %s", json_type_name(v));
		return;
	}
	free(ps->st->args_json);
	ps->st->args_json = json_print(v);
}

/* "next" and "join": one step reference. */
static void
parse_next(struct parse_step *ps, const cJSON *v, const char *path)
{
	char	**dst;

	dst = strcmp(v->string, "next") == 0 ? &ps->st->next : &ps->st->join;
	if (cJSON_IsNull(v) && dst == &ps->st->next)
		return;
	free(*dst);
	*dst = flow_json_string(v, path, 1, ps->d);
}

/* One arm of a branch; returns 1 when it is an "else" arm. */
static int
parse_arm(struct parse_step *ps, const cJSON *arm, const char *path,
    struct flow_branch *br, int last)
{
	const cJSON	*c, *cif = NULL, *cthen = NULL, *celse = NULL;
	char		*sub, *cause;

	if (!cJSON_IsObject(arm)) {
		flow_diags_add(ps->d, FLOW_ERROR, path, "expected an object "
		    "{\"if\": ..., \"then\": ...}, got %s",
		    json_type_name(arm));
		return (0);
	}
	for (c = arm->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "if") == 0)
			cif = c;
		else if (strcmp(c->string, "then") == 0)
			cthen = c;
		else if (strcmp(c->string, "else") == 0)
			celse = c;
		else {
			sub = flow_path_key(path, c->string);
			flow_diags_add(ps->d, FLOW_ERROR, sub, "unknown key "
			    "\"%s\" in a branch arm (use \"if\" and \"then\", "
			    "or \"else\")", c->string);
			free(sub);
		}
	}
	if (celse != NULL) {
		if (cif != NULL || cthen != NULL)
			flow_diags_add(ps->d, FLOW_ERROR, path, "an arm is "
			    "either {\"if\", \"then\"} or {\"else\"}");
		else if (!last)
			flow_diags_add(ps->d, FLOW_ERROR, path,
			    "\"else\" must be the last arm");
		sub = flow_path_key(path, "else");
		br->then = flow_json_string(celse, sub, 1, ps->d);
		free(sub);
		return (1);
	}
	if (cif == NULL)
		flow_diags_add(ps->d, FLOW_ERROR, path, "missing \"if\"");
	if (cthen == NULL)
		flow_diags_add(ps->d, FLOW_ERROR, path, "missing \"then\"");
	if (cthen != NULL) {
		sub = flow_path_key(path, "then");
		br->then = flow_json_string(cthen, sub, 1, ps->d);
		free(sub);
	}
	if (cif != NULL) {
		sub = flow_path_key(path, "if");
		br->cond_src = flow_json_string(cif, sub, 1, ps->d);
		if (br->cond_src != NULL &&
		    (br->cond = cond_parse(br->cond_src, &cause)) == NULL) {
			flow_diags_add(ps->d, FLOW_ERROR, sub, "%s", cause);
			free(cause);
		}
		if (br->cond_src == NULL)
			br->cond_src = xstrdup("");
		free(sub);
	}
	return (0);
}

/*
 * "when": a condition checked when the step would start; false skips the
 * step and the run goes on as if it completed with a null result.
 */
static void
parse_when(struct parse_step *ps, const cJSON *v, const char *path)
{
	struct flow_step	*st = ps->st;
	char			*cause;

	free(st->when_src);
	cond_free(st->when);
	st->when = NULL;
	if ((st->when_src = flow_json_string(v, path, 1, ps->d)) == NULL)
		return;
	if ((st->when = cond_parse(st->when_src, &cause)) == NULL) {
		flow_diags_add(ps->d, FLOW_ERROR, path, "%s", cause);
		free(cause);
	}
}

/* "depends_on" and "trigger": the DAG form's fields (dag.c). */
static void
parse_dag(struct parse_step *ps, const cJSON *v, const char *path)
{
	flow_dag_field(ps->st, v, path, ps->d);
}

/* "branch": arms tried in order; an "else" arm may end it. */
static void
parse_branch(struct parse_step *ps, const cJSON *v, const char *path)
{
	const cJSON		*c;
	struct flow_step	*st = ps->st;
	char			*sub;
	size_t			 n, i;

	if (!cJSON_IsArray(v) || (n = (size_t)cJSON_GetArraySize(v)) == 0) {
		flow_diags_add(ps->d, FLOW_ERROR, path, "expected a non-empty "
		    "array of {\"if\": ..., \"then\": ...}, got %s",
		    cJSON_IsArray(v) ? "an empty array" : json_type_name(v));
		return;
	}
	st->branch = xcalloc(n, sizeof *st->branch);
	st->nbranch = n;
	for (i = 0, c = v->child; c != NULL; c = c->next, i++) {
		st->branch[i].target = -1;
		sub = flow_path_index(path, i);
		parse_arm(ps, c, sub, &st->branch[i], c->next == NULL);
		free(sub);
	}
}

/* "parallel": the fan-out's branches. */
static void
parse_parallel(struct parse_step *ps, const cJSON *v, const char *path)
{
	struct flow_step	*st = ps->st;
	size_t			 i;

	st->parallel = flow_json_strings(v, path, &st->nparallel, ps->d);
	if (st->parallel == NULL)
		return;
	st->parallel_targets = xcalloc(st->nparallel,
	    sizeof *st->parallel_targets);
	for (i = 0; i < st->nparallel; i++)
		st->parallel_targets[i] = -1;
}

/* "done": a boolean. */
static void
parse_done(struct parse_step *ps, const cJSON *v, const char *path)
{
	if (!cJSON_IsBool(v)) {
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "expected true or false, got %s", json_type_name(v));
		return;
	}
	ps->st->done = cJSON_IsTrue(v);
}

/* "retry": see flow_retry_parse. */
static void
parse_retry(struct parse_step *ps, const cJSON *v, const char *path)
{
	flow_retry_parse(v, path, &ps->st->retry, ps->d);
}

/* "timeout": a duration above zero. */
static void
parse_timeout(struct parse_step *ps, const cJSON *v, const char *path)
{
	const char	*why;
	int64_t		 ms;

	if (flow_duration_json(v, &ms, &why) != 0)
		flow_diags_add(ps->d, FLOW_ERROR, path, "%s", why);
	else if (ms <= 0)
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "timeout must be above zero");
	else
		ps->st->timeout = ms;
}

/* "gate": parsed once the step's kind is known. */
static void
parse_gate_field(struct parse_step *ps, const cJSON *v, const char *path)
{
	(void)path;
	ps->gate = v;
}

/* "wait": parsed once the step's kind is known (wait.c). */
static void
parse_wait_field(struct parse_step *ps, const cJSON *v, const char *path)
{
	(void)path;
	ps->wait = v;
	ps->kinds |= FLOW_KIND_BIT(KIND_WAIT);
}

/* "heartbeat": the longest silence on stdout and stderr, above zero. */
static void
parse_heartbeat(struct parse_step *ps, const cJSON *v, const char *path)
{
	const char	*why;
	int64_t		 ms;

	if (flow_duration_json(v, &ms, &why) != 0)
		flow_diags_add(ps->d, FLOW_ERROR, path, "%s", why);
	else if (ms <= 0)
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "heartbeat must be above zero");
	else
		ps->st->heartbeat = ms;
}

/* "on_interrupt": retry, fail or ask. */
static void
parse_interrupt(struct parse_step *ps, const cJSON *v, const char *path)
{
	const char	*s = cJSON_IsString(v) ? v->valuestring : "";

	if (strcmp(s, "retry") == 0)
		ps->st->on_interrupt = FLOW_INTERRUPT_RETRY;
	else if (strcmp(s, "fail") == 0)
		ps->st->on_interrupt = FLOW_INTERRUPT_FAIL;
	else if (strcmp(s, "ask") == 0)
		ps->st->on_interrupt = FLOW_INTERRUPT_ASK;
	else if (cJSON_IsString(v))
		flow_diags_add(ps->d, FLOW_ERROR, path, "unknown value \"%s\" "
		    "(use \"retry\", \"fail\" or \"ask\")", s);
	else
		flow_diags_add(ps->d, FLOW_ERROR, path, "expected \"retry\", "
		    "\"fail\" or \"ask\", got %s", json_type_name(v));
}

/* "max_visits": how often a loop may come back to this step. */
static void
parse_visits(struct parse_step *ps, const cJSON *v, const char *path)
{
	int64_t	n;

	if (flow_json_int(v, path, 1, 1000000, &n, ps->d) == 0)
		ps->st->max_visits = (int)n;
}

/* "join_policy": all_success, all_done or a count of branches. */
static void
parse_policy(struct parse_step *ps, const cJSON *v, const char *path)
{
	int64_t	n;

	if (cJSON_IsString(v) && strcmp(v->valuestring, "all_success") == 0)
		ps->st->join_policy = FLOW_JOIN_ALL_SUCCESS;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "all_done") == 0)
		ps->st->join_policy = FLOW_JOIN_ALL_DONE;
	else if (cJSON_IsNumber(v)) {
		if (flow_json_int(v, path, 1, SLUICE_MAX_STEPS, &n,
		    ps->d) == 0) {
			ps->st->join_policy = FLOW_JOIN_COUNT;
			ps->st->join_count = (int)n;
		}
	} else if (cJSON_IsString(v))
		flow_diags_add(ps->d, FLOW_ERROR, path, "unknown value \"%s\" "
		    "(use \"all_success\", \"all_done\" or a number)",
		    v->valuestring);
	else
		flow_diags_add(ps->d, FLOW_ERROR, path, "expected "
		    "\"all_success\", \"all_done\" or a number, got %s",
		    json_type_name(v));
}

/* A field the reference engine sets internally; accepted and unused. */
static void
parse_ignore(struct parse_step *ps, const cJSON *v, const char *path)
{
	(void)ps;
	(void)v;
	(void)path;
}

/* A for-each field: see flow_foreach_field. */
static void
parse_foreach(struct parse_step *ps, const cJSON *v, const char *path)
{
	flow_foreach_field(ps->st, v, path, ps->d);
}

/*
 * "concurrency": a number bounds a for-each's items in flight; an object
 * is the step's key (SPEC §13), held by each of its rows while it runs.
 */
static void
parse_concurrency(struct parse_step *ps, const cJSON *v, const char *path)
{
	if (cJSON_IsObject(v))
		flow_concurrency_parse(&ps->st->concurrency, v, path, ps->d);
	else
		flow_foreach_field(ps->st, v, path, ps->d);
}

/* "workflow": the template a sub-workflow step starts as a child run. */
static void
parse_workflow(struct parse_step *ps, const cJSON *v, const char *path)
{
	char	*s;

	ps->kinds |= FLOW_KIND_BIT(KIND_WORKFLOW);
	if ((s = flow_json_string(v, path, 1, ps->d)) == NULL) {
		ps->st->workflow = xstrdup("");
		return;
	}
	free(ps->st->workflow);
	ps->st->workflow = s;
}

/* "input": the child run's input, an object interpolated like args. */
static void
parse_input(struct parse_step *ps, const cJSON *v, const char *path)
{
	if (!cJSON_IsObject(v)) {
		flow_diags_add(ps->d, FLOW_ERROR, path,
		    "expected an object, got %s", json_type_name(v));
		return;
	}
	free(ps->st->input_json);
	ps->st->input_json = json_print(v);
}

/* Parse an env object: names like shell variables, string values. */
void
flow_env_parse(const cJSON *v, const char *path, struct flow_kv **env,
    size_t *nenv, struct flow_diags *d)
{
	const cJSON	*c;
	const char	*p;
	char		*sub;

	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected an object of "
		    "strings, got %s", json_type_name(v));
		return;
	}
	flow_env_free(*env, *nenv);
	*env = NULL;
	*nenv = 0;
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		for (p = c->string; *p != '\0'; p++) {
			if (!isalnum((unsigned char)*p) && *p != '_')
				break;
		}
		if (*c->string == '\0' || *p != '\0' ||
		    isdigit((unsigned char)*c->string))
			flow_diags_add(d, FLOW_ERROR, sub, "bad environment "
			    "variable name (use letters, digits and _)");
		else if (!cJSON_IsString(c))
			flow_diags_add(d, FLOW_ERROR, sub,
			    "expected a string, got %s", json_type_name(c));
		else {
			*env = xreallocarray(*env, *nenv + 1, sizeof **env);
			(*env)[*nenv].key = xstrdup(c->string);
			(*env)[*nenv].value = xstrdup(c->valuestring);
			(*nenv)++;
		}
		free(sub);
	}
}

/* Free an env array. */
void
flow_env_free(struct flow_kv *env, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(env[i].key);
		free(env[i].value);
	}
	free(env);
}

/*
 * A wait step's options (their own problems too, whatever else is
 * wrong); a heartbeat on a for-each step, which runs nothing of its own.
 */
static void
parse_wait_heartbeat(struct parse_step *ps)
{
	struct flow_step	*st = ps->st;
	char			*sub;

	if (ps->wait != NULL) {
		sub = flow_path_key(ps->path, "wait");
		flow_wait_parse(&st->wait, ps->wait, sub, ps->d);
		free(sub);
	}
	if (st->exec == KIND_WAIT)
		flow_wait_finish(st, ps->path, ps->d);
	if (st->heartbeat < 0 || st->foreach == NULL)
		return;
	sub = flow_path_key(ps->path, "heartbeat");
	flow_diags_add(ps->d, FLOW_ERROR, sub, "\"heartbeat\" cannot be used "
	    "on a for-each step (put it in \"do\", which runs per item)");
	free(sub);
}

/* Decide what the step runs and report conflicting fields. */
static void
parse_exec(struct parse_step *ps)
{
	struct flow_step	*st = ps->st;
	struct buf		 keys;
	char			*sub;

	st->exec = flow_kind_select(ps->kinds, ps->path, ps->d);
	if (st->input_json != NULL && st->exec != KIND_WORKFLOW) {
		sub = flow_path_key(ps->path, "input");
		flow_diags_add(ps->d, FLOW_ERROR, sub, "\"input\" belongs to "
		    "a sub-workflow step (one with \"workflow\")");
		free(sub);
	}
	flow_kind_check(st, ps->path, ps->d);
	parse_wait_heartbeat(ps);
	if (ps->gate == NULL)
		return;
	sub = flow_path_key(ps->path, "gate");
	if (st->exec != KIND_GATE) {
		buf_init(&keys);
		flow_kind_keys(&keys);
		flow_diags_add(ps->d, FLOW_ERROR, sub, "gate options on a step "
		    "that %s (a gate has no %s)", st->exec == KIND_WAIT ?
		    "waits to be finished from outside" : "runs something",
		    keys.data);
		buf_free(&keys);
	} else
		flow_gate_parse(&st->gate, ps->gate, sub, ps->d);
	free(sub);
}

/*
 * A step has one way on: next, branch, parallel or done.  "join" names
 * where a branch ends, or a fan-out's own join, so beside next, branch
 * or done it would be dropped: each clash is an error at the second.
 */
static void
parse_transitions(struct parse_step *ps)
{
	const struct flow_step	*st = ps->st;
	const char		*kinds[4];
	char			*sub;
	size_t			 n = 0;

	if (st->next != NULL)
		kinds[n++] = "next";
	if (st->nbranch > 0)
		kinds[n++] = "branch";
	if (st->parallel != NULL)
		kinds[n++] = "parallel";
	if (st->done)
		kinds[n++] = "done";
	if (n > 1) {
		sub = flow_path_key(ps->path, kinds[1]);
		flow_diags_add(ps->d, FLOW_ERROR, sub, "\"%s\" cannot be used "
		    "with \"%s\" (a step has one of next, branch, parallel "
		    "or done)", kinds[1], kinds[0]);
		free(sub);
	} else if (n == 1 && st->join != NULL && st->parallel == NULL) {
		sub = flow_path_key(ps->path, "join");
		flow_diags_add(ps->d, FLOW_ERROR, sub, "\"join\" cannot be "
		    "used with \"%s\" (a branch ends at its join: put "
		    "\"join\" on the step that ends it)", kinds[0]);
		free(sub);
	}
}

/* Set a step's defaults. */
static void
parse_step_init(struct flow_step *st, const char *key)
{
	memset(st, 0, sizeof *st);
	st->key = xstrdup(key);
	st->name = xstrdup(key);
	st->args_json = xstrdup("{}");
	st->next_target = -1;
	st->join_target = -1;
	st->timeout = -1;
	st->gate.quorum = 1;
	st->gate.allow_self = -1;
	st->gate.agents = -1;
	st->gate.timeout = -1;
	st->gate.on_timeout_target = -1;
	flow_wait_init(&st->wait);
	st->heartbeat = -1;
	st->on_interrupt = FLOW_INTERRUPT_RETRY;
	st->join_policy = FLOW_JOIN_ALL_SUCCESS;
	st->max_visits = FLOW_DEFAULT_MAX_VISITS;
	st->node = -1;
}

/*
 * Parse a step object into st (a flow's step, or a for-each's "do"),
 * reporting every problem under path.
 */
void
flow_step_parse(struct flow_step *st, const cJSON *obj, const char *key,
    const char *path, struct flow_diags *d)
{
	static const char	*names[PARSE_NFIELDS];
	struct parse_step	 ps;
	const cJSON		*c;
	char			*sub;
	size_t			 i;

	for (i = 0; i < PARSE_NFIELDS; i++)
		names[i] = parse_fields[i].name;
	memset(&ps, 0, sizeof ps);
	ps.st = st;
	ps.d = d;
	ps.path = path;
	parse_step_init(ps.st, key);
	for (c = obj->child; c != NULL; c = c->next) {
		for (i = 0; i < PARSE_NFIELDS; i++) {
			if (strcmp(c->string, parse_fields[i].name) == 0)
				break;
		}
		sub = flow_path_key(path, c->string);
		if (i < PARSE_NFIELDS)
			parse_fields[i].cb(&ps, c, sub);
		else
			flow_diags_unknown(d, sub, c->string, names,
			    PARSE_NFIELDS, "");
		free(sub);
	}
	parse_exec(&ps);
	parse_transitions(&ps);
	if (st->foreach != NULL)
		flow_foreach_finish(st, path, d);
}

/* Free what a step holds. */
void
flow_step_free(struct flow_step *st)
{
	size_t	i;

	free(st->key);
	free(st->name);
	free(st->description);
	flow_concurrency_clear(&st->concurrency);
	free(st->tool);
	flow_strings_free(st->run, st->nrun);
	free(st->shell);
	free(st->host);
	free(st->cwd);
	flow_env_free(st->env, st->nenv);
	free(st->args_json);
	free(st->next);
	for (i = 0; i < st->nbranch; i++) {
		free(st->branch[i].cond_src);
		cond_free(st->branch[i].cond);
		free(st->branch[i].then);
	}
	free(st->branch);
	flow_strings_free(st->parallel, st->nparallel);
	free(st->parallel_targets);
	free(st->join);
	free(st->workflow);
	free(st->input_json);
	free(st->when_src);
	cond_free(st->when);
	flow_dag_free(st);
	flow_retry_free(&st->retry);
	free(st->gate.message);
	flow_strings_free(st->gate.approvers, st->gate.napprovers);
	free(st->gate.on_timeout);
	flow_wait_free(&st->wait);
	flow_foreach_free(st->foreach);
}
