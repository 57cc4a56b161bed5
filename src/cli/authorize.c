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
 * authorize.c: an early answer, before "sluice template edit" opens an
 * editor, to whether this user may save the template at all, so nobody
 * edits for nothing.  It asks the rule the engine applies
 * (engine/authority.c), with this process's uid and the site's policy; a
 * refusal is audited and exits 4.  The save itself goes through the
 * engine (engine/template.c), which asks again.
 */

#include <unistd.h>

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

/*
 * May this process's user do verb (e.g. "template save") on target?
 * 0, or the exit status after saying why and auditing the refusal.
 * The store must be open for writing.
 */
int
cli_authorize(struct client *ctx, const char *verb, const char *target)
{
	struct engine_opts		 opts;
	struct authority_caller		 caller;
	struct authority_ask		 q;
	struct store_audit_entry	 a;
	char				*why = NULL, *action, *cause = NULL;
	int				 rc;

	memset(&opts, 0, sizeof opts);
	if ((rc = client_config(ctx, &opts)) != 0)
		return (rc);
	authority_caller_init(&caller, getuid());
	memset(&q, 0, sizeof q);
	q.verb = verb;
	if (authority_check(&opts.authority, &caller, &q, &why)) {
		authority_caller_clear(&caller);
		return (0);
	}
	authority_caller_clear(&caller);
	xasprintf(&action, "%s-refused", verb);
	memset(&a, 0, sizeof a);
	a.action = action;
	a.target = target;
	a.comment = why;
	if (store_audit_add(ctx->store, &ctx->actor, &a, &cause) != 0) {
		cli_error("%s", cause);
		free(cause);
	}
	cli_error("%s", why);
	free(action);
	free(why);
	return (EXIT_REFUSED);
}
