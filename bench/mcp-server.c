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
 * mcp-server.c: the cheapest MCP server on stdio that a step can call, for
 * engine-mcp.sh: what an MCP step costs sluice, not what a server costs
 * to start (tests/mcp/fake-server.sh, a shell script, forks for every
 * line it reads).  It answers initialize with a protocol version and
 * tools/call with one text block, ignores notifications, and exits at
 * the end of its input.  Not a general server: it looks for the method
 * and the numeric id by name in each line, which sluice's requests have.
 *
 * usage: mcp-server
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long	id_of(const char *);

/* The numeric "id" of a request line, -1 if it has none. */
static long
id_of(const char *line)
{
	const char	*p;

	if ((p = strstr(line, "\"id\":")) == NULL)
		return (-1);
	return (strtol(p + 5, NULL, 10));
}

int
main(void)
{
	char	line[65536];

	setvbuf(stdout, NULL, _IONBF, 0);
	while (fgets(line, sizeof line, stdin) != NULL) {
		if (strstr(line, "\"method\":\"initialize\"") != NULL)
			printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":"
			    "{\"protocolVersion\":\"2025-06-18\","
			    "\"capabilities\":{\"tools\":{}},\"serverInfo\":"
			    "{\"name\":\"bench\",\"version\":\"1\"}}}\n",
			    id_of(line));
		else if (strstr(line, "\"method\":\"tools/call\"") != NULL)
			printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":"
			    "{\"content\":[{\"type\":\"text\",\"text\":"
			    "\"done\"}]}}\n", id_of(line));
	}
	return (0);
}
