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
 * input.c: a workflow's input from the command line: -i KEY=VAL gives
 * text, read as the input's declared type when the template declares one
 * (flow_doc_input_text), -i KEY:=JSON a typed value, --input FILE.json a
 * whole object.  Commands that take them declare -i as "i" and --input
 * as "input".
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"

static void	cli_input_set(cJSON *, const char *, cJSON *);

/* Set obj[key] = v, replacing an earlier value of the same key. */
static void
cli_input_set(cJSON *obj, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
	else
		cJSON_AddItemToObject(obj, key, v);
}

/*
 * Add one -i argument to the input object, and note in texts (may be
 * NULL) whether it was given as text; -1 with a cause if malformed.
 */
int
cli_input_pair(cJSON *obj, cJSON *texts, const char *arg, char **cause)
{
	const char	*eq;
	char		*key, *perr = NULL;
	cJSON		*v;
	int		 typed;

	if ((eq = strchr(arg, '=')) == NULL || eq == arg) {
		xasprintf(cause, "-i %s: expected KEY=VALUE or KEY:=JSON", arg);
		return (-1);
	}
	typed = (eq[-1] == ':');
	key = xstrndup(arg, (size_t)(eq - arg) - (typed ? 1 : 0));
	if (*key == '\0') {
		xasprintf(cause, "-i %s: empty key", arg);
		free(key);
		return (-1);
	}
	if (!utf8_valid(eq + 1, strlen(eq + 1), NULL)) {
		xasprintf(cause, "-i %s: value is not valid UTF-8", key);
		free(key);
		return (-1);
	}
	if (typed) {
		v = json_parse(eq + 1, strlen(eq + 1), &perr);
		if (v == NULL) {
			xasprintf(cause, "-i %s:=...: %s", key, perr);
			free(perr);
			free(key);
			return (-1);
		}
	} else
		v = cJSON_CreateString(eq + 1);
	cli_input_set(obj, key, v);
	if (texts != NULL && typed)
		cJSON_DeleteItemFromObjectCaseSensitive(texts, key);
	else if (texts != NULL)
		cli_input_set(texts, key, cJSON_CreateTrue());
	free(key);
	return (0);
}

/* Merge the members of the JSON object in path into the input object. */
int
cli_input_file(cJSON *obj, const char *path, char **cause)
{
	char	*text, *perr = NULL;
	size_t	 len;
	cJSON	*doc, *item, *next;
	char	*key;

	if ((text = file_read(path, SLUICE_MAX_INPUT, &len, cause)) == NULL)
		return (-1);
	if (!utf8_valid(text, len, NULL)) {
		xasprintf(cause, "%s: not valid UTF-8", path);
		free(text);
		return (-1);
	}
	if ((doc = json_parse(text, len, &perr)) == NULL) {
		xasprintf(cause, "%s: %s", path, perr);
		free(perr);
		free(text);
		return (-1);
	}
	free(text);
	if (!cJSON_IsObject(doc)) {
		xasprintf(cause, "%s: $: input must be a JSON object, not %s",
		    path, json_type_name(doc));
		cJSON_Delete(doc);
		return (-1);
	}
	for (item = doc->child; item != NULL; item = next) {
		next = item->next;
		cJSON_DetachItemViaPointer(doc, item);
		key = xstrdup(item->string);	/* cJSON frees item->string */
		cli_input_set(obj, key, item);
		free(key);
	}
	cJSON_Delete(doc);
	return (0);
}

/*
 * The input a parsed command line gives: each --input FILE in order, then
 * each -i in order, so -i wins whatever the order on the line.  A new
 * object, or NULL after printing why not; *texts (a new object) names
 * the keys given as text.
 */
cJSON *
cli_input_args(const struct cli_args *args, cJSON **texts)
{
	cJSON		*input;
	const char	*v;
	char		*cause = NULL;
	size_t		 iter = 0;

	input = cJSON_CreateObject();
	*texts = cJSON_CreateObject();
	while ((v = cli_args_next(args, "input", &iter)) != NULL) {
		if (cli_input_file(input, v, &cause) != 0)
			goto bad;
	}
	iter = 0;
	while ((v = cli_args_next(args, "i", &iter)) != NULL) {
		if (cli_input_pair(input, *texts, v, &cause) != 0)
			goto bad;
	}
	return (input);
bad:
	cli_error("%s", cause);
	free(cause);
	cJSON_Delete(input);
	cJSON_Delete(*texts);
	*texts = NULL;
	return (NULL);
}
