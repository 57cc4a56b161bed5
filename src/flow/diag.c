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
 * diag.c: diagnostics (a list of errors and warnings with JSON paths) and
 * the small helpers every parser in the flow layer uses to report a problem
 * at the right path: path building, typed member checks, duplicate keys and
 * "did you mean" suggestions.
 */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static void	 diag_add_v(struct flow_diags *, enum flow_severity,
		     const char *, int, int, const char *, va_list)
		     printflike(6, 0);
static int	 diag_member_cmp(const void *, const void *);
static void	 diag_dups_object(cJSON *, const char *, struct flow_diags *);
static size_t	 diag_distance(const char *, const char *);

/* Make an empty list. */
struct flow_diags *
flow_diags_create(void)
{
	struct flow_diags	*d;

	d = xmalloc(sizeof *d);
	TAILQ_INIT(d);
	return (d);
}

/* Free a list and every diagnostic in it. */
void
flow_diags_free(struct flow_diags *d)
{
	struct flow_diag	*fd, *fd1;

	if (d == NULL)
		return;
	TAILQ_FOREACH_SAFE(fd, d, entry, fd1) {
		TAILQ_REMOVE(d, fd, entry);
		free(fd->path);
		free(fd->message);
		free(fd);
	}
	free(d);
}

/* Append one diagnostic, keeping insertion order. */
static void
diag_add_v(struct flow_diags *d, enum flow_severity sev, const char *path,
    int line, int col, const char *fmt, va_list ap)
{
	struct flow_diag	*fd;

	if (d == NULL)
		return;
	fd = xcalloc(1, sizeof *fd);
	fd->severity = sev;
	fd->path = xstrdup(path != NULL ? path : "$");
	fd->line = line;
	fd->col = col;
	xvasprintf(&fd->message, fmt, ap);
	TAILQ_INSERT_TAIL(d, fd, entry);
}

/* Add a diagnostic at a JSON path; its place is found later by locate. */
void
flow_diags_add(struct flow_diags *d, enum flow_severity sev, const char *path,
    const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	diag_add_v(d, sev, path, 0, 0, fmt, ap);
	va_end(ap);
}

/* Add an error at a known line and column (JSON syntax, bad UTF-8). */
void
flow_diags_add_at(struct flow_diags *d, int line, int col, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	diag_add_v(d, FLOW_ERROR, "$", line, col, fmt, ap);
	va_end(ap);
}

/* Add a JSON syntax error from json_parse's "line L, column C: why". */
void
flow_diags_add_json(struct flow_diags *d, const char *cause)
{
	int	line, col, n = 0;

	if (sscanf(cause, "line %d, column %d: %n", &line, &col, &n) == 2 &&
	    n > 0 && line > 0 && col > 0)
		flow_diags_add_at(d, line, col, "%s", cause + n);
	else
		flow_diags_add(d, FLOW_ERROR, "$", "%s", cause);
}

/* Count the errors. */
int
flow_diags_errors(const struct flow_diags *d)
{
	const struct flow_diag	*fd;
	int			 n = 0;

	if (d == NULL)
		return (0);
	TAILQ_FOREACH(fd, d, entry) {
		if (fd->severity == FLOW_ERROR)
			n++;
	}
	return (n);
}

/* Count the warnings. */
int
flow_diags_warnings(const struct flow_diags *d)
{
	const struct flow_diag	*fd;
	int			 n = 0;

	if (d == NULL)
		return (0);
	TAILQ_FOREACH(fd, d, entry) {
		if (fd->severity == FLOW_WARNING)
			n++;
	}
	return (n);
}

/*
 * Format one diagnostic as "FILE:LINE:COL: PATH: MESSAGE" (or without the
 * place parts that are unknown).  The root path "$" adds nothing once the
 * line and column are known, so it is left out then.
 */
char *
flow_diag_format(const struct flow_diag *fd, const char *file)
{
	struct buf	b;
	const char	*path = fd->path != NULL ? fd->path : "$";

	buf_init(&b);
	if (file != NULL)
		buf_printf(&b, "%s:", file);
	if (fd->line > 0)
		buf_printf(&b, "%d:%d:", fd->line, fd->col);
	if (b.len > 0)
		buf_putc(&b, ' ');
	if (fd->severity == FLOW_WARNING)
		buf_puts(&b, "warning: ");
	if (fd->line <= 0 || strcmp(path, "$") != 0)
		buf_printf(&b, "%s: ", path);
	buf_puts(&b, fd->message);
	return (buf_release(&b));
}

/* Format the first error, or return NULL when there is none. */
char *
flow_diags_first_error(const struct flow_diags *d, const char *file)
{
	const struct flow_diag	*fd;

	if (d == NULL)
		return (NULL);
	TAILQ_FOREACH(fd, d, entry) {
		if (fd->severity == FLOW_ERROR)
			return (flow_diag_format(fd, file));
	}
	return (NULL);
}

/* Append a member name to a path: ".name" or ["odd name"] (JSON-escaped). */
void
flow_path_add_key(struct buf *b, const char *key)
{
	if (str_is_identifier(key)) {
		buf_printf(b, ".%s", key);
		return;
	}
	buf_puts(b, "[\"");
	json_quote_body(b, key);
	buf_puts(b, "\"]");
}

/* Return a new path for a member of the value at base. */
char *
flow_path_key(const char *base, const char *key)
{
	struct buf	b;

	buf_init(&b);
	buf_puts(&b, base);
	flow_path_add_key(&b, key);
	return (buf_release(&b));
}

/* Return a new path for an element of the array at base. */
char *
flow_path_index(const char *base, size_t i)
{
	char	*s;

	xasprintf(&s, "%s[%zu]", base, i);
	return (s);
}

/* A member and where it stood, for finding later duplicates. */
struct diag_member {
	cJSON	*c;
	size_t	 pos;
};

/* Order members by name, then by position, so the first of a name leads. */
static int
diag_member_cmp(const void *a, const void *b)
{
	const struct diag_member	*ma = a, *mb = b;
	int				 c;

	if ((c = strcmp(ma->c->string, mb->c->string)) != 0)
		return (c);
	return (ma->pos < mb->pos ? -1 : ma->pos > mb->pos);
}

/* Report and drop the members of one object that repeat an earlier name. */
static void
diag_dups_object(cJSON *v, const char *path, struct flow_diags *d)
{
	struct diag_member	*m;
	cJSON			*c;
	size_t			 n = 0, i, keep;
	char			*sub;

	for (c = v->child; c != NULL; c = c->next)
		n++;
	if (n < 2)
		return;
	m = xreallocarray(NULL, n, sizeof *m);
	for (i = 0, c = v->child; c != NULL; c = c->next, i++) {
		m[i].c = c;
		m[i].pos = i;
	}
	qsort(m, n, sizeof *m, diag_member_cmp);
	for (i = 1, keep = 0; i < n; i++) {
		if (strcmp(m[i].c->string, m[keep].c->string) != 0) {
			keep = i;
			continue;
		}
		sub = flow_path_key(path, m[i].c->string);
		flow_diags_add(d, FLOW_ERROR, sub, "duplicate key \"%s\"",
		    m[i].c->string);
		free(sub);
		cJSON_Delete(cJSON_DetachItemViaPointer(v, m[i].c));
	}
	free(m);
}

/*
 * Report every member that repeats an earlier name in the same object, in
 * v and everything below it, and drop it: every parser after this sees
 * each name once and cannot lose what it read first.  Sorting keeps this
 * n log n for huge objects; depth is bounded by cJSON's nesting limit.
 */
void
flow_json_dups(cJSON *v, const char *path, struct flow_diags *d)
{
	cJSON	*c;
	size_t	 i = 0;
	char	*sub;

	if (cJSON_IsObject(v))
		diag_dups_object(v, path, d);
	else if (!cJSON_IsArray(v))
		return;
	for (c = v->child; c != NULL; c = c->next, i++) {
		if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
			continue;
		if (cJSON_IsObject(v))
			sub = flow_path_key(path, c->string);
		else
			sub = flow_path_index(path, i);
		flow_json_dups(c, sub, d);
		free(sub);
	}
}

/*
 * Check that v is an integer within [min, max]; report at path otherwise.
 * Returns 0 and fills out when it is.
 */
int
flow_json_int(const cJSON *v, const char *path, int64_t min, int64_t max,
    int64_t *out, struct flow_diags *d)
{
	double	x;

	if (!cJSON_IsNumber(v)) {
		flow_diags_add(d, FLOW_ERROR, path,
		    "expected an integer, got %s", json_type_name(v));
		return (-1);
	}
	x = v->valuedouble;
	if (x != floor(x) || x < (double)min || x > (double)max) {
		if (max == INT64_MAX)
			flow_diags_add(d, FLOW_ERROR, path, "expected an "
			    "integer of at least %lld, got %g",
			    (long long)min, x);
		else
			flow_diags_add(d, FLOW_ERROR, path, "expected an "
			    "integer from %lld to %lld, got %g",
			    (long long)min, (long long)max, x);
		return (-1);
	}
	*out = (int64_t)x;
	return (0);
}

/* Check that v is a string (non-empty if asked); return a copy or NULL. */
char *
flow_json_string(const cJSON *v, const char *path, int nonempty,
    struct flow_diags *d)
{
	if (!cJSON_IsString(v)) {
		flow_diags_add(d, FLOW_ERROR, path,
		    "expected a string, got %s", json_type_name(v));
		return (NULL);
	}
	if (nonempty && *v->valuestring == '\0') {
		flow_diags_add(d, FLOW_ERROR, path, "must not be empty");
		return (NULL);
	}
	return (xstrdup(v->valuestring));
}

/* Check that v is a non-empty array of strings; return copies or NULL. */
char **
flow_json_strings(const cJSON *v, const char *path, size_t *n,
    struct flow_diags *d)
{
	const cJSON	*c;
	char		**out, *sub;
	size_t		 i, count = 0;
	int		 bad = 0;

	*n = 0;
	if (!cJSON_IsArray(v)) {
		flow_diags_add(d, FLOW_ERROR, path,
		    "expected an array of strings, got %s", json_type_name(v));
		return (NULL);
	}
	for (c = v->child; c != NULL; c = c->next)
		count++;
	if (count == 0) {
		flow_diags_add(d, FLOW_ERROR, path,
		    "expected a non-empty array of strings");
		return (NULL);
	}
	out = xcalloc(count, sizeof *out);
	for (i = 0, c = v->child; c != NULL; c = c->next, i++) {
		if (cJSON_IsString(c)) {
			out[i] = xstrdup(c->valuestring);
			continue;
		}
		sub = flow_path_index(path, i);
		flow_diags_add(d, FLOW_ERROR, sub, "expected a string, got %s",
		    json_type_name(c));
		free(sub);
		bad = 1;
	}
	if (bad) {
		flow_strings_free(out, count);
		return (NULL);
	}
	*n = count;
	return (out);
}

/* Free an array of strings. */
void
flow_strings_free(char **v, size_t n)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Levenshtein distance of two short strings (callers cap the length). */
static size_t
diag_distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j, prev, cur, tmp;
	size_t	row[65];

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < cur)
				cur = row[j] + 1;
			if (row[j - 1] + 1 < cur)
				cur = row[j - 1] + 1;
			tmp = row[j];
			row[j] = cur;
			prev = tmp;
		}
	}
	return (row[lb]);
}

/*
 * Return the name closest to word when it is within two edits and shorter
 * than a full rewrite, for "did you mean" hints; NULL otherwise.
 */
const char *
flow_suggest(const char *word, const char *const *names, size_t n)
{
	const char	*best = NULL;
	size_t		 i, dist, best_dist = 3, wl = strlen(word);

	if (wl == 0 || wl > 64)
		return (NULL);
	for (i = 0; i < n; i++) {
		if (names[i] == NULL || strlen(names[i]) > 64)
			continue;
		dist = diag_distance(word, names[i]);
		if (dist == 0 || dist >= wl)
			continue;
		if (dist < best_dist) {
			best_dist = dist;
			best = names[i];
		}
	}
	return (best);
}

/*
 * Report an unknown field at path as an error, naming the closest known
 * one; what says where ("" for a step, " in gate options", ...).
 */
void
flow_diags_unknown(struct flow_diags *d, const char *path, const char *name,
    const char *const *known, size_t nknown, const char *what)
{
	const char	*hint;

	hint = flow_suggest(name, known, nknown);
	if (hint != NULL)
		flow_diags_add(d, FLOW_ERROR, path, "unknown field \"%s\"%s "
		    "(did you mean \"%s\"?)", name, what, hint);
	else
		flow_diags_add(d, FLOW_ERROR, path, "unknown field \"%s\"%s",
		    name, what);
}
