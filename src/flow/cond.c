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
 * cond.c: branch conditions.  A condition is tokenized and parsed by
 * recursive descent into a small tree, never evaluated as code:
 *
 *	or	:= and ('||' and)*
 *	and	:= not ('&&' not)*
 *	not	:= '!' not | cmp
 *	cmp	:= operand (('=='|'!='|'<'|'<='|'>'|'>=') operand)?
 *	operand	:= literal | path | '(' or ')'
 *
 * '||' and '&&' chains are n-ary nodes and nesting is capped, so neither
 * parsing, evaluation nor freeing recurses deeper than COND_MAX_DEPTH.
 * Comparisons against the literals true, false and nil keep the reference
 * engine's loose rules: the strings "true", "false", "" and "nil" match too.
 * Evaluating the tree is in cond-eval.c.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

#define COND_MAX_DEPTH	64
#define COND_MAX_SEGS	64

struct cond_parser {
	const char		 *s;
	size_t			  len;
	size_t			  pos;
	int			  depth;
	int			  bare;		/* a bare word is a string */
	char			 *error;
	struct cond		 *cond;
};

static const char *cond_roots[] = {
	"result", "exit_code", "input", "steps", "workflow"
};

static void	 cond_node_free(struct cond_node *);
static struct cond_node *cond_node_new(enum cond_kind);
static void	 cond_kid_add(struct cond_node *, struct cond_node *);
static void	 cond_error(struct cond_parser *, size_t, const char *, ...)
		     printflike(3, 4);
static void	 cond_ws(struct cond_parser *);
static int	 cond_peek(struct cond_parser *, const char *);
static const char *cond_describe(struct cond_parser *, size_t, char *,
		     size_t);
static struct cond_node *cond_parse_or(struct cond_parser *, const char *,
		     size_t);
static struct cond_node *cond_parse_and(struct cond_parser *, const char *,
		     size_t);
static struct cond_node *cond_parse_not(struct cond_parser *, const char *,
		     size_t);
static struct cond_node *cond_parse_cmp(struct cond_parser *, const char *,
		     size_t);
static struct cond_node *cond_parse_operand(struct cond_parser *,
		     const char *, size_t);
static char	*cond_parse_string(struct cond_parser *);
static struct cond_node *cond_parse_number(struct cond_parser *);
static struct cond_node *cond_parse_path(struct cond_parser *);
static int	 cond_is_word(int);

/* Allocate a node. */
static struct cond_node *
cond_node_new(enum cond_kind kind)
{
	struct cond_node	*n;

	n = xcalloc(1, sizeof *n);
	n->kind = kind;
	return (n);
}

/*
 * Append a child to a node, doubling the array when it is full: growing it
 * by one each time copies it again for every operand, quadratic in a long
 * || chain (20,000 operands copied 1.6 GB).
 */
static void
cond_kid_add(struct cond_node *n, struct cond_node *kid)
{
	if (n->nkids == n->kidsalloc) {
		n->kidsalloc = n->kidsalloc == 0 ? 2 : n->kidsalloc * 2;
		n->kids = xreallocarray(n->kids, n->kidsalloc,
		    sizeof *n->kids);
	}
	n->kids[n->nkids++] = kid;
}

/* Free a node and its children (depth is bounded by the parser). */
static void
cond_node_free(struct cond_node *n)
{
	size_t	i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		cond_node_free(n->kids[i]);
	free(n->kids);
	free(n->string);
	flow_strings_free(n->segs, n->nsegs);
	free(n);
}

/* Record the first error as "column N: message". */
static void
cond_error(struct cond_parser *p, size_t pos, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	if (p->error != NULL)
		return;
	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	xasprintf(&p->error, "column %zu: %s", pos + 1, msg);
	free(msg);
}

/* Skip white space. */
static void
cond_ws(struct cond_parser *p)
{
	while (p->pos < p->len && isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

/* Is the text at the current position the given token? */
static int
cond_peek(struct cond_parser *p, const char *tok)
{
	size_t	n = strlen(tok);

	return (p->len - p->pos >= n && memcmp(p->s + p->pos, tok, n) == 0);
}

/* May this byte be part of a name? */
static int
cond_is_word(int c)
{
	return (isalnum((unsigned char)c) || c == '_' || c == '-');
}

/* Describe what is at pos for "unexpected ..." messages. */
static const char *
cond_describe(struct cond_parser *p, size_t pos, char *out, size_t size)
{
	static const char	*ops[] = {
		"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")"
	};
	size_t			 i, n;
	unsigned char		 c;

	if (pos >= p->len)
		return ("end of condition");
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		n = strlen(ops[i]);
		if (p->len - pos >= n && memcmp(p->s + pos, ops[i], n) == 0) {
			snprintf(out, size, "'%s'", ops[i]);
			return (out);
		}
	}
	c = (unsigned char)p->s[pos];
	if (cond_is_word(c)) {
		for (n = 0; pos + n < p->len && cond_is_word(p->s[pos + n]) &&
		    n < 32; n++)
			;
		snprintf(out, size, "\"%.*s\"", (int)n, p->s + pos);
	} else if (c >= 0x20 && c < 0x7f)
		snprintf(out, size, "'%c'", c);
	else
		snprintf(out, size, "byte 0x%02x", c);
	return (out);
}

/* or := and ('||' and)* */
static struct cond_node *
cond_parse_or(struct cond_parser *p, const char *after, size_t apos)
{
	struct cond_node	*n, *kid, *or = NULL;
	size_t			 opos;

	if ((n = cond_parse_and(p, after, apos)) == NULL)
		return (NULL);
	for (;;) {
		cond_ws(p);
		if (!cond_peek(p, "||")) {
			if (p->pos < p->len && p->s[p->pos] == '|' &&
			    !cond_peek(p, "||")) {
				cond_error(p, p->pos, "use '||' for \"or\"");
				goto fail;
			}
			break;
		}
		opos = p->pos;
		p->pos += 2;
		if ((kid = cond_parse_and(p, "||", opos)) == NULL)
			goto fail;
		if (or == NULL) {
			or = cond_node_new(COND_OR);
			cond_kid_add(or, n);
			n = or;
		}
		cond_kid_add(or, kid);
	}
	return (n);
fail:
	cond_node_free(n);
	return (NULL);
}

/* and := not ('&&' not)* */
static struct cond_node *
cond_parse_and(struct cond_parser *p, const char *after, size_t apos)
{
	struct cond_node	*n, *kid, *and = NULL;
	size_t			 opos;

	if ((n = cond_parse_not(p, after, apos)) == NULL)
		return (NULL);
	for (;;) {
		cond_ws(p);
		if (!cond_peek(p, "&&")) {
			if (p->pos < p->len && p->s[p->pos] == '&') {
				cond_error(p, p->pos, "use '&&' for \"and\"");
				goto fail;
			}
			break;
		}
		opos = p->pos;
		p->pos += 2;
		if ((kid = cond_parse_not(p, "&&", opos)) == NULL)
			goto fail;
		if (and == NULL) {
			and = cond_node_new(COND_AND);
			cond_kid_add(and, n);
			n = and;
		}
		cond_kid_add(and, kid);
	}
	return (n);
fail:
	cond_node_free(n);
	return (NULL);
}

/* not := '!' not | cmp */
static struct cond_node *
cond_parse_not(struct cond_parser *p, const char *after, size_t apos)
{
	struct cond_node	*n, *kid;
	size_t			 opos;

	cond_ws(p);
	if (!cond_peek(p, "!") || cond_peek(p, "!="))
		return (cond_parse_cmp(p, after, apos));
	opos = p->pos++;
	if (++p->depth > COND_MAX_DEPTH) {
		cond_error(p, opos, "nesting too deep (max %d)",
		    COND_MAX_DEPTH);
		return (NULL);
	}
	kid = cond_parse_not(p, "!", opos);
	p->depth--;
	if (kid == NULL)
		return (NULL);
	n = cond_node_new(COND_NOT);
	cond_kid_add(n, kid);
	return (n);
}

/* cmp := operand (op operand)? */
static struct cond_node *
cond_parse_cmp(struct cond_parser *p, const char *after, size_t apos)
{
	static const struct {
		const char	*tok;
		enum cond_op	 op;
	} ops[] = {
		{ "==", COND_EQ }, { "!=", COND_NE }, { "<=", COND_LE },
		{ ">=", COND_GE }, { "<", COND_LT }, { ">", COND_GT }
	};
	struct cond_node	*l, *r, *n;
	size_t			 i, opos;

	if ((l = cond_parse_operand(p, after, apos)) == NULL)
		return (NULL);
	cond_ws(p);
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		if (cond_peek(p, ops[i].tok))
			break;
	}
	if (i == sizeof ops / sizeof ops[0]) {
		if (p->pos < p->len && p->s[p->pos] == '=') {
			cond_error(p, p->pos, "use '==' to compare");
			cond_node_free(l);
			return (NULL);
		}
		return (l);
	}
	opos = p->pos;
	p->pos += strlen(ops[i].tok);
	/* The reference's unquoted form: result == yes. */
	p->bare = (l->kind == COND_PATH);
	r = cond_parse_operand(p, ops[i].tok, opos);
	p->bare = 0;
	if (r == NULL) {
		cond_node_free(l);
		return (NULL);
	}
	n = cond_node_new(COND_CMP);
	n->op = ops[i].op;
	cond_kid_add(n, l);
	cond_kid_add(n, r);
	return (n);
}

/* operand := literal | path | '(' or ')' */
static struct cond_node *
cond_parse_operand(struct cond_parser *p, const char *after, size_t apos)
{
	struct cond_node	*n;
	size_t			 open;
	char			 what[64];
	int			 c;

	cond_ws(p);
	if (p->pos >= p->len) {
		if (after != NULL)
			cond_error(p, apos, "expected a value after '%s'",
			    after);
		else
			cond_error(p, p->pos, "empty condition");
		return (NULL);
	}
	c = (unsigned char)p->s[p->pos];
	if (c == '(') {
		open = p->pos++;
		if (++p->depth > COND_MAX_DEPTH) {
			cond_error(p, open, "nesting too deep (max %d)",
			    COND_MAX_DEPTH);
			return (NULL);
		}
		n = cond_parse_or(p, "(", open);
		p->depth--;
		if (n == NULL)
			return (NULL);
		cond_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != ')') {
			cond_error(p, p->pos, "expected ')' to close the '(' "
			    "at column %zu, got %s", open + 1,
			    cond_describe(p, p->pos, what, sizeof what));
			cond_node_free(n);
			return (NULL);
		}
		p->pos++;
		return (n);
	}
	if (c == '"' || c == '\'') {
		n = cond_node_new(COND_LIT);
		n->lit = COND_LIT_STRING;
		if ((n->string = cond_parse_string(p)) == NULL) {
			cond_node_free(n);
			return (NULL);
		}
		return (n);
	}
	if (c == '-' || isdigit(c))
		return (cond_parse_number(p));
	if (isalpha(c) || c == '_')
		return (cond_parse_path(p));
	if (after != NULL)
		cond_error(p, p->pos, "expected a value after '%s', got %s",
		    after, cond_describe(p, p->pos, what, sizeof what));
	else
		cond_error(p, p->pos, "expected a value, got %s",
		    cond_describe(p, p->pos, what, sizeof what));
	return (NULL);
}

/*
 * Read a string literal in double quotes (JSON escapes) or single quotes
 * (the same, plus \'); decoding is left to cJSON.
 */
static char *
cond_parse_string(struct cond_parser *p)
{
	struct buf	 b;
	size_t		 open = p->pos, i;
	char		 q = p->s[p->pos], c, *out;
	cJSON		*v;

	buf_init(&b);
	buf_putc(&b, '"');
	for (i = open + 1; i < p->len; i++) {
		c = p->s[i];
		if (c == q)
			break;
		if (c == '\\' && i + 1 < p->len) {
			if (q == '\'' && p->s[i + 1] == '\'')
				buf_putc(&b, '\'');
			else {
				buf_putc(&b, '\\');
				buf_putc(&b, p->s[i + 1]);
			}
			i++;
			continue;
		}
		if (c == '"')
			buf_puts(&b, "\\\"");
		else
			buf_putc(&b, c);
	}
	if (i >= p->len) {
		buf_free(&b);
		cond_error(p, open, "unterminated string");
		return (NULL);
	}
	buf_putc(&b, '"');
	p->pos = i + 1;
	v = cJSON_ParseWithLength(b.data, b.len);
	buf_free(&b);
	if (v == NULL || !cJSON_IsString(v)) {
		cJSON_Delete(v);
		cond_error(p, open, "bad escape or control character in "
		    "string");
		return (NULL);
	}
	out = xstrdup(v->valuestring);
	cJSON_Delete(v);
	return (out);
}

/* Read a number: -?digits(.digits)?(e[+-]?digits)?, converted by cJSON. */
static struct cond_node *
cond_parse_number(struct cond_parser *p)
{
	struct cond_node	*n;
	size_t			 start = p->pos, i = p->pos, digits;
	cJSON			*v;

	if (p->s[i] == '-')
		i++;
	for (digits = 0; i < p->len && isdigit((unsigned char)p->s[i]); i++)
		digits++;
	if (digits > 0 && i < p->len && p->s[i] == '.') {
		for (i++, digits = 0; i < p->len &&
		    isdigit((unsigned char)p->s[i]); i++)
			digits++;
	}
	if (digits > 0 && i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		for (digits = 0; i < p->len &&
		    isdigit((unsigned char)p->s[i]); i++)
			digits++;
	}
	if (digits == 0 || (i < p->len && (cond_is_word(p->s[i]) ||
	    p->s[i] == '.'))) {
		cond_error(p, start, "bad number");
		return (NULL);
	}
	v = cJSON_ParseWithLength(p->s + start, i - start);
	if (v == NULL || !cJSON_IsNumber(v)) {
		cJSON_Delete(v);
		cond_error(p, start, "bad number");
		return (NULL);
	}
	n = cond_node_new(COND_LIT);
	n->lit = COND_LIT_NUMBER;
	n->number = v->valuedouble;
	cJSON_Delete(v);
	p->pos = i;
	return (n);
}

/* Read a keyword literal or a path: root ('.' segment)*. */
static struct cond_node *
cond_parse_path(struct cond_parser *p)
{
	struct cond_node	*n;
	struct cond		*c = p->cond;
	struct buf		 b;
	size_t			 start = p->pos, i, seg;
	char			*word;

	while (p->pos < p->len && cond_is_word(p->s[p->pos]))
		p->pos++;
	word = xstrndup(p->s + start, p->pos - start);
	if (p->pos >= p->len || p->s[p->pos] != '.') {
		n = cond_node_new(COND_LIT);
		if (strcmp(word, "true") == 0)
			n->lit = COND_LIT_TRUE;
		else if (strcmp(word, "false") == 0)
			n->lit = COND_LIT_FALSE;
		else if (strcmp(word, "nil") == 0 ||
		    strcmp(word, "null") == 0)
			n->lit = COND_LIT_NULL;
		else {
			free(n);
			n = NULL;
		}
		if (n != NULL) {
			free(word);
			return (n);
		}
	}
	for (i = 0; i < sizeof cond_roots / sizeof cond_roots[0]; i++) {
		if (strcmp(word, cond_roots[i]) == 0)
			break;
	}
	if (i == sizeof cond_roots / sizeof cond_roots[0] && p->bare &&
	    (p->pos >= p->len || p->s[p->pos] != '.')) {
		/* "result == yes" compares with the string "yes". */
		n = cond_node_new(COND_LIT);
		n->lit = COND_LIT_STRING;
		n->string = word;
		return (n);
	}
	if (i == sizeof cond_roots / sizeof cond_roots[0]) {
		cond_error(p, start, "unknown name \"%.32s\" (use result, "
		    "exit_code, input, steps, workflow)", word);
		free(word);
		return (NULL);
	}
	n = cond_node_new(COND_PATH);
	n->segs = xcalloc(1, sizeof *n->segs);
	n->segs[n->nsegs++] = word;
	while (p->pos < p->len && p->s[p->pos] == '.') {
		seg = ++p->pos;
		if (n->nsegs >= COND_MAX_SEGS) {
			cond_error(p, start, "path too long (max %d parts)",
			    COND_MAX_SEGS);
			goto fail;
		}
		if (p->pos < p->len && (p->s[p->pos] == '"' ||
		    p->s[p->pos] == '\'')) {
			if ((word = cond_parse_string(p)) == NULL)
				goto fail;
		} else {
			while (p->pos < p->len && cond_is_word(p->s[p->pos]))
				p->pos++;
			if (p->pos == seg) {
				cond_error(p, seg - 1, "expected a name after "
				    "'.'");
				goto fail;
			}
			word = xstrndup(p->s + seg, p->pos - seg);
		}
		n->segs = xreallocarray(n->segs, n->nsegs + 1,
		    sizeof *n->segs);
		n->segs[n->nsegs++] = word;
	}
	buf_init(&b);
	for (i = 0; i < n->nsegs; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : ".", n->segs[i]);
	c->refs = xreallocarray(c->refs, c->nrefs + 1, sizeof *c->refs);
	c->refs[c->nrefs++] = buf_release(&b);
	return (n);
fail:
	cond_node_free(n);
	return (NULL);
}

/* Parse a condition; NULL with cause "column N: why" when it is bad. */
struct cond *
cond_parse(const char *s, char **cause)
{
	struct cond_parser	 p;
	struct cond		*c;
	char			 what[64];

	memset(&p, 0, sizeof p);
	c = xcalloc(1, sizeof *c);
	p.s = s != NULL ? s : "";
	p.len = strlen(p.s);
	p.cond = c;
	c->root = cond_parse_or(&p, NULL, 0);
	if (c->root != NULL) {
		cond_ws(&p);
		if (p.pos < p.len)
			cond_error(&p, p.pos, "unexpected %s",
			    cond_describe(&p, p.pos, what, sizeof what));
	}
	if (p.error != NULL) {
		cond_free(c);
		if (cause != NULL)
			*cause = p.error;
		else
			free(p.error);
		return (NULL);
	}
	return (c);
}

/* Free a parsed condition. */
void
cond_free(struct cond *c)
{
	if (c == NULL)
		return;
	cond_node_free(c->root);
	flow_strings_free(c->refs, c->nrefs);
	free(c);
}

/* The dotted paths a condition reads ("steps.check.result"), owned by it. */
int
cond_refs(const struct cond *c, const char ***refs, size_t *n)
{
	*refs = (const char **)c->refs;
	*n = c->nrefs;
	return (0);
}

/*
 * Does a condition read the name root itself ("exit_code", not
 * "steps.x.exit_code")?  Decided from the parsed paths, never the text.
 */
int
cond_reads(const struct cond *c, const char *root)
{
	size_t	i, rl = strlen(root);

	for (i = 0; c != NULL && i < c->nrefs; i++) {
		if (strncmp(c->refs[i], root, rl) == 0 &&
		    (c->refs[i][rl] == '\0' || c->refs[i][rl] == '.'))
			return (1);
	}
	return (0);
}
