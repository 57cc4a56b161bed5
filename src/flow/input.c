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
 * input.c: declared inputs (sluice-flow(5) INPUTS).  One table names the
 * keywords a declaration may hold, how each is read and what values each
 * allows, so a new keyword is one row.  flow_input_check() is the one
 * check of a value: flow_doc_input() calls it for every way a run starts
 * (the CLI, the console's form, MCP, a schedule, a parent's step, a
 * for-each item), so a value one path refuses every path refuses, with
 * the input's name and the keyword it broke.  Text typed as -i KEY=VAL
 * or into the form is first turned into the declared type.  Pure.
 */

#include <sys/types.h>

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

#define INPUT_SHOW_MAX	60	/* bytes of a value quoted in a message */

/* A declaration being read: the input (NULL inside "items"), its rule. */
struct input_parse {
	struct flow_input	*in;
	struct flow_input_rule	*rule;
	const char		*path;		/* the keyword's JSON path */
	struct flow_diags	*d;
};

/* A value being checked: where it is, for a message about an element. */
struct input_check {
	const char	*where;		/* "" for the input itself, or "[2]" */
	struct buf	*rule;		/* the keyword broken, dotted */
	struct buf	*why;
};

/* One keyword of a declaration. */
struct input_keyword {
	const char	*name;
	int		 top;		/* on an input only, not in "items" */
	unsigned	 types;		/* the types it applies to; 0 any */
	void		(*parse)(struct input_parse *, const cJSON *);
	int		(*check)(const struct flow_input_rule *, const cJSON *,
			    struct input_check *);
};

static void	input_parse_default(struct input_parse *, const cJSON *);
static void	input_parse_required(struct input_parse *, const cJSON *);
static void	input_parse_description(struct input_parse *, const cJSON *);
static void	input_parse_secret(struct input_parse *, const cJSON *);
static void	input_parse_type(struct input_parse *, const cJSON *);
static void	input_parse_enum(struct input_parse *, const cJSON *);
static void	input_parse_pattern(struct input_parse *, const cJSON *);
static void	input_parse_minimum(struct input_parse *, const cJSON *);
static void	input_parse_maximum(struct input_parse *, const cJSON *);
static void	input_parse_min_length(struct input_parse *, const cJSON *);
static void	input_parse_max_length(struct input_parse *, const cJSON *);
static void	input_parse_items(struct input_parse *, const cJSON *);
static int	input_check_type(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_enum(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_pattern(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_minimum(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_maximum(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_min_length(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_max_length(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_check_items(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static int	input_rule_check(const struct flow_input_rule *,
		    const cJSON *, struct input_check *);
static void	input_rule_parse(struct flow_input *, struct flow_input_rule *,
		    const cJSON *, const char *, struct flow_diags *);
static void	input_rule_free(struct flow_input_rule *);

#define T(x)		(1U << FLOW_INPUT_ ## x)
#define T_NUMBERS	(T(INTEGER) | T(NUMBER))

/* The keywords, in the order values are checked against them. */
static const struct input_keyword input_keywords[] = {
	{ "default", 1, 0, input_parse_default, NULL },
	{ "required", 1, 0, input_parse_required, NULL },
	{ "description", 0, 0, input_parse_description, NULL },
	{ "secret", 1, 0, input_parse_secret, NULL },
	{ "type", 0, 0, input_parse_type, input_check_type },
	{ "enum", 0, 0, input_parse_enum, input_check_enum },
	{ "pattern", 0, T(STRING), input_parse_pattern, input_check_pattern },
	{ "minimum", 0, T_NUMBERS, input_parse_minimum, input_check_minimum },
	{ "maximum", 0, T_NUMBERS, input_parse_maximum, input_check_maximum },
	{ "minLength", 0, T(STRING), input_parse_min_length,
	    input_check_min_length },
	{ "maxLength", 0, T(STRING), input_parse_max_length,
	    input_check_max_length },
	{ "items", 0, T(ARRAY), input_parse_items, input_check_items },
};
#define INPUT_NKEYWORDS (sizeof input_keywords / sizeof input_keywords[0])

/* The type names, indexed by enum flow_input_type. */
static const char *input_type_names[] = {
	NULL, "string", "integer", "number", "boolean", "array", "object"
};
#define INPUT_NTYPES (sizeof input_type_names / sizeof input_type_names[0])

/* A type's name ("string"), or NULL for any. */
const char *
flow_input_type_name(enum flow_input_type t)
{
	return ((size_t)t < INPUT_NTYPES ? input_type_names[t] : NULL);
}

/* A value as a message quotes it: compact JSON, cut short. */
static void
input_show(struct buf *b, const cJSON *v)
{
	char	*s;
	size_t	 n;

	s = json_print(v);
	if ((n = strlen(s)) > INPUT_SHOW_MAX) {
		n = INPUT_SHOW_MAX;
		while (n > 0 && (s[n] & 0xc0) == 0x80)
			n--;
		buf_add(b, s, n);
		buf_puts(b, "...");
	} else
		buf_puts(b, s);
	free(s);
}

/*
 * A number as people write it: 3, not 3.000000 or 3e+00; 0.1, not
 * 0.10000000000000001 (the shortest of 15 or 17 digits that reads back).
 */
void
flow_input_number(struct buf *b, double x)
{
	char	text[64];

	if (x == floor(x) && fabs(x) < 1e15) {
		buf_printf(b, "%.0f", x);
		return;
	}
	snprintf(text, sizeof text, "%.15g", x);
	if (strtod(text, NULL) != x)
		snprintf(text, sizeof text, "%.17g", x);
	buf_puts(b, text);
}

/* The start of a refusal: "[2] " where the value is an element. */
static void
input_why(struct input_check *c, const cJSON *v)
{
	if (*c->where != '\0')
		buf_printf(c->why, "%s ", c->where);
	input_show(c->why, v);
}

/* Does a value have this type?  An integer is a number with no fraction. */
static int
input_is_type(const cJSON *v, enum flow_input_type t)
{
	switch (t) {
	case FLOW_INPUT_ANY:
		return (1);
	case FLOW_INPUT_STRING:
		return (cJSON_IsString(v));
	case FLOW_INPUT_INTEGER:
		return (cJSON_IsNumber(v) && v->valuedouble ==
		    floor(v->valuedouble) && fabs(v->valuedouble) <=
		    9007199254740992.0);
	case FLOW_INPUT_NUMBER:
		return (cJSON_IsNumber(v));
	case FLOW_INPUT_BOOLEAN:
		return (cJSON_IsBool(v));
	case FLOW_INPUT_ARRAY:
		return (cJSON_IsArray(v));
	case FLOW_INPUT_OBJECT:
		return (cJSON_IsObject(v));
	}
	return (0);
}

/* The characters (not bytes) of a UTF-8 string, as JSON Schema counts. */
static int64_t
input_length(const char *s)
{
	int64_t	n = 0;

	for (; *s != '\0'; s++) {
		if ((*s & 0xc0) != 0x80)
			n++;
	}
	return (n);
}

/* Compile a pattern matched whole: "^(" P ")$", extended, no captures. */
static int
input_regcomp(regex_t *re, const char *pattern, char **cause)
{
	char	*full, err[256];
	int	 rc;

	xasprintf(&full, "^(%s)$", pattern);
	rc = regcomp(re, full, REG_EXTENDED | REG_NOSUB);
	free(full);
	if (rc != 0) {
		if (cause != NULL) {
			regerror(rc, re, err, sizeof err);
			xasprintf(cause, "%s", err);
		}
		return (-1);
	}
	return (0);
}

/* "default": any JSON value, checked against the rule once all is read. */
static void
input_parse_default(struct input_parse *p, const cJSON *v)
{
	free(p->in->default_json);
	p->in->default_json = json_print(v);
}

/* "required": true or false. */
static void
input_parse_required(struct input_parse *p, const cJSON *v)
{
	if (!cJSON_IsBool(v))
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected true or "
		    "false, got %s", json_type_name(v));
	else
		p->in->required = cJSON_IsTrue(v);
}

/*
 * "secret": the value is given apart (never on the command line), kept
 * out of the database and shown as "***" (SPEC §13, secret.c).
 */
static void
input_parse_secret(struct input_parse *p, const cJSON *v)
{
	if (!cJSON_IsBool(v))
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected true or "
		    "false, got %s", json_type_name(v));
	else
		p->in->secret = cJSON_IsTrue(v);
}

/* "description": a string, shown beside the input. */
static void
input_parse_description(struct input_parse *p, const cJSON *v)
{
	char	*s;

	s = flow_json_string(v, p->path, 0, p->d);
	if (p->in != NULL) {
		free(p->in->description);
		p->in->description = s;
	} else
		free(s);
}

/* "type": one of the type names. */
static void
input_parse_type(struct input_parse *p, const cJSON *v)
{
	const char	*hint;
	size_t		 i;

	if (!cJSON_IsString(v)) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected a type "
		    "name (string, integer, number, boolean, array, object), "
		    "got %s", json_type_name(v));
		return;
	}
	for (i = 1; i < INPUT_NTYPES; i++) {
		if (strcmp(v->valuestring, input_type_names[i]) == 0) {
			p->rule->type = (enum flow_input_type)i;
			return;
		}
	}
	hint = flow_suggest(v->valuestring, input_type_names + 1,
	    INPUT_NTYPES - 1);
	if (hint != NULL)
		flow_diags_add(p->d, FLOW_ERROR, p->path, "unknown type "
		    "\"%s\" (did you mean \"%s\"?)", v->valuestring, hint);
	else
		flow_diags_add(p->d, FLOW_ERROR, p->path, "unknown type "
		    "\"%s\" (string, integer, number, boolean, array, object)",
		    v->valuestring);
}

/* "enum": a non-empty array of the values allowed. */
static void
input_parse_enum(struct input_parse *p, const cJSON *v)
{
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected a "
		    "non-empty array of the values allowed, got %s",
		    cJSON_IsArray(v) ? "an empty array" : json_type_name(v));
		return;
	}
	free(p->rule->enum_json);
	p->rule->enum_json = json_print(v);
}

/* "pattern": a POSIX extended regular expression that compiles. */
static void
input_parse_pattern(struct input_parse *p, const cJSON *v)
{
	regex_t	 re;
	char	*why = NULL;

	if (!cJSON_IsString(v)) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected a POSIX "
		    "extended regular expression, got %s", json_type_name(v));
		return;
	}
	if (input_regcomp(&re, v->valuestring, &why) != 0) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "pattern %s does "
		    "not compile: %s", v->valuestring, why);
		free(why);
		return;
	}
	regfree(&re);
	free(p->rule->pattern);
	p->rule->pattern = xstrdup(v->valuestring);
}

/* "minimum" and "maximum": numbers. */
static int
input_parse_number(struct input_parse *p, const cJSON *v, double *x)
{
	if (!cJSON_IsNumber(v)) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected a number, "
		    "got %s", json_type_name(v));
		return (-1);
	}
	*x = v->valuedouble;
	return (0);
}

static void
input_parse_minimum(struct input_parse *p, const cJSON *v)
{
	if (input_parse_number(p, v, &p->rule->minimum) == 0)
		p->rule->has_minimum = 1;
}

static void
input_parse_maximum(struct input_parse *p, const cJSON *v)
{
	if (input_parse_number(p, v, &p->rule->maximum) == 0)
		p->rule->has_maximum = 1;
}

/* "minLength" and "maxLength": counts of characters. */
static void
input_parse_min_length(struct input_parse *p, const cJSON *v)
{
	flow_json_int(v, p->path, 0, INT64_MAX, &p->rule->min_length, p->d);
}

static void
input_parse_max_length(struct input_parse *p, const cJSON *v)
{
	flow_json_int(v, p->path, 0, INT64_MAX, &p->rule->max_length, p->d);
}

/* "items": the same keywords, for each element of an array. */
static void
input_parse_items(struct input_parse *p, const cJSON *v)
{
	if (!cJSON_IsObject(v)) {
		flow_diags_add(p->d, FLOW_ERROR, p->path, "expected an object "
		    "of keywords for each element, got %s", json_type_name(v));
		return;
	}
	if (p->rule->items != NULL) {
		input_rule_free(p->rule->items);
		free(p->rule->items);
	}
	p->rule->items = xcalloc(1, sizeof *p->rule->items);
	input_rule_parse(NULL, p->rule->items, v, p->path, p->d);
}

/* type: the value has the declared type. */
static int
input_check_type(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	const char	*name = flow_input_type_name(r->type);

	if (input_is_type(v, r->type))
		return (0);
	if (*c->where != '\0')
		buf_printf(c->why, "%s ", c->where);
	buf_printf(c->why, "expected %s %s, got ", strchr("aeiou", *name) !=
	    NULL ? "an" : "a", name);
	input_show(c->why, v);
	return (-1);
}

/* enum: the value equals one of those listed. */
static int
input_check_enum(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	cJSON		*list;
	const cJSON	*e;
	int		 found = 0;

	if (r->enum_json == NULL)
		return (0);
	if ((list = cJSON_Parse(r->enum_json)) == NULL)
		fatalx("%s: out of memory", __func__);
	cJSON_ArrayForEach(e, list) {
		if (cJSON_Compare(e, v, 1))
			found = 1;
	}
	if (!found) {
		input_why(c, v);
		buf_puts(c->why, " is not one of ");
		cJSON_ArrayForEach(e, list) {
			if (e != list->child)
				buf_puts(c->why, ", ");
			input_show(c->why, e);
		}
	}
	cJSON_Delete(list);
	return (found ? 0 : -1);
}

/* pattern: a string matches the expression whole. */
static int
input_check_pattern(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	regex_t	 re;
	int	 rc;

	if (r->pattern == NULL || !cJSON_IsString(v))
		return (0);
	if (input_regcomp(&re, r->pattern, NULL) != 0)
		fatalx("%s: pattern %s was checked but does not compile",
		    __func__, r->pattern);
	rc = regexec(&re, v->valuestring, 0, NULL, 0);
	regfree(&re);
	if (rc == 0)
		return (0);
	input_why(c, v);
	buf_printf(c->why, " does not match %s", r->pattern);
	return (-1);
}

/* minimum: a number is at least this. */
static int
input_check_minimum(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	if (!r->has_minimum || !cJSON_IsNumber(v) ||
	    v->valuedouble >= r->minimum)
		return (0);
	input_why(c, v);
	buf_puts(c->why, " is below the minimum ");
	flow_input_number(c->why, r->minimum);
	return (-1);
}

/* maximum: a number is at most this. */
static int
input_check_maximum(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	if (!r->has_maximum || !cJSON_IsNumber(v) ||
	    v->valuedouble <= r->maximum)
		return (0);
	input_why(c, v);
	buf_puts(c->why, " is above the maximum ");
	flow_input_number(c->why, r->maximum);
	return (-1);
}

/* minLength: a string has at least this many characters. */
static int
input_check_min_length(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	if (r->min_length < 0 || !cJSON_IsString(v) ||
	    input_length(v->valuestring) >= r->min_length)
		return (0);
	input_why(c, v);
	buf_printf(c->why, " is shorter than %lld character%s",
	    (long long)r->min_length, r->min_length == 1 ? "" : "s");
	return (-1);
}

/* maxLength: a string has at most this many characters. */
static int
input_check_max_length(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	if (r->max_length < 0 || !cJSON_IsString(v) ||
	    input_length(v->valuestring) <= r->max_length)
		return (0);
	input_why(c, v);
	buf_printf(c->why, " is longer than %lld character%s",
	    (long long)r->max_length, r->max_length == 1 ? "" : "s");
	return (-1);
}

/* items: every element of an array keeps the element rule. */
static int
input_check_items(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	struct input_check	 sub;
	struct buf		 rule, where;
	const cJSON		*e;
	size_t			 i = 0;
	int			 rc = 0;

	if (r->items == NULL || !cJSON_IsArray(v))
		return (0);
	buf_init(&rule);
	buf_init(&where);
	cJSON_ArrayForEach(e, v) {
		buf_reset(&where);
		buf_printf(&where, "%s[%zu]", c->where, i++);
		sub.where = where.data;
		sub.rule = &rule;
		sub.why = c->why;
		if ((rc = input_rule_check(r->items, e, &sub)) != 0) {
			buf_printf(c->rule, ".%s", rule.data);
			break;
		}
	}
	buf_free(&rule);
	buf_free(&where);
	return (rc);
}

/*
 * Check a value against a rule, keyword by keyword in the table's order
 * (the type first, so later keywords see the type they expect).
 */
static int
input_rule_check(const struct flow_input_rule *r, const cJSON *v,
    struct input_check *c)
{
	const struct input_keyword	*kw;
	size_t				 i;

	for (i = 0; i < INPUT_NKEYWORDS; i++) {
		kw = &input_keywords[i];
		if (kw->check == NULL ||
		    (kw->check == input_check_type && r->type == FLOW_INPUT_ANY))
			continue;
		buf_reset(c->rule);
		buf_puts(c->rule, kw->name);
		if (kw->check(r, v, c) != 0)
			return (-1);
	}
	return (0);
}

/*
 * Check a value against a rule: 0, or -1 with "breaks RULE: DETAIL" in
 * *why (the caller says whose value it is).
 */
static int
input_rule_why(const struct flow_input_rule *r, const cJSON *v, char **why)
{
	struct input_check	 c;
	struct buf		 rule, text;

	buf_init(&rule);
	buf_init(&text);
	c.where = "";
	c.rule = &rule;
	c.why = &text;
	if (input_rule_check(r, v, &c) == 0) {
		buf_free(&rule);
		buf_free(&text);
		return (0);
	}
	xasprintf(why, "breaks %s: %s", rule.data, text.data);
	buf_free(&rule);
	buf_free(&text);
	return (-1);
}

/* A keyword's row, or NULL. */
static const struct input_keyword *
input_keyword_find(const char *name)
{
	size_t	i;

	for (i = 0; i < INPUT_NKEYWORDS; i++) {
		if (strcmp(input_keywords[i].name, name) == 0)
			return (&input_keywords[i]);
	}
	return (NULL);
}

/* An unknown keyword, with the closest known one. */
static void
input_unknown(const char *path, const char *name, int top,
    struct flow_diags *d)
{
	const char	*known[INPUT_NKEYWORDS];
	size_t		 i, n = 0;

	for (i = 0; i < INPUT_NKEYWORDS; i++) {
		if (top || !input_keywords[i].top)
			known[n++] = input_keywords[i].name;
	}
	flow_diags_unknown(d, path, name, known, n,
	    top ? " in an input" : " in items");
}

/*
 * What cannot hold: a minimum above the maximum, a keyword for another
 * type, an enum value the rest of the rule refuses.
 */
static void
input_rule_sound(const struct flow_input_rule *r, const cJSON *v,
    const char *path, struct flow_diags *d)
{
	const struct input_keyword	*kw;
	const cJSON			*c, *list;
	char				*sub, *en, *why;
	size_t				 i = 0;

	if (r->has_minimum && r->has_maximum && r->minimum > r->maximum)
		flow_diags_add(d, FLOW_ERROR, path, "minimum %g is above "
		    "maximum %g: no value can hold", r->minimum, r->maximum);
	if (r->min_length >= 0 && r->max_length >= 0 &&
	    r->min_length > r->max_length)
		flow_diags_add(d, FLOW_ERROR, path, "minLength %lld is above "
		    "maxLength %lld: no value can hold",
		    (long long)r->min_length, (long long)r->max_length);
	for (c = v->child; r->type != FLOW_INPUT_ANY && c != NULL;
	    c = c->next) {
		kw = input_keyword_find(c->string);
		if (kw == NULL || kw->types == 0 || (kw->types &
		    (1U << r->type)) != 0)
			continue;
		sub = flow_path_key(path, c->string);
		flow_diags_add(d, FLOW_WARNING, sub, "%s does not apply to "
		    "type %s: it is never checked", c->string,
		    flow_input_type_name(r->type));
		free(sub);
	}
	list = cJSON_GetObjectItemCaseSensitive(v, "enum");
	if (r->enum_json == NULL || !cJSON_IsArray(list))
		return;
	cJSON_ArrayForEach(c, list) {
		if (input_rule_why(r, c, &why) != 0) {
			en = flow_path_key(path, "enum");
			sub = flow_path_index(en, i);
			free(en);
			flow_diags_add(d, FLOW_ERROR, sub, "this value %s",
			    why);
			free(why);
			free(sub);
		}
		i++;
	}
}

/* Read a rule's keywords (and, on an input, its own) from an object. */
static void
input_rule_parse(struct flow_input *in, struct flow_input_rule *r,
    const cJSON *v, const char *path, struct flow_diags *d)
{
	const struct input_keyword	*kw;
	struct input_parse		 p;
	const cJSON			*c;
	char				*sub;

	r->min_length = r->max_length = -1;
	p.in = in;
	p.rule = r;
	p.d = d;
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		kw = input_keyword_find(c->string);
		if (kw == NULL || (kw->top && in == NULL))
			input_unknown(sub, c->string, in != NULL, d);
		else {
			p.path = sub;
			kw->parse(&p, c);
		}
		free(sub);
	}
	input_rule_sound(r, v, path, d);
}

/*
 * Read one declared input: {"default", "required", "description",
 * "type", ...}.  Reports every keyword that is unknown or cannot hold,
 * and a default the rule refuses, at its JSON path.
 */
void
flow_input_declare(struct flow_input *in, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	cJSON	*def;
	char	*sub, *why;

	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "an input must be an "
		    "object such as {\"default\": ..., \"required\": true}, "
		    "got %s", json_type_name(v));
		in->rule.min_length = in->rule.max_length = -1;
		return;
	}
	input_rule_parse(in, &in->rule, v, path, d);
	if (in->required && in->default_json != NULL)
		flow_diags_add(d, FLOW_WARNING, path, "a required input with "
		    "a default: the default is never used");
	if (in->default_json == NULL ||
	    (def = cJSON_Parse(in->default_json)) == NULL)
		return;
	if (input_rule_why(&in->rule, def, &why) != 0) {
		sub = flow_path_key(path, "default");
		flow_diags_add(d, FLOW_ERROR, sub, "the default %s", why);
		free(sub);
		free(why);
	}
	cJSON_Delete(def);
}

/* Free a rule's members (not the rule). */
static void
input_rule_free(struct flow_input_rule *r)
{
	free(r->enum_json);
	free(r->pattern);
	if (r->items != NULL) {
		input_rule_free(r->items);
		free(r->items);
	}
	memset(r, 0, sizeof *r);
}

/* Free a declared input's members. */
void
flow_input_free(struct flow_input *in)
{
	free(in->key);
	free(in->description);
	free(in->default_json);
	input_rule_free(&in->rule);
}

/*
 * Text typed for an input (-i KEY=VAL, the console's form) as a value of
 * its declared type: "3" an integer, "true" a boolean, "[...]" an array.
 * Text for an input of no type, or of type string, stays a string.
 */
static int
input_from_text(const struct flow_input *in, const char *text, cJSON **out,
    char **cause)
{
	enum flow_input_type	 t = in->rule.type;
	const char		*name = flow_input_type_name(t);
	int64_t			 n;
	double			 x;
	char			*end;
	cJSON			*v = NULL;

	if (t == FLOW_INPUT_ANY || t == FLOW_INPUT_STRING) {
		*out = cJSON_CreateString(text);
		return (0);
	}
	if (t == FLOW_INPUT_INTEGER && str_parse_int64(text, &n) == 0)
		v = cJSON_CreateNumber((double)n);
	else if (t == FLOW_INPUT_NUMBER && *text != '\0' &&
	    strchr(" \t\n", *text) == NULL) {
		x = strtod(text, &end);
		if (*end == '\0' && isfinite(x))
			v = cJSON_CreateNumber(x);
	} else if (t == FLOW_INPUT_BOOLEAN && strcmp(text, "true") == 0)
		v = cJSON_CreateTrue();
	else if (t == FLOW_INPUT_BOOLEAN && strcmp(text, "false") == 0)
		v = cJSON_CreateFalse();
	else if (t == FLOW_INPUT_ARRAY || t == FLOW_INPUT_OBJECT) {
		v = cJSON_Parse(text);
		if (v != NULL && !input_is_type(v, t)) {
			cJSON_Delete(v);
			v = NULL;
		}
	}
	if (v == NULL) {
		xasprintf(cause, "input \"%s\" breaks type: expected %s %s%s, "
		    "got \"%s\"", in->key, strchr("aeiou", *name) != NULL ?
		    "an" : "a", name, t == FLOW_INPUT_BOOLEAN ?
		    " (true or false)" : "", text);
		return (-1);
	}
	*out = v;
	return (0);
}

/*
 * The one check of a value given for a declared input, on every way a
 * run starts.  With as_text, a string is first read as the declared type
 * (and *value replaced).  0, or -1 with "input "KEY" breaks RULE: ..."
 * in *cause.
 */
int
flow_input_check(const struct flow_input *in, cJSON **value, int as_text,
    char **cause)
{
	cJSON	*v;
	char	*why;

	if (as_text && cJSON_IsString(*value)) {
		if (input_from_text(in, (*value)->valuestring, &v, cause) != 0)
			return (-1);
		cJSON_Delete(*value);
		*value = v;
	}
	if (input_rule_why(&in->rule, *value, &why) != 0) {
		xasprintf(cause, "input \"%s\" %s", in->key, why);
		free(why);
		return (-1);
	}
	return (0);
}
