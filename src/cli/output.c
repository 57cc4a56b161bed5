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
 * output.c: what commands print: pretty JSON for --json, aligned columns
 * for people, and times as local dates or ages; and whether it all got
 * written (a full disk is an error, not a success with nothing printed).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"


/*
 * Append a JSON string: quotes, backslashes and control characters
 * escaped as JSON wants, every other byte (UTF-8 included) as it is.
 */
static void
cli_json_string(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	json_quote_body(b, s);
	buf_putc(b, '"');
}

/*
 * Append a JSON value as jq prints it: two spaces a level, "key": value,
 * [] and {} when empty.  Numbers are written as cJSON writes them.
 */
static void
cli_json_value(struct buf *b, const cJSON *v, int depth)
{
	const cJSON	*c;
	char		*s;
	int		 object = cJSON_IsObject(v);

	if (!object && !cJSON_IsArray(v)) {
		if (cJSON_IsString(v))
			cli_json_string(b, v->valuestring);
		else {
			if ((s = cJSON_PrintUnformatted(v)) == NULL)
				fatalx("%s: out of memory", __func__);
			buf_puts(b, s);
			free(s);
		}
		return;
	}
	if (v->child == NULL) {
		buf_puts(b, object ? "{}" : "[]");
		return;
	}
	buf_putc(b, object ? '{' : '[');
	for (c = v->child; c != NULL; c = c->next) {
		buf_printf(b, "\n%*s", (depth + 1) * 2, "");
		if (object) {
			cli_json_string(b, c->string != NULL ? c->string : "");
			buf_puts(b, ": ");
		}
		cli_json_value(b, c, depth + 1);
		if (c->next != NULL)
			buf_putc(b, ',');
	}
	buf_printf(b, "\n%*s%c", depth * 2, "", object ? '}' : ']');
}

/* Print a JSON document on stdout, indented as jq does, and free it. */
void
cli_json_out(cJSON *v)
{
	struct buf	 b;

	buf_init(&b);
	cli_json_value(&b, v, 0);
	buf_putc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
	cJSON_Delete(v);
}

/*
 * The character at s (not at its end): its length in bytes, and in *cols
 * the columns it takes on a terminal.  A byte that is not valid text is
 * one byte of one column, and decoding starts afresh after it.
 */
size_t
cli_text_char(const char *s, mbstate_t *ps, int *cols)
{
	wchar_t	 wc;
	size_t	 n;

	n = mbrtowc(&wc, s, MB_CUR_MAX, ps);
	if (n == (size_t)-1 || n == (size_t)-2) {
		memset(ps, 0, sizeof *ps);
		*cols = 1;
		return (1);
	}
	*cols = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
	return (n);
}

/* Columns a string takes on a terminal (bytes if it is not valid text). */
int
cli_text_width(const char *s)
{
	mbstate_t	 ps;
	int		 w = 0, cw;

	memset(&ps, 0, sizeof ps);
	while (*s != '\0') {
		s += cli_text_char(s, &ps, &cw);
		w += cw;
	}
	return (w);
}

/*
 * printf for human output: the whole line is printed with control
 * characters escaped but for one final newline, so names, comments and
 * inputs in it can neither move the cursor nor start a line of their own.
 */
void
cli_printf(const char *fmt, ...)
{
	va_list		 ap;
	struct buf	 b;
	char		*s;
	size_t		 len;
	int		 nl;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	len = strlen(s);
	nl = len > 0 && s[len - 1] == '\n';
	buf_init(&b);
	vis_buf(&b, s, len - nl, 0);
	if (nl)
		buf_putc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
	free(s);
}

/* How long ago a stored time was, or "-". */
const char *
cli_ago(int64_t ms, char *out, size_t len)
{
	if (ms <= 0) {
		snprintf(out, len, "-");
		return (out);
	}
	return (time_age(time_now_ms() - ms, out, len));
}

/*
 * Flush and close stdout at exit: output that could not be written (a
 * full disk, a closed pipe with SIGPIPE ignored) is one line on stderr and
 * a failure, exit 1 unless the command already failed with its own code.
 */
int
cli_stdout_close(int rc)
{
	int	failed = 0, saved = 0;

	if (fflush(stdout) != 0) {
		failed = 1;
		saved = errno;
	}
	if (ferror(stdout))
		failed = 1;	/* an earlier write; its errno is gone */
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed)
		return (rc);
	if (saved != 0)
		fprintf(stderr, "sluice: write error: %s\n", strerror(saved));
	else
		fprintf(stderr, "sluice: write error\n");
	return (rc != EXIT_OK ? rc : EXIT_FAILED);
}
