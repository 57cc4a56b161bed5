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
 * step-gate.c: what the step view shows for a gate, so the approver sees
 * what they are approving (SPEC §11): the message, who may decide and how
 * many must, when it times out, the decisions so far, the run's input,
 * the results of the steps before it and the args the next step would
 * start with.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

static void	 step_gate_options(struct ui *, struct stepv *,
		     const struct store_step *, const struct flow_policy *);
static void	 step_gate_decisions(struct ui *, struct stepv *,
		     const struct store_step *, int);
static void	 step_gate_before(struct ui *, struct stepv *,
		     const struct store_step *, const struct store_step *,
		     size_t, int);
static void	 step_gate_next(struct ui *, struct stepv *,
		     const struct store_step *,
		     const struct store_workflow *, const struct store_step *,
		     size_t);
static int	 step_gate_way(struct stepv *, const struct flow *, int,
		     cJSON *, const char *, int);
static void	 step_gate_parent(struct ui *, struct stepv *,
		     const struct store_workflow *, int);
static void	 step_next_args(struct stepv *, const struct flow *, int,
		     const cJSON *);
static cJSON	*step_scope(const struct store_workflow *, const struct flow *,
		     const struct store_step *, size_t);
static void	 step_gate_template(struct ui *, struct stepv *,
		     const struct store_workflow *);

/*
 * Whether the run's template version is the one that last ran to
 * completion: an approver should know when the flow they are letting go
 * on is not the one that worked last time, and see what changed (D).
 */
static void
step_gate_template(struct ui *ui, struct stepv *sv,
    const struct store_workflow *w)
{
	int64_t	 good;
	char	*cause;

	switch (ui_versions_good(ui, w, &good, &cause)) {
	case -1:
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		break;
	case UI_GOOD_NO_TEMPLATE:
		break;
	case UI_GOOD_NONE_YET:
		ui_step_field(sv, "template", PAINT_WAIT, "%s v%lld: no run of "
		    "this template has completed yet", w->template_name,
		    (long long)w->template_version);
		break;
	case UI_GOOD_SAME:
		ui_step_field(sv, "template", PAINT_NORMAL, "%s v%lld, the "
		    "version that last ran to completion", w->template_name,
		    (long long)w->template_version);
		break;
	case UI_GOOD_DIFFERS:
		ui_step_field(sv, "template", PAINT_WAIT, "%s v%lld differs "
		    "from v%lld, the version that last ran to completion "
		    "(D: the diff)", w->template_name,
		    (long long)w->template_version, (long long)good);
		break;
	}
}

/* The gate's message, who may decide, how many must, when it times out. */
static void
step_gate_options(struct ui *ui, struct stepv *sv, const struct store_step *s,
    const struct flow_policy *p)
{
	struct buf	 b;
	char		 when[32], age[16];
	int64_t		 due = 0, now = time_now_ms();
	int		 escalate;

	ui_step_field(sv, "message", PAINT_NORMAL, "%s", p->message != NULL &&
	    *p->message != '\0' ? p->message : "(none)");
	buf_init(&b);
	buf_join(&b, p->approvers, p->napprovers);
	ui_step_field(sv, "approvers", PAINT_NORMAL, "%s", b.len > 0 ? b.data :
	    "anyone who can open the database");
	buf_free(&b);
	if (p->allow_self == 0)
		ui_step_field(sv, "", PAINT_NORMAL, "not the person who "
		    "started the workflow");
	ui_step_field(sv, "agents", PAINT_NORMAL, "%s", p->agents == 1 ?
	    "may decide it through MCP" : "may not decide it (people only)");
	if (s->status != STEP_WAITING || store_timer_of_step(
	    ui->store, s->id, "gate_timeout", &due) != 0 || due == 0)
		return;
	escalate = p->on_timeout != NULL &&
	    strcmp(p->on_timeout, "reject") != 0;
	time_age(due > now ? due - now : 0, age, sizeof age);
	ui_step_field(sv, "times out", PAINT_WAIT, "%s (in %s), then %s%s",
	    ui_step_when(due, when, sizeof when), age, escalate ?
	    "escalates to " : "it is rejected", escalate ? p->on_timeout : "");
}

/* Approvals so far against the quorum, and each decision with its words. */
static void
step_gate_decisions(struct ui *ui, struct stepv *sv,
    const struct store_step *s, int quorum)
{
	struct store_approval	*a;
	size_t			 n, i, j;
	char			*cause = NULL, when[32];
	int			 approved = 0;

	if (store_approval_list(ui->store, s->id, 100, &a, &n, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(a[i].decision, "approve") != 0)
			continue;
		for (j = 0; j < i; j++) {
			if (strcmp(a[j].decision, "approve") == 0 &&
			    strcmp(a[j].who, a[i].who) == 0)
				break;
		}
		approved += j == i;
	}
	ui_step_field(sv, "quorum", PAINT_NORMAL, "%d of %d approved%s",
	    approved, quorum, s->status == STEP_WAITING ?
	    " so far" : "");
	for (i = 0; i < n; i++) {
		ui_step_field(sv, i == 0 ? "decisions" : "",
		    strcmp(a[i].decision, "approve") == 0 ? PAINT_OK :
		    PAINT_BAD, "%s %s %sd at %s%s%s", ui_draw_glyph(ui,
		    strcmp(a[i].decision, "approve") == 0 ? STEP_DONE :
		    STEP_FAILED),
		    a[i].who, a[i].decision, ui_step_when(a[i].at, when,
		    sizeof when), a[i].comment != NULL ? ": " : "",
		    a[i].comment != NULL ? a[i].comment : "");
	}
	store_approvals_free(a, n);
}

/*
 * The results of the steps that ended before the gate, one line each;
 * a for-each's gate (foreach) says nothing when none has, its items
 * are its own page's.
 */
static void
step_gate_before(struct ui *ui, struct stepv *sv, const struct store_step *s,
    const struct store_step *fin, size_t n, int foreach)
{
	char	*line;
	size_t	 i;
	int	 shown = 0;

	for (i = 0; i < n; i++) {
		if (fin[i].id == s->id || (foreach &&
		    strcmp(fin[i].step_key, s->step_key) == 0))
			continue;
		if (shown == 0)
			ui_step_heading(sv, "Results so far");
		xasprintf(&line, "  %s %-16s %s", ui_draw_glyph(ui,
		    fin[i].status), fin[i].name, fin[i].result_json != NULL ?
		    fin[i].result_json : "null");
		ui_step_add(sv, ui_draw_status_paint(fin[i].status), 0, 0, 1,
		    line);
		free(line);
		shown++;
	}
	if (shown == 0 && !foreach) {
		ui_step_heading(sv, "Results so far");
		ui_step_add(sv, PAINT_DIM, 0, 0, 1, "  none: the gate comes "
		    "first");
	}
}

/*
 * The scope a step would be resolved against now: the engine's own
 * (flow/scope.c) over the input and each finished step's latest result.
 */
static cJSON *
step_scope(const struct store_workflow *w, const struct flow *f,
    const struct store_step *fin, size_t n)
{
	struct flow_scope_step	 ss;
	cJSON			*scope;
	size_t			 i;

	scope = flow_scope_create(json_parse_or_null(w->input_json), 0, w->id,
	    w->name);
	for (i = 0; i < n; i++) {
		ss.step_key = fin[i].step_key;
		ss.result_json = fin[i].result_json;
		ss.status = fin[i].status;
		ss.has_exit_code = fin[i].has_exit_code;
		ss.exit_code = fin[i].exit_code;
		flow_scope_add(scope, f, &ss);
	}
	return (scope);
}

/* A step that would start next: its name and its args resolved now. */
static void
step_next_args(struct stepv *sv, const struct flow *f, int spec,
    const cJSON *scope)
{
	const struct flow_step	*ns = &f->steps[spec];
	const char		*what;
	char			*args;

	if (kind_names_target(ns->exec))
		ui_step_field(sv, "next", PAINT_NORMAL, "%s (%s %s)",
		    ns->name, kind_label(ns->exec), flow_step_target(ns));
	else
		ui_step_field(sv, "next", PAINT_NORMAL, "%s (%s)", ns->name,
		    kind_label(ns->exec));
	if (kind_decided(ns->exec))
		return;
	/* A sub-workflow step's args are its child's input. */
	what = ns->exec == KIND_WORKFLOW ? ns->input_json : ns->args_json;
	args = interp_json(what != NULL ? what : "{}", scope);
	ui_step_field(sv, ns->exec == KIND_WORKFLOW ? "input" : "args",
	    PAINT_DIM, "as resolved now:");
	ui_step_json(sv, args != NULL ? args : "{}", 4);
	free(args);
}

/*
 * What follows the gate if its result is outcome ("approved"...): 1 when
 * that completes the workflow, -1 when it fails it, else 0.
 */
static int
step_gate_way(struct stepv *sv, const struct flow *f, int spec, cJSON *scope,
    const char *outcome, int alone)
{
	const struct flow_step	*fs = &f->steps[spec];
	struct flow_scope_step	 ss;
	size_t			 i;
	char			*result;
	int			 arm;

	/* The gate as the engine will see it: done, with its outcome. */
	xasprintf(&result, "\"%s\"", outcome);
	memset(&ss, 0, sizeof ss);
	ss.step_key = fs->key;
	ss.result_json = result;
	ss.status = STEP_DONE;
	flow_scope_add(scope, f, &ss);
	arm = flow_branch_pick(fs, scope, result, 0, 0);
	free(result);
	if (fs->nbranch > 0 && arm < 0) {
		ui_step_field(sv, "then", PAINT_BAD, "no branch matches: the "
		    "workflow fails");
		return (-1);
	} else if (fs->nbranch > 0)
		step_next_args(sv, f, fs->branch[arm].target, scope);
	else if (strcmp(outcome, "approved") != 0) {
		ui_step_field(sv, "then", PAINT_BAD, "the workflow fails");
		return (-1);
	} else if (fs->done || (alone && fs->next_target < 0 &&
	    fs->nparallel == 0 && fs->join_target < 0)) {
		ui_step_field(sv, "then", PAINT_OK, "the workflow completes");
		return (1);
	} else if (fs->nparallel > 0) {
		for (i = 0; i < fs->nparallel; i++)
			step_next_args(sv, f, fs->parallel_targets[i], scope);
	} else if (fs->next_target >= 0)
		step_next_args(sv, f, fs->next_target, scope);
	else if (fs->join_target >= 0)
		ui_step_field(sv, "then", PAINT_NORMAL, "its branch ends; %s "
		    "runs once the other branches have",
		    f->steps[fs->join_target].name);
	else
		ui_step_field(sv, "then", PAINT_NORMAL, "nothing follows it");
	return (0);
}

/*
 * A child run's gate: what its end does to the parent's step that
 * started it (completes: 1 done, -1 failed).
 */
static void
step_gate_parent(struct ui *ui, struct stepv *sv,
    const struct store_workflow *w, int ends)
{
	struct store_step	*ps = NULL;
	char			*cause = NULL;

	if (w->parent_id == 0 || ends == 0)
		return;
	if (store_step_get(ui->store, w->parent_step_id, &ps, &cause) != 0) {
		free(cause);
		return;
	}
	if (ends > 0)
		ui_step_field(sv, "parent", PAINT_NORMAL, "workflow %lld %s "
		    "goes on: its step %s is done, with this run's output",
		    (long long)w->parent_id, w->parent_name != NULL ?
		    w->parent_name : "?", ps->name);
	else
		ui_step_field(sv, "parent", PAINT_BAD, "its step %s in "
		    "workflow %lld %s fails", ps->name, (long long)w->parent_id,
		    w->parent_name != NULL ? w->parent_name : "?");
	store_step_free(ps);
}

/* The step that runs next, approved or rejected, with its args. */
static void
step_gate_next(struct ui *ui, struct stepv *sv, const struct store_step *s,
    const struct store_workflow *w, const struct store_step *fin, size_t n)
{
	struct flow_diags	*d;
	struct flow		*f;
	cJSON			*scope;
	int			 spec;

	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (f == NULL || (spec = flow_find(f, s->step_key)) < 0) {
		if (f != NULL)
			flow_free(f);
		return;
	}
	scope = step_scope(w, f, fin, n);
	ui_step_heading(sv, "If approved");
	step_gate_parent(ui, sv, w, step_gate_way(sv, f, spec, scope,
	    "approved", s->fanout_id == 0));
	ui_step_heading(sv, "If rejected");
	step_gate_parent(ui, sv, w, step_gate_way(sv, f, spec, scope,
	    "rejected", s->fanout_id == 0));
	cJSON_Delete(scope);
	flow_free(f);
}

/* What the approver is approving (SPEC §11). */
void
ui_step_gate(struct ui *ui, struct stepv *sv, const struct store_step *s,
    const struct store_workflow *w)
{
	struct store_step	*fin = NULL;
	struct flow_policy	 p;
	cJSON			*r;
	size_t			 n = 0;
	char			*cause = NULL, *unreadable;
	int			 waiting = s->status == STEP_WAITING, foreach;

	ui_step_heading(sv, waiting ? "Gate: waiting for a decision (y "
	    "approve, n reject)" : "Gate");
	if (flow_policy_read(s->gate_json, KIND_GATE, &p, &cause) != 0) {
		unreadable = flow_policy_unreadable(cause);
		ui_step_field(sv, "policy", PAINT_BAD, "%s: no decision is "
		    "taken", unreadable);
		free(unreadable);
		free(cause);
		cause = NULL;
	} else
		step_gate_options(ui, sv, s, &p);
	step_gate_decisions(ui, sv, s, p.quorum);
	if (w != NULL)
		step_gate_template(ui, sv, w);
	if (s->result_json != NULL && !waiting) {
		r = json_parse_or_null(s->result_json);
		ui_step_field(sv, "result", PAINT_NORMAL, "%s",
		    cJSON_IsString(r) ? r->valuestring : s->result_json);
		cJSON_Delete(r);
	}
	if (w == NULL)
		goto out;
	ui_step_heading(sv, "Input of the workflow");
	ui_step_json(sv, w->input_json != NULL ? w->input_json : "{}", 2);
	if (!waiting)
		goto out;
	if (store_steps_finished(ui->store, w->id, &fin, &n, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		goto out;
	}
	foreach = s->item_of != 0 && p.foreach != FLOW_POLICY_NOT_FOREACH;
	step_gate_before(ui, sv, s, fin, n, foreach);
	if (!foreach || ui_step_gate_foreach(ui, sv, s, w, &p) != 0)
		step_gate_next(ui, sv, s, w, fin, n);
	store_steps_free(fin, n);
out:
	flow_policy_free(&p);
}
