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
 * progress.c: progress a step reports as it runs.  A line of its own on
 * stdout or stderr, "::progress 40 copying files" (a percentage from 0 to
 * 100, "%" allowed, then a message; either may be left out), replaces the
 * step row's latest progress.  Lines are found across the chunks the
 * pipes deliver; only lines that begin with ':' are held, and at most
 * ENGINE_PROGRESS_MAX bytes of each.  Progress lines stay in the log but
 * are taken out of stdout before it becomes the step's result.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

#define PROGRESS_TAG	"::progress"
#define PROGRESS_TAGLEN	(sizeof PROGRESS_TAG - 1)

static int	 engine_progress_is(const char *, size_t);
static void	 engine_progress_line(struct engine *, struct estep *,
		     const char *, size_t);

/* Does this line (no newline) begin with the tag, as a word? */
static int
engine_progress_is(const char *line, size_t len)
{
	if (len < PROGRESS_TAGLEN ||
	    memcmp(line, PROGRESS_TAG, PROGRESS_TAGLEN) != 0)
		return (0);
	return (len == PROGRESS_TAGLEN || line[PROGRESS_TAGLEN] == ' ' ||
	    line[PROGRESS_TAGLEN] == '\t' || line[PROGRESS_TAGLEN] == '\r');
}

/* A whole progress line: its percentage and message onto the row. */
static void
engine_progress_line(struct engine *e, struct estep *es, const char *line,
    size_t len)
{
	const char	*p = line + PROGRESS_TAGLEN, *end = line + len;
	char		*text, *c;
	int		 pct = -1, n = 0, digits = 0;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (p + digits < end && digits < 4 &&
	    isdigit((unsigned char)p[digits])) {
		n = n * 10 + (p[digits] - '0');
		digits++;
	}
	if (digits > 0 && digits < 4 && n <= 100) {
		/* A number is the percentage only as a word of its own. */
		if (p + digits < end && p[digits] == '%')
			digits++;
		if (p + digits == end || isspace((unsigned char)p[digits])) {
			pct = n;
			p += digits;
		}
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	text = str_utf8_repair(p, (size_t)(end - p));
	for (c = text; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	}
	engine_txn(e);
	if (store_step_set_progress(e->store, es->id, pct,
	    *text != '\0' ? text : NULL) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(text);
}

/*
 * A chunk of a step's output on pipe n (0 stdout, 1 stderr): find the
 * progress lines in it, holding a candidate line across chunks.
 */
void
engine_progress_feed(struct engine *e, struct estep *es, int n,
    const char *data, size_t len)
{
	struct buf	*pl = &es->pline[n];
	const char	*p = data, *end = data + len, *nl, *stop;
	size_t		 room;

	while (p < end) {
		if (es->pmid[n] == 0) {
			es->pmid[n] = *p == ':' ? 2 : 1;
			pl->len = 0;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		stop = nl != NULL ? nl : end;
		if (es->pmid[n] == 2 && pl->len < ENGINE_PROGRESS_MAX) {
			room = ENGINE_PROGRESS_MAX - pl->len;
			buf_add(pl, p, (size_t)(stop - p) < room ?
			    (size_t)(stop - p) : room);
		}
		if (nl == NULL)
			break;
		if (es->pmid[n] == 2 && engine_progress_is(pl->data, pl->len))
			engine_progress_line(e, es, pl->data, pl->len);
		es->pmid[n] = 0;
		p = nl + 1;
	}
}

/* Take the progress lines out of a step's stdout, before its result. */
void
engine_progress_strip(struct buf *out)
{
	char	*p, *end, *nl, *w;
	size_t	 len;

	if (out->len == 0 || memchr(out->data, ':', out->len) == NULL)
		return;
	p = w = out->data;
	end = out->data + out->len;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl + 1 : end) - p);
		if (!engine_progress_is(p, nl != NULL ? (size_t)(nl - p) :
		    len)) {
			memmove(w, p, len);
			w += len;
		}
		p += len;
	}
	out->len = (size_t)(w - out->data);
}
