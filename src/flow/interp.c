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
 * interp.c: {{...}} placeholders in args and catalog run elements.  A
 * placeholder names a dotted path under the scope ({"input", "steps",
 * "workflow", "args"}); at each object level the longest run of the
 * remaining parts that exists as a key wins, so step names and keys with
 * dots still resolve.  Strings are scanned once (linear in their length)
 * and nesting is capped at cJSON's own limit.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

#define INTERP_MAX_SEGS	64

/* Where the scan is, and the last placeholder found. */
struct interp_span {
	size_t		 from;		/* where to look next */
	size_t		 start;		/* "{{" */
	size_t		 end;		/* after "}}" */
	size_t		 in;		/* the trimmed inner text */
	size_t		 inlen;
};

struct interp_walk {
	interp_ref_cb	 cb;
	void		*arg;
};

static const char *interp_pair(const char *, const char *, char);
static int	 interp_next(const char *, size_t, struct interp_span *);
static int	 interp_whole(const char *, struct interp_span *);
static const cJSON *interp_resolve(const cJSON *, const char *, size_t);
static void	 interp_render(struct buf *, const cJSON *);
static void	 interp_string(struct buf *, const char *, const cJSON *);
static cJSON	*interp_value_r(const cJSON *, const cJSON *, int);
static int	 interp_refs_r(const cJSON *, const char *,
		     struct interp_walk *, int);

/*
 * Look a path of parts up under v.  At each object, try the longest run of
 * the remaining parts joined by dots, then shorter ones; arrays take a
 * decimal index.  NULL when missing.
 */
const cJSON *
flow_json_lookup(const cJSON *v, char **segs, size_t n)
{
	struct buf	 key;
	const cJSON	*c = NULL;
	size_t		 i = 0, k, j;
	const char	*p;
	long		 idx;

	buf_init(&key);
	while (i < n && v != NULL) {
		if (cJSON_IsObject(v)) {
			for (k = n; k > i; k--) {
				buf_reset(&key);
				for (j = i; j < k; j++) {
					if (j > i)
						buf_putc(&key, '.');
					buf_puts(&key, segs[j]);
				}
				c = cJSON_GetObjectItemCaseSensitive(v,
				    key.data);
				if (c != NULL)
					break;
			}
			v = c;
			i = k;
		} else if (cJSON_IsArray(v)) {
			for (p = segs[i]; isdigit((unsigned char)*p); p++)
				;
			if (*segs[i] == '\0' || *p != '\0' ||
			    strlen(segs[i]) > 9) {
				v = NULL;
				break;
			}
			idx = strtol(segs[i], NULL, 10);
			v = cJSON_GetArrayItem(v, (int)idx);
			i++;
		} else
			v = NULL;
	}
	buf_free(&key);
	return (v);
}

/*
 * The first "cc" in [p, end), or NULL.  A plain loop rather than strstr:
 * it looks at the bytes it passes and no further, so a string with many
 * placeholders is scanned once in all (strstr as ASan checks it reads to
 * the end of the string at every call, which made that quadratic).
 */
static const char *
interp_pair(const char *p, const char *end, char c)
{
	for (; p + 1 < end; p++) {
		if (p[0] == c && p[1] == c)
			return (p);
	}
	return (NULL);
}

/*
 * Find the next placeholder in the NUL-terminated s (of length len) from
 * sp->from: its outer span and its inner text with white space trimmed.
 * "{{" without a closing "}}" stays text.
 */
static int
interp_next(const char *s, size_t len, struct interp_span *sp)
{
	const char	*open, *close, *p;
	size_t		 a, b;

	if (sp->from >= len)
		return (0);
	if ((open = interp_pair(s + sp->from, s + len, '{')) == NULL)
		return (0);
	if ((close = interp_pair(open + 2, s + len, '}')) == NULL) {
		sp->from = len;
		return (0);
	}
	for (p = close - 1; p > open + 1; p--) {	/* innermost "{{" */
		if (p[0] == '{' && p[-1] == '{' && p - 1 > open) {
			open = p - 1;
			break;
		}
	}
	a = (size_t)(open - s) + 2;
	b = (size_t)(close - s);
	while (a < b && isspace((unsigned char)s[a]))
		a++;
	while (b > a && isspace((unsigned char)s[b - 1]))
		b--;
	sp->start = (size_t)(open - s);
	sp->end = (size_t)(close - s) + 2;
	sp->in = a;
	sp->inlen = b - a;
	sp->from = sp->end;
	return (1);
}

/* Resolve a placeholder's dotted text under the scope; NULL when missing. */
static const cJSON *
interp_resolve(const cJSON *scope, const char *ref, size_t len)
{
	char		*segs[INTERP_MAX_SEGS];
	const cJSON	*v;
	size_t		 n = 0, i, a = 0, b;

	if (len == 0 || scope == NULL)
		return (NULL);
	for (b = 0; b <= len; b++) {
		if (b < len && ref[b] != '.')
			continue;
		if (n == INTERP_MAX_SEGS || b == a) {
			for (i = 0; i < n; i++)
				free(segs[i]);
			return (NULL);
		}
		segs[n++] = xstrndup(ref + a, b - a);
		a = b + 1;
	}
	v = flow_json_lookup(scope, segs, n);
	for (i = 0; i < n; i++)
		free(segs[i]);
	return (v);
}

/* Render a value as text: strings raw, anything else as compact JSON. */
static void
interp_render(struct buf *b, const cJSON *v)
{
	char	*s;

	if (v == NULL)
		return;
	if (cJSON_IsString(v)) {
		buf_puts(b, v->valuestring);
		return;
	}
	s = json_print(v);
	buf_puts(b, s);
	free(s);
}

/* Append s with every placeholder rendered as text. */
static void
interp_string(struct buf *b, const char *s, const cJSON *scope)
{
	struct interp_span	sp;
	size_t			len = strlen(s), last = 0;

	memset(&sp, 0, sizeof sp);
	while (interp_next(s, len, &sp)) {
		buf_add(b, s + last, sp.start - last);
		interp_render(b, interp_resolve(scope, s + sp.in, sp.inlen));
		last = sp.end;
	}
	buf_add(b, s + last, len - last);
}

/* Interpolate a string as text. */
char *
interp_text(const char *s, const cJSON *scope)
{
	struct buf	b;

	buf_init(&b);
	if (s != NULL)
		interp_string(&b, s, scope);
	return (buf_release(&b));
}

/* Copy v with its strings interpolated; depth is capped. */
static cJSON *
interp_value_r(const cJSON *v, const cJSON *scope, int depth)
{
	const cJSON		*c, *ref;
	cJSON			*out, *kid;
	struct buf		 b;
	struct interp_span	 sp;
	size_t			 len;

	if (v == NULL || depth > CJSON_NESTING_LIMIT)
		return (cJSON_CreateNull());
	if (cJSON_IsString(v)) {
		len = strlen(v->valuestring);
		memset(&sp, 0, sizeof sp);
		if (interp_next(v->valuestring, len, &sp) && sp.start == 0 &&
		    sp.end == len) {
			ref = interp_resolve(scope, v->valuestring + sp.in,
			    sp.inlen);
			if (ref == NULL)
				return (cJSON_CreateString(""));
			return (cJSON_Duplicate(ref, 1));
		}
		buf_init(&b);
		interp_string(&b, v->valuestring, scope);
		out = cJSON_CreateString(b.data);
		buf_free(&b);
		return (out);
	}
	if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		out = cJSON_IsArray(v) ? cJSON_CreateArray() :
		    cJSON_CreateObject();
		for (c = v->child; c != NULL; c = c->next) {
			kid = interp_value_r(c, scope, depth + 1);
			if (cJSON_IsArray(v))
				cJSON_AddItemToArray(out, kid);
			else
				cJSON_AddItemToObject(out, c->string, kid);
		}
		return (out);
	}
	return (cJSON_Duplicate(v, 0));
}

/* Is s one placeholder and nothing else?  Its span in *sp if so. */
static int
interp_whole(const char *s, struct interp_span *sp)
{
	size_t	 len;

	if (s == NULL)
		return (0);
	len = strlen(s);
	memset(sp, 0, sizeof *sp);
	return (interp_next(s, len, sp) && sp->start == 0 && sp->end == len);
}

/*
 * The value s names when s is one placeholder and nothing else, borrowed
 * from the scope (no copy: a for-each over 10,000 items reads them in
 * place); NULL when s is not such a string or names nothing.
 */
const cJSON *
interp_ref(const char *s, const cJSON *scope)
{
	struct interp_span	 sp;

	if (!interp_whole(s, &sp))
		return (NULL);
	return (interp_resolve(scope, s + sp.in, sp.inlen));
}

/*
 * The reference s names when s is one placeholder and nothing else
 * ("input.hosts" for "{{ input.hosts }}"), or NULL.
 */
char *
interp_ref_text(const char *s)
{
	struct interp_span	 sp;

	if (!interp_whole(s, &sp))
		return (NULL);
	return (xstrndup(s + sp.in, sp.inlen));
}

/* Return a new tree: v with every placeholder replaced. */
cJSON *
interp_value(const cJSON *v, const cJSON *scope)
{
	cJSON	*out;

	out = interp_value_r(v, scope, 0);
	if (out == NULL)
		fatalx("%s: out of memory", __func__);
	return (out);
}

/* Interpolate JSON text; NULL when it does not parse. */
char *
interp_json(const char *text, const cJSON *scope)
{
	cJSON	*v, *out;
	char	*s, *cause = NULL;

	if (text == NULL)
		return (NULL);
	if ((v = json_parse(text, strlen(text), &cause)) == NULL) {
		free(cause);
		return (NULL);
	}
	out = interp_value(v, scope);
	s = json_print(out);
	cJSON_Delete(out);
	cJSON_Delete(v);
	return (s);
}

/* Walk v calling the callback for each placeholder; stop on non-zero. */
static int
interp_refs_r(const cJSON *v, const char *path, struct interp_walk *w,
    int depth)
{
	const cJSON		*c;
	struct interp_span	 sp;
	char			*sub, *ref;
	size_t			 len, i;
	int			 r = 0;

	if (v == NULL || depth > CJSON_NESTING_LIMIT)
		return (0);
	if (cJSON_IsString(v)) {
		len = strlen(v->valuestring);
		memset(&sp, 0, sizeof sp);
		while (r == 0 && interp_next(v->valuestring, len, &sp)) {
			ref = xstrndup(v->valuestring + sp.in, sp.inlen);
			r = w->cb(path, ref, w->arg);
			free(ref);
		}
		return (r);
	}
	i = 0;
	for (c = v->child; r == 0 && c != NULL; c = c->next, i++) {
		if (cJSON_IsObject(v))
			sub = flow_path_key(path, c->string);
		else if (cJSON_IsArray(v))
			sub = flow_path_index(path, i);
		else
			break;
		r = interp_refs_r(c, sub, w, depth + 1);
		free(sub);
	}
	return (r);
}

/* Call cb(path, dotted_ref, arg) for every placeholder under v. */
int
interp_refs(const cJSON *v, const char *base, interp_ref_cb cb, void *arg)
{
	struct interp_walk	w;

	w.cb = cb;
	w.arg = arg;
	return (interp_refs_r(v, base != NULL ? base : "$", &w, 0));
}
