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
 * fuzz-rpc.c: a libFuzzer target for the JSON-RPC decoder that every MCP
 * message from an agent (sluice mcp) or an MCP server (a step's tool)
 * passes through first.  Each input is one line: classified, its id read
 * as an integer, and answered as the server would answer it, so the
 * builders see whatever the decoder let through.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "util/rpc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpc_msg	 m;
	char		*text, *out = NULL;
	int64_t		 id;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&m, 0, sizeof m);
	switch (rpc_parse(text, size, &m)) {
	case RPC_INVALID:
		out = rpc_error(m.id, m.code, m.why, NULL);
		break;
	case RPC_REQUEST:
		rpc_id_int(m.id, &id);
		out = rpc_result(m.id, m.params != NULL ?
		    cJSON_Duplicate(m.params, 1) : cJSON_CreateObject());
		break;
	case RPC_ERROR:
		out = rpc_error(m.id, m.code, m.message, m.data != NULL ?
		    cJSON_Duplicate(m.data, 1) : NULL);
		break;
	case RPC_NOTIFICATION:
	case RPC_RESULT:
		out = rpc_notification(m.method != NULL ? m.method : "x",
		    NULL);
		break;
	}
	(void)rpc_kind_name(m.kind);
	free(out);
	rpc_msg_clear(&m);
	free(text);
	return (0);
}
