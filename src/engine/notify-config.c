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
 * notify-config.c: config.json's "notify": an array of commands, each
 * with the events it runs on ("on"), what to run (an argv in "run", or a
 * script for /bin/sh in "shell"), extra environment ("env") and a
 * timeout.  Every problem is reported with its JSON path, and a
 * misspelt event or member gets a "did you mean".
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/engine.h"

#define NOTIFY_TIMEOUT_MAX	(3600 * 1000)	/* an hour */
#define NOTIFY_LABEL_MAX	72

/* What a parse collects: the problems so far. */
struct notify_parse {
	char		**errs;
	size_t		  nerrs;
};

static const char *notify_events[] = {
	"gate_waiting", "gate_decided", "workflow_failed", "workflow_late",
	"workflow_completed", "workflow_deadline"	/* bit by bit, engine.h */
};

static const char *notify_members[] = {
	"on", "run", "shell", "env", "timeout"
};

static void	 notify_err(struct notify_parse *, const char *, ...)
		     printflike(2, 3);
static const char *notify_suggest(const char *, const char *const *,
		     size_t);
static size_t	 notify_distance(const char *, const char *);
static int	 notify_parse_on(struct notify_parse *, const char *,
		     const cJSON *);
static char	**notify_parse_run(struct notify_parse *, const char *,
		     const cJSON *);
static char	**notify_parse_env(struct notify_parse *, const char *,
		     const cJSON *);
static int	 notify_is_member(const char *);
static int	 notify_parse_cmd(struct notify_parse *, size_t,
		     const cJSON *, struct notify_cmd *);
static char	*notify_label(const struct notify_cmd *);
static void	 notify_cmd_clear(struct notify_cmd *);

/* Note one problem, its path first. */
static void
notify_err(struct notify_parse *np, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	np->errs = xreallocarray(np->errs, np->nerrs + 1, sizeof *np->errs);
	np->errs[np->nerrs++] = msg;
}

/* Edit distance between two short words, for "did you mean". */
static size_t
notify_distance(const char *a, const char *b)
{
	size_t	 row[65], la = strlen(a), lb = strlen(b), i, j, prev, tmp;

	if (la > 64 || lb > 64)
		return (SIZE_MAX);
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			prev = tmp;
		}
	}
	return (row[lb]);
}

/*
 * The name within two edits of word (and not a rewrite of it), or NULL;
 * between two as near, the one that starts as word does.
 */
static const char *
notify_suggest(const char *word, const char *const *names, size_t n)
{
	const char	*best = NULL;
	size_t		 i, d, best_d = 3, wl = strlen(word);

	for (i = 0; i < n; i++) {
		d = notify_distance(word, names[i]);
		if (d >= wl || d > best_d)
			continue;
		if (d == best_d && (best == NULL || best[0] == word[0] ||
		    names[i][0] != word[0]))
			continue;
		best_d = d;
		best = names[i];
	}
	return (best);
}

/* An event's bit, or 0 when the name is not an event. */
int
notify_event_bit(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(notify_events); i++) {
		if (strcmp(name, notify_events[i]) == 0)
			return (1 << i);
	}
	return (0);
}

/* "on": an event, "*", or an array of them; the bits, 0 on error. */
static int
notify_parse_on(struct notify_parse *np, const char *at, const cJSON *v)
{
	const cJSON	*item;
	const char	*hint;
	char		 where[32];
	int		 bits = 0, bit, i = 0, bad = 0, one;

	if (v == NULL) {
		notify_err(np, "%s: missing \"on\": the events to run on "
		    "(\"*\" for all)", at);
		return (0);
	}
	one = cJSON_IsString(v);
	if (!one && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)) {
		notify_err(np, "%s.on: expected an event name, \"*\", or a "
		    "non-empty array of them", at);
		return (0);
	}
	for (item = one ? v : v->child; item != NULL;
	    item = one ? NULL : item->next, i++) {
		if (one)
			where[0] = '\0';
		else
			snprintf(where, sizeof where, "[%d]", i);
		if (!cJSON_IsString(item)) {
			notify_err(np, "%s.on%s: expected an event name, not "
			    "%s", at, where, json_type_name(item));
			bad = 1;
			continue;
		}
		if (strcmp(item->valuestring, "*") == 0)
			bit = NOTIFY_E_ALL;
		else
			bit = notify_event_bit(item->valuestring);
		if (bit != 0) {
			bits |= bit;
			continue;
		}
		bad = 1;
		hint = notify_suggest(item->valuestring, notify_events,
		    nitems(notify_events));
		notify_err(np, "%s.on%s: unknown event \"%s\"%s%s%s", at, where,
		    item->valuestring, hint != NULL ? " (did you mean \"" : "",
		    hint != NULL ? hint : "", hint != NULL ? "\"?)" : "");
	}
	return (bad ? 0 : bits);
}

/* "run": a non-empty array of strings, the first not empty. */
static char **
notify_parse_run(struct notify_parse *np, const char *at, const cJSON *v)
{
	const cJSON	*item;
	char		**argv;
	int		 n, i = 0, bad = 0;

	if (!cJSON_IsArray(v) || (n = cJSON_GetArraySize(v)) == 0) {
		notify_err(np, "%s.run: expected a non-empty array of strings "
		    "(the program and its arguments)", at);
		return (NULL);
	}
	argv = xcalloc((size_t)n + 1, sizeof *argv);
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			notify_err(np, "%s.run[%d]: expected a string, not %s",
			    at, i, json_type_name(item));
			bad = 1;
		} else if (i == 0 && item->valuestring[0] == '\0') {
			notify_err(np, "%s.run[0]: the program is empty", at);
			bad = 1;
		} else
			argv[i] = xstrdup(item->valuestring);
		i++;
	}
	if (bad) {
		for (i = 0; i < n; i++)
			free(argv[i]);
		free(argv);
		return (NULL);
	}
	return (argv);
}

/* "env": an object of strings, each name a variable name not SLUICE_*. */
static char **
notify_parse_env(struct notify_parse *np, const char *at, const cJSON *v)
{
	const cJSON	*item;
	const char	*k;
	char		**env;
	size_t		 n = 0;
	int		 bad = 0;

	if (!cJSON_IsObject(v)) {
		notify_err(np, "%s.env: expected an object of strings", at);
		return (NULL);
	}
	env = xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *env);
	cJSON_ArrayForEach(item, v) {
		k = item->string;
		if (!str_is_identifier(k) || strchr(k, '-') != NULL) {
			notify_err(np, "%s.env[\"%s\"]: not a variable name",
			    at, k);
			bad = 1;
		} else if (strncmp(k, "SLUICE_", 7) == 0) {
			notify_err(np, "%s.env.%s: SLUICE_ variables are set "
			    "by sluice", at, k);
			bad = 1;
		} else if (!cJSON_IsString(item)) {
			notify_err(np, "%s.env.%s: expected a string, not %s",
			    at, k, json_type_name(item));
			bad = 1;
		} else
			xasprintf(&env[n++], "%s=%s", k, item->valuestring);
	}
	if (bad) {
		strv_free(env);
		return (NULL);
	}
	return (env);
}

/* Is name a member a command may have? */
static int
notify_is_member(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(notify_members); i++) {
		if (strcmp(name, notify_members[i]) == 0)
			return (1);
	}
	return (0);
}

/* One command of the array, at index i; 0, or -1 with problems noted. */
static int
notify_parse_cmd(struct notify_parse *np, size_t i, const cJSON *o,
    struct notify_cmd *c)
{
	const cJSON	*v, *run, *shell;
	const char	*hint, *why = NULL;
	char		*at;
	size_t		 before = np->nerrs;

	memset(c, 0, sizeof *c);
	xasprintf(&at, "$.notify[%zu]", i);
	if (!cJSON_IsObject(o)) {
		notify_err(np, "%s: expected an object with \"on\" and \"run\" "
		    "or \"shell\", not %s", at, json_type_name(o));
		free(at);
		return (-1);
	}
	cJSON_ArrayForEach(v, o) {
		if (notify_is_member(v->string))
			continue;
		hint = notify_suggest(v->string, notify_members,
		    nitems(notify_members));
		notify_err(np, "%s: unknown member \"%s\"%s%s%s", at, v->string,
		    hint != NULL ? " (did you mean \"" : "",
		    hint != NULL ? hint : "", hint != NULL ? "\"?)" : "");
	}
	c->events = notify_parse_on(np, at,
	    cJSON_GetObjectItemCaseSensitive(o, "on"));
	run = cJSON_GetObjectItemCaseSensitive(o, "run");
	shell = cJSON_GetObjectItemCaseSensitive(o, "shell");
	if (run != NULL && shell != NULL)
		notify_err(np, "%s: give \"run\" or \"shell\", not both", at);
	else if (run != NULL)
		c->argv = notify_parse_run(np, at, run);
	else if (shell == NULL)
		notify_err(np, "%s: missing \"run\" (an argv array) or "
		    "\"shell\" (a script for /bin/sh)", at);
	else if (!cJSON_IsString(shell) || shell->valuestring[0] == '\0')
		notify_err(np, "%s.shell: expected a non-empty string", at);
	else
		c->shell = xstrdup(shell->valuestring);
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "env")) != NULL)
		c->env = notify_parse_env(np, at, v);
	c->timeout = NOTIFY_TIMEOUT;
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "timeout")) != NULL) {
		if (flow_duration_json(v, &c->timeout, &why) != 0)
			notify_err(np, "%s.timeout: %s", at, why);
		else if (c->timeout <= 0 || c->timeout > NOTIFY_TIMEOUT_MAX)
			notify_err(np, "%s.timeout: expected more than 0 and "
			    "at most 1h", at);
	}
	free(at);
	if (np->nerrs != before) {
		notify_cmd_clear(c);
		return (-1);
	}
	c->label = notify_label(c);
	return (0);
}

/*
 * A short name for a command, for logs and the audit trail: its argv, or
 * the first line of its script, cut to a readable length.
 */
static char *
notify_label(const struct notify_cmd *c)
{
	struct buf	 b;
	size_t		 i;
	char		*s;

	buf_init(&b);
	if (c->argv != NULL) {
		for (i = 0; c->argv[i] != NULL; i++)
			buf_printf(&b, "%s%s", i > 0 ? " " : "", c->argv[i]);
	} else {
		buf_puts(&b, "sh -c ");
		buf_add(&b, c->shell, strcspn(c->shell, "\n"));
	}
	s = buf_release(&b);
	for (i = 0; s[i] != '\0'; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = ' ';
	}
	if (i > NOTIFY_LABEL_MAX)
		memcpy(s + NOTIFY_LABEL_MAX - 3, "...", 4);
	return (s);
}

/*
 * Parse config.json's "notify" value.  Returns the commands, or NULL with
 * every problem in *errs (one line each, starting with its JSON path).
 */
struct notify_config *
notify_config_parse(const cJSON *v, char ***errs, size_t *nerrs)
{
	struct notify_parse	 np;
	struct notify_config	*nc;
	const cJSON		*o;
	size_t			 i = 0, n;

	memset(&np, 0, sizeof np);
	*errs = NULL;
	*nerrs = 0;
	if (!cJSON_IsArray(v)) {
		notify_err(&np, "$.notify: expected an array of commands, "
		    "such as [{\"on\": \"*\", \"run\": [\"/path/to/cmd\"]}]");
		*errs = np.errs;
		*nerrs = np.nerrs;
		return (NULL);
	}
	n = (size_t)cJSON_GetArraySize(v);
	if (n > NOTIFY_MAX_CMDS) {
		notify_err(&np, "$.notify: %zu commands; at most %d", n,
		    NOTIFY_MAX_CMDS);
		n = NOTIFY_MAX_CMDS;
	}
	nc = xcalloc(1, sizeof *nc);
	nc->cmds = xcalloc(n + 1, sizeof *nc->cmds);
	cJSON_ArrayForEach(o, v) {
		if (i == n)
			break;
		if (notify_parse_cmd(&np, i, o, &nc->cmds[nc->ncmds]) == 0)
			nc->ncmds++;
		i++;
	}
	if (np.nerrs > 0) {
		notify_config_free(nc);
		*errs = np.errs;
		*nerrs = np.nerrs;
		return (NULL);
	}
	return (nc);
}

/* Free what one command owns. */
static void
notify_cmd_clear(struct notify_cmd *c)
{
	strv_free(c->argv);
	strv_free(c->env);
	free(c->shell);
	free(c->label);
	memset(c, 0, sizeof *c);
}

/* Free parsed commands. */
void
notify_config_free(struct notify_config *nc)
{
	size_t	 i;

	if (nc == NULL)
		return;
	for (i = 0; i < nc->ncmds; i++)
		notify_cmd_clear(&nc->cmds[i]);
	free(nc->cmds);
	free(nc);
}
