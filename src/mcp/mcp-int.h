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
 * tools.c holds the tool table (each tool's schemas, the CLI command it
 * is, how its arguments go on that command's line and how its output
 * becomes the answer) and the one function that reads a row, answer.c
 * runs a tool's command and makes its answer, schema.c checks a call's
 * arguments against the tool's input schema, and call.c runs a CLI
 * command in this process with its output and messages captured, so a
 * tool goes exactly where the command goes: the same engine request,
 * authority rule and one-line reasons.
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

/*
 * How one tool argument goes on its command's line: as the value of an
 * option, or (opt NULL) a positional after "--".
 */
enum mcp_arg_kind {
	MCP_ARG_STR,		/* a string as it is */
	MCP_ARG_ID,		/* an integer */
	MCP_ARG_STEP,		/* a step: its id, or WORKFLOW:STEP */
	MCP_ARG_JSON,		/* any JSON value, as its text */
	MCP_ARG_FILE,		/* a document: a path, or an object */
	MCP_ARG_DOC,		/* a document: JSON text, or an object */
	MCP_ARG_VERB		/* a word of the command itself */
};
/* A document given as an object (or DOC's text) is written to a file. */
struct mcp_arg {
	const char		*key;	/* the argument's name */
	const char		*opt;	/* "--limit", "-m"; NULL: positional */
	enum mcp_arg_kind	 kind;
	const char		*file;	/* FILE, DOC: the file's name */
	const char		*cmd;	/* when given, the command is this */
};
#define MCP_MAXARGS	6
#define MCP_MAXECHO	2

struct mcp_call;

struct mcp_tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*input_schema;	/* JSON text */
	const char	*output_schema;	/* JSON text */
	int		  readonly;	/* annotations.readOnlyHint */
	int		  destructive;	/* annotations.destructiveHint */

	/* The command it is and how its arguments go on the line. */
	const char	*cmd;		/* "template show --json" */
	struct mcp_arg	  args[MCP_MAXARGS];
	const char	*either[2];	/* exactly one of these is given */

	/* How its output becomes the answer. */
	void		(*answer)(struct mcp_call *);
	const char	*key;		/* where the output goes, if named */
	const char	*echo[MCP_MAXECHO]; /* arguments the answer repeats */
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
const char	*mcp_document(struct mcp_tmp *, const struct cJSON *,
		     const char *, const char *, int, struct mcp_answer *);
char		*mcp_untemp(const char *, const char *);
int		 mcp_exec(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_tmp *, struct mcp_answer *, struct cJSON **);
void		 mcp_warnings(struct mcp_answer *, struct cJSON *);
void		 mcp_exec_line(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_tmp *, struct mcp_answer *, struct cJSON *);
void		 mcp_exec_json(struct cli_ctx *, struct mcp_argv *,
		     struct mcp_tmp *, const char *, struct mcp_answer *);

/* tools.c */
extern const struct mcp_tool	mcp_tools[];
extern const size_t		mcp_ntools;
const struct mcp_tool	*mcp_tool_find(const char *);
void			 mcp_tool_call(struct cli_ctx *,
			     const struct mcp_tool *, const struct cJSON *,
			     struct mcp_answer *);

/* schema.c: NULL when args fit the schema, else the reason. */
char		*mcp_schema_check(const struct cJSON *, const struct cJSON *,
		     const char *);

#endif /* SLUICE_MCP_INT_H */
