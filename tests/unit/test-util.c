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

/* test-util.c: the util layer: UTF-8, positions, names, buffers, JSON. */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "tap.h"

static void	test_utf8(void);
static void	test_linecol(void);
static void	test_names(void);
static void	test_buf(void);
static void	test_json(void);
static void	test_age(void);
static void	test_sha256(void);
static void	test_mask(void);
static void	test_dlib(void);
static void	test_round(void);

/* Table of byte strings and whether they are valid UTF-8. */
static void
test_utf8(void)
{
	static const struct {
		const char	*s;
		int		 valid;
		size_t		 bad;
	} cases[] = {
		{ "plain ascii", 1, 0 },
		{ "caf\xc3\xa9", 1, 0 },
		{ "\xe6\x97\xa5\xe6\x9c\xac", 1, 0 },		/* CJK */
		{ "\xf0\x9f\x98\x80", 1, 0 },			/* emoji */
		{ "ab\xc3", 0, 2 },				/* cut short */
		{ "\xc0\xaf", 0, 0 },				/* overlong */
		{ "x\xed\xa0\x80", 0, 1 },			/* surrogate */
		{ "\xf4\x90\x80\x80", 0, 0 },			/* > U+10FFFF */
		{ "ok\xff", 0, 2 },
		{ "\x80", 0, 0 },
	};
	size_t	i, bad;
	int	v;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bad = 99;
		v = utf8_valid(cases[i].s, strlen(cases[i].s), &bad);
		tap_ok(v == cases[i].valid, "utf8_valid case %zu", i);
		if (!cases[i].valid)
			tap_is_int((long long)bad, (long long)cases[i].bad,
			    "utf8_valid bad offset");
	}
}

/* Offsets map to 1-based lines and columns. */
static void
test_linecol(void)
{
	const char	*t = "ab\ncd\n\nef";
	int		 l, c;

	str_linecol(t, 0, &l, &c);
	tap_ok(l == 1 && c == 1, "offset 0 is 1:1");
	str_linecol(t, 4, &l, &c);
	tap_ok(l == 2 && c == 2, "offset 4 is 2:2");
	str_linecol(t, 7, &l, &c);
	tap_ok(l == 4 && c == 1, "offset 7 is 4:1");
}

/* Environment names, identifiers and integers. */
static void
test_names(void)
{
	char	*s;
	int64_t	 v;

	s = str_env_name("SLUICE_ARG", "db-host.name");
	tap_is(s, "SLUICE_ARG_DB_HOST_NAME", "env name upper-cased, _ for "
	    "other characters");
	free(s);
	s = str_env_name("SLUICE_ARG", "caf\xc3\xa9");
	tap_is(s, "SLUICE_ARG_CAF__", "non-ASCII bytes become _");
	free(s);
	tap_ok(str_is_identifier("step_1-a"), "identifier");
	tap_ok(!str_is_identifier("1step"), "not an identifier");
	tap_ok(!str_is_identifier("a.b"), "dot is not in identifiers");
	tap_ok(str_parse_int64("42", &v) == 0 && v == 42, "int 42");
	tap_ok(str_parse_int64("4x", &v) != 0, "4x refused");
	tap_ok(str_parse_int64("", &v) != 0, "empty refused");
	tap_ok(str_parse_int64("99999999999999999999", &v) != 0,
	    "overflow refused");
}

/* Buffers grow linearly and stay NUL-terminated. */
static void
test_buf(void)
{
	struct buf	 b;
	char		*s;
	int		 i;

	buf_init(&b);
	for (i = 0; i < 10000; i++)
		buf_putc(&b, 'x');
	tap_is_int((long long)b.len, 10000, "10000 bytes appended");
	tap_ok(b.data[b.len] == '\0', "NUL-terminated");
	buf_reset(&b);
	buf_printf(&b, "%d-%s", 7, "up");
	s = buf_release(&b);
	tap_is(s, "7-up", "printf then release");
	free(s);
	tap_ok(b.data == NULL && b.len == 0, "released buffer is empty");
	s = buf_release(&b);
	tap_is(s, "", "releasing an empty buffer gives \"\"");
	free(s);
}

/* JSON parse errors carry a line and column and a reason. */
static void
test_json(void)
{
	static const struct {
		const char	*text;
		const char	*cause;
	} bad[] = {
		{ "{\n  \"a\": 1,\n}", "line 3, column 1: unexpected closing "
		    "bracket (trailing comma?)" },
		{ "{\"a\": 'x'}", "line 1, column 7: strings must use double "
		    "quotes" },
		{ "", "line 1, column 1: empty document" },
		{ "{\"a\": 1} x", "line 1, column 10: unexpected text after "
		    "the document" },
		{ "{\"a\": tru}", "line 1, column 7: unexpected word "
		    "(strings need double quotes)" },
		{ "{\"a\":", "line 1, column 6: unexpected end of document" },
	};
	cJSON	*v;
	char	*cause, *s;
	size_t	 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		v = json_parse(bad[i].text, strlen(bad[i].text), &cause);
		tap_ok(v == NULL, "bad JSON %zu refused", i);
		tap_is(cause, bad[i].cause, "bad JSON reason and place");
		free(cause);
	}
	v = json_parse(" {\"a\": [1, true]} \n", 19, &cause);
	tap_ok(v != NULL, "good JSON with white space parses");
	s = json_print(v);
	tap_is(s, "{\"a\":[1,true]}", "compact print");
	free(s);
	tap_is(json_type_name(v), "an object", "type name");
	cJSON_Delete(v);
}

/*
 * round_int64 rounds as llround does: halfway cases away from zero, and
 * the largest double below one half down (x + 0.5 would round it up).
 */
static void
test_round(void)
{
	static const double	 cases[] = {
		0, 0.4, 0.5, 0.6, 1.5, 2.5, 3.49, -0.4, -0.5, -0.6, -1.5,
		-2.5, 0.49999999999999994, -0.49999999999999994,
		4503599627370495.5, 4503599627370497.0, 9007199254740993.0,
		-4503599627370495.5, 1234.5, 31622400000.5, 999.9999999,
		1e18, -1e18
	};
	char			 what[96];
	size_t			 i;
	double			 x;

	for (i = 0; i < nitems(cases); i++) {
		snprintf(what, sizeof what, "round_int64(%.17g) is llround's",
		    cases[i]);
		tap_is_int(round_int64(cases[i]), llround(cases[i]), what);
	}
	/* Every tenth of a millisecond of a few seconds, as durations are. */
	for (i = 0; i < 100000; i++) {
		x = (double)i * 0.1 * 1.0000001;
		if (round_int64(x) != llround(x) ||
		    round_int64(-x) != llround(-x))
			break;
	}
	tap_is_int((long long)i, 100000,
	    "round_int64 agrees with llround on 100000 steps of 0.1");
}

/* Ages are short and never negative. */
static void
test_age(void)
{
	char	b[16];

	tap_is(time_age(42000, b, sizeof b), "42s", "42s");
	tap_is(time_age(3 * 60000 + 5, b, sizeof b), "3m", "3m");
	tap_is(time_age(5 * 3600000LL, b, sizeof b), "5h", "5h");
	tap_is(time_age(2 * 86400000LL, b, sizeof b), "2d", "2d");
	tap_is(time_age(-5, b, sizeof b), "0s", "negative is 0s");
}

/* SHA-256 against FIPS 180-4's examples and the NIST byte vectors. */
static void
test_sha256(void)
{
	static const struct {
		const char	*in;
		size_t		 repeat;
		const char	*want;
	} cases[] = {
		{ "", 1, "e3b0c44298fc1c149afbf4c8996fb924"
		    "27ae41e4649b934ca495991b7852b855" },
		{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223"
		    "b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		    "248d6a61d20638b8e5c026930c3e6039"
		    "a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 1,
		    "cf5b16a778af8380036ce59e7b0492370"
		    "b249b11e8f07a51afac45037afee9d1" },
		{ "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67"
		    "f1809a48a497200e046d39ccc7112cd0" },
		/* 55, 56 and 64 bytes: the padding's edge cases. */
		{ "a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9a"
		    "e9b0a925a5258e241c9f1e910f734318" },
		{ "a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f"
		    "590ce20f1bde7090ef7970686ec6738a" },
		{ "a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209"
		    "f439851db43d0ba5997337df154668eb" },
	};
	struct sha256	 c;
	char		 hex[SHA256_HEX];
	size_t		 i, k, len;

	for (i = 0; i < nitems(cases); i++) {
		sha256_init(&c);
		len = strlen(cases[i].in);
		if (cases[i].repeat > 1000) {
			/* A million 'a's, fed in uneven pieces. */
			char	 block[1000];

			memset(block, 'a', sizeof block);
			for (k = 0; k < cases[i].repeat; k += 1000)
				sha256_update(&c, block, sizeof block);
		} else {
			for (k = 0; k < cases[i].repeat; k++)
				sha256_update(&c, cases[i].in, len);
		}
		sha256_hex(&c, hex);
		tap_is(hex, cases[i].want, "sha256 vector");
	}
}

int
main(void)
{
	test_utf8();
	test_linecol();
	test_names();
	test_buf();
	test_json();
	test_age();
	test_sha256();
	test_mask();
	test_dlib();
	test_round();
	return (tap_done());
}

/* Secret values as ***: text, JSON, and a stream fed in pieces. */
static void
test_mask(void)
{
	struct mask	*m;
	struct buf	 carry, out;
	char		*s;
	const char	*text = "a hunter2 b hunter2";
	char		 what[64];
	size_t		 cut;

	m = mask_create();
	mask_add(m, "abc", 3);
	tap_ok(mask_empty(m), "a value under 4 bytes is not masked");
	mask_add(m, "hunter2", 7);
	mask_add(m, "hunter2xyz", 10);
	s = mask_text(m, "x hunter2 y hunter2xyz z");
	tap_is(s, "x *** y *** z", "text: each value, the longest first");
	free(s);
	s = mask_json(m, "{\"k\": [\"hunter2\", 1], \"hunter2\": true}");
	tap_is(s, "{\"k\":[\"***\",1],\"***\":true}",
	    "JSON: strings and keys");
	free(s);
	/* Every cut of the text into two writes. */
	for (cut = 0; cut <= strlen(text); cut++) {
		buf_init(&carry);
		buf_init(&out);
		mask_stream(m, &carry, text, cut, 0, &out);
		mask_stream(m, &carry, text + cut, strlen(text) - cut, 0,
		    &out);
		mask_stream(m, &carry, "", 0, 1, &out);
		snprintf(what, sizeof what, "stream cut at %zu", cut);
		tap_is(out.data, "a *** b ***", what);
		buf_free(&carry);
		buf_free(&out);
	}
	buf_init(&carry);
	buf_init(&out);
	mask_stream(m, &carry, "hun", 3, 0, &out);
	tap_is_int((long long)out.len, 0, "a value's start is held back");
	mask_stream(m, &carry, "gry\n", 4, 0, &out);
	tap_is(out.data, "hungry\n", "and let go when it is not one");
	buf_free(&carry);
	buf_free(&out);
	mask_free(m);
}

/*
 * A library loaded when first needed: every function found, or none and
 * why (no such library; one of the functions missing), and once loaded
 * not loaded again.
 */
static void
test_dlib(void)
{
	struct fns {
		size_t	(*strlen)(const char *);
		int	(*atoi)(const char *);
	}				 t, before;
	static const char *const	 libc[] = { "libc.so.6", NULL };
	static const char *const	 none[] = { "libsluice-none.so.9",
	    "libsluice-none.so", NULL };
	static const struct dlib_sym	 syms[] = {
		{ "strlen", offsetof(struct fns, strlen) },
		{ "atoi", offsetof(struct fns, atoi) },
	};
	static const struct dlib_sym	 missing[] = {
		{ "strlen", offsetof(struct fns, strlen) },
		{ "sluice_no_such_function", offsetof(struct fns, atoi) },
	};
	struct dlib			 lib = { libc, syms, nitems(syms), &t,
	    sizeof t, "the test needs libc", NULL };
	struct dlib			 gone = { none, syms, nitems(syms), &t,
	    sizeof t, "the test needs libsluice-none", NULL };
	struct dlib			 old = { libc, missing, nitems(missing),
	    &t, sizeof t, "the test needs a newer libc", NULL };
	char				*cause = NULL;
	int				 rc;

	memset(&t, 0, sizeof t);
	tap_ok(dlib_need(&lib, &cause) == 0 && cause == NULL &&
	    lib.handle != NULL, "dlib: libc loads");
	tap_ok(t.strlen != NULL && t.strlen("four") == 4 &&
	    t.atoi != NULL && t.atoi("42") == 42, "dlib: its functions work");
	memset(&t, 0, sizeof t);
	tap_ok(dlib_need(&lib, &cause) == 0 && t.strlen == NULL,
	    "dlib: loaded once, not again");

	before = t;
	rc = dlib_need(&gone, &cause);
	tap_ok(rc == -1 && cause != NULL &&
	    strncmp(cause, "the test needs libsluice-none: cannot load "
	    "libsluice-none.so.9", 62) == 0,
	    "dlib: a library that is not there: %s",
	    cause != NULL ? cause : "(no reason)");
	tap_ok(gone.handle == NULL && memcmp(&t, &before, sizeof t) == 0,
	    "dlib: the table is left");
	free(cause);
	cause = NULL;

	rc = dlib_need(&old, &cause);
	tap_ok(rc == -1 && cause != NULL &&
	    strstr(cause, "has no sluice_no_such_function") != NULL,
	    "dlib: a function missing: %s",
	    cause != NULL ? cause : "(no reason)");
	tap_ok(old.handle == NULL && memcmp(&t, &before, sizeof t) == 0,
	    "dlib: none of the table is filled when one is missing");
	free(cause);
}
