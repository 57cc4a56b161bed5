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
 * test-diff.c: the unified diff.  Fixed cases are compared with what GNU
 * "diff -u" prints for the same texts; random pairs check that every diff
 * applies back to its target and is as short as the longest common
 * subsequence allows.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "tap.h"

static void	 test_fixed(void);
static void	 test_random(void);
static char	*apply(const char *, const char *);
static size_t	 lcs(char **, size_t, char **, size_t);
static size_t	 lines(char *, char ***);

/* Texts and the output of GNU diff -u for them (labels a and b). */
static void
test_fixed(void)
{
	static const struct {
		const char	*a, *b, *want, *what;
	} cases[] = {
		{ "x\ny\n", "x\ny\n", NULL, "equal texts give no diff" },
		{ "a\nb\nc\n", "a\nB\nc\n",
		  "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
		  "one changed line" },
		{ "b\nc\n", "a\nb\nc\n",
		  "--- a\n+++ b\n@@ -1,2 +1,3 @@\n+a\n b\n c\n",
		  "a line added at the top" },
		{ "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
		  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n",
		  "--- a\n+++ b\n@@ -9,4 +9,3 @@\n 9\n 10\n 11\n-12\n",
		  "the last line removed, three lines of context" },
		{ "a\nb", "a\nb\n",
		  "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n"
		  "\\ No newline at end of file\n+b\n",
		  "a missing final newline is marked" },
		{ "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
		  "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\nY\n15\n",
		  "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n"
		  "@@ -11,5 +11,5 @@\n 11\n 12\n 13\n-14\n+Y\n 15\n",
		  "changes far apart make two hunks" },
		{ "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
		  "1\nX\n3\n4\n5\n6\n7\nY\n9\n",
		  "--- a\n+++ b\n@@ -1,9 +1,9 @@\n 1\n-2\n+X\n 3\n 4\n 5\n"
		  " 6\n 7\n-8\n+Y\n 9\n",
		  "changes six lines apart share a hunk" },
		{ "", "new\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n",
		  "from nothing" },
		{ "old\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-old\n",
		  "to nothing" },
	};
	size_t	 i;
	char	*got;

	for (i = 0; i < nitems(cases); i++) {
		got = diff_unified(cases[i].a, cases[i].b, "a", "b", 3);
		if (cases[i].want == NULL)
			tap_ok(got == NULL, "%s", cases[i].what);
		else
			tap_is(got, cases[i].want, cases[i].what);
		free(got);
	}
}

/* Cut s (changed in place) into lines; returns the count. */
static size_t
lines(char *s, char ***out)
{
	size_t	 n = 0;
	char	*p;

	*out = xcalloc(strlen(s) + 1, sizeof **out);
	for (p = s; *p != '\0';) {
		(*out)[n++] = p;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		*p++ = '\0';
	}
	return (n);
}

/* Length of the longest common subsequence of two line arrays. */
static size_t
lcs(char **a, size_t n, char **b, size_t m)
{
	size_t	*row, *prev, i, j, best;

	prev = xcalloc(m + 1, sizeof *prev);
	row = xcalloc(m + 1, sizeof *row);
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= m; j++) {
			if (strcmp(a[i - 1], b[j - 1]) == 0)
				row[j] = prev[j - 1] + 1;
			else
				row[j] = row[j - 1] > prev[j] ?
				    row[j - 1] : prev[j];
		}
		memcpy(prev, row, (m + 1) * sizeof *row);
	}
	best = prev[m];
	free(prev);
	free(row);
	return (best);
}

/*
 * Apply a unified diff (as diff_unified writes it, texts ending in a
 * newline) to a; returns the result or NULL when a hunk does not fit.
 */
static char *
apply(const char *a, const char *patch)
{
	struct buf	 out;
	char		*ca, *cp, **la, **lp;
	size_t		 na, np, ia = 0, ip = 2, start;

	ca = xstrdup(a);
	cp = xstrdup(patch);
	na = lines(ca, &la);
	np = lines(cp, &lp);
	buf_init(&out);
	while (ip < np) {
		if (sscanf(lp[ip], "@@ -%zu", &start) != 1)
			goto fail;
		/* "-N,0" names the line before an empty range. */
		if (strstr(lp[ip], ",0 +") == NULL && start > 0)
			start--;
		for (; ia < start && ia < na; ia++)
			buf_printf(&out, "%s\n", la[ia]);
		for (ip++; ip < np && lp[ip][0] != '@'; ip++) {
			if (lp[ip][0] == '+') {
				buf_printf(&out, "%s\n", lp[ip] + 1);
				continue;
			}
			if (ia >= na || strcmp(la[ia], lp[ip] + 1) != 0)
				goto fail;
			if (lp[ip][0] == ' ')
				buf_printf(&out, "%s\n", la[ia]);
			ia++;
		}
	}
	for (; ia < na; ia++)
		buf_printf(&out, "%s\n", la[ia]);
	free(ca);
	free(cp);
	free(la);
	free(lp);
	return (buf_release(&out));
fail:
	buf_free(&out);
	free(ca);
	free(cp);
	free(la);
	free(lp);
	return (NULL);
}

/* Random pairs over a small alphabet: the diff applies and is minimal. */
static void
test_random(void)
{
	struct buf	 a, b;
	char		*d, *back, *ca, *cb, **la, **lb, **ld;
	size_t		 i, j, na, nb, nd, edits, applied = 0, minimal = 0;
	unsigned int	 seed = 20261124;
	const int	 rounds = 400;

	for (i = 0; i < (size_t)rounds; i++) {
		buf_init(&a);
		buf_init(&b);
		na = rand_r(&seed) % 30;
		for (j = 0; j < na; j++)
			buf_printf(&a, "%c\n", 'a' + rand_r(&seed) % 4);
		nb = rand_r(&seed) % 30;
		for (j = 0; j < nb; j++)
			buf_printf(&b, "%c\n", 'a' + rand_r(&seed) % 4);
		buf_putc(&a, '\0');
		buf_putc(&b, '\0');
		d = diff_unified(a.data, b.data, "a", "b", 3);
		if (d == NULL) {
			applied += strcmp(a.data, b.data) == 0;
			minimal += strcmp(a.data, b.data) == 0;
		} else {
			back = apply(a.data, d);
			applied += back != NULL && strcmp(back, b.data) == 0;
			free(back);
			ca = xstrdup(a.data);
			cb = xstrdup(b.data);
			na = lines(ca, &la);
			nb = lines(cb, &lb);
			nd = lines(d, &ld);
			for (edits = 0, j = 2; j < nd; j++)
				edits += ld[j][0] == '+' || ld[j][0] == '-';
			minimal += edits == na + nb - 2 * lcs(la, na, lb, nb);
			free(ca);
			free(cb);
			free(la);
			free(lb);
			free(ld);
		}
		free(d);
		buf_free(&a);
		buf_free(&b);
	}
	tap_ok(applied == (size_t)rounds, "%zu of %d random diffs apply back",
	    applied, rounds);
	tap_ok(minimal == (size_t)rounds, "%zu of %d random diffs are minimal",
	    minimal, rounds);
}

int
main(void)
{
	test_fixed();
	test_random();
	return (tap_done());
}
