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
 * submit.c: how a command reports the engine's answer (client.h asks
 * it): the engine's line on stdout, a refusal as "sluice: ..." with its
 * exit status, and, when no engine was running, a note saying the change
 * is recorded but nothing runs until one starts, and how to start one.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

/* Send a request; returns the exit status after printing the answer. */
int
cli_submit(struct client *ctx, const struct engine_request *q,
    struct engine_reply *r, int quiet)
{
	int	 rc;

	if ((rc = client_ask(ctx, q, r)) != 0)
		return (rc);
	return (cli_reply(ctx, r, quiet));
}

/* Print the engine's answer to a request; returns the exit status. */
int
cli_reply(struct client *ctx, struct engine_reply *r, int quiet)
{
	if (r->code != 0) {
		cli_error("%s", r->message != NULL ? r->message : "refused");
		return (r->code);
	}
	if (!quiet && r->message != NULL)
		cli_printf("%s\n", r->message);
	if (r->offline)
		client_offline_note(ctx);
	return (EXIT_OK);
}

/*
 * An operator command on a workflow or step, with an optional comment and
 * --from: build its arguments, send it, print the answer.
 */
int
cli_submit_action(struct client *ctx, const char *command, int64_t wf,
    int64_t step, const char *comment, const char *from)
{
	struct engine_reply	 r;
	int			 rc;

	if ((rc = client_command(ctx, command, wf, step, comment, from,
	    &r)) == 0)
		rc = cli_reply(ctx, &r, 0);
	engine_reply_clear(&r);
	return (rc);
}
