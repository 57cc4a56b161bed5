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
 * driver-pg-sql.c: the store's SQL, written for SQLite, as PostgreSQL
 * reads it.  One translator, so every store file keeps one text for both
 * drivers: it works on tokens (string literals, quoted names and comments
 * pass untouched) and knows only the handful of SQLite forms the store
 * uses:
 *
 *   ?, ?N                    $N
 *   INSERT OR IGNORE         INSERT ... ON CONFLICT DO NOTHING
 *   INSERT OR REPLACE        INSERT ... ON CONFLICT (first column) DO
 *                            UPDATE SET the others (the store's one use,
 *                            audit_head, is keyed by its first column)
 *   LIKE                     ILIKE (SQLite's LIKE ignores ASCII case)
 *   INTEGER                  BIGINT (SQLite's integers are 64-bit)
 *   max(a, b), min(a, b)     greatest, least
 *   ifnull                   coalesce
 *   +column (unary plus, an  column
 *    index hint to SQLite)
 *   FROM (SELECT ...)        FROM (SELECT ...) AS sluice_sub (an alias
 *                            PostgreSQL 15 requires)
 *   INDEXED BY name          (nothing: the planner chooses)
 *   temp.NAME                pg_temp.NAME
 *   sqlite_master            sluice_objects (a view, schema-pg.c)
 *   json_each, json_extract, sluice_json_* (functions, schema-pg.c)
 *    json_valid
 *   PRAGMA defer_foreign_keys = ON
 *                            SET CONSTRAINTS ALL DEFERRED
 *
 * No libpq here: the translation is plain text, checked by
 * tests/unit/test-pg-sql without a server.
 */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"
#include "store/driver-pg.h"

enum pgsql_kind {
	PGSQL_WORD,		/* keyword or name */
	PGSQL_NUMBER,
	PGSQL_STRING,		/* '...' */
	PGSQL_QUOTED,		/* "..." */
	PGSQL_PARAM,		/* ? or ?N */
	PGSQL_SPACE,		/* white space and comments */
	PGSQL_PUNCT		/* one character */
};

struct pgsql_token {
	enum pgsql_kind	 kind;
	const char	*p;
	size_t		 len;
	int		 alias;	/* ")" of a subquery in FROM */
};

struct pgsql {
	struct pgsql_token	*t;
	size_t			 n;
	struct buf		 out;
	int			 nparams;
	/* The statement's INSERT OR ...: its clause, written at its end. */
	char			*conflict;
	int			 subs;		/* aliases made so far */
};

/* Words after which a unary + is an index hint, not an addition. */
static const char *pgsql_hint_after[] = {
	"AND", "OR", "WHERE", "NOT", "ON", "WHEN", "THEN", "ELSE", "SELECT",
	"BY"
};

/* Words that may follow a subquery in FROM where no alias follows. */
static const char *pgsql_clause_words[] = {
	"WHERE", "ORDER", "GROUP", "LIMIT", "OFFSET", "UNION", "EXCEPT",
	"INTERSECT", "JOIN", "LEFT", "INNER", "CROSS", "ON", "HAVING",
	"WINDOW", "RETURNING"
};

/* Words renamed one for one. */
static const struct {
	const char	*from;
	const char	*to;
} pgsql_renames[] = {
	{ "LIKE", "ILIKE" },
	{ "INTEGER", "BIGINT" },
	{ "ifnull", "coalesce" },
	{ "sqlite_master", "sluice_objects" },
	{ "sqlite_schema", "sluice_objects" },
	{ "json_each", "sluice_json_each" },
	{ "json_extract", "sluice_json_extract" },
	{ "json_valid", "sluice_json_valid" },
};

static void	pgsql_tokenize(struct pgsql *, const char *);
static int	pgsql_is(const struct pgsql_token *, const char *);
static int	pgsql_in(const struct pgsql_token *, const char **, size_t);
static ssize_t	pgsql_next(const struct pgsql *, size_t);
static ssize_t	pgsql_prev(const struct pgsql *, size_t);
static ssize_t	pgsql_close(const struct pgsql *, size_t);
static size_t	pgsql_insert_or(struct pgsql *, size_t);
static void	pgsql_end(struct pgsql *);
static size_t	pgsql_pragma(struct pgsql *, size_t);
static size_t	pgsql_word(struct pgsql *, size_t);
static size_t	pgsql_punct(struct pgsql *, size_t);
static size_t	pgsql_token(struct pgsql *, size_t);

/* Split the text into tokens, each pointing into it. */
static void
pgsql_tokenize(struct pgsql *q, const char *sql)
{
	const char	*p = sql, *start;
	enum pgsql_kind	 kind;
	size_t		 cap = 0;
	char		 quote;

	while (*p != '\0') {
		start = p;
		if (isspace((unsigned char)*p)) {
			while (isspace((unsigned char)*p))
				p++;
			kind = PGSQL_SPACE;
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p != '\0' && *p != '\n')
				p++;
			kind = PGSQL_SPACE;
		} else if (*p == '\'' || *p == '"') {
			/* A doubled quote stays inside. */
			quote = *p++;
			for (;;) {
				if (*p == '\0')
					break;
				if (*p == quote && p[1] == quote) {
					p += 2;
					continue;
				}
				if (*p++ == quote)
					break;
			}
			kind = quote == '\'' ? PGSQL_STRING : PGSQL_QUOTED;
		} else if (*p == '?') {
			p++;
			while (isdigit((unsigned char)*p))
				p++;
			kind = PGSQL_PARAM;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			kind = PGSQL_WORD;
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p) || *p == '.')
				p++;
			kind = PGSQL_NUMBER;
		} else {
			p++;
			kind = PGSQL_PUNCT;
		}
		if (q->n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			q->t = xreallocarray(q->t, cap, sizeof *q->t);
		}
		q->t[q->n].kind = kind;
		q->t[q->n].p = start;
		q->t[q->n].len = (size_t)(p - start);
		q->t[q->n].alias = 0;
		q->n++;
	}
}

/* Whether a token is the word (any case) or the punctuation given. */
static int
pgsql_is(const struct pgsql_token *t, const char *s)
{
	if (t->kind != PGSQL_WORD && t->kind != PGSQL_PUNCT)
		return (0);
	return (strlen(s) == t->len && strncasecmp(t->p, s, t->len) == 0);
}

/* Whether a token is one of the words listed. */
static int
pgsql_in(const struct pgsql_token *t, const char **words, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (pgsql_is(t, words[i]))
			return (1);
	}
	return (0);
}

/* The next token after i that is not space, or -1. */
static ssize_t
pgsql_next(const struct pgsql *q, size_t i)
{
	for (i++; i < q->n; i++) {
		if (q->t[i].kind != PGSQL_SPACE)
			return ((ssize_t)i);
	}
	return (-1);
}

/* The token before i that is not space, or -1. */
static ssize_t
pgsql_prev(const struct pgsql *q, size_t i)
{
	while (i-- > 0) {
		if (q->t[i].kind != PGSQL_SPACE)
			return ((ssize_t)i);
	}
	return (-1);
}

/* The ")" closing the "(" at i, or -1. */
static ssize_t
pgsql_close(const struct pgsql *q, size_t i)
{
	int	 depth = 0;

	for (; i < q->n; i++) {
		if (pgsql_is(&q->t[i], "("))
			depth++;
		else if (pgsql_is(&q->t[i], ")") && --depth == 0)
			return ((ssize_t)i);
	}
	return (-1);
}

/*
 * INSERT OR IGNORE / OR REPLACE at i (the INSERT): write INSERT, keep the
 * clause for the statement's end, and return the token after the word.
 */
static size_t
pgsql_insert_or(struct pgsql *q, size_t i)
{
	ssize_t		 or, how, j, end;
	struct buf	 b;
	int		 first = 1, ncols = 0;

	or = pgsql_next(q, i);
	how = or == -1 ? -1 : pgsql_next(q, (size_t)or);
	if (how == -1 || !pgsql_is(&q->t[or], "OR"))
		return (i);
	buf_puts(&q->out, "INSERT");
	if (pgsql_is(&q->t[how], "IGNORE")) {
		q->conflict = xstrdup(" ON CONFLICT DO NOTHING");
		return ((size_t)how + 1);
	}
	/* REPLACE INTO name (key, col, ...): the first column is the key. */
	buf_init(&b);
	for (j = how; j != -1 && !pgsql_is(&q->t[j], "("); j = pgsql_next(q,
	    (size_t)j))
		;
	end = j == -1 ? -1 : pgsql_close(q, (size_t)j);
	for (; j != -1 && j < end; j = pgsql_next(q, (size_t)j)) {
		if (q->t[j].kind != PGSQL_WORD && q->t[j].kind != PGSQL_QUOTED)
			continue;
		if (ncols++ == 0) {
			buf_printf(&b, " ON CONFLICT (%.*s) DO UPDATE SET",
			    (int)q->t[j].len, q->t[j].p);
			continue;
		}
		buf_printf(&b, "%s %.*s = excluded.%.*s", first ? "" : ",",
		    (int)q->t[j].len, q->t[j].p, (int)q->t[j].len, q->t[j].p);
		first = 0;
	}
	q->conflict = buf_release(&b);
	return ((size_t)how + 1);
}

/* A statement ends: write the INSERT's conflict clause kept for it. */
static void
pgsql_end(struct pgsql *q)
{
	if (q->conflict != NULL) {
		buf_puts(&q->out, q->conflict);
		free(q->conflict);
		q->conflict = NULL;
	}
}

/*
 * A PRAGMA at i: the one the store's SQL uses outside the SQLite driver
 * becomes PostgreSQL's; the tokens up to the statement's end are used.
 */
static size_t
pgsql_pragma(struct pgsql *q, size_t i)
{
	ssize_t	 name = pgsql_next(q, i);

	if (name == -1 || !pgsql_is(&q->t[name], "defer_foreign_keys"))
		return (i);
	buf_puts(&q->out, "SET CONSTRAINTS ALL DEFERRED");
	for (i = (size_t)name; i < q->n && !pgsql_is(&q->t[i], ";"); i++)
		;
	return (i);
}

/* A word at i, written as PostgreSQL says it; returns the next token. */
static size_t
pgsql_word(struct pgsql *q, size_t i)
{
	const struct pgsql_token	*t = &q->t[i];
	ssize_t				 next = pgsql_next(q, i), close, j;
	size_t				 k, after;
	int				 depth = 0, commas = 0;

	if (pgsql_is(t, "INSERT") && (after = pgsql_insert_or(q, i)) != i)
		return (after);
	if (pgsql_is(t, "PRAGMA") && (after = pgsql_pragma(q, i)) != i)
		return (after);
	if (pgsql_is(t, "RETURNING"))
		pgsql_end(q);	/* the conflict clause goes before it */
	if (pgsql_is(t, "INDEXED") && next != -1 &&
	    pgsql_is(&q->t[next], "BY") &&
	    (j = pgsql_next(q, (size_t)next)) != -1)
		return ((size_t)j + 1);	/* SQLite's index hint */
	if (pgsql_is(t, "temp") && i + 1 < q->n && pgsql_is(&q->t[i + 1],
	    ".")) {
		buf_puts(&q->out, "pg_temp");
		return (i + 1);
	}
	if ((pgsql_is(t, "max") || pgsql_is(t, "min")) && next != -1 &&
	    pgsql_is(&q->t[next], "(") &&
	    (close = pgsql_close(q, (size_t)next)) != -1) {
		/* Two or more arguments: the scalar max and min. */
		for (j = next; j < close; j++) {
			if (pgsql_is(&q->t[j], "("))
				depth++;
			else if (pgsql_is(&q->t[j], ")"))
				depth--;
			else if (depth == 1 && pgsql_is(&q->t[j], ","))
				commas++;
		}
		if (commas > 0) {
			buf_puts(&q->out, pgsql_is(t, "max") ? "greatest" :
			    "least");
			return (i + 1);
		}
	}
	for (k = 0; k < nitems(pgsql_renames); k++) {
		if (pgsql_is(t, pgsql_renames[k].from)) {
			buf_puts(&q->out, pgsql_renames[k].to);
			return (i + 1);
		}
	}
	buf_add(&q->out, t->p, t->len);
	return (i + 1);
}

/* Punctuation at i; returns the next token. */
static size_t
pgsql_punct(struct pgsql *q, size_t i)
{
	const struct pgsql_token	*t = &q->t[i];
	ssize_t				 prev = pgsql_prev(q, i);
	ssize_t				 next = pgsql_next(q, i), close;

	if (pgsql_is(t, ";"))
		pgsql_end(q);
	if (pgsql_is(t, "+") && next != -1 && q->t[next].kind == PGSQL_WORD &&
	    (prev == -1 || pgsql_is(&q->t[prev], "(") ||
	    pgsql_is(&q->t[prev], ",") || pgsql_is(&q->t[prev], "=") ||
	    pgsql_in(&q->t[prev], pgsql_hint_after,
	    nitems(pgsql_hint_after))))
		return (i + 1);		/* SQLite's index hint */
	if (pgsql_is(t, "(") && prev != -1 && next != -1 &&
	    (pgsql_is(&q->t[prev], "FROM") || pgsql_is(&q->t[prev], "JOIN")) &&
	    (pgsql_is(&q->t[next], "SELECT") || pgsql_is(&q->t[next], "WITH")) &&
	    (close = pgsql_close(q, i)) != -1)
		q->t[close].alias = 1;
	buf_add(&q->out, t->p, t->len);
	if (t->alias && (next == -1 || (q->t[next].kind != PGSQL_WORD &&
	    q->t[next].kind != PGSQL_QUOTED) || pgsql_in(&q->t[next],
	    pgsql_clause_words, nitems(pgsql_clause_words))))
		buf_printf(&q->out, " AS sluice_sub%d", ++q->subs);
	return (i + 1);
}

/* One token at i, translated; returns the next one to read. */
static size_t
pgsql_token(struct pgsql *q, size_t i)
{
	const struct pgsql_token	*t = &q->t[i];
	long long			 n;

	switch (t->kind) {
	case PGSQL_PARAM:
		/* SQLite numbers a bare ? one past the largest so far. */
		if (t->len > 1)
			n = strtoll(t->p + 1, NULL, 10);
		else
			n = q->nparams + 1;
		if (n > q->nparams)
			q->nparams = (int)n;
		buf_printf(&q->out, "$%lld", n);
		return (i + 1);
	case PGSQL_WORD:
		return (pgsql_word(q, i));
	case PGSQL_PUNCT:
		return (pgsql_punct(q, i));
	default:
		buf_add(&q->out, t->p, t->len);
		return (i + 1);
	}
}

/*
 * The SQL given as PostgreSQL reads it (a new string), and how many
 * parameters it has.
 */
char *
store_pg_sql(const char *sql, int *nparams)
{
	struct pgsql	 q;
	size_t		 i;

	memset(&q, 0, sizeof q);
	buf_init(&q.out);
	pgsql_tokenize(&q, sql);
	for (i = 0; i < q.n;)
		i = pgsql_token(&q, i);
	pgsql_end(&q);
	free(q.t);
	if (nparams != NULL)
		*nparams = q.nparams;
	return (buf_release(&q.out));
}
