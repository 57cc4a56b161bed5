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
 * answer.c: what every tool of sluice mcp does around its command: hand
 * a document to the command as a private temporary file (and say its
 * name, not the temporary path, in reasons), run the command, and turn
 * its exit status, output and messages into the tool's answer: the
 * structured content with the command's warnings, or isError with its
 * one-line reason.
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp-int.h"

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

/*
 * Write a document into the call's private directory as name; its path,
 * or NULL with *cause.
 */
const char *
mcp_tmp_write(struct mcp_tmp *t, const char *name, const cJSON *doc,
    char **cause)
{
	const char	*tmp;
	char		*path, *text;
	FILE		*f;
	int		 bad;

	if (t->dir == NULL) {
		if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
			tmp = "/tmp";
		xasprintf(&t->dir, "%s/sluice-mcp.XXXXXX", tmp);
		if (mkdtemp(t->dir) == NULL) {
			xasprintf(cause, "cannot make a temporary directory "
			    "in %s: %s", tmp, strerror(errno));
			free(t->dir);
			t->dir = NULL;
			return (NULL);
		}
	}
	xasprintf(&path, "%s/%s", t->dir, name);
	if (cJSON_IsString(doc))
		text = xstrdup(doc->valuestring);
	else
		text = json_print_pretty(doc);
	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "cannot write %s: %s", path, strerror(errno));
		free(text);
		free(path);
		return (NULL);
	}
	bad = fputs(text, f) == EOF;
	bad |= fputc('\n', f) == EOF;
	bad |= fclose(f) != 0;
	free(text);
	if (bad) {
		xasprintf(cause, "cannot write %s", path);
		unlink(path);
		free(path);
		return (NULL);
	}
	t->paths[t->n++] = path;
	return (path);
}

/* Remove the call's temporary files and directory. */
void
mcp_tmp_free(struct mcp_tmp *t)
{
	int	i;

	for (i = 0; i < t->n; i++) {
		unlink(t->paths[i]);
		free(t->paths[i]);
	}
	if (t->dir != NULL)
		rmdir(t->dir);
	free(t->dir);
	memset(t, 0, sizeof *t);
}

/* A string argument, or NULL. */
const char *
mcp_str(const cJSON *args, const char *key)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/*
 * A document argument as a file path: a string is a path (when ispath, as
 * for a flow) or JSON text (a template), an object is written out as
 * name.  NULL after failing.
 */
const char *
mcp_document(struct mcp_tmp *t, const cJSON *args, const char *key,
    const char *name, int ispath, struct mcp_answer *ans)
{
	const cJSON	*v;
	const char	*path;
	char		*cause = NULL;
	struct stat	 sb;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	if (cJSON_IsString(v) && ispath) {
		if (stat(v->valuestring, &sb) != 0) {
			mcp_fail(ans, "arguments.%s: %s: %s", key,
			    v->valuestring, strerror(errno));
			return (NULL);
		}
		return (v->valuestring);
	}
	if ((path = mcp_tmp_write(t, name, v, &cause)) == NULL) {
		mcp_fail(ans, "%s", cause);
		free(cause);
	}
	return (path);
}

/* Replace every "DIR/" in s with nothing: temporary paths read as names. */
char *
mcp_untemp(const char *s, const char *dir)
{
	struct buf	 b;
	const char	*p;
	size_t		 dl;

	if (dir == NULL)
		return (xstrdup(s));
	buf_init(&b);
	dl = strlen(dir);
	while ((p = strstr(s, dir)) != NULL && p[dl] == '/') {
		buf_add(&b, s, (size_t)(p - s));
		s = p + dl + 1;
	}
	buf_puts(&b, s);
	return (buf_release(&b));
}

/*
 * Run a command for a tool.  On failure the answer says why and this
 * returns -1; else 0 with the command's stdout parsed as JSON in *json
 * when json is given (NULL when it is not JSON), its warnings kept.
 */
int
mcp_exec(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_tmp *t,
    struct mcp_answer *ans, cJSON **json)
{
	struct mcp_run	 r;
	char		*why;

	mcp_run_cli(ctx, a, &r);
	mcp_argv_free(a);
	why = mcp_untemp(r.err, t != NULL ? t->dir : NULL);
	if (json != NULL && (*json = json_parse_or_null(r.out)) != NULL &&
	    cJSON_IsNull(*json)) {
		/* No output (or not JSON) reads as null: none. */
		cJSON_Delete(*json);
		*json = NULL;
	}
	if (r.rc != 0 && (json == NULL || *json == NULL)) {
		if (*why == '\0')
			mcp_fail(ans, "the command failed (exit %d)", r.rc);
		else
			mcp_fail(ans, "%s", why);
		free(why);
		mcp_run_free(&r);
		return (-1);
	}
	free(ans->text);
	ans->text = why;	/* warnings, for mcp_warnings */
	if (json == NULL) {
		/* The command's one line, e.g. "approved step 7 (deploy)". */
		ans->structured = cJSON_CreateObject();
		r.out[strcspn(r.out, "\n")] = '\0';
		cJSON_AddStringToObject(ans->structured, "message", r.out);
	}
	mcp_run_free(&r);
	return (0);
}

/* Move a command's warnings (held in the answer's text) into o. */
void
mcp_warnings(struct mcp_answer *ans, cJSON *o)
{
	cJSON	*w;
	char	*line, *p, *next;

	if (ans->text == NULL || ans->text[0] == '\0')
		return;
	w = cJSON_AddArrayToObject(o, "warnings");
	for (p = ans->text; p != NULL; p = next) {
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		line = p;
		if (strncmp(line, "warning: ", 9) == 0)
			line += 9;
		cJSON_AddItemToArray(w, cJSON_CreateString(line));
	}
}

/* A command whose answer is one line: {"message", ...} plus extras. */
void
mcp_exec_line(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_tmp *t,
    struct mcp_answer *ans, cJSON *extra)
{
	cJSON	*o, *e;

	if (mcp_exec(ctx, a, t, ans, NULL) != 0) {
		cJSON_Delete(extra);
		return;
	}
	o = ans->structured;
	ans->structured = NULL;
	while (extra != NULL && (e = extra->child) != NULL)
		cJSON_AddItemToObject(o, e->string,
		    cJSON_DetachItemViaPointer(extra, e));
	cJSON_Delete(extra);
	mcp_warnings(ans, o);
	mcp_done(ans, o);
}

/* A command printing JSON; an array is answered as {key: array}. */
void
mcp_exec_json(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_tmp *t,
    const char *key, struct mcp_answer *ans)
{
	cJSON	*j, *o;

	if (mcp_exec(ctx, a, t, ans, &j) != 0)
		return;
	if (j == NULL) {
		mcp_fail(ans, "the command's answer is not JSON");
		return;
	}
	if (key != NULL) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, key, j);
	} else
		o = j;
	mcp_warnings(ans, o);
	mcp_done(ans, o);
}
