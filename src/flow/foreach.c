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
 * foreach.c: the for-each fields of a step ("foreach", "do", "label",
 * "concurrency", "batch", "gate_between_batches", "max_failures",
 * "on_budget_spent"), what a for-each step may not also have, and the
 * arithmetic the engine and check share: batch ends, the failure budget
 * as a count and which items a retry at it runs again, item labels and
 * the items themselves.
 */

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static struct flow_foreach *foreach_get(struct flow_step *);
static int	 foreach_amount(const cJSON *, const char *, int, int *,
		     int *, struct flow_diags *);
static void	 foreach_items(struct flow_foreach *, const cJSON *,
		     const char *, struct flow_diags *);
static void	 foreach_batch(struct flow_foreach *, const cJSON *,
		     const char *, struct flow_diags *);
static void	 foreach_do(struct flow_step *, const cJSON *, const char *,
		     struct flow_diags *);
static void	 foreach_refuse(const char *, const char *, const char *,
		     struct flow_diags *);

/* A step's for-each options, made on the first for-each field. */
static struct flow_foreach *
foreach_get(struct flow_step *st)
{
	struct flow_foreach	*fe;

	if ((fe = st->foreach) != NULL)
		return (fe);
	fe = st->foreach = xcalloc(1, sizeof *fe);
	fe->max_failures_pct = -1;
	fe->on_budget_spent = FLOW_BUDGET_FAIL;
	fe->gate.quorum = 1;
	fe->gate.allow_self = -1;
	fe->gate.agents = -1;
	fe->gate.timeout = -1;
	fe->gate.on_timeout_target = -1;
	return (fe);
}

/*
 * A count (min to FLOW_FOREACH_MAX) or a percentage string ("25%", min
 * to 100).  Returns 0 and fills *count, or *pct for a percentage (else
 * -1), or -1 after saying why.
 */
static int
foreach_amount(const cJSON *v, const char *path, int min, int *count,
    int *pct, struct flow_diags *d)
{
	const char	*s;
	char		*end = NULL;
	long		 n = -1;

	*count = 0;
	*pct = -1;
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble != (double)(long)v->valuedouble ||
		    v->valuedouble < min || v->valuedouble > FLOW_FOREACH_MAX) {
			flow_diags_add(d, FLOW_ERROR, path, "expected a whole "
			    "number from %d to %d, or a percentage such as "
			    "\"25%%\"", min, FLOW_FOREACH_MAX);
			return (-1);
		}
		*count = (int)v->valuedouble;
		return (0);
	}
	if (!cJSON_IsString(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected a number or a "
		    "percentage such as \"25%%\", got %s", json_type_name(v));
		return (-1);
	}
	s = v->valuestring;
	if (isdigit((unsigned char)*s) && strlen(s) <= 4)
		n = strtol(s, &end, 10);
	if (n < min || n > 100 || end == NULL || strcmp(end, "%") != 0) {
		flow_diags_add(d, FLOW_ERROR, path, "bad percentage \"%s\" "
		    "(use %d%% to 100%%, as in \"25%%\")", s, min);
		return (-1);
	}
	*pct = (int)n;
	return (0);
}

/* "foreach": a literal array, or a string with a {{...}} reference. */
static void
foreach_items(struct flow_foreach *fe, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	if (cJSON_IsArray(v)) {
		free(fe->items_json);
		fe->items_json = json_print(v);
		return;
	}
	if (cJSON_IsString(v) && strstr(v->valuestring, "{{") != NULL) {
		free(fe->items_src);
		fe->items_src = xstrdup(v->valuestring);
		return;
	}
	flow_diags_add(d, FLOW_ERROR, path, "expected an array of items or a "
	    "reference yielding one, such as \"{{input.hosts}}\", got %s",
	    json_type_name(v));
}

/* "batch": a number, a percentage, or a non-empty list of them. */
static void
foreach_batch(struct flow_foreach *fe, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	const cJSON	*c;
	char		*sub;
	size_t		 n, i;
	int		 count, pct;

	free(fe->batch);
	fe->batch = NULL;
	fe->nbatch = 0;
	if (!cJSON_IsArray(v)) {
		if (foreach_amount(v, path, 1, &count, &pct, d) != 0)
			return;
		fe->batch = xcalloc(1, sizeof *fe->batch);
		fe->batch[0].count = count;
		fe->batch[0].percent = pct > 0 ? pct : 0;
		fe->nbatch = 1;
		return;
	}
	n = (size_t)cJSON_GetArraySize(v);
	if (n == 0 || n > FLOW_FOREACH_BATCHES) {
		flow_diags_add(d, FLOW_ERROR, path, "expected a list of 1 to "
		    "%d batch sizes, got %zu", FLOW_FOREACH_BATCHES, n);
		return;
	}
	fe->batch = xcalloc(n, sizeof *fe->batch);
	for (i = 0, c = v->child; c != NULL; c = c->next, i++) {
		sub = flow_path_index(path, i);
		if (foreach_amount(c, sub, 1, &count, &pct, d) == 0) {
			fe->batch[fe->nbatch].count = count;
			fe->batch[fe->nbatch].percent = pct > 0 ? pct : 0;
			fe->nbatch++;
		}
		free(sub);
	}
}

/* "do": what runs per item, a step without transitions. */
static void
foreach_do(struct flow_step *st, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	struct flow_foreach	*fe = foreach_get(st);
	struct flow_step	*b;

	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected a step object "
		    "(with tool, run or shell), got %s", json_type_name(v));
		return;
	}
	if (fe->body != NULL) {
		flow_step_free(fe->body);
		free(fe->body);
	}
	b = fe->body = xcalloc(1, sizeof *b);
	flow_step_parse(b, v, st->key, path, d);
	free(b->name);
	b->name = xstrdup(st->name);
	if (b->next != NULL)
		foreach_refuse(path, "next", "do", d);
	if (b->nbranch > 0)
		foreach_refuse(path, "branch", "do", d);
	if (b->parallel != NULL)
		foreach_refuse(path, "parallel", "do", d);
	if (b->join != NULL)
		foreach_refuse(path, "join", "do", d);
	if (b->done)
		foreach_refuse(path, "done", "do", d);
	if (b->has_deps)
		foreach_refuse(path, "depends_on", "do", d);
	if (b->foreach != NULL)
		foreach_refuse(path, "foreach", "do", d);
	if (b->exec == KIND_WAIT)
		flow_diags_add(d, FLOW_ERROR, path, "\"do\" cannot wait to "
		    "be finished from outside: a wait step is a step of "
		    "its own, before or after the for-each");
	if (cJSON_GetObjectItemCaseSensitive(v, "name") != NULL)
		foreach_refuse(path, "name", "do", d);
	if (cJSON_GetObjectItemCaseSensitive(v, "max_visits") != NULL)
		foreach_refuse(path, "max_visits", "do", d);
	if (cJSON_GetObjectItemCaseSensitive(v, "join_policy") != NULL)
		foreach_refuse(path, "join_policy", "do", d);
	if (b->when_src != NULL)
		foreach_refuse(path, "when", "do", d);
}

/* Say that field has no place in where (at path.field). */
static void
foreach_refuse(const char *path, const char *field, const char *where,
    struct flow_diags *d)
{
	char	*sub;

	sub = flow_path_key(path, field);
	if (strcmp(where, "do") == 0)
		flow_diags_add(d, FLOW_ERROR, sub, "\"%s\" has no place in "
		    "\"do\" (it runs once per item; put \"%s\" on the "
		    "for-each step)", field, field);
	else
		flow_diags_add(d, FLOW_ERROR, sub, "\"%s\" cannot be used on a "
		    "for-each step (put it in \"do\", which runs per item)",
		    field);
	free(sub);
}

/* One for-each field of a step, parsed at path. */
void
flow_foreach_field(struct flow_step *st, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	struct flow_foreach	*fe = foreach_get(st);
	const char		*name = v->string;
	const char		*s;
	int			 count, pct;

	if (strcmp(name, "foreach") == 0)
		foreach_items(fe, v, path, d);
	else if (strcmp(name, "do") == 0)
		foreach_do(st, v, path, d);
	else if (strcmp(name, "label") == 0) {
		free(fe->label);
		fe->label = flow_json_string(v, path, 1, d);
	} else if (strcmp(name, "concurrency") == 0) {
		if (foreach_amount(v, path, 1, &count, &pct, d) == 0 &&
		    pct >= 0)
			flow_diags_add(d, FLOW_ERROR, path, "concurrency is a "
			    "number of items, not a percentage");
		else
			fe->concurrency = count;
	} else if (strcmp(name, "batch") == 0)
		foreach_batch(fe, v, path, d);
	else if (strcmp(name, "gate_between_batches") == 0) {
		fe->gated = 1;
		if (cJSON_IsTrue(v))
			return;		/* a gate with the default options */
		flow_gate_parse(&fe->gate, v, path, d);
	} else if (strcmp(name, "max_failures") == 0) {
		if (foreach_amount(v, path, 0, &count, &pct, d) != 0)
			return;
		fe->max_failures = count;
		fe->max_failures_pct = pct;
	} else if (strcmp(name, "on_budget_spent") == 0) {
		s = cJSON_IsString(v) ? v->valuestring : "";
		if (strcmp(s, "fail") == 0)
			fe->on_budget_spent = FLOW_BUDGET_FAIL;
		else if (strcmp(s, "ask") == 0)
			fe->on_budget_spent = FLOW_BUDGET_ASK;
		else
			flow_diags_add(d, FLOW_ERROR, path, "expected \"fail\" "
			    "or \"ask\"%s%s%s", cJSON_IsString(v) ? ", got \"" :
			    "", s, cJSON_IsString(v) ? "\"" : "");
	}
}

/*
 * After a step's fields: a step with any for-each field is a for-each
 * step, which needs "foreach" and "do" and runs nothing of its own.
 */
void
flow_foreach_finish(struct flow_step *st, const char *path,
    struct flow_diags *d)
{
	struct flow_foreach	*fe = st->foreach;
	cJSON			*items;
	char			*sub;

	if (fe->items_json != NULL &&
	    (items = cJSON_Parse(fe->items_json)) != NULL) {
		sub = flow_path_key(path, "foreach");
		flow_foreach_items(fe, items, sub, d);
		free(sub);
		cJSON_Delete(items);
	}
	if (fe->items_json == NULL && fe->items_src == NULL)
		flow_diags_add(d, FLOW_ERROR, path, "for-each options without "
		    "\"foreach\" (the items to run \"do\" for)");
	if (fe->body == NULL)
		flow_diags_add(d, FLOW_ERROR, path, "a for-each step needs "
		    "\"do\": the step to run for each item");
	if (st->tool != NULL)
		foreach_refuse(path, "tool", "foreach", d);
	if (st->run != NULL)
		foreach_refuse(path, "run", "foreach", d);
	if (st->shell != NULL)
		foreach_refuse(path, "shell", "foreach", d);
	if (st->host != NULL)
		foreach_refuse(path, "host", "foreach", d);
	if (st->cwd != NULL)
		foreach_refuse(path, "cwd", "foreach", d);
	if (st->nenv > 0)
		foreach_refuse(path, "env", "foreach", d);
	if (strcmp(st->args_json, "{}") != 0)
		foreach_refuse(path, "args", "foreach", d);
	if (st->retry.set)
		foreach_refuse(path, "retry", "foreach", d);
	if (st->timeout >= 0)
		foreach_refuse(path, "timeout", "foreach", d);
	if (st->gate.message != NULL || st->gate.napprovers > 0)
		foreach_refuse(path, "gate", "foreach", d);
}

/* Free a step's for-each options. */
void
flow_foreach_free(struct flow_foreach *fe)
{
	if (fe == NULL)
		return;
	free(fe->items_src);
	free(fe->items_json);
	if (fe->body != NULL) {
		flow_step_free(fe->body);
		free(fe->body);
	}
	free(fe->label);
	free(fe->batch);
	free(fe->gate.message);
	flow_strings_free(fe->gate.approvers, fe->gate.napprovers);
	free(fe->gate.on_timeout);
	free(fe);
}

/*
 * The batches over n items as the end index of each (ascending, the last
 * n): a count or a percentage of n (at least one item) each; the list's
 * last size repeats until every item has a batch.  Returns how many.
 */
size_t
flow_foreach_batches(const struct flow_foreach *fe, size_t n, size_t **endsp)
{
	size_t	*ends = NULL, nends = 0, at = 0, size, i;

	while (at < n) {
		i = nends < fe->nbatch ? nends : fe->nbatch - 1;
		if (fe->nbatch == 0)
			size = n;
		else if (fe->batch[i].percent > 0) {
			size = (n * (size_t)fe->batch[i].percent + 99) / 100;
			if (size == 0)
				size = 1;
		} else
			size = (size_t)fe->batch[i].count;
		if (size > n - at)
			size = n - at;
		ends = xreallocarray(ends, nends + 1, sizeof *ends);
		at += size;
		ends[nends++] = at;
	}
	*endsp = ends;
	return (nends);
}

/* How many item failures the step tolerates over n items. */
int
flow_foreach_budget(const struct flow_foreach *fe, size_t n)
{
	if (fe->max_failures_pct >= 0)
		return ((int)(n * (size_t)fe->max_failures_pct / 100));
	return (fe->max_failures);
}

/*
 * Whether a row (its status, for-each row, item index and gate options)
 * is a for-each's gate waiting at its spent failure budget: the engine
 * marks that gate {"foreach": "budget"}.
 */
int
flow_foreach_budget_gate(enum step_status status, int64_t item_of,
    int item_index, const char *gate_json)
{
	struct flow_policy	 p;
	char			*cause;
	int			 yes;

	if (status != STEP_WAITING || item_of == 0 || item_index >= 0 ||
	    gate_json == NULL)
		return (0);
	if (flow_policy_read(gate_json, KIND_GATE, &p, &cause) != 0) {
		free(cause);
		return (0);
	}
	yes = p.foreach == FLOW_POLICY_BUDGET;
	flow_policy_free(&p);
	return (yes);
}

/*
 * Whether a retry at a spent failure budget runs an item again, by its
 * latest row's status: it failed, or (the for-each still running) an
 * operator cancelled it, which the budget counted as a failure too.
 */
int
flow_foreach_budget_again(enum step_status latest)
{
	return (latest == STEP_FAILED || latest == STEP_CANCELLED);
}

/*
 * The items a retry at the budget gate rows[gate] runs again: each item
 * of that gate's for-each (of every row that took it over) whose latest
 * row, the one of highest index in rows, flow_foreach_budget_again says
 * runs again is marked in again[n].  How many.
 */
size_t
flow_foreach_budget_plan(const struct flow_row *rows, size_t n, size_t gate,
    unsigned char *again)
{
	int64_t	 root = 0;
	size_t	 i, j, count = 0;

	memset(again, 0, n);
	for (i = 0; gate < n && i < n; i++) {
		if (rows[i].id == rows[gate].item_of)
			root = rows[i].item_of != 0 ? rows[i].item_of :
			    rows[i].id;
	}
	for (i = 0; root != 0 && i < n; i++) {
		if (rows[i].item_of != root || rows[i].item_index < 0 ||
		    !flow_foreach_budget_again(rows[i].status))
			continue;
		for (j = i + 1; j < n; j++) {
			if (rows[j].item_of == root &&
			    rows[j].item_index == rows[i].item_index)
				break;
		}
		if (j == n) {
			again[i] = 1;
			count++;
		}
	}
	return (count);
}

/*
 * An item's label: the label template interpolated in scope (which holds
 * the item and its index), else the item when it is a string.  NULL with
 * a reason when there is none usable: empty, too long, or with control
 * characters.
 */
char *
flow_foreach_label(const struct flow_foreach *fe, const cJSON *item,
    const cJSON *scope, char **why)
{
	const unsigned char	*p;
	char			*label;

	*why = NULL;
	if (fe->label != NULL)
		label = interp_text(fe->label, scope);
	else if (cJSON_IsString(item))
		label = xstrdup(item->valuestring);
	else {
		xasprintf(why, "is %s, not a string: give the step a \"label\" "
		    "such as \"{{item.host}}\"", json_type_name(item));
		return (NULL);
	}
	for (p = (const unsigned char *)label; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			break;
	}
	if (*label == '\0')
		xasprintf(why, "has an empty label");
	else if (*p != '\0')
		xasprintf(why, "has a label with a control character");
	else if (strlen(label) > SLUICE_MAX_NAME)
		xasprintf(why, "has a label longer than %d bytes",
		    SLUICE_MAX_NAME);
	if (*why != NULL) {
		free(label);
		return (NULL);
	}
	return (label);
}

/* A label's hash (FNV-1a), for the duplicate search. */
static uint64_t
foreach_label_hash(const char *s)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h);
}

/* Order hashes for the duplicate search. */
static int
foreach_hash_cmp(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* The label of item i (the scope gets it), or NULL with why. */
static char *
foreach_label_at(const struct flow_foreach *fe, const cJSON *c, size_t i,
    cJSON *scope, char **why)
{
	cJSON_DeleteItemFromObjectCaseSensitive(scope, "item");
	cJSON_DeleteItemFromObjectCaseSensitive(scope, "index");
	cJSON_AddItemToObject(scope, "item", cJSON_Duplicate(c, 1));
	cJSON_AddNumberToObject(scope, "index", (double)i);
	return (flow_foreach_label(fe, c, scope, why));
}

/* Walk the items of a parsed array. */
void
flow_items_array(struct flow_items *it, const cJSON *array)
{
	memset(it, 0, sizeof *it);
	it->array = array;
	it->c = array != NULL ? array->child : NULL;
	it->n = (size_t)-1;
}

/* Walk the items of the array whose JSON text is [text, end). */
void
flow_items_text(struct flow_items *it, const char *text, const char *end)
{
	memset(it, 0, sizeof *it);
	it->text = it->p = text;
	it->end = end;
	it->n = (size_t)-1;
}

/* Start the walk again from the first item. */
void
flow_items_rewind(struct flow_items *it)
{
	cJSON_Delete(it->own);
	it->own = NULL;
	it->c = it->array != NULL ? it->array->child : NULL;
	it->p = it->text;
}

/*
 * The next item (valid until the next call), or NULL after the last or
 * when the text is malformed (then bad is set).
 */
const cJSON *
flow_items_next(struct flow_items *it)
{
	const cJSON	*c;
	const char	*vp, *ve;
	int		 rc;

	cJSON_Delete(it->own);
	it->own = NULL;
	if (it->array != NULL) {
		if ((c = it->c) != NULL)
			it->c = c->next;
		return (c);
	}
	if (it->text == NULL ||
	    (rc = json_scan_next(&it->p, it->end, &vp, &ve)) == 0)
		return (NULL);
	if (rc < 0 || (it->own = cJSON_ParseWithLength(vp,
	    (size_t)(ve - vp))) == NULL) {
		it->bad = 1;
		return (NULL);
	}
	return (it->own);
}

/* How many items there are (text: counted once, without parsing them). */
size_t
flow_items_count(struct flow_items *it)
{
	const char	*p, *vp, *ve;
	size_t		 n = 0;
	int		 rc;

	if (it->n != (size_t)-1)
		return (it->n);
	if (it->array != NULL)
		n = (size_t)cJSON_GetArraySize(it->array);
	else if (it->text != NULL) {
		p = it->text;
		while ((rc = json_scan_next(&p, it->end, &vp, &ve)) == 1)
			n++;
		if (rc < 0)
			it->bad = 1;
	}
	it->n = n;
	return (n);
}

/* Let go of what a walk holds. */
void
flow_items_free(struct flow_items *it)
{
	cJSON_Delete(it->own);
	it->own = NULL;
}

/*
 * The label two items share, given the hash they share; NULL when the
 * hashes met by chance.
 */
static char *
foreach_label_twice(const struct flow_foreach *fe, struct flow_items *it,
    uint64_t h, cJSON *scope)
{
	const cJSON	*c;
	char		*label, *first = NULL, *why;
	size_t		 i;

	flow_items_rewind(it);
	for (i = 0; (c = flow_items_next(it)) != NULL; i++) {
		if ((label = foreach_label_at(fe, c, i, scope, &why)) == NULL) {
			free(why);
			continue;
		}
		if (foreach_label_hash(label) != h)
			free(label);
		else if (first == NULL)
			first = label;
		else if (strcmp(first, label) == 0) {
			free(label);
			return (first);
		} else
			free(label);
	}
	free(first);
	return (NULL);
}

/*
 * Check the items of a for-each (known at check time, or resolved at run
 * time): an array of at most FLOW_FOREACH_MAX items, each with a usable
 * label and no two alike.  Reports at path; returns the number of errors.
 */
int
flow_foreach_items(const struct flow_foreach *fe, const cJSON *items,
    const char *path, struct flow_diags *d)
{
	struct flow_items	 it;
	int			 errors;

	if (!cJSON_IsArray(items)) {
		flow_diags_add(d, FLOW_ERROR, path, "the items are %s, not an "
		    "array", json_type_name(items));
		return (1);
	}
	flow_items_array(&it, items);
	errors = flow_foreach_walk(fe, &it, path, d);
	flow_items_free(&it);
	return (errors);
}

/*
 * flow_foreach_items over a walk of items.  Labels are compared by hash
 * (8 bytes an item, not a copy of each label), and a shared hash is
 * confirmed by the labels themselves.
 */
int
flow_foreach_walk(const struct flow_foreach *fe, struct flow_items *it,
    const char *path, struct flow_diags *d)
{
	const cJSON	*c;
	cJSON		*scope;
	uint64_t	*hashes;
	char		*label, *why, *sub;
	size_t		 n, i;
	int		 errors = 0;

	if ((n = flow_items_count(it)) > FLOW_FOREACH_MAX) {
		flow_diags_add(d, FLOW_ERROR, path, "%zu items: a for-each "
		    "takes at most %d", n, FLOW_FOREACH_MAX);
		return (1);
	}
	hashes = xcalloc(n + 1, sizeof *hashes);
	scope = cJSON_CreateObject();
	flow_items_rewind(it);
	for (i = 0; i < n && (c = flow_items_next(it)) != NULL; i++) {
		if ((label = foreach_label_at(fe, c, i, scope, &why)) ==
		    NULL) {
			sub = flow_path_index(path, i);
			flow_diags_add(d, FLOW_ERROR, sub, "item %zu %s", i,
			    why);
			free(sub);
			free(why);
			if (++errors >= 10)
				break;
			continue;
		}
		hashes[i] = foreach_label_hash(label);
		free(label);
	}
	if (it->bad) {
		flow_diags_add(d, FLOW_ERROR, path, "the items are not valid "
		    "JSON");
		errors++;
	}
	if (errors == 0 && n > 1) {
		qsort(hashes, n, sizeof *hashes, foreach_hash_cmp);
		for (i = 1; i < n && errors == 0; i++) {
			if (hashes[i - 1] != hashes[i] || (i > 1 &&
			    hashes[i - 2] == hashes[i]))
				continue;
			if ((label = foreach_label_twice(fe, it, hashes[i],
			    scope)) == NULL)
				continue;
			flow_diags_add(d, FLOW_ERROR, path, "two items have the "
			    "label \"%s\" (labels name the item rows, so each "
			    "must be different)", label);
			free(label);
			errors++;
		}
	}
	cJSON_Delete(scope);
	free(hashes);
	flow_items_rewind(it);
	return (errors);
}

/*
 * Tally a for-each of n items from its item rows (oldest first): each
 * item counts by its latest row; the batch under way is the one holding
 * the first item not ended.
 */
void
flow_foreach_tally(const struct flow_foreach *fe, int n,
    const struct flow_foreach_row *rows, size_t nrows,
    struct flow_foreach_tally *t)
{
	const struct flow_foreach_row	**last;
	enum step_status		  s;
	size_t				 *ends, nends, i, k;
	int				  first = -1;

	memset(t, 0, sizeof *t);
	t->n = n;
	if (n <= 0)
		return;
	last = xcalloc((size_t)n, sizeof *last);
	for (i = 0; i < nrows; i++) {
		if (rows[i].index >= 0 && rows[i].index < n)
			last[rows[i].index] = &rows[i];
	}
	for (i = 0; i < (size_t)n; i++) {
		s = last[i] != NULL ? last[i]->status : STEP_PENDING;
		if (s == STEP_DONE || s == STEP_SKIPPED)
			t->done++;
		else if (s == STEP_FAILED)
			t->failed++;
		else if (s == STEP_CANCELLED)
			t->cancelled++;
		else if (s == STEP_PENDING &&
		    (last[i] == NULL || last[i]->attempt <= 1)) {
			t->waiting++;
			if (first < 0)
				first = (int)i;
		} else {
			t->running++;
			if (first < 0)
				first = (int)i;
		}
	}
	free(last);
	nends = flow_foreach_batches(fe, (size_t)n, &ends);
	t->nbatches = (int)nends;
	t->batch = (int)nends;
	for (k = 0; first >= 0 && k < nends; k++) {
		if ((size_t)first < ends[k]) {
			t->batch = (int)k + 1;
			break;
		}
	}
	free(ends);
	t->budget = flow_foreach_budget(fe, (size_t)n);
}
