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
 * fuzz-answer.c: a libFuzzer target for the answer decoder every client
 * reads the engine's replies with (engine_reply_read, engine/protocol.c:
 * a socket's line, an inbox row's reply, a recorded request's answer,
 * an outcome).  An answer it takes is encoded again as the engine would
 * send it, and that must read back to the same answer.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The answer as the engine would send it. */
static char *
fuzz_text(const struct engine_reply *r)
{
	cJSON	*o;
	char	*text;

	o = engine_reply_json(r);
	text = json_print(o);
	cJSON_Delete(o);
	return (text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct engine_reply	 r;
	char			*text, *text1, *text2;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&r, 0, sizeof r);
	if (engine_reply_read(text, &r) != 0) {
		if (r.message != NULL || r.waiting != NULL)
			abort();	/* unreadable, yet something kept */
		free(text);
		return (0);
	}
	(void)engine_outcome_name(r.outcome);
	text1 = fuzz_text(&r);
	engine_reply_clear(&r);
	if (engine_reply_read(text1, &r) != 0)
		abort();		/* the engine's own answer unreadable */
	text2 = fuzz_text(&r);
	if (strcmp(text1, text2) != 0)
		abort();		/* not the same answer again */
	engine_reply_clear(&r);
	free(text1);
	free(text2);
	free(text);
	return (0);
}
