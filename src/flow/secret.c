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
 * secret.c: where a document may name a secret.  {{secrets.NAME}} (a site
 * secret) and {{input.KEY}} of a secret input reach a step only through
 * its environment: an "env" value of a step, a for-each's "do" or a
 * catalog tool.  Anywhere else (args, run, shell, messages, the output)
 * the value would be stored or shown, so it is refused with its path.
 * Which secrets a flow names is also read here, for the site's policy and
 * the engine's masking.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

#define SECRET_PREFIX	"secrets."

/* What a walk looks for and where it reports. */
struct secret_walk {
	const struct flow_doc	 *doc;		/* secret inputs, or NULL */
	struct flow_diags	 *d;		/* check: report here */
	char			**names;	/* refs: collect here */
	size_t			  n;
	int			  in_env;	/* the string is an env value */
};

static int	 secret_input(const struct flow_doc *, const char *);
static int	 secret_ref_cb(const char *, const char *, void *);
static void	 secret_walk_r(struct secret_walk *, const cJSON *,
		     const char *, int, int);

/* Is this a name a secret may have: a file name with no path in it? */
int
flow_secret_name_ok(const char *name)
{
	const char	*p;

	if (*name == '\0' || *name == '.' || strlen(name) > SLUICE_MAX_NAME)
		return (0);
	for (p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("_.-", *p) == NULL)
			return (0);
	}
	return (1);
}

/* Does ref ("input.KEY...") name a secret input of doc? */
static int
secret_input(const struct flow_doc *doc, const char *ref)
{
	size_t	i, kl;

	if (doc == NULL || strncmp(ref, "input.", 6) != 0)
		return (0);
	ref += 6;
	for (i = 0; i < doc->ninputs; i++) {
		kl = strlen(doc->inputs[i].key);
		if (doc->inputs[i].secret &&
		    strncmp(ref, doc->inputs[i].key, kl) == 0 &&
		    (ref[kl] == '\0' || ref[kl] == '.'))
			return (1);
	}
	return (0);
}

/* interp_refs callback: one placeholder of a string at path. */
static int
secret_ref_cb(const char *path, const char *ref, void *arg)
{
	struct secret_walk	*w = arg;
	const char		*name;
	size_t			 i;

	if (strncmp(ref, SECRET_PREFIX, strlen(SECRET_PREFIX)) != 0) {
		if (w->d != NULL && !w->in_env && secret_input(w->doc, ref))
			flow_diags_add(w->d, FLOW_ERROR, path, "\"{{%s}}\" is "
			    "a secret input: it may be used only in an env "
			    "value, which reaches the step and nothing else",
			    ref);
		return (0);
	}
	name = ref + strlen(SECRET_PREFIX);
	if (w->d != NULL && !flow_secret_name_ok(name))
		flow_diags_add(w->d, FLOW_ERROR, path, "\"{{%s}}\": a secret's "
		    "name is letters, digits, '_', '.' and '-'", ref);
	else if (w->d != NULL && !w->in_env)
		flow_diags_add(w->d, FLOW_ERROR, path, "\"{{%s}}\" may be used "
		    "only in an env value, which reaches the step and nothing "
		    "else", ref);
	if (w->d != NULL || !flow_secret_name_ok(name))
		return (0);
	for (i = 0; i < w->n; i++) {
		if (strcmp(w->names[i], name) == 0)
			return (0);
	}
	w->names = xreallocarray(w->names, w->n + 1, sizeof *w->names);
	w->names[w->n++] = xstrdup(name);
	return (0);
}

/*
 * Walk v at path.  A string is an env value when its object is under the
 * key "env" and nothing above it is a step's args, a sub-workflow's input
 * or the output (whose "env" members are data, not an environment).
 */
static void
secret_walk_r(struct secret_walk *w, const cJSON *v, const char *path,
    int parent_env, int depth)
{
	const cJSON	*c;
	char		*sub;
	size_t		 i = 0;
	int		 data;

	if (v == NULL || depth > CJSON_NESTING_LIMIT)
		return;
	if (cJSON_IsString(v)) {
		w->in_env = parent_env == 2;
		interp_refs(v, path, secret_ref_cb, w);
		w->in_env = 0;
		return;
	}
	for (c = v->child; c != NULL; c = c->next, i++) {
		if (cJSON_IsObject(v)) {
			sub = flow_path_key(path, c->string);
			data = strcmp(c->string, "args") == 0 ||
			    strcmp(c->string, "input") == 0 ||
			    strcmp(c->string, "output") == 0;
			if (data) {
				/* In data, an "env" is data too. */
				w->in_env = 0;
				secret_walk_r(w, c, sub, -1, depth + 1);
			} else
				secret_walk_r(w, c, sub, parent_env == -1 ? -1 :
				    cJSON_IsString(c) ? parent_env :
				    strcmp(c->string, "env") == 0 ? 2 : 0,
				    depth + 1);
		} else {
			sub = flow_path_index(path, i);
			secret_walk_r(w, c, sub, parent_env == -1 ? -1 : 0,
			    depth + 1);
		}
		free(sub);
	}
}

/*
 * Report every secret placeholder of a document (or tools.json) that is
 * not an env value.  doc says which inputs are secret; it may be NULL.
 */
void
flow_secret_check(const cJSON *v, const struct flow_doc *doc,
    struct flow_diags *d)
{
	struct secret_walk	w;

	if (d == NULL)
		return;		/* nowhere to report: nothing to do */
	memset(&w, 0, sizeof w);
	w.doc = doc;
	w.d = d;
	/* With diagnostics to give, the walk collects no names. */
	secret_walk_r(&w, v, "$", 0, 0);
}

/*
 * The names of the site secrets a JSON value refers to, wherever it
 * does; *np of them in a new array of new strings.
 */
void
flow_secret_refs(const cJSON *v, char ***namesp, size_t *np)
{
	struct secret_walk	w;

	memset(&w, 0, sizeof w);
	w.names = *namesp;
	w.n = *np;
	secret_walk_r(&w, v, "$", 0, 0);
	*namesp = w.names;
	*np = w.n;
}
