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
 * read-gates.c: the approval queue a client reads (gates --json,
 * gate_list): every waiting gate, oldest first, with its run, message,
 * approvals and quorum.
 */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "client/client.h"

static void	json_gate_parent(cJSON *, const struct store_gate *);

/*
 * Every waiting gate, oldest first, its message and quorum read from its
 * stored policy by the one reader.  A policy that cannot be read says so
 * as its message: the engine refuses every decision on that gate.
 */
int
client_gate_list(struct store *s, struct store_gate **gp, size_t *np,
    char **cause)
{
	struct store_gate	*g;
	struct flow_policy	 p;
	char			*why;
	size_t			 i;
	int			 rc;

	if ((rc = store_gate_list(s, gp, np, cause)) != 0)
		return (rc);
	for (i = 0; i < *np; i++) {
		g = &(*gp)[i];
		if (flow_policy_read(g->gate_json, KIND_GATE, &p, &why) != 0) {
			g->message = flow_policy_unreadable(why);
			g->quorum = 1;
			free(why);
			continue;
		}
		g->message = xstrdup(p.message != NULL ? p.message : "");
		g->quorum = p.quorum;
		flow_policy_free(&p);
	}
	return (0);
}

/* The waiting gates, as gates --json has them. */
int
client_read_gates(struct client *cl, cJSON **out)
{
	struct store_gate	*g;
	char			*cause = NULL;
	size_t			 n;
	int			 rc;

	*out = NULL;
	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	if ((rc = client_gate_list(cl->store, &g, &n, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	*out = client_json_gates(g, n);
	store_gates_free(g, n);
	return (EXIT_OK);
}

/* Gates as a JSON array (SPEC §10). */
cJSON *
client_json_gates(const struct store_gate *g, size_t n)
{
	cJSON	*arr, *o;
	size_t	 i;

	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step_id",
		    (double)g[i].step_id);
		cJSON_AddNumberToObject(o, "workflow_id",
		    (double)g[i].workflow_id);
		cJSON_AddStringToObject(o, "workflow_name",
		    g[i].workflow_name);
		cJSON_AddStringToObject(o, "step", g[i].step);
		if (g[i].label != NULL)
			cJSON_AddStringToObject(o, "label",
			    g[i].label);
		else
			cJSON_AddNullToObject(o, "label");
		cJSON_AddStringToObject(o, "message",
		    g[i].message != NULL ? g[i].message : "");
		cJSON_AddStringToObject(o, "created_by",
		    g[i].created_by != NULL ? g[i].created_by : "");
		if (g[i].created_via != NULL)
			cJSON_AddStringToObject(o, "created_via",
			    g[i].created_via);
		else
			cJSON_AddNullToObject(o, "created_via");
		json_add_time(o, "waiting_since", g[i].waiting_since);
		cJSON_AddNumberToObject(o, "approvals", g[i].approvals);
		cJSON_AddNumberToObject(o, "quorum", g[i].quorum);
		json_gate_parent(o, &g[i]);
		cJSON_AddItemToArray(arr, o);
	}
	return (arr);
}

/* A child run's gate: "parent": {"id", "name"}; else null. */
static void
json_gate_parent(cJSON *o, const struct store_gate *g)
{
	cJSON	*p;

	if (g->parent_id == 0) {
		cJSON_AddNullToObject(o, "parent");
		return;
	}
	p = cJSON_AddObjectToObject(o, "parent");
	cJSON_AddNumberToObject(p, "id", (double)g->parent_id);
	if (g->parent_name != NULL)
		cJSON_AddStringToObject(p, "name", g->parent_name);
	else
		cJSON_AddNullToObject(p, "name");
}
