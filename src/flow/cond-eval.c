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
 * cond-eval.c: evaluating a parsed branch condition (cond.c) against a
 * step's scope.  Operands become values, comparisons follow the reference
 * engine's loose rules for true, false and nil, and '||'/'&&' chains are
 * walked without recursing deeper than the parser allowed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* The evaluated form of an operand. */
enum cond_vtype {
	COND_V_NULL,
	COND_V_BOOL,
	COND_V_NUMBER,
	COND_V_STRING,
	COND_V_JSON		/* an array or object */
};

struct cond_value {
	enum cond_vtype		 type;
	int			 b;
	double			 n;
	const char		*s;
	const cJSON		*j;
};

static int	 cond_truth(const struct cond_node *, const cJSON *);
static void	 cond_operand(const struct cond_node *, const cJSON *,
		     struct cond_value *);
static int	 cond_loose(const struct cond_value *, enum cond_lit);
static int	 cond_equal(const struct cond_value *,
		     const struct cond_value *);
static int	 cond_compare(const struct cond_node *, const cJSON *);

/* Evaluate an operand to a value (a sub-expression gives a boolean). */
static void
cond_operand(const struct cond_node *n, const cJSON *scope,
    struct cond_value *v)
{
	const cJSON	*j;

	memset(v, 0, sizeof *v);
	switch (n->kind) {
	case COND_LIT:
		switch (n->lit) {
		case COND_LIT_NULL:
			v->type = COND_V_NULL;
			break;
		case COND_LIT_TRUE:
		case COND_LIT_FALSE:
			v->type = COND_V_BOOL;
			v->b = (n->lit == COND_LIT_TRUE);
			break;
		case COND_LIT_NUMBER:
			v->type = COND_V_NUMBER;
			v->n = n->number;
			break;
		case COND_LIT_STRING:
			v->type = COND_V_STRING;
			v->s = n->string;
			break;
		}
		return;
	case COND_PATH:
		j = flow_json_lookup(scope, n->segs, n->nsegs);
		if (j == NULL || cJSON_IsNull(j))
			v->type = COND_V_NULL;
		else if (cJSON_IsBool(j)) {
			v->type = COND_V_BOOL;
			v->b = cJSON_IsTrue(j);
		} else if (cJSON_IsNumber(j)) {
			v->type = COND_V_NUMBER;
			v->n = j->valuedouble;
		} else if (cJSON_IsString(j)) {
			v->type = COND_V_STRING;
			v->s = j->valuestring;
		} else {
			v->type = COND_V_JSON;
			v->j = j;
		}
		return;
	default:
		v->type = COND_V_BOOL;
		v->b = cond_truth(n, scope);
		return;
	}
}

/* The reference engine's rules for comparing with true, false and nil. */
static int
cond_loose(const struct cond_value *v, enum cond_lit lit)
{
	switch (lit) {
	case COND_LIT_TRUE:
		return ((v->type == COND_V_BOOL && v->b) ||
		    (v->type == COND_V_STRING && strcmp(v->s, "true") == 0));
	case COND_LIT_FALSE:
		return ((v->type == COND_V_BOOL && !v->b) ||
		    (v->type == COND_V_STRING && strcmp(v->s, "false") == 0));
	default:
		return (v->type == COND_V_NULL ||
		    (v->type == COND_V_STRING && (*v->s == '\0' ||
		    strcmp(v->s, "nil") == 0)));
	}
}

/* Deep equality without coercion between strings and numbers. */
static int
cond_equal(const struct cond_value *a, const struct cond_value *b)
{
	if (a->type != b->type)
		return (0);
	switch (a->type) {
	case COND_V_NULL:
		return (1);
	case COND_V_BOOL:
		return (a->b == b->b);
	case COND_V_NUMBER:
		return (a->n == b->n);
	case COND_V_STRING:
		return (strcmp(a->s, b->s) == 0);
	case COND_V_JSON:
		return (cJSON_Compare(a->j, b->j, 1));
	}
	return (0);
}

/* Is n a literal true, false or nil, for the loose rules? */
#define COND_IS_LOOSE(n) ((n)->kind == COND_LIT && \
	((n)->lit == COND_LIT_TRUE || (n)->lit == COND_LIT_FALSE || \
	(n)->lit == COND_LIT_NULL))

/* Evaluate a comparison node. */
static int
cond_compare(const struct cond_node *n, const cJSON *scope)
{
	struct cond_value	 a, b;
	int			 eq, r;

	cond_operand(n->kids[0], scope, &a);
	cond_operand(n->kids[1], scope, &b);
	if (n->op == COND_EQ || n->op == COND_NE) {
		if (COND_IS_LOOSE(n->kids[1]))
			eq = cond_loose(&a, n->kids[1]->lit);
		else if (COND_IS_LOOSE(n->kids[0]))
			eq = cond_loose(&b, n->kids[0]->lit);
		else
			eq = cond_equal(&a, &b);
		return (n->op == COND_EQ ? eq : !eq);
	}
	if (a.type == COND_V_NUMBER && b.type == COND_V_NUMBER)
		r = (a.n < b.n) ? -1 : (a.n > b.n);
	else if (a.type == COND_V_STRING && b.type == COND_V_STRING) {
		r = strcmp(a.s, b.s);
		r = (r < 0) ? -1 : (r > 0);
	} else
		return (0);
	switch (n->op) {
	case COND_LT:
		return (r < 0);
	case COND_LE:
		return (r <= 0);
	case COND_GT:
		return (r > 0);
	default:
		return (r >= 0);
	}
}

/* Evaluate a node as a boolean. */
static int
cond_truth(const struct cond_node *n, const cJSON *scope)
{
	struct cond_value	v;
	size_t			i;

	switch (n->kind) {
	case COND_OR:
		for (i = 0; i < n->nkids; i++) {
			if (cond_truth(n->kids[i], scope))
				return (1);
		}
		return (0);
	case COND_AND:
		for (i = 0; i < n->nkids; i++) {
			if (!cond_truth(n->kids[i], scope))
				return (0);
		}
		return (1);
	case COND_NOT:
		return (!cond_truth(n->kids[0], scope));
	case COND_CMP:
		return (cond_compare(n, scope));
	default:
		break;
	}
	cond_operand(n, scope, &v);
	switch (v.type) {
	case COND_V_NULL:
		return (0);
	case COND_V_BOOL:
		return (v.b);
	case COND_V_NUMBER:
		return (v.n != 0);
	case COND_V_STRING:
		return (*v.s != '\0');
	default:
		return (1);
	}
}

/* Evaluate a condition against a scope object; 1 true, 0 false. */
int
cond_eval(const struct cond *c, const cJSON *scope)
{
	if (c == NULL || c->root == NULL)
		return (0);
	return (cond_truth(c->root, scope));
}
