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
 * template-versions.c: "sluice template history" and "template diff".  An
 * operator asking "what changed since the run that worked?" reads the
 * versions with who saved them and how their runs went, then a unified
 * diff between two of them.  Both work on removed templates too: a
 * removal is soft and the versions stay readable.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 versions_parse(const char *, int64_t *);
static void	 versions_table(struct store_template_version *, size_t,
		    int64_t);
static char	*versions_label(const struct store_template *);

/* A version argument: "3" or "v3"; returns 0, or -1 after saying why. */
static int
versions_parse(const char *arg, int64_t *version)
{
	const char	*p = arg;

	if (*p == 'v' || *p == 'V')
		p++;
	if (str_parse_int64(p, version) != 0 || *version < 1) {
		cli_error("bad version \"%s\": a number from 1, such as 3 "
		    "or v3", arg);
		return (-1);
	}
	return (0);
}

/* Print the history as a table, newest last, as it grew. */
static void
versions_table(struct store_template_version *v, size_t n,
    int64_t removed_at)
{
	static const char	*head[] = {
		"VERSION", "SAVED", "BY", "RUNS", "COMPLETED", "DESCRIPTION"
	};
	struct cli_table	*t;
	const char		*cols[nitems(head)];
	char			 ver[32], when[64], runs[32], done[32];
	size_t			 i;

	t = cli_table_create(head, nitems(head));
	cli_table_flex(t, ".....f");
	for (i = 0; i < n; i++) {
		snprintf(ver, sizeof ver, "%lld", (long long)v[i].version);
		snprintf(runs, sizeof runs, "%lld", (long long)v[i].runs);
		snprintf(done, sizeof done, "%lld", (long long)v[i].completed);
		cols[0] = ver;
		cols[1] = time_format(v[i].saved_at, when, sizeof when);
		cols[2] = v[i].saved_by != NULL ? v[i].saved_by : "-";
		cols[3] = runs;
		cols[4] = done;
		cols[5] = v[i].description != NULL ? v[i].description : "";
		cli_table_add(t, cols);
	}
	cli_table_print(t, "no versions");
	if (removed_at != 0) {
		cli_printf("removed %s; its versions are kept\n",
		    time_format(removed_at, when, sizeof when));
	}
}

/* "sluice template history NAME [--json]". */
int
cli_template_history(struct client *ctx, const struct cli_args *args)
{
	struct store_template_version	*v;
	size_t				 n, i;
	int64_t				 removed_at;
	char				*cause;
	cJSON				*o, *a, *e;
	int				 json, rc;

	json = cli_args_has(args, "json");
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_template_history(ctx->store, args->argv[0], &v, &n,
	    &removed_at, &cause)) != 0)
		return (client_name_fail(ctx, rc, cause, CLIENT_NAME_TEMPLATE,
		    args->argv[0]));
	if (json) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", args->argv[0]);
		json_add_time(o, "removed_at", removed_at);
		a = cJSON_AddArrayToObject(o, "versions");
		for (i = 0; i < n; i++) {
			e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "version",
			    (double)v[i].version);
			json_add_time(e, "saved_at", v[i].saved_at);
			cJSON_AddStringToObject(e, "saved_by",
			    v[i].saved_by != NULL ? v[i].saved_by : "");
			if (v[i].description != NULL)
				cJSON_AddStringToObject(e, "description",
				    v[i].description);
			else
				cJSON_AddNullToObject(e, "description");
			cJSON_AddNumberToObject(e, "runs", (double)v[i].runs);
			cJSON_AddNumberToObject(e, "completed",
			    (double)v[i].completed);
			cJSON_AddItemToArray(a, e);
		}
		cli_json_out(o);
	} else
		versions_table(v, n, removed_at);
	store_template_versions_free(v, n);
	return (EXIT_OK);
}

/* How one side of a diff is named: "NAME v3 (saved WHEN by WHO)". */
static char *
versions_label(const struct store_template *t)
{
	char	 when[64], *s;

	xasprintf(&s, "%s v%lld (saved %s by %s)", t->name,
	    (long long)t->version, time_format(t->updated_at, when,
	    sizeof when), t->updated_by != NULL ? t->updated_by : "-");
	return (s);
}

/*
 * "sluice template diff NAME [V1 [V2]] [--pretty]": with no versions the
 * latest against the one before it, with one that version against the
 * latest; the saved texts, unless --pretty.
 */
int
cli_template_diff(struct client *ctx, const struct cli_args *args)
{
	struct store_template	*t1 = NULL, *t2 = NULL, *latest = NULL;
	const char		*name;
	char			*cause, *d, *l1, *l2, *v;
	int64_t			 v1 = 0, v2 = 0;
	int			 rc, nargs;

	nargs = args->argc;
	name = args->argv[0];
	if ((nargs > 1 && versions_parse(args->argv[1], &v1) != 0) ||
	    (nargs > 2 && versions_parse(args->argv[2], &v2) != 0))
		return (EXIT_USAGE);
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	if ((rc = store_template_get_any(ctx->store, name, 0, &latest,
	    &cause)) != 0)
		return (client_name_fail(ctx, rc, cause, CLIENT_NAME_TEMPLATE,
		    name));
	if (nargs == 1) {
		if (latest->version < 2) {
			cli_printf("template \"%s\" has only version 1: "
			    "nothing to compare\n", name);
			store_template_free(latest);
			return (EXIT_OK);
		}
		v1 = latest->version - 1;
	}
	if (v2 == 0)
		v2 = latest->version;
	store_template_free(latest);
	if ((rc = store_template_get_any(ctx->store, name, v1, &t1,
	    &cause)) != 0 || (rc = store_template_get_any(ctx->store, name,
	    v2, &t2, &cause)) != 0) {
		store_template_free(t1);
		return (client_store_fail(ctx, rc, cause));
	}
	l1 = versions_label(t1);
	l2 = versions_label(t2);
	if ((d = diff_documents(t1->document, t2->document, l1, l2,
	    cli_args_has(args, "pretty"))) == NULL) {
		cli_printf("versions %lld and %lld of \"%s\" are the same\n",
		    (long long)v1, (long long)v2, name);
	} else {
		/*
		 * Documents are the operator's own text, but may hold any:
		 * escaped as template show escapes them, so the diff
		 * applies to what show prints.
		 */
		v = vis_str(d, VIS_NL | VIS_TAB | VIS_JSON);
		fputs(v, stdout);
		free(v);
		free(d);
	}
	free(l1);
	free(l2);
	store_template_free(t1);
	store_template_free(t2);
	return (EXIT_OK);
}
