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
 * mask.c: the secret values a run uses, and text with each of them put
 * as "***".  Values shorter than MASK_MIN_LEN are not kept: masking every
 * "a" would make every log unreadable and hide nothing worth hiding.  A
 * stream (a step's stdout or stderr) is masked through a carry: the tail
 * of what came so far that could be the start of a value is held back
 * until the next write shows whether it was, so a value written in two
 * pieces is still caught.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"

struct mask {
	char	**v;		/* longest first, so a longer value wins */
	size_t	 *len;
	size_t	  n;
	size_t	  longest;
};

static size_t	 mask_at(const struct mask *, const char *, size_t);
static void	 mask_json_r(const struct mask *, cJSON *, int);

/* An empty set. */
struct mask *
mask_create(void)
{
	return (xcalloc(1, sizeof (struct mask)));
}

/* Free a set, wiping the values it held. */
void
mask_free(struct mask *m)
{
	size_t	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		explicit_bzero(m->v[i], m->len[i]);
		free(m->v[i]);
	}
	free(m->v);
	free(m->len);
	free(m);
}

/* Add a value (once); short and empty ones are not masked. */
void
mask_add(struct mask *m, const char *s, size_t len)
{
	size_t	i, j;

	if (m == NULL || len < MASK_MIN_LEN)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->len[i] == len && memcmp(m->v[i], s, len) == 0)
			return;
	}
	for (i = 0; i < m->n && m->len[i] >= len; i++)
		;
	m->v = xreallocarray(m->v, m->n + 1, sizeof *m->v);
	m->len = xreallocarray(m->len, m->n + 1, sizeof *m->len);
	for (j = m->n; j > i; j--) {
		m->v[j] = m->v[j - 1];
		m->len[j] = m->len[j - 1];
	}
	m->v[i] = xstrndup(s, len);
	m->len[i] = len;
	m->n++;
	if (len > m->longest)
		m->longest = len;
}

/* Does the set hold anything to mask? */
int
mask_empty(const struct mask *m)
{
	return (m == NULL || m->n == 0);
}

/* The length of the value that starts at s (len bytes left), or 0. */
static size_t
mask_at(const struct mask *m, const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < m->n; i++) {
		if (m->len[i] <= len && memcmp(s, m->v[i], m->len[i]) == 0)
			return (m->len[i]);
	}
	return (0);
}

/* Append data to out with every value in it put as "***". */
void
mask_buf(const struct mask *m, struct buf *out, const char *data, size_t len)
{
	size_t	i = 0, from = 0, k;

	if (mask_empty(m)) {
		buf_add(out, data, len);
		return;
	}
	while (i < len) {
		if ((k = mask_at(m, data + i, len - i)) == 0) {
			i++;
			continue;
		}
		buf_add(out, data + from, i - from);
		buf_puts(out, MASK_TEXT);
		i += k;
		from = i;
	}
	buf_add(out, data + from, len - from);
}

/* A copy of s with every value put as "***"; NULL for NULL. */
char *
mask_text(const struct mask *m, const char *s)
{
	struct buf	b;

	if (s == NULL)
		return (NULL);
	buf_init(&b);
	mask_buf(m, &b, s, strlen(s));
	return (buf_release(&b));
}

/* Mask every string (and key) under a JSON value. */
static void
mask_json_r(const struct mask *m, cJSON *v, int depth)
{
	cJSON	*c;
	char	*s;

	if (v == NULL || depth > CJSON_NESTING_LIMIT)
		return;
	if (v->string != NULL) {
		s = mask_text(m, v->string);
		if (strcmp(s, v->string) != 0 &&
		    !(v->type & cJSON_StringIsConst)) {
			free(v->string);
			v->string = s;
		} else
			free(s);
	}
	if (cJSON_IsString(v)) {
		s = mask_text(m, v->valuestring);
		if (strcmp(s, v->valuestring) != 0)
			cJSON_SetValuestring(v, s);
		free(s);
		return;
	}
	for (c = v->child; c != NULL; c = c->next)
		mask_json_r(m, c, depth + 1);
}

/*
 * A copy of a JSON text with every value in its strings put as "***";
 * text that does not parse is masked as text.  NULL for NULL.
 */
char *
mask_json(const struct mask *m, const char *json)
{
	cJSON	*v;
	char	*s;

	if (json == NULL)
		return (NULL);
	if (mask_empty(m))
		return (xstrdup(json));
	if ((v = cJSON_Parse(json)) == NULL)
		return (mask_text(m, json));
	mask_json_r(m, v, 0);
	s = json_print(v);
	cJSON_Delete(v);
	return (s);
}

/*
 * Mask a stream's next piece: carry (what was held back last time) and
 * data are masked together into out, except a tail that is the start of
 * some value, which is held in carry for the next piece.  With last set
 * nothing is held.
 */
void
mask_stream(const struct mask *m, struct buf *carry, const char *data,
    size_t len, int last, struct buf *out)
{
	struct buf	 all, done;
	size_t		 i, j, hold = 0, k;

	if (mask_empty(m)) {
		buf_add(out, carry->data, carry->len);
		buf_reset(carry);
		buf_add(out, data, len);
		return;
	}
	buf_init(&all);
	buf_add(&all, carry->data, carry->len);
	buf_add(&all, data, len);
	buf_reset(carry);
	buf_init(&done);
	mask_buf(m, &done, all.data, all.len);
	if (!last) {
		/* The earliest tail that some value begins with. */
		i = done.len > m->longest ? done.len - m->longest + 1 : 0;
		for (; i < done.len && hold == 0; i++) {
			for (j = 0; j < m->n; j++) {
				k = done.len - i;
				if (k < m->len[j] &&
				    memcmp(done.data + i, m->v[j], k) == 0) {
					hold = k;
					break;
				}
			}
		}
	}
	buf_add(out, done.data, done.len - hold);
	buf_add(carry, done.data + done.len - hold, hold);
	explicit_bzero(all.data, all.len);
	buf_free(&all);
	buf_free(&done);
}

/* Free a JSON value, its strings' bytes overwritten first (secrets). */
void
mask_json_wipe(cJSON *v)
{
	cJSON	*c;

	if (v == NULL)
		return;
	if (cJSON_IsString(v))
		explicit_bzero(v->valuestring, strlen(v->valuestring));
	for (c = v->child; c != NULL; c = c->next) {
		if (cJSON_IsString(c))
			explicit_bzero(c->valuestring, strlen(c->valuestring));
	}
	cJSON_Delete(v);
}
