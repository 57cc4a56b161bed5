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
 * config.c: the site's settings, config.json: the default retry and
 * timeout of steps, whether a workflow's starter may approve its gates
 * (allow_self), how many step processes an engine runs at once, and the
 * commands run on events (notify, parsed by engine/notify-config.c).
 * Read from $XDG_CONFIG_HOME/sluice/config.json (~/.config/sluice/...),
 * else SYSCONFDIR/sluice/config.json; a bad file is refused with its
 * place.
 */

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

/* Where config.json is, or NULL. */
static char *
cli_config_path(void)
{
	const char	*env, *home;
	char		*path = NULL;
	struct stat	 sb;

	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env != '\0')
		xasprintf(&path, "%s/sluice/config.json", env);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&path, "%s/.config/sluice/config.json", home);
	if (path != NULL && stat(path, &sb) == 0)
		return (path);
	free(path);
	xasprintf(&path, "%s/sluice/config.json", SYSCONFDIR);
	if (stat(path, &sb) == 0)
		return (path);
	free(path);
	return (NULL);
}

/*
 * The default retry and timeout, parsed and checked exactly as a tool's
 * are: as the tool "defaults" of a one-tool catalog.
 */
static int
cli_config_defaults(struct cli_ctx *ctx, const char *path, cJSON *cfg)
{
	struct flow_diags	*d;
	const struct flow_diag	*dg;
	cJSON			*cat, *t, *v;
	char			*text;

	cat = cJSON_CreateObject();
	t = cJSON_AddObjectToObject(cat, "defaults");
	cJSON_AddItemToObject(t, "run", cJSON_CreateStringArray(
	    (const char *[]){ "true" }, 1));
	if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "retry")) != NULL)
		cJSON_AddItemToObject(t, "retry", cJSON_Duplicate(v, 1));
	if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "timeout")) != NULL)
		cJSON_AddItemToObject(t, "timeout", cJSON_Duplicate(v, 1));
	text = json_print(cat);
	cJSON_Delete(cat);
	d = flow_diags_create();
	ctx->site = flow_tools_parse(text, strlen(text), d);
	free(text);
	if (ctx->site == NULL || flow_diags_errors(d) > 0) {
		TAILQ_FOREACH(dg, d, entry) {
			if (dg->severity == FLOW_ERROR)
				cli_error("%s: $%s: %s", path, dg->path +
				    strlen("$.defaults"), dg->message);
		}
		flow_diags_free(d);
		return (EXIT_USAGE);
	}
	flow_diags_free(d);
	return (0);
}

/* "notify": the commands run on events, each problem with its path. */
static int
cli_config_notify(struct cli_ctx *ctx, const char *path, const cJSON *v)
{
	char	**errs;
	size_t	  n, i;

	if (v == NULL)
		return (0);
	if ((ctx->notify = notify_config_parse(v, &errs, &n)) != NULL)
		return (0);
	for (i = 0; i < n; i++) {
		cli_error("%s: %s", path, errs[i]);
		free(errs[i]);
	}
	free(errs);
	return (EXIT_USAGE);
}

/* Read config.json into an engine's options; 0 or an exit status. */
int
cli_config(struct cli_ctx *ctx, struct engine_opts *opts)
{
	cJSON		*cfg, *v;
	char		*path, *text, *cause = NULL;
	size_t		 len;
	int		 rc = 0;

	opts->allow_self = 1;
	if ((path = cli_config_path()) == NULL)
		return (0);
	if ((text = file_read(path, SLUICE_MAX_DOCUMENT, &len, &cause)) == NULL ||
	    (cfg = json_parse(text, len, &cause)) == NULL) {
		cli_error("config %s: %s", path, cause);
		free(cause);
		free(text);
		free(path);
		return (EXIT_USAGE);
	}
	free(text);
	if (!cJSON_IsObject(cfg)) {
		cli_error("%s: $: expected an object, not %s", path,
		    json_type_name(cfg));
		cJSON_Delete(cfg);
		free(path);
		return (EXIT_USAGE);
	}
	v = cJSON_GetObjectItemCaseSensitive(cfg, "allow_self");
	if (v != NULL && !cJSON_IsBool(v)) {
		cli_error("%s: $.allow_self: expected true or false", path);
		rc = EXIT_USAGE;
	} else if (v != NULL)
		opts->allow_self = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(cfg, "jobs");
	if (v != NULL && (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
	    v->valuedouble > 10000 || v->valuedouble != (int)v->valuedouble)) {
		cli_error("%s: $.jobs: expected a whole number from 1 to 10000",
		    path);
		rc = EXIT_USAGE;
	} else if (v != NULL && opts->max_jobs == 0)
		opts->max_jobs = v->valueint;
	if (cli_config_notify(ctx, path, cJSON_GetObjectItemCaseSensitive(cfg,
	    "notify")) != 0)
		rc = EXIT_USAGE;
	else
		opts->notify = ctx->notify;
	if (rc == 0 && (rc = cli_config_defaults(ctx, path, cfg)) == 0)
		opts->site = flow_tools_find(ctx->site, "defaults");
	cJSON_Delete(cfg);
	free(path);
	return (rc);
}
