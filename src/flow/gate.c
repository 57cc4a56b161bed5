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
 * gate.c: gate options, a gate step's or a for-each's between batches:
 * message, approvers, quorum, allow_self, agents, timeout and on_timeout.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* Parse gate options (a gate step's, or a for-each's between batches). */
void
flow_gate_parse(struct flow_gate *g, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	static const char	*known[] = {
		"message", "approvers", "quorum", "allow_self", "agents",
		"timeout", "on_timeout"
	};
	const cJSON		*c;
	const char		*why;
	char			*sub;
	int64_t			 n;
	size_t			 i;
	int			 groups = 0;

	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected an object, "
		    "got %s", json_type_name(v));
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		if (strcmp(c->string, "message") == 0) {
			free(g->message);
			g->message = flow_json_string(c, sub, 0, d);
		} else if (strcmp(c->string, "approvers") == 0) {
			flow_strings_free(g->approvers, g->napprovers);
			g->approvers = flow_json_strings(c, sub,
			    &g->napprovers, d);
			for (i = 0; i < g->napprovers; i++) {
				if (g->approvers[i][0] == '@')
					groups = 1;
				if (g->approvers[i][0] == '\0' ||
				    strcmp(g->approvers[i], "@") == 0)
					flow_diags_add(d, FLOW_ERROR, sub,
					    "approver %zu is empty", i + 1);
			}
		} else if (strcmp(c->string, "quorum") == 0) {
			if (flow_json_int(c, sub, 1, 1000, &n, d) == 0)
				g->quorum = (int)n;
		} else if (strcmp(c->string, "allow_self") == 0) {
			if (!cJSON_IsBool(c))
				flow_diags_add(d, FLOW_ERROR, sub,
				    "expected true or false, got %s",
				    json_type_name(c));
			else
				g->allow_self = cJSON_IsTrue(c);
		} else if (strcmp(c->string, "agents") == 0) {
			if (!cJSON_IsBool(c))
				flow_diags_add(d, FLOW_ERROR, sub,
				    "expected true or false, got %s",
				    json_type_name(c));
			else
				g->agents = cJSON_IsTrue(c);
		} else if (strcmp(c->string, "timeout") == 0) {
			if (flow_duration_json(c, &g->timeout, &why) != 0) {
				flow_diags_add(d, FLOW_ERROR, sub, "%s",
				    why);
				g->timeout = -1;
			} else if (g->timeout <= 0) {
				flow_diags_add(d, FLOW_ERROR, sub,
				    "timeout must be above zero");
				g->timeout = -1;
			}
		} else if (strcmp(c->string, "on_timeout") == 0) {
			free(g->on_timeout);
			g->on_timeout = flow_json_string(c, sub, 1, d);
		} else
			flow_diags_unknown(d, sub, c->string, known,
			    sizeof known / sizeof known[0], " in gate options");
		free(sub);
	}
	if (g->napprovers > 0 && !groups && (size_t)g->quorum > g->napprovers) {
		sub = flow_path_key(path, "quorum");
		flow_diags_add(d, FLOW_ERROR, sub, "quorum %d is more than "
		    "the %zu approvers", g->quorum, g->napprovers);
		free(sub);
	}
	if (g->on_timeout != NULL && g->timeout < 0) {
		sub = flow_path_key(path, "on_timeout");
		flow_diags_add(d, FLOW_WARNING, sub,
		    "on_timeout has no effect without a timeout");
		free(sub);
	}
}
