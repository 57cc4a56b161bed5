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
 * answer.c: one call of a tool, from its arguments to its answer: the
 * client starts afresh (as a new process would), its messages go to the
 * call (the reason a call failed, the warnings of one that worked), the
 * row's function asks the client API, and its structured result, or the
 * reason, becomes the answer.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "client/client.h"
#include "mcp/mcp-int.h"

static void	mcp_call_say(void *, int, const char *);

/* A failed call: isError with the reason as its text. */
void
mcp_fail(struct mcp_answer *ans, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	free(ans->text);
	xvasprintf(&ans->text, fmt, ap);
	va_end(ap);
	cJSON_Delete(ans->structured);
	ans->structured = NULL;
	ans->error = 1;
}

/* A call that worked: the structured content, and its JSON as the text. */
void
mcp_done(struct mcp_answer *ans, cJSON *o)
{
	ans->structured = o;
	free(ans->text);
	ans->text = json_print(o);
	ans->error = 0;
}

/* A string argument, or NULL. */
const char *
mcp_str(const cJSON *args, const char *key)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/* A message from the client API during a call: a reason, or a warning. */
static void
mcp_call_say(void *arg, int warning, const char *text)
{
	struct mcp_call	*c = arg;

	if (warning) {
		if (c->warnings == NULL)
			c->warnings = cJSON_CreateArray();
		cJSON_AddItemToArray(c->warnings, cJSON_CreateString(text));
		return;
	}
	if (c->errors.len > 0)
		buf_putc(&c->errors, '\n');
	buf_puts(&c->errors, text);
}

/*
 * Call a tool whose arguments fit its schema, and answer: its result
 * with the warnings, or isError and the reason.
 */
void
mcp_tool_call(struct client *cl, const struct mcp_tool *t,
    const cJSON *args, struct mcp_answer *ans)
{
	struct mcp_call	 c;
	cJSON		*o = NULL, *seed;
	char		*why;
	int		 rc;

	/* The seed engine's argument names become sluice's. */
	if ((seed = mcp_seed_translate(t, args, &why)) == NULL && why != NULL) {
		mcp_fail(ans, "%s: %s", t->name, why);
		free(why);
		return;
	}
	memset(&c, 0, sizeof c);
	c.cl = cl;
	c.tool = t;
	c.args = seed != NULL ? seed : args;
	buf_init(&c.errors);
	/*
	 * Each call starts as a fresh process would: a database a read
	 * opened read-only, a tools catalog or site policy read earlier,
	 * must not decide how the next call goes.
	 */
	client_free(cl);
	cl->say = mcp_call_say;
	cl->say_arg = &c;
	log_debug("%s: %s", __func__, t->name);
	rc = t->call(&c, &o);
	cl->say = NULL;
	cl->say_arg = NULL;
	if (rc != 0 || o == NULL) {
		cJSON_Delete(o);
		if (c.errors.len > 0)
			mcp_fail(ans, "%s", c.errors.data);
		else
			mcp_fail(ans, "%s failed (exit %d)", t->name, rc);
	} else {
		if (c.warnings != NULL) {
			cJSON_AddItemToObject(o, "warnings", c.warnings);
			c.warnings = NULL;
		}
		mcp_done(ans, o);
	}
	cJSON_Delete(c.warnings);
	cJSON_Delete(seed);
	buf_free(&c.errors);
}
