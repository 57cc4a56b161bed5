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
 * which the engine checks again when it applies it.  client_start() does
 * it all, the same for "sluice run" and MCP's workflow_create.
 */

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sched/sched.h"
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

/*
 * Everything before asking the engine to start a run: check the name and
 * start time, load the document, read its input (secret ones too), ask
 * the site's secrets policy, open the database, and build the "start"
 * request in *q.  Returns 0, or an exit status after saying why; either
 * way client_start_clear() releases *q.
 */
int
client_start(struct client *cl, const struct client_start *s,
    struct engine_request *q)
{
	const struct flow_tools	*tools;
	struct flow_doc		*doc = NULL;
	struct store_template	*t = NULL;
	cJSON			*given = NULL, *secrets = NULL;
	char			*input = NULL, *cause = NULL, *name = NULL;
	int64_t			 start_at = 0;
	int			 rc;

	memset(q, 0, sizeof *q);
	if (s->name != NULL && client_run_check_name(cl, s->name) != 0)
		return (EXIT_USAGE);
	if (s->at != NULL &&
	    when_parse(s->at, time_now_ms(), &start_at, &cause) != 0) {
		client_error(cl, "--at: %s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if (s->what != NULL)
		rc = client_run_load(cl, s->what, &doc, &t);
	else if ((rc = client_tools(cl, &tools)) == 0 &&
	    (doc = client_doc_parse(cl, s->text, s->len, tools, s->where,
	    NULL)) == NULL)
		rc = EXIT_USAGE;
	if (rc != 0)
		goto out;
	if (s->input != NULL)
		given = cJSON_Duplicate(s->input, 1);
	else
		given = cJSON_CreateObject();
	if ((rc = client_secret_inputs(cl, doc, given, &secrets)) != 0)
		goto out;
	if ((input = flow_doc_input_text(doc, given, s->texts,
	    &cause)) == NULL) {
		client_error(cl, "%s", cause);
		free(cause);
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = client_run_secrets_ok(cl, doc, t)) != 0 ||
	    (rc = client_store(cl, CLIENT_STORE_ANY|CLIENT_STORE_CREATE)) != 0)
		goto out;
	if (s->name != NULL)
		name = xstrdup(s->name);
	else if (t != NULL)
		name = xstrdup(t->name);
	else
		name = client_run_default_name(s->what != NULL ? s->what :
		    s->where);
	q->command = "start";
	q->args_json = client_run_request(doc, input, name, t, start_at,
	    secrets);
	q->secret = secrets != NULL;
out:
	client_secret_inputs_free(secrets);
	cJSON_Delete(given);
	free(name);
	free(input);
	if (t != NULL)
		store_template_free(t);
	if (doc != NULL)
		flow_doc_free(doc);
	return (rc);
}

/* Release a start request, wiping the secret inputs it carries. */
void
client_start_clear(struct engine_request *q)
{
	if (q->args_json != NULL && q->secret)
		explicit_bzero((char *)q->args_json, strlen(q->args_json));
	free((char *)q->args_json);
	memset(q, 0, sizeof *q);
}
