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
 * test-rpc.c: the JSON-RPC codec MCP uses: every kind of line classified,
 * each malformed one answered with the right code and a reason, and the
 * lines it builds read back as what they were built as.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "util/rpc.h"
#include "tap.h"

static void	test_classify(void);
static void	test_build(void);

/* Table of lines and what they parse as. */
static void
test_classify(void)
{
	static const struct {
		const char	*line;
		enum rpc_kind	 kind;
		int		 code;		/* RPC_INVALID's answer */
		const char	*why;		/* part of the reason */
		const char	*method;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		    RPC_REQUEST, 0, NULL, "ping" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\","
		    "\"params\":{\"name\":\"x\"}}", RPC_REQUEST, 0, NULL,
		    "tools/call" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/initialized\"}", RPC_NOTIFICATION, 0,
		    NULL, "notifications/initialized" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", RPC_RESULT,
		    0, NULL, NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
		    "\"message\":\"x\"}}", RPC_ERROR, -32700, NULL, NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,", RPC_INVALID,
		    RPC_PARSE_ERROR, "parse error: line 1", NULL },
		{ "", RPC_INVALID, RPC_PARSE_ERROR, "parse error", NULL },
		{ "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
		    RPC_INVALID, RPC_INVALID_REQUEST, "batches", NULL },
		{ "42", RPC_INVALID, RPC_INVALID_REQUEST, "not a number", NULL },
		{ "{\"id\":1,\"method\":\"ping\"}", RPC_INVALID,
		    RPC_INVALID_REQUEST, "$.jsonrpc", NULL },
		{ "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "$.jsonrpc", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}", RPC_INVALID,
		    RPC_INVALID_REQUEST, "$.method", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "$.id", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "$.id", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "$.id", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
		    "\"params\":\"s\"}", RPC_INVALID, RPC_INVALID_REQUEST,
		    "$.params", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1}", RPC_INVALID,
		    RPC_INVALID_REQUEST, "neither", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{}}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "both", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"result\":1}", RPC_INVALID,
		    RPC_INVALID_REQUEST, "$.id", NULL },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"x\"}}",
		    RPC_INVALID, RPC_INVALID_REQUEST, "$.error", NULL },
	};
	struct rpc_msg	 m;
	size_t		 i;
	enum rpc_kind	 k;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		k = rpc_parse(cases[i].line, strlen(cases[i].line), &m);
		tap_is(rpc_kind_name(k), rpc_kind_name(cases[i].kind),
		    cases[i].line);
		if (cases[i].kind == RPC_INVALID || cases[i].kind == RPC_ERROR)
			tap_is_int(m.code, cases[i].code, "  its code");
		if (cases[i].why != NULL) {
			tap_ok(m.why != NULL && strstr(m.why, cases[i].why) !=
			    NULL, "  its reason names %s", cases[i].why);
			if (m.why == NULL || strstr(m.why, cases[i].why) ==
			    NULL)
				printf("#   why: %s\n", m.why ? m.why : "-");
		}
		if (cases[i].method != NULL)
			tap_is(m.method, cases[i].method, "  its method");
		rpc_msg_clear(&m);
	}
	/* A NUL inside the line is not cut short. */
	k = rpc_parse("{\"jsonrpc\":\"2.0\"}\0x", 19, &m);
	tap_is_int(m.code, RPC_PARSE_ERROR, "a NUL byte is a parse error");
	rpc_msg_clear(&m);
}

/* Built lines parse back as what they are, ids and all. */
static void
test_build(void)
{
	struct rpc_msg	 m, q;
	cJSON		*p;
	char		*line;
	int64_t		 id;

	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "name", "echo");
	line = rpc_request(42, "tools/call", p);
	tap_is(rpc_kind_name(rpc_parse(line, strlen(line), &q)), "request",
	    "a built request is a request");
	tap_ok(rpc_id_int(q.id, &id) == 0 && id == 42, "its id is 42");
	tap_is(cJSON_GetObjectItem(q.params, "name")->valuestring, "echo",
	    "its params survive");
	free(line);

	line = rpc_result(q.id, cJSON_CreateString("ok"));
	rpc_parse(line, strlen(line), &m);
	tap_is(rpc_kind_name(m.kind), "result", "a built result is a result");
	tap_ok(rpc_id_int(m.id, &id) == 0 && id == 42,
	    "it answers the request's id");
	free(line);
	rpc_msg_clear(&m);

	line = rpc_error(NULL, RPC_PARSE_ERROR, "bad", NULL);
	tap_is(line, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
	    "-32700,\"message\":\"bad\"}}", "an error without an id says null");
	rpc_parse(line, strlen(line), &m);
	tap_is(rpc_kind_name(m.kind), "error", "it parses as an error");
	tap_is(m.message, "bad", "  with its message");
	free(line);
	rpc_msg_clear(&m);

	line = rpc_error(q.id, RPC_METHOD_NOT_FOUND, "no", cJSON_CreateTrue());
	rpc_parse(line, strlen(line), &m);
	tap_ok(m.kind == RPC_ERROR && m.code == RPC_METHOD_NOT_FOUND &&
	    cJSON_IsTrue(m.data), "an error keeps its code and data");
	free(line);
	rpc_msg_clear(&m);
	rpc_msg_clear(&q);

	line = rpc_notification("notifications/initialized", NULL);
	tap_is(line, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", "a notification has no id");
	free(line);
	tap_ok(rpc_id_int(NULL, &id) == -1, "no id is not an integer");
}

int
main(void)
{
	json_init();
	test_classify();
	test_build();
	return (tap_done());
}
