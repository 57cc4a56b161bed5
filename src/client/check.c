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
 * check.c: checking a flow or template document without running it, for
 * every client: its problems with their places, and where a database
 * exists a loop among the templates it calls.
 */

#include <stdlib.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "client/client.h"

static char	*client_check_loop(struct client *, const struct flow_doc *);

/*
 * Check a document's text: the parsed document (NULL when it cannot be)
 * and every problem in *diagsp (the caller frees both).  1 when valid.
 */
int
client_check(struct client *cl, const char *text, size_t len,
    const struct flow_tools *tools, struct flow_doc **docp,
    struct flow_diags **diagsp)
{
	struct flow_diags	*diags;
	struct flow_doc		*doc;
	char			*loop;

	diags = flow_diags_create();
	doc = flow_doc_parse(text, len, tools, diags);
	if ((loop = client_check_loop(cl, doc)) != NULL) {
		flow_diags_add(diags, FLOW_ERROR, "$", "the templates it calls "
		    "call each other in a loop: %s", loop);
		flow_diags_locate(diags, text, len);
		free(loop);
	}
	*docp = doc;
	*diagsp = diags;
	return (doc != NULL && flow_diags_errors(diags) == 0);
}

/* A check's answer: {"valid", "problems"} (check --json). */
cJSON *
client_json_check(const struct flow_diags *diags, int valid)
{
	const struct flow_diag	*d;
	cJSON			*root, *arr, *o;

	root = cJSON_CreateObject();
	cJSON_AddBoolToObject(root, "valid", valid);
	arr = cJSON_AddArrayToObject(root, "problems");
	TAILQ_FOREACH(d, diags, entry) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "severity",
		    d->severity == FLOW_ERROR ? "error" : "warning");
		cJSON_AddStringToObject(o, "path", d->path);
		cJSON_AddNumberToObject(o, "line", d->line);
		cJSON_AddNumberToObject(o, "column", d->col);
		cJSON_AddStringToObject(o, "message", d->message);
		cJSON_AddItemToArray(arr, o);
	}
	return (root);
}

/*
 * Where a database exists, follow the templates a document calls: a loop
 * among them is an error ("a -> b -> a").  Never creates a database.
 */
static char *
client_check_loop(struct client *cl, const struct flow_doc *doc)
{
	const struct flow_step	*st;
	char			*path;
	size_t			 i;
	int			 found = 0;

	for (i = 0; doc != NULL && doc->flow != NULL &&
	    i < doc->flow->nsteps; i++) {
		st = &doc->flow->steps[i];
		if (st->workflow != NULL || (st->foreach != NULL &&
		    st->foreach->body != NULL &&
		    st->foreach->body->workflow != NULL))
			found = 1;
	}
	if (!found)
		return (NULL);
	path = client_db_path(cl);
	found = access(path, R_OK) == 0;
	free(path);
	if (!found || client_store(cl, 0) != 0)
		return (NULL);
	return (client_subflow_loop(cl->store, NULL, doc));
}
