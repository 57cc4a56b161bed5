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
 * step-gate-foreach.c: the decision page of a for-each's own gate, the
 * one between batches and the one at a spent failure budget.  The page
 * of an ordinary gate (step-gate.c) reads the flow's next step, which for
 * these gates is false: approving one lets the for-each go on, it does
 * not end it.  So this page reads the items as the engine does
 * (engine/foreach.c: the batches from flow_foreach_batches, the budget
 * from flow_foreach_budget plus what earlier gates forgave) and says
 * what each decision makes the engine do next.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/ui-int.h"

#define GATE_FE_NAMES	24	/* labels listed before "and N more" */

/* One item as its latest row has it. */
struct gate_fe_item {
	int		 index;
	enum step_status status;
	int		 ran;
	char		*label;
	char		*error;
};

/* A for-each at its gate, read from the store. */
struct gate_fe {
	const char		*name;		/* the for-each step's */
	const struct flow_foreach *ffe;
	struct gate_fe_item	*items;
	int			 n;		/* items */
	size_t			*ends;		/* batch k ends before ends[k] */
	size_t			 nbatches;
	int			 budget;	/* allowed now, forgiven too */
	int			 failed;
	int			 inflight;
	int			 fails_workflow; /* its failure ends the run */
};

static int	 gate_fe_collect(const struct store_item *, void *);
static int	 gate_fe_ended(enum step_status);
static void	 gate_fe_labels(struct ui *, struct buf *,
		     const struct gate_fe *, size_t, size_t, int);
static int	 gate_fe_forgiven(struct ui *, int64_t);
static int	 gate_fe_load(struct ui *, const struct store_step *,
		     const struct store_workflow *, struct flow **,
		     struct gate_fe *);
static void	 gate_fe_free(struct gate_fe *);
static void	 gate_fe_done(struct ui *, struct stepv *,
		     const struct gate_fe *, const struct flow *, int);
static void	 gate_fe_abort(struct stepv *, const struct gate_fe *);
static void	 gate_fe_batch(struct ui *, struct stepv *,
		     const struct gate_fe *, const struct flow *, int, int);
static void	 gate_fe_budget(struct ui *, struct stepv *,
		     const struct gate_fe *, const struct flow *, int,
		     int64_t);

/* store_items_each: keep a copy of each item. */
static int
gate_fe_collect(const struct store_item *it, void *arg)
{
	struct gate_fe		*fe = arg;
	struct gate_fe_item	*i;

	if (it->index < 0 || it->index >= fe->n)
		return (0);
	i = &fe->items[it->index];
	i->index = it->index;
	i->status = it->status;
	i->ran = it->ran;
	free(i->label);
	free(i->error);
	i->label = xstrdup(it->label != NULL ? it->label : "?");
	i->error = it->error != NULL ? xstrdup(it->error) : NULL;
	return (0);
}

/* Whether an item has ended, as the engine counts it. */
static int
gate_fe_ended(enum step_status s)
{
	return (s == STEP_DONE || s == STEP_SKIPPED || s == STEP_FAILED ||
	    s == STEP_CANCELLED);
}

/*
 * The labels of items [lo, hi), each with its glyph when glyphs, the
 * first GATE_FE_NAMES of them, then how many more.
 */
static void
gate_fe_labels(struct ui *ui, struct buf *b, const struct gate_fe *fe,
    size_t lo, size_t hi, int glyphs)
{
	size_t	 i, shown = 0;

	for (i = lo; i < hi && i < (size_t)fe->n; i++) {
		if (shown == GATE_FE_NAMES) {
			buf_printf(b, ", and %zu more", hi - i);
			return;
		}
		buf_printf(b, "%s%s%s%s", shown > 0 ? ", " : "", glyphs ?
		    ui_draw_glyph(ui, fe->items[i].status) : "", glyphs ?
		    " " : "", fe->items[i].label);
		shown++;
	}
}

/*
 * The failures earlier budget gates of this for-each forgave: the
 * engine allows its budget on top of them (foreach_load_gates).
 */
static int
gate_fe_forgiven(struct ui *ui, int64_t foreach_id)
{
	struct store_step	*rows;
	cJSON			*r, *v;
	size_t			 n, i;
	char			*cause = NULL;
	int			 forgiven = 0;

	if (store_item_gates(ui->store, foreach_id, &rows, &n, &cause) != 0) {
		free(cause);
		return (0);
	}
	for (i = 0; i < n; i++) {
		r = json_parse_or_null(rows[i].result_json);
		v = cJSON_GetObjectItemCaseSensitive(r, "failures");
		if (cJSON_IsNumber(v) && v->valueint > forgiven)
			forgiven = v->valueint;
		cJSON_Delete(r);
	}
	store_steps_free(rows, n);
	return (forgiven);
}

/* Read the for-each whose gate s is; -1 when it cannot be. */
static int
gate_fe_load(struct ui *ui, const struct store_step *s,
    const struct store_workflow *w, struct flow **fp, struct gate_fe *fe)
{
	struct flow_diags	*d;
	struct store_step	*row;
	const struct flow_step	*fs;
	char			*cause = NULL;
	int64_t			 root;
	int			 spec, i;

	memset(fe, 0, sizeof *fe);
	if (store_step_get(ui->store, s->item_of, &row, &cause) != 0) {
		ui_screen_message(ui, 1, "%s", cause);
		free(cause);
		return (-1);
	}
	d = flow_diags_create();
	*fp = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	if (*fp == NULL || (spec = flow_find(*fp, row->step_key)) < 0 ||
	    (*fp)->steps[spec].foreach == NULL || row->items <= 0) {
		store_step_free(row);
		return (-1);
	}
	fs = &(*fp)->steps[spec];
	fe->name = fs->name;
	fe->ffe = fs->foreach;
	fe->n = (int)row->items;
	fe->items = xcalloc((size_t)fe->n, sizeof *fe->items);
	for (i = 0; i < fe->n; i++)
		fe->items[i].index = -1;
	root = row->item_of != 0 ? row->item_of : row->id;
	/* A failed for-each fails the run unless a branch or join takes it. */
	fe->fails_workflow = row->fanout_id == 0;
	for (i = 0; i < (int)fs->nbranch; i++)
		if (cond_reads(fs->branch[i].cond, "exit_code"))
			fe->fails_workflow = 0;
	store_step_free(row);
	if (store_items_each(ui->store, root, gate_fe_collect, fe) != 0)
		return (-1);
	for (i = 0; i < fe->n; i++) {
		if (fe->items[i].label == NULL)
			fe->items[i].label = xstrdup("?");
		if (fe->items[i].status == STEP_FAILED ||
		    fe->items[i].status == STEP_CANCELLED)
			fe->failed++;
		else if (fe->items[i].ran &&
		    !gate_fe_ended(fe->items[i].status))
			fe->inflight++;
	}
	fe->nbatches = flow_foreach_batches(fe->ffe, (size_t)fe->n,
	    &fe->ends);
	fe->budget = flow_foreach_budget(fe->ffe, (size_t)fe->n) +
	    gate_fe_forgiven(ui, s->item_of);
	return (0);
}

static void
gate_fe_free(struct gate_fe *fe)
{
	int	 i;

	for (i = 0; i < fe->n && fe->items != NULL; i++) {
		free(fe->items[i].label);
		free(fe->items[i].error);
	}
	free(fe->items);
	free(fe->ends);
}

/* What follows once every item has ended and the for-each is done. */
static void
gate_fe_done(struct ui *ui, struct stepv *sv, const struct gate_fe *fe,
    const struct flow *f, int spec)
{
	const struct flow_step	*fs = &f->steps[spec];

	(void)ui;
	if (fs->done)
		ui_step_field(sv, "then", PAINT_OK, "once every item has "
		    "ended, %s is done and the workflow completes", fe->name);
	else if (fs->nbranch > 0)
		ui_step_field(sv, "then", PAINT_NORMAL, "once every item has "
		    "ended, %s's branches pick the next step", fe->name);
	else if (fs->next_target >= 0)
		ui_step_field(sv, "then", PAINT_NORMAL, "once every item has "
		    "ended, %s runs next", f->steps[fs->next_target].name);
	else
		ui_step_field(sv, "then", PAINT_NORMAL, "once every item has "
		    "ended, %s is done", fe->name);
}

/* What abort (reject) makes the engine do. */
static void
gate_fe_abort(struct stepv *sv, const struct gate_fe *fe)
{
	int	 i, left = 0;

	for (i = 0; i < fe->n; i++)
		left += !fe->items[i].ran && !gate_fe_ended(
		    fe->items[i].status);
	ui_step_field(sv, "then", PAINT_BAD, "%s stops: the %d item%s not "
	    "started never run%s; %s fails%s", fe->name, left,
	    left == 1 ? "" : "s", fe->inflight > 0 ? ", the running ones "
	    "end first" : "", fe->name, fe->fails_workflow ?
	    " and so does the workflow" : "");
}

/* The page of a gate before batch (1-based) of the for-each. */
static void
gate_fe_batch(struct ui *ui, struct stepv *sv, const struct gate_fe *fe,
    const struct flow *f, int spec, int batch)
{
	struct buf	 b;
	size_t		 k, lo, hi;
	int		 i, failed, ended, conc;

	ui_step_heading(sv, "Batches so far");
	for (k = 0; k + 1 < (size_t)batch && k < fe->nbatches; k++) {
		lo = k == 0 ? 0 : fe->ends[k - 1];
		hi = fe->ends[k];
		failed = ended = 0;
		for (i = (int)lo; i < (int)hi; i++) {
			ended += gate_fe_ended(fe->items[i].status);
			failed += fe->items[i].status == STEP_FAILED ||
			    fe->items[i].status == STEP_CANCELLED;
		}
		buf_init(&b);
		gate_fe_labels(ui, &b, fe, lo, hi, 1);
		ui_step_field(sv, k == 0 ? "finished" : "", failed > 0 ?
		    PAINT_BAD : PAINT_OK, "batch %zu of %zu: %zu item%s, %d "
		    "failed%s: %s", k + 1, fe->nbatches, hi - lo, hi - lo == 1 ?
		    "" : "s", failed, ended < (int)(hi - lo) ? ", some still "
		    "running" : "", b.data != NULL ? b.data : "");
		buf_free(&b);
	}
	ui_step_field(sv, "failures", fe->failed > fe->budget ? PAINT_BAD :
	    PAINT_NORMAL, "%d of %d items failed so far; %d allowed, then "
	    "it %s", fe->failed, fe->n, fe->budget,
	    fe->ffe->on_budget_spent == FLOW_BUDGET_ASK ?
	    "stops and asks" : "stops and fails");

	ui_step_heading(sv, "If approved");
	if (batch < 1 || (size_t)batch > fe->nbatches)
		return;
	lo = batch > 1 ? fe->ends[batch - 2] : 0;
	hi = fe->ends[batch - 1];
	conc = fe->ffe->concurrency;
	buf_init(&b);
	gate_fe_labels(ui, &b, fe, lo, hi, 0);
	ui_step_field(sv, "starts", PAINT_NORMAL, "batch %d of %zu: %zu "
	    "item%s: %s", batch, fe->nbatches, hi - lo, hi - lo == 1 ? "" :
	    "s", b.data != NULL ? b.data : "");
	buf_free(&b);
	if (conc > 0)
		ui_step_field(sv, "", PAINT_NORMAL, "%d at a time", conc);
	if ((size_t)batch < fe->nbatches && fe->ffe->gated)
		ui_step_field(sv, "then", PAINT_NORMAL, "once it has "
		    "ended, a gate asks before batch %d of %zu (%zu items)",
		    batch + 1, fe->nbatches, fe->ends[batch] -
		    fe->ends[batch - 1]);
	else
		gate_fe_done(ui, sv, fe, f, spec);
	ui_step_heading(sv, "If rejected");
	gate_fe_abort(sv, fe);
}

/* The page of a gate at the spent failure budget. */
static void
gate_fe_budget(struct ui *ui, struct stepv *sv, const struct gate_fe *fe,
    const struct flow *f, int spec, int64_t wid)
{
	struct buf	 b;
	char		*line;
	int		 i, left = 0, base;

	ui_step_heading(sv, "Failed items");
	for (i = 0; i < fe->n; i++) {
		if (fe->items[i].status != STEP_FAILED &&
		    fe->items[i].status != STEP_CANCELLED) {
			left += !fe->items[i].ran && !gate_fe_ended(
			    fe->items[i].status);
			continue;
		}
		xasprintf(&line, "  %s %-16s %s", ui_draw_glyph(ui,
		    fe->items[i].status), fe->items[i].label,
		    fe->items[i].error != NULL ? fe->items[i].error : "");
		ui_step_add(sv, PAINT_BAD, 0, 0, 1, line);
		free(line);
	}
	ui_step_field(sv, "failures", PAINT_BAD, "%d of %d items failed; %d "
	    "allowed", fe->failed, fe->n, fe->budget);
	base = flow_foreach_budget(fe->ffe, (size_t)fe->n);

	ui_step_heading(sv, "If approved (continue)");
	if (left > 0)
		ui_step_field(sv, "then", PAINT_NORMAL, "the %d failures are "
		    "forgiven and %s goes on: %d item%s not started yet, up to "
		    "%d more failure%s allowed", fe->failed, fe->name, left,
		    left == 1 ? "" : "s", base, base == 1 ? "" : "s");
	else {
		ui_step_field(sv, "then", PAINT_NORMAL, "the %d failures are "
		    "forgiven; no item is left to start", fe->failed);
		gate_fe_done(ui, sv, fe, f, spec);
	}
	ui_step_heading(sv, "If rejected (abort)");
	gate_fe_abort(sv, fe);
	ui_step_heading(sv, "To retry them (R in the run view)");
	buf_init(&b);
	for (i = 0; i < fe->n; i++)
		if (fe->items[i].status == STEP_FAILED ||
		    fe->items[i].status == STEP_CANCELLED)
			buf_printf(&b, "%s%s", b.len > 0 ? ", " : "",
			    fe->items[i].label);
	ui_step_field(sv, "then", PAINT_NORMAL, "the failed items run again "
	    "(%s) and %s goes on: sluice retry %lld", b.data != NULL ?
	    b.data : "", fe->name, (long long)wid);
	buf_free(&b);
}

/*
 * The decision page of a for-each's gate s (its policy p says which
 * kind); 0 when drawn, -1 when s is not one (the caller draws the
 * ordinary page).
 */
int
ui_step_gate_foreach(struct ui *ui, struct stepv *sv,
    const struct store_step *s, const struct store_workflow *w,
    const struct flow_policy *p)
{
	struct flow	*f = NULL;
	struct gate_fe	 fe;
	int		 spec;

	if (p->foreach == FLOW_POLICY_NOT_FOREACH || s->item_of == 0 ||
	    w == NULL)
		return (-1);
	if (gate_fe_load(ui, s, w, &f, &fe) != 0) {
		gate_fe_free(&fe);
		if (f != NULL)
			flow_free(f);
		return (-1);
	}
	spec = flow_find(f, s->step_key);
	if (p->foreach == FLOW_POLICY_BATCH && p->batch > 0)
		gate_fe_batch(ui, sv, &fe, f, spec, p->batch);
	else
		gate_fe_budget(ui, sv, &fe, f, spec, w->id);
	gate_fe_free(&fe);
	flow_free(f);
	return (0);
}
