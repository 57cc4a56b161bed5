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
 * locate.c: turn the JSON path of a diagnostic into a line and column in the
 * source text.  A small token scanner walks the text along the path without
 * building a tree, so positions are exact and no depth limit applies: values
 * that are skipped are scanned iteratively, counting brackets.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"

struct locate_scan {
	const char	*s;
	size_t		 len;
	size_t		 pos;
};

struct locate_seg {
	int		 is_index;
	size_t		 index;
	char		*key;
};

static void	 locate_ws(struct locate_scan *);
static int	 locate_string(struct locate_scan *, struct buf *);
static int	 locate_hex4(const char *, size_t, unsigned int *);
static void	 locate_utf8(struct buf *, unsigned int);
static void	 locate_skip(struct locate_scan *);
static struct locate_seg *locate_path(const char *, size_t *);
static void	 locate_segs_free(struct locate_seg *, size_t);
static int	 locate_next(struct locate_scan *);
static int	 locate_member(struct locate_scan *, const char *, struct buf *);
static int	 locate_element(struct locate_scan *, size_t);
static size_t	 locate_find(struct locate_scan *, struct locate_seg *, size_t);

/* Skip JSON white space. */
static void
locate_ws(struct locate_scan *sc)
{
	while (sc->pos < sc->len && (sc->s[sc->pos] == ' ' ||
	    sc->s[sc->pos] == '\t' || sc->s[sc->pos] == '\n' ||
	    sc->s[sc->pos] == '\r'))
		sc->pos++;
}

/* Read four hex digits. */
static int
locate_hex4(const char *s, size_t n, unsigned int *out)
{
	size_t		i;
	unsigned int	v = 0;
	char		c;

	if (n < 4)
		return (-1);
	for (i = 0; i < 4; i++) {
		c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return (-1);
	}
	*out = v;
	return (0);
}

/* Append a code point as UTF-8. */
static void
locate_utf8(struct buf *b, unsigned int cp)
{
	if (cp < 0x80)
		buf_putc(b, (int)cp);
	else if (cp < 0x800) {
		buf_putc(b, (int)(0xc0 | (cp >> 6)));
		buf_putc(b, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_putc(b, (int)(0xe0 | (cp >> 12)));
		buf_putc(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_putc(b, (int)(0x80 | (cp & 0x3f)));
	} else {
		buf_putc(b, (int)(0xf0 | (cp >> 18)));
		buf_putc(b, (int)(0x80 | ((cp >> 12) & 0x3f)));
		buf_putc(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_putc(b, (int)(0x80 | (cp & 0x3f)));
	}
}

/*
 * Read a JSON string at the current position, decoding escapes into b when
 * b is not NULL.  Returns -1 when the text is not a string there.
 */
static int
locate_string(struct locate_scan *sc, struct buf *b)
{
	unsigned int	 cp, lo;
	char		 c;

	if (sc->pos >= sc->len || sc->s[sc->pos] != '"')
		return (-1);
	sc->pos++;
	while (sc->pos < sc->len) {
		c = sc->s[sc->pos++];
		if (c == '"')
			return (0);
		if (c != '\\') {
			if (b != NULL)
				buf_putc(b, (unsigned char)c);
			continue;
		}
		if (sc->pos >= sc->len)
			return (-1);
		c = sc->s[sc->pos++];
		if (c != 'u') {
			if (b == NULL)
				continue;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			}
			buf_putc(b, (unsigned char)c);
			continue;
		}
		if (locate_hex4(sc->s + sc->pos, sc->len - sc->pos, &cp) != 0)
			return (-1);
		sc->pos += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && sc->pos + 6 <= sc->len &&
		    sc->s[sc->pos] == '\\' && sc->s[sc->pos + 1] == 'u' &&
		    locate_hex4(sc->s + sc->pos + 2, 4, &lo) == 0 &&
		    lo >= 0xdc00 && lo < 0xe000) {
			sc->pos += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (b != NULL)
			locate_utf8(b, cp);
	}
	return (-1);
}

/* Skip one value without recursion: strings whole, brackets by depth. */
static void
locate_skip(struct locate_scan *sc)
{
	size_t	depth = 0;
	char	c;

	while (sc->pos < sc->len) {
		c = sc->s[sc->pos];
		if (c == '"') {
			if (locate_string(sc, NULL) != 0)
				return;
			if (depth == 0)
				return;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (depth == 0)
				return;
			depth--;
			if (depth == 0) {
				sc->pos++;
				return;
			}
		} else if (depth == 0 && (c == ',' || c == ':' || c == ' ' ||
		    c == '\t' || c == '\n' || c == '\r'))
			return;
		sc->pos++;
	}
}

/* Free parsed path segments. */
static void
locate_segs_free(struct locate_seg *segs, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(segs[i].key);
	free(segs);
}

/*
 * Split a path ("$.a.b[2][\"odd.key\"]") into segments; NULL when it is
 * not a path.
 */
static struct locate_seg *
locate_path(const char *path, size_t *n)
{
	struct locate_seg	*segs = NULL;
	struct locate_scan	 sc;
	struct buf		 b;
	size_t			 len, start, idx;

	*n = 0;
	if (path == NULL || path[0] != '$')
		return (NULL);
	len = strlen(path);
	sc.s = path;
	sc.len = len;
	sc.pos = 1;
	while (sc.pos < len) {
		segs = xreallocarray(segs, *n + 1, sizeof *segs);
		memset(&segs[*n], 0, sizeof segs[*n]);
		if (path[sc.pos] == '.') {
			start = ++sc.pos;
			while (sc.pos < len && path[sc.pos] != '.' &&
			    path[sc.pos] != '[')
				sc.pos++;
			segs[(*n)++].key = xstrndup(path + start,
			    sc.pos - start);
		} else if (path[sc.pos] == '[' && sc.pos + 1 < len &&
		    path[sc.pos + 1] == '"') {
			sc.pos++;
			buf_init(&b);
			if (locate_string(&sc, &b) != 0 || sc.pos >= len ||
			    path[sc.pos] != ']') {
				buf_free(&b);
				goto fail;
			}
			sc.pos++;
			segs[(*n)++].key = buf_release(&b);
		} else if (path[sc.pos] == '[') {
			idx = 0;
			sc.pos++;
			while (sc.pos < len && path[sc.pos] >= '0' &&
			    path[sc.pos] <= '9' && idx < (size_t)1 << 40)
				idx = idx * 10 + (size_t)(path[sc.pos++] - '0');
			if (sc.pos >= len || path[sc.pos] != ']')
				goto fail;
			sc.pos++;
			segs[*n].is_index = 1;
			segs[(*n)++].index = idx;
		} else
			goto fail;
	}
	return (segs);
fail:
	locate_segs_free(segs, *n);
	*n = 0;
	return (NULL);
}

/*
 * After a member or element that is not the one sought: skip its value
 * and the comma; -1 when the object or array ends (or the text breaks).
 */
static int
locate_next(struct locate_scan *sc)
{
	locate_skip(sc);
	locate_ws(sc);
	if (sc->pos >= sc->len || sc->s[sc->pos] != ',')
		return (-1);
	sc->pos++;
	return (0);
}

/* Inside an object just past '{': move onto the value of member key. */
static int
locate_member(struct locate_scan *sc, const char *key, struct buf *b)
{
	do {
		locate_ws(sc);
		buf_reset(b);
		if (locate_string(sc, b) != 0)
			return (0);
		locate_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
			return (0);
		sc->pos++;
		locate_ws(sc);
		/* An empty key leaves the buffer without data at all. */
		if (b->len == strlen(key) && (b->len == 0 ||
		    memcmp(b->data, key, b->len) == 0))
			return (1);
	} while (locate_next(sc) == 0);
	return (0);
}

/* Inside an array just past '[': move onto element index. */
static int
locate_element(struct locate_scan *sc, size_t index)
{
	size_t	idx = 0;

	do {
		locate_ws(sc);
		if (sc->pos >= sc->len || sc->s[sc->pos] == ']')
			return (0);
		if (idx++ == index)
			return (1);
	} while (locate_next(sc) == 0);
	return (0);
}

/*
 * Walk the text along the segments; return the offset of the deepest value
 * reached (the whole path when every member exists).
 */
static size_t
locate_find(struct locate_scan *sc, struct locate_seg *segs, size_t n)
{
	struct buf	 key;
	size_t		 i, found;
	int		 match;

	locate_ws(sc);
	found = sc->pos;
	buf_init(&key);
	for (i = 0; i < n && sc->pos < sc->len; i++) {
		match = 0;
		if (sc->s[sc->pos] == '{' && !segs[i].is_index) {
			sc->pos++;
			match = locate_member(sc, segs[i].key, &key);
		} else if (sc->s[sc->pos] == '[' && segs[i].is_index) {
			sc->pos++;
			match = locate_element(sc, segs[i].index);
		}
		if (!match)
			break;
		found = sc->pos;
	}
	buf_free(&key);
	return (found);
}

/* Fill line and column of each diagnostic that has a path but no place. */
void
flow_diags_locate(struct flow_diags *d, const char *text, size_t len)
{
	struct flow_diag	*fd;
	struct locate_scan	 sc;
	struct locate_seg	*segs;
	size_t			 n, off;

	if (d == NULL || text == NULL)
		return;
	TAILQ_FOREACH(fd, d, entry) {
		if (fd->line > 0 || fd->path == NULL)
			continue;
		if ((segs = locate_path(fd->path, &n)) == NULL && n == 0 &&
		    strcmp(fd->path, "$") != 0)
			continue;
		sc.s = text;
		sc.len = len;
		sc.pos = 0;
		off = locate_find(&sc, segs, n);
		locate_segs_free(segs, n);
		str_linecol(text, off, &fd->line, &fd->col);
	}
}
