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
 * test-cond.c: branch conditions.  The reference engine's six forms keep
 * its loose rules; the extensions (fields, numbers, ordering, exit_code,
 * && || ! and parentheses, steps. and input. paths) behave as documented;
 * bad conditions are refused at the right column; hostile input is refused
 * without crashing.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

/* Evaluate cond with result set to the JSON text r (NULL: missing). */
static int	eval_with(const char *, const char *, const char *);

static const char *base_scope =
    "{\"exit_code\": 0,"
    " \"input\": {\"env\": \"prod\", \"count\": 3, \"tags\": [\"a\", \"b\"],"
    "   \"a.b\": \"dotted\", \"odd key\": 1},"
    " \"steps\": {\"check\": {\"result\": {\"status\": \"ok\", \"n\": 5},"
    "   \"exit_code\": 0}, \"deploy.eu\": {\"result\": \"done\"},"
    "   \"probe\": {\"result\": [10, 20, 30], \"exit_code\": 2}},"
    " \"workflow\": {\"id\": 42, \"name\": \"nightly\"}}";

static const struct {
	const char	*cond;
	const char	*result;	/* JSON, NULL for missing */
	int		 want;
} cases[] = {
	/* The reference's unquoted form: the rest is a string. */
	{ "result == yes", "\"yes\"", 1 },
	{ "result == yes", "\"no\"", 0 },
	{ "result != yes", "\"no\"", 1 },
	{ "result.status == ok", "{\"status\": \"ok\"}", 1 },
	{ "result == tru", "\"tru\"", 1 },
	{ "result == tru", "true", 0 },
	/* The reference's six forms, with its loose rules. */
	{ "result == true", "true", 1 },
	{ "result == true", "\"true\"", 1 },
	{ "result == true", "false", 0 },
	{ "result == true", "1", 0 },
	{ "result == true", "\"yes\"", 0 },
	{ "result == true", NULL, 0 },
	{ "result == false", "false", 1 },
	{ "result == false", "\"false\"", 1 },
	{ "result == false", "true", 0 },
	{ "result == false", "null", 0 },
	{ "result == false", "0", 0 },
	{ "result == nil", "null", 1 },
	{ "result == nil", NULL, 1 },
	{ "result == nil", "\"\"", 1 },
	{ "result == nil", "\"nil\"", 1 },
	{ "result == nil", "false", 0 },
	{ "result == nil", "0", 0 },
	{ "result == nil", "\"x\"", 0 },
	{ "result == null", "null", 1 },
	{ "result != nil", "null", 0 },
	{ "result != nil", "\"\"", 0 },
	{ "result != nil", "\"nil\"", 0 },
	{ "result != nil", "\"x\"", 1 },
	{ "result != nil", "false", 1 },
	{ "result != nil", "{}", 1 },
	{ "result == \"yes\"", "\"yes\"", 1 },
	{ "result == \"yes\"", "\"no\"", 0 },
	{ "result == \"yes\"", "\"\\\"yes\\\"\"", 0 },
	{ "result == \"5\"", "5", 0 },
	{ "result == 5", "\"5\"", 0 },
	{ "result != \"yes\"", "\"no\"", 1 },
	{ "result != \"yes\"", "\"yes\"", 0 },
	{ "result != \"yes\"", NULL, 1 },
	{ "result == 'yes'", "\"yes\"", 1 },
	{ "result == \"a\\\"b\"", "\"a\\\"b\"", 1 },
	{ "result == 'it\\'s'", "\"it's\"", 1 },
	{ "result == \"\\u00e9\"", "\"\xc3\xa9\"", 1 },
	{ "true == result", "\"true\"", 1 },
	{ "nil == result", NULL, 1 },
	{ "result==true", "true", 1 },
	/* Field access and numbers. */
	{ "result.status == \"ok\"", "{\"status\": \"ok\"}", 1 },
	{ "result.status == \"ok\"", "{\"status\": \"bad\"}", 0 },
	{ "result.status == \"ok\"", "\"ok\"", 0 },
	{ "result.missing == nil", "{}", 1 },
	{ "result.a.b.c == 1", "{\"a\": {\"b\": {\"c\": 1}}}", 1 },
	{ "result.items.1 == \"y\"", "{\"items\": [\"x\", \"y\"]}", 1 },
	{ "result.items.5 == nil", "{\"items\": [\"x\"]}", 1 },
	{ "result.\"odd key\" == 1", "{\"odd key\": 1}", 1 },
	{ "result == 3", "3", 1 },
	{ "result == 3", "3.0", 1 },
	{ "result == -2.5", "-2.5", 1 },
	{ "result == 1e3", "1000", 1 },
	{ "result > 2", "3", 1 },
	{ "result > 2", "2", 0 },
	{ "result >= 2", "2", 1 },
	{ "result < 2", "1.5", 1 },
	{ "result <= 1.5", "1.5", 1 },
	{ "result < 2", "\"1\"", 0 },
	{ "result > 2", NULL, 0 },
	{ "result < \"b\"", "\"a\"", 1 },
	{ "result > \"b\"", "\"a\"", 0 },
	{ "result == {}", "{}", -1 },
	{ "result.n > 4", "{\"n\": 5}", 1 },
	{ "result == [1]", NULL, -1 },
	/* Deep equality between paths. */
	{ "result == steps.check.result", "{\"n\": 5, \"status\": \"ok\"}",
	  1 },
	{ "result == input.tags", "[\"a\", \"b\"]", 1 },
	{ "result == input.tags", "[\"b\", \"a\"]", 0 },
	/* exit_code, boolean operators, precedence. */
	{ "exit_code == 0", NULL, 1 },
	{ "exit_code != 0", NULL, 0 },
	{ "exit_code == 0 && result == true", "true", 1 },
	{ "exit_code == 0 && result == true", "false", 0 },
	{ "exit_code == 1 || result == true", "true", 1 },
	{ "exit_code == 1 || result == false", "true", 0 },
	{ "!(result == true)", "false", 1 },
	{ "!result", "false", 1 },
	{ "!result", "\"\"", 1 },
	{ "!result", "0", 1 },
	{ "!result", NULL, 1 },
	{ "!!result", "\"x\"", 1 },
	{ "result", "[]", 1 },
	{ "result", "\"false\"", 1 },
	{ "result", "0.5", 1 },
	{ "true || false && false", NULL, 1 },
	{ "(true || false) && false", NULL, 0 },
	{ "false && true || true", NULL, 1 },
	{ "false && (true || true)", NULL, 0 },
	{ "!false && !false", NULL, 1 },
	{ "!(true && false) || false", NULL, 1 },
	{ "((((result == 1))))", "1", 1 },
	{ "(result == 1) == true", "1", 1 },
	{ "result == 1 && result != 2 && result < 5 && result >= 1", "1", 1 },
	{ "result == 1 || result == 2 || result == 3 || result == 4", "4", 1 },
	/* steps., input., workflow. paths. */
	{ "steps.check.result.status == \"ok\"", NULL, 1 },
	{ "steps.check.result.n >= 5", NULL, 1 },
	{ "steps.probe.exit_code == 2", NULL, 1 },
	{ "steps.probe.result.2 == 30", NULL, 1 },
	{ "steps.deploy.eu.result == \"done\"", NULL, 1 },
	{ "steps.nope.result == nil", NULL, 1 },
	{ "steps.nope.result.x.y == nil", NULL, 1 },
	{ "input.env == \"prod\"", NULL, 1 },
	{ "input.env != \"prod\"", NULL, 0 },
	{ "input.count > 2 && input.count < 4", NULL, 1 },
	{ "input.a.b == \"dotted\"", NULL, 1 },
	{ "input.\"odd key\" == 1", NULL, 1 },
	{ "input.tags.0 == \"a\"", NULL, 1 },
	{ "workflow.id == 42", NULL, 1 },
	{ "workflow.name == \"nightly\"", NULL, 1 },
	{ "  result  ==  true  ", "true", 1 },
	{ "result\t==\vtrue", "true", 1 },
};

static const struct {
	const char	*cond;
	const char	*cause;
} bad[] = {
	{ "", "column 1: empty condition" },
	{ "   ", "column 4: empty condition" },
	{ "result ==", "column 8: expected a value after '=='" },
	{ "result == ", "column 8: expected a value after '=='" },
	{ "result != )", "column 11: expected a value after '!=', got ')'" },
	{ "a \"unterminated", "column 1: unknown name \"a\"" },
	{ "result == \"abc", "column 11: unterminated string" },
	{ "result == 'abc", "column 11: unterminated string" },
	{ "result = true", "column 8: use '==' to compare" },
	{ "result == true extra", "column 16: unexpected \"extra\"" },
	{ "result == true)", "column 15: unexpected ')'" },
	{ "(result == true", "column 16: expected ')' to close the '(' at "
	  "column 1" },
	{ "foo == 1", "column 1: unknown name \"foo\" (use result, exit_code, "
	  "input, steps, workflow)" },
	{ "result & true", "column 8: use '&&'" },
	{ "result | true", "column 8: use '||'" },
	{ "result &&", "column 8: expected a value after '&&'" },
	{ "|| result", "column 1: expected a value, got '||'" },
	{ "result ||", "column 8: expected a value after '||'" },
	{ "!", "column 1: expected a value after '!'" },
	{ "()", "column 2: expected a value after '(', got ')'" },
	{ "result == 1.", "column 11: bad number" },
	{ "result == 12abc", "column 11: bad number" },
	{ "result == -", "column 11: bad number" },
	{ "result == 1 == 1", "column 13: unexpected '=='" },
	{ "result. == 1", "column 7: expected a name after '.'" },
	{ "result.a..b == 1", "column 9: expected a name after '.'" },
	{ "result == \"\\x\"", "column 11: bad escape" },
	{ "result == @", "column 11: expected a value after '==', got '@'" },
	{ "result == \xff", "column 11: expected a value after '==', got "
	  "byte 0xff" },
	{ "result \xfe== 1", "column 8: unexpected byte 0xfe" },
	{ "true.x", "column 1: unknown name \"true\"" },
	{ "result == true;", "column 15: unexpected ';'" },
	{ "exit_code >", "column 11: expected a value after '>'" },
};

static int
eval_with(const char *cond, const char *result, const char *scope_text)
{
	struct cond	*c;
	cJSON		*scope, *r;
	char		*cause = NULL;
	int		 v;

	if ((c = cond_parse(cond, &cause)) == NULL) {
		printf("#   parse: %s\n", cause);
		free(cause);
		return (-1);
	}
	scope = cJSON_Parse(scope_text);
	if (result != NULL) {
		r = cJSON_Parse(result);
		if (r == NULL) {
			printf("#   bad test result %s\n", result);
			r = cJSON_CreateNull();
		}
		cJSON_AddItemToObject(scope, "result", r);
	}
	v = cond_eval(c, scope);
	cJSON_Delete(scope);
	cond_free(c);
	return (v);
}

int
main(void)
{
	struct cond	 *c;
	struct buf	  b;
	const char	**refs;
	char		 *cause, *big, what[256];
	size_t		  i, n, len;
	int		  got;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = eval_with(cases[i].cond, cases[i].result, base_scope);
		snprintf(what, sizeof what, "%s with result %s is %s",
		    cases[i].cond, cases[i].result ? cases[i].result :
		    "missing", cases[i].want == 1 ? "true" :
		    cases[i].want == 0 ? "false" : "refused");
		tap_is_int(got, cases[i].want, what);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		c = cond_parse(bad[i].cond, &cause);
		snprintf(what, sizeof what, "refuses [%s]: %s", bad[i].cond,
		    bad[i].cause);
		if (!tap_ok(c == NULL && cause != NULL &&
		    strncmp(cause, bad[i].cause, strlen(bad[i].cause)) == 0,
		    "%s", what))
			printf("#   got: %s\n", cause ? cause : "(null)");
		cond_free(c);
		free(cause);
	}

	/* exit_code is read only as a name, never found in text. */
	c = cond_parse("result == \"exit_code\"", &cause);
	tap_ok(c != NULL && !cond_reads(c, "exit_code"),
	    "a string \"exit_code\" does not read exit_code");
	cond_free(c);
	c = cond_parse("steps.x.exit_code == 1", &cause);
	tap_ok(c != NULL && !cond_reads(c, "exit_code"),
	    "steps.x.exit_code is another step's");
	cond_free(c);
	c = cond_parse("result == 1 || !(exit_code > 2)", &cause);
	tap_ok(c != NULL && cond_reads(c, "exit_code"), "exit_code is read");
	cond_free(c);
	c = cond_parse("yes == result", &cause);
	tap_ok(c == NULL, "a bare word on the left is refused");
	free(cause);

	/* References a condition reads, for check.c. */
	c = cond_parse("steps.a.result == 1 && (input.x || !steps.b.c)",
	    &cause);
	cond_refs(c, &refs, &n);
	tap_is_int((long long)n, 3, "three references");
	tap_is(n > 0 ? refs[0] : NULL, "steps.a.result", "first reference");
	tap_is(n > 2 ? refs[2] : NULL, "steps.b.c", "third reference");
	cond_free(c);
	c = cond_parse("result == true", &cause);
	cond_refs(c, &refs, &n);
	tap_ok(n == 1 && strcmp(refs[0], "result") == 0, "result is a ref");
	cond_free(c);

	/* Hostile input. */
	len = 10000;
	big = xmalloc(2 * len + 16);
	memset(big, '(', len);
	strcpy(big + len, "true");
	memset(big + len + 4, ')', len);
	big[2 * len + 4] = '\0';
	cause = NULL;
	c = cond_parse(big, &cause);
	tap_ok(c == NULL && cause != NULL &&
	    strstr(cause, "nesting too deep (max 64)") != NULL,
	    "10,000 nested parentheses are refused");
	free(cause);
	memset(big, '!', len);
	strcpy(big + len, "true");
	cause = NULL;
	c = cond_parse(big, &cause);
	tap_ok(c == NULL && cause != NULL && strstr(cause, "nesting") != NULL,
	    "10,000 nested ! are refused");
	free(cause);
	free(big);

	memset(what, '(', 64);
	strcpy(what + 64, "true");
	memset(what + 68, ')', 64);
	what[132] = '\0';
	c = cond_parse(what, &cause);
	tap_ok(c != NULL && cond_eval(c, NULL) == 1,
	    "64 nested parentheses are fine");
	cond_free(c);

	len = 1024 * 1024;
	big = xmalloc(len + 64);
	strcpy(big, "result == \"");
	memset(big + 11, 'x', len);
	strcpy(big + 11 + len, "\"");
	c = cond_parse(big, &cause);
	tap_ok(c != NULL, "a 1 MB string literal parses");
	tap_ok(c != NULL && cond_eval(c, NULL) == 0, "and compares false");
	cond_free(c);
	big[11 + len] = '\0';
	cause = NULL;
	c = cond_parse(big, &cause);
	tap_ok(c == NULL && cause != NULL &&
	    strcmp(cause, "column 11: unterminated string") == 0,
	    "an unterminated 1 MB string is refused at its quote");
	free(cause);

	/* Long || chains do not recurse. */
	buf_init(&b);
	for (i = 0; i < 20000; i++)
		buf_puts(&b, "true || ");
	buf_puts(&b, "false");
	c = cond_parse(b.data, &cause);
	buf_free(&b);
	tap_ok(c != NULL && cond_eval(c, NULL) == 1,
	    "a chain of 20,000 || parses and evaluates");
	cond_free(c);

	/* Garbage: every printable byte mix that is not a condition. */
	for (i = 0; i < 200; i++) {
		for (n = 0; n < 40; n++)
			big[n] = (char)(33 + ((i * 7919 + n * 104729) % 94));
		big[40] = '\0';
		c = cond_parse(big, &cause);
		if (c == NULL)
			free(cause);
		cond_eval(c, NULL);
		cond_free(c);
	}
	tap_ok(1, "200 garbage conditions do not crash");
	free(big);

	tap_ok(cond_eval(NULL, NULL) == 0, "NULL condition is false");
	c = cond_parse("result == nil", NULL);
	tap_ok(c != NULL && cond_eval(c, NULL) == 1,
	    "NULL scope: result is missing");
	cond_free(c);
	return (tap_done());
}
