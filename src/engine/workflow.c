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
 * workflow.c: workflows in the engine's memory.  Each running workflow's
 * flow is parsed once, with what the engine asks of it often worked out
 * ahead (which join a fan-out's branches meet at, by flow/join.c; which
 * steps refer to other steps' results).  Also starting a workflow, and
 * filling the scope that interpolation and conditions read (its shape is
 * flow/scope.c's, shared with the console's preview).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	 engine_wf_analyse(struct ewf *);
static int	 engine_step_uses_steps(const struct flow_step *);
static int	 engine_flow_valid(struct engine *, const char *, char **);

RB_GENERATE(ewf_tree, ewf, entry, ewf_cmp);

/* Order workflows by id. */
int
ewf_cmp(struct ewf *a, struct ewf *b)
{
	return (a->id < b->id ? -1 : a->id > b->id);
}

/* A workflow the engine holds, or NULL. */
struct ewf *
engine_wf_get(struct engine *e, int64_t id)
{
	struct ewf	 find;

	find.id = id;
	return (RB_FIND(ewf_tree, &e->workflows, &find));
}

/* Does anything in a step read steps.* (then its scope needs them)? */
static int
engine_step_uses_steps(const struct flow_step *st)
{
	size_t	 i;

	if (st->args_json != NULL && strstr(st->args_json, "steps") != NULL)
		return (1);
	for (i = 0; i < st->nrun; i++) {
		if (strstr(st->run[i], "steps") != NULL)
			return (1);
	}
	for (i = 0; i < st->nenv; i++) {
		if (strstr(st->env[i].value, "steps") != NULL)
			return (1);
	}
	for (i = 0; i < st->nbranch; i++) {
		if (st->branch[i].cond_src != NULL &&
		    strstr(st->branch[i].cond_src, "steps") != NULL)
			return (1);
	}
	if (st->gate.message != NULL && strstr(st->gate.message, "steps"))
		return (1);
	if (st->wait.message != NULL && strstr(st->wait.message, "steps"))
		return (1);
	if (st->input_json != NULL && strstr(st->input_json, "steps") != NULL)
		return (1);
	if (st->when_src != NULL && strstr(st->when_src, "steps") != NULL)
		return (1);
	if (st->foreach != NULL && ((st->foreach->items_src != NULL &&
	    strstr(st->foreach->items_src, "steps") != NULL) ||
	    (st->foreach->gate.message != NULL &&
	    strstr(st->foreach->gate.message, "steps") != NULL) ||
	    (st->foreach->body != NULL &&
	    engine_step_uses_steps(st->foreach->body))))
		return (1);
	return (0);
}

/* Work out each fan-out's join and each step's use of steps.*. */
static void
engine_wf_analyse(struct ewf *wf)
{
	const struct flow	*f = wf->flow;
	size_t			 i;

	wf->join_of = flow_joins(f);
	wf->uses_steps = xcalloc(f->nsteps + 1, sizeof *wf->uses_steps);
	wf->visits = xcalloc(f->nsteps + 1, sizeof *wf->visits);
	TAILQ_INIT(&wf->fanouts);
	TAILQ_INIT(&wf->foreachs);
	for (i = 0; i < f->nsteps; i++)
		wf->uses_steps[i] = engine_step_uses_steps(&f->steps[i]);
}

/*
 * A running workflow in memory, from its row alone: what the rest of its
 * state (its ending, active rows, visits) says is the caller's to add, by
 * one run (engine_wf_load) or for every run at once (recover.c).  Not yet
 * in the engine's tree.
 */
struct ewf *
engine_wf_make(struct engine *e, const struct store_workflow *w,
    char **cause)
{
	struct eflow	*ef;
	struct ewf	*wf;
	char		*first;

	if ((ef = engine_flow_get(e, w->flow_json, &first)) == NULL) {
		xasprintf(cause, "workflow %lld: stored flow is not valid: %s",
		    (long long)w->id, first != NULL ? first : "?");
		free(first);
		return (NULL);
	}
	wf = xcalloc(1, sizeof *wf);
	wf->eflow = ef;
	wf->flow = ef->flow;
	wf->id = w->id;
	wf->name = xstrdup(w->name);
	wf->input_json = xstrdup(w->input_json != NULL ? w->input_json : "{}");
	wf->created_by = xstrdup(w->created_by);
	if (w->conc_key != NULL)
		wf->conc_key = xstrdup(w->conc_key);
	wf->paused = w->paused;
	wf->parent_step_id = w->parent_step_id;
	wf->depth = w->depth;
	engine_wf_analyse(wf);
	wf->mask = mask_create();
	engine_secret_mask_load(e, wf, w->flow_json);
	engine_secret_input_load(e, wf);
	wf->input_use = flow_input_use(wf->flow, w->flow_json, e->tools);
	return (wf);
}

/* One step's count of passes, from the table. */
void
engine_wf_visit(struct ewf *wf, const char *key, int64_t n)
{
	int	 i;

	if ((i = flow_find(wf->flow, key)) >= 0)
		wf->visits[i] = n;
}

static void
engine_wf_visit_cb(const char *key, int64_t n, void *arg)
{
	engine_wf_visit(arg, key, n);
}

/* Take a running workflow into memory. */
struct ewf *
engine_wf_load(struct engine *e, const struct store_workflow *w,
    char **cause)
{
	struct ewf	*wf;

	if ((wf = engine_wf_make(e, w, cause)) == NULL)
		return (NULL);
	engine_handler_load(e, wf, w->error);
	if (store_workflow_count_active(e->store, wf->id, &wf->nactive) != 0 ||
	    store_step_visits(e->store, wf->id, engine_wf_visit_cb, wf) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	RB_INSERT(ewf_tree, &e->workflows, wf);
	return (wf);
}

/* Drop a workflow from memory once nothing refers to it. */
void
engine_wf_free(struct engine *e, struct ewf *wf)
{
	if (wf->refs > 0)
		return;
	RB_REMOVE(ewf_tree, &e->workflows, wf);
	while (!TAILQ_EMPTY(&wf->fanouts))
		engine_fanout_forget(wf, TAILQ_FIRST(&wf->fanouts));
	engine_foreach_forget_all(wf);
	engine_flow_put(e, wf->eflow);
	free(wf->join_of);
	engine_steps_shown_free(wf);
	free(wf->uses_steps);
	free(wf->visits);
	free(wf->name);
	free(wf->input_json);
	cJSON_Delete(wf->input);
	flow_input_use_free(wf->input_use);
	free(wf->created_by);
	free(wf->conc_key);
	free(wf->ending_why);
	engine_secret_wipe(wf->secret_input);
	mask_free(wf->mask);
	free(wf);
}

/*
 * The scope interpolation and conditions read (flow/scope.c, which the
 * console's preview builds too): input, workflow and, when asked, every
 * finished step's latest result.
 */
cJSON *
engine_scope(struct engine *e, struct ewf *wf, int with_steps)
{
	struct store_step	*rows;
	struct flow_scope_step	 ss;
	cJSON			*scope;
	size_t			 n, i;

	/*
	 * The input is parsed once and lent to each scope (a for-each's
	 * items often come from it: parsing it per item would cost the
	 * square of the items), without the members no step reads: a
	 * for-each's own list of 10,000 hosts is read once, whole, when it
	 * starts (engine_foreach_begin), not kept for the run.
	 */
	if (wf->input == NULL)
		wf->input = flow_input_parse(wf->input_json, wf->input_use);
	scope = flow_scope_create(wf->input, 1, wf->id, wf->name);
	if (wf->handling)
		flow_scope_ending(scope, status_run_name(wf->ending),
		    wf->ending_why);
	if (!with_steps)
		return (scope);
	engine_steps_shown(e, wf, &rows, &n);
	for (i = 0; i < n; i++) {
		ss.step_key = rows[i].step_key;
		ss.result_json = rows[i].result_json;
		ss.status = rows[i].status;
		ss.has_exit_code = rows[i].has_exit_code;
		ss.exit_code = rows[i].exit_code;
		flow_scope_add(scope, wf->flow, &ss);
	}
	store_steps_free(rows, n);
	return (scope);
}

/* A workflow ended: let it go from memory once no step refers to it. */
void
engine_wf_ended(struct engine *e, struct ewf *wf, enum run_status status)
{
	log_debug("%s: workflow %lld %s", __func__, (long long)wf->id,
	    status_run_name(status));
	if (wf->refs == 0)
		engine_wf_free(e, wf);
}

/*
 * Is a flow one the engine can run?  0; or -1 with the first problem; or 2
 * when a step names a tool this engine's catalog does not have, which the
 * client's own catalog (--tools, another file) may well have had: refused
 * now, naming the engine's catalog, rather than failing the step later.
 */
static int
engine_flow_valid(struct engine *e, const char *flow_json, char **cause)
{
	struct flow_diags	*d;
	struct flow		*f;
	const char		*tool, *step = NULL;
	char			*first;
	int			 rc = 0;

	d = flow_diags_create();
	f = flow_parse(flow_json, strlen(flow_json), d);
	if (f == NULL || flow_diags_errors(d) > 0 || f->start < 0) {
		first = flow_diags_first_error(d, NULL);
		xasprintf(cause, "start: the flow is not valid: %s",
		    first != NULL ? first : "no start step");
		free(first);
		rc = -1;
	} else if ((tool = flow_tools_missing(f, e->tools, &step)) != NULL) {
		if (e->opts.tools_path != NULL)
			xasprintf(cause, "start: step %s: tool \"%s\" is not in "
			    "the engine's catalog %s (add it there and reload "
			    "the engine)", step, tool, e->opts.tools_path);
		else
			xasprintf(cause, "start: step %s: tool \"%s\" is not "
			    "one of the engine's: it has no tools.json, only "
			    "the built-in tools", step, tool);
		rc = 2;
	}
	if (f != NULL)
		flow_free(f);
	flow_diags_free(d);
	return (rc);
}

/*
 * Begin a workflow (its row already says running, from now): take it into
 * memory, make its first step, arm its SLA.
 */
void
engine_wf_begin(struct engine *e, const struct store_workflow *w, int64_t now)
{
	struct estep_origin	 o;
	struct ewf		*wf;
	char			*cause = NULL;

	engine_txn(e);
	if ((wf = engine_wf_load(e, w, &cause)) == NULL) {
		/* Only a row someone edited by hand can get here. */
		if (store_workflow_end(e->store, w->id, RUN_FAILED, cause,
		    now) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		free(cause);
		return;
	}
	engine_sla_arm(e, w->id, w->sla_ms, now);
	engine_deadline_arm(e, w->id, wf->flow->deadline_ms, now);
	if (wf->flow->form != FLOW_FORM_STEPS) {
		engine_dag_begin(e, wf);
		return;
	}
	memset(&o, 0, sizeof o);
	engine_step_create(e, wf, wf->flow->start, &o);
}

/*
 * The audit detail of a start: the command's, with the names of the site
 * secrets the run uses (never their values).
 */
static char *
engine_wf_detail(const char *detail, char **names, size_t n)
{
	cJSON	*d, *a;
	size_t	 i;

	if (n == 0)
		return (detail != NULL ? xstrdup(detail) : NULL);
	if (detail == NULL || (d = cJSON_Parse(detail)) == NULL ||
	    !cJSON_IsObject(d)) {
		if (detail != NULL)
			cJSON_Delete(d);
		d = cJSON_CreateObject();
	}
	cJSON_DeleteItemFromObjectCaseSensitive(d, "secrets");
	a = cJSON_AddArrayToObject(d, "secrets");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
	detail = json_print(d);
	cJSON_Delete(d);
	return ((char *)detail);
}

/*
 * Create a workflow: its row, the audit row of who started it, and (unless
 * it is to start later) its beginning.  The flow was checked by whoever
 * asked; it is checked again here, against this engine's catalog, and a
 * flow naming a site secret its template may not use is refused before
 * anything is written.  Returns 0, 2 for a tool the engine does not
 * have, 4 for a secret's policy, or -1.
 */
int
engine_wf_create(struct engine *e, const struct engine_start *st,
    const struct store_inbox *m, int64_t *id, char **cause)
{
	struct store_workflow	 w;
	int64_t			 now, holder;
	char			*target, **names, *detail, *why = NULL;
	char			*key;
	size_t			 nnames;
	int			 rc, limit, refuse, queued = 0;

	if ((rc = engine_flow_valid(e, st->flow_json, cause)) != 0)
		return (rc);
	engine_secret_names(e->tools, st->flow_json, &names, &nnames);
	if (engine_secret_allowed(&e->opts, st->template_name, names, nnames,
	    cause) != 0) {
		engine_secret_names_free(names, nnames);
		return (4);
	}
	if (engine_conc_run_key(st->flow_json, st->input_json, st->name, &key,
	    &limit, &refuse, cause) != 0) {
		engine_secret_names_free(names, nnames);
		return (4);
	}
	/* A key with no free slot: refused before anything is written. */
	if (key != NULL && st->start_at <= time_now_ms() &&
	    !engine_conc_run_free(e, key, limit, &holder)) {
		if (refuse) {
			engine_conc_run_refusal(key, limit, holder, cause);
			engine_secret_names_free(names, nnames);
			free(key);
			return (4);
		}
		queued = 1;
	}
	detail = engine_wf_detail(st->detail, names, nnames);
	engine_secret_names_free(names, nnames);
	engine_txn(e);
	now = time_now_ms();
	memset(&w, 0, sizeof w);
	w.name = (char *)st->name;
	w.flow_json = (char *)st->flow_json;
	w.input_json = (char *)st->input_json;
	w.template_name = (char *)st->template_name;
	w.template_version = st->template_version;
	w.created_by = (char *)(st->created_by != NULL ? st->created_by :
	    m->who);
	/* An agent's start (sluice mcp) is shown as such wherever it is seen. */
	w.created_via = (char *)(st->created_by == NULL ? m->via : NULL);
	w.sla_ms = st->sla_ms;
	w.schedule_id = st->schedule_id;
	w.fire_at = st->fire_at;
	w.parent_id = st->parent_id;
	w.parent_step_id = st->parent_step_id;
	w.depth = st->depth;
	w.conc_key = key;
	w.conc_limit = limit;
	if (st->start_at > now) {
		w.status = RUN_SCHEDULED;
		w.start_at = st->start_at;
	} else
		w.status = queued ? RUN_QUEUED : RUN_RUNNING;
	if (store_workflow_add(e->store, &w, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	if (st->secret_input != NULL && engine_secret_input_save(e, w.id,
	    st->secret_input, &why) != 0) {
		/* Recorded, with nothing to run on: it fails, saying why. */
		log_debug("%s: %s", __func__, why);
		if (store_workflow_end(e->store, w.id, RUN_FAILED, why,
		    now) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		free(why);
		free(detail);
		free(key);
		*id = w.id;
		return (0);
	}
	xasprintf(&target, "workflow %lld %s", (long long)w.id, w.name);
	engine_audit(e, m, "start", w.id, 0, target, NULL, detail);
	free(detail);
	free(target);
	if (w.start_at != 0)
		engine_alarm_rearm(e);
	else if (!queued)
		engine_wf_begin(e, &w, now);
	free(key);
	*id = w.id;
	return (0);
}

/*
 * Start a workflow from a start command: {"name", "flow", "input",
 * "template", "version", "start_at", "sla_ms"}.
 */
int
engine_wf_start(struct engine *e, const struct store_inbox *m, int64_t *id,
    char **cause)
{
	struct engine_start	 st;
	cJSON			*a, *v, *v2, *c, *secrets = NULL;
	char			*flow = NULL, *input = NULL, *detail = NULL;
	char			*tname = NULL;
	int64_t			 version;
	int			 rc = -1;

	memset(&st, 0, sizeof st);
	if ((a = cJSON_Parse(m->args_json != NULL ? m->args_json : "")) ==
	    NULL || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(a,
	    "flow"))) {
		xasprintf(cause, "start: no flow given");
		goto out;
	}
	flow = json_print(cJSON_GetObjectItemCaseSensitive(a, "flow"));
	/* Secret inputs: kept apart, "***" in the input and the audit. */
	secrets = cJSON_DetachItemFromObjectCaseSensitive(a, "secret_input");
	if (secrets != NULL && !cJSON_IsObject(secrets)) {
		engine_secret_wipe(secrets);
		secrets = NULL;
	}
	if (secrets != NULL && e->leader != NULL) {
		/* Kept on this node's disk: a node taking over has them not. */
		xasprintf(cause, "%s", ENGINE_CLUSTER_SECRETS);
		rc = 4;
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(a, "input");
	if (!cJSON_IsObject(v)) {
		cJSON_DeleteItemFromObjectCaseSensitive(a, "input");
		v = cJSON_AddObjectToObject(a, "input");
	}
	for (c = secrets != NULL ? secrets->child : NULL; c != NULL;
	    c = c->next) {
		cJSON_DeleteItemFromObjectCaseSensitive(v, c->string);
		cJSON_AddStringToObject(v, c->string, MASK_TEXT);
	}
	st.secret_input = secrets != NULL && secrets->child != NULL ?
	    secrets : NULL;
	v2 = v;
	v = cJSON_GetObjectItemCaseSensitive(a, "name");
	st.name = cJSON_IsString(v) ? v->valuestring : "workflow";
	v = cJSON_GetObjectItemCaseSensitive(a, "start_at");
	if (cJSON_IsNumber(v))
		st.start_at = (int64_t)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(a, "sla_ms");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15)
		st.sla_ms = (int64_t)v->valuedouble;
	/* A template's run: its own flow, its input rules (start-check.c). */
	if ((tname = engine_arg_string(m->args_json, "template")) != NULL) {
		v = cJSON_GetObjectItemCaseSensitive(a, "version");
		version = cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		    v->valuedouble < 1e15 ? (int64_t)v->valuedouble : 0;
		free(flow);
		flow = NULL;
		if ((rc = engine_start_check(e, tname, version, v2, secrets,
		    &st, &flow, &input, cause)) != 0)
			goto out;
		st.template_name = tname;
		cJSON_DeleteItemFromObjectCaseSensitive(a, "template");
		cJSON_AddStringToObject(a, "template", tname);
	} else
		input = json_print(v2);
	if (st.template_name != NULL || st.start_at != 0)
		st.detail = detail = json_print(a);
	st.flow_json = flow;
	st.input_json = input;
	rc = engine_wf_create(e, &st, m, id, cause);
out:
	engine_secret_wipe(secrets);
	free(detail);
	free(flow);
	free(input);
	free(tname);
	cJSON_Delete(a);
	return (rc);
}
