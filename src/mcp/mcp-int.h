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
 * tools.c holds the tool table (each tool's schemas and the CLI command
 * it is), answer.c runs a tool's command and makes its answer, schema.c
 * checks a call's arguments against the tool's input schema, and call.c
 * runs a CLI command in this process with its output and messages
 * captured, so a tool goes exactly where the command goes: the same
 * engine request, authority rule and one-line reasons.
 */

#ifndef SLUICE_MCP_INT_H
#define SLUICE_MCP_INT_H

#include <stddef.h>

#include "util/util.h"
#include "mcp/mcp.h"

struct cJSON;
struct cli_ctx;

/* call.c: a CLI command's exit status, stdout and messages. */
struct mcp_run {
	int		 rc;
	char		*out;		/* stdout, NUL-terminated */
	size_t		 outlen;
	char		*err;		/* stderr lines, "sluice: " removed */
};
struct mcp_argv {
	char		**v;
	int		  n;
};
void		 mcp_argv_add(struct mcp_argv *, const char *);
void		 mcp_argv_free(struct mcp_argv *);
int		 mcp_run_cli(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_run *);
void		 mcp_run_free(struct mcp_run *);

/* A tool's answer: structured content, or a failure's reason. */
struct mcp_answer {
	struct cJSON	*structured;	/* owned; NULL on failure */
	char		*text;		/* the text block, owned */
	int		 error;		/* isError */
};

struct mcp_tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*input_schema;	/* JSON text */
	const char	*output_schema;	/* JSON text */
	int		  readonly;	/* annotations.readOnlyHint */
	int		  destructive;	/* annotations.destructiveHint */
	void		(*call)(struct cli_ctx *, const struct cJSON *,
			    struct mcp_answer *);
};

/* A private directory for documents handed to a command as files. */
struct mcp_tmp {
	char	*dir;
	char	*paths[3];
	int	 n;
};

/* answer.c: around a tool's command, from its arguments to its answer. */
void		 mcp_fail(struct mcp_answer *, const char *, ...)
		     printflike(2, 3);
void		 mcp_done(struct mcp_answer *, struct cJSON *);
const char	*mcp_tmp_write(struct mcp_tmp *, const char *,
		     const struct cJSON *, char **);
void		 mcp_tmp_free(struct mcp_tmp *);
const char	*mcp_str(const struct cJSON *, const char *);
void		 mcp_argv_id(struct mcp_argv *, const struct cJSON *,
		     const char *);
void		 mcp_argv_step(struct mcp_argv *, const struct cJSON *);
const char	*mcp_document(struct mcp_tmp *, const struct cJSON *,
		     const char *, const char *, struct mcp_answer *);
char		*mcp_untemp(const char *, const char *);
int		 mcp_exec(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_tmp *, struct mcp_answer *, struct cJSON **);
void		 mcp_warnings(struct mcp_answer *, struct cJSON *);
void		 mcp_exec_line(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_tmp *, struct mcp_answer *, struct cJSON *);
void		 mcp_exec_json(struct cli_ctx *, struct mcp_argv *,
		     const char *, struct mcp_answer *);

/* tools.c */
extern const struct mcp_tool	mcp_tools[];
extern const size_t		mcp_ntools;
const struct mcp_tool	*mcp_tool_find(const char *);

/* schema.c: NULL when args fit the schema, else the reason. */
char		*mcp_schema_check(const struct cJSON *, const struct cJSON *,
		     const char *);

#endif /* SLUICE_MCP_INT_H */
