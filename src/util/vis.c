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
 * vis.c: text from users and processes made safe to show on a terminal.
 * Names, comments, inputs and step output may hold escape sequences that
 * retitle, clear or write to the clipboard of whoever reads them; every
 * human printer passes text through here.  Control characters become
 * visible escapes: \e for ESC, \n \r \t, \xHH for the other C0 controls,
 * DEL and bytes that are not UTF-8, and \u0080..\u009f for C1 controls
 * (whose one-byte forms some terminals also obey).  Backslashes are left
 * alone: this is for reading; --json and log --raw are exact.
 */

#include <string.h>

#include "util/util.h"

static size_t	vis_char(const unsigned char *, size_t, unsigned int *);

/*
 * Length of the UTF-8 character at s (at most len bytes) with its code
 * point in *cp, or 0 if the bytes there are not well-formed UTF-8.
 */
static size_t
vis_char(const unsigned char *s, size_t len, unsigned int *cp)
{
	size_t		n, k;
	unsigned int	c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return (1);
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 1;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 2;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 3;
		c = s[0] & 0x07;
		min = 0x10000;
	} else
		return (0);
	for (k = 1; k <= n; k++) {
		if (k >= len || (s[k] & 0xc0) != 0x80)
			return (0);
		c = (c << 6) | (s[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return (0);
	*cp = c;
	return (n + 1);
}

/*
 * Append s[0..len) to b with control characters escaped.  VIS_NL and
 * VIS_TAB keep newlines and tabs (multi-line text such as a log); VIS_JSON
 * writes controls as \u00HH, which means the same inside a JSON string, and
 * keeps a CR that ends a line (a document may have CRLF line ends).
 */
void
vis_buf(struct buf *b, const char *s, size_t len, int flags)
{
	const unsigned char	*p = (const unsigned char *)s;
	unsigned int		 cp;
	size_t			 i = 0, n;

	while (i < len) {
		if ((n = vis_char(p + i, len - i, &cp)) == 0) {
			buf_printf(b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp >= 0xa0)) {
			buf_add(b, p + i, n);
			i += n;
			continue;
		}
		if ((cp == '\n' && (flags & VIS_NL)) ||
		    (cp == '\t' && (flags & VIS_TAB)) ||
		    (cp == '\r' && (flags & VIS_JSON) && i + 1 < len &&
		    p[i + 1] == '\n'))
			buf_putc(b, cp);
		else if (flags & VIS_JSON)
			buf_printf(b, "\\u%04x", cp);
		else if (cp == 0x1b)
			buf_puts(b, "\\e");
		else if (cp == '\n')
			buf_puts(b, "\\n");
		else if (cp == '\r')
			buf_puts(b, "\\r");
		else if (cp == '\t')
			buf_puts(b, "\\t");
		else if (cp < 0x80)
			buf_printf(b, "\\x%02x", cp);
		else
			buf_printf(b, "\\u%04x", cp);
		i += n;
	}
}

/* s with control characters escaped (see vis_buf), to be freed. */
char *
vis_str(const char *s, int flags)
{
	struct buf	b;

	buf_init(&b);
	vis_buf(&b, s, strlen(s), flags);
	return (buf_release(&b));
}

/* Does s hold anything vis_str would escape (flags 0)? */
int
vis_needed(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	unsigned int		 cp;
	size_t			 i = 0, n, len = strlen(s);

	while (i < len) {
		if ((n = vis_char(p + i, len - i, &cp)) == 0)
			return (1);
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			return (1);
		i += n;
	}
	return (0);
}
