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
 * start-check.c: the engine's own check of every start of a template it
 * receives, whatever the client checked before sending it (a forged
 * socket request checked nothing).  The run gets the template's own flow
 * (never the one sent), its input is checked against the template's
 * declared inputs by the checks every client makes (flow_doc_input and
 * flow_input_check), and its operators decide who may start it (owners.c,
 * before this).  A start that names no template runs a flow of the
 * caller's own, under the site's rule alone: as "run FILE" may.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* A secret input's value against its declaration, as it is read. */
static int
engine_start_secrets(const struct flow_doc *doc, const cJSON *secrets,
    char **cause)
{
	const cJSON	*c;
	cJSON		*v;
	size_t		 i;
	int		 rc;

	for (c = secrets != NULL ? secrets->child : NULL; c != NULL;
	    c = c->next) {
		for (i = 0; i < doc->ninputs; i++) {
			if (strcmp(doc->inputs[i].key, c->string) == 0)
				break;
		}
		if (i == doc->ninputs)
			continue;	/* "***" in the input: unknown there */
		if ((v = cJSON_Duplicate(c, 1)) == NULL)
			fatalx("%s: out of memory", __func__);
		rc = flow_input_check(&doc->inputs[i], &v, 1, cause);
		mask_json_wipe(v);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

/*
 * Check a start of template name (version 0: its latest) as the engine:
 * its own flow in *flow, the input (secrets masked in it) checked and
 * completed with its defaults in *input, its version and SLA in st.
 * Returns 0, or the exit status (2, 3) with why in *cause.
 */
int
engine_start_check(struct engine *e, const char *name, int64_t version,
    const cJSON *input, const cJSON *secrets, struct engine_start *st,
    char **flow, char **input_out, char **cause)
{
	struct store_template	*t;
	struct flow_doc		*doc;
	char			*why = NULL;
	int			 rc;

	rc = store_template_get(e->store, name, version, &t, &why);
	if (rc == STORE_NOTFOUND) {
		free(why);
		if (version != 0)
			xasprintf(cause, "start: no template %s version %lld",
			    name, (long long)version);
		else
			xasprintf(cause, "start: no template %s", name);
		return (3);
	}
	if (rc != 0)
		engine_store_fatal(e, why);
	doc = flow_doc_parse(t->document, strlen(t->document), NULL, NULL);
	if (doc == NULL || doc->flow_json == NULL) {
		xasprintf(cause, "start: template %s version %lld does not "
		    "parse", name, (long long)t->version);
		flow_doc_free(doc);
		store_template_free(t);
		return (2);
	}
	rc = 0;
	if ((*input_out = flow_doc_input(doc, input, &why)) == NULL ||
	    engine_start_secrets(doc, secrets, &why) != 0) {
		xasprintf(cause, "start: template %s: %s", name, why);
		free(why);
		free(*input_out);
		*input_out = NULL;
		rc = 2;
	} else {
		*flow = xstrdup(doc->flow_json);
		st->template_version = t->version;
		if (doc->sla_ms > 0)
			st->sla_ms = doc->sla_ms;
	}
	flow_doc_free(doc);
	store_template_free(t);
	return (rc);
}
