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
 * fuzz-request.c: a libFuzzer target for the request decoder every line a
 * client sends the engine's socket passes through first
 * (engine_request_decode, engine/protocol.c).  A line it takes is encoded
 * again as a client would send it, and that line must decode to the same
 * request: what the engine reads is what a client can say.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The line a client would send for a decoded request. */
static char *
fuzz_line(const struct engine_wire *w)
{
	struct engine_request	 q;
	struct store_actor	 actor;

	memset(&q, 0, sizeof q);
	q.command = w->command;
	q.request = w->request;
	q.workflow_id = w->workflow_id;
	q.step_id = w->step_id;
	q.args_json = w->args_json;
	memset(&actor, 0, sizeof actor);
	actor.tty = w->tty;
	actor.host = w->host;
	actor.via = w->via;
	return (engine_request_line(&actor, &q));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_wire	 w;
	char			*text, *why, *line1, *line2;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	if (engine_request_decode(text, &w, &why) != 0) {
		if (why == NULL || w.command != NULL)
			abort();	/* a refusal says why, holds nothing */
		free(why);
		free(text);
		return (0);
	}
	line1 = fuzz_line(&w);
	engine_wire_clear(&w);
	if (engine_request_decode(line1, &w, &why) != 0)
		abort();		/* our own line refused */
	line2 = fuzz_line(&w);
	if (strcmp(line1, line2) != 0)
		abort();		/* not the same request again */
	(void)engine_request_id_valid(text);
	engine_wire_clear(&w);
	free(line1);
	free(line2);
	free(text);
	return (0);
}
