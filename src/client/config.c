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
 * config.c: the settings, config.json.  The site's file,
 * SYSCONFDIR/sluice/config.json, holds policy: whether a workflow's
 * starter may approve its gates (allow_self), whether agents (sluice
 * mcp) may decide gates that do not say (agents), who may operate
 * (operators), how many step processes an engine runs at once (jobs),
 * the commands run on events (notify, parsed by engine/notify-config.c)
 * and which templates may use each site secret (secrets,
 * config-secrets.c).
 * A user's $XDG_CONFIG_HOME/sluice/config.json holds personal
 * preferences only (the default retry and timeout of steps); policy keys
 * there are ignored with a warning.  A bad file is refused with its
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
#include "client/client.h"

/*
 * The site's config.json: SYSCONFDIR/sluice/config.json.  Test builds
 * (--enable-test-clock) let $SLUICE_SITE_CONFIG name another file, so the
 * suite can set site policy without root; other builds ignore it.
 */
char *
client_config_site_path(void)
{
	char		*path;
#ifdef SLUICE_TEST_CLOCK
	const char	*env;

	if ((env = getenv("SLUICE_SITE_CONFIG")) != NULL && *env != '\0')
		return (xstrdup(env));
#endif
	xasprintf(&path, "%s/sluice/config.json", SYSCONFDIR);
	return (path);
}

/* The user's own config.json (personal preferences), or NULL. */
static char *
client_config_user_path(void)
{
	const char	*env, *home;
	char		*path = NULL;

	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env != '\0')
		xasprintf(&path, "%s/sluice/config.json", env);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&path, "%s/.config/sluice/config.json", home);
	return (path);
}

/* The config files that exist (site, user), each NULL when it does not. */
void
client_config_files(char **sitep, char **userp)
{
	struct stat	 sb;

	*sitep = client_config_site_path();
	*userp = client_config_user_path();
	if (*sitep != NULL && stat(*sitep, &sb) != 0) {
		free(*sitep);
		*sitep = NULL;
	}
	if (*userp != NULL && stat(*userp, &sb) != 0) {
		free(*userp);
		*userp = NULL;
	}
}

/* Read a config file, NULL and no error when it does not exist. */
int
client_config_read(const struct client *cl, const char *path, cJSON **cfgp)
{
	struct stat	 sb;
	char		*text, *cause = NULL;
	size_t		 len;

	*cfgp = NULL;
	if (path == NULL || stat(path, &sb) != 0)
		return (0);
	if ((text = file_read(path, SLUICE_MAX_DOCUMENT, &len,
	    &cause)) == NULL || (*cfgp = json_parse(text, len,
	    &cause)) == NULL) {
		client_error(cl, "config %s: %s", path, cause);
		free(cause);
		free(text);
		return (EXIT_USAGE);
	}
	free(text);
	if (!cJSON_IsObject(*cfgp)) {
		client_error(cl, "%s: expected a JSON object", path);
		cJSON_Delete(*cfgp);
		*cfgp = NULL;
		return (EXIT_USAGE);
	}
	return (0);
}

/*
 * Policy keys a user's own file may not set: they are the site's alone.
 * Each is ignored there, with a warning saying where it belongs.
 */
static const char *client_config_policy[] = {
	"allow_self", "agents", "operators", "jobs", "notify", "retention",
	"cluster", "database"
};

/* Drop the site's keys from a user's file, warning about each. */
static void
client_config_personal(struct client *cl, const char *path, cJSON *cfg,
    const char *site)
{
	size_t	 i;

	for (i = 0; i < nitems(client_config_policy); i++) {
		if (cJSON_GetObjectItemCaseSensitive(cfg,
		    client_config_policy[i]) == NULL)
			continue;
		client_warn(cl, "%s: $.%s is site policy, ignored here (set it in "
		    "%s)", path, client_config_policy[i], site);
		cJSON_DeleteItemFromObjectCaseSensitive(cfg,
		    client_config_policy[i]);
	}
}

/* "operators": user names and @group names; 0 or an exit status. */
static int
client_config_operators(struct client *cl, const char *path,
    const cJSON *v, struct authority_site *a)
{
	const cJSON	*e;
	int		 i = 0;

	if (v == NULL)
		return (0);
	if (!cJSON_IsArray(v)) {
		client_error(cl, "%s: $.operators: expected an array of user and "
		    "@group names", path);
		return (EXIT_USAGE);
	}
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '\0' ||
		    strcmp(e->valuestring, "@") == 0) {
			client_error(cl, "%s: $.operators[%d]: expected a user or "
			    "@group name", path, i);
			return (EXIT_USAGE);
		}
		i++;
	}
	a->has_operators = 1;
	a->noperators = (size_t)i;
	a->operators = xcalloc(a->noperators + 1, sizeof *a->operators);
	i = 0;
	cJSON_ArrayForEach(e, v)
		a->operators[i++] = xstrdup(e->valuestring);
	return (0);
}

/*
 * The default retry and timeout, parsed and checked exactly as a tool's
 * are: as the tool "defaults" of a one-tool catalog.
 */
static int
client_config_defaults(struct client *cl, const char *path, cJSON *cfg)
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
	cl->site = flow_tools_parse(text, strlen(text), d);
	free(text);
	if (cl->site == NULL || flow_diags_errors(d) > 0) {
		TAILQ_FOREACH(dg, d, entry) {
			if (dg->severity == FLOW_ERROR)
				client_error(cl, "%s: $%s: %s", path, dg->path +
				    strlen("$.defaults"), dg->message);
		}
		flow_diags_free(d);
		return (EXIT_USAGE);
	}
	flow_diags_free(d);
	return (0);
}

/* "retention": how long finished runs are kept; 0 or an exit status. */
static int
client_config_retention(struct client *cl, const char *path,
    const cJSON *v,
    struct engine_opts *opts)
{
	const char	*why;
	int64_t		 ms;

	if (v == NULL)
		return (0);
	if (flow_duration_json(v, &ms, &why) != 0) {
		client_error(cl, "%s: $.retention: %s", path, why);
		return (EXIT_USAGE);
	}
	/* A slip such as "90s" for "90d" must not empty the database. */
	if (ms < 3600 * 1000) {
		client_error(cl, "%s: $.retention: at least \"1h\"", path);
		return (EXIT_USAGE);
	}
	opts->retention = ms;
	return (0);
}

/* "notify": the commands run on events, each problem with its path. */
static int
client_config_notify(struct client *cl, const char *path, const cJSON *v)
{
	char	**errs;
	size_t	  n, i;

	if (v == NULL)
		return (0);
	if ((cl->notify = notify_config_parse(v, &errs, &n)) != NULL)
		return (0);
	for (i = 0; i < n; i++) {
		client_error(cl, "%s: %s", path, errs[i]);
		free(errs[i]);
	}
	free(errs);
	return (EXIT_USAGE);
}

/*
 * Merge the site's file and the user's personal one (the user's wins for
 * the keys it may set) into one object.
 */
static int
client_config_load(struct client *cl, cJSON **cfgp, char **sitep,
    char **userp, int *personal)
{
	cJSON	*site = NULL, *user = NULL, *v;
	int	 rc;

	*cfgp = NULL;
	*personal = 0;
	*sitep = client_config_site_path();
	*userp = client_config_user_path();
	if ((rc = client_config_read(cl, *sitep, &site)) != 0 ||
	    (rc = client_config_read(cl, *userp, &user)) != 0) {
		cJSON_Delete(site);
		return (rc);
	}
	if (user != NULL) {
		client_config_personal(cl, *userp, user, *sitep);
		if (site == NULL)
			site = cJSON_CreateObject();
		while ((v = user->child) != NULL) {
			cJSON_DetachItemViaPointer(user, v);
			cJSON_DeleteItemFromObjectCaseSensitive(site,
			    v->string);
			cJSON_AddItemToObject(site, v->string, v);
			*personal = 1;
		}
		cJSON_Delete(user);
	}
	*cfgp = site;
	return (0);
}

/*
 * Read config.json into an engine's options; 0 or an exit status.  Site
 * policy (allow_self, operators, jobs, notify) comes only from the site
 * file; the user's file may set retry and timeout.
 */
int
client_config(struct client *cl, struct engine_opts *opts)
{
	cJSON		*cfg, *v;
	char		*path, *user;
	int		 rc = 0, personal;

	/*
	 * Read again (cli_authorize, then the engine's options): what an
	 * earlier read left is dropped, as nothing holds it any more.
	 */
	strv_free(cl->authority.operators);
	memset(&cl->authority, 0, sizeof cl->authority);
	notify_config_free(cl->notify);
	cl->notify = NULL;
	if (cl->site != NULL)
		flow_tools_free(cl->site);
	cl->site = NULL;
	opts->authority.allow_self = 1;
	if ((rc = client_config_load(cl, &cfg, &path, &user, &personal)) != 0 ||
	    cfg == NULL) {
		free(path);
		free(user);
		return (rc);
	}
	v = cJSON_GetObjectItemCaseSensitive(cfg, "allow_self");
	if (v != NULL && !cJSON_IsBool(v)) {
		client_error(cl, "%s: $.allow_self: expected true or false", path);
		rc = EXIT_USAGE;
	} else if (v != NULL)
		opts->authority.allow_self = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(cfg, "agents");
	if (v != NULL && !cJSON_IsBool(v)) {
		client_error(cl, "%s: $.agents: expected true or false", path);
		rc = EXIT_USAGE;
	} else if (v != NULL)
		opts->authority.agents = cJSON_IsTrue(v);
	if (client_config_operators(cl, path, cJSON_GetObjectItemCaseSensitive(cfg,
	    "operators"), &cl->authority) != 0)
		rc = EXIT_USAGE;
	else {
		opts->authority.has_operators = cl->authority.has_operators;
		opts->authority.operators = cl->authority.operators;
		opts->authority.noperators = cl->authority.noperators;
	}
	v = cJSON_GetObjectItemCaseSensitive(cfg, "jobs");
	if (v != NULL && (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
	    v->valuedouble > 10000 || v->valuedouble != (int)v->valuedouble)) {
		client_error(cl, "%s: $.jobs: expected a whole number from 1 to 10000",
		    path);
		rc = EXIT_USAGE;
	} else if (v != NULL && opts->max_jobs == 0)
		opts->max_jobs = v->valueint;
	if (client_config_retention(cl, path, cJSON_GetObjectItemCaseSensitive(cfg,
	    "retention"), opts) != 0)
		rc = EXIT_USAGE;
	if (client_config_notify(cl, path, cJSON_GetObjectItemCaseSensitive(cfg,
	    "notify")) != 0)
		rc = EXIT_USAGE;
	else
		opts->notify = cl->notify;
	if (client_config_cluster(cl, path,
	    cJSON_GetObjectItemCaseSensitive(cfg, "cluster"), opts) != 0)
		rc = EXIT_USAGE;
	if (client_config_secrets(cl, path,
	    cJSON_GetObjectItemCaseSensitive(cfg, "secrets")) != 0)
		rc = EXIT_USAGE;
	else {
		opts->secrets = cl->secrets;
		opts->nsecrets = cl->nsecrets;
	}
	if (rc == 0 && (rc = client_config_defaults(cl, personal ? user : path,
	    cfg)) == 0)
		opts->site = flow_tools_find(cl->site, "defaults");
	cJSON_Delete(cfg);
	free(path);
	free(user);
	return (rc);
}

/*
 * An engine's settings: config.json, then the environment (tests); and
 * the files they came from, for its messages and reloads.
 */
int
client_engine_opts(struct client *cl, struct engine_opts *opts)
{
	const char	*v;
	char		*user;
	int64_t		 n;
	int		 rc;

	if ((rc = client_config(cl, opts)) != 0)
		return (rc);
	free(cl->tools_file);
	free(cl->config_file);
	cl->tools_file = client_tools_file(cl);
	client_config_files(&cl->config_file, &user);
	free(user);
	opts->tools_path = cl->tools_file;
	opts->config_path = cl->config_file;
	if ((v = getenv("SLUICE_KILL_GRACE_MS")) != NULL &&
	    str_parse_int64(v, &n) == 0 && n > 0)
		opts->kill_grace = n;
	return (0);
}
