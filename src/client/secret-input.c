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
 * secret-input.c: the values of a template's secret inputs on the
 * command line.  Only -i KEY=@- (standard input) and -i KEY=@FILE give
 * one: a value written on the command line shows in ps to everyone on
 * the machine, and an agent (sluice mcp) may not give one at all.  The
 * values travel apart from the input ("secret_input" of the start
 * command), which holds "***" in their place.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "client/client.h"

static char	*client_secret_read_fd(int, size_t *, char **);
static char	*client_secret_value(const char *, const char *, char **);
static int	 client_secret_keeps_rules(const struct client *,
		     const struct flow_input *, char *);

/* All of a file descriptor, up to the input limit. */
static char *
client_secret_read_fd(int fd, size_t *lenp, char **cause)
{
	struct buf	b;
	char		chunk[4096];
	ssize_t		n;

	buf_init(&b);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_add(&b, chunk, (size_t)n);
		if (b.len > SLUICE_MAX_INPUT)
			break;
	}
	explicit_bzero(chunk, sizeof chunk);
	if (n == -1 || b.len > SLUICE_MAX_INPUT) {
		xasprintf(cause, n == -1 ? "%s" : "larger than 256 KiB",
		    strerror(errno));
		explicit_bzero(b.data, b.len);
		buf_free(&b);
		return (NULL);
	}
	*lenp = b.len;
	return (buf_release(&b));
}

/* The value "@-" or "@FILE" names, one trailing newline dropped. */
static char *
client_secret_value(const char *key, const char *spec, char **cause)
{
	char	*v, *why = NULL;
	size_t	 len = 0;

	if (strcmp(spec, "@-") == 0) {
		if (isatty(STDIN_FILENO))
			fprintf(stderr, "sluice: %s (secret), then ^D: ", key);
		v = client_secret_read_fd(STDIN_FILENO, &len, &why);
	} else
		v = file_read(spec + 1, SLUICE_MAX_INPUT, &len, &why);
	if (v == NULL) {
		xasprintf(cause, "-i %s=%s: %s", key, spec, why);
		free(why);
		return (NULL);
	}
	if (len > 0 && v[len - 1] == '\n')
		v[--len] = '\0';
	if (!utf8_valid(v, len, NULL) || strlen(v) != len) {
		xasprintf(cause, "-i %s=%s: not valid UTF-8 text", key, spec);
		explicit_bzero(v, len);
		free(v);
		return (NULL);
	}
	return (v);
}

/*
 * Does a secret's value keep its declared rules?  0, or an exit status
 * after saying which input broke them, but never how: the reason would
 * quote the value.  The value is wiped and freed when it does not.
 */
static int
client_secret_keeps_rules(const struct client *cl,
    const struct flow_input *in, char *value)
{
	cJSON	*v;
	char	*cause = NULL;
	int	 rc;

	v = cJSON_CreateString(value);
	rc = flow_input_check(in, &v, 1, &cause);
	if (cJSON_IsString(v))
		explicit_bzero(v->valuestring, strlen(v->valuestring));
	cJSON_Delete(v);
	if (cause != NULL) {
		explicit_bzero(cause, strlen(cause));
		free(cause);
	}
	if (rc == 0)
		return (0);
	client_error(cl, "input \"%s\" (secret): the value does not keep the rules "
	    "its declaration gives (not shown: it is secret)", in->key);
	explicit_bzero(value, strlen(value));
	free(value);
	return (EXIT_USAGE);
}

/*
 * Take the secret inputs of doc out of input: each must be "@-" or
 * "@FILE", whose value goes into *secretp (a new object, NULL when there
 * are none) and "***" into input.  0, or an exit status after saying why.
 */
int
client_secret_inputs(const struct client *cl, const struct flow_doc *doc,
    cJSON *input, cJSON **secretp)
{
	const struct flow_input	*in;
	cJSON			*v;
	char			*value, *cause = NULL;
	size_t			 i;

	*secretp = NULL;
	for (i = 0; i < doc->ninputs; i++) {
		in = &doc->inputs[i];
		if (!in->secret || (v = cJSON_GetObjectItemCaseSensitive(input,
		    in->key)) == NULL)
			continue;
		if (cl->actor.via != NULL && strcmp(cl->actor.via,
		    "mcp") == 0) {
			client_error(cl, "refused: input \"%s\" is secret: an agent "
			    "cannot give it (ask a person to run it with -i "
			    "%s=@-)", in->key, in->key);
			goto fail;
		}
		if (!cJSON_IsString(v) || v->valuestring[0] != '@' ||
		    v->valuestring[1] == '\0') {
			client_error(cl, "input \"%s\" is secret: give it as -i %s=@- "
			    "(read from standard input) or -i %s=@FILE, never "
			    "as a value on the command line (ps shows it to "
			    "everyone)", in->key, in->key, in->key);
			goto fail;
		}
		if ((value = client_secret_value(in->key, v->valuestring,
		    &cause)) == NULL) {
			client_error(cl, "%s", cause);
			free(cause);
			goto fail;
		}
		if (client_secret_keeps_rules(cl, in, value) != 0)
			goto fail;
		if (*secretp == NULL)
			*secretp = cJSON_CreateObject();
		cJSON_AddStringToObject(*secretp, in->key, value);
		explicit_bzero(value, strlen(value));
		free(value);
		cJSON_ReplaceItemInObjectCaseSensitive(input, in->key,
		    cJSON_CreateString(MASK_TEXT));
	}
	return (0);
fail:
	client_secret_inputs_free(*secretp);
	*secretp = NULL;
	return (EXIT_USAGE);
}
