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
 * client.c: a client's settings and what it opened: the database (opened
 * once, read-only where it must be), the tools catalog, and where its
 * messages for people go.  The command line prints them; sluice mcp
 * answers with them.  The messages are the same either way.
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"

/*
 * The name an unknown word most likely meant: the only one it is a prefix
 * of, else the closest within a small edit distance; NULL for none.
 */
const char *
client_suggest(const char *word, const char *const *names, size_t n)
{
	const char	*only = NULL;
	size_t		 i, len = strlen(word), matches = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], word) == 0)
			return (NULL);	/* it is there: not a misspelling */
	}
	for (i = 0; i < n && len > 0; i++) {
		if (strncmp(names[i], word, len) == 0) {
			only = names[i];
			matches++;
		}
	}
	if (matches == 1)
		return (only);
	return (flow_suggest(word, names, n));
}

/* Release what a client opened. */
void
client_free(struct client *cl)
{
	if (cl->store != NULL)
		store_close(cl->store);
	cl->store = NULL;
	if (cl->tools != NULL)
		flow_tools_free(cl->tools);
	cl->tools = NULL;
	if (cl->site != NULL)
		flow_tools_free(cl->site);
	cl->site = NULL;
	notify_config_free(cl->notify);
	cl->notify = NULL;
	client_config_secrets_free(cl);
	strv_free(cl->authority.operators);
	memset(&cl->authority, 0, sizeof cl->authority);
	free(cl->tools_file);
	cl->tools_file = NULL;
	free(cl->config_file);
	cl->config_file = NULL;
}

/*
 * Print "sluice: PREFIXreason" on stderr as one line: reasons echo names
 * and values from input, so control characters and newlines are escaped.
 */
void
client_message(const char *prefix, const char *fmt, va_list ap)
{
	char	*s, *v;

	fflush(stdout);
	xvasprintf(&s, fmt, ap);
	v = vis_str(s, 0);
	fprintf(stderr, "sluice: %s%s\n", prefix, v);
	free(v);
	free(s);
}

/* Say something to the client's people: its sink, else stderr. */
static void
client_say(const struct client *cl, int warning, const char *fmt, va_list ap)
{
	char	*s, *v;

	if (cl == NULL || cl->say == NULL) {
		client_message(warning ? "warning: " : "", fmt, ap);
		return;
	}
	xvasprintf(&s, fmt, ap);
	v = vis_str(s, 0);
	cl->say(cl->say_arg, warning, v);
	free(v);
	free(s);
}

/* A reason something failed (cl may be NULL: stderr). */
void
client_error(const struct client *cl, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	client_say(cl, 0, fmt, ap);
	va_end(ap);
}

/* A warning (cl may be NULL: stderr). */
void
client_warn(const struct client *cl, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	client_say(cl, 1, fmt, ap);
	va_end(ap);
}

/* Map a store return code to the exit status of SPEC §10. */
int
client_exit_code(int rc)
{
	switch (rc) {
	case 0:
		return (EXIT_OK);
	case STORE_NOTFOUND:
		return (EXIT_NOTFOUND);
	case STORE_READONLY:
		return (EXIT_REFUSED);
	case STORE_FOREIGN:
		return (EXIT_USAGE);
	default:
		return (EXIT_FAILED);
	}
}

/*
 * Report a store failure about a template or schedule name and return its
 * exit status; a name that is not there gets the closest one that is.
 */
int
client_name_fail(struct client *cl, int rc, char *cause, int kind,
    const char *name)
{
	struct store_template	*t = NULL;
	struct store_schedule	*c = NULL;
	struct store		*s = cl->store, *own = NULL;
	const char		**names = NULL, *best = NULL;
	char			*ignore = NULL, *path;
	size_t			 n = 0, i;

	if (rc != STORE_NOTFOUND || cause == NULL)
		return (client_store_fail(cl, rc, cause));
	if (s == NULL && (path = client_db_path(cl)) != NULL) {
		/* Asked through the engine: read the names ourselves. */
		if (access(path, F_OK) == 0 &&
		    store_open(path, STORE_F_READONLY, &own, &ignore) == 0)
			s = own;
		free(ignore);
		ignore = NULL;
		free(path);
	}
	if (s == NULL)
		return (client_store_fail(cl, rc, cause));
	if (kind == CLIENT_NAME_TEMPLATE &&
	    store_template_list(s, &t, &n, &ignore) == 0) {
		names = xcalloc(n + 1, sizeof *names);
		for (i = 0; i < n; i++)
			names[i] = t[i].name;
	} else if (kind == CLIENT_NAME_SCHEDULE &&
	    store_schedule_list(s, &c, &n, &ignore) == 0) {
		names = xcalloc(n + 1, sizeof *names);
		for (i = 0; i < n; i++)
			names[i] = c[i].name;
	}
	free(ignore);
	if (names != NULL)
		best = client_suggest(name, names, n);
	if (best != NULL)
		client_error(cl, "%s (did you mean \"%s\"?)", cause, best);
	else
		client_error(cl, "%s", cause);
	free(names);
	if (t != NULL)
		store_templates_free(t, n);
	if (c != NULL)
		store_schedules_free(c, n);
	if (own != NULL)
		store_close(own);
	free(cause);
	return (client_exit_code(rc));
}

/* Report a store failure and return its exit status. */
int
client_store_fail(struct client *cl, int rc, char *cause)
{
	client_error(cl, "%s", cause != NULL ? cause : "database error");
	free(cause);
	return (client_exit_code(rc));
}

/*
 * Whether the database path was named (--db, $SLUICE_DB or the site
 * config's "database") rather than the default: a named path that does
 * not exist is a typo until "sluice init" says otherwise.
 */
int
client_db_named(const struct client *cl)
{
	const char	*env;
	char		*path;

	if (cl->db_path != NULL)
		return (1);
	env = getenv("SLUICE_DB");
	if (env != NULL && *env != '\0')
		return (1);
	if (client_config_database(cl, &path) != 0 || path != NULL) {
		free(path);
		return (1);
	}
	return (0);
}

/*
 * The database path the command means, as a new string in *pathp: --db,
 * else $SLUICE_DB, else the site config's "database", else the default
 * (NULL when there is none).  -1 when the site config's is bad, after
 * saying why with its place.
 */
int
client_db_resolve(const struct client *cl, char **pathp)
{
	const char	*env;

	*pathp = NULL;
	if (cl->db_path != NULL) {
		*pathp = xstrdup(cl->db_path);
		return (0);
	}
	env = getenv("SLUICE_DB");
	if (env != NULL && *env != '\0') {
		*pathp = xstrdup(env);
		return (0);
	}
	if (client_config_database(cl, pathp) != 0)
		return (-1);
	if (*pathp == NULL)
		*pathp = store_default_path();
	return (0);
}

/* The same, NULL when there is none or it is bad. */
char *
client_db_path(const struct client *cl)
{
	char	*path;

	if (client_db_resolve(cl, &path) != 0)
		return (NULL);
	return (path);
}

/*
 * A database that is not there: say where we looked and how to make one,
 * and change nothing (exit 2, SPEC §10).
 */
static int
client_store_missing(const struct client *cl, const char *path)
{
	if (client_db_named(cl)) {
		client_error(cl, "no database at %s (is the path right? 'sluice "
		    "init %s' creates one)", path, path);
	} else {
		client_error(cl, "no database at %s yet ('sluice init' creates it, "
		    "as does a first 'sluice run', 'template save' or "
		    "'engine')", path);
	}
	return (EXIT_USAGE);
}

/*
 * Open the database once: mode 0 read-only, 1 writable, CLIENT_STORE_ANY
 * writable where it can and read-only where it cannot (the console).
 * Nothing is created unless mode has CLIENT_STORE_CREATE and the path is the
 * default one.  Returns 0, or the exit status after reporting why not.
 */
int
client_store(struct client *cl, int mode)
{
	struct stat	 sb;
	const char	*bak;
	char		*path, *cause = NULL;
	int64_t		 from;
	int		 rc, flags, writable = mode & ~CLIENT_STORE_CREATE;
	int		 fd = -1;

	if (cl->store != NULL) {
		if (writable == 1 && store_is_readonly(cl->store))
			goto readonly;
		return (0);
	}
	if (client_db_resolve(cl, &path) != 0)
		return (EXIT_USAGE);
	if (path == NULL) {
		client_error(cl, "no database path (set --db, SLUICE_DB or the "
		    "site config's \"database\")");
		return (EXIT_USAGE);
	}
	if (writable == 0)
		flags = STORE_F_READONLY;
	else if ((mode & CLIENT_STORE_CREATE) && !client_db_named(cl))
		flags = 0;
	else
		flags = STORE_F_NOCREATE;
	rc = store_open(path, flags, &cl->store, &cause);
	if (rc == STORE_NOTFOUND && stat(path, &sb) != 0 && errno == ENOENT) {
		free(cause);
		rc = client_store_missing(cl, path);
		free(path);
		cl->store = NULL;
		return (rc);
	}
	if (rc == STORE_READONLY && access(path, R_OK) != 0 &&
	    client_denied_errno(errno) && (fd = client_sock_connect(path)) ==
	    -1 && client_denied_errno(errno) &&
	    client_no_access(cl, path) != -1) {
		/* Neither door is open to us: we said which to ask for. */
		free(cause);
		free(path);
		cl->store = NULL;
		return (EXIT_REFUSED);
	}
	if (fd != -1)
		close(fd);
	free(path);
	if (rc != 0) {
		cl->store = NULL;
		return (client_store_fail(cl, rc, cause));
	}
	if ((bak = store_migration_backup(cl->store, &from)) != NULL) {
		client_error(cl, "upgraded database %s from schema version %lld to "
		    "%d; the old one is kept at %s", store_path(cl->store),
		    (long long)from, STORE_SCHEMA_VERSION, bak);
	}
	if (writable == 1 && store_is_readonly(cl->store))
		goto readonly;
	return (0);
readonly:
	client_error(cl, "database %s is read-only", store_path(cl->store));
	return (EXIT_REFUSED);
}

/*
 * Where the tools catalog is: --tools or $SLUICE_TOOLS (which must exist),
 * then the user's and the site's config if present; NULL for none.
 */
char *
client_tools_file(const struct client *cl)
{
	const char	*env, *home;
	char		*path;
	struct stat	 sb;

	if (cl->tools_path != NULL)
		return (xstrdup(cl->tools_path));
	if ((env = getenv("SLUICE_TOOLS")) != NULL && *env != '\0')
		return (xstrdup(env));
	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env != '\0')
		xasprintf(&path, "%s/sluice/tools.json", env);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&path, "%s/.config/sluice/tools.json", home);
	else
		path = NULL;
	if (path != NULL && stat(path, &sb) == 0)
		return (path);
	free(path);
	xasprintf(&path, "%s/sluice/tools.json", SYSCONFDIR);
	if (stat(path, &sb) == 0)
		return (path);
	free(path);
	return (NULL);
}

/*
 * Load the tools catalog (built-ins plus tools.json) once.  Returns 0, or
 * the exit status after printing every problem with its place.
 */
int
client_tools(struct client *cl, const struct flow_tools **out)
{
	struct flow_diags	*diags;
	char			*path, *text = NULL, *cause = NULL;
	size_t			 len = 0;

	if (cl->tools != NULL) {
		*out = cl->tools;
		return (0);
	}
	path = client_tools_file(cl);
	if (path != NULL) {
		text = file_read(path, SLUICE_MAX_DOCUMENT, &len, &cause);
		if (text == NULL) {
			client_error(cl, "tools catalog %s", cause);
			free(cause);
			free(path);
			return (EXIT_USAGE);
		}
	}
	diags = flow_diags_create();
	cl->tools = flow_tools_parse(text, len, diags);
	client_diags_print(cl, diags, path);
	free(text);
	free(path);
	if (cl->tools == NULL || flow_diags_errors(diags) != 0) {
		flow_diags_free(diags);
		if (cl->tools != NULL)
			flow_tools_free(cl->tools);
		cl->tools = NULL;
		return (EXIT_USAGE);
	}
	flow_diags_free(diags);
	*out = cl->tools;
	return (0);
}

/* Say every diagnostic, each as one "FILE:LINE:COL: ..." line. */
void
client_diags_print(struct client *cl, const struct flow_diags *diags,
    const char *file)
{
	struct flow_diag	*d;
	char			*s;

	TAILQ_FOREACH(d, diags, entry) {
		s = flow_diag_format(d, file);
		client_error(cl, "%s", s);
		free(s);
	}
}

/*
 * Parse and check a flow or template document named file.  Returns it, or
 * NULL when it has errors.  The diagnostics go to *diagsp when given, else
 * they are printed.
 */
struct flow_doc *
client_doc_parse(struct client *cl, const char *text, size_t len,
    const struct flow_tools *tools, const char *file,
    struct flow_diags **diagsp)
{
	struct flow_diags	*diags;
	struct flow_doc		*doc;

	diags = flow_diags_create();
	doc = flow_doc_parse(text, len, tools, diags);
	if (doc != NULL && flow_diags_errors(diags) != 0) {
		flow_doc_free(doc);
		doc = NULL;
	}
	if (diagsp != NULL)
		*diagsp = diags;
	else {
		client_diags_print(cl, diags, file);
		flow_diags_free(diags);
	}
	return (doc);
}
