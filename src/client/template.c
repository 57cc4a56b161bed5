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
 * template.c: what changing a template takes, for every client: the
 * document checked here first (so a bad one is refused with its places
 * before anything is sent), then the engine's template-save or
 * template-rm request, whose answer carries the new version.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

/*
 * Save a template's document (its text, named label in reasons): checked
 * against the tools catalog and for a chain of templates that calls
 * itself, then sent to the engine, which checks who may, checks the
 * document again and saves it.  The new version in *version; 0 or an
 * exit status after saying why not.
 */
int
client_template_save(struct client *cl, const char *name, const char *text,
    size_t len, const char *label, int64_t *version)
{
	const struct flow_tools		*tools;
	struct engine_reply		 r;
	struct flow_doc			*doc;
	char				*loop;
	int				 rc;

	*version = 0;
	memset(&r, 0, sizeof r);
	if (strlen(text) != len) {
		client_error(cl, "%s: contains a NUL byte", label);
		return (EXIT_USAGE);
	}
	if ((rc = client_tools(cl, &tools)) != 0)
		return (rc);
	if ((doc = client_doc_parse(cl, text, len, tools, label, NULL)) == NULL)
		return (EXIT_USAGE);
	if ((rc = client_store(cl, CLIENT_STORE_ANY|CLIENT_STORE_CREATE)) != 0)
		goto out;
	if ((loop = client_subflow_loop(cl->store, name, doc)) != NULL) {
		client_error(cl, "%s: template %s would call itself: %s", label,
		    name, loop);
		free(loop);
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = client_template_request(cl, name, text, -1, &r)) == 0) {
		if (r.code != 0) {
			client_error(cl, "%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
		} else
			*version = r.version;
	}
	engine_reply_clear(&r);
out:
	flow_doc_free(doc);
	return (rc);
}

/*
 * Save (document set) or remove a template through the engine, which
 * writes it (in service mode nobody else can).  expect_version: -1 any,
 * 0 must be new.  The answer in r; the exit status of the exchange.
 */
int
client_template_request(struct client *cl, const char *name,
    const char *document, int64_t expect_version, struct engine_reply *r)
{
	struct engine_request	 q;
	cJSON			*args;
	int			 rc;

	args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "name", name);
	if (document != NULL) {
		cJSON_AddStringToObject(args, "document", document);
		cJSON_AddNumberToObject(args, "expect_version",
		    (double)expect_version);
	}
	memset(&q, 0, sizeof q);
	q.command = document != NULL ? "template-save" : "template-rm";
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = client_ask(cl, &q, r);
	free((char *)q.args_json);
	return (rc);
}
