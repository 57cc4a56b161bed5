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
 * config-secrets.c: config.json's "secrets", which templates may use
 * each site secret: {"NAME": {"templates": ["deploy-*", ...]}}.  The
 * patterns are fnmatch(3)'s, matched against the template's name.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "client/client.h"

static int	client_secret_rule(struct client *, const char *,
		    const cJSON *, struct secret_rule *);

/* One secret's entry; 0 or EXIT_USAGE after saying where. */
static int
client_secret_rule(struct client *cl, const char *path, const cJSON *c,
    struct secret_rule *r)
{
	const cJSON	*t, *e;
	int		 i = 0;

	if (!flow_secret_name_ok(c->string)) {
		client_error(cl, "%s: $.secrets.%s: a secret's name is letters, "
		    "digits, '_', '.' and '-'", path, c->string);
		return (EXIT_USAGE);
	}
	t = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c,
	    "templates") : NULL;
	if (!cJSON_IsArray(t)) {
		client_error(cl, "%s: $.secrets.%s: expected {\"templates\": "
		    "[\"NAME\", \"PATTERN*\", ...]}", path, c->string);
		return (EXIT_USAGE);
	}
	r->name = xstrdup(c->string);
	r->templates = xcalloc((size_t)cJSON_GetArraySize(t) + 1,
	    sizeof *r->templates);
	cJSON_ArrayForEach(e, t) {
		if (!cJSON_IsString(e) || *e->valuestring == '\0') {
			client_error(cl, "%s: $.secrets.%s.templates[%d]: expected a "
			    "template name or pattern", path, c->string, i);
			return (EXIT_USAGE);
		}
		r->templates[r->ntemplates++] = xstrdup(e->valuestring);
		i++;
	}
	return (0);
}

/* Parse "secrets" into the context's rules; 0 or EXIT_USAGE. */
int
client_config_secrets(struct client *cl, const char *path, const cJSON *v)
{
	const cJSON	*c;
	size_t		 n;

	client_config_secrets_free(cl);
	if (v == NULL)
		return (0);
	if (!cJSON_IsObject(v)) {
		client_error(cl, "%s: $.secrets: expected an object of secret names",
		    path);
		return (EXIT_USAGE);
	}
	n = (size_t)cJSON_GetArraySize(v);
	cl->secrets = xcalloc(n + 1, sizeof *cl->secrets);
	for (c = v->child; c != NULL; c = c->next) {
		if (client_secret_rule(cl, path, c,
		    &cl->secrets[cl->nsecrets++]) != 0)
			return (EXIT_USAGE);
	}
	return (0);
}

/* Free a list of rules. */
void
client_secret_rules_free(struct secret_rule *rules, size_t n)
{
	size_t	i, j;

	for (i = 0; i < n; i++) {
		free(rules[i].name);
		for (j = 0; j < rules[i].ntemplates; j++)
			free(rules[i].templates[j]);
		free(rules[i].templates);
	}
	free(rules);
}

/* Free the rules read from "secrets". */
void
client_config_secrets_free(struct client *cl)
{
	client_secret_rules_free(cl->secrets, cl->nsecrets);
	cl->secrets = NULL;
	cl->nsecrets = 0;
}
