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
 * secret.c: site secrets (SPEC §13).  A secret is a file read when a
 * process needs it and never stored: $CREDENTIALS_DIRECTORY/NAME (systemd's
 * LoadCredential=), $XDG_CONFIG_HOME/sluice/secrets/NAME (personal mode),
 * then SYSCONFDIR/sluice/secrets/NAME.  A file others could read is
 * refused with the reason, as ssh refuses a key: a secret that leaked to
 * the group is no secret, and using it would hide that.  The site's
 * config says which templates may use each secret; a run of any other
 * flow that names one is refused before anything is recorded.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "engine/engine-int.h"

#define SECRET_MAX	(64 * 1024)	/* bytes of one secret */

static char	*secret_site_dir(void);
static char	*secret_personal_dir(void);
static int	 secret_read_file(const char *, int, char **, size_t *,
		     char **);
static void	 secret_refs_text(const char *, char ***, size_t *);
static void	 secret_refs_tool(const struct flow_tool *, char ***,
		     size_t *);
static void	 secret_refs_tools(const struct flow_tools *, const cJSON *,
		     char ***, size_t *, int);

/*
 * The site's secrets directory.  Test builds let $SLUICE_SITE_SECRETS
 * name another, as $SLUICE_SITE_CONFIG names another config.json.
 */
static char *
secret_site_dir(void)
{
	char		*path;
#ifdef SLUICE_TEST_CLOCK
	const char	*env;

	if ((env = getenv("SLUICE_SITE_SECRETS")) != NULL && *env != '\0')
		return (xstrdup(env));
#endif
	xasprintf(&path, "%s/sluice/secrets", SYSCONFDIR);
	return (path);
}

/* The user's own secrets directory, or NULL with no home. */
static char *
secret_personal_dir(void)
{
	const char	*env, *home;
	char		*path = NULL;

	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env != '\0')
		xasprintf(&path, "%s/sluice/secrets", env);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&path, "%s/.config/sluice/secrets", home);
	return (path);
}

/*
 * Read one secret file: 1 read, 0 absent, -1 refused or unreadable.
 * With strict, only a regular file of this account that nobody else may
 * read or write is taken (systemd's credentials directory is already
 * the service's alone, whoever owns the files in it).
 */
static int
secret_read_file(const char *path, int strict, char **valuep, size_t *lenp,
    char **cause)
{
	struct stat	 sb;
	char		*v;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (0);
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		xasprintf(cause, "%s: not a regular file", path);
		goto fail;
	}
	if (strict && sb.st_uid != geteuid()) {
		xasprintf(cause, "%s: refused: owned by uid %lu, not by this "
		    "account (uid %lu)", path, (unsigned long)sb.st_uid,
		    (unsigned long)geteuid());
		goto fail;
	}
	if (strict && (sb.st_mode & 077) != 0) {
		xasprintf(cause, "%s: refused: mode %04o lets others read or "
		    "change it (chmod 600 it)", path,
		    (unsigned)(sb.st_mode & 07777));
		goto fail;
	}
	if (sb.st_size > SECRET_MAX) {
		xasprintf(cause, "%s: larger than %d bytes", path, SECRET_MAX);
		goto fail;
	}
	v = xmalloc(SECRET_MAX + 1);
	while (len < SECRET_MAX &&
	    (n = read(fd, v + len, SECRET_MAX - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			xasprintf(cause, "%s: %s", path, strerror(errno));
			explicit_bzero(v, len);
			free(v);
			goto fail;
		}
		len += (size_t)n;
	}
	close(fd);
	/* One trailing newline is the editor's, not the secret's. */
	if (len > 0 && v[len - 1] == '\n')
		len--;
	if (len > 0 && v[len - 1] == '\r')
		len--;
	v[len] = '\0';
	*valuep = v;
	*lenp = len;
	return (1);
fail:
	close(fd);
	return (-1);
}

/*
 * Read a site secret by name, looking in the credentials directory, the
 * user's own, then the site's.  0 with a new string, or -1 and why.
 */
int
engine_secret_read(const char *name, char **valuep, char **cause)
{
	const char	*creds;
	char		*dir, *path;
	size_t		 len;
	int		 i, rc = 0;

	*valuep = NULL;
	if (!flow_secret_name_ok(name)) {
		xasprintf(cause, "secret \"%s\": not a valid name", name);
		return (-1);
	}
	for (i = 0; i < 3 && rc == 0; i++) {
		if (i == 0) {
			creds = getenv("CREDENTIALS_DIRECTORY");
			dir = creds != NULL && *creds != '\0' ?
			    xstrdup(creds) : NULL;
		} else
			dir = i == 1 ? secret_personal_dir() :
			    secret_site_dir();
		if (dir == NULL)
			continue;
		xasprintf(&path, "%s/%s", dir, name);
		rc = secret_read_file(path, i != 0, valuep, &len, cause);
		free(path);
		free(dir);
	}
	if (rc == 0) {
		dir = secret_site_dir();
		xasprintf(cause, "secret \"%s\" not found (put it in %s/%s, "
		    "mode 600)", name, dir, name);
		free(dir);
	}
	return (rc == 1 ? 0 : -1);
}

/* Add the secrets a string names to the list. */
static void
secret_refs_text(const char *s, char ***namesp, size_t *np)
{
	cJSON	*v;

	if (s == NULL || strstr(s, "secrets") == NULL)
		return;
	if ((v = cJSON_CreateString(s)) == NULL)
		fatalx("%s: out of memory", __func__);
	flow_secret_refs(v, namesp, np);
	cJSON_Delete(v);
}

/* Add the secrets a catalog tool's environment names. */
static void
secret_refs_tool(const struct flow_tool *t, char ***namesp, size_t *np)
{
	size_t	i;

	for (i = 0; t != NULL && i < t->nenv; i++)
		secret_refs_text(t->env[i].value, namesp, np);
}

/* Add the secrets of every catalog tool a flow's steps name. */
static void
secret_refs_tools(const struct flow_tools *tools, const cJSON *v,
    char ***namesp, size_t *np, int depth)
{
	const cJSON	*c;

	if (v == NULL || depth > CJSON_NESTING_LIMIT)
		return;
	for (c = v->child; c != NULL; c = c->next) {
		if (c->string != NULL && strcmp(c->string, "tool") == 0 &&
		    cJSON_IsString(c))
			secret_refs_tool(flow_tools_find(tools,
			    c->valuestring), namesp, np);
		else
			secret_refs_tools(tools, c, namesp, np, depth + 1);
	}
}

/*
 * The site secrets a flow uses: those its own text names and those of
 * the catalog tools its steps run.
 */
void
engine_secret_names(const struct flow_tools *tools, const char *flow_json,
    char ***namesp, size_t *np)
{
	cJSON	*v;

	*namesp = NULL;
	*np = 0;
	if (flow_json == NULL || (v = cJSON_Parse(flow_json)) == NULL)
		return;
	flow_secret_refs(v, namesp, np);
	secret_refs_tools(tools, v, namesp, np, 0);
	cJSON_Delete(v);
}

/* The secrets one step's environment names (its own and its tool's). */
void
engine_secret_step_names(const struct flow_step *st,
    const struct flow_tool *t, char ***namesp, size_t *np)
{
	size_t	i;

	*namesp = NULL;
	*np = 0;
	secret_refs_tool(t, namesp, np);
	for (i = 0; i < st->nenv; i++)
		secret_refs_text(st->env[i].value, namesp, np);
}

/*
 * May a run of this template (NULL: a flow from a file) use these
 * secrets?  0, or -1 with the first refusal.
 */
int
engine_secret_allowed(const struct engine_opts *opts, const char *template,
    char **names, size_t n, char **cause)
{
	const struct secret_rule	*r;
	size_t				 i, j, k;

	for (i = 0; i < n; i++) {
		r = NULL;
		for (j = 0; j < opts->nsecrets; j++) {
			if (strcmp(opts->secrets[j].name, names[i]) == 0)
				r = &opts->secrets[j];
		}
		if (template == NULL) {
			xasprintf(cause, "refused: secret \"%s\" may be used "
			    "only by a saved template the site allows, not by "
			    "a flow from a file", names[i]);
			return (-1);
		}
		for (k = 0; r != NULL && k < r->ntemplates; k++) {
			if (fnmatch(r->templates[k], template, 0) == 0)
				break;
		}
		if (r == NULL || k == r->ntemplates) {
			xasprintf(cause, "refused: template \"%s\" may not use "
			    "secret \"%s\" (the site config's "
			    "$.secrets.%s.templates does not name it)",
			    template, names[i], names[i]);
			return (-1);
		}
	}
	return (0);
}

/*
 * Does the site's policy name this template for any secret?  Then a
 * change to it is a change to who sees that secret.
 */
int
engine_secret_template_listed(const struct engine_opts *opts,
    const char *template)
{
	size_t	j, k;

	for (j = 0; j < opts->nsecrets; j++) {
		for (k = 0; k < opts->secrets[j].ntemplates; k++) {
			if (fnmatch(opts->secrets[j].templates[k], template,
			    0) == 0)
				return (1);
		}
	}
	return (0);
}

/*
 * A workflow's mask: the values of the site secrets its flow names (what
 * can be read now; a step reading one adds it again if it changed).
 */
void
engine_secret_mask_load(struct engine *e, struct ewf *wf,
    const char *flow_json)
{
	char	**names, *v, *cause = NULL;
	size_t	  n, i;

	engine_secret_names(e->tools, flow_json, &names, &n);
	for (i = 0; i < n; i++) {
		if (engine_secret_read(names[i], &v, &cause) == 0) {
			mask_add(wf->mask, v, strlen(v));
			explicit_bzero(v, strlen(v));
			free(v);
		} else
			free(cause);
		cause = NULL;
	}
	engine_secret_names_free(names, n);
}

/* Free a list of n names. */
void
engine_secret_names_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Wipe the values of a {"NAME": value} object and free it. */
void
engine_secret_wipe(cJSON *secrets)
{
	mask_json_wipe(secrets);
}

/*
 * May a run of this flow (from this template, NULL: a file) start, as far
 * as the site's secrets say?  What the engine asks again, asked early so
 * a refusal touches nothing.  0, or -1 and why.
 */
int
engine_secret_start_ok(const struct flow_tools *tools,
    const struct engine_opts *opts, const char *template,
    const char *flow_json, char **cause)
{
	char	**names;
	size_t	  n;
	int	  rc;

	engine_secret_names(tools, flow_json, &names, &n);
	rc = engine_secret_allowed(opts, template, names, n, cause);
	engine_secret_names_free(names, n);
	return (rc);
}
