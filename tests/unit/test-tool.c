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
 * test-tool.c: the command of a step (argv, environment, working directory,
 * ssh wrapping and shell quoting) and the retry policy and its waits.  The
 * quoting is checked for real: quoted words and whole remote commands are
 * run by /bin/sh and must come back byte for byte.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/tool.h"
#include "tap.h"

/* PATH for running hostile text: if quoting broke, no command is found. */
#define SAFE_PATH	"PATH=/nonexistent/sluice-test-tool"

/*
 * What every remote command line starts and ends with: the watcher that
 * ends the command when the connection goes, and the status handed back.
 */
#define REMOTE_WATCH \
	"p=$PPID; (trap '' TERM; while kill -0 \"$p\" 2>/dev/null; do" \
	" sleep 1; done; kill -TERM 0; sleep 5; kill -KILL 0)" \
	" </dev/null >/dev/null 2>&1 & w=$!; "
#define REMOTE_END	"; s=$?; kill \"$w\" 2>/dev/null; exit \"$s\""

static const char *scope_text =
    "{\"input\": {\"x\": \"in-x\", \"n\": 5, \"obj\": {\"k\": [1, 2]}},"
    " \"steps\": {\"prev\": {\"result\": {\"ok\": true}, \"exit_code\": 0}},"
    " \"workflow\": {\"id\": 7, \"name\": \"wf\"},"
    " \"args\": {\"a\": \"scope args must be replaced\"}}";

static const char *base_text[] = {
	"PATH=/usr/bin:/bin", "HOME=/home/op", "FOO=base", "BAR=base",
	"SLUICE_DB=/var/db/sluice.db", "SLUICE_ARG_STALE=outer",
	"SLUICE_STEP=outer", "SLUICE_ARGS={\"outer\":1}", "NOEQUALS",
	"DUP=first", "=nameless", "DUP=second", "HOME=/again", NULL
};

static const char *nasty[] = {
	"", "'", "''", "'\\''", "\\", "\\'", "\"", "\"'\"", "$HOME", "${x:-y}",
	"$(echo INJECTED)", "`echo INJECTED`", "a\nb", "\n", "\n\n'\n",
	"; rm -rf /", "&& echo INJECTED", "| cat", "> /dev/null", "< /dev/null",
	"*", "~", "~root", "-n", "--", "a b\tc", "#comment", "!", "!!", "{a,b}",
	"%s%n%d", "\x01\x02\x1b[31m\x7f", "caf\xc3\xa9 \xe2\x82\xac",
	"it's a 'test'", "''''''''", "x=y", "\\n", "$'\\x41'", ")(", NULL
};

static struct cJSON	*scope;
static char		**base_env;	/* base_text, writable */

static int	 build(const char *, const char *, const char *,
		     const struct tool_ctx *, struct tool_cmd *, char **);
static struct tool_ctx ctx_default(void);
static const char *env_get(char *const *, const char *);
static int	 env_count(char *const *, const char *);
static int	 env_has_dups(char *const *);
static int	 argv_is(char *const *, const char *const *, const char *);
static char	**strv_dup(const char *const *);
static char	*run_capture(const char *const *, const char *const *,
		     const char *);
static void	 test_kinds(void);
static void	 test_env(void);
static void	 test_env_ids(void);
static void	 test_args_env(void);
static void	 test_cwd_remote(void);
static void	 refused(const struct flow_step *, const struct flow_tool *,
		     const char *, const char *, const char *);
static void	 test_errors(void);
static void	 test_too_long(void);
static void	 test_quote(void);
static void	 test_remote_real(void);
static void	 test_local_real(void);
static void	 test_retry(void);

/*
 * Parse a flow and a catalog, interpolate the args of step KEY as the
 * engine will, and build its command.  Parse errors bail out.
 */
static int
build(const char *flow_text, const char *tools_text, const char *key,
    const struct tool_ctx *ctx, struct tool_cmd *cmd, char **cause)
{
	struct flow_diags	*d = flow_diags_create();
	struct flow		*f;
	struct flow_tools	*t;
	const struct flow_tool	*tl = NULL;
	struct flow_step	*st;
	char			*args;
	int			 rv;

	f = flow_parse(flow_text, strlen(flow_text), d);
	t = flow_tools_parse(tools_text, tools_text != NULL ?
	    strlen(tools_text) : 0, d);
	if (f == NULL || t == NULL || flow_diags_errors(d) != 0 ||
	    flow_find(f, key) == -1) {
		printf("Bail out! bad test input: %s\n", flow_text);
		exit(1);
	}
	st = &f->steps[flow_find(f, key)];
	if (st->exec == KIND_TOOL)
		tl = flow_tools_find(t, st->tool);
	args = interp_json(st->args_json, scope);
	*cause = NULL;
	rv = tool_cmd_build(st, tl, args, scope, ctx, cmd, cause);
	free(args);
	flow_free(f);
	flow_tools_free(t);
	flow_diags_free(d);
	return (rv);
}

/* The context most tests use. */
static struct tool_ctx
ctx_default(void)
{
	struct tool_ctx	ctx;

	memset(&ctx, 0, sizeof ctx);
	ctx.workflow_id = 7;
	ctx.step_id = 42;
	ctx.step = "start";
	ctx.attempt = 2;
	ctx.environ = base_env;
	return (ctx);
}

/* The value of NAME in envp, or NULL. */
static const char *
env_get(char *const *envp, const char *name)
{
	size_t	len = strlen(name), i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return (envp[i] + len + 1);
	}
	return (NULL);
}

/* How many entries of envp set NAME. */
static int
env_count(char *const *envp, const char *name)
{
	size_t	len = strlen(name), i;
	int	n = 0;

	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			n++;
	}
	return (n);
}

/* Does any name appear twice, or any entry lack '='? */
static int
env_has_dups(char *const *envp)
{
	size_t	i, j, len;

	for (i = 0; envp[i] != NULL; i++) {
		len = strcspn(envp[i], "=");
		if (envp[i][len] != '=')
			return (1);
		for (j = i + 1; envp[j] != NULL; j++) {
			if (strncmp(envp[i], envp[j], len + 1) == 0)
				return (1);
		}
	}
	return (0);
}

/* Compare a NULL-terminated argv with the expected words, showing both. */
static int
argv_is(char *const *got, const char *const *want, const char *what)
{
	size_t	i;
	int	same = (got != NULL);

	for (i = 0; same && want[i] != NULL; i++) {
		if (got[i] == NULL || strcmp(got[i], want[i]) != 0)
			same = 0;
	}
	if (same && got[i] != NULL)
		same = 0;
	tap_ok(same, "%s", what);
	if (!same) {
		for (i = 0; got != NULL && got[i] != NULL; i++)
			printf("#   got[%zu]:  %s\n", i, got[i]);
		for (i = 0; want[i] != NULL; i++)
			printf("#   want[%zu]: %s\n", i, want[i]);
	}
	return (same);
}

/* A writable copy of a NULL-terminated list of strings. */
static char **
strv_dup(const char *const *v)
{
	char	**out;
	size_t	  n, i;

	for (n = 0; v[n] != NULL; n++)
		;
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return (out);
}

/* Run argv (a full path) with envp in cwd; its stdout, or NULL if it failed. */
static char *
run_capture(const char *const *argv, const char *const *envp,
    const char *cwd)
{
	struct buf	b;
	char		chunk[4096];
	ssize_t		n;
	pid_t		pid;
	int		fd[2], status;

	if (pipe(fd) != 0)
		return (NULL);
	fflush(stdout);
	if ((pid = fork()) == -1)
		return (NULL);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (cwd != NULL && chdir(cwd) != 0)
			_exit(126);
		/* execve's prototype predates const; it changes nothing. */
		execve(argv[0], (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	close(fd[1]);
	buf_init(&b);
	while ((n = read(fd[0], chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		buf_free(&b);
		return (NULL);
	}
	return (buf_release(&b));
}

/* Every kind of command: inline run, inline shell, catalog run and shell. */
static void
test_kinds(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause;
	const char	*tools = "{\"deploy\": {\"run\": [\"deploy\","
	    " \"--to={{args.host}}\", \"{{args.port}}\", \"{{input.x}}\","
	    " \"{{args.list}}\", \"{{args.missing}}\","
	    " \"{{steps.prev.result}}\","
	    " \"{{workflow.name}}-{{workflow.id}}\"]},"
	    " \"script\": {\"shell\":"
	    " \"echo \\\"$SLUICE_ARG_A\\\" {{args.a}}\"}}";

	tap_is_int(build("{\"start\": {\"run\": [\"/bin/echo\","
	    " \"{{input.x}}\","
	    " \"n={{input.n}}\", \"{{input.obj}}\", \"{{input.n}}\","
	    " \"{{args.a}}\", \"{{missing.x}}\", \"plain\"],"
	    " \"args\": {\"a\": \"{{input.x}}-A\"}}}", NULL, "start", &ctx,
	    &cmd, &cause), 0, "inline run builds");
	argv_is(cmd.argv, (const char *[]){ "/bin/echo", "in-x", "n=5",
	    "{\"k\":[1,2]}", "5", "in-x-A", "", "plain", NULL },
	    "inline run: elements interpolated with args in scope");
	tap_ok(cmd.cwd == NULL && cmd.host == NULL,
	    "inline run: no cwd, no host");
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"shell\": \"echo \\\"$SLUICE_ARG_A\\\""
	    " {{input.x}}\", \"args\": {\"a\": 1}}}", NULL, "start", &ctx,
	    &cmd, &cause), 0, "inline shell builds");
	argv_is(cmd.argv, (const char *[]){ "/bin/sh", "-c",
	    "echo \"$SLUICE_ARG_A\" {{input.x}}", "sluice-step", NULL },
	    "inline shell: /bin/sh -c SCRIPT sluice-step, script untouched");
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"tool\": \"deploy\", \"args\":"
	    " {\"host\": \"{{input.x}}\", \"port\": \"{{input.n}}\","
	    " \"list\": [1, \"a\"]}}}", tools, "start", &ctx, &cmd, &cause), 0,
	    "catalog run builds");
	argv_is(cmd.argv, (const char *[]){ "deploy", "--to=in-x", "5",
	    "in-x", "[1,\"a\"]", "", "{\"ok\":true}", "wf-7", NULL },
	    "catalog run: {{args.KEY}}, {{input.x}}, JSON for non-strings");
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"tool\": \"script\", \"args\":"
	    " {\"a\": \"$(echo no)\"}}}", tools, "start", &ctx, &cmd, &cause),
	    0, "catalog shell builds");
	argv_is(cmd.argv, (const char *[]){ "/bin/sh", "-c",
	    "echo \"$SLUICE_ARG_A\" {{args.a}}", "sluice-step", NULL },
	    "catalog shell: args never spliced into the script");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_A"), "$(echo no)",
	    "catalog shell: the arg arrives in the environment");
	tool_cmd_free(&cmd);
}

/* Base, tool env, step env and SLUICE_*: precedence and no duplicates. */
static void
test_env(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause;
	const char	*tools = "{\"t\": {\"run\": [\"/bin/true\"], \"env\":"
	    " {\"FOO\": \"tool\", \"BAR\": \"tool\","
	    " \"TONLY\": \"t-{{args.a}}\","
	    " \"SLUICE_ATTEMPT\": \"99\"}}}";

	tap_is_int(build("{\"start\": {\"tool\": \"t\","
	    " \"args\": {\"a\": \"A\"}, \"env\": {\"FOO\": \"step\","
	    " \"SONLY\": \"{{input.x}}/{{args.a}}\","
	    " \"SLUICE_STEP\": \"spoof\", \"SLUICE_ARG_A\": \"spoof\","
	    " \"SLUICE_ARG_EXTRA\": \"spoof\", \"SLUICE_WORKFLOW_ID\": \"1\","
	    " \"SLUICE_STEP_ID\": \"1\", \"SLUICE_ARGS\": \"{}\","
	    " \"HOME\": \"/step-home\"}}}", tools, "start", &ctx, &cmd, &cause),
	    0, "step with tool env and step env builds");
	tap_is(env_get(cmd.envp, "FOO"), "step", "step env beats tool env");
	tap_is(env_get(cmd.envp, "BAR"), "tool", "tool env beats the base");
	tap_is(env_get(cmd.envp, "HOME"), "/step-home",
	    "step env beats the base");
	tap_is(env_get(cmd.envp, "TONLY"), "t-A", "tool env is interpolated");
	tap_is(env_get(cmd.envp, "SONLY"), "in-x/A",
	    "step env is interpolated with input and args");
	tap_is(env_get(cmd.envp, "PATH"), "/usr/bin:/bin", "base PATH kept");
	tap_is(env_get(cmd.envp, "SLUICE_DB"), "/var/db/sluice.db",
	    "other SLUICE_ variables of the engine are kept");
	tap_ok(env_get(cmd.envp, "SLUICE_ARG_STALE") == NULL,
	    "inherited SLUICE_ARG_* dropped");
	tap_ok(env_get(cmd.envp, "SLUICE_ARG_EXTRA") == NULL,
	    "env cannot add a SLUICE_ARG_* of its own");
	tap_ok(env_get(cmd.envp, "NOEQUALS") == NULL &&
	    !env_has_dups(cmd.envp), "no duplicate or malformed entries");
	tap_is_int(env_count(cmd.envp, "FOO"), 1, "FOO appears once");
	tap_is(env_get(cmd.envp, "DUP"), "first",
	    "a name repeated in the base: the first, as getenv sees it");
	tap_is(env_get(cmd.envp, "SLUICE_WORKFLOW_ID"), "7",
	    "SLUICE_WORKFLOW_ID not spoofed");
	tap_is(env_get(cmd.envp, "SLUICE_STEP_ID"), "42",
	    "SLUICE_STEP_ID not spoofed");
	tap_is(env_get(cmd.envp, "SLUICE_STEP"), "start",
	    "SLUICE_STEP not spoofed (nor inherited)");
	tap_is(env_get(cmd.envp, "SLUICE_ATTEMPT"), "2",
	    "SLUICE_ATTEMPT not spoofed by the tool");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_A"), "A",
	    "SLUICE_ARG_A not spoofed");
	tap_is(env_get(cmd.envp, "SLUICE_ARGS"), "{\"a\":\"A\"}",
	    "SLUICE_ARGS not spoofed (nor inherited)");
	tool_cmd_free(&cmd);
}

/* The SLUICE_* values themselves, with no base environment at all. */
static void
test_env_ids(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause;

	ctx.workflow_id = INT64_MAX;
	ctx.step_id = INT64_MIN;
	ctx.attempt = 100;
	ctx.step = "the name";
	ctx.environ = NULL;
	tap_is_int(build("{\"start\": {\"run\": [\"x\"]}}", NULL, "start",
	    &ctx, &cmd, &cause), 0, "no base environment builds");
	tap_is(env_get(cmd.envp, "SLUICE_WORKFLOW_ID"), "9223372036854775807",
	    "large workflow id");
	tap_is(env_get(cmd.envp, "SLUICE_STEP_ID"), "-9223372036854775808",
	    "extreme step id");
	tap_is(env_get(cmd.envp, "SLUICE_ATTEMPT"), "100", "attempt");
	tap_is(env_get(cmd.envp, "SLUICE_STEP"), "the name",
	    "SLUICE_STEP from the context");
	tap_is(env_get(cmd.envp, "SLUICE_ARGS"), "{}", "empty args");
	tap_ok(env_get(cmd.envp, "PATH") == NULL && cmd.envp[4] != NULL &&
	    cmd.envp[5] == NULL,
	    "exactly the five SLUICE_* variables and nothing else");
	tool_cmd_free(&cmd);
}

/* SLUICE_ARG_<KEY>: name mangling, JSON for non-strings, collisions. */
static void
test_args_env(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause;

	tap_is_int(build("{\"start\": {\"run\": [\"x\"], \"args\": {"
	    "\"a-b\": \"first\", \"a_b\": \"second\", \"Mixed.Case\": true,"
	    " \"num\": 3.5, \"obj\": {\"k\": null}, \"arr\": [1, \"x\"],"
	    " \"nul\": null, \"s\": \"plain text\", \"caf\\u00e9\": \"u\","
	    " \"n\": \"{{input.n}}\", \"emb\": \"n={{input.n}}\"}}}", NULL,
	    "start", &ctx, &cmd, &cause), 0, "many args build");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_A_B"), "second",
	    "a-b and a_b collide: the later one wins");
	tap_is_int(env_count(cmd.envp, "SLUICE_ARG_A_B"), 1,
	    "the collision leaves one entry");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_MIXED_CASE"), "true",
	    "upper-cased, '.' made '_', boolean as JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_NUM"), "3.5", "number as JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_OBJ"), "{\"k\":null}",
	    "object as compact JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_ARR"), "[1,\"x\"]",
	    "array as compact JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_NUL"), "null", "null as JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_S"), "plain text",
	    "string as it is");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_CAF__"), "u",
	    "each byte of a non-ASCII letter made '_'");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_N"), "5",
	    "a whole-string reference keeps its type, then JSON");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_EMB"), "n=5",
	    "an embedded reference rendered as text");
	tap_is(env_get(cmd.envp, "SLUICE_ARGS"), "{\"a-b\":\"first\","
	    "\"a_b\":\"second\",\"Mixed.Case\":true,\"num\":3.5,"
	    "\"obj\":{\"k\":null},\"arr\":[1,\"x\"],\"nul\":null,"
	    "\"s\":\"plain text\",\"caf\xc3\xa9\":\"u\",\"n\":5,"
	    "\"emb\":\"n=5\"}",
	    "SLUICE_ARGS is the args as compact JSON");
	tap_ok(!env_has_dups(cmd.envp), "no duplicates with many args");
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"run\": [\"x\"], \"args\": {"
	    "\"a_b\": \"second\", \"a-b\": \"first\"}}}", NULL, "start", &ctx,
	    &cmd, &cause), 0, "reversed collision builds");
	tap_is(env_get(cmd.envp, "SLUICE_ARG_A_B"), "first",
	    "reversed: still the later one wins");
	tool_cmd_free(&cmd);
}

/* Working directory and the exact ssh command line. */
static void
test_cwd_remote(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause;
	const char	*env1_text[] = { "PATH=/bin", "SECRET=s3", NULL };
	char		**env1 = strv_dup(env1_text);
	const char	*tools = "{\"t\": {\"shell\": \"echo hi\","
	    " \"host\": \"tool-host\", \"env\": {\"T\": \"1\"}}}";

	tap_is_int(build("{\"start\": {\"run\": [\"ls\"],"
	    " \"cwd\": \"/srv/a b\"}}", NULL, "start", &ctx, &cmd, &cause), 0,
	    "step with cwd builds");
	tap_is(cmd.cwd, "/srv/a b", "cwd is the step's");
	tool_cmd_free(&cmd);

	ctx.ssh = "/usr/local/bin/fake-ssh";
	ctx.environ = env1;
	tap_is_int(build("{\"start\": {\"run\": [\"ls\", \"-l\", \"it's\","
	    " \"{{args.k}}\"], \"host\": \"root@web1\", \"cwd\": \"/srv/a b\","
	    " \"env\": {\"E\": \"v w\"}, \"args\": {\"k\": \"$(x)\"}}}", NULL,
	    "start", &ctx, &cmd, &cause), 0, "remote run builds");
	argv_is(cmd.argv, (const char *[]){ "/usr/local/bin/fake-ssh", "-o",
	    "BatchMode=yes", "root@web1", "--",
	    REMOTE_WATCH "cd '/srv/a b' && env 'E=v w' 'SLUICE_WORKFLOW_ID=7'"
	    " 'SLUICE_STEP_ID=42' 'SLUICE_STEP=start' 'SLUICE_ATTEMPT=2'"
	    " 'SLUICE_ARG_K=$(x)' 'SLUICE_ARGS={\"k\":\"$(x)\"}'"
	    " 'ls' '-l' 'it'\\''s' '$(x)'" REMOTE_END, NULL },
	    "remote run: ssh -o BatchMode=yes HOST -- one quoted line");
	tap_ok(cmd.cwd == NULL, "remote: no local cwd");
	tap_is(cmd.host, "root@web1", "remote: the host is recorded");
	argv_is(cmd.envp, (const char *[]){ "PATH=/bin", "SECRET=s3", NULL },
	    "remote: ssh gets the base environment only");
	tool_cmd_free(&cmd);

	ctx.ssh = NULL;
	tap_is_int(build("{\"start\": {\"tool\": \"t\"}}", tools, "start", &ctx,
	    &cmd, &cause), 0, "tool with a host builds");
	argv_is(cmd.argv, (const char *[]){ "ssh", "-o", "BatchMode=yes",
	    "tool-host", "--", REMOTE_WATCH "env 'T=1' 'SLUICE_WORKFLOW_ID=7'"
	    " 'SLUICE_STEP_ID=42' 'SLUICE_STEP=start' 'SLUICE_ATTEMPT=2'"
	    " 'SLUICE_ARGS={}' '/bin/sh' '-c' 'echo hi' 'sluice-step'"
	    REMOTE_END, NULL },
	    "remote shell: the tool's host, default ssh, no cd");
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"tool\": \"t\","
	    " \"host\": \"step-host\"}}", tools, "start", &ctx, &cmd, &cause),
	    0, "step host over tool host");
	tap_is(cmd.argv[3], "step-host", "the step's host wins");
	tap_is(cmd.host, "step-host", "and is the one recorded");
	tool_cmd_free(&cmd);
	strv_free(env1);
}

/*
 * Expect tool_cmd_build to refuse, leaving cmd empty, with a cause that
 * names the step "deploy web" and contains needle.
 */
static void
refused(const struct flow_step *st, const struct flow_tool *tl,
    const char *args, const char *needle, const char *what)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*cause = NULL;
	int		 rv;

	rv = tool_cmd_build(st, tl, args, scope, &ctx, &cmd, &cause);
	tap_ok(rv == -1 && cmd.argv == NULL && cause != NULL &&
	    strncmp(cause, "step \"deploy web\": ", 19) == 0 &&
	    strstr(cause, needle) != NULL, "%s: %s", what,
	    cause != NULL ? cause : "(no cause)");
	if (rv == 0)
		tool_cmd_free(&cmd);
	free(cause);
}

/* Things that must be refused, with a cause naming the step. */
static void
test_errors(void)
{
	static const char *hosts[] = {
		"-oProxyCommand=touch /tmp/x", "-", "a b", "a\tb", "web1\n",
		"\nweb1", "a\x01", "a\x7f", "a\rb", ""
	};
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	struct flow	*f;
	struct flow_diags *d = flow_diags_create();
	struct flow_tools *t;
	struct flow_step *st;
	const char	*text = "{\"start\": {\"name\": \"deploy web\","
	    " \"run\": [\"x\"]}, \"gate\": {}}";
	const char	*tools =
	    "{\"t\": {\"run\": [\"x\"], \"host\": \"-x\"}}";
	char		*cause = NULL;
	size_t		 i;

	f = flow_parse(text, strlen(text), d);
	t = flow_tools_parse(tools, strlen(tools), d);
	st = &f->steps[0];
	for (i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		st->host = (char *)hosts[i];
		refused(st, NULL, "{}", "host", "bad host refused");
	}
	st->host = NULL;
	tap_is_int(tool_cmd_build(st, flow_tools_find(t, "t"), "{}", scope,
	    &ctx, &cmd, &cause), 0, "a tool (and its host) is ignored by run");
	tap_ok(cmd.host == NULL, "  so the step stays local");
	tool_cmd_free(&cmd);
	free(cause);

	refused(st, NULL, "[1]", "args must be an object", "args not object");
	refused(st, NULL, "{", "args:", "args not JSON");
	free(f->steps[1].name);
	f->steps[1].name = xstrdup("deploy web");
	refused(&f->steps[1], NULL, "{}", "gate", "a gate has no command");
	st->exec = KIND_TOOL;
	refused(st, flow_tools_find(t, "echo"), "{}", "built in",
	    "a builtin has no command");
	refused(st, NULL, "{}", "not in the catalog", "a missing tool");
	refused(st, flow_tools_find(t, "t"), "{}", "'-'",
	    "a tool's bad host refused");
	st->exec = KIND_RUN;
	free(st->run[0]);
	st->run[0] = xstrdup("{{input.nope}}");
	refused(st, NULL, "{}", "empty",
	    "a program that interpolates to \"\" refused");
	flow_free(f);
	flow_tools_free(t);
	flow_diags_free(d);
}

/* What execve would refuse with E2BIG is refused first, and named. */
static void
test_too_long(void)
{
	struct flow_diags	*d = flow_diags_create();
	struct flow		*f;
	const char		*text =
	    "{\"start\": {\"name\": \"deploy web\", \"run\": [\"x\"]}}";
	char			*huge;

	f = flow_parse(text, strlen(text), d);
	huge = xcalloc(1, 200 * 1024 + 32);
	strlcpy(huge, "{\"big\": \"", 200 * 1024);
	memset(huge + strlen(huge), 'x', 150 * 1024);
	strlcat(huge, "\"}", 200 * 1024 + 32);
	refused(&f->steps[0], NULL, huge, "SLUICE_ARG_BIG is too long",
	    "an arg too long for execve refused");
	f->steps[0].host = xstrdup("web1");
	refused(&f->steps[0], NULL, huge, "argument 5 of the command is too "
	    "long", "  and so is the remote line that carries it");
	free(huge);
	flow_free(f);
	flow_diags_free(d);
}

/* tool_sh_quote: its exact form, and /bin/sh gives every word back. */
static void
test_quote(void)
{
	const char	*argv[4], *envp[] = { SAFE_PATH, NULL };
	char		*q, *script, *out;
	size_t		 i;
	int		 bad = 0;

	q = tool_sh_quote("");
	tap_is(q, "''", "quote: empty string");
	free(q);
	q = tool_sh_quote("plain");
	tap_is(q, "'plain'", "quote: plain word");
	free(q);
	q = tool_sh_quote("it's");
	tap_is(q, "'it'\\''s'", "quote: embedded '");
	free(q);
	q = tool_sh_quote("$(x) `y` \"z\"\n");
	tap_is(q, "'$(x) `y` \"z\"\n'", "quote: nothing else escaped");
	free(q);

	for (i = 0; nasty[i] != NULL; i++) {
		q = tool_sh_quote(nasty[i]);
		xasprintf(&script, "printf %%s %s", q);
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = script;
		argv[3] = NULL;
		out = run_capture(argv, envp, NULL);
		if (!tap_is(out, nasty[i], "sh reads the quoted word back"))
			bad = 1;
		free(out);
		free(script);
		free(q);
	}
	tap_ok(!bad, "every nasty string survives /bin/sh");
}

/*
 * Run the remote line through /bin/sh here, as sshd would there: hostile
 * args, env values and a hostile directory name must all arrive intact.
 */
static void
test_remote_real(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	cJSON		*args;
	char		*flow, *a, *e, *dir, *cwd, *want, *out, *cause;
	const char	*argv[4], *envp[] = { "PATH=/usr/bin:/bin", NULL };
	char		 tmpl[] = "/tmp/sluice 'q' $(x) `y`.XXXXXX";
	size_t		 i;

	if ((dir = mkdtemp(tmpl)) == NULL) {
		printf("Bail out! mkdtemp failed\n");
		exit(1);
	}
	args = cJSON_CreateString(dir);
	cwd = cJSON_PrintUnformatted(args);
	cJSON_Delete(args);
	for (i = 0; nasty[i] != NULL; i++) {
		if (strstr(nasty[i], "rm ") != NULL)
			continue;	/* PATH is real here */
		args = cJSON_CreateString(nasty[i]);
		a = cJSON_PrintUnformatted(args);
		cJSON_Delete(args);
		e = xstrdup(a);
		xasprintf(&flow, "{\"start\": {\"shell\":"
		    " \"printf '%%s|%%s|%%s|%%s' \\\"$SLUICE_ARG_X\\\""
		    " \\\"$E\\\" \\\"$(pwd)\\\" \\\"$1\\\"\","
		    " \"host\": \"h\", \"cwd\": %s, \"env\": {\"E\": %s},"
		    " \"args\": {\"x\": %s}}}", cwd, e, a);
		if (build(flow, NULL, "start", &ctx, &cmd, &cause) != 0) {
			tap_ok(0, "remote build: %s", cause);
			free(cause);
			continue;
		}
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = cmd.argv[5];
		argv[3] = NULL;
		out = run_capture(argv, envp, NULL);
		xasprintf(&want, "%s|%s|%s|", nasty[i], nasty[i], dir);
		tap_is(out, want, "remote line run by sh: args, env, cwd");
		free(out);
		free(want);
		tool_cmd_free(&cmd);
		free(flow);
		free(a);
		free(e);
	}
	free(cwd);
	rmdir(dir);
}

/* Exec the local argv and envp for real, in the step's cwd. */
static void
test_local_real(void)
{
	struct tool_ctx	 ctx = ctx_default();
	struct tool_cmd	 cmd;
	char		*out, *cause;

	tap_is_int(build("{\"start\": {\"shell\": \"printf '%s|%s|%s|%s|%s'"
	    " \\\"$SLUICE_ARG_X\\\" \\\"$SLUICE_STEP\\\" \\\"$FOO\\\""
	    " \\\"$(pwd)\\\" \\\"$0\\\"\", \"cwd\": \"/\", \"env\": {\"FOO\":"
	    " \"f\"}, \"args\": {\"x\": \"; echo $(id) `id`\"}}}", NULL,
	    "start", &ctx, &cmd, &cause), 0, "local shell builds");
	out = run_capture((const char *const *)cmd.argv,
	    (const char *const *)cmd.envp, cmd.cwd);
	tap_is(out, "; echo $(id) `id`|start|f|/|sluice-step",
	    "local shell run: args only as environment, cwd applied");
	free(out);
	tool_cmd_free(&cmd);

	tap_is_int(build("{\"start\": {\"run\": [\"/bin/sh\", \"-c\","
	    " \"printf '%s|' \\\"$@\\\"\", \"sh\", \"{{args.a}}\","
	    " \"{{args.b}}\","
	    " \"{{input.obj}}\"], \"args\": {\"a\": \"$(id)\", \"b\": \"\"}}}",
	    NULL, "start", &ctx, &cmd, &cause), 0, "local run builds");
	out = run_capture((const char *const *)cmd.argv,
	    (const char *const *)cmd.envp, cmd.cwd);
	tap_is(out, "$(id)||{\"k\":[1,2]}|",
	    "local run: interpolated values are argv elements");
	free(out);
	tool_cmd_free(&cmd);
}

/* One retry case: a step retry, a tool retry, an attempt and a draw. */
struct retry_case {
	const char	*step;		/* retry object, NULL: none */
	const char	*tool;		/* retry object, NULL: none */
	int		 n;
	uint32_t	 rnd;
	int64_t		 want;
	int		 attempts;
};

static const struct retry_case retry_cases[] = {
	{ NULL, NULL, 1, 0, 5000, 3 },			/* defaults */
	{ NULL, NULL, 2, 0, 30000, 3 },
	{ NULL, NULL, 3, UINT32_MAX, 60000, 3 },
	{ NULL, NULL, 4, 0, 60000, 3 },			/* repeat */
	{ NULL, NULL, 0, 0, 5000, 3 },			/* n < 1 */
	{ NULL, NULL, -5, 0, 5000, 3 },
	{ "{\"max_attempts\": 5, \"backoff\": [\"1s\", \"2s\"]}", NULL,
	  1, 0, 1000, 5 },
	{ "{\"max_attempts\": 5, \"backoff\": [\"1s\", \"2s\"]}", NULL,
	  2, 0, 2000, 5 },
	{ "{\"max_attempts\": 5, \"backoff\": [\"1s\", \"2s\"]}", NULL,
	  3, 0, 2000, 5 },					/* repeat */
	{ "{\"max_attempts\": 5, \"backoff\": [\"1s\", \"2s\"]}", NULL,
	  INT_MAX, 0, 2000, 5 },
	{ "{\"max_attempts\": 1}", NULL, 1, 0, 5000, 1 },
	{ "{\"max_attempts\": 4, \"backoff\": [250]}", NULL, 2, 0, 250000, 4 },
	{ "{\"base\": \"2s\", \"factor\": 2}", NULL, 1, 0, 2000, 3 },
	{ "{\"base\": \"2s\", \"factor\": 2}", NULL, 2, 0, 4000, 3 },
	{ "{\"base\": \"2s\", \"factor\": 2}", NULL, 3, 0, 8000, 3 },
	{ "{\"base\": \"2s\", \"factor\": 2}", NULL, 10, 0, 1024000, 3 },
	{ "{\"base\": \"2s\"}", NULL, 3, 0, 8000, 3 },	/* factor 2 */
	{ "{\"base\": \"1s\", \"factor\": 1.5}", NULL, 3, 0, 2250, 3 },
	{ "{\"base\": \"2s\", \"factor\": 2, \"max\": \"5m\"}", NULL,
	  8, 0, 256000, 3 },
	{ "{\"base\": \"2s\", \"factor\": 2, \"max\": \"5m\"}", NULL,
	  9, 0, 300000, 3 },					/* cap */
	{ "{\"base\": \"2s\", \"factor\": 2, \"max\": \"5m\"}", NULL,
	  INT_MAX, 0, 300000, 3 },
	{ "{\"base\": \"10s\", \"factor\": 1, \"jitter\": 0.1}", NULL,
	  1, 0, 9000, 3 },					/* jitter */
	{ "{\"base\": \"10s\", \"factor\": 1, \"jitter\": 0.1}", NULL,
	  1, UINT32_MAX, 11000, 3 },
	{ "{\"base\": \"10s\", \"factor\": 1, \"jitter\": 0.1}", NULL,
	  1, UINT32_MAX / 2, 10000, 3 },
	{ "{\"base\": \"10s\", \"factor\": 1, \"jitter\": 1}", NULL,
	  1, 0, 0, 3 },					/* never < 0 */
	{ "{\"base\": \"10s\", \"factor\": 1, \"jitter\": 1}", NULL,
	  1, UINT32_MAX, 20000, 3 },
	{ "{\"base\": \"10s\", \"max\": \"10s\", \"jitter\": 0.5}", NULL,
	  1, UINT32_MAX, 10000, 3 },			/* cap again */
	{ "{\"base\": \"10s\", \"max\": \"10s\", \"jitter\": 0.5}", NULL,
	  1, 0, 5000, 3 },
	{ "{\"base\": \"10s\", \"max\": \"10s\", \"jitter\": 0.5}", NULL,
	  5, 0, 5000, 3 },
	{ "{\"base\": \"1d\", \"factor\": 100}", NULL,
	  1000, 0, FLOW_DURATION_MAX, 3 },			/* overflow */
	{ "{\"base\": \"1d\", \"factor\": 100}", NULL,
	  INT_MAX, 0, FLOW_DURATION_MAX, 3 },
	{ "{\"base\": \"1d\", \"factor\": 100, \"jitter\": 1}", NULL,
	  INT_MAX, UINT32_MAX, FLOW_DURATION_MAX, 3 },
	{ "{\"base\": \"1d\", \"factor\": 100, \"jitter\": 1}", NULL,
	  INT_MAX, 0, 0, 3 },
	{ "{\"base\": \"300d\", \"factor\": 1.5}", NULL,
	  2, 0, FLOW_DURATION_MAX, 3 },
	{ "{\"base\": \"1s\", \"factor\": 100, \"max\": \"366d\"}", NULL,
	  50, 0, FLOW_DURATION_MAX, 3 },
	{ "{\"max_attempts\": 7, \"backoff\": [\"1s\"]}",
	  "{\"max_attempts\": 2, \"backoff\": [\"9s\"]}", 1, 0, 1000, 7 },
	{ NULL, "{\"max_attempts\": 2, \"backoff\": [\"9s\"]}", 1, 0, 9000, 2 },
	{ NULL, "{\"max_attempts\": 6, \"base\": \"1s\"}", 4, 0, 8000, 6 },
	{ "{\"max_attempts\": 1}", "{\"max_attempts\": 6, \"base\": \"1s\"}",
	  1, 0, 5000, 1 },				/* step wins whole */
};

/* The retry table, each case built from a flow and a catalog. */
static void
test_retry(void)
{
	const struct retry_case	*rc;
	struct flow_diags	*d;
	struct flow		*f;
	struct flow_tools	*t;
	struct retry_policy	 p;
	char			*ft, *tt, *what;
	size_t			 i;
	int			 ok;

	for (i = 0; i < sizeof retry_cases / sizeof retry_cases[0]; i++) {
		rc = &retry_cases[i];
		d = flow_diags_create();
		xasprintf(&ft, "{\"start\": {\"tool\": \"t\"%s%s}}",
		    rc->step != NULL ? ", \"retry\": " : "",
		    rc->step != NULL ? rc->step : "");
		xasprintf(&tt, "{\"t\": {\"run\": [\"x\"]%s%s}}",
		    rc->tool != NULL ? ", \"retry\": " : "",
		    rc->tool != NULL ? rc->tool : "");
		f = flow_parse(ft, strlen(ft), d);
		t = flow_tools_parse(tt, strlen(tt), d);
		if (f == NULL || t == NULL || flow_diags_errors(d) != 0) {
			printf("Bail out! bad retry case %zu\n", i);
			exit(1);
		}
		retry_policy_of(&f->steps[0], flow_tools_find(t, "t"), NULL, &p);
		xasprintf(&what, "retry case %zu: delay", i);
		ok = tap_is_int(retry_delay(&p, rc->n, rc->rnd), rc->want,
		    what);
		free(what);
		xasprintf(&what, "retry case %zu: attempts", i);
		ok &= tap_is_int(retry_max_attempts(&p), rc->attempts, what);
		free(what);
		if (!ok)
			printf("#   step %s, tool %s, n=%d, rnd=%lu\n",
			    rc->step != NULL ? rc->step : "-",
			    rc->tool != NULL ? rc->tool : "-", rc->n,
			    (unsigned long)rc->rnd);
		flow_free(f);
		flow_tools_free(t);
		flow_diags_free(d);
		free(ft);
		free(tt);
	}

	retry_policy_of(NULL, NULL, NULL, &p);
	tap_ok(retry_max_attempts(&p) == FLOW_DEFAULT_ATTEMPTS &&
	    retry_delay(&p, 1, 0) == 5000, "no step, no tool: the defaults");
}

int
main(void)
{
	base_env = strv_dup(base_text);
	scope = json_parse(scope_text, strlen(scope_text), NULL);
	if (scope == NULL) {
		printf("Bail out! bad scope\n");
		return (1);
	}
	test_kinds();
	test_env();
	test_env_ids();
	test_args_env();
	test_cwd_remote();
	test_errors();
	test_too_long();
	test_quote();
	test_remote_real();
	test_local_real();
	test_retry();
	cJSON_Delete(scope);
	strv_free(base_env);
	return (tap_done());
}
