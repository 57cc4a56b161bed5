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
 * read-wire.c: how one value of a member's read crosses the engine's
 * socket, the one codec both ends use (the engine's reader,
 * driver-sqlite-reader.c, and the members' driver, driver-socket.c).  A
 * value is a JSON null, a number (an integer within 2^53, or a real), a
 * string, {"int": "DIGITS"} for a larger integer or {"blob": "BASE64"}
 * for bytes, which JSON strings cannot carry.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

#define WIRE_EXACT	9007199254740992LL	/* 2^53: a double is exact */

static const char	wire_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int	wire_b64_value(int);

/* An integer as the wire carries it. */
cJSON *
store_wire_int(int64_t v)
{
	cJSON	*o;
	char	 text[32];

	if (v >= -WIRE_EXACT && v <= WIRE_EXACT)
		return (cJSON_CreateNumber((double)v));
	snprintf(text, sizeof text, "%" PRId64, v);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "int", text);
	return (o);
}

/* Bytes as the wire carries them: base64 in {"blob": ...}. */
cJSON *
store_wire_blob(const void *data, size_t len)
{
	const unsigned char	*p = data;
	struct buf		 b;
	cJSON			*o;
	uint32_t		 v;
	size_t			 i;

	buf_init(&b);
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		buf_putc(&b, wire_b64[v >> 18 & 63]);
		buf_putc(&b, wire_b64[v >> 12 & 63]);
		buf_putc(&b, wire_b64[v >> 6 & 63]);
		buf_putc(&b, wire_b64[v & 63]);
	}
	if (i < len) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		buf_putc(&b, wire_b64[v >> 18 & 63]);
		buf_putc(&b, wire_b64[v >> 12 & 63]);
		buf_putc(&b, i + 1 < len ? wire_b64[v >> 6 & 63] : '=');
		buf_putc(&b, '=');
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "blob", b.data != NULL ? b.data : "");
	buf_free(&b);
	return (o);
}

/* One base64 digit's value, or -1. */
static int
wire_b64_value(int c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(wire_b64, c)) == NULL)
		return (-1);
	return ((int)(p - wire_b64));
}

/*
 * Read a wire value: its kind (STORE_WIRE_*), and its integer, real,
 * text or bytes.  Bytes are a new allocation in *data (freed by the
 * caller); text points into the tree.  -1 for a value that is none of
 * the wire's.
 */
int
store_wire_read(const cJSON *v, struct store_wire_value *w)
{
	const cJSON	*x;
	const char	*s;
	unsigned char	*out;
	size_t		 n, len;
	int		 d[4], i;

	memset(w, 0, sizeof *w);
	if (v == NULL || cJSON_IsNull(v)) {
		w->kind = STORE_WIRE_NULL;
		return (0);
	}
	if (cJSON_IsNumber(v)) {
		w->real = v->valuedouble;
		if (v->valuedouble >= -(double)WIRE_EXACT &&
		    v->valuedouble <= (double)WIRE_EXACT &&
		    v->valuedouble == (double)(int64_t)v->valuedouble) {
			w->kind = STORE_WIRE_INT;
			w->i = (int64_t)v->valuedouble;
		} else
			w->kind = STORE_WIRE_REAL;
		return (0);
	}
	if (cJSON_IsString(v)) {
		w->kind = STORE_WIRE_TEXT;
		w->text = v->valuestring;
		w->len = strlen(v->valuestring);
		return (0);
	}
	if (!cJSON_IsObject(v))
		return (-1);
	if (cJSON_IsString(x = cJSON_GetObjectItemCaseSensitive(v, "int"))) {
		w->kind = STORE_WIRE_INT;
		return (str_parse_int64(x->valuestring, &w->i));
	}
	x = cJSON_GetObjectItemCaseSensitive(v, "blob");
	if (!cJSON_IsString(x) || (len = strlen(x->valuestring)) % 4 != 0)
		return (-1);
	s = x->valuestring;
	out = xmalloc(len / 4 * 3 + 1);
	for (n = 0; *s != '\0'; s += 4) {
		for (i = 0; i < 4; i++) {
			d[i] = wire_b64_value(s[i]);
			if (d[i] == -1 && !(s[i] == '=' && i >= 2 &&
			    s[4] == '\0' && (i == 3 || s[3] == '='))) {
				free(out);
				return (-1);
			}
		}
		out[n++] = (unsigned char)(d[0] << 2 | d[1] >> 4);
		if (d[2] != -1)
			out[n++] = (unsigned char)((d[1] & 15) << 4 | d[2] >> 2);
		if (d[2] != -1 && d[3] != -1)
			out[n++] = (unsigned char)((d[2] & 3) << 6 | d[3]);
	}
	w->kind = STORE_WIRE_BLOB;
	w->data = out;
	w->len = n;
	return (0);
}
