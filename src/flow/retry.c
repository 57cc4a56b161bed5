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
 * retry.c: retry objects, a step's or a tool's: the list form
 * {"max_attempts", "backoff": [...]} or the exponential form
 * {"base", "factor", "max", "jitter"}, and the default waits.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

const int64_t	flow_default_backoff[FLOW_DEFAULT_NBACKOFF] = {
	5000, 30000, 60000
};

/* Parse a retry object: list form or exponential form, not both. */
void
flow_retry_parse(const cJSON *v, const char *path, struct flow_retry *r,
    struct flow_diags *d)
{
	static const char	*known[] = {
		"max_attempts", "backoff", "base", "factor", "max", "jitter"
	};
	const cJSON		*c, *e;
	const char		*why;
	char			*sub, *esub;
	int64_t			 n, ms;
	size_t			 i;
	int			 expo = 0;

	flow_retry_free(r);
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected an object such "
		    "as {\"max_attempts\": 3, \"backoff\": [\"5s\", \"30s\"]}, "
		    "got %s", json_type_name(v));
		return;
	}
	r->set = 1;
	r->max_attempts = FLOW_DEFAULT_ATTEMPTS;
	r->factor = 2;
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		if (strcmp(c->string, "max_attempts") == 0) {
			if (flow_json_int(c, sub, 1, 100, &n, d) == 0)
				r->max_attempts = (int)n;
		} else if (strcmp(c->string, "backoff") == 0) {
			if (!cJSON_IsArray(c) || c->child == NULL)
				flow_diags_add(d, FLOW_ERROR, sub, "expected a "
				    "non-empty array of durations, got %s",
				    cJSON_IsArray(c) ? "an empty array" :
				    json_type_name(c));
			for (i = 0, e = cJSON_IsArray(c) ? c->child : NULL;
			    e != NULL; e = e->next, i++) {
				esub = flow_path_index(sub, i);
				if (flow_duration_json(e, &ms, &why) != 0)
					flow_diags_add(d, FLOW_ERROR, esub,
					    "%s", why);
				else {
					r->backoff = xreallocarray(r->backoff,
					    r->nbackoff + 1, sizeof ms);
					r->backoff[r->nbackoff++] = ms;
				}
				free(esub);
			}
		} else if (strcmp(c->string, "base") == 0 ||
		    strcmp(c->string, "max") == 0) {
			expo = 1;
			if (flow_duration_json(c, &ms, &why) != 0)
				flow_diags_add(d, FLOW_ERROR, sub, "%s", why);
			else if (*c->string == 'b')
				r->base = ms;
			else
				r->max = ms;
		} else if (strcmp(c->string, "factor") == 0) {
			expo = 1;
			if (!cJSON_IsNumber(c) || c->valuedouble < 1 ||
			    c->valuedouble > 100)
				flow_diags_add(d, FLOW_ERROR, sub, "expected a "
				    "number from 1 to 100");
			else
				r->factor = c->valuedouble;
		} else if (strcmp(c->string, "jitter") == 0) {
			expo = 1;
			if (!cJSON_IsNumber(c) || c->valuedouble < 0 ||
			    c->valuedouble > 1)
				flow_diags_add(d, FLOW_ERROR, sub, "expected a "
				    "number from 0 to 1");
			else
				r->jitter = c->valuedouble;
		} else
			flow_diags_unknown(d, sub, c->string, known,
			    sizeof known / sizeof known[0], " in retry");
		free(sub);
	}
	if (expo && cJSON_GetObjectItemCaseSensitive(v, "backoff") != NULL) {
		flow_diags_add(d, FLOW_ERROR, path, "use either \"backoff\" "
		    "or \"base\"/\"factor\"/\"max\"/\"jitter\", not both");
	} else if (expo && r->base <= 0) {
		flow_diags_add(d, FLOW_ERROR, path, "the exponential form "
		    "needs \"base\" above zero");
	} else if (!expo && r->nbackoff == 0) {
		r->backoff = xcalloc(FLOW_DEFAULT_NBACKOFF,
		    sizeof *r->backoff);
		memcpy(r->backoff, flow_default_backoff,
		    sizeof flow_default_backoff);
		r->nbackoff = FLOW_DEFAULT_NBACKOFF;
	}
}

/* Free what a retry object holds and reset it to "defaults". */
void
flow_retry_free(struct flow_retry *r)
{
	free(r->backoff);
	memset(r, 0, sizeof *r);
}
