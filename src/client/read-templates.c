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
 * read-templates.c: the templates a client reads (template list --json,
 * template show --json, template_list and template_get): name, version,
 * description, declared inputs, and the document of one.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

/*
 * Who may run a template: its own "operators" (null when it names none)
 * and, in words, those or the site's (run_by).
 */
static void
client_json_run_by(struct client *cl, cJSON *o, const struct store_template *t)
{
	struct flow_doc	*doc;
	cJSON		*ops;
	char		*run_by;
	size_t		 i;

	doc = flow_doc_parse(t->document, strlen(t->document), NULL, NULL);
	if (doc != NULL && doc->noperators > 0) {
		ops = cJSON_AddArrayToObject(o, "operators");
		for (i = 0; i < doc->noperators; i++)
			cJSON_AddItemToArray(ops,
			    cJSON_CreateString(doc->operators[i]));
	} else
		cJSON_AddNullToObject(o, "operators");
	flow_doc_free(doc);
	run_by = authority_template_run_by(&cl->authority, t->document);
	cJSON_AddStringToObject(o, "run_by", run_by);
	free(run_by);
}

/* The live templates, as template list --json has them. */
int
client_read_templates(struct client *cl, cJSON **out)
{
	struct engine_opts	 opts;
	struct store_template	*t;
	char			*cause = NULL;
	size_t			 n, i;
	int			 rc;
	cJSON			*o;

	*out = NULL;
	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	memset(&opts, 0, sizeof opts);
	if ((rc = client_config(cl, &opts)) != 0)
		return (rc);
	if ((rc = store_template_list(cl->store, &t, &n, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	*out = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		o = client_json_template(&t[i], 0);
		client_json_run_by(cl, o, &t[i]);
		cJSON_AddItemToArray(*out, o);
	}
	store_templates_free(t, n);
	return (EXIT_OK);
}

/*
 * A template (version 0: its newest) with its document, as template
 * show --json has it; a name that is not there gets the closest one.  A
 * removed template's versions are kept: asked for by number, each is
 * there, with removed_at.
 */
int
client_read_template(struct client *cl, const char *name, int64_t version,
    cJSON **out)
{
	struct store_template	*t;
	char			*cause = NULL;
	int			 rc;

	*out = NULL;
	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	/* A version asked for by number is shown removed or not. */
	if (version > 0)
		rc = store_template_get_any(cl->store, name, version, &t,
		    &cause);
	else
		rc = store_template_get(cl->store, name, version, &t, &cause);
	if (rc != 0)
		return (client_name_fail(cl, rc, cause, CLIENT_NAME_TEMPLATE,
		    name));
	*out = client_json_template(t, 1);
	if (t->cancelled_at != 0)
		json_add_time(*out, "removed_at", t->cancelled_at);
	client_json_run_by(cl, *out, t);
	store_template_free(t);
	return (EXIT_OK);
}

/* A template as JSON; with_doc adds the parsed document. */
cJSON *
client_json_template(const struct store_template *t, int with_doc)
{
	struct flow_doc	*doc;
	cJSON		*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddNumberToObject(o, "version", (double)t->version);
	if (t->description != NULL)
		cJSON_AddStringToObject(o, "description", t->description);
	else
		cJSON_AddNullToObject(o, "description");
	cJSON_AddStringToObject(o, "created_by",
	    t->created_by != NULL ? t->created_by : "");
	cJSON_AddStringToObject(o, "updated_by",
	    t->updated_by != NULL ? t->updated_by : "");
	json_add_time(o, "created_at", t->created_at);
	json_add_time(o, "updated_at", t->updated_at);
	cJSON_AddItemToObject(o, "inputs", json_raw(t->input_json));
	if (with_doc) {
		cJSON_AddItemToObject(o, "document", json_raw(t->document));
		/* What a run's input must be, for a client to check first. */
		doc = flow_doc_parse(t->document, strlen(t->document), NULL,
		    NULL);
		if (doc != NULL) {
			cJSON_AddItemToObject(o, "input_schema",
			    flow_doc_input_schema(doc));
			flow_doc_free(doc);
		}
	}
	return (o);
}
