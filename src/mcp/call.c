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
 * call.c: run one CLI command inside sluice mcp, as if typed: its stdout
 * and stderr go to private temporary files for the while, stdin comes
 * from /dev/null (the protocol's stdin is not the command's), and the
 * result is its exit status, its output and its "sluice: ..." lines.
 * Going through the CLI is the point: a tool reaches the engine by the
 * same request, rule and reasons as a person at the shell.
 */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp-int.h"

#define MCP_OUT_MAX	(8 * 1024 * 1024)	/* a command's output, kept */

static char	*mcp_file_slurp(FILE *, size_t *);
static char	*mcp_err_lines(const char *);

/* Append a copy of s to an argument vector (kept NULL-terminated). */
void
mcp_argv_add(struct mcp_argv *a, const char *s)
{
	a->v = xreallocarray(a->v, a->n + 2, sizeof *a->v);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

/* Free an argument vector. */
void
mcp_argv_free(struct mcp_argv *a)
{
	int	i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* Read a temporary file from its start (at most MCP_OUT_MAX bytes). */
static char *
mcp_file_slurp(FILE *f, size_t *lenp)
{
	struct buf	 b;
	char		 chunk[8192];
	size_t		 n;

	buf_init(&b);
	rewind(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 &&
	    b.len < MCP_OUT_MAX)
		buf_add(&b, chunk, n);
	if (lenp != NULL)
		*lenp = b.len;
	return (buf_release(&b));
}

/* A command's messages, one per line, without their "sluice: " prefix. */
static char *
mcp_err_lines(const char *text)
{
	struct buf	 b;
	const char	*line, *nl;
	size_t		 len;

	buf_init(&b);
	for (line = text; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		len = (size_t)(nl - line);
		if (len > 8 && strncmp(line, "sluice: ", 8) == 0) {
			line += 8;
			len -= 8;
		}
		if (len > 0) {
			if (b.len > 0)
				buf_putc(&b, '\n');
			buf_add(&b, line, len);
		}
		if (*nl == '\0')
			break;
	}
	return (buf_release(&b));
}

/*
 * Run a command (argv[0] is its name) with stdio captured.  Returns its
 * exit status, also in r->rc; -1 when the capture itself failed.
 */
int
mcp_run_cli(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_run *r)
{
	FILE	*out, *err;
	char	**argv, *text;
	int	 saved[3], null, i, ok;

	memset(r, 0, sizeof *r);
	fflush(stdout);
	fflush(stderr);
	out = tmpfile();
	err = tmpfile();
	null = open("/dev/null", O_RDONLY|O_CLOEXEC);
	if (out == NULL || err == NULL || null == -1) {
		xasprintf(&r->err, "cannot capture a command's output: %s",
		    strerror(errno));
		if (out != NULL)
			fclose(out);
		if (err != NULL)
			fclose(err);
		if (null != -1)
			close(null);
		return (r->rc = -1);
	}
	saved[0] = dup(0);
	saved[1] = dup(1);
	saved[2] = dup(2);
	ok = saved[0] != -1 && saved[1] != -1 && saved[2] != -1 &&
	    dup2(null, 0) != -1 && dup2(fileno(out), 1) != -1 &&
	    dup2(fileno(err), 2) != -1;
	close(null);
	/* cli_dispatch replaces argv[0]: give it a copy of the vector. */
	argv = xcalloc(a->n + 1, sizeof *argv);
	for (i = 0; i < a->n; i++)
		argv[i] = a->v[i];
	/*
	 * Each command starts as a fresh process would: a database a read
	 * opened read-only, a tools catalog or site policy read earlier,
	 * must not decide how the next command goes.
	 */
	client_free(ctx);
	if (ok) {
		clearerr(stdout);
		log_debug("%s: %s", __func__, a->v[0]);
		r->rc = cli_dispatch(ctx, a->n, argv);
	} else
		r->rc = -1;
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < 3; i++) {
		if (saved[i] != -1) {
			if (dup2(saved[i], i) == -1)
				fatal("%s: restore descriptor %d", __func__, i);
			close(saved[i]);
		}
	}
	clearerr(stdout);
	free(argv);
	r->out = mcp_file_slurp(out, &r->outlen);
	text = mcp_file_slurp(err, NULL);
	r->err = mcp_err_lines(text);
	if (!ok && r->err[0] == '\0') {
		free(r->err);
		r->err = xstrdup("cannot capture a command's output");
	}
	free(text);
	fclose(out);
	fclose(err);
	return (r->rc);
}

/* Free what a run captured. */
void
mcp_run_free(struct mcp_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}
