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
 * schedule.c: "sluice schedule": recurring schedules, each a cron
 * expression, a template and its input.  add checks everything it can
 * before anything is written (the cron expression, the template and the
 * input it needs); add, rm, pause, resume and run go to the engine like
 * every other operator action; list and show read the tables.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "sched/sched.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

#define SCHEDULE_HISTORY	20	/* runs and skips that show lists */

/* What "schedule add" was given. */
struct schedule_add {
	const char	*name;
	const char	*cron;
	const char	*template_name;
	const char	*overlap;
	const char	*tz;		/* NULL: the engine's zone */
	cJSON		*input;		/* owned */
	cJSON		*texts;		/* keys given as text, owned */
};

static int	 cmd_schedule_add(struct client *,
		     const struct cli_args *);
static int	 cmd_schedule_list(struct client *,
		     const struct cli_args *);
static int	 cmd_schedule_show(struct client *,
		     const struct cli_args *);
static int	 cmd_schedule_action(struct client *,
		     const struct cli_args *);
static int	 schedule_name_arg(const char *);
static int	 schedule_add_check(struct client *,
		     struct schedule_add *);
static void	 schedule_add_typed(struct schedule_add *, const char *);
static cJSON	*schedule_json(const struct store_schedule *);
static void	 schedule_skip_times(cJSON *);
static void	 schedule_table(const struct store_schedule *, size_t);
static const char *schedule_next_text(const struct store_schedule *, char *,
		     size_t);
static void	 schedule_print_next(struct client *, const char *);

static const struct cli_opt schedule_list_opts[] = {
	{ "json", 0, NULL, 0, "a JSON array" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt schedule_show_opts[] = {
	{ "json", 0, NULL, 0, "one JSON object" },
	{ NULL, 0, NULL, 0, NULL }
};

static const struct cli_opt schedule_add_opts[] = {
	{ "cron", 0, "EXPR", CLI_OPT_REQUIRED,
	    "5 fields (minute hour day month weekday) or @hourly, @daily, "
	    "@weekly, @monthly; local time (TZ), or --tz's" },
	{ "tz", 0, "ZONE", 0, "fire in this IANA time zone (Europe/Berlin) "
	    "instead of the engine's" },
	{ "template", 0, "T", CLI_OPT_REQUIRED,
	    "the template to run (its latest version at each firing)" },
	{ "i", 'i', "KEY=VAL", CLI_OPT_MANY|CLI_OPT_SHORT,
	    "an input (KEY:=JSON for any JSON value)" },
	{ "input", 0, "FILE.json", CLI_OPT_MANY,
	    "inputs from a JSON object (-i wins)" },
	{ "overlap", 0, "POLICY", 0, "when the last run is unfinished: skip "
	    "(default), allow, or cancel-previous" },
	{ NULL, 0, NULL, 0, NULL }
};

/* The subcommands, each with its own options and --help. */
static const struct cli_cmd schedule_cmds[] = {
	{
		.name = "schedule list",
		.summary = "List live schedules by name, with their last and "
		    "next firing.",
		.opts = schedule_list_opts,
		.run = cmd_schedule_list
	},
	{
		.name = "schedule show",
		.complete = "schedule",
		.usage = "NAME",
		.summary = "Show a schedule, its recent runs and skipped "
		    "firings.",
		.opts = schedule_show_opts,
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_show
	},
	{
		.name = "schedule add",
		.usage = "NAME",
		.summary = "Add a schedule: run template T at every instant "
		    "of a cron expression.",
		.opts = schedule_add_opts,
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_add
	},
	{
		.name = "schedule rm",
		.complete = "schedule",
		.usage = "NAME",
		.summary = "Remove a schedule (its runs and history are kept).",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_action
	},
	{
		.name = "schedule pause",
		.complete = "schedule",
		.usage = "NAME",
		.summary = "Stop a schedule firing.",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_action
	},
	{
		.name = "schedule resume",
		.complete = "schedule",
		.usage = "NAME",
		.summary = "Fire again from the next instant (what fell while "
		    "paused is not caught up).",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_action
	},
	{
		.name = "schedule run",
		.complete = "schedule",
		.usage = "NAME",
		.summary = "Fire a schedule now, by hand (its overlap policy "
		    "holds); print the id.",
		.args_min = 1,
		.args_max = 1,
		.run = cmd_schedule_action
	},
	{ .name = NULL }
};

const struct cli_cmd cli_cmd_schedule = {
	.name = "schedule",
	.summary = "Recurring schedules: a template run on a cron "
	    "expression.",
	.subs = schedule_cmds
};

/*
 * Check a schedule name: as a template's, 1..SLUICE_MAX_NAME of
 * [A-Za-z0-9._-], not starting with '-' or '.'.  0, or EXIT_USAGE.
 */
static int
schedule_name_arg(const char *name)
{
	const char	*p;
	size_t		 len = strlen(name);

	if (len == 0 || len > SLUICE_MAX_NAME) {
		cli_error("schedule name: 1 to %d characters", SLUICE_MAX_NAME);
		return (EXIT_USAGE);
	}
	for (p = name; *p != '\0'; p++) {
		if (isascii((u_char)*p) && (isalnum((u_char)*p) ||
		    *p == '.' || *p == '_' || *p == '-'))
			continue;
		cli_error("schedule name \"%s\": character %zu is not a "
		    "letter, digit, '.', '_' or '-'", name,
		    (size_t)(p - name) + 1);
		return (EXIT_USAGE);
	}
	if (*name == '-' || *name == '.') {
		cli_error("schedule name \"%s\" may not start with '%c'", name,
		    *name);
		return (EXIT_USAGE);
	}
	return (0);
}

/*
 * Everything "schedule add" can check before asking the engine: the
 * name, the cron expression (and that it ever fires), the overlap
 * policy, the template and the input it needs.  0 or an exit status.
 */
static int
schedule_add_check(struct client *ctx, struct schedule_add *a)
{
	const struct flow_tools	*tools;
	struct store_template	*t;
	struct flow_doc		*doc;
	struct cron		*cr;
	char			*cause = NULL, *input, *where;
	int64_t			 next;
	int			 rc;

	if ((rc = schedule_name_arg(a->name)) != 0)
		return (rc);
	if (a->cron == NULL || a->template_name == NULL) {
		cli_error("schedule add: --cron and --template are required");
		return (EXIT_USAGE);
	}
	if ((cr = cron_parse(a->cron, &cause)) == NULL) {
		cli_error("--cron \"%s\": %s", a->cron, cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if (a->tz != NULL && sched_zone_check(a->tz, &cause) != 0) {
		cli_error("--tz: %s", cause);
		free(cause);
		cron_free(cr);
		return (EXIT_USAGE);
	}
	next = cron_next_in(cr, a->tz, time_now_ms());
	cron_free(cr);
	if (next <= 0) {
		cli_error("--cron \"%s\": it never fires in the next %d years",
		    a->cron, CRON_MAX_AHEAD_YEARS);
		return (EXIT_USAGE);
	}
	if (a->overlap != NULL && strcmp(a->overlap, "skip") != 0 &&
	    strcmp(a->overlap, "allow") != 0 &&
	    strcmp(a->overlap, "cancel-previous") != 0) {
		cli_error("--overlap: \"%s\" is not skip, allow or "
		    "cancel-previous", a->overlap);
		return (EXIT_USAGE);
	}
	if ((rc = client_tools(ctx, &tools)) != 0 || (rc = client_store(ctx, CLIENT_STORE_ANY)) != 0)
		return (rc);
	rc = store_template_get(ctx->store, a->template_name, 0, &t, &cause);
	if (rc != 0)
		return (client_name_fail(ctx, rc, cause, CLIENT_NAME_TEMPLATE,
		    a->template_name));
	xasprintf(&where, "template %s", t->name);
	doc = client_doc_parse(ctx, t->document, strlen(t->document), tools, where,
	    NULL);
	free(where);
	store_template_free(t);
	if (doc == NULL)
		return (EXIT_USAGE);
	if ((input = flow_doc_input_text(doc, a->input, a->texts,
	    &cause)) == NULL) {
		cli_error("template %s: %s", a->template_name, cause);
		free(cause);
		rc = EXIT_USAGE;
	} else
		schedule_add_typed(a, input);
	free(input);
	flow_doc_free(doc);
	return (rc);
}

/*
 * Keep the values given as text as their declared types (-i count=3 is
 * stored as 3, so each firing checks what was checked here), and only
 * the values given: defaults are filled at each firing, from the
 * template as it is then.
 */
static void
schedule_add_typed(struct schedule_add *a, const char *checked)
{
	cJSON		*all, *v;
	const cJSON	*c;

	if ((all = json_parse_or_null(checked)) == NULL)
		return;
	for (c = a->texts != NULL ? a->texts->child : NULL; c != NULL;
	    c = c->next) {
		v = cJSON_GetObjectItemCaseSensitive(all, c->string);
		if (v != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(a->input,
			    c->string, cJSON_Duplicate(v, 1));
	}
	cJSON_Delete(all);
}

/* After an add or a resume: when the schedule fires next. */
static void
schedule_print_next(struct client *ctx, const char *name)
{
	struct store_schedule	*c;
	char			*cause = NULL, next[64];

	/* The engine was asked without opening the database: read it now. */
	if (client_store(ctx, 0) != 0)
		return;
	if (store_schedule_get(ctx->store, name, &c, &cause) != 0) {
		free(cause);
		return;
	}
	cli_printf("next firing: %s\n", schedule_next_text(c, next, sizeof next));
	store_schedule_free(c);
}

/*
 * schedule add NAME --cron EXPR --template T [-i ...] [--overlap P]
 * [--tz ZONE]
 */
static int
cmd_schedule_add(struct client *ctx, const struct cli_args *cl)
{
	struct schedule_add	 a;
	struct engine_request	 q;
	struct engine_reply	 r;
	cJSON			*args;
	int			 rc;

	memset(&a, 0, sizeof a);
	memset(&r, 0, sizeof r);
	if ((a.input = cli_input_args(cl, &a.texts)) == NULL)
		return (EXIT_USAGE);
	a.name = cl->argv[0];
	a.cron = cli_args_get(cl, "cron");
	a.template_name = cli_args_get(cl, "template");
	a.overlap = cli_args_get(cl, "overlap");
	a.tz = cli_args_get(cl, "tz");
	if ((rc = schedule_add_check(ctx, &a)) != 0)
		goto out;
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "name", a.name);
	cJSON_AddStringToObject(args, "cron", a.cron);
	cJSON_AddStringToObject(args, "template", a.template_name);
	cJSON_AddItemToObject(args, "input", cJSON_Duplicate(a.input, 1));
	cJSON_AddStringToObject(args, "overlap", a.overlap != NULL ?
	    a.overlap : "skip");
	if (a.tz != NULL)
		cJSON_AddStringToObject(args, "tz", a.tz);
	memset(&q, 0, sizeof q);
	q.command = "schedule-add";
	q.args_json = json_print(args);
	cJSON_Delete(args);
	if ((rc = cli_submit(ctx, &q, &r, 0)) == 0)
		schedule_print_next(ctx, a.name);
	free((char *)q.args_json);
	engine_reply_clear(&r);
out:
	cJSON_Delete(a.input);
	cJSON_Delete(a.texts);
	return (rc);
}

/* "2026-12-01 09:00:00 (in 3h 20m)", "paused" or "never". */
static const char *
schedule_next_text(const struct store_schedule *c, char *out, size_t len)
{
	char	 when[32], left[32];

	if (c->paused)
		snprintf(out, len, "paused");
	else if (c->next_fire_at <= 0)
		snprintf(out, len, "never");
	else {
		when_countdown(c->next_fire_at - time_now_ms(), left,
		    sizeof left);
		snprintf(out, len, "%s (%s%s)", time_format(c->next_fire_at,
		    when, sizeof when), strcmp(left, "now") == 0 ? "" : "in ",
		    left);
	}
	return (out);
}

/* A schedule as JSON. */
static cJSON *
schedule_json(const struct store_schedule *c)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "cron", c->cron);
	if (c->tz != NULL)
		cJSON_AddStringToObject(o, "tz", c->tz);
	else
		cJSON_AddNullToObject(o, "tz");
	cJSON_AddStringToObject(o, "template", c->template_name);
	cJSON_AddItemToObject(o, "input", json_raw(c->input_json));
	cJSON_AddStringToObject(o, "overlap", c->overlap);
	cJSON_AddBoolToObject(o, "paused", c->paused);
	cJSON_AddStringToObject(o, "created_by", c->created_by);
	json_add_time(o, "created_at", c->created_at);
	json_add_time(o, "updated_at", c->updated_at);
	json_add_time(o, "last_fire_at", c->last_fire_at);
	if (c->last_run_id > 0)
		cJSON_AddNumberToObject(o, "last_run_id",
		    (double)c->last_run_id);
	else
		cJSON_AddNullToObject(o, "last_run_id");
	if (c->has_last_run)
		cJSON_AddStringToObject(o, "last_run_status",
		    status_run_name(c->last_run_status));
	else
		cJSON_AddNullToObject(o, "last_run_status");
	json_add_time(o, "next_fire_at", c->next_fire_at);
	return (o);
}

/* Print schedules as a table for people. */
static void
schedule_table(const struct store_schedule *c, size_t n)
{
	static const char	*header[] = { "NAME", "CRON", "ZONE",
	    "TEMPLATE", "OVERLAP", "NEXT", "LAST" };
	struct cli_table	*t;
	const char		*cells[7];
	char			 next[64], last[96], when[64];
	size_t			 i;

	t = cli_table_create(header, nitems(header));
	cli_table_flex(t, "f..f..f");
	for (i = 0; i < n; i++) {
		snprintf(last, sizeof last, "-");
		if (c[i].last_fire_at != 0)
			time_format(c[i].last_fire_at, last, sizeof last);
		if (c[i].last_run_id != 0) {
			/* The newest run, perhaps fired by hand. */
			snprintf(when, sizeof when, " (#%lld %s)",
			    (long long)c[i].last_run_id,
			    c[i].has_last_run ?
			    status_run_name(c[i].last_run_status) : "?");
			strlcat(last, when, sizeof last);
		}
		cells[0] = c[i].name;
		cells[1] = c[i].cron;
		cells[2] = c[i].tz != NULL ? c[i].tz : "local";
		cells[3] = c[i].template_name;
		cells[4] = c[i].overlap;
		cells[5] = schedule_next_text(&c[i], next, sizeof next);
		cells[6] = last;
		cli_table_add(t, cells);
	}
	cli_table_print(t, "no schedules");
}

/* schedule list [--json] */
static int
cmd_schedule_list(struct client *ctx, const struct cli_args *args)
{
	struct store_schedule	*c;
	cJSON			*arr;
	char			*cause = NULL;
	size_t			 n, i;
	int			 json, rc;

	json = cli_args_has(args, "json");
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_schedule_list(ctx->store, &c, &n, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	if (json) {
		arr = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, schedule_json(&c[i]));
		cli_json_out(arr);
	} else
		schedule_table(c, n);
	store_schedules_free(c, n);
	return (EXIT_OK);
}

/*
 * A skipped firing's detail, as the engine recorded it, has its instants
 * in Unix ms: show them as every other time in JSON is shown.
 */
static void
schedule_skip_times(cJSON *e)
{
	static const char	*keys[] = { "first", "last", "ran", "instant" };
	cJSON			*v;
	size_t			 i;
	int64_t			 ms;

	for (i = 0; i < nitems(keys); i++) {
		v = cJSON_GetObjectItemCaseSensitive(e, keys[i]);
		if (!cJSON_IsNumber(v))
			continue;
		ms = (int64_t)v->valuedouble;
		cJSON_DeleteItemFromObjectCaseSensitive(e, keys[i]);
		json_add_time(e, keys[i], ms);
	}
}

/*
 * A schedule's recent runs and skipped firings, as two JSON arrays; ms
 * keeps their times as Unix ms for the text form to format.
 */
static int
schedule_history_json(struct client *ctx, const struct store_schedule *c,
    cJSON *o, int ms)
{
	struct store_schedule_run	*h;
	cJSON				*arr, *e;
	char				*cause = NULL;
	size_t				 n, i;
	int				 rc, skips;

	for (skips = 0; skips < 2; skips++) {
		rc = store_schedule_history(ctx->store, c->id,
		    SCHEDULE_HISTORY, skips, &h, &n, &cause);
		if (rc != 0)
			return (client_store_fail(ctx, rc, cause));
		arr = cJSON_AddArrayToObject(o, skips ? "skipped" : "runs");
		for (i = 0; i < n; i++) {
			if (skips) {
				e = json_raw(h[i].detail_json);
				if (!cJSON_IsObject(e)) {
					cJSON_Delete(e);
					e = cJSON_CreateObject();
				}
				cJSON_DeleteItemFromObject(e, "schedule");
				cJSON_DeleteItemFromObject(e, "schedule_id");
				if (ms)
					cJSON_AddNumberToObject(e, "at",
					    (double)h[i].created_at);
				else {
					schedule_skip_times(e);
					json_add_time(e, "at",
					    h[i].created_at);
				}
			} else {
				e = cJSON_CreateObject();
				cJSON_AddNumberToObject(e, "id",
				    (double)h[i].workflow_id);
				cJSON_AddStringToObject(e, "status",
				    status_run_name(h[i].status));
				if (ms)
					cJSON_AddNumberToObject(e,
					    "created_at",
					    (double)h[i].created_at);
				else {
					json_add_time(e, "fire_at",
					    h[i].fire_at);
					json_add_time(e, "created_at",
					    h[i].created_at);
					json_add_time(e, "ended_at",
					    h[i].ended_at);
				}
			}
			cJSON_AddItemToArray(arr, e);
		}
		store_schedule_runs_free(h, n);
	}
	return (0);
}

/* Print one schedule for people, with its history from o. */
static void
schedule_show_text(const struct store_schedule *c, const cJSON *o)
{
	const cJSON	*e, *v;
	char		 t1[32], next[64];

	cli_printf("schedule: %s\n", c->name);
	cli_printf("cron:     %s\n", c->cron);
	cli_printf("zone:     %s\n", c->tz != NULL ? c->tz :
	    "local (the engine's)");
	cli_printf("template: %s\n", c->template_name);
	cli_printf("input:    %s\n", c->input_json);
	cli_printf("overlap:  %s\n", c->overlap);
	cli_printf("created:  %s by %s\n", time_format(c->created_at, t1,
	    sizeof t1), c->created_by);
	cli_printf("next:     %s\n", schedule_next_text(c, next, sizeof next));
	cli_printf("last:     %s", c->last_fire_at > 0 ? time_format(
	    c->last_fire_at, t1, sizeof t1) : "-");
	if (c->last_run_id != 0)
		cli_printf(" (workflow %lld, %s)", (long long)c->last_run_id,
		    c->has_last_run ? status_run_name(c->last_run_status) :
		    "?");
	cli_printf("\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "runs")) {
		v = cJSON_GetObjectItemCaseSensitive(e, "created_at");
		cli_printf("run:      %s workflow %d %s\n",
		    time_format((int64_t)v->valuedouble, t1, sizeof t1),
		    cJSON_GetObjectItemCaseSensitive(e, "id")->valueint,
		    cJSON_GetObjectItemCaseSensitive(e, "status")->valuestring);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "skipped")) {
		v = cJSON_GetObjectItemCaseSensitive(e, "at");
		cli_printf("skipped:  %s %s\n", time_format(
		    (int64_t)v->valuedouble, t1, sizeof t1),
		    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e,
		    "reason")) ? cJSON_GetObjectItemCaseSensitive(e,
		    "reason")->valuestring : "?");
	}
}

/* schedule show NAME [--json] */
static int
cmd_schedule_show(struct client *ctx, const struct cli_args *args)
{
	struct store_schedule	*c;
	cJSON			*o;
	char			*cause = NULL;
	int			 json, rc;

	json = cli_args_has(args, "json");
	if ((rc = schedule_name_arg(args->argv[0])) != 0)
		return (rc);
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	rc = store_schedule_get(ctx->store, args->argv[0], &c, &cause);
	if (rc != 0)
		return (client_name_fail(ctx, rc, cause, CLIENT_NAME_SCHEDULE,
		    args->argv[0]));
	o = schedule_json(c);
	if ((rc = schedule_history_json(ctx, c, o, !json)) == 0) {
		if (json) {
			cli_json_out(o);
			o = NULL;
		} else
			schedule_show_text(c, o);
	}
	cJSON_Delete(o);
	store_schedule_free(c);
	return (rc);
}

/* schedule rm|pause|resume|run NAME: ask the engine. */
static int
cmd_schedule_action(struct client *ctx, const struct cli_args *cl)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	const char		*verb, *name = cl->argv[0];
	cJSON			*args;
	char			*command;
	int			 rc, run;

	verb = cl->cmd->name + strlen("schedule ");
	if ((rc = schedule_name_arg(name)) != 0)
		return (rc);
	run = strcmp(verb, "run") == 0;
	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "name", name);
	xasprintf(&command, "schedule-%s", verb);
	memset(&q, 0, sizeof q);
	q.command = command;
	q.args_json = json_print(args);
	cJSON_Delete(args);
	/* A name that is not there gets the closest one that is. */
	if ((rc = client_ask(ctx, &q, &r)) == 0) {
		if (r.code == EXIT_NOTFOUND && r.message != NULL)
			rc = client_name_fail(ctx, STORE_NOTFOUND,
			    xstrdup(r.message), CLIENT_NAME_SCHEDULE, name);
		else
			rc = cli_reply(ctx, &r, run);
	}
	if (rc == 0 && run)
		cli_printf("%lld\n", (long long)r.workflow_id);
	else if (rc == 0 && strcmp(verb, "resume") == 0)
		schedule_print_next(ctx, name);
	free((char *)q.args_json);
	free(command);
	engine_reply_clear(&r);
	return (rc);
}
