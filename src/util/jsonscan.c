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
 * jsonscan.c: find one value in JSON text, and walk an array's elements
 * there, without building a tree of the rest.  A for-each over the
 * 10,000 hosts of a run's input reads them this way, one host parsed at
 * a time, so what the engine holds does not grow with the items.  The
 * text is JSON sluice wrote itself; malformed text is reported (-1), never
 * read past its end.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"

static const char	*json_scan_ws(const char *, const char *);
static const char	*json_scan_string(const char *, const char *);
static size_t		 json_scan_joined(const char *, size_t, char **,
			     size_t, size_t);

/* Skip white space. */
static const char *
json_scan_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/* Skip the string token at p (a '"'): the byte after it, or NULL. */
static const char *
json_scan_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return (p + 1);
	}
	return (NULL);
}

/*
 * Skip the value at p: the byte after it, or NULL.  Containers are
 * skipped by counting brackets outside strings, so nesting costs no
 * stack; scalars run to the next delimiter.
 */
const char *
json_scan_value(const char *p, const char *end)
{
	const char	*q;
	int		 depth = 0;

	if (p >= end)
		return (NULL);
	if (*p == '"')
		return (json_scan_string(p, end));
	if (*p != '[' && *p != '{') {
		for (q = p; q < end && strchr(",]}: \t\r\n", *q) == NULL; q++)
			;
		return (q > p ? q : NULL);
	}
	while (p < end) {
		if (*p == '"') {
			if ((p = json_scan_string(p, end)) == NULL)
				return (NULL);
			continue;
		}
		if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && --depth == 0)
			return (p + 1);
		p++;
	}
	return (NULL);
}

/*
 * How many of segs[i..n) key (of klen bytes) is, joined by dots: the
 * count, or 0 when it is none of the joins.
 */
static size_t
json_scan_joined(const char *key, size_t klen, char **segs, size_t i,
    size_t n)
{
	size_t	 pos = 0, j, l;

	for (j = i; j < n; j++) {
		if (j > i) {
			if (pos >= klen || key[pos] != '.')
				return (0);
			pos++;
		}
		l = strlen(segs[j]);
		if (klen - pos < l || memcmp(key + pos, segs[j], l) != 0)
			return (0);
		pos += l;
		if (pos == klen)
			return (j - i + 1);
	}
	return (0);
}

/*
 * In the object at *p, the member naming the most of segs[i..n) joined
 * by dots (as flow_json_lookup picks): *p moves to its value, and the
 * count of parts it took is returned; 0 when none does, -1 when the text
 * is malformed.
 */
static int
json_scan_member(const char **p, const char *end, char **segs, size_t i,
    size_t n)
{
	const char	*q = json_scan_ws(*p + 1, end), *k, *best = NULL;
	cJSON		*tok;
	size_t		 took, most = 0;

	while (q < end && *q != '}') {
		if (*q != '"' || (k = json_scan_string(q, end)) == NULL)
			return (-1);
		if (memchr(q, '\\', (size_t)(k - q)) == NULL)
			took = json_scan_joined(q + 1, (size_t)(k - q - 2),
			    segs, i, n);
		else {
			/* An escaped key: let cJSON decode the token. */
			if ((tok = cJSON_ParseWithLength(q,
			    (size_t)(k - q))) == NULL)
				return (-1);
			took = json_scan_joined(tok->valuestring,
			    strlen(tok->valuestring), segs, i, n);
			cJSON_Delete(tok);
		}
		q = json_scan_ws(k, end);
		if (q >= end || *q != ':')
			return (-1);
		q = json_scan_ws(q + 1, end);
		if (took > most) {
			most = took;
			best = q;
		}
		if ((q = json_scan_value(q, end)) == NULL)
			return (-1);
		q = json_scan_ws(q, end);
		if (q < end && *q == ',')
			q = json_scan_ws(q + 1, end);
		else if (q >= end || *q != '}')
			return (-1);
	}
	if (q >= end)
		return (-1);
	if (best != NULL)
		*p = best;
	return ((int)most);
}

/*
 * The value segs name in the JSON text [text, end), found as
 * flow_json_lookup finds it in a tree: at an object the member naming
 * the most remaining parts joined by dots, at an array a decimal index.
 * 1 with its span in *vp and *ve, 0 when there is none, -1 when the text
 * is malformed.
 */
int
json_scan_lookup(const char *text, const char *end, char **segs, size_t n,
    const char **vp, const char **ve)
{
	const char	*p = json_scan_ws(text, end), *d;
	size_t		 i = 0;
	long		 idx;
	int		 took;

	while (i < n) {
		if (p >= end)
			return (-1);
		if (*p == '{') {
			if ((took = json_scan_member(&p, end, segs, i, n)) <= 0)
				return (took);
			i += (size_t)took;
		} else if (*p == '[') {
			for (d = segs[i]; *d >= '0' && *d <= '9'; d++)
				;
			if (*segs[i] == '\0' || *d != '\0' ||
			    strlen(segs[i]) > 9)
				return (0);
			idx = strtol(segs[i], NULL, 10);
			p = json_scan_ws(p + 1, end);
			while (idx-- > 0) {
				if (p < end && *p == ']')
					return (0);
				if ((p = json_scan_value(p, end)) == NULL)
					return (-1);
				p = json_scan_ws(p, end);
				if (p >= end || *p != ',')
					return (p < end && *p == ']' ? 0 : -1);
				p = json_scan_ws(p + 1, end);
			}
			if (p >= end)
				return (-1);
			if (*p == ']')
				return (0);
			i++;
		} else
			return (0);
	}
	if ((*ve = json_scan_value(p, end)) == NULL)
		return (-1);
	*vp = p;
	return (1);
}

/*
 * The next element of the array being walked by *p (set it to the
 * array's '[' to begin): 1 with its span, 0 after the last, -1 when the
 * text is malformed.
 */
int
json_scan_next(const char **p, const char *end, const char **vp,
    const char **ve)
{
	const char	*q = json_scan_ws(*p, end);
	int		 sep;

	if (q >= end)
		return (-1);
	if (*q == ']') {
		*p = q;
		return (0);
	}
	if (*q != '[' && *q != ',')
		return (-1);
	sep = *q == ',';
	if ((q = json_scan_ws(q + 1, end)) >= end)
		return (-1);
	if (*q == ']') {
		*p = q;
		return (sep ? -1 : 0);
	}
	if ((*ve = json_scan_value(q, end)) == NULL)
		return (-1);
	*vp = q;
	*p = json_scan_ws(*ve, end);
	if (*p >= end || (**p != ',' && **p != ']'))
		return (-1);
	return (1);
}
