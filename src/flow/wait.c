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
 * wait.c: a wait step's options ("wait": true or {"message", "by",
 * "timeout", "on_timeout"}) and what such a step may not also have.  A
 * wait step runs nothing: something outside sluice finishes it (sluice
 * complete / fail), so every field that shapes a command or its retries
 * would be silently dropped and is an error instead.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 wait_by(struct flow_wait *, const cJSON *, const char *,
		     struct flow_diags *);
static void	 wait_timeout(struct flow_wait *, const cJSON *, const char *,
		     struct flow_diags *);

/* A wait step's defaults: no message, no "by", no timeout. */
void
flow_wait_init(struct flow_wait *w)
{
	memset(w, 0, sizeof *w);
	w->timeout = -1;
	w->on_timeout_target = -1;
}

/* "by": who may finish the step, user names and "@group" names. */
static void
wait_by(struct flow_wait *w, const cJSON *c, const char *path,
    struct flow_diags *d)
{
	size_t	i;

	flow_strings_free(w->by, w->nby);
	w->by = flow_json_strings(c, path, &w->nby, d);
	for (i = 0; i < w->nby; i++) {
		if (w->by[i][0] == '\0' || strcmp(w->by[i], "@") == 0)
			flow_diags_add(d, FLOW_ERROR, path, "entry %zu of "
			    "\"by\" is empty", i + 1);
	}
}

/* "timeout": how long the step may wait, above zero. */
static void
wait_timeout(struct flow_wait *w, const cJSON *c, const char *path,
    struct flow_diags *d)
{
	const char	*why;

	if (flow_duration_json(c, &w->timeout, &why) != 0) {
		flow_diags_add(d, FLOW_ERROR, path, "%s", why);
		w->timeout = -1;
	} else if (w->timeout <= 0) {
		flow_diags_add(d, FLOW_ERROR, path,
		    "timeout must be above zero");
		w->timeout = -1;
	}
}

/* Parse "wait" at path: true, or an object of options. */
void
flow_wait_parse(struct flow_wait *w, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	static const char *const known[] = {
		"message", "by", "timeout", "on_timeout"
	};
	const cJSON	*c;
	const char	*hint;
	char		*sub;

	if (cJSON_IsTrue(v))
		return;
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected true or an "
		    "object of wait options, got %s", json_type_name(v));
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		if (strcmp(c->string, "message") == 0) {
			free(w->message);
			w->message = flow_json_string(c, sub, 0, d);
		} else if (strcmp(c->string, "by") == 0)
			wait_by(w, c, sub, d);
		else if (strcmp(c->string, "timeout") == 0)
			wait_timeout(w, c, sub, d);
		else if (strcmp(c->string, "on_timeout") == 0) {
			free(w->on_timeout);
			w->on_timeout = flow_json_string(c, sub, 1, d);
		} else if ((hint = flow_suggest(c->string, known,
		    nitems(known))) != NULL)
			flow_diags_add(d, FLOW_ERROR, sub, "unknown field "
			    "\"%s\" in wait options (did you mean \"%s\"?)",
			    c->string, hint);
		else
			flow_diags_add(d, FLOW_ERROR, sub, "unknown field "
			    "\"%s\" in wait options (known: message, by, "
			    "timeout, on_timeout)", c->string);
		free(sub);
	}
	if (w->on_timeout != NULL && w->timeout < 0) {
		sub = flow_path_key(path, "on_timeout");
		flow_diags_add(d, FLOW_WARNING, sub,
		    "on_timeout has no effect without a timeout");
		free(sub);
	}
}

/* A for-each step cannot be a wait step (the fields it forbids: kind.c). */
void
flow_wait_finish(const struct flow_step *st, const char *path,
    struct flow_diags *d)
{
	char	*sub;

	if (st->foreach != NULL) {
		sub = flow_path_key(path, "wait");
		flow_diags_add(d, FLOW_ERROR, sub, "a for-each step cannot "
		    "wait: its items run \"do\"");
		free(sub);
	}
}

/* Free what a wait step's options hold. */
void
flow_wait_free(struct flow_wait *w)
{
	free(w->message);
	flow_strings_free(w->by, w->nby);
	free(w->on_timeout);
}
