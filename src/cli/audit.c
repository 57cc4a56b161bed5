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
 * audit.c: "sluice audit" shows the append-only audit trail; --verify
 * checks its hash chain (store/chain.c) and says where it breaks.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_audit_run(struct client *, const struct cli_args *);
static void	cmd_audit_json(const struct store_audit *, size_t);
static void	cmd_audit_text(const struct store_audit *, size_t);
static int	cmd_audit_verify(struct client *, int);

static const struct cli_opt cmd_audit_opts[] = {
	{ "limit", 0, "N", 0, "at most N entries (default 50)" },
	{ "verify", 0, NULL, 0,
	    "check the trail's hash chain; exit 1 when it is broken" },
	{ "json", 0, NULL, 0, "a JSON array (with --verify, an object)" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_audit = {
	.name = "audit",
	.summary = "Show the audit trail of operator actions, newest first.",
	.opts = cmd_audit_opts,
	.run = cmd_audit_run
};

/* Print audit entries as a JSON array. */
static void
cmd_audit_json(const struct store_audit *a, size_t n)
{
	cJSON	*arr, *o;
	size_t	 i;

	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", (double)a[i].id);
		json_add_time(o, "at", a[i].at);
		cJSON_AddStringToObject(o, "who", a[i].who);
		cJSON_AddNumberToObject(o, "uid", (double)a[i].uid);
		cJSON_AddStringToObject(o, "tty",
		    a[i].tty != NULL ? a[i].tty : "");
		cJSON_AddStringToObject(o, "host",
		    a[i].host != NULL ? a[i].host : "");
		/* "mcp": an agent's client did it; null: a person. */
		if (a[i].via != NULL)
			cJSON_AddStringToObject(o, "via", a[i].via);
		else
			cJSON_AddNullToObject(o, "via");
		/* Cluster mode: the node whose socket took the command. */
		if (a[i].node != NULL)
			cJSON_AddStringToObject(o, "node", a[i].node);
		cJSON_AddStringToObject(o, "action", a[i].action);
		cJSON_AddStringToObject(o, "target",
		    a[i].target != NULL ? a[i].target : "");
		if (a[i].workflow_id > 0)
			cJSON_AddNumberToObject(o, "workflow_id",
			    (double)a[i].workflow_id);
		if (a[i].step_id > 0)
			cJSON_AddNumberToObject(o, "step_id",
			    (double)a[i].step_id);
		if (a[i].comment != NULL)
			cJSON_AddStringToObject(o, "comment", a[i].comment);
		else
			cJSON_AddNullToObject(o, "comment");
		cJSON_AddItemToObject(o, "detail",
		    json_raw(a[i].detail_json));
		cJSON_AddStringToObject(o, "hash",
		    a[i].hash != NULL ? a[i].hash : "");
		cJSON_AddItemToArray(arr, o);
	}
	cli_json_out(arr);
}

/* Print audit entries as a table for people. */
static void
cmd_audit_text(const struct store_audit *a, size_t n)
{
	static const char	*header[] = { "WHEN", "WHO", "ACTION", "TARGET",
	    "COMMENT" };
	struct cli_table	*t;
	const char		*cells[5];
	char			 when[32], *who, *on;
	size_t			 i;

	t = cli_table_create(header, nitems(header));
	cli_table_flex(t, "...ff");
	for (i = 0; i < n; i++) {
		cells[0] = time_format(a[i].at, when, sizeof when);
		if (a[i].via != NULL)
			xasprintf(&who, "%s via %s", a[i].who, a[i].via);
		else
			who = xstrdup(a[i].who);
		if (a[i].node != NULL) {
			xasprintf(&on, "%s on %s", who, a[i].node);
			free(who);
			who = on;
		}
		cells[1] = who;
		cells[2] = a[i].action;
		cells[3] = a[i].target;
		cells[4] = a[i].comment != NULL ? a[i].comment : "";
		cli_table_add(t, cells);
		free(who);
	}
	cli_table_print(t, "no audit entries");
}

/*
 * audit --verify: every problem on stdout (the first break in the chain
 * first), a summary on stderr; exit 0 when the trail is intact, else 1.
 */
static int
cmd_audit_verify(struct client *ctx, int json)
{
	struct store_verify	 v;
	cJSON			*o, *arr;
	char			*cause = NULL;
	size_t			 i;
	int			 rc;

	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_audit_verify(ctx->store, &v, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	if (json) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "intact", v.nproblems == 0);
		cJSON_AddNumberToObject(o, "rows", (double)v.rows);
		cJSON_AddStringToObject(o, "head", v.head);
		if (v.bad_row != 0)
			cJSON_AddNumberToObject(o, "first_bad_row",
			    (double)v.bad_row);
		else
			cJSON_AddNullToObject(o, "first_bad_row");
		arr = cJSON_AddArrayToObject(o, "problems");
		for (i = 0; i < v.nproblems; i++)
			cJSON_AddItemToArray(arr,
			    cJSON_CreateString(v.problems[i]));
		cli_json_out(o);
	} else if (v.nproblems == 0) {
		cli_printf("audit trail intact: %lld rows, head %s\n",
		    (long long)v.rows, v.head);
	} else {
		for (i = 0; i < v.nproblems; i++)
			cli_printf("%s\n", v.problems[i]);
	}
	if (v.nproblems > 0)
		cli_error("the audit trail does not verify: %s",
		    v.problems[0]);
	rc = v.nproblems == 0 ? EXIT_OK : EXIT_FAILED;
	store_verify_clear(&v);
	return (rc);
}

/* Print audit entries as a table or a JSON array. */
static int
cmd_audit_run(struct client *ctx, const struct cli_args *args)
{
	struct store_audit	*a;
	const char		*s;
	char			*cause = NULL;
	int64_t			 limit = 50;
	size_t			 n;
	int			 json, rc;

	json = cli_args_has(args, "json");
	if ((s = cli_args_get(args, "limit")) != NULL &&
	    cli_parse_limit(s, &limit) != 0)
		return (EXIT_USAGE);
	if (cli_args_has(args, "verify"))
		return (cmd_audit_verify(ctx, json));
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_audit_list(ctx->store, limit, &a, &n, &cause)) != 0)
		return (client_store_fail(ctx, rc, cause));
	if (json)
		cmd_audit_json(a, n);
	else
		cmd_audit_text(a, n);
	store_audits_free(a, n);
	return (EXIT_OK);
}
