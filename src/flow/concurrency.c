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
 * concurrency.c: the "concurrency" object of a run or a step (SPEC §13):
 * a key (interpolated when the run or step would start), how many with
 * that key may be in flight at once, and what a start that finds no free
 * slot does: wait its turn ("queue") or be refused ("refuse").
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* A key longer than this, once interpolated, is refused at start. */
#define FLOW_CONC_KEY_MAX	256

static const char *const conc_fields[] = { "key", "limit", "on_busy" };
#define CONC_NFIELDS (sizeof conc_fields / sizeof conc_fields[0])

/* "limit": a whole number of at least one. */
static void
conc_limit(struct flow_concurrency *c, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble
	    || v->valuedouble < 1 || v->valuedouble > INT_MAX) {
		flow_diags_add(d, FLOW_ERROR, path, "limit must be a whole "
		    "number of at least 1, got %s", cJSON_IsNumber(v) ?
		    "another number" : json_type_name(v));
		return;
	}
	c->limit = (int)v->valuedouble;
}

/* "on_busy": "queue" or "refuse". */
static void
conc_on_busy(struct flow_concurrency *c, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	if (cJSON_IsString(v) && strcmp(v->valuestring, "queue") == 0)
		c->refuse = 0;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "refuse") == 0)
		c->refuse = 1;
	else
		flow_diags_add(d, FLOW_ERROR, path, "on_busy must be \"queue\" "
		    "or \"refuse\"");
}

/* Parse a "concurrency" object at path into c (limit 1, queue unless said). */
void
flow_concurrency_parse(struct flow_concurrency *c, const cJSON *v,
    const char *path, struct flow_diags *d)
{
	const cJSON	*f;
	const char	*hint;
	char		*sub;
	size_t		 i;

	flow_concurrency_clear(c);
	c->limit = 1;
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "concurrency must be an "
		    "object {\"key\": ..., \"limit\": N, \"on_busy\": \"queue\" "
		    "or \"refuse\"}, got %s", json_type_name(v));
		return;
	}
	for (f = v->child; f != NULL; f = f->next) {
		sub = flow_path_key(path, f->string);
		for (i = 0; i < CONC_NFIELDS; i++) {
			if (strcmp(f->string, conc_fields[i]) == 0)
				break;
		}
		if (i == CONC_NFIELDS) {
			hint = flow_suggest(f->string, conc_fields,
			    CONC_NFIELDS);
			flow_diags_add(d, FLOW_ERROR, sub, "unknown concurrency "
			    "field \"%s\"%s%s%s", f->string, hint != NULL ?
			    " (did you mean \"" : "", hint != NULL ? hint : "",
			    hint != NULL ? "\"?)" : "");
		} else if (strcmp(f->string, "key") == 0) {
			free(c->key);
			c->key = flow_json_string(f, sub, 1, d);
		} else if (strcmp(f->string, "limit") == 0)
			conc_limit(c, f, sub, d);
		else
			conc_on_busy(c, f, sub, d);
		free(sub);
	}
	if (c->key == NULL && cJSON_GetObjectItemCaseSensitive(v, "key") ==
	    NULL) {
		sub = flow_path_key(path, "key");
		flow_diags_add(d, FLOW_ERROR, sub, "concurrency needs a key");
		free(sub);
	}
}

/* Forget what a concurrency object holds. */
void
flow_concurrency_clear(struct flow_concurrency *c)
{
	free(c->key);
	memset(c, 0, sizeof *c);
}

/*
 * The key for one run or step: c's key interpolated in scope.  NULL with
 * why when it comes out empty or too long (the start is refused).
 */
char *
flow_concurrency_key(const struct flow_concurrency *c, const cJSON *scope,
    char **cause)
{
	char	*key;

	key = interp_text(c->key, scope);
	if (*key == '\0' || strlen(key) > FLOW_CONC_KEY_MAX ||
	    vis_needed(key)) {
		xasprintf(cause, "concurrency key \"%s\" comes out %s", c->key,
		    *key == '\0' ? "empty" : strlen(key) > FLOW_CONC_KEY_MAX ?
		    "longer than 256 bytes" : "with control characters");
		free(key);
		return (NULL);
	}
	return (key);
}
