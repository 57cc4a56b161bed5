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
 * diff.c: a unified diff of two texts, line by line, in the format of
 * "diff -u" so that operators read it as they read every other diff and
 * patch(1) applies it.  The shortest edit script is found with Myers' O(ND)
 * greedy algorithm on what lies between the common head and tail; template
 * documents are small and change little, so the search is cheap.  A pair
 * that differs too much for the search's bound is shown as one change of
 * the whole middle: still correct, only less minimal.  Template documents
 * are compared through diff_documents, which chooses how to lay them out.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"

/* Beyond this many differing lines, replace the middle as a whole. */
#define DIFF_MAX_EDITS	2000

/* One line of a text: where it starts, its length without the newline. */
struct diff_line {
	const char	*s;
	size_t		 len;
	int		 nl;	/* ended by a newline */
};

/* A text cut into lines. */
struct diff_text {
	struct diff_line	*lines;
	size_t			 n;
};

/* One line of the edit script: kept, removed from a, or added from b. */
enum diff_op {
	DIFF_KEEP,
	DIFF_DEL,
	DIFF_ADD
};

struct diff_edit {
	enum diff_op	 op;
	size_t		 a;	/* line index in a (KEEP, DEL) */
	size_t		 b;	/* line index in b (KEEP, ADD) */
};

/* The edit script being built. */
struct diff_script {
	struct diff_edit	*e;
	size_t			 n;
	size_t			 size;
};

static void	diff_split(const char *, struct diff_text *);
static int	diff_same(const struct diff_line *, const struct diff_line *);
static void	diff_push(struct diff_script *, enum diff_op, size_t, size_t);
static int	diff_myers(const struct diff_text *, const struct diff_text *,
		    size_t, size_t, size_t, size_t, struct diff_script *);
static void	diff_hunks(struct buf *, const struct diff_text *,
		    const struct diff_text *, const struct diff_script *,
		    int);
static void	diff_range(struct buf *, int, size_t, size_t);
static void	diff_put(struct buf *, int, const struct diff_line *);

/* Cut text into lines; a last line without a newline is kept as such. */
static void
diff_split(const char *text, struct diff_text *t)
{
	const char	*p, *nl;
	size_t		 size = 0;

	t->lines = NULL;
	t->n = 0;
	for (p = text; *p != '\0'; p = nl + 1) {
		if (t->n == size) {
			size = size == 0 ? 64 : size * 2;
			t->lines = xreallocarray(t->lines, size,
			    sizeof *t->lines);
		}
		t->lines[t->n].s = p;
		if ((nl = strchr(p, '\n')) == NULL) {
			t->lines[t->n].len = strlen(p);
			t->lines[t->n++].nl = 0;
			break;
		}
		t->lines[t->n].len = nl - p;
		t->lines[t->n++].nl = 1;
	}
}

/* Whether two lines are the same, their newline included. */
static int
diff_same(const struct diff_line *x, const struct diff_line *y)
{
	return (x->len == y->len && x->nl == y->nl &&
	    memcmp(x->s, y->s, x->len) == 0);
}

/* Append one edit to the script. */
static void
diff_push(struct diff_script *sc, enum diff_op op, size_t a, size_t b)
{
	if (sc->n == sc->size) {
		sc->size = sc->size == 0 ? 64 : sc->size * 2;
		sc->e = xreallocarray(sc->e, sc->size, sizeof *sc->e);
	}
	sc->e[sc->n].op = op;
	sc->e[sc->n].a = a;
	sc->e[sc->n++].b = b;
}

/*
 * Myers' greedy search for the shortest edit script turning a[a0..a1) into
 * b[b0..b1), whose ends are known to differ.  Each round d keeps the
 * furthest point reached on every diagonal k = x - y; the rounds are kept
 * so the path can be walked back.  Appends the script to sc and returns 0,
 * or -1 when more than DIFF_MAX_EDITS edits would be needed.
 */
static int
diff_myers(const struct diff_text *a, const struct diff_text *b, size_t a0,
    size_t a1, size_t b0, size_t b1, struct diff_script *sc)
{
	long		 n = a1 - a0, m = b1 - b0, max, d, k, x, y, off;
	long		*v, **trace, prev_k, prev_x, prev_y;
	struct diff_script rev = { NULL, 0, 0 };
	long		 found = -1, i;

	max = n + m;
	if (max > DIFF_MAX_EDITS)
		max = DIFF_MAX_EDITS;
	off = max + 1;
	trace = xcalloc(max + 1, sizeof *trace);
	v = xcalloc(2 * off + 1, sizeof *v);
	for (d = 0; d <= max && found < 0; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] <
			    v[off + k + 1]))
				x = v[off + k + 1];	/* down: add */
			else
				x = v[off + k - 1] + 1;	/* right: delete */
			y = x - k;
			while (x < n && y < m &&
			    diff_same(&a->lines[a0 + x], &b->lines[b0 + y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
		/* Keep this round's diagonals -d..d for the walk back. */
		trace[d] = xcalloc(2 * d + 1, sizeof **trace);
		memcpy(trace[d], v + off - d, (2 * d + 1) * sizeof *v);
	}
	free(v);
	if (found < 0) {
		for (i = 0; i < d; i++)
			free(trace[i]);
		free(trace);
		return (-1);
	}

	/* Walk back from (n, m), collecting edits in reverse. */
	x = n;
	y = m;
	for (d = found; d > 0; d--) {
		k = x - y;
		if (k == -d || (k != d && trace[d - 1][k - 1 + d - 1] <
		    trace[d - 1][k + 1 + d - 1]))
			prev_k = k + 1;
		else
			prev_k = k - 1;
		prev_x = trace[d - 1][prev_k + d - 1];
		prev_y = prev_x - prev_k;
		while (x > prev_x && y > prev_y) {
			x--;
			y--;
			diff_push(&rev, DIFF_KEEP, a0 + x, b0 + y);
		}
		if (x == prev_x) {
			y--;
			diff_push(&rev, DIFF_ADD, a0 + x, b0 + y);
		} else {
			x--;
			diff_push(&rev, DIFF_DEL, a0 + x, b0 + y);
		}
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		diff_push(&rev, DIFF_KEEP, a0 + x, b0 + y);
	}
	for (i = (long)rev.n - 1; i >= 0; i--)
		diff_push(sc, rev.e[i].op, rev.e[i].a, rev.e[i].b);
	free(rev.e);
	for (i = 0; i <= found; i++)
		free(trace[i]);
	free(trace);
	return (0);
}

/* Print a hunk header's range: "start,count", GNU diff's way. */
static void
diff_range(struct buf *out, int sign, size_t start, size_t count)
{
	/* An empty range names the line before it. */
	if (count == 0)
		buf_printf(out, "%c%zu,0", sign, start);
	else if (count == 1)
		buf_printf(out, "%c%zu", sign, start + 1);
	else
		buf_printf(out, "%c%zu,%zu", sign, start + 1, count);
}

/* Print one line of a hunk with its mark. */
static void
diff_put(struct buf *out, int mark, const struct diff_line *l)
{
	buf_putc(out, mark);
	buf_add(out, l->s, l->len);
	buf_putc(out, '\n');
	if (!l->nl)
		buf_puts(out, "\\ No newline at end of file\n");
}

/*
 * Print the script as hunks: each change with up to context lines of kept
 * text around it, changes closer than twice that sharing one hunk.
 */
static void
diff_hunks(struct buf *out, const struct diff_text *a,
    const struct diff_text *b, const struct diff_script *sc, int context)
{
	size_t	 i, start, end, j, last, na, nb, sa, sb;
	size_t	 ctx = context < 0 ? 0 : (size_t)context;

	i = 0;
	while (i < sc->n) {
		if (sc->e[i].op == DIFF_KEEP) {
			i++;
			continue;
		}
		/* A hunk: back up for context, then run to its last change. */
		start = i > ctx ? i - ctx : 0;
		last = i;
		for (j = i; j < sc->n; j++) {
			if (sc->e[j].op != DIFF_KEEP)
				last = j;
			else if (j - last > 2 * ctx)
				break;
		}
		end = last + ctx + 1;
		if (end > sc->n)
			end = sc->n;

		na = nb = 0;
		for (j = start; j < end; j++) {
			if (sc->e[j].op != DIFF_ADD)
				na++;
			if (sc->e[j].op != DIFF_DEL)
				nb++;
		}
		sa = sc->e[start].a;
		sb = sc->e[start].b;
		buf_puts(out, "@@ ");
		diff_range(out, '-', sa, na);
		buf_putc(out, ' ');
		diff_range(out, '+', sb, nb);
		buf_puts(out, " @@\n");
		for (j = start; j < end; j++) {
			switch (sc->e[j].op) {
			case DIFF_KEEP:
				diff_put(out, ' ', &a->lines[sc->e[j].a]);
				break;
			case DIFF_DEL:
				diff_put(out, '-', &a->lines[sc->e[j].a]);
				break;
			case DIFF_ADD:
				diff_put(out, '+', &b->lines[sc->e[j].b]);
				break;
			}
		}
		i = end;
	}
}

/*
 * The unified diff turning text a into text b, with context lines around
 * each change and "--- label_a" / "+++ label_b" headers, as a string the
 * caller frees; NULL when the texts are equal.
 */
char *
diff_unified(const char *a, const char *b, const char *label_a,
    const char *label_b, int context)
{
	struct diff_text	 ta, tb;
	struct diff_script	 sc = { NULL, 0, 0 };
	struct buf		 out;
	size_t			 head, ta_end, tb_end, i;

	if (strcmp(a, b) == 0)
		return (NULL);
	diff_split(a, &ta);
	diff_split(b, &tb);

	/* The common head and tail need no search. */
	for (head = 0; head < ta.n && head < tb.n &&
	    diff_same(&ta.lines[head], &tb.lines[head]); head++)
		diff_push(&sc, DIFF_KEEP, head, head);
	ta_end = ta.n;
	tb_end = tb.n;
	while (ta_end > head && tb_end > head &&
	    diff_same(&ta.lines[ta_end - 1], &tb.lines[tb_end - 1])) {
		ta_end--;
		tb_end--;
	}
	if (diff_myers(&ta, &tb, head, ta_end, head, tb_end, &sc) != 0) {
		for (i = head; i < ta_end; i++)
			diff_push(&sc, DIFF_DEL, i, head);
		for (i = head; i < tb_end; i++)
			diff_push(&sc, DIFF_ADD, ta_end, i);
	}
	for (i = 0; ta_end + i < ta.n; i++)
		diff_push(&sc, DIFF_KEEP, ta_end + i, tb_end + i);

	buf_init(&out);
	buf_printf(&out, "--- %s\n+++ %s\n", label_a, label_b);
	diff_hunks(&out, &ta, &tb, &sc, context);
	free(sc.e);
	free(ta.lines);
	free(tb.lines);
	return (buf_release(&out));
}

/* Whether a document is written over more than one line. */
static int
diff_multiline(const char *doc)
{
	const char	*nl = strchr(doc, '\n');

	return (nl != NULL && nl[strspn(nl, " \t\r\n")] != '\0');
}

/* A JSON document pretty-printed, or a copy as it is if it is not JSON. */
static char *
diff_pretty(const char *doc)
{
	struct cJSON	*v;
	char		*s, *out;

	if ((v = json_parse_or_null(doc)) == NULL)
		return (xstrdup(doc));
	s = json_print_pretty(v);
	cJSON_Delete(v);
	xasprintf(&out, "%s\n", s);
	free(s);
	return (out);
}

/*
 * The unified diff of two JSON documents, or NULL when they are the same.
 * They are compared as saved, byte for byte, so that patch(1) applies the
 * diff to what "template show" prints.  With pretty, a document written
 * on a single line (by a script, say), which would make the whole of it
 * one changed line, has both sides pretty-printed first: easier to read,
 * but a diff of other texts than the saved ones.
 */
char *
diff_documents(const char *a, const char *b, const char *label_a,
    const char *label_b, int pretty)
{
	char	*ta, *tb, *d;

	if (!diff_documents_reformat(a, b, pretty))
		return (diff_unified(a, b, label_a, label_b, 3));
	ta = diff_pretty(a);
	tb = diff_pretty(b);
	d = diff_unified(ta, tb, label_a, label_b, 3);
	free(ta);
	free(tb);
	return (d);
}

/* Whether diff_documents would compare these pretty-printed. */
int
diff_documents_reformat(const char *a, const char *b, int pretty)
{
	return (pretty && (!diff_multiline(a) || !diff_multiline(b)));
}
