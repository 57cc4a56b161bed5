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
 * schema.c: check a tool call's arguments against the tool's input schema
 * (the same JSON Schema tools/list shows), so a bad call is refused with
 * the argument's path before anything runs.  It knows the part of JSON
 * Schema sluice's tools use: type (one or a list), properties, required,
 * additionalProperties false, enum, minimum, minLength.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "mcp/mcp-int.h"

static int	schema_type_is(const cJSON *, const char *);
static int	schema_type_ok(const cJSON *, const cJSON *);
static char	*schema_walk(const cJSON *, const cJSON *, const char *);

/* Is v of the JSON Schema type named t? */
static int
schema_type_is(const cJSON *v, const char *t)
{
	if (strcmp(t, "object") == 0)
		return (cJSON_IsObject(v));
	if (strcmp(t, "array") == 0)
		return (cJSON_IsArray(v));
	if (strcmp(t, "string") == 0)
		return (cJSON_IsString(v));
	if (strcmp(t, "boolean") == 0)
		return (cJSON_IsBool(v));
	if (strcmp(t, "null") == 0)
		return (cJSON_IsNull(v));
	if (strcmp(t, "number") == 0)
		return (cJSON_IsNumber(v));
	if (strcmp(t, "integer") == 0)
		return (cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		    v->valuedouble == floor(v->valuedouble));
	return (0);
}

/* Does v have the type (or one of the types) the schema names? */
static int
schema_type_ok(const cJSON *schema, const cJSON *v)
{
	const cJSON	*type, *t;

	type = cJSON_GetObjectItemCaseSensitive(schema, "type");
	if (cJSON_IsString(type))
		return (schema_type_is(v, type->valuestring));
	if (!cJSON_IsArray(type))
		return (1);
	cJSON_ArrayForEach(t, type) {
		if (cJSON_IsString(t) && schema_type_is(v, t->valuestring))
			return (1);
	}
	return (0);
}

/* The first way v breaks the schema at path, or NULL. */
static char *
schema_walk(const cJSON *schema, const cJSON *v, const char *path)
{
	const cJSON	*props, *req, *e, *p, *min;
	char		*why, *sub, *want;

	if (!schema_type_ok(schema, v)) {
		e = cJSON_GetObjectItemCaseSensitive(schema, "type");
		want = cJSON_IsString(e) ? xstrdup(e->valuestring) :
		    json_print(e);
		xasprintf(&why, "%s: expected %s, not %s", path, want,
		    json_type_name(v));
		free(want);
		return (why);
	}
	if ((e = cJSON_GetObjectItemCaseSensitive(schema, "enum")) != NULL) {
		cJSON_ArrayForEach(p, e) {
			if (cJSON_Compare(p, v, 1))
				break;
		}
		if (p == NULL) {
			want = json_print(e);
			xasprintf(&why, "%s: expected one of %s", path, want);
			free(want);
			return (why);
		}
	}
	min = cJSON_GetObjectItemCaseSensitive(schema, "minimum");
	if (cJSON_IsNumber(min) && cJSON_IsNumber(v) &&
	    v->valuedouble < min->valuedouble) {
		xasprintf(&why, "%s: expected a number from %g", path,
		    min->valuedouble);
		return (why);
	}
	min = cJSON_GetObjectItemCaseSensitive(schema, "minLength");
	if (cJSON_IsNumber(min) && cJSON_IsString(v) &&
	    strlen(v->valuestring) < (size_t)min->valuedouble) {
		xasprintf(&why, "%s: expected a string that is not empty",
		    path);
		return (why);
	}
	if (!cJSON_IsObject(v))
		return (NULL);
	props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	cJSON_ArrayForEach(e, req) {
		if (cJSON_IsString(e) && cJSON_GetObjectItemCaseSensitive(v,
		    e->valuestring) == NULL) {
			xasprintf(&why, "%s.%s: missing (it is required)",
			    path, e->valuestring);
			return (why);
		}
	}
	cJSON_ArrayForEach(e, v) {
		p = cJSON_GetObjectItemCaseSensitive(props, e->string);
		if (p == NULL) {
			if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
			    schema, "additionalProperties")))
				continue;
			xasprintf(&why, "%s.%s: unknown argument", path,
			    e->string);
			return (why);
		}
		xasprintf(&sub, "%s.%s", path, e->string);
		why = schema_walk(p, e, sub);
		free(sub);
		if (why != NULL)
			return (why);
	}
	return (NULL);
}

/*
 * Check a call's arguments (NULL: none, taken as {}) against an input
 * schema; the reason names the argument ("arguments.step_id: ...").
 */
char *
mcp_schema_check(const cJSON *schema, const cJSON *args, const char *path)
{
	cJSON	*empty;
	char	*why;

	if (args != NULL)
		return (schema_walk(schema, args, path));
	empty = cJSON_CreateObject();
	why = schema_walk(schema, empty, path);
	cJSON_Delete(empty);
	return (why);
}
