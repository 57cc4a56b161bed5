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
 * relay-caller.c: a command that came through another cluster node
 * carries the caller's uid (that node's peer credentials) and the name
 * that node's accounts give it.  The leader decides authority by the uid
 * with its own accounts (authority.c), so the uid must name the same
 * person here: where it names another, or no one, the nodes' accounts
 * differ and the command is refused, saying so, rather than decided as
 * someone else.
 */

#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

/*
 * 0 when the command may be decided as caller; else -1 with why in
 * *why: m came from another node whose name for its uid is not caller's.
 */
int
engine_relay_caller_ok(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, char **why)
{
	const char	*here = engine_node_name();

	if (e->leader == NULL || m->node == NULL ||
	    strcmp(m->node, here) == 0 ||
	    (m->who != NULL && strcmp(m->who, caller->name) == 0))
		return (0);
	xasprintf(why, "uid %lld is %s on node %s but %s on this node (%s), "
	    "which decides: " STORE_ACCOUNTS_DIFFER " (uids and groups); "
	    "refused", (long long)m->uid,
	    m->who != NULL ? m->who : "unnamed", m->node,
	    caller->gid == (gid_t)-1 ? "no account" : caller->name, here);
	return (-1);
}
