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
 * schedule.c: time in the engine.  Two kinds of time, kept apart:
 *
 * - instants (a workflow's start time, a cron firing) are wall-clock
 *   times by definition: one alarm, armed for the earliest from the wall
 *   clock, looked at again at least every minute and after a jump;
 * - delays (retry backoff, gate timeouts, SLAs) are lengths of time: they
 *   are stored as wall due times so they survive the engine, and when the
 *   wall clock jumps (wall minus monotonic moves by more than a second)
 *   every stored one moves by the jump, so none ends early or late.
 *
 * Each cron instant fires at most once: the schedule's next instant is
 * written in the turn that creates the run (or logs the skip).  Missed
 * instants (no engine ran, or the clock jumped forward): the earliest
 * runs, the rest are logged as one schedule-skip audit row.  The schedule
 * commands (add, rm, pause, resume, run) are in schedule-cmd.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sched/sched.h"
#include "engine/engine-int.h"

static void	 engine_alarm_fire(void *);
static void	 engine_clock_tick(void *);
static int	 engine_sched_admit(struct engine *,
		     const struct store_workflow *, int64_t);
static void	 engine_sched_starts(struct engine *, int64_t);
static void	 engine_sched_fire(struct engine *,
		     const struct store_schedule *, int64_t);
static int	 engine_sched_overlap(struct engine *,
		     const struct store_schedule *, const struct store_inbox *,
		     int64_t *, char **);
static void	 engine_sched_skip(struct engine *,
		     const struct store_schedule *, const char *, cJSON *);
static void	 engine_cancel_run(struct engine *, const struct store_inbox *,
		     int64_t, const char *);

/* The engine itself as the one acting: its process's account. */
void
engine_self(struct store_inbox *m)
{
	const struct user_info	*self = user_self();

	memset(m, 0, sizeof *m);
	m->uid = (int64_t)self->uid;
	m->who = self->name;
	m->tty = self->tty;
	m->host = self->host;
}

/* Set up the alarm and the clock watch (an engine with a loop). */
void
engine_time_open(struct engine *e)
{
	e->skew = time_now_ms() - time_mono_ms();
	e->alarm = loop_timer_create(e->loop, engine_alarm_fire, e);
	e->clock = loop_timer_create(e->loop, engine_clock_tick, e);
	loop_timer_start(e->clock, ENGINE_CLOCK_MS);
	engine_alarm_rearm(e);
}

/* Let the timers go. */
void
engine_time_close(struct engine *e)
{
	if (e->alarm != NULL)
		loop_timer_free(e->alarm);
	if (e->clock != NULL)
		loop_timer_free(e->clock);
	e->alarm = e->clock = NULL;
}

/*
 * Arm the alarm for the earliest start time or cron instant, from the
 * wall clock now; at most a minute ahead, so a jump the clock watch
 * missed is still seen.
 */
void
engine_alarm_rearm(struct engine *e)
{
	int64_t	 a, b, next, wait;

	if (e->alarm == NULL)
		return;
	if (store_workflow_scheduled_next(e->store, &a) != 0 ||
	    store_schedule_next(e->store, &b) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	next = a;
	if (b > 0 && (next <= 0 || b < next))
		next = b;
	if (next <= 0) {
		loop_timer_stop(e->alarm);
		return;
	}
	wait = next - time_now_ms();
	if (wait < 0)
		wait = 0;
	if (wait > ENGINE_ALARM_MAX_MS)
		wait = ENGINE_ALARM_MAX_MS;
	loop_timer_start(e->alarm, wait);
}

/* Every second: has the wall clock jumped? */
static void
engine_clock_tick(void *arg)
{
	struct engine	*e = arg;

	engine_clock_check(e);
	loop_timer_start(e->clock, ENGINE_CLOCK_MS);
}

/*
 * Compare wall and monotonic time with the last look.  A jump of more
 * than ENGINE_JUMP_MS moves every stored delay by the jump (audited as
 * clock-jump) and looks at the instants again; a smaller step is drift.
 */
void
engine_clock_check(struct engine *e)
{
	struct store_inbox	 self;
	cJSON			*d;
	int64_t			 skew, jump, next;
	char			*text, *comment, span[32];

	if (e->clock == NULL)
		return;
	skew = time_now_ms() - time_mono_ms();
	jump = skew - e->skew;
	e->skew = skew;
	if (jump > -ENGINE_JUMP_MS && jump < ENGINE_JUMP_MS)
		return;
	log_debug("%s: the wall clock jumped by %lld ms", __func__,
	    (long long)jump);
	engine_txn(e);
	if (store_timers_shift(e->store, jump) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "jump_ms", (double)jump);
	text = json_print(d);
	cJSON_Delete(d);
	flow_duration_format(((jump < 0 ? -jump : jump) + 500) / 1000 * 1000,
	    span, sizeof span);
	xasprintf(&comment, "the wall clock jumped %s by %s; delays keep "
	    "their length", jump < 0 ? "back" : "forward", span);
	engine_self(&self);
	engine_audit(e, &self, "clock-jump", 0, 0, "clock", comment, text);
	free(comment);
	free(text);

	loop_timer_stop(e->timers);
	e->timers_due = 0;
	if (store_timer_next(e->store, &next) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_timers_rearm(e, next);
	engine_alarm_rearm(e);
}

/* The alarm: start what is due to start, fire what is due to fire. */
static void
engine_alarm_fire(void *arg)
{
	struct engine		*e = arg;
	struct store_schedule	*list;
	size_t			 n, i;
	int64_t			 now;
	char			*cause = NULL;

	if (e->stopping)
		return;
	engine_txn(e);
	engine_clock_check(e);
	now = time_now_ms();
	engine_sched_starts(e, now);
	if (store_schedules_due(e->store, now, &list, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++)
		engine_sched_fire(e, &list[i], now);
	store_schedules_free(list, n);
	engine_alarm_rearm(e);
}

/*
 * A run whose start time has come, with a concurrency key: 1 when a slot
 * is free; else it is queued for one, or (on_busy refuse) fails naming
 * the run holding the key, and 0.
 */
static int
engine_sched_admit(struct engine *e, const struct store_workflow *w,
    int64_t now)
{
	struct flow_diags	*d;
	struct flow		*f;
	int64_t			 holder;
	char			*why;
	int			 refuse;

	if (engine_conc_run_free(e, w->conc_key, w->conc_limit, &holder))
		return (1);
	d = flow_diags_create();
	f = flow_parse(w->flow_json, strlen(w->flow_json), d);
	flow_diags_free(d);
	refuse = f != NULL && f->concurrency.refuse;
	flow_free(f);
	if (!refuse) {
		if (store_workflow_queue(e->store, w->id, w->conc_key,
		    w->conc_limit, now) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		return (0);
	}
	engine_conc_run_refusal(w->conc_key, w->conc_limit, holder, &why);
	if (store_workflow_end(e->store, w->id, RUN_FAILED, why, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(why);
	return (0);
}

/* Workflows whose start time has come begin. */
static void
engine_sched_starts(struct engine *e, int64_t now)
{
	struct store_workflow	*w;
	int64_t			*ids;
	size_t			 n, i;
	char			*cause = NULL;

	if (store_workflows_scheduled_due(e->store, now, &ids, &n,
	    &cause) != 0)
		engine_store_fatal(e, cause);
	for (i = 0; i < n; i++) {
		if (store_workflow_get(e->store, ids[i], &w, &cause) != 0)
			engine_store_fatal(e, cause);
		log_debug("%s: workflow %lld: its start time has come",
		    __func__, (long long)w->id);
		if (w->conc_key == NULL || engine_sched_admit(e, w, now)) {
			if (store_workflow_begin(e->store, w->id, now) != 0)
				engine_store_fatal(e,
				    store_last_error(e->store));
			engine_wf_begin(e, w, now);
		}
		store_workflow_free(w);
	}
	free(ids);
}

/* Add the missed-firings summary of a schedule to the audit trail. */
static void
engine_sched_missed(struct engine *e, const struct store_schedule *c,
    size_t count, int64_t first, int64_t last, int capped)
{
	cJSON	*d;
	char	*comment;

	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "reason", "missed");
	cJSON_AddNumberToObject(d, "count", (double)count);
	cJSON_AddNumberToObject(d, "first", (double)first);
	cJSON_AddNumberToObject(d, "last", (double)last);
	cJSON_AddNumberToObject(d, "ran", (double)c->next_fire_at);
	if (capped)
		cJSON_AddBoolToObject(d, "capped", 1);
	xasprintf(&comment, "%s%zu later missed firing%s skipped (one missed "
	    "firing runs)", capped ? "at least " : "", count,
	    count == 1 ? "" : "s");
	engine_sched_skip(e, c, comment, d);
	free(comment);
}

/*
 * A schedule's instant has come: log the later instants that were missed
 * too, run the earliest (overlap permitting), and record the next one,
 * all in this turn.
 */
static void
engine_sched_fire(struct engine *e, const struct store_schedule *c,
    int64_t now)
{
	struct cron		*cr;
	struct sched_zone_saved	 z;
	cJSON		*d;
	int64_t		 instant = c->next_fire_at, k, first = 0, last = 0;
	int64_t		 next, run = 0, prev = 0;
	size_t		 missed = 0;
	char		*cause = NULL;
	int		 rc;

	if ((cr = cron_parse(c->cron, &cause)) == NULL) {
		/* Only a row edited by hand: stop it, say why. */
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "reason", "error");
		cJSON_AddNumberToObject(d, "instant", (double)instant);
		engine_sched_skip(e, c, cause, d);
		free(cause);
		if (store_schedule_fired(e->store, c->id, 0, 0, 0, now) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		return;
	}
	/* Up to ENGINE_MISSED_MAX searches: the zone is loaded once. */
	sched_zone_push(c->tz, &z);
	for (k = cron_next(cr, instant); k > 0 && k <= now;
	    k = cron_next(cr, k)) {
		if (missed == 0)
			first = k;
		last = k;
		if (++missed == ENGINE_MISSED_MAX)
			break;
	}
	if ((next = cron_next(cr, now)) < 0)
		next = 0;
	sched_zone_pop(&z);
	cron_free(cr);
	if (missed > 0)
		engine_sched_missed(e, c, missed, first, last,
		    missed == ENGINE_MISSED_MAX);

	rc = engine_sched_launch(e, c, instant, NULL, &run, &prev, &cause);
	if (rc != 0) {
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "reason", rc == 4 ? "overlap" :
		    "error");
		cJSON_AddNumberToObject(d, "instant", (double)instant);
		if (prev != 0)
			cJSON_AddNumberToObject(d, "running", (double)prev);
		engine_sched_skip(e, c, cause, d);
		free(cause);
	}
	if (store_schedule_fired(e->store, c->id, run != 0 ? instant : 0, run,
	    next, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
}

/*
 * What a run of a schedule is made of: its template's latest version,
 * checked, and the schedule's input with the template's defaults.
 * Returns 0, or 3 (no such template) or 2 (it or the input is not valid)
 * with *why.
 */
int
engine_fire_prepare(struct engine *e, const struct store_schedule *c,
    struct engine_fire *f, char **why)
{
	struct flow_diags	*d;
	cJSON			*given, *o;
	char			*first, *cause = NULL;
	int			 rc;

	memset(f, 0, sizeof *f);
	rc = store_template_get(e->store, c->template_name, 0, &f->t, &cause);
	if (rc == STORE_NOTFOUND) {
		*why = cause;
		return (3);
	}
	if (rc != 0)
		engine_store_fatal(e, cause);
	d = flow_diags_create();
	f->doc = flow_doc_parse(f->t->document, strlen(f->t->document),
	    e->tools, d);
	if (f->doc == NULL || flow_diags_errors(d) > 0) {
		first = flow_diags_first_error(d, NULL);
		xasprintf(why, "template %s version %lld is not valid: %s",
		    f->t->name, (long long)f->t->version,
		    first != NULL ? first : "?");
		free(first);
		flow_diags_free(d);
		return (2);
	}
	flow_diags_free(d);
	given = json_parse_or_null(c->input_json);
	f->input = flow_doc_input(f->doc, given, &cause);
	cJSON_Delete(given);
	if (f->input == NULL) {
		xasprintf(why, "template %s: %s", f->t->name, cause);
		free(cause);
		return (2);
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schedule", c->name);
	cJSON_AddNumberToObject(o, "schedule_id", (double)c->id);
	cJSON_AddStringToObject(o, "template", f->t->name);
	cJSON_AddNumberToObject(o, "version", (double)f->t->version);
	f->detail = json_print(o);
	cJSON_Delete(o);
	f->st.name = c->name;
	f->st.flow_json = f->doc->flow_json;
	f->st.input_json = f->input;
	f->st.template_name = f->t->name;
	f->st.template_version = f->t->version;
	f->st.sla_ms = f->doc->sla_ms;
	f->st.schedule_id = c->id;
	f->st.detail = f->detail;
	return (0);
}

/* Free what a prepared run holds. */
void
engine_fire_clear(struct engine_fire *f)
{
	if (f->t != NULL)
		store_template_free(f->t);
	if (f->doc != NULL)
		flow_doc_free(f->doc);
	free(f->input);
	free(f->detail);
	memset(f, 0, sizeof *f);
}

/*
 * Apply a schedule's overlap policy before it starts a run: 0 to go on
 * (cancel-previous has cancelled the unfinished runs), or 1 when a run is
 * unfinished and the policy is skip (*prev is that run, *why says so).
 */
static int
engine_sched_overlap(struct engine *e, const struct store_schedule *c,
    const struct store_inbox *m, int64_t *prev, char **why)
{
	int64_t	*ids;
	size_t	 n, i;
	char	*cause = NULL, *comment;

	if (store_schedule_active(e->store, c->id, &ids, &n, &cause) != 0)
		engine_store_fatal(e, cause);
	if (n == 0 || strcmp(c->overlap, "allow") == 0) {
		free(ids);
		return (0);
	}
	if (strcmp(c->overlap, "skip") == 0) {
		*prev = ids[n - 1];
		xasprintf(why, "run %lld of schedule %s is unfinished "
		    "(overlap skip)", (long long)*prev, c->name);
		free(ids);
		return (1);
	}
	xasprintf(&comment, "schedule %s starts a new run (overlap "
	    "cancel-previous)", c->name);
	for (i = 0; i < n; i++)
		engine_cancel_run(e, m, ids[i], comment);
	free(comment);
	free(ids);
	return (0);
}

/*
 * Start a run of a schedule for a cron instant (0: by hand, as m).
 * Returns 0 with *id, or with *why: 4 an unfinished run and overlap skip
 * (*prev), 3 the template is gone, 2 it or the input is not valid.
 */
int
engine_sched_launch(struct engine *e, const struct store_schedule *c,
    int64_t instant, const struct store_inbox *m, int64_t *id,
    int64_t *prev, char **why)
{
	struct engine_fire	 f;
	struct store_inbox	 self;
	int			 rc;

	*id = *prev = 0;
	if (m == NULL) {
		engine_self(&self);
		m = &self;
	}
	if ((rc = engine_fire_prepare(e, c, &f, why)) != 0) {
		engine_fire_clear(&f);
		return (rc);
	}
	if (engine_sched_overlap(e, c, m, prev, why) != 0) {
		engine_fire_clear(&f);
		return (4);
	}
	f.st.fire_at = instant;
	if (instant != 0)
		f.st.created_by = c->created_by;
	rc = engine_wf_create(e, &f.st, m, id, why) == 0 ? 0 : 2;
	engine_fire_clear(&f);
	return (rc);
}

/* Log a firing that did not run (audit schedule-skip, by the engine). */
static void
engine_sched_skip(struct engine *e, const struct store_schedule *c,
    const char *comment, cJSON *d)
{
	struct store_inbox	 self;

	log_debug("%s: schedule %s: %s", __func__, c->name, comment);
	engine_self(&self);
	engine_sched_audit(e, &self, "schedule-skip", c, comment, d);
}

/* Audit an action on a schedule; d (may be NULL) is the detail, freed. */
void
engine_sched_audit(struct engine *e, const struct store_inbox *m,
    const char *action, const struct store_schedule *c, const char *comment,
    cJSON *d)
{
	char	*target, *text;

	if (d == NULL)
		d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "schedule", c->name);
	cJSON_AddNumberToObject(d, "schedule_id", (double)c->id);
	text = json_print(d);
	cJSON_Delete(d);
	xasprintf(&target, "schedule %s", c->name);
	engine_audit(e, m, action, 0, 0, target, comment, text);
	free(target);
	free(text);
}

/*
 * Cancel an unfinished workflow, whether it runs (in memory) or waits
 * for its start time; audited as m's cancel with comment.
 */
static void
engine_cancel_run(struct engine *e, const struct store_inbox *m, int64_t id,
    const char *comment)
{
	struct store_workflow	*w;
	struct ewf		*wf;
	char			*target, *cause = NULL;

	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		free(cause);
		return;
	}
	xasprintf(&target, "workflow %lld %s", (long long)id, w->name);
	if ((wf = engine_wf_get(e, id)) != NULL && !wf->ended) {
		engine_audit(e, m, "cancel", id, 0, target, comment, NULL);
		engine_wf_cancel(e, wf);
	} else if (w->status == RUN_SCHEDULED || w->status == RUN_QUEUED ||
	    w->status == RUN_RUNNING) {
		engine_audit(e, m, "cancel", id, 0, target, comment, NULL);
		if (store_workflow_end(e->store, id, RUN_CANCELLED, NULL,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_secret_input_forget(e, id);
		/* The queue moves up (a run behind may have another limit). */
		if (w->conc_key != NULL)
			engine_conc_run_release(e, w->conc_key);
	}
	free(target);
	store_workflow_free(w);
}

/*
 * cancel of a workflow waiting for its start time: it ends cancelled
 * without ever running.  -1 when the workflow is not one (the caller
 * goes on with the usual cancel).
 */
int
engine_sched_cancel(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	struct store_workflow	*w;
	char			*cause = NULL, *comment;
	int			 scheduled, queued;

	if (engine_wf_get(e, m->workflow_id) != NULL)
		return (-1);
	if (store_workflow_get(e->store, m->workflow_id, &w, &cause) != 0) {
		free(cause);
		return (-1);
	}
	scheduled = w->status == RUN_SCHEDULED;
	queued = w->status == RUN_QUEUED;
	store_workflow_free(w);
	if (!scheduled && !queued)
		return (-1);
	engine_txn(e);
	comment = engine_arg_string(m->args_json, "comment");
	engine_cancel_run(e, m, m->workflow_id, comment);
	free(comment);
	r->workflow_id = m->workflow_id;
	if (queued)
		xasprintf(&r->message, "cancelled workflow %lld while it was "
		    "queued", (long long)m->workflow_id);
	else
		xasprintf(&r->message, "cancelled workflow %lld before its "
		    "start time", (long long)m->workflow_id);
	engine_alarm_rearm(e);
	return (0);
}

/* Arm a workflow's SLA: a stored delay from its start. */
void
engine_sla_arm(struct engine *e, int64_t id, int64_t sla_ms, int64_t from)
{
	engine_run_timer_arm(e, "sla", id, sla_ms, from);
}

/*
 * An SLA ran out: a workflow still running is marked late, once, with
 * an audit row and a workflow_late notification; it is never cancelled.
 */
void
engine_sla_due(struct engine *e, int64_t id)
{
	struct store_workflow	*w;
	struct store_inbox	 self;
	cJSON			*d;
	int64_t			 now = time_now_ms();
	char			*target, *text, *comment, *cause = NULL;
	char			 span[32];

	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		free(cause);
		return;
	}
	if (w->status != RUN_RUNNING || w->late_at != 0 ||
	    w->sla_ms <= 0) {
		store_workflow_free(w);
		return;
	}
	engine_txn(e);
	if (store_workflow_set_late(e->store, id, now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "sla_ms", (double)w->sla_ms);
	cJSON_AddNumberToObject(d, "started_at", (double)w->started_at);
	cJSON_AddNumberToObject(d, "late_at", (double)now);
	text = json_print(d);
	flow_duration_format(w->sla_ms, span, sizeof span);
	xasprintf(&comment, "still unfinished %s after it started (its sla)",
	    span);
	xasprintf(&target, "workflow %lld %s", (long long)id, w->name);
	engine_self(&self);
	engine_audit(e, &self, "late", id, 0, target, comment, text);
	log_debug("%s: workflow %lld is late", __func__, (long long)id);
	engine_notify(e, "workflow_late", id, 0, d);
	free(target);
	free(comment);
	free(text);
	store_workflow_free(w);
}
