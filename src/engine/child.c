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
 * child.c: sub-workflows.  A step {"workflow": T, "input": {...}} starts a
 * child run of template T's current version, in the same transaction that
 * records the step running and names the child on the step's row; the
 * step row then stays running, with nothing of it in memory, until the
 * child ends: the child's end completes the step with the child's output,
 * or fails it, in the child's own closing transaction.  So after a crash
 * the table alone says which child a step waits for, and no second child
 * is ever started.  Cancel reaches children through the step rows, pause
 * and resume through the parent link; a chain deeper than FLOW_MAX_DEPTH
 * fails instead of starting (templates that call themselves).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static int	 engine_child_prepare(struct engine *, const char *,
		     const char *, struct store_template **,
		     struct flow_doc **, char **, char **);

/*
 * Read template name's current version and apply its declared inputs to
 * the given input.  0, or -1 with why.
 */
static int
engine_child_prepare(struct engine *e, const char *name, const char *given,
    struct store_template **tp, struct flow_doc **docp, char **inputp,
    char **why)
{
	struct flow_diags	*d;
	cJSON			*v;
	char			*cause = NULL, *first;
	int			 rc;

	*tp = NULL;
	*docp = NULL;
	*inputp = NULL;
	rc = store_template_get(e->store, name, 0, tp, &cause);
	if (rc == STORE_NOTFOUND) {
		*why = cause;
		return (-1);
	}
	if (rc != 0)
		engine_store_fatal(e, cause);
	d = flow_diags_create();
	*docp = flow_doc_parse((*tp)->document, strlen((*tp)->document),
	    e->tools, d);
	if (*docp == NULL || flow_diags_errors(d) > 0) {
		first = flow_diags_first_error(d, NULL);
		xasprintf(why, "template %s version %lld is not valid: %s",
		    name, (long long)(*tp)->version, first != NULL ? first :
		    "?");
		free(first);
		flow_diags_free(d);
		return (-1);
	}
	flow_diags_free(d);
	v = json_parse_or_null(given);
	*inputp = flow_doc_input(*docp, v, &cause);
	cJSON_Delete(v);
	if (*inputp == NULL) {
		xasprintf(why, "template %s: %s", name, cause);
		free(cause);
		return (-1);
	}
	return (0);
}

/*
 * Start the child run of a step row that is recorded running (es): the
 * template's current version with input_json (resolved), made in this
 * turn's transaction and named on the row.  Returns the child's id, or 0
 * with why (the caller fails the step).  For-each items that run a
 * sub-workflow start theirs through here too.
 */
int64_t
engine_child_start(struct engine *e, struct estep *es, const char *template,
    const char *input_json, char **why)
{
	struct ewf		*wf = es->wf;
	struct store_template	*t = NULL;
	struct flow_doc		*doc = NULL;
	struct engine_start	 st;
	struct store_inbox	 self;
	cJSON			*o;
	char			*input = NULL, *detail, *cause = NULL;
	int64_t			 id = 0;

	engine_txn(e);
	if (wf->depth + 1 > FLOW_MAX_DEPTH) {
		xasprintf(why, "sub-workflow %s: more than %d runs deep (does "
		    "a template call itself?)", template, FLOW_MAX_DEPTH);
		return (0);
	}
	if (engine_child_prepare(e, template, input_json, &t, &doc, &input,
	    why) != 0)
		goto out;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "parent", (double)wf->id);
	cJSON_AddNumberToObject(o, "step", (double)es->id);
	cJSON_AddStringToObject(o, "template", t->name);
	cJSON_AddNumberToObject(o, "version", (double)t->version);
	detail = json_print(o);
	cJSON_Delete(o);
	memset(&st, 0, sizeof st);
	st.name = t->name;
	st.flow_json = doc->flow_json;
	st.input_json = input;
	st.template_name = t->name;
	st.template_version = t->version;
	st.created_by = wf->created_by;
	st.sla_ms = doc->sla_ms;
	st.detail = detail;
	st.parent_id = wf->id;
	st.parent_step_id = es->id;
	st.depth = wf->depth + 1;
	engine_self(&self);
	if (engine_wf_create(e, &st, &self, &id, &cause) != 0) {
		*why = cause;
		id = 0;
	} else if (store_step_set_child(e->store, es->id, id) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(detail);
out:
	free(input);
	if (doc != NULL)
		flow_doc_free(doc);
	if (t != NULL)
		store_template_free(t);
	return (id);
}

/*
 * A child run ended: its parent's step (still running, and still waiting
 * for this child) completes with the child's output, or fails.  A step
 * that already ended (its parent was cancelled first) is left alone.
 */
void
engine_child_ended(struct engine *e, struct ewf *child, enum run_status status,
    const char *why, const char *output)
{
	struct store_step	*row;
	struct estep		*es;
	char			*cause = NULL, *msg;

	if (child->parent_step_id == 0)
		return;
	if (store_step_get(e->store, child->parent_step_id, &row,
	    &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return;
	}
	if (row->status != STEP_RUNNING ||
	    row->child_id != child->id ||
	    (es = engine_step_from_row(e, row)) == NULL) {
		store_step_free(row);
		return;
	}
	store_step_free(row);
	/* A child that fails is not started again unless retry says so. */
	es->no_retry = !engine_spec(es)->retry.set;
	if (status == RUN_COMPLETED)
		engine_step_done(e, es, output != NULL ? output : "null", 0, 0);
	else {
		if (status == RUN_CANCELLED)
			xasprintf(&msg, "child workflow %lld was cancelled",
			    (long long)child->id);
		else
			xasprintf(&msg, "child workflow %lld failed: %s",
			    (long long)child->id, why != NULL ? why : "?");
		engine_step_failed(e, es, msg, 0, 0, output);
		free(msg);
	}
	engine_step_free(es);
}

/* A sub-workflow step row is cancelled: so is its child, if it runs. */
void
engine_child_cancel(struct engine *e, int64_t child_id)
{
	struct ewf	*child;

	if (child_id == 0 || (child = engine_wf_get(e, child_id)) == NULL ||
	    child->ended)
		return;
	engine_wf_cancel(e, child);
}

/* Pause or resume the running children of a workflow, and theirs. */
void
engine_children_pause(struct engine *e, struct ewf *wf, int paused)
{
	struct store_workflow	*kids;
	struct ewf		*child;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_workflow_children(e->store, wf->id, &kids, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if ((child = engine_wf_get(e, kids[i].id)) == NULL ||
		    child->ended || child->paused == paused)
			continue;
		child->paused = paused;
		if (store_workflow_set_paused(e->store, child->id, paused,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if (!paused)
			engine_wf_requeue(e, child);
		engine_children_pause(e, child, paused);
	}
	store_workflows_free(kids, n);
}

/*
 * The output of a completing run: its flow's "output" interpolated with
 * every step's latest result; NULL when it declares none.
 */
char *
engine_wf_output(struct engine *e, struct ewf *wf)
{
	cJSON	*scope, *tmpl, *out;
	char	*s;

	if (wf->flow->output_json == NULL ||
	    (tmpl = cJSON_Parse(wf->flow->output_json)) == NULL)
		return (NULL);
	scope = engine_scope(e, wf, 1);
	out = interp_value(tmpl, scope);
	s = json_print(out);
	cJSON_Delete(out);
	cJSON_Delete(tmpl);
	cJSON_Delete(scope);
	return (s);
}

/*
 * A sub-workflow step: record it running with its child's input as its
 * args, and start the child.  Nothing of the step stays in memory: the
 * child's end finishes its row.
 */
static void
engine_child_run(struct engine *e, struct estep *es,
    const struct flow_tool *t, const char *args, struct cJSON *scope)
{
	const struct flow_step	*fs = engine_spec(es);
	char			*input, *why = NULL;

	input = interp_json(fs->input_json != NULL ? fs->input_json : "{}",
	    scope);
	if (input == NULL)
		input = xstrdup("{}");
	engine_exec_running(e, es, input, NULL);
	engine_trace(e, 'S', es->id);
	/* A child that fails is not started again unless retry says so. */
	es->no_retry = !fs->retry.set;
	if (engine_child_start(e, es, fs->workflow, input, &why) == 0) {
		engine_step_failed(e, es, why, 0, 0, NULL);
		free(why);
	}
	free(input);
	engine_exec_end(e, es);
}

const struct engine_runner engine_runner_child = {
	.name = "sub-workflow",
	.start = engine_child_run
};
