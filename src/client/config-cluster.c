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
 * config-cluster.c: the site config's keys for cluster mode (SPEC §14):
 * "database", the database every command and engine uses when neither
 * --db nor $SLUICE_DB names one ("postgresql:service=NAME" in a
 * cluster), and "cluster": {"lease_ms": L, "node": NAME, "reader":
 * LOGIN}, the lease a leader holds the lock by, this node's name, which
 * goes to the one rule that names a node (engine_node_name:
 * $SLUICE_NODE, else this, else the host's name), and the login members'
 * reads on the node's socket run as (a postgresql: name).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "client/client.h"

#define CLUSTER_LEASE_MIN	1000	/* ms: a heartbeat every L/4 */
#define CLUSTER_LEASE_MAX	600000
#define CLUSTER_NODE_MAX	64	/* bytes of a node's name */

/* Whether a node's name is one: letters, digits, ".", "-", "_". */
static int
cluster_node_valid(const char *name)
{
	size_t	 len = strlen(name);

	return (len > 0 && len <= CLUSTER_NODE_MAX &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-_") == len);
}

/*
 * "cluster": an object of lease_ms and node, each checked with its
 * place; into opts and engine_node_set.  0 or an exit status.
 */
int
client_config_cluster(struct client *cl, const char *path, const cJSON *v,
    struct engine_opts *opts)
{
	const cJSON	*e;
	int		 rc = 0;

	if (v == NULL)
		return (0);
	if (!cJSON_IsObject(v)) {
		client_error(cl, "%s: $.cluster: expected an object (lease_ms, "
		    "node, reader)", path);
		return (EXIT_USAGE);
	}
	cJSON_ArrayForEach(e, v) {
		if (strcmp(e->string, "lease_ms") == 0) {
			if (!cJSON_IsNumber(e) ||
			    e->valuedouble != (double)(int64_t)e->valuedouble ||
			    e->valuedouble < CLUSTER_LEASE_MIN ||
			    e->valuedouble > CLUSTER_LEASE_MAX) {
				client_error(cl, "%s: $.cluster.lease_ms: "
				    "expected a whole number of ms from %d "
				    "to %d", path, CLUSTER_LEASE_MIN,
				    CLUSTER_LEASE_MAX);
				rc = EXIT_USAGE;
			} else
				opts->lease = (int64_t)e->valuedouble;
		} else if (strcmp(e->string, "node") == 0) {
			if (!cJSON_IsString(e) ||
			    !cluster_node_valid(e->valuestring)) {
				client_error(cl, "%s: $.cluster.node: expected "
				    "a name of up to %d letters, digits, "
				    "\".\", \"-\" and \"_\"", path,
				    CLUSTER_NODE_MAX);
				rc = EXIT_USAGE;
			} else
				engine_node_set(e->valuestring);
		} else if (strcmp(e->string, "reader") == 0) {
			if (!cJSON_IsString(e) ||
			    !store_name_is_server(e->valuestring)) {
				client_error(cl, "%s: $.cluster.reader: "
				    "expected the reader's login as "
				    "\"postgresql:...\"", path);
				rc = EXIT_USAGE;
			} else
				engine_read_login_set(e->valuestring);
		} else {
			client_error(cl, "%s: $.cluster.%s: unknown key "
			    "(lease_ms, node, reader)", path, e->string);
			rc = EXIT_USAGE;
		}
	}
	return (rc);
}

/*
 * The site config's "database", as a new string: NULL when it does not
 * say (or the file is not there); -1 after saying why it is bad.
 */
int
client_config_database(const struct client *cl, char **pathp)
{
	cJSON	*cfg;
	char	*site;
	cJSON	*v;
	int	 rc = 0;

	*pathp = NULL;
	site = client_config_site_path();
	if (client_config_read(cl, site, &cfg) != 0) {
		free(site);
		return (-1);
	}
	v = cfg != NULL ? cJSON_GetObjectItemCaseSensitive(cfg, "database") :
	    NULL;
	if (v != NULL && (!cJSON_IsString(v) || *v->valuestring == '\0')) {
		client_error(cl, "%s: $.database: expected a database's path "
		    "or \"postgresql:...\"", site);
		rc = -1;
	} else if (v != NULL)
		*pathp = xstrdup(v->valuestring);
	cJSON_Delete(cfg);
	free(site);
	return (rc);
}
