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
 * mcp.h: sluice mcp, an MCP server on stdin and stdout for agents.  It
 * acts as the user who runs it, through the client API (client.h) every
 * client uses, and marks everything it asks the engine with via "mcp".
 */

#ifndef SLUICE_MCP_H
#define SLUICE_MCP_H

struct client;

/* The newest protocol revision sluice speaks (server.c lists them all). */
#define MCP_PROTOCOL_LATEST	"2025-11-25"

int		 mcp_serve(struct client *, int, int);

#endif /* SLUICE_MCP_H */
