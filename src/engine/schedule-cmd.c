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
 * schedule-cmd.c: the schedule commands from the inbox: schedule-add
 * (checked against its template and started like a firing), -rm, -pause,
 * -resume and -run (one run now, whatever the calendar says).  Each is
 * audited and re-arms the alarm; firing is in schedule.c.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sched/sched.h"
#include "engine/engine-int.h"

static struct store_schedule *engine_sched_find(struct engine *,
		     const struct store_inbox *, struct engine_reply *);
static int	 engine_overlap_ok(const char *);
static int	 engine_sched_args(const cJSON *, struct store_schedule *,
		     struct engine_reply *);

/* Is s an overlap policy? */
static int
engine_overlap_ok(const char *s)
{
	return (strcmp(s, "skip") == 0 || strcmp(s, "allow") == 0 ||
	    strcmp(s, "cancel-previous") == 0);
}

/* The live schedule a command names, or NULL with the reply set. */
static struct store_schedule *
engine_sched_find(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	struct store_schedule	*c = NULL;
	char			*name, *cause = NULL;
	int			 rc;

	if ((name = engine_arg_string(m->args_json, "name")) == NULL) {
		r->code = 2;
		xasprintf(&r->message, "%s: no schedule named", m->command);
		return (NULL);
	}
	rc = store_schedule_get(e->store, name, &c, &cause);
	if (rc == STORE_NOTFOUND) {
		r->code = 3;
		r->message = cause;
	} else if (rc != 0)
		engine_store_fatal(e, cause);
	free(name);
	return (c);
}

/* A schedule-add's arguments into c (strings point into a); 0 or 2. */
static int
engine_sched_args(const cJSON *a, struct store_schedule *c,
    struct engine_reply *r)
{
	const cJSON	*v;
	char		*cause;

	v = cJSON_GetObjectItemCaseSensitive(a, "name");
	c->name = cJSON_IsString(v) ? v->valuestring : NULL;
	v = cJSON_GetObjectItemCaseSensitive(a, "cron");
	c->cron = cJSON_IsString(v) ? v->valuestring : NULL;
	v = cJSON_GetObjectItemCaseSensitive(a, "template");
	c->template_name = cJSON_IsString(v) ? v->valuestring : NULL;
	v = cJSON_GetObjectItemCaseSensitive(a, "overlap");
	c->overlap = cJSON_IsString(v) ? v->valuestring : (char *)"skip";
	v = cJSON_GetObjectItemCaseSensitive(a, "tz");
	c->tz = cJSON_IsString(v) && *v->valuestring != '\0' ?
	    v->valuestring : NULL;
	if (c->name == NULL || c->cron == NULL || c->template_name == NULL) {
		r->code = 2;
		xasprintf(&r->message, "schedule add: a name, --cron and "
		    "--template are required");
		return (2);
	}
	if (!engine_overlap_ok(c->overlap)) {
		r->code = 2;
		xasprintf(&r->message, "--overlap: \"%s\" is not skip, allow "
		    "or cancel-previous", c->overlap);
		return (2);
	}
	if (c->tz != NULL && sched_zone_check(c->tz, &cause) != 0) {
		r->code = 2;
		xasprintf(&r->message, "--tz: %s", cause);
		free(cause);
		return (2);
	}
	return (0);
}

/*
 * schedule-add {"name", "cron", "template", "input", "overlap", "tz"}: checked
 * again here (the cron, the template and the input), then stored with
 * its first instant.
 */
int
engine_cmd_schedule_add(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_schedule	 c;
	struct engine_fire	 f;
	struct cron		*cr;
	cJSON			*a, *d;
	char			*cause = NULL, *input = NULL;
	int64_t			 now = time_now_ms();
	int			 rc;

	memset(&c, 0, sizeof c);
	a = json_parse_or_null(m->args_json);
	if (engine_sched_args(a, &c, r) != 0)
		goto out;
	if ((cr = cron_parse(c.cron, &cause)) == NULL) {
		r->code = 2;
		xasprintf(&r->message, "--cron: %s", cause);
		free(cause);
		goto out;
	}
	c.next_fire_at = cron_next_in(cr, c.tz, now);
	cron_free(cr);
	if (c.next_fire_at <= 0) {
		r->code = 2;
		xasprintf(&r->message, "--cron: \"%s\" never fires in the next "
		    "%d years", c.cron, CRON_MAX_AHEAD_YEARS);
		goto out;
	}
	d = cJSON_GetObjectItemCaseSensitive(a, "input");
	c.input_json = input = cJSON_IsObject(d) ? json_print(d) :
	    xstrdup("{}");
	if ((rc = engine_fire_prepare(e, &c, &f, &r->message)) != 0) {
		r->code = rc;
		engine_fire_clear(&f);
		goto out;
	}
	engine_fire_clear(&f);
	c.created_by = m->who;
	engine_txn(e);
	if ((rc = store_schedule_add(e->store, &c, now)) == STORE_CONFLICT) {
		r->code = 4;
		xasprintf(&r->message, "schedule %s already exists (remove it "
		    "first with sluice schedule rm)", c.name);
		goto out;
	}
	if (rc != 0)
		engine_store_fatal(e, store_last_error(e->store));
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "cron", c.cron);
	cJSON_AddStringToObject(d, "template", c.template_name);
	cJSON_AddItemToObject(d, "input", json_parse_or_null(input));
	cJSON_AddStringToObject(d, "overlap", c.overlap);
	if (c.tz != NULL)
		cJSON_AddStringToObject(d, "tz", c.tz);
	cJSON_AddNumberToObject(d, "next_fire_at", (double)c.next_fire_at);
	engine_sched_audit(e, m, "schedule-add", &c, NULL, d);
	xasprintf(&r->message, "added schedule %s", c.name);
	engine_alarm_rearm(e);
out:
	free(input);
	cJSON_Delete(a);
	return (r->code);
}

/* schedule-rm {"name"}: a soft delete; its unfinished runs go on. */
int
engine_cmd_schedule_rm(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_schedule	*c;

	if ((c = engine_sched_find(e, m, r)) == NULL)
		return (r->code);
	engine_txn(e);
	if (store_schedule_remove(e->store, c->id, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	engine_sched_audit(e, m, "schedule-rm", c, NULL, NULL);
	xasprintf(&r->message, "removed schedule %s", c->name);
	store_schedule_free(c);
	engine_alarm_rearm(e);
	return (0);
}

/* schedule-pause {"name"}: no firing until resumed. */
int
engine_cmd_schedule_pause(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_schedule	*c;

	if ((c = engine_sched_find(e, m, r)) == NULL)
		return (r->code);
	if (c->paused) {
		r->code = 4;
		xasprintf(&r->message, "schedule %s is already paused",
		    c->name);
	} else {
		engine_txn(e);
		if (store_schedule_set_paused(e->store, c->id, 1, 0,
		    time_now_ms()) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		engine_sched_audit(e, m, "schedule-pause", c, NULL, NULL);
		xasprintf(&r->message, "paused schedule %s", c->name);
		engine_alarm_rearm(e);
	}
	store_schedule_free(c);
	return (r->code);
}

/*
 * schedule-resume {"name"}: fire again from the next instant after now;
 * what fell while it was paused is not caught up.
 */
int
engine_cmd_schedule_resume(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_schedule	*c;
	struct cron		*cr;
	cJSON			*d;
	int64_t			 now = time_now_ms(), next = 0;
	char			*cause = NULL;

	if ((c = engine_sched_find(e, m, r)) == NULL)
		return (r->code);
	if (!c->paused) {
		r->code = 4;
		xasprintf(&r->message, "schedule %s is not paused", c->name);
		goto out;
	}
	if ((cr = cron_parse(c->cron, &cause)) != NULL) {
		next = cron_next_in(cr, c->tz, now);
		cron_free(cr);
	}
	free(cause);
	engine_txn(e);
	if (store_schedule_set_paused(e->store, c->id, 0, next > 0 ? next : 0,
	    now) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "next_fire_at", (double)(next > 0 ? next :
	    0));
	engine_sched_audit(e, m, "schedule-resume", c, NULL, d);
	xasprintf(&r->message, "resumed schedule %s", c->name);
	engine_alarm_rearm(e);
out:
	store_schedule_free(c);
	return (r->code);
}

/*
 * schedule-run {"name"}: fire now, by hand, as the person asking.  The
 * overlap policy holds (skip refuses); the cron instants are untouched.
 */
int
engine_cmd_schedule_run(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_schedule	*c;
	cJSON			*d;
	int64_t			 id, prev;
	int			 rc;

	if ((c = engine_sched_find(e, m, r)) == NULL)
		return (r->code);
	engine_txn(e);
	if ((rc = engine_sched_launch(e, c, 0, m, &id, &prev,
	    &r->message)) != 0) {
		r->code = rc;
		if (prev != 0)
			r->workflow_id = prev;
		goto out;
	}
	if (store_schedule_ran(e->store, c->id, id, time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "workflow_id", (double)id);
	engine_sched_audit(e, m, "schedule-run", c, NULL, d);
	r->workflow_id = id;
	xasprintf(&r->message, "started workflow %lld from schedule %s",
	    (long long)id, c->name);
out:
	store_schedule_free(c);
	return (r->code);
}
