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
 * policy.c: the policy a gate or wait step's row keeps (gate_json), fixed
 * when it starts waiting: its one writer and its one reader.  The reader
 * is strict, because the rule that decides who may approve reads it: a
 * key no row is written with, or a value of the wrong type, is an error
 * at its JSON path, and the caller refuses decisions with that reason.
 * A misspelt "approvers" read as "no list: anyone" would fail open.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

#define POLICY_GATE	0x1	/* a key a gate's row may have */
#define POLICY_WAIT	0x2	/* a key a wait step's row may have */

static int	 policy_strings(const cJSON *, char ***, size_t *);
static int	 policy_bool(const cJSON *, int *);
static int	 policy_int(const cJSON *, int64_t *, int64_t);

/* The keys a stored policy may have, and for which kind of row. */
static const struct {
	const char	*key;
	int		 rows;
	const char	*want;	/* for the reason: "expected WANT" */
} policy_keys[] = {
	{ "message", POLICY_GATE | POLICY_WAIT, "a string" },
	{ "approvers", POLICY_GATE, "an array of names" },
	{ "by", POLICY_WAIT, "an array of names" },
	{ "quorum", POLICY_GATE, "a whole number above zero" },
	{ "allow_self", POLICY_GATE, "true or false" },
	{ "agents", POLICY_GATE, "true or false" },
	{ "operators", POLICY_GATE | POLICY_WAIT, "true or false" },
	{ "interrupted", POLICY_GATE, "true or false" },
	{ "timeout_ms", POLICY_GATE | POLICY_WAIT,
	    "a whole number of milliseconds" },
	{ "on_timeout", POLICY_GATE | POLICY_WAIT, "a string" },
	{ "foreach", POLICY_GATE, "\"batch\" or \"budget\"" },
	{ "batch", POLICY_GATE, "a whole number above zero" }
};

/* A policy with nothing said: quorum 1, the site's defaults, no timeout. */
void
flow_policy_init(struct flow_policy *p, enum step_kind kind)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->quorum = 1;
	p->allow_self = -1;
	p->agents = -1;
	p->timeout_ms = -1;
}

/* Free what a policy holds. */
void
flow_policy_free(struct flow_policy *p)
{
	free(p->message);
	flow_strings_free(p->approvers, p->napprovers);
	flow_strings_free(p->by, p->nby);
	free(p->on_timeout);
	memset(p, 0, sizeof *p);
}

/* A list of names as a JSON array. */
static void
policy_add_names(cJSON *o, const char *key, char **v, size_t n)
{
	cJSON	*arr;
	size_t	 i;

	arr = cJSON_AddArrayToObject(o, key);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
}

/* The one writer: a policy as its row keeps it (compact JSON). */
char *
flow_policy_write(const struct flow_policy *p)
{
	cJSON	*o;
	char	*out;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "message", p->message != NULL ?
	    p->message : "");
	if (p->kind == KIND_WAIT) {
		policy_add_names(o, "by", p->by, p->nby);
		if (p->operators)
			cJSON_AddTrueToObject(o, "operators");
	} else {
		policy_add_names(o, "approvers", p->approvers, p->napprovers);
		cJSON_AddNumberToObject(o, "quorum", p->quorum > 0 ?
		    p->quorum : 1);
		if (p->allow_self >= 0)
			cJSON_AddBoolToObject(o, "allow_self", p->allow_self);
		if (p->agents >= 0)
			cJSON_AddBoolToObject(o, "agents", p->agents);
		if (p->operators)
			cJSON_AddTrueToObject(o, "operators");
		if (p->interrupted)
			cJSON_AddTrueToObject(o, "interrupted");
	}
	if (p->timeout_ms >= 0)
		cJSON_AddNumberToObject(o, "timeout_ms", (double)p->timeout_ms);
	if (p->on_timeout != NULL)
		cJSON_AddStringToObject(o, "on_timeout", p->on_timeout);
	if (p->kind != KIND_WAIT && p->foreach != FLOW_POLICY_NOT_FOREACH) {
		cJSON_AddStringToObject(o, "foreach", p->foreach ==
		    FLOW_POLICY_BATCH ? "batch" : "budget");
		if (p->foreach == FLOW_POLICY_BATCH)
			cJSON_AddNumberToObject(o, "batch", p->batch);
	}
	out = json_print(o);
	cJSON_Delete(o);
	return (out);
}

/* An array of strings, copied; -1 for anything else. */
static int
policy_strings(const cJSON *v, char ***out, size_t *n)
{
	const cJSON	*c;
	size_t		 i = 0;

	if (!cJSON_IsArray(v))
		return (-1);
	cJSON_ArrayForEach(c, v) {
		if (!cJSON_IsString(c))
			return (-1);
	}
	*n = (size_t)cJSON_GetArraySize(v);
	*out = xcalloc(*n + 1, sizeof **out);
	cJSON_ArrayForEach(c, v)
		(*out)[i++] = xstrdup(c->valuestring);
	return (0);
}

/* true or false; -1 for anything else. */
static int
policy_bool(const cJSON *v, int *out)
{
	if (!cJSON_IsBool(v))
		return (-1);
	*out = cJSON_IsTrue(v);
	return (0);
}

/* A whole number of at least min; -1 for anything else. */
static int
policy_int(const cJSON *v, int64_t *out, int64_t min)
{
	double	 d;

	if (!cJSON_IsNumber(v))
		return (-1);
	d = v->valuedouble;
	if (d != (double)(int64_t)d || d < (double)min || d > 9.0e15)
		return (-1);
	*out = (int64_t)d;
	return (0);
}

/* One member into the policy; -1 when its value is not what it must be. */
static int
policy_member(struct flow_policy *p, const cJSON *c)
{
	const char	*k = c->string;
	int64_t		 n;

	if (strcmp(k, "message") == 0) {
		if (!cJSON_IsString(c))
			return (-1);
		p->message = xstrdup(c->valuestring);
	} else if (strcmp(k, "approvers") == 0)
		return (policy_strings(c, &p->approvers, &p->napprovers));
	else if (strcmp(k, "by") == 0)
		return (policy_strings(c, &p->by, &p->nby));
	else if (strcmp(k, "quorum") == 0) {
		if (policy_int(c, &n, 1) != 0 || n > 1000000)
			return (-1);
		p->quorum = (int)n;
	} else if (strcmp(k, "allow_self") == 0)
		return (policy_bool(c, &p->allow_self));
	else if (strcmp(k, "agents") == 0)
		return (policy_bool(c, &p->agents));
	else if (strcmp(k, "operators") == 0)
		return (policy_bool(c, &p->operators));
	else if (strcmp(k, "interrupted") == 0)
		return (policy_bool(c, &p->interrupted));
	else if (strcmp(k, "timeout_ms") == 0)
		return (policy_int(c, &p->timeout_ms, 0));
	else if (strcmp(k, "on_timeout") == 0) {
		if (!cJSON_IsString(c))
			return (-1);
		p->on_timeout = xstrdup(c->valuestring);
	} else if (strcmp(k, "foreach") == 0) {
		if (cJSON_IsString(c) && strcmp(c->valuestring, "batch") == 0)
			p->foreach = FLOW_POLICY_BATCH;
		else if (cJSON_IsString(c) &&
		    strcmp(c->valuestring, "budget") == 0)
			p->foreach = FLOW_POLICY_BUDGET;
		else
			return (-1);
	} else if (strcmp(k, "batch") == 0) {
		if (policy_int(c, &n, 1) != 0 || n > 1000000)
			return (-1);
		p->batch = (int)n;
	}
	return (0);
}

/*
 * The one reader: the policy a row of this kind keeps.  0, or -1 with
 * the reason (its JSON path) in *cause and p holding nothing.  A row
 * with no policy at all has none to follow: an error as well.
 */
int
flow_policy_read(const char *json, enum step_kind kind,
    struct flow_policy *p, char **cause)
{
	cJSON		*o;
	const cJSON	*c;
	char		*key;
	size_t		 i;
	int		 rows = kind == KIND_WAIT ? POLICY_WAIT : POLICY_GATE;

	flow_policy_init(p, kind);
	*cause = NULL;
	if (json == NULL) {
		xasprintf(cause, "no stored policy");
		return (-1);
	}
	if ((o = cJSON_Parse(json)) == NULL || !cJSON_IsObject(o)) {
		xasprintf(cause, "$: expected an object, got %s",
		    o == NULL ? "text that is not JSON" : json_type_name(o));
		cJSON_Delete(o);
		return (-1);
	}
	cJSON_ArrayForEach(c, o) {
		for (i = 0; i < nitems(policy_keys); i++) {
			if (strcmp(policy_keys[i].key, c->string) == 0)
				break;
		}
		key = vis_str(c->string, 0);
		if (i == nitems(policy_keys) || !(policy_keys[i].rows & rows))
			xasprintf(cause, "$.%s: unknown key in a %s's policy",
			    key, kind_noun(kind));
		else if (policy_member(p, c) != 0)
			xasprintf(cause, "$.%s: expected %s, got %s", key,
			    policy_keys[i].want, json_type_name(c));
		free(key);
		if (*cause != NULL)
			break;
	}
	cJSON_Delete(o);
	if (*cause == NULL)
		return (0);
	flow_policy_free(p);
	flow_policy_init(p, kind);
	return (-1);
}

/*
 * Why a row's policy refuses what it would decide, in the one wording
 * the engine, the command line and the console all use: "its stored
 * policy cannot be read (gate_json WHY)", WHY from flow_policy_read().
 */
char *
flow_policy_unreadable(const char *why)
{
	char	*s;

	xasprintf(&s, "its stored policy cannot be read (gate_json %s)",
	    why != NULL ? why : "no reason given");
	return (s);
}
