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
 * owners.c: which template a command acts on, and whether the caller is
 * one of its operators (authority-template.c decides; this finds what
 * it decides on).  A start and a schedule name their template; a run,
 * a step of one and a schedule's firing are the template's their row
 * names.  The list is the template's latest version's, so removing a
 * person from it takes effect on the runs already made.  Every way a
 * command reaches the engine (the socket, the inbox, a command applying
 * itself) comes through engine_apply, which asks here.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* Free a list of operators. */
static void
engine_owners_free(char **ops, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(ops[i]);
	free(ops);
}

/*
 * The operators the latest version of template name names: a new
 * array of n strings, or NULL (none, or no such template).
 */
static char **
engine_owners_of(struct engine *e, const char *name, size_t *n)
{
	struct store_template	*t;
	struct flow_doc		*doc;
	char			**ops = NULL, *cause = NULL;
	int			 rc;

	*n = 0;
	rc = store_template_get(e->store, name, 0, &t, &cause);
	if (rc == STORE_NOTFOUND) {
		free(cause);
		return (NULL);
	}
	if (rc != 0)
		engine_store_fatal(e, cause);
	doc = flow_doc_parse(t->document, strlen(t->document), NULL, NULL);
	if (doc != NULL) {
		ops = doc->operators;
		*n = doc->noperators;
		doc->operators = NULL;
		doc->noperators = 0;
		flow_doc_free(doc);
	}
	store_template_free(t);
	return (ops);
}

/* The template of a workflow's row, or NULL. */
static char *
engine_owners_workflow(struct engine *e, int64_t id)
{
	struct store_workflow	*w;
	char			*name = NULL, *cause = NULL;

	if (store_workflow_get(e->store, id, &w, &cause) != 0) {
		free(cause);
		return (NULL);
	}
	if (w->template_name != NULL)
		name = xstrdup(w->template_name);
	store_workflow_free(w);
	return (name);
}

/* The template a command acts on, or NULL (a flow file's run). */
static char *
engine_owners_template(struct engine *e, const struct store_inbox *m)
{
	struct store_schedule	*c;
	struct store_step	*row;
	char			*name, *cause = NULL;

	if (strcmp(m->command, "start") == 0 ||
	    strcmp(m->command, "schedule-add") == 0)
		return (engine_arg_string(m->args_json, "template"));
	if (strcmp(m->command, "schedule-run") == 0) {
		if ((name = engine_arg_string(m->args_json, "name")) == NULL)
			return (NULL);
		if (store_schedule_get(e->store, name, &c, &cause) != 0) {
			free(cause);
			free(name);
			return (NULL);
		}
		free(name);
		name = xstrdup(c->template_name);
		store_schedule_free(c);
		return (name);
	}
	if (m->workflow_id != 0)
		return (engine_owners_workflow(e, m->workflow_id));
	if (m->step_id == 0 ||
	    store_step_get(e->store, m->step_id, &row, &cause) != 0) {
		free(cause);
		return (NULL);
	}
	name = engine_owners_workflow(e, row->workflow_id);
	store_step_free(row);
	return (name);
}

/*
 * May the caller do command m to the runs of the template it acts on?
 * 1; or 0 with the refusal (code 4, the rule) answered and audited.
 */
int
engine_owners_may(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *c, struct engine_reply *r)
{
	char	*name, **ops;
	size_t	 n;
	int	 ok = 1;

	if ((name = engine_owners_template(e, m)) == NULL)
		return (1);
	ops = engine_owners_of(e, name, &n);
	if (!authority_template(c, name, ops, n, m->command, &r->message)) {
		r->workflow_id = m->workflow_id;
		r->step_id = m->step_id;
		engine_refuse(e, m, m->command, NULL, r);
		ok = 0;
	}
	engine_owners_free(ops, n);
	free(name);
	return (ok);
}

/*
 * May the caller change template name (verb: "template save", "template
 * rm")?  1; or 0 with the refusal answered and audited.
 */
int
engine_owners_change_may(struct engine *e, const struct store_inbox *m,
    const struct authority_caller *caller, const char *name,
    const char *verb, struct engine_reply *r)
{
	char	**ops;
	size_t	 n;
	int	 ok = 1;

	if (caller == NULL)
		return (1);
	ops = engine_owners_of(e, name, &n);
	if (!authority_template_change(&e->opts.authority, caller, name,
	    ops, n, verb, &r->message)) {
		engine_refuse(e, m, verb, NULL, r);
		ok = 0;
	}
	engine_owners_free(ops, n);
	return (ok);
}
