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

/* buf.c: a growable byte buffer, always NUL-terminated. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void	buf_grow(struct buf *, size_t);

/* Start empty. */
void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->size = 0;
}

/* Make room for n more bytes and the NUL, doubling to stay linear. */
static void
buf_grow(struct buf *b, size_t n)
{
	size_t	want;

	if (n > SIZE_MAX - b->len - 1)
		fatalx("buf_grow: overflow");
	want = b->len + n + 1;
	if (want <= b->size)
		return;
	if (b->size == 0)
		b->size = 64;
	while (b->size < want)
		b->size = b->size > SIZE_MAX / 2 ? want : b->size * 2;
	b->data = xrealloc(b->data, b->size);
}

/* Append n bytes. */
void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n != 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Append a string. */
void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Append one byte. */
void
buf_putc(struct buf *b, int c)
{
	char	ch = (char)c;

	buf_add(b, &ch, 1);
}

/* Append formatted text. */
void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	char	*s;
	int	n;

	va_start(ap, fmt);
	n = xvasprintf(&s, fmt, ap);
	va_end(ap);
	buf_add(b, s, (size_t)n);
	free(s);
}

/* Empty the buffer but keep its memory. */
void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

/* Hand the contents to the caller (never NULL) and empty the buffer. */
char *
buf_release(struct buf *b)
{
	char	*s;

	s = b->data != NULL ? b->data : xstrdup("");
	buf_init(b);
	return (s);
}

/*
 * Append n names to b for people: "alice, bob", after a ", " when b
 * holds something already.
 */
void
buf_join(struct buf *b, char *const *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		buf_printf(b, "%s%s", b->len > 0 ? ", " : "", v[i]);
}

/* Free the contents. */
void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}
