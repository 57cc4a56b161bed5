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
 * tool-cmd.c: the command of one attempt of a step.  It turns an inline
 * run or shell, or a catalog tool, into the argv, environment and working
 * directory to exec, or into an ssh command whose one remote argument is
 * quoted word by word for the remote POSIX shell.  Interpolated values are
 * data: they land in argv elements and environment values, never in shell
 * text unquoted.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/tool.h"

#define TOOL_ARG_PREFIX	"SLUICE_ARG_"

/*
 * The longest single argument or variable, NUL included, that Linux's
 * execve takes (MAX_ARG_STRLEN); applied everywhere so a flow behaves the
 * same on every system.
 */
#define TOOL_MAX_STRING	(128 * 1024)

/* A growable NULL-terminated vector of owned strings. */
struct tool_strv {
	char	**v;
	size_t	  n;
	size_t	  size;		/* slots in v */
};

/* One variable of the step's own set, for sorting and lookup by name. */
struct tool_var {
	const char	*kv;		/* "NAME=VALUE" */
	size_t		 len;		/* of NAME */
	size_t		 pos;		/* index in the set */
};

/* The variables sluice adds to the base environment, deduplicated. */
struct tool_vars {
	struct tool_strv	 set;	/* "NAME=VALUE", in order */
	struct tool_var		*byname; /* sorted, one per name */
	size_t			 nbyname;
};

static const char *tool_reserved[] = {
	"SLUICE_WORKFLOW_ID", "SLUICE_STEP_ID", "SLUICE_STEP",
	"SLUICE_ATTEMPT", "SLUICE_ARGS"
};

static void	 tool_strv_push(struct tool_strv *, char *);
static int	 tool_reserved_name(const char *, size_t);
static int	 tool_var_cmp(const void *, const void *);
static int	 tool_var_sort_cmp(const void *, const void *);
static void	 tool_vars_add(struct tool_vars *, const char *,
		     const char *);
static void	 tool_vars_env(struct tool_vars *, const struct flow_kv *,
		     size_t, const cJSON *);
static void	 tool_vars_sluice(struct tool_vars *,
		     const struct tool_ctx *, const char *, const cJSON *);
static struct tool_var *tool_dedupe(struct tool_strv *, int, size_t *);
static void	 tool_vars_finish(struct tool_vars *);
static int	 tool_vars_has(const struct tool_vars *, const char *,
		     size_t);
static void	 tool_vars_free(struct tool_vars *);
static char	**tool_envp_local(const struct tool_vars *, char *const *);
static char	**tool_envp_copy(char *const *);
static cJSON	*tool_args(const struct flow_step *, const char *, char **);
static cJSON	*tool_scope(const cJSON *, cJSON *);
static cJSON	*tool_env_scope(const cJSON *, const struct tool_ctx *);
static void	 tool_words_run(struct tool_strv *, char *const *, size_t,
		     const cJSON *);
static void	 tool_words_shell(struct tool_strv *, const char *);
static int	 tool_words(const struct flow_step *,
		     const struct flow_tool *, const cJSON *,
		     struct tool_strv *, char **);
static int	 tool_host_check(const struct flow_step *, const char *,
		     const char *, char **);
static char	**tool_remote_argv(const struct tool_ctx *, const char *,
		     const char *, const struct tool_vars *,
		     const struct tool_strv *);
static int	 tool_size_check(const struct flow_step *,
		     const struct tool_cmd *, char **);

/* Append a string the vector now owns, keeping the NULL at the end. */
static void
tool_strv_push(struct tool_strv *sv, char *s)
{
	if (sv->n + 2 > sv->size) {
		sv->size = sv->size == 0 ? 16 : sv->size * 2;
		sv->v = xreallocarray(sv->v, sv->size, sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

/*
 * Names only sluice may set: the five fixed ones and everything under
 * SLUICE_ARG_, so neither an env field nor an inherited variable (from a
 * sluice running inside a step) can pose as the step's own arguments.
 */
static int
tool_reserved_name(const char *name, size_t len)
{
	size_t	i, plen = strlen(TOOL_ARG_PREFIX);

	if (len >= plen && memcmp(name, TOOL_ARG_PREFIX, plen) == 0)
		return (1);
	for (i = 0; i < sizeof tool_reserved / sizeof tool_reserved[0]; i++) {
		if (strlen(tool_reserved[i]) == len &&
		    memcmp(tool_reserved[i], name, len) == 0)
			return (1);
	}
	return (0);
}

/* Order variables by name alone, for bsearch. */
static int
tool_var_cmp(const void *a, const void *b)
{
	const struct tool_var	*x = a, *y = b;
	int			 c;

	c = memcmp(x->kv, y->kv, x->len < y->len ? x->len : y->len);
	if (c != 0)
		return (c);
	if (x->len != y->len)
		return (x->len < y->len ? -1 : 1);
	return (0);
}

/* Order variables by name, then by when they were added. */
static int
tool_var_sort_cmp(const void *a, const void *b)
{
	const struct tool_var	*x = a, *y = b;
	int			 c;

	if ((c = tool_var_cmp(a, b)) != 0)
		return (c);
	return (x->pos < y->pos ? -1 : x->pos > y->pos);
}

/* Add NAME=VALUE to the step's set; a later one of a name wins. */
static void
tool_vars_add(struct tool_vars *tv, const char *name, const char *value)
{
	char	*kv;

	xasprintf(&kv, "%s=%s", name, value);
	tool_strv_push(&tv->set, kv);
}

/* Add a tool's or step's env, values interpolated, reserved names left out. */
static void
tool_vars_env(struct tool_vars *tv, const struct flow_kv *env, size_t n,
    const cJSON *scope)
{
	size_t	 i;
	char	*value;

	for (i = 0; i < n; i++) {
		if (tool_reserved_name(env[i].key, strlen(env[i].key)))
			continue;
		value = interp_text(env[i].value, scope);
		tool_vars_add(tv, env[i].key, value);
		free(value);
	}
}

/*
 * Add the SLUICE_* variables, last so nothing above can override them.
 * Two args whose names map to the same variable ("a-b" and "a_b" both give
 * SLUICE_ARG_A_B): the one later in the args object wins.
 */
static void
tool_vars_sluice(struct tool_vars *tv, const struct tool_ctx *ctx,
    const char *step, const cJSON *args)
{
	const cJSON	*c;
	char		*name, *value, num[32];

	snprintf(num, sizeof num, "%lld", (long long)ctx->workflow_id);
	tool_vars_add(tv, "SLUICE_WORKFLOW_ID", num);
	snprintf(num, sizeof num, "%lld", (long long)ctx->step_id);
	tool_vars_add(tv, "SLUICE_STEP_ID", num);
	tool_vars_add(tv, "SLUICE_STEP", ctx->step != NULL ? ctx->step : step);
	snprintf(num, sizeof num, "%d", ctx->attempt);
	tool_vars_add(tv, "SLUICE_ATTEMPT", num);
	for (c = args->child; c != NULL; c = c->next) {
		name = str_env_name("SLUICE_ARG", c->string);
		if (cJSON_IsString(c))
			tool_vars_add(tv, name, c->valuestring);
		else {
			value = json_print(c);
			tool_vars_add(tv, name, value);
			free(value);
		}
		free(name);
	}
	value = json_print(args);
	tool_vars_add(tv, "SLUICE_ARGS", value);
	free(value);
}

/*
 * Drop all but one entry of each name from sv, the last or the first,
 * keeping the survivors in their order; return them sorted by name, for
 * lookups.  Sorting keeps this n log n however many args there are.
 */
static struct tool_var *
tool_dedupe(struct tool_strv *sv, int keep_last, size_t *nout)
{
	struct tool_var	*vs;
	size_t		 i, j;
	int		 drop;

	vs = xcalloc(sv->n + 1, sizeof *vs);
	for (i = 0; i < sv->n; i++) {
		vs[i].kv = sv->v[i];
		vs[i].len = strcspn(sv->v[i], "=");
		vs[i].pos = i;
	}
	qsort(vs, sv->n, sizeof *vs, tool_var_sort_cmp);
	for (i = 0, j = 0; i < sv->n; i++) {
		if (keep_last)	/* vs[i + 1] is not overwritten yet */
			drop = i + 1 < sv->n &&
			    tool_var_cmp(&vs[i], &vs[i + 1]) == 0;
		else		/* vs[j - 1] is the first of its name */
			drop = j > 0 && tool_var_cmp(&vs[j - 1], &vs[i]) == 0;
		if (drop) {
			free(sv->v[vs[i].pos]);
			sv->v[vs[i].pos] = NULL;
		} else
			vs[j++] = vs[i];
	}
	*nout = j;
	for (i = 0, j = 0; i < sv->n; i++) {
		if (sv->v[i] != NULL)
			sv->v[j++] = sv->v[i];
	}
	sv->n = j;
	if (sv->v != NULL)
		sv->v[j] = NULL;
	return (vs);
}

/* Keep the last of each name in the step's set, and index it. */
static void
tool_vars_finish(struct tool_vars *tv)
{
	tv->byname = tool_dedupe(&tv->set, 1, &tv->nbyname);
}

/* Is NAME (of length len) in the step's set? */
static int
tool_vars_has(const struct tool_vars *tv, const char *name, size_t len)
{
	struct tool_var	key;

	key.kv = name;
	key.len = len;
	key.pos = 0;
	return (bsearch(&key, tv->byname, tv->nbyname, sizeof *tv->byname,
	    tool_var_cmp) != NULL);
}

/* Free the step's set. */
static void
tool_vars_free(struct tool_vars *tv)
{
	strv_free(tv->set.v);
	free(tv->byname);
	memset(tv, 0, sizeof *tv);
}

/*
 * The local environment: the base without the names the step sets (and
 * without reserved, malformed or repeated entries), then the step's set,
 * so no name appears twice.
 */
static char **
tool_envp_local(const struct tool_vars *tv, char *const *base)
{
	struct tool_strv	 out;
	size_t			 i, len;

	memset(&out, 0, sizeof out);
	for (i = 0; base != NULL && base[i] != NULL; i++) {
		len = strcspn(base[i], "=");
		if (len == 0 || base[i][len] != '=')
			continue;
		if (tool_reserved_name(base[i], len) ||
		    tool_vars_has(tv, base[i], len))
			continue;
		tool_strv_push(&out, xstrdup(base[i]));
	}
	free(tool_dedupe(&out, 0, &len));	/* getenv sees the first */
	for (i = 0; i < tv->set.n; i++)
		tool_strv_push(&out, xstrdup(tv->set.v[i]));
	if (out.v == NULL)
		out.v = xcalloc(1, sizeof *out.v);
	return (out.v);
}

/* A copy of the base environment, for the local ssh process. */
static char **
tool_envp_copy(char *const *base)
{
	struct tool_strv	 out;
	size_t			 i;

	memset(&out, 0, sizeof out);
	for (i = 0; base != NULL && base[i] != NULL; i++)
		tool_strv_push(&out, xstrdup(base[i]));
	if (out.v == NULL)
		out.v = xcalloc(1, sizeof *out.v);
	return (out.v);
}

/* Parse the step's interpolated args, which must be an object. */
static cJSON *
tool_args(const struct flow_step *st, const char *text, char **cause)
{
	cJSON	*args;
	char	*why = NULL;

	if (text == NULL)
		text = "{}";
	if ((args = json_parse(text, strlen(text), &why)) == NULL) {
		xasprintf(cause, "step \"%s\": args: %s", st->name, why);
		free(why);
		return (NULL);
	}
	if (!cJSON_IsObject(args)) {
		xasprintf(cause, "step \"%s\": args must be an object, not %s",
		    st->name, json_type_name(args));
		cJSON_Delete(args);
		return (NULL);
	}
	return (args);
}

/*
 * The scope for run elements and env values: the caller's members by
 * reference (nothing is copied, and nothing of theirs is freed) plus
 * "args", which replaces any "args" the caller had.
 */
static cJSON *
tool_scope(const cJSON *scope, cJSON *args)
{
	const cJSON	*c;
	cJSON		*rs;

	rs = cJSON_CreateObject();
	if (rs == NULL)
		fatalx("%s: out of memory", __func__);
	for (c = scope != NULL ? scope->child : NULL; c != NULL; c = c->next) {
		if (c->string == NULL || strcmp(c->string, "args") == 0)
			continue;
		/* A reference item only reads c; cJSON's API is not const. */
		if (!cJSON_AddItemReferenceToObject(rs, c->string, (cJSON *)c))
			fatalx("%s: out of memory", __func__);
	}
	if (!cJSON_AddItemReferenceToObject(rs, "args", args))
		fatalx("%s: out of memory", __func__);
	return (rs);
}

/*
 * The scope of env values: the command's, with "secrets" (the site
 * secrets the step's env names) and "input" seen with its secret members
 * (which the stored input has as "***").  Only env values see them, so a
 * secret reaches the process and nothing that is stored or shown.
 */
static cJSON *
tool_env_scope(const cJSON *rs, const struct tool_ctx *ctx)
{
	const cJSON	*c;
	cJSON		*es, *in = NULL, *s;

	if (ctx->secrets == NULL && ctx->secret_input == NULL)
		return (NULL);
	es = cJSON_CreateObject();
	if (es == NULL)
		fatalx("%s: out of memory", __func__);
	for (c = rs->child; c != NULL; c = c->next) {
		if (strcmp(c->string, "input") == 0 &&
		    ctx->secret_input != NULL) {
			in = cJSON_Duplicate(c, 1);
			continue;
		}
		if (!cJSON_AddItemReferenceToObject(es, c->string, (cJSON *)c))
			fatalx("%s: out of memory", __func__);
	}
	if (ctx->secret_input != NULL) {
		if (in == NULL || !cJSON_IsObject(in)) {
			cJSON_Delete(in);
			in = cJSON_CreateObject();
		}
		for (c = ctx->secret_input->child; c != NULL; c = c->next) {
			cJSON_DeleteItemFromObjectCaseSensitive(in, c->string);
			s = cJSON_Duplicate(c, 1);
			cJSON_AddItemToObject(in, c->string, s);
		}
		cJSON_AddItemToObject(es, "input", in);
	}
	if (ctx->secrets != NULL && !cJSON_AddItemReferenceToObject(es,
	    "secrets", (cJSON *)ctx->secrets))
		fatalx("%s: out of memory", __func__);
	return (es);
}

/* Command words from run elements, each interpolated as text. */
static void
tool_words_run(struct tool_strv *w, char *const *run, size_t n,
    const cJSON *scope)
{
	size_t	i;

	for (i = 0; i < n; i++)
		tool_strv_push(w, interp_text(run[i], scope));
}

/* Command words for a script; $0 names it in the shell's own messages. */
static void
tool_words_shell(struct tool_strv *w, const char *script)
{
	tool_strv_push(w, xstrdup("/bin/sh"));
	tool_strv_push(w, xstrdup("-c"));
	tool_strv_push(w, xstrdup(script));
	tool_strv_push(w, xstrdup("sluice-step"));
}

/* The command words of a step, before any ssh wrapping. */
static int
tool_words(const struct flow_step *st, const struct flow_tool *tl,
    const cJSON *scope, struct tool_strv *w, char **cause)
{
	switch (st->exec) {
	case KIND_RUN:
		tool_words_run(w, st->run, st->nrun, scope);
		break;
	case KIND_SHELL:
		tool_words_shell(w, st->shell != NULL ? st->shell : "");
		break;
	case KIND_TOOL:
		if (tl == NULL || tl->builtin) {
			xasprintf(cause, "step \"%s\": tool \"%s\" is %s",
			    st->name, st->tool != NULL ? st->tool : "",
			    tl == NULL ? "not in the catalog" :
			    "built in, not a command");
			return (-1);
		}
		if (tl->run != NULL)
			tool_words_run(w, tl->run, tl->nrun, scope);
		else if (tl->shell != NULL)
			tool_words_shell(w, tl->shell);
		break;
	default:
		/* A kind with no command of its own: runner.c runs it. */
		xasprintf(cause, "step \"%s\": a %s runs no command",
		    st->name, kind_noun(st->exec));
		return (-1);
	}
	if (w->n == 0 || *w->v[0] == '\0') {
		xasprintf(cause, "step \"%s\": the command's program is empty",
		    st->name);
		return (-1);
	}
	return (0);
}

/*
 * A host must be one ssh destination: ssh would take a leading '-' as an
 * option, and white space or control characters have no place in a name.
 * The rule is applied to the interpolated value (a for-each item, an
 * input), so a hostile item fails its own row and never reaches ssh; raw
 * is what the flow wrote, named when it differs.
 */
static int
tool_host_check(const struct flow_step *st, const char *raw,
    const char *host, char **cause)
{
	const unsigned char	*p;
	const char		*why = NULL;
	char			*from = NULL;

	if (*host == '\0')
		why = "it is empty";
	else if (*host == '-')
		why = "it must not start with '-'";
	for (p = (const unsigned char *)host; why == NULL && *p != '\0';
	    p++) {
		if (isspace(*p) || iscntrl(*p))
			why = "it contains white space or a control character";
	}
	if (why == NULL)
		return (0);
	if (strcmp(raw, host) != 0)
		xasprintf(&from, " (from \"%s\")", raw);
	if (*host == '-')
		xasprintf(cause, "step \"%s\": bad host \"%s\"%s: %s",
		    st->name, host, from != NULL ? from : "", why);
	else
		xasprintf(cause, "step \"%s\": bad host%s: %s", st->name,
		    from != NULL ? from : "", why);
	free(from);
	return (-1);
}

/*
 * What the remote shell runs first: a watcher, in the background, that
 * ends the command when the connection is gone.  sshd starts the remote
 * shell as a session and group leader (setsid), under its own session
 * process; when the local ssh dies (cancel, timeout, a dead engine's
 * leftovers killed), that sshd process exits and the remote command
 * would run on, orphaned.  The watcher sees its shell's parent go and
 * signals the whole group: SIGTERM, then SIGKILL after the same 5 s grace
 * as local steps.  It keeps no pipe to the channel open, so a finished
 * command's session ends at once.  A fixed text: nothing from the flow.
 */
#define TOOL_REMOTE_WATCH \
	"p=$PPID; (trap '' TERM; while kill -0 \"$p\" 2>/dev/null; do" \
	" sleep 1; done; kill -TERM 0; sleep 5; kill -KILL 0)" \
	" </dev/null >/dev/null 2>&1 & w=$!; "

/*
 * ssh -o BatchMode=yes HOST -- REMOTE, where REMOTE is one line for the
 * remote shell: the watcher, an optional cd, then env with the step's own
 * variables (not the engine's whole environment) and the command, every
 * word quoted; then the watcher goes and the command's status is the
 * shell's.
 */
static char **
tool_remote_argv(const struct tool_ctx *ctx, const char *host,
    const char *cwd, const struct tool_vars *tv, const struct tool_strv *w)
{
	struct tool_strv	 argv;
	struct buf		 b;
	char			*q;
	size_t			 i;

	buf_init(&b);
	buf_puts(&b, TOOL_REMOTE_WATCH);
	if (cwd != NULL) {
		q = tool_sh_quote(cwd);
		buf_printf(&b, "cd %s && ", q);
		free(q);
	}
	buf_puts(&b, "env");
	for (i = 0; i < tv->set.n; i++) {
		q = tool_sh_quote(tv->set.v[i]);
		buf_printf(&b, " %s", q);
		free(q);
	}
	for (i = 0; i < w->n; i++) {
		q = tool_sh_quote(w->v[i]);
		buf_printf(&b, " %s", q);
		free(q);
	}
	buf_puts(&b, "; s=$?; kill \"$w\" 2>/dev/null; exit \"$s\"");
	memset(&argv, 0, sizeof argv);
	tool_strv_push(&argv, xstrdup(ctx->ssh != NULL ? ctx->ssh : "ssh"));
	tool_strv_push(&argv, xstrdup("-o"));
	tool_strv_push(&argv, xstrdup("BatchMode=yes"));
	tool_strv_push(&argv, xstrdup(host));
	tool_strv_push(&argv, xstrdup("--"));
	tool_strv_push(&argv, buf_release(&b));
	return (argv.v);
}

/*
 * Refuse what execve would reject with E2BIG, naming what is too long,
 * rather than leave the step to fail with a bare errno.
 */
static int
tool_size_check(const struct flow_step *st, const struct tool_cmd *cmd,
    char **cause)
{
	char *const	*vv[2] = { cmd->argv, cmd->envp };
	size_t		 total = 0, len, i, k;
	long		 max = sysconf(_SC_ARG_MAX);

	for (k = 0; k < 2; k++) {
		for (i = 0; vv[k][i] != NULL; i++) {
			len = strlen(vv[k][i]) + 1;
			total += len + sizeof vv[k][i];
			if (len <= TOOL_MAX_STRING)
				continue;
			if (k == 0)
				xasprintf(cause, "step \"%s\": argument %zu of "
				    "the command is too long (%zu bytes, at "
				    "most %d)", st->name, i, len - 1,
				    TOOL_MAX_STRING - 1);
			else
				xasprintf(cause, "step \"%s\": %.*s is too "
				    "long (%zu bytes, at most %d)", st->name,
				    (int)strcspn(vv[k][i], "="), vv[k][i],
				    len - 1, TOOL_MAX_STRING - 1);
			return (-1);
		}
	}
	if (max > 0 && total > (size_t)max) {
		xasprintf(cause, "step \"%s\": the command and its environment "
		    "are too large (%zu bytes, at most %ld)", st->name, total,
		    max);
		return (-1);
	}
	return (0);
}

/*
 * Build what to exec for one attempt of st.  tl is its catalog tool for
 * KIND_TOOL and is ignored for other kinds; args_json is the step's
 * args, already interpolated; scope is the interpolation scope for run
 * elements, env values and the host, to which "args" is added.
 */
int
tool_cmd_build(const struct flow_step *st, const struct flow_tool *tl,
    const char *args_json, const cJSON *scope, const struct tool_ctx *ctx,
    struct tool_cmd *cmd, char **cause)
{
	struct tool_strv	 w;
	struct tool_vars	 tv;
	cJSON			*args, *rs = NULL, *es;
	const char		*raw;
	char			*host = NULL;
	int			 rv = -1;

	memset(cmd, 0, sizeof *cmd);
	memset(&w, 0, sizeof w);
	memset(&tv, 0, sizeof tv);
	if (st->exec != KIND_TOOL)
		tl = NULL;	/* inline commands owe nothing to a tool */
	if ((args = tool_args(st, args_json, cause)) == NULL)
		return (-1);
	rs = tool_scope(scope, args);
	if (tool_words(st, tl, rs, &w, cause) != 0)
		goto fail;
	raw = st->host != NULL ? st->host : tl != NULL ? tl->host : NULL;
	if (raw != NULL && tl != NULL && tl->mcp) {
		xasprintf(cause, "step \"%s\": tool \"%s\" is an MCP "
		    "server's, which runs on the engine's machine: \"host\" "
		    "is not supported", st->name, tl->name);
		goto fail;
	}
	if (raw != NULL) {
		host = interp_text(raw, rs);
		if (tool_host_check(st, raw, host, cause) != 0)
			goto fail;
	}

	es = tool_env_scope(rs, ctx);
	if (tl != NULL)
		tool_vars_env(&tv, tl->env, tl->nenv, es != NULL ? es : rs);
	tool_vars_env(&tv, st->env, st->nenv, es != NULL ? es : rs);
	cJSON_Delete(es);
	tool_vars_sluice(&tv, ctx, st->name, args);
	tool_vars_finish(&tv);

	if (host == NULL) {
		cmd->argv = w.v;
		w.v = NULL;
		cmd->envp = tool_envp_local(&tv, ctx->environ);
		cmd->cwd = st->cwd != NULL ? xstrdup(st->cwd) : NULL;
	} else {
		cmd->argv = tool_remote_argv(ctx, host, st->cwd, &tv, &w);
		cmd->envp = tool_envp_copy(ctx->environ);
		cmd->host = host;
		host = NULL;
	}
	if (tool_size_check(st, cmd, cause) != 0) {
		tool_cmd_free(cmd);
		goto fail;
	}
	rv = 0;
fail:
	free(host);
	strv_free(w.v);
	tool_vars_free(&tv);
	cJSON_Delete(rs);
	cJSON_Delete(args);
	return (rv);
}

/* Free what a built command holds. */
void
tool_cmd_free(struct tool_cmd *cmd)
{
	strv_free(cmd->argv);
	strv_free(cmd->envp);
	free(cmd->cwd);
	free(cmd->host);
	memset(cmd, 0, sizeof *cmd);
}

/*
 * Quote s as one word for a POSIX shell: inside single quotes nothing is
 * special, so only ' itself needs care, written as '\''.
 */
char *
tool_sh_quote(const char *s)
{
	struct buf	b;

	buf_init(&b);
	buf_putc(&b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return (buf_release(&b));
}
