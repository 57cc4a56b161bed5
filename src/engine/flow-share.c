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
 * flow-share.c: one parse of each distinct flow the engine holds.  Runs
 * of one template version (or one file) store the same flow text, and an
 * engine taking over loads every running one: parsing each again made a
 * takeover's cost grow with the number of runs of a flow, not of flows.
 * A parsed flow is never changed after flow_parse, so the runs of equal
 * text share it, counted, and it is freed with the last of them.  The key
 * is the whole text (its hash to find it, then the bytes), so two runs
 * share a parse only when the parse could not differ.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

RB_GENERATE(eflow_tree, eflow, entry, eflow_cmp);

/* FNV-1a: cheap beside a parse, and spreads flows that differ a little. */
static uint64_t
eflow_hash(const char *s, size_t len)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return (h);
}

/* Order shared flows by hash, then length, then text. */
int
eflow_cmp(struct eflow *a, struct eflow *b)
{
	if (a->hash != b->hash)
		return (a->hash < b->hash ? -1 : 1);
	if (a->len != b->len)
		return (a->len < b->len ? -1 : 1);
	return (memcmp(a->json, b->json, a->len));
}

/*
 * The parsed flow of json, shared with every run of the same text, or
 * NULL with its first problem in *first (the caller frees it; NULL when
 * the parser named none).
 */
struct eflow *
engine_flow_get(struct engine *e, const char *json, char **first)
{
	struct flow_diags	*d;
	struct eflow		 find, *ef;
	struct flow		*f;

	*first = NULL;
	find.len = strlen(json);
	find.hash = eflow_hash(json, find.len);
	find.json = (char *)json;
	if ((ef = RB_FIND(eflow_tree, &e->flows, &find)) != NULL) {
		ef->refs++;
		return (ef);
	}
	d = flow_diags_create();
	f = flow_parse(json, find.len, d);
	if (f == NULL || flow_diags_errors(d) > 0) {
		*first = flow_diags_first_error(d, NULL);
		flow_diags_free(d);
		if (f != NULL)
			flow_free(f);
		return (NULL);
	}
	flow_diags_free(d);
	ef = xcalloc(1, sizeof *ef);
	ef->hash = find.hash;
	ef->len = find.len;
	ef->json = xstrdup(json);
	ef->flow = f;
	ef->refs = 1;
	RB_INSERT(eflow_tree, &e->flows, ef);
	return (ef);
}

/* A run no longer holds its flow: freed with the last run of it. */
void
engine_flow_put(struct engine *e, struct eflow *ef)
{
	if (ef == NULL || --ef->refs > 0)
		return;
	RB_REMOVE(eflow_tree, &e->flows, ef);
	flow_free(ef->flow);
	free(ef->json);
	free(ef);
}
