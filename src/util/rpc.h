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
 * rpc.h: the JSON-RPC 2.0 messages MCP speaks, one per line on a stdio
 * pipe: build requests, notifications, results and errors, and parse a
 * line into one classified message.  Pure (cJSON and util only), so both
 * the MCP server (sluice mcp) and the engine's MCP client share it and
 * the unit tests can take it alone.
 */

#ifndef SLUICE_UTIL_RPC_H
#define SLUICE_UTIL_RPC_H

#include <stddef.h>
#include <stdint.h>

/* The error codes of JSON-RPC 2.0 (section 5.1). */
#define RPC_PARSE_ERROR		-32700
#define RPC_INVALID_REQUEST	-32600
#define RPC_METHOD_NOT_FOUND	-32601
#define RPC_INVALID_PARAMS	-32602
#define RPC_INTERNAL_ERROR	-32603

#define RPC_LINE_MAX	(4 * 1024 * 1024)	/* one message, at most */

enum rpc_kind {
	RPC_INVALID,		/* answer with error code and why */
	RPC_REQUEST,		/* method and id: answer it */
	RPC_NOTIFICATION,	/* method, no id: never answered */
	RPC_RESULT,		/* id and result */
	RPC_ERROR		/* id (may be null) and error */
};

struct cJSON;

struct rpc_msg {
	enum rpc_kind		 kind;
	struct cJSON		*root;		/* the whole message, owned */
	const struct cJSON	*id;		/* into root; NULL: none */
	const char		*method;	/* requests, notifications */
	const struct cJSON	*params;	/* object, array or NULL */
	const struct cJSON	*result;	/* RPC_RESULT */
	int			 code;		/* RPC_ERROR; RPC_INVALID's answer */
	const char		*message;	/* RPC_ERROR's message */
	const struct cJSON	*data;		/* RPC_ERROR's data, or NULL */
	char			*why;		/* RPC_INVALID: one line, owned */
};

const char	*rpc_kind_name(enum rpc_kind);
enum rpc_kind	 rpc_parse(const char *, size_t, struct rpc_msg *);
void		 rpc_msg_clear(struct rpc_msg *);
int		 rpc_id_int(const struct cJSON *, int64_t *);

/* Builders: one line of JSON without its newline; params/result consumed. */
char		*rpc_request(int64_t, const char *, struct cJSON *);
char		*rpc_notification(const char *, struct cJSON *);
char		*rpc_result(const struct cJSON *, struct cJSON *);
char		*rpc_error(const struct cJSON *, int, const char *,
		     struct cJSON *);

#endif /* SLUICE_UTIL_RPC_H */
