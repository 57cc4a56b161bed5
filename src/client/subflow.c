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
 * subflow.c: the chain of templates a document calls through sub-workflow
 * steps, followed through the stored templates' current versions, so that
 * a template calling itself (directly or through others) is refused when
 * it is saved, and check reports a loop among the templates a document
 * calls.  The engine's depth limit catches what changes later.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

/* One walk: the names on the path from the document, and those done. */
struct subflow_walk {
	struct store	 *store;
	const char	**path;
	size_t		  npath;
	char		**done;
	size_t		  ndone;
	char		 *loop;		/* "a -> b -> a" once found */
};

static void	 subflow_visit(struct subflow_walk *, const char *);
static void	 subflow_calls(struct subflow_walk *, const struct flow *);

/* The name of the template a step calls (itself, or its for-each "do"). */
static const char *
subflow_step_calls(const struct flow_step *st)
{
	if (st->workflow != NULL && *st->workflow != '\0')
		return (st->workflow);
	if (st->foreach != NULL && st->foreach->body != NULL &&
	    st->foreach->body->workflow != NULL &&
	    *st->foreach->body->workflow != '\0')
		return (st->foreach->body->workflow);
	return (NULL);
}

/* Follow every template a flow calls. */
static void
subflow_calls(struct subflow_walk *w, const struct flow *f)
{
	const char	*name;
	size_t		 i;

	for (i = 0; f != NULL && i < f->nsteps && w->loop == NULL; i++) {
		if ((name = subflow_step_calls(&f->steps[i])) != NULL)
			subflow_visit(w, name);
	}
}

/* Visit a called template: a loop if it is on the path (or is self). */
static void
subflow_visit(struct subflow_walk *w, const char *name)
{
	struct store_template	*t;
	struct flow_diags	*d;
	struct flow_doc		*doc;
	struct buf		 b;
	char			*cause = NULL;
	size_t			 i, from = w->npath;

	for (i = 0; i < w->npath && from == w->npath; i++) {
		if (strcmp(w->path[i], name) == 0)
			from = i;
	}
	if (from < w->npath) {
		buf_init(&b);
		for (i = from; i < w->npath; i++)
			buf_printf(&b, "%s -> ", w->path[i]);
		buf_puts(&b, name);
		w->loop = buf_release(&b);
		return;
	}
	for (i = 0; i < w->ndone; i++) {
		if (strcmp(w->done[i], name) == 0)
			return;
	}
	w->done = xreallocarray(w->done, w->ndone + 1, sizeof *w->done);
	w->done[w->ndone++] = xstrdup(name);
	if (store_template_get(w->store, name, 0, &t, &cause) != 0) {
		free(cause);	/* not saved (yet): nothing to follow */
		return;
	}
	d = flow_diags_create();
	doc = flow_doc_parse(t->document, strlen(t->document), NULL, d);
	flow_diags_free(d);
	w->path = xreallocarray(w->path, w->npath + 1, sizeof *w->path);
	w->path[w->npath++] = name;
	if (doc != NULL)
		subflow_calls(w, doc->flow);
	w->npath--;
	flow_doc_free(doc);
	store_template_free(t);
}

/*
 * Does doc (saved as template self, or NULL when only checked) call a
 * chain of templates that comes back on itself?  Returns "a -> b -> a",
 * or NULL.
 */
char *
client_subflow_loop(struct store *s, const char *self,
    const struct flow_doc *doc)
{
	struct subflow_walk	 w;
	size_t			 i;

	if (s == NULL || doc == NULL)
		return (NULL);
	memset(&w, 0, sizeof w);
	w.store = s;
	if (self != NULL) {
		w.path = xcalloc(1, sizeof *w.path);
		w.path[w.npath++] = self;
	}
	subflow_calls(&w, doc->flow);
	for (i = 0; i < w.ndone; i++)
		free(w.done[i]);
	free(w.done);
	free(w.path);
	return (w.loop);
}
