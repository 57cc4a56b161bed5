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
 * json.c: cJSON helpers.  cJSON reports only where parsing stopped; this
 * turns that into a line and column and a reason a person can act on.
 * cJSON allocates through xmalloc once json_init has run.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"

static const char	*json_guess_reason(const char *, size_t, size_t);
static int		 json_key_expected(const char *, size_t);

/* Is the last non-space byte before off an object's '{' or a ','? */
static int
json_key_expected(const char *text, size_t off)
{
	while (off > 0 && isspace((unsigned char)text[off - 1]))
		off--;
	return (off > 0 && (text[off - 1] == '{' || text[off - 1] == ','));
}

/* Say what was probably wrong at offset off, from the byte found there. */
static const char *
json_guess_reason(const char *text, size_t len, size_t off)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if (!isspace((unsigned char)text[i]))
			break;
	}
	if (i == len)
		return ("empty document");
	if (off >= len)
		return ("unexpected end of document");
	switch (text[off]) {
	case '}':
	case ']':
		return ("unexpected closing bracket (trailing comma?)");
	case '\'':
		return ("strings must use double quotes");
	case '"':
		return ("unexpected string (missing ',' or ':'?)");
	case '/':
		return ("comments are not allowed in JSON");
	default:
		if (isalpha((unsigned char)text[off]))
			return ("unexpected word (strings need double quotes)");
		return ("unexpected character");
	}
}

/*
 * Make cJSON allocate through xmalloc, so running out of memory inside it
 * is fatal like everywhere else instead of passing for bad JSON.
 */
void
json_init(void)
{
	static cJSON_Hooks	hooks = { xmalloc, free };

	cJSON_InitHooks(&hooks);
}

/*
 * Parse text as one JSON document.  On failure NULL, with cause
 * "line L, column C: reason".
 */
struct cJSON *
json_parse(const char *text, size_t len, char **cause)
{
	cJSON		*v;
	const char	*end = NULL;
	size_t		 off;
	int		 line, col;

	/* cJSON would end a string at a NUL: refuse it rather than cut. */
	if ((end = memchr(text, '\0', len)) != NULL) {
		str_linecol(text, (size_t)(end - text), &line, &col);
		xasprintf(cause, "line %d, column %d: NUL byte (not allowed "
		    "in JSON text)", line, col);
		return (NULL);
	}
	v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (v != NULL) {
		off = (size_t)(end - text);
		while (off < len && isspace((unsigned char)text[off]))
			off++;
		if (off == len)
			return (v);
		cJSON_Delete(v);
		str_linecol(text, off, &line, &col);
		xasprintf(cause, "line %d, column %d: unexpected text after "
		    "the document", line, col);
		return (NULL);
	}
	end = cJSON_GetErrorPtr();
	if (end == NULL || end < text || end > text + len)
		off = len;
	else
		off = (size_t)(end - text);
	/*
	 * At the end of input cJSON points at the last byte; when that byte
	 * could not be the culprit, the document was simply cut short.
	 */
	if (len > 0 && off == len - 1 && strchr(":,{[\"", text[off]) != NULL)
		off = len;
	/*
	 * Where an object key was expected, cJSON points one byte past the
	 * culprit: step back onto it.
	 */
	else if (off > 0 && off <= len &&
	    !isspace((unsigned char)text[off - 1]) && text[off - 1] != '"' &&
	    json_key_expected(text, off - 1))
		off--;
	str_linecol(text, off, &line, &col);
	xasprintf(cause, "line %d, column %d: %s", line, col,
	    json_guess_reason(text, len, off));
	return (NULL);
}

/* Print compactly; never NULL. */
char *
json_print(const struct cJSON *v)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(v)) == NULL)
		fatalx("json_print: out of memory");
	return (s);
}

/* Print indented; never NULL. */
char *
json_print_pretty(const struct cJSON *v)
{
	char	*s;

	if ((s = cJSON_Print(v)) == NULL)
		fatalx("json_print_pretty: out of memory");
	return (s);
}

/* Name a value's type for messages. */
const char *
json_type_name(const struct cJSON *v)
{
	if (v == NULL)
		return ("nothing");
	if (cJSON_IsObject(v))
		return ("an object");
	if (cJSON_IsArray(v))
		return ("an array");
	if (cJSON_IsString(v))
		return ("a string");
	if (cJSON_IsNumber(v))
		return ("a number");
	if (cJSON_IsBool(v))
		return ("a boolean");
	if (cJSON_IsNull(v))
		return ("null");
	return ("an invalid value");
}

/* Parse stored JSON text; null when there is none or it does not parse. */
struct cJSON *
json_parse_or_null(const char *text)
{
	cJSON	*j = NULL;

	if (text != NULL)
		j = cJSON_Parse(text);
	if (j == NULL && (j = cJSON_CreateNull()) == NULL)
		fatalx("%s: out of memory", __func__);
	return (j);
}

/*
 * Append s to b as the inside of a JSON string: quotes, backslashes and
 * control characters escaped as JSON wants, every other byte (UTF-8
 * included) as it is.  The caller writes the quotes.
 */
void
json_quote_body(struct buf *b, const char *s)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			buf_puts(b, "\\\"");
			break;
		case '\\':
			buf_puts(b, "\\\\");
			break;
		case '\n':
			buf_puts(b, "\\n");
			break;
		case '\r':
			buf_puts(b, "\\r");
			break;
		case '\t':
			buf_puts(b, "\\t");
			break;
		case '\b':
			buf_puts(b, "\\b");
			break;
		case '\f':
			buf_puts(b, "\\f");
			break;
		default:
			if (*p < 0x20)
				buf_printf(b, "\\u%04x", *p);
			else
				buf_putc(b, *p);
		}
	}
}

/*
 * Add a time member as RFC 3339 in UTC with milliseconds
 * ("2026-11-24T16:14:51.123Z"), or null when it has not happened (ms 0).
 */
void
json_add_time(cJSON *o, const char *key, int64_t ms)
{
	char	 s[64];

	if (ms <= 0) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	cJSON_AddStringToObject(o, key, time_rfc3339(ms, s, sizeof s));
}

/* Turn stored JSON text into a value; NULL or unparsable text is null. */
cJSON *
json_raw(const char *text)
{
	cJSON	*v;

	if (text == NULL || (v = cJSON_Parse(text)) == NULL)
		return (cJSON_CreateNull());
	return (v);
}
