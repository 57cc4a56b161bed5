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
 * mcp.c: "sluice mcp", an MCP server on stdin and stdout for agents (see
 * src/mcp/).  Everything it asks the engine carries via "mcp", so the
 * audit trail tells an agent's actions from a person's and gates can
 * refuse decisions that did not come from a person.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp.h"

static int	cmd_mcp_run(struct client *, const struct cli_args *);

const struct cli_cmd cli_cmd_mcp = {
	.name = "mcp",
	.summary = "Serve MCP (JSON-RPC on stdin and stdout) for agents.",
	.help =
	    "Reads one JSON-RPC message per line on stdin and answers on\n"
	    "stdout; messages go to stderr.  Its tools act as the user who\n"
	    "runs it, audited \"via mcp\".  See sluice(1), MCP.\n",
	.run = cmd_mcp_run
};

/* Serve MCP until the client closes stdin. */
static int
cmd_mcp_run(struct client *ctx, const struct cli_args *args)
{
	int	in, out, rc;

	(void)args;
	ctx->actor.via = "mcp";
	/* Tools run commands with fds 0 and 1 redirected: keep the pipes. */
	fflush(stdout);
	if ((in = dup(0)) == -1 || (out = dup(1)) == -1) {
		cli_error("mcp: cannot use stdin and stdout");
		return (EXIT_FAILED);
	}
	/* A client that goes away is a write error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	rc = mcp_serve(ctx, in, out);
	close(in);
	close(out);
	return (rc);
}
