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
 * authority-template.c: a template's own operators (sluice(1)
 * AUTHORITY).  A template that says "operators": [...] narrows the
 * site's rule for its runs: only the users and @groups it names may
 * start, cancel, retry, skip, pause and resume them (the site's
 * operators rule, asked first in authority.c, still holds).  Only they,
 * or an operator the site names, may change such a template, so its
 * list cannot be widened by someone it leaves out.  Beside authority.c,
 * not in it, so the site's rule and this one each have one home.
 */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/engine.h"

/* "alice, @ops": the list for a message. */
static char *
authority_template_names(char *const *ops, size_t n)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : ", ", ops[i]);
	return (buf_release(&b));
}

/* Does the template's list name the caller (or name nobody)? */
int
authority_template_names_caller(const struct authority_caller *c,
    char *const *ops, size_t n)
{
	size_t	i;

	if (n == 0)
		return (1);
	for (i = 0; i < n; i++) {
		if (authority_names(c, ops[i]))
			return (1);
	}
	return (0);
}

/*
 * May the caller verb a run of template name, whose operators are ops?
 * 1, or 0 with the refusal (naming the rule) in *why.
 */
int
authority_template(const struct authority_caller *c, const char *name,
    char *const *ops, size_t n, const char *verb, char **why)
{
	char	*names;

	if (authority_template_names_caller(c, ops, n))
		return (1);
	names = authority_template_names(ops, n);
	xasprintf(why, "%s is not an operator of template %s (its operators: "
	    "%s): %s refused", c->name, name, names, verb);
	free(names);
	return (0);
}

/*
 * May the caller change template name (save a version, remove it), whose
 * operators are ops?  Its operators may, and an operator the site names;
 * a template that names none is the site's rule alone.
 */
int
authority_template_change(const struct authority_site *site,
    const struct authority_caller *c, const char *name, char *const *ops,
    size_t n, const char *verb, char **why)
{
	char	*names;

	if (authority_template_names_caller(c, ops, n))
		return (1);
	if (site != NULL && site->has_operators &&
	    authority_operator(site, c, NULL))
		return (1);
	names = authority_template_names(ops, n);
	xasprintf(why, "%s is not an operator of template %s (its operators: "
	    "%s) nor one the site names: %s refused", c->name, name, names,
	    verb);
	free(names);
	return (0);
}

/*
 * Who may run a template, for listings (template list, the Templates
 * view): its operators, else the site's, else "anyone".  The caller
 * frees.
 */
char *
authority_template_run_by(const struct authority_site *site,
    const char *document)
{
	struct flow_doc	*doc;
	char		*text = NULL;

	doc = flow_doc_parse(document, strlen(document), NULL, NULL);
	if (doc != NULL && doc->noperators > 0)
		text = authority_template_names(doc->operators,
		    doc->noperators);
	flow_doc_free(doc);
	if (text != NULL)
		return (text);
	if (site != NULL && site->has_operators)
		return (authority_template_names(site->operators,
		    site->noperators));
	return (xstrdup("anyone"));
}
