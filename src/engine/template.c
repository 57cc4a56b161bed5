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
 * template.c: the template-save and template-rm commands, so that saving
 * and removing templates goes through the engine like every other change
 * (in service mode only the engine can write the database).  The engine
 * checks the document again with its own tools catalog, the one its
 * steps will run with; the person is the one who asked, and the operator
 * rule is asked as "template save" and "template rm", the names the
 * audit trail has always used for them.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* The actor of a command, for the store's template functions. */
static void
engine_template_actor(const struct store_inbox *m, struct store_actor *a)
{
	a->uid = (uid_t)m->uid;
	a->user = m->who;
	a->tty = m->tty;
	a->host = m->host;
	a->via = m->via;
	a->node = m->node;
}

/*
 * The template's own operators (SPEC §8) may change a template that
 * touches a secret, beside the site's: those its saved version names,
 * never those a new document names for itself.  1: the caller is one.
 */
static int
engine_template_own_operator(struct engine *e,
    const struct authority_caller *caller, const char *name)
{
	struct store_template	*t;
	struct flow_doc		*doc;
	char			*cause = NULL;
	int			 ok = 0;

	if (caller == NULL ||
	    store_template_get(e->store, name, 0, &t, &cause) != 0) {
		free(cause);
		return (0);
	}
	doc = flow_doc_parse(t->document, strlen(t->document), NULL, NULL);
	if (doc != NULL && doc->noperators > 0)
		ok = authority_template_names_caller(caller,
		    doc->operators, doc->noperators);
	if (doc != NULL)
		flow_doc_free(doc);
	store_template_free(t);
	return (ok);
}

/*
 * A template that names a secret, or that a secret's list allows, is a
 * way to read that secret: changing it needs a site operator or one of
 * its own operators, never only the right to start runs.  With no site
 * operators named, that is the engine's own account (or root).  Returns
 * 1 when allowed (*secretsp: the names touched as JSON, or NULL); else 0
 * with the refusal audited in r.
 */
static int
engine_template_secret_may(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const char *name,
    const struct flow_doc *doc, char **secretsp, struct engine_reply *r)
{
	const struct authority_site	*site = &e->opts.authority;
	char				**names;
	size_t				  n, i;
	int				  listed, ok;
	cJSON				 *a;

	*secretsp = NULL;
	engine_secret_names(e->tools, doc->flow_json, &names, &n);
	listed = engine_secret_template_listed(&e->opts, name);
	if (n == 0 && !listed) {
		engine_secret_names_free(names, n);
		return (1);
	}
	a = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
	*secretsp = json_print(a);
	cJSON_Delete(a);
	if (caller == NULL)
		ok = 1;
	else if (site->has_operators)
		ok = authority_operator(site, caller, NULL);
	else
		ok = caller->uid == geteuid() || caller->uid == 0;
	if (!ok)
		ok = engine_template_own_operator(e, caller, name);
	if (!ok) {
		xasprintf(&r->message, "refused: template %s %s: only %s or "
		    "one of the template's operators may change it", name,
		    n > 0 ? "uses a site secret" : "is allowed a site secret",
		    site->has_operators ? "a site operator" :
		    "the engine's account");
		engine_refuse(e, m, "template save", NULL, r);
		free(*secretsp);
		*secretsp = NULL;
	}
	engine_secret_names_free(names, n);
	return (ok);
}

/* May the caller do verb?  1; else 0 with the refusal audited in r. */
static int
engine_template_may(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const char *verb,
    struct engine_reply *r)
{
	struct authority_ask	 q;

	memset(&q, 0, sizeof q);
	q.verb = verb;
	if (caller == NULL ||
	    authority_check(&e->opts.authority, caller, &q, &r->message))
		return (1);
	engine_refuse(e, m, verb, NULL, r);
	return (0);
}

/*
 * template-save {"name", "document", "expect_version"}: check and save;
 * answers with the new version, or conflict when expect_version (0: must
 * be new) is no longer the template's.
 */
int
engine_cmd_template_save(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_template_save	 ts;
	struct store_actor		 actor;
	struct flow_diags		*diags;
	struct flow_doc			*doc;
	cJSON				*a, *v;
	char				*name, *text, *cause = NULL;
	char				*secrets = NULL;
	int64_t				 version;
	int				 rc;

	if (!engine_template_may(e, m, caller, "template save", r))
		return (r->code);
	name = engine_arg_string(m->args_json, "name");
	text = engine_arg_string(m->args_json, "document");
	if (name == NULL || text == NULL) {
		r->code = 2;
		r->message = xstrdup("template-save needs a name and a "
		    "document");
		goto out;
	}
	if (str_check_template_name(name, &cause) != 0) {
		r->code = 2;
		r->message = cause;
		goto out;
	}
	if (!engine_owners_change_may(e, m, caller, name, "template save",
	    r))
		goto out;
	memset(&ts, 0, sizeof ts);
	ts.expect_version = -1;
	if ((a = cJSON_Parse(m->args_json)) != NULL) {
		v = cJSON_GetObjectItemCaseSensitive(a, "expect_version");
		if (cJSON_IsNumber(v))
			ts.expect_version = (int64_t)v->valuedouble;
		cJSON_Delete(a);
	}
	diags = flow_diags_create();
	doc = flow_doc_parse(text, strlen(text), e->tools, diags);
	if (doc == NULL || flow_diags_errors(diags) != 0) {
		r->code = 2;
		r->message = flow_diags_first_error(diags, name);
		if (r->message == NULL)
			r->message = xstrdup("the document is not a flow");
		flow_diags_free(diags);
		flow_doc_free(doc);
		goto out;
	}
	flow_diags_free(diags);
	if (!engine_template_secret_may(e, m, caller, name, doc, &secrets,
	    r)) {
		flow_doc_free(doc);
		goto out;
	}
	ts.secrets_json = secrets;
	ts.name = name;
	ts.document = text;
	ts.description = doc->description;
	ts.flow_json = doc->flow_json;
	ts.input_json = doc->inputs_json;
	engine_template_actor(m, &actor);
	rc = store_template_save(e->store, &ts, &actor, &version, &cause);
	flow_doc_free(doc);
	if (rc == STORE_CONFLICT) {
		r->code = 4;
		r->conflict = 1;
		r->message = cause;
	} else if (rc != 0) {
		r->code = rc == STORE_READONLY ? 4 : 1;
		r->message = cause;
	} else {
		r->version = version;
		xasprintf(&r->message, "saved template %s version %lld", name,
		    (long long)version);
	}
out:
	free(secrets);
	free(name);
	free(text);
	return (r->code);
}

/* template-rm {"name"}: a soft delete; old versions stay for the runs. */
int
engine_cmd_template_rm(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, struct engine_reply *r)
{
	struct store_actor	 actor;
	char			*name, *cause = NULL;
	int			 rc;

	if (!engine_template_may(e, m, caller, "template rm", r))
		return (r->code);
	if ((name = engine_arg_string(m->args_json, "name")) == NULL) {
		r->code = 2;
		r->message = xstrdup("template-rm needs a name");
		return (r->code);
	}
	if (!engine_owners_change_may(e, m, caller, name, "template rm",
	    r)) {
		free(name);
		return (r->code);
	}
	engine_template_actor(m, &actor);
	rc = store_template_remove(e->store, name, &actor, &cause);
	if (rc == STORE_NOTFOUND) {
		r->code = 3;
		r->message = cause;
	} else if (rc != 0) {
		r->code = 1;
		r->message = cause;
	} else
		xasprintf(&r->message, "removed template %s", name);
	free(name);
	return (r->code);
}
