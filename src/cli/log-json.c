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
 * log-json.c: "sluice log STEP --json".  The kept chunks are cut into
 * lines, each with its time, stream (stdout, stderr, or sluice for
 * sluice's own notes) and text.  Without -f it is one document with the
 * step and whether its output was cut; with -f a script wants each line
 * as it comes, so each is one compact JSON object on a line of its own
 * (a document could not be closed before the step ends).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "cli/cli.h"

/* A stream's line not yet ended: a chunk may stop inside a line. */
struct cli_log_pending {
	const char	*stream;	/* out, err, sluice */
	struct buf	 text;
	int64_t		 at;		/* when its first piece came */
	int		 open;
};

struct cli_log_json {
	int			 follow;
	int			 truncated;
	cJSON			*doc;
	cJSON			*lines;
	struct cli_log_pending	 pend[3];
};

static const char *cli_log_streams[] = { "out", "err", "sluice" };

/* The stream as a script reads it. */
static const char *
cli_log_stream_name(const char *s)
{
	if (strcmp(s, "out") == 0)
		return ("stdout");
	if (strcmp(s, "err") == 0)
		return ("stderr");
	return (s);
}

struct cli_log_json *
cli_log_json_create(const struct store_step *st, int follow)
{
	struct cli_log_json	*lj;
	size_t			 i;

	lj = xcalloc(1, sizeof *lj);
	lj->follow = follow;
	for (i = 0; i < nitems(lj->pend); i++) {
		lj->pend[i].stream = cli_log_streams[i];
		buf_init(&lj->pend[i].text);
	}
	if (follow)
		return (lj);
	lj->doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(lj->doc, "id", (double)st->id);
	cJSON_AddNumberToObject(lj->doc, "workflow_id",
	    (double)st->workflow_id);
	cJSON_AddStringToObject(lj->doc, "name",
	    st->name != NULL ? st->name : "");
	lj->lines = cJSON_CreateArray();
	return (lj);
}

/*
 * One whole line: into the document, or printed at once with -f.  Text
 * that is not UTF-8 (a chunk may split a character) is shown escaped, so
 * the JSON stays valid.
 */
static void
cli_log_json_line(struct cli_log_json *lj, struct cli_log_pending *p)
{
	struct buf	 v;
	cJSON		*o;
	char		 when[64], *s;

	buf_init(&v);
	if (utf8_valid(p->text.data, p->text.len, NULL))
		buf_add(&v, p->text.data, p->text.len);
	else
		vis_buf(&v, p->text.data, p->text.len, VIS_TAB);
	buf_putc(&v, '\0');
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "time",
	    time_rfc3339(p->at, when, sizeof when));
	cJSON_AddStringToObject(o, "stream", cli_log_stream_name(p->stream));
	cJSON_AddStringToObject(o, "text", v.data);
	buf_free(&v);
	if (lj->follow) {
		s = json_print(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
	} else
		cJSON_AddItemToArray(lj->lines, o);
	p->text.len = 0;
	p->open = 0;
}

void
cli_log_json_add(struct cli_log_json *lj, const struct store_log *l,
    size_t n)
{
	struct cli_log_pending	*p;
	size_t			 i, j, k;

	for (i = 0; i < n; i++) {
		if (strcmp(l[i].stream, "sluice") == 0 &&
		    l[i].len >= strlen(STORE_LOG_CUT) &&
		    memcmp(l[i].data, STORE_LOG_CUT,
		    strlen(STORE_LOG_CUT)) == 0)
			lj->truncated = 1;
		/* sluice's own notes come after what was written before. */
		for (j = 0; j < nitems(lj->pend) &&
		    strcmp(l[i].stream, "sluice") == 0; j++) {
			if (lj->pend[j].open)
				cli_log_json_line(lj, &lj->pend[j]);
		}
		p = &lj->pend[nitems(lj->pend) - 1];
		for (j = 0; j < nitems(lj->pend); j++) {
			if (strcmp(l[i].stream, cli_log_streams[j]) == 0)
				p = &lj->pend[j];
		}
		for (j = 0; j < l[i].len; j = k) {
			for (k = j; k < l[i].len && l[i].data[k] != '\n'; k++)
				/* nothing */;
			if (!p->open) {
				p->at = l[i].at;
				p->open = 1;
			}
			buf_add(&p->text, l[i].data + j, k - j);
			if (k < l[i].len) {
				cli_log_json_line(lj, p);
				k++;
			}
		}
	}
	if (lj->follow)
		fflush(stdout);
}

/* The step is done (or was not followed): end what is open, print. */
void
cli_log_json_end(struct cli_log_json *lj)
{
	size_t	 i;

	for (i = 0; i < nitems(lj->pend); i++) {
		if (lj->pend[i].open)
			cli_log_json_line(lj, &lj->pend[i]);
	}
	if (lj->doc != NULL) {
		cJSON_AddBoolToObject(lj->doc, "truncated", lj->truncated);
		cJSON_AddItemToObject(lj->doc, "lines", lj->lines);
		lj->lines = NULL;
		cli_json_out(lj->doc);
		lj->doc = NULL;
	}
	fflush(stdout);
	cli_log_json_free(lj);
}

void
cli_log_json_free(struct cli_log_json *lj)
{
	size_t	 i;

	if (lj == NULL)
		return;
	for (i = 0; i < nitems(lj->pend); i++)
		buf_free(&lj->pend[i].text);
	cJSON_Delete(lj->lines);
	cJSON_Delete(lj->doc);
	free(lj);
}
