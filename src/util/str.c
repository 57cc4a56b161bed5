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

/* str.c: small string helpers: UTF-8 checks, positions, names, numbers. */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/*
 * Return 1 if s[0..len) is well-formed UTF-8 (no overlongs, surrogates or
 * code points past U+10FFFF); else 0 with the offset of the bad byte.
 */
int
utf8_valid(const char *s, size_t len, size_t *bad)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n, k;
	unsigned int		 cp, min;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((p[i] & 0xe0) == 0xc0) {
			n = 1;
			cp = p[i] & 0x1f;
			min = 0x80;
		} else if ((p[i] & 0xf0) == 0xe0) {
			n = 2;
			cp = p[i] & 0x0f;
			min = 0x800;
		} else if ((p[i] & 0xf8) == 0xf0) {
			n = 3;
			cp = p[i] & 0x07;
			min = 0x10000;
		} else
			goto bad;
		for (k = 1; k <= n; k++) {
			if (i + k >= len || (p[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		i += n + 1;
	}
	return (1);
bad:
	if (bad != NULL)
		*bad = i;
	return (0);
}

/* Turn a byte offset into a 1-based line and column (in bytes). */
void
str_linecol(const char *text, size_t off, int *line, int *col)
{
	size_t	i;
	int	l = 1, c = 1;

	for (i = 0; i < off && text[i] != '\0'; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else
			c++;
	}
	*line = l;
	*col = c;
}

/* Is s a plain identifier: a letter or _ then letters, digits, _ or -? */
int
str_is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return (0);
	for (s++; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return (0);
	}
	return (1);
}

/* Build PREFIX_KEY with KEY upper-cased and non-alphanumerics made _. */
char *
str_env_name(const char *prefix, const char *key)
{
	char	*s, *p;

	xasprintf(&s, "%s_%s", prefix, key);
	for (p = s + strlen(prefix) + 1; *p != '\0'; p++) {
		if (isalnum((unsigned char)*p) && ((unsigned char)*p) < 0x80)
			*p = (char)toupper((unsigned char)*p);
		else
			*p = '_';
	}
	return (s);
}

/* Parse a whole string as a decimal int64; 0 on success, -1 otherwise. */
int
str_parse_int64(const char *s, int64_t *v)
{
	char		*end;
	long long	 n;

	if (*s == '\0' || isspace((unsigned char)*s))
		return (-1);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return (-1);
	*v = n;
	return (0);
}

/* Strip leading and trailing white space in place. */
char *
str_trim(char *s)
{
	char	*end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return (s);
}

/*
 * A copy of len bytes of s as valid UTF-8: each byte that does not belong
 * to a valid sequence becomes U+FFFD.  (Step output is text for people and
 * JSON, which must be UTF-8.)
 */
char *
str_utf8_repair(const char *s, size_t len)
{
	struct buf	 b;
	size_t		 bad;

	buf_init(&b);
	while (!utf8_valid(s, len, &bad)) {
		buf_add(&b, s, bad);
		buf_add(&b, "\xef\xbf\xbd", 3);
		s += bad + 1;
		len -= bad + 1;
	}
	buf_add(&b, s, len);
	return (buf_release(&b));
}

/* Free a NULL-terminated array of strings and the strings (NULL is fine). */
void
strv_free(char **v)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/*
 * Check a template name: 1..SLUICE_MAX_NAME characters of [A-Za-z0-9._-],
 * not starting with '-' or '.', and not ending in ".json" (sluice run would
 * take it for a file).  Returns 0, or -1 with a one-line reason.  Here so
 * that the CLI and the engine (template-save over the socket) agree.
 */
int
str_check_template_name(const char *name, char **cause)
{
	const char	*p;
	size_t		 len = strlen(name);

	if (len == 0) {
		*cause = xstrdup("template name is empty");
		return (-1);
	}
	if (len > SLUICE_MAX_NAME) {
		xasprintf(cause, "template name is longer than %d characters",
		    SLUICE_MAX_NAME);
		return (-1);
	}
	for (p = name; *p != '\0'; p++) {
		if (isascii((unsigned char)*p) && (isalnum((unsigned char)*p) ||
		    *p == '.' || *p == '_' || *p == '-'))
			continue;
		xasprintf(cause, "template name \"%s\": character %zu is not "
		    "a letter, digit, '.', '_' or '-'", name,
		    (size_t)(p - name) + 1);
		return (-1);
	}
	if (*name == '-' || *name == '.') {
		xasprintf(cause, "template name \"%s\" may not start with "
		    "'%c'", name, *name);
		return (-1);
	}
	if (len > 5 && strcmp(name + len - 5, ".json") == 0) {
		xasprintf(cause, "template name \"%s\" may not end in "
		    "\".json\" (it would be taken for a file)", name);
		return (-1);
	}
	return (0);
}
