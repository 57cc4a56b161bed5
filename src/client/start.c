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
 * start.c: what starting a run takes, for every client: the document it
 * starts from (a flow file, a flow's text, or a stored template), the
 * run's name, the site's secrets policy, and the start request itself,
 * which the engine checks again when it applies it.
 */

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

/* Is the argument a flow file rather than a template name? */
int
client_run_is_file(const char *what)
{
	size_t	len = strlen(what);

	return (strchr(what, '/') != NULL ||
	    (len > 5 && strcmp(what + len - 5, ".json") == 0));
}

/* Check a workflow name: printable text of a bounded length. */
int
client_run_check_name(struct client *cl, const char *name)
{
	size_t	len = strlen(name);

	if (len == 0 || len > SLUICE_MAX_NAME) {
		client_error(cl, "--name: a name has 1 to %d bytes", SLUICE_MAX_NAME);
		return (-1);
	}
	if (!utf8_valid(name, len, NULL)) {
		client_error(cl, "--name: not valid UTF-8");
		return (-1);
	}
	if (vis_needed(name)) {		/* C0, DEL and C1 */
		client_error(cl, "--name: control characters are not allowed");
		return (-1);
	}
	return (0);
}

/* The name a run gets from its file: the base name without ".json". */
char *
client_run_default_name(const char *path)
{
	char	*copy, *base, *name;
	size_t	 len;

	copy = xstrdup(path);
	base = basename(copy);
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	if (len > SLUICE_MAX_NAME)
		len = SLUICE_MAX_NAME;
	name = xstrndup(base, len);
	free(copy);
	return (name);
}

/*
 * Load and validate the document a run starts from, printing every
 * problem.  Returns 0 or an exit status.
 */
int
client_run_load(struct client *cl, const char *what, struct flow_doc **docp,
    struct store_template **tp)
{
	const struct flow_tools	*tools;
	char			*text = NULL, *cause = NULL, *where;
	size_t			 len;
	int			 rc;

	*docp = NULL;
	*tp = NULL;
	if ((rc = client_tools(cl, &tools)) != 0)
		return (rc);
	if (client_run_is_file(what)) {
		text = file_read(what, SLUICE_MAX_DOCUMENT, &len, &cause);
		if (text == NULL) {
			client_error(cl, "%s", cause);
			free(cause);
			return (EXIT_USAGE);
		}
		where = xstrdup(what);
	} else {
		if ((rc = client_store(cl, CLIENT_STORE_ANY)) != 0)
			return (rc);
		rc = store_template_get(cl->store, what, 0, tp, &cause);
		if (rc != 0)
			return (client_name_fail(cl, rc, cause,
			    CLIENT_NAME_TEMPLATE, what));
		text = xstrdup((*tp)->document);
		len = strlen(text);
		xasprintf(&where, "template %s", what);
	}
	*docp = client_doc_parse(cl, text, len, tools, where, NULL);
	free(where);
	free(text);
	return (*docp == NULL ? EXIT_USAGE : 0);
}

/*
 * The start command's arguments: the flow, its input, name, template,
 * SLA and start time (0: now).
 */
char *
client_run_request(const struct flow_doc *doc, const char *input,
    const char *name, const struct store_template *t, int64_t start_at,
    const cJSON *secrets)
{
	cJSON	*a;
	char	*text;

	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "name", name);
	cJSON_AddItemToObject(a, "flow", json_raw(doc->flow_json));
	cJSON_AddItemToObject(a, "input", json_raw(input));
	if (t != NULL) {
		cJSON_AddStringToObject(a, "template", t->name);
		cJSON_AddNumberToObject(a, "version", (double)t->version);
	}
	if (doc->sla_ms > 0)
		cJSON_AddNumberToObject(a, "sla_ms", (double)doc->sla_ms);
	if (start_at > 0)
		cJSON_AddNumberToObject(a, "start_at", (double)start_at);
	if (secrets != NULL)
		cJSON_AddItemToObject(a, "secret_input",
		    cJSON_Duplicate(secrets, 1));
	text = json_print(a);
	if (secrets != NULL)
		client_secret_inputs_free(cJSON_DetachItemFromObjectCaseSensitive(
		    a, "secret_input"));
	cJSON_Delete(a);
	return (text);
}

/*
 * The site's secrets policy, asked before anything is sent: a refusal
 * (which the engine would give too) then touches nothing.
 */
int
client_run_secrets_ok(struct client *cl, const struct flow_doc *doc,
    const struct store_template *t)
{
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	char			*cause = NULL;
	int			 rc;

	if (doc->flow_json == NULL || strstr(doc->flow_json, "secrets") ==
	    NULL)
		return (0);
	memset(&opts, 0, sizeof opts);
	if ((rc = client_tools(cl, &tools)) != 0 ||
	    (rc = client_engine_opts(cl, &opts)) != 0)
		return (rc);
	if (engine_secret_start_ok(tools, &opts, t != NULL ? t->name : NULL,
	    doc->flow_json, &cause) != 0) {
		client_error(cl, "%s", cause);
		free(cause);
		return (EXIT_REFUSED);
	}
	return (0);
}

/* Wipe and free secret inputs read for a run. */
void
client_secret_inputs_free(cJSON *secrets)
{
	mask_json_wipe(secrets);
}
