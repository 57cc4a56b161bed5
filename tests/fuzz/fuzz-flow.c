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
 * fuzz-flow.c: a libFuzzer target for the pure flow layer.  Each input is
 * fed to the document parser (with checking and locating), the condition
 * parser and evaluator, and interpolation.  make check runs it for a few
 * seconds (tests/fuzz/check.sh); tests/fuzz/run.sh for longer.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_diags	*d;
	struct flow_doc		*doc;
	struct flow_tools	*tools;
	struct flow_diag	*fd;
	struct cond		*c;
	cJSON			*scope;
	char			*text, *cause = NULL, *s;
	int64_t			 ms;
	const char		*why;

	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';

	d = flow_diags_create();
	tools = flow_tools_parse(text, size, d);
	flow_diags_free(d);
	d = flow_diags_create();
	doc = flow_doc_parse(text, size, tools, d);
	TAILQ_FOREACH(fd, d, entry) {
		s = flow_diag_format(fd, "fuzz");
		free(s);
	}
	if (doc != NULL) {
		free(flow_doc_input(doc, NULL, &cause));
		free(cause);
		cause = NULL;
		flow_doc_free(doc);
	}
	flow_diags_free(d);
	if (tools != NULL)
		flow_tools_free(tools);

	scope = cJSON_Parse("{\"result\": {\"a\": [1, \"x\", null], \"b\": "
	    "true}, \"exit_code\": 3, \"input\": {\"k.v\": \"w\"}, \"steps\": "
	    "{\"s\": {\"result\": 5}}}");
	if ((c = cond_parse(text, &cause)) != NULL) {
		cond_eval(c, scope);
		cond_free(c);
	}
	free(cause);
	s = interp_text(text, scope);
	free(s);
	flow_duration_parse(text, &ms, &why);
	cJSON_Delete(scope);
	free(text);
	return (0);
}
