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
 * mcp-int.h: inside sluice mcp.  server.c speaks the protocol on stdio,
 * tools.c holds the tool table (each tool's schemas and the function
 * that calls the client API for it), answer.c makes a call's answer from
 * the operation's structured result or its reason, and schema.c checks
 * a call's arguments against the tool's input schema.  A tool asks the
 * engine exactly as a command does, through client.h: the same request,
 * authority rule and one-line reasons, and nothing parsed from output.
 */

#ifndef SLUICE_MCP_INT_H
#define SLUICE_MCP_INT_H

#include <stddef.h>

#include "util/util.h"
#include "mcp/mcp.h"

struct cJSON;
struct client;

/* A tool's answer: structured content, or a failure's reason. */
struct mcp_answer {
	struct cJSON	*structured;	/* owned; NULL on failure */
	char		*text;		/* the text block, owned */
	int		 error;		/* isError */
};

/* One call of a tool: its client, arguments and what it was told. */
struct mcp_call {
	struct client		*cl;
	const struct mcp_tool	*tool;
	const struct cJSON	*args;
	struct buf		 errors;		/* why it failed, lines */
	struct cJSON		*warnings;	/* an array, or NULL */
};

struct mcp_tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*input_schema;	/* JSON text */
	const char	*output_schema;	/* JSON text */
	int		  readonly;	/* annotations.readOnlyHint */
	int		  destructive;	/* annotations.destructiveHint */

	/* The client API it calls: 0 with *out, or an exit status. */
	int		(*call)(struct mcp_call *, struct cJSON **);
};

/* answer.c: a call, from its arguments to its answer. */
void		 mcp_fail(struct mcp_answer *, const char *, ...)
		     printflike(2, 3);
void		 mcp_done(struct mcp_answer *, struct cJSON *);
const char	*mcp_str(const struct cJSON *, const char *);
void		 mcp_tool_call(struct client *, const struct mcp_tool *,
		     const struct cJSON *, struct mcp_answer *);

/* tools.c */
extern const struct mcp_tool	mcp_tools[];
extern const size_t		mcp_ntools;
const struct mcp_tool	*mcp_tool_find(const char *);

/* seed.c: the reference engine's tool names and arguments. */
struct cJSON	*mcp_seed_translate(const struct mcp_tool *,
		     const struct cJSON *, char **);
int		 mcp_seed_step_ready(struct mcp_call *, struct cJSON **);
int		 mcp_seed_template_list(struct mcp_call *, struct cJSON **);
int		 mcp_seed_template_save(struct mcp_call *, struct cJSON **);
int		 mcp_seed_template_delete(struct mcp_call *, struct cJSON **);

/* schema.c: NULL when args fit the schema, else the reason. */
char		*mcp_schema_check(const struct cJSON *, const struct cJSON *,
		     const char *);

#endif /* SLUICE_MCP_INT_H */
