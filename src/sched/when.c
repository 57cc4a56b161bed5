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
 * when.c: the --at grammar.  One expression names one future instant:
 *
 *	in 30 minutes | in 2h | in 1h30m | in 2 days | in an hour
 *	[today|tomorrow|[next] WEEKDAY] [at] TIME
 *	TIME [today|tomorrow|[next] WEEKDAY]
 *	YYYY-MM-DD [TIME] | YYYY-MM-DDTHH:MM[:SS[.frac]][Z|+HH:MM|+HHMM|+HH]
 *	@UNIXTIME | UNIXTIME (9 or more digits alone, as the reference takes)
 *
 * where TIME is 9am, 9:30pm, 12am (midnight), 12pm, noon, 21:15, 21:15:30.
 * "in" adds elapsed time (a day is 24 hours; "1.5h" is 90 minutes), its
 * units from larger to smaller, each once, by the rule flow durations
 * share (flow_duration_unit_follows): "in 1h 1h" is refused.  A date
 * alone means its 00:00.  A time alone means today and is refused once past;
 * "monday 9am" is the next Monday 09:00 still ahead (today if it is Monday
 * before nine), "next monday" the first Monday after today.  Local readings
 * use the local zone (TZ honoured); one skipped or repeated by a DST change
 * is refused with the reason, never guessed.  Past times, times more than
 * ten years ahead and anything not understood are refused with a one-line
 * reason naming the piece and its column.  No clock is read here: the
 * caller passes "now".  Dates, times of day and UTC offsets are read in
 * when-clock.c.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "flow/flow.h"
#include "sched/sched.h"
#include "sched/sched-int.h"

static const char *when_weekdays[] = {
	"sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday"
};
static const char *when_keywords[] = {
	"in", "at", "today", "tomorrow", "next", "noon", "am", "pm",
	"sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday"
};

/* Units after "in"; 0 seconds marks a unit refused for varying length. */
static const struct when_unit {
	const char	*name;
	int64_t		 seconds;
} when_units[] = {
	{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
	{ "seconds", 1 },
	{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 },
	{ "minutes", 60 },
	{ "h", 3600 }, { "hr", 3600 }, { "hrs", 3600 }, { "hour", 3600 },
	{ "hours", 3600 },
	{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
	{ "w", 604800 }, { "wk", 604800 }, { "week", 604800 },
	{ "weeks", 604800 },
	{ "mo", 0 }, { "month", 0 }, { "months", 0 }, { "y", 0 },
	{ "yr", 0 }, { "year", 0 }, { "years", 0 }
};

static int	 when_split(struct when_ctx *);
static int	 when_weekday(const char *, size_t);
static const char *when_suggest(const char *, size_t, const char **,
		     size_t);
static int	 when_distance(const char *, size_t, const char *);
static int	 when_check_range(struct when_ctx *, int64_t, const char *);
static int	 when_parse_unix(struct when_ctx *, int64_t *);
static int	 when_is_unix(const struct when_ctx *);
static int	 when_parse_in(struct when_ctx *, int64_t *);
static int	 when_in_number(struct when_ctx *, const char **, int64_t *);
static int	 when_in_unit(struct when_ctx *, const char *, size_t, int,
		     int64_t *);
static int	 when_parse_words(struct when_ctx *, struct when_parts *);
static int	 when_parse_word(struct when_ctx *, int *,
		     struct when_parts *);
static int	 when_refuse_word(struct when_ctx *,
		     const struct when_word *);
static int	 when_parse_dayword(struct when_ctx *, int *,
		     struct when_parts *);
static int	 when_resolve(struct when_ctx *, struct when_parts *,
		     int64_t *);
static int	 when_resolve_local(struct when_ctx *,
		     const struct sched_wall *, int64_t *);

/* Record the first reason for refusing; always returns -1. */
int
when_fail(struct when_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	if (ctx->why == NULL) {
		va_start(ap, fmt);
		xvasprintf(&ctx->why, fmt, ap);
		va_end(ap);
	}
	return (-1);
}

/*
 * Turn an --at expression into Unix ms.  Returns 0, or -1 with a reason in
 * *cause that quotes the text.
 */
int
when_parse(const char *text, int64_t now_ms, int64_t *at_ms, char **cause)
{
	struct when_ctx		 ctx;
	struct when_parts	 parts;
	const char		*s;
	size_t			 len, i;
	int			 rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.text = text;
	ctx.now_ms = now_ms;
	len = strlen(text);
	for (s = text; isspace((unsigned char)*s); s++)
		/* nothing */;
	if (*s == '\0') {
		xasprintf(cause, "time: empty; try \"in 30 minutes\", "
		    "\"tomorrow 9am\" or \"2026-12-01 09:00\"");
		return (-1);
	}
	if (len > WHEN_MAX_TEXT) {
		xasprintf(cause, "time \"%.20s...\": too long (%zu characters, "
		    "the limit is %d)", text, len, WHEN_MAX_TEXT);
		return (-1);
	}
	tzset();
	ctx.low = xstrdup(text);
	for (i = 0; i < len; i++)
		ctx.low[i] = (char)tolower((unsigned char)text[i]);

	if (when_split(&ctx) != 0)
		rc = -1;
	else if (*ctx.words[0].s == '@' || when_is_unix(&ctx))
		rc = when_parse_unix(&ctx, at_ms);
	else if (when_is(&ctx.words[0], "in"))
		rc = when_parse_in(&ctx, at_ms);
	else if ((rc = when_parse_words(&ctx, &parts)) == 0)
		rc = when_resolve(&ctx, &parts, at_ms);

	if (rc != 0)
		xasprintf(cause, "time \"%s\": %s", text, ctx.why);
	free(ctx.why);
	free(ctx.low);
	return (rc);
}

/* Split the lower-cased text into words; refuse control and non-ASCII. */
static int
when_split(struct when_ctx *ctx)
{
	const char	*p = ctx->low, *start;

	for (; *p != '\0'; p++) {
		if ((unsigned char)*p >= 0x80 ||
		    (iscntrl((unsigned char)*p) && !isspace((unsigned char)*p)))
			return (when_fail(ctx, "unexpected character at "
			    "column %d", (int)(p - ctx->low) + 1));
	}
	p = ctx->low;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		start = p;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		ctx->words[ctx->nwords].s = start;
		ctx->words[ctx->nwords].len = p - start;
		ctx->words[ctx->nwords].col = (int)(start - ctx->low) + 1;
		ctx->nwords++;
	}
	return (0);
}

/* Whether a word is exactly the given (lower-case) keyword. */
int
when_is(const struct when_word *w, const char *kw)
{
	return (w->len == strlen(kw) && memcmp(w->s, kw, w->len) == 0);
}

/* A weekday's number (0 Sunday) from its full or three-letter name, or -1. */
static int
when_weekday(const char *s, size_t len)
{
	int	i;

	for (i = 0; i < 7; i++) {
		if ((len == 3 || len == strlen(when_weekdays[i])) &&
		    strncmp(s, when_weekdays[i], len) == 0)
			return (i);
	}
	return (-1);
}

/* Edit distance between a word and a keyword, to suggest a spelling. */
static int
when_distance(const char *a, size_t alen, const char *b)
{
	int	row[32], prev, tmp, i, j, blen;

	blen = (int)strlen(b);
	if (alen >= 31 || blen >= 31)
		return (99);
	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= (int)alen; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return (row[blen]);
}

/* The keyword nearest a misspelt word, if near enough to suggest. */
static const char *
when_suggest(const char *s, size_t len, const char **list, size_t n)
{
	const char	*best = NULL;
	int		 d, bestd = 3;
	size_t		 i;

	for (i = 0; i < n; i++) {
		d = when_distance(s, len, list[i]);
		if ((d < bestd || (d == bestd && best != NULL &&
		    strlen(list[i]) > strlen(best))) && (d == 1 || len > 3)) {
			bestd = d;
			best = list[i];
		}
	}
	return (best);
}

/* Refuse an instant not in the future or too far into it. */
static int
when_check_range(struct when_ctx *ctx, int64_t at, const char *what)
{
	if (at <= ctx->now_ms)
		return (when_fail(ctx, "%s is in the past", what));
	if (at - ctx->now_ms > WHEN_MAX_AHEAD_MS)
		return (when_fail(ctx, "%s is more than 10 years ahead "
		    "(the limit)", what));
	return (0);
}

/*
 * A lone number of 9 or more digits is a Unix time without its "@" (the
 * reference engine's integer form); shorter numbers stay clock times.
 */
static int
when_is_unix(const struct when_ctx *ctx)
{
	const struct when_word	*w = &ctx->words[0];
	size_t			 i;

	if (ctx->nwords != 1 || w->len < 9)
		return (0);
	for (i = 0; i < w->len; i++) {
		if (!isdigit((unsigned char)w->s[i]))
			return (0);
	}
	return (1);
}

/* "@1764579600" or "1764579600": seconds since 1970-01-01 UTC. */
static int
when_parse_unix(struct when_ctx *ctx, int64_t *at)
{
	const struct when_word	*w = &ctx->words[0];
	int64_t			 v = 0;
	size_t			 i;

	if (ctx->nwords > 1)
		return (when_fail(ctx, "unexpected \"%.*s\" at column %d "
		    "after a Unix time", (int)ctx->words[1].len,
		    ctx->text + ctx->words[1].col - 1, ctx->words[1].col));
	if (w->len == 1)
		return (when_fail(ctx, "expected seconds since 1970 after "
		    "\"@\" at column %d", w->col + 1));
	for (i = *w->s == '@' ? 1 : 0; i < w->len; i++) {
		if (!isdigit((unsigned char)w->s[i]))
			return (when_fail(ctx, "unexpected \"%c\" in a Unix "
			    "time at column %d", ctx->text[w->col - 1 + i],
			    w->col + (int)i));
		if (i > 15)
			return (when_fail(ctx, "Unix time too large at "
			    "column %d", w->col + 1));
		v = v * 10 + (w->s[i] - '0');
	}
	*at = v * 1000;
	return (when_check_range(ctx, *at, "the Unix time"));
}

/*
 * "in 1h30m", "in 2 days", "in 1.5h", "in an hour and 5 minutes": elapsed
 * time.  Amounts are kept in thousandths so "1.5h" is exact.
 */
static int
when_parse_in(struct when_ctx *ctx, int64_t *at)
{
	const char	*p, *start;
	int64_t		 amount = -1, total = 0, secs = 1, prev = 0;
	int		 parts = 0, col = 0, len = 0;

	p = ctx->words[0].s + 2;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		start = p;
		if (amount != -1 && isdigit((unsigned char)*p))
			return (when_fail(ctx, "missing a unit after \"%.*s\" "
			    "at column %d", len, ctx->text + col - 1, col));
		if (isdigit((unsigned char)*p)) {
			col = (int)(p - ctx->low) + 1;
			if (when_in_number(ctx, &p, &amount) != 0)
				return (-1);
			len = (int)(p - start);
			continue;
		}
		if (*p == '-')
			return (when_fail(ctx, "a delay cannot be negative "
			    "(column %d)", (int)(p - ctx->low) + 1));
		if (!isalpha((unsigned char)*p))
			return (when_fail(ctx, "unexpected \"%c\" at column %d",
			    ctx->text[p - ctx->low], (int)(p - ctx->low) + 1));
		while (isalpha((unsigned char)*p))
			p++;
		if (amount == -1 && ((p - start == 1 && *start == 'a') ||
		    (p - start == 2 && strncmp(start, "an", 2) == 0))) {
			amount = 1000;
			continue;
		}
		if (amount == -1 && parts > 0 && p - start == 3 &&
		    strncmp(start, "and", 3) == 0)
			continue;
		if (amount == -1)
			return (when_fail(ctx, parts > 0 ?
			    "unexpected \"%.*s\" at column %d after the delay" :
			    "expected a number before \"%.*s\" at column %d",
			    (int)(p - start),
			    ctx->text + (start - ctx->low),
			    (int)(start - ctx->low) + 1));
		if (when_in_unit(ctx, start, p - start,
		    (int)(start - ctx->low) + 1, &secs) != 0)
			return (-1);
		if (!flow_duration_unit_follows(prev, secs))
			return (when_fail(ctx, "\"%.*s\" at column %d: %s",
			    (int)(p - start), ctx->text + (start - ctx->low),
			    (int)(start - ctx->low) + 1,
			    FLOW_DURATION_ORDER_WHY));
		prev = secs;
		if (amount > (WHEN_MAX_AHEAD_MS - total) / secs)
			return (when_fail(ctx, "more than 10 years ahead "
			    "(the limit)"));
		total += amount * secs;
		amount = -1;
		parts++;
	}
	if (amount != -1)
		return (when_fail(ctx, "missing a unit after \"%.*s\" at "
		    "column %d (s, m, h, d or w)", len, ctx->text + col - 1,
		    col));
	if (parts == 0)
		return (when_fail(ctx, "expected a delay after \"in\", as in "
		    "\"in 30 minutes\""));
	if (total == 0)
		return (when_fail(ctx, "a delay of zero is not in the future"));
	*at = ctx->now_ms + total;
	return (0);
}

/* An amount "90" or "1.5" (at most three decimals) in thousandths. */
static int
when_in_number(struct when_ctx *ctx, const char **pp, int64_t *amount)
{
	const char	*p = *pp;
	int		 col, scale;

	col = (int)(p - ctx->low) + 1;
	for (*amount = 0; isdigit((unsigned char)*p); p++) {
		if (*amount > 99999999)
			return (when_fail(ctx, "number too large at column %d",
			    col));
		*amount = *amount * 10 + (*p - '0');
	}
	*amount *= 1000;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		for (p++, scale = 100; isdigit((unsigned char)*p); p++) {
			if (scale == 0)
				return (when_fail(ctx, "more than three "
				    "decimals at column %d", col));
			*amount += (*p - '0') * scale;
			scale /= 10;
		}
	}
	*pp = p;
	return (0);
}

/* The seconds in one unit after "in", or a reason. */
static int
when_in_unit(struct when_ctx *ctx, const char *s, size_t len, int col,
    int64_t *secs)
{
	const char	*names[nitems(when_units)], *near;
	size_t		 i;

	for (i = 0; i < nitems(when_units); i++) {
		names[i] = when_units[i].name;
		if (len != strlen(names[i]) || strncmp(s, names[i], len) != 0)
			continue;
		if (when_units[i].seconds == 0)
			return (when_fail(ctx, "\"%.*s\" at column %d: months "
			    "and years vary in length; give a date instead",
			    (int)len, ctx->text + col - 1, col));
		*secs = when_units[i].seconds;
		return (0);
	}
	near = when_suggest(s, len, names, nitems(when_units));
	if (near != NULL)
		return (when_fail(ctx, "unknown unit \"%.*s\" at column %d "
		    "(did you mean \"%s\"?)", (int)len, ctx->text + col - 1,
		    col, near));
	return (when_fail(ctx, "unknown unit \"%.*s\" at column %d (use s, "
	    "m, h, d or w)", (int)len, ctx->text + col - 1, col));
}

/* Read the words of an absolute expression: a day, a date, a time. */
static int
when_parse_words(struct when_ctx *ctx, struct when_parts *tp)
{
	int	i;

	memset(tp, 0, sizeof *tp);
	for (i = 0; i < ctx->nwords; i++) {
		if (when_parse_word(ctx, &i, tp) != 0)
			return (-1);
	}
	if (tp->have_off && !tp->have_date)
		return (when_fail(ctx, "a UTC offset needs a date, as in "
		    "2026-12-01T09:00+02:00"));
	if (tp->have_date && tp->day != WHEN_DAY_NONE)
		return (when_fail(ctx, "give a date or \"%s\", not both",
		    tp->day_word));
	if (tp->day != WHEN_DAY_NONE && !tp->have_time)
		return (when_fail(ctx, "\"%s\" needs a time of day, as in "
		    "\"%s 9am\"", tp->day_word, tp->day_word));
	if (!tp->have_date && !tp->have_time)
		return (when_fail(ctx, "no date or time given"));
	return (0);
}

/* Read the word at *i (and any it takes with it, moving *i). */
static int
when_parse_word(struct when_ctx *ctx, int *i, struct when_parts *tp)
{
	const struct when_word	*w = &ctx->words[*i];
	int			 rc;

	if (isdigit((unsigned char)*w->s)) {
		if (w->len >= 5 && isdigit((unsigned char)w->s[1]) &&
		    isdigit((unsigned char)w->s[2]) &&
		    isdigit((unsigned char)w->s[3]) && w->s[4] == '-')
			return (when_parse_date(ctx, w, tp));
		if (tp->have_time)
			return (when_fail(ctx, "a second time \"%.*s\" at "
			    "column %d", (int)w->len, ctx->text + w->col - 1,
			    w->col));
		rc = when_parse_clock(ctx, w->s, w->s + w->len, w->col, tp,
		    *i + 1 < ctx->nwords ? *i + 1 : -1);
		if (rc == 1)
			(*i)++;
		return (rc == -1 ? -1 : 0);
	}
	if (when_is(w, "at")) {
		if (*i + 1 == ctx->nwords || tp->have_time ||
		    (!isdigit((unsigned char)*ctx->words[*i + 1].s) &&
		    !when_is(&ctx->words[*i + 1], "noon")))
			return (when_fail(ctx, "expected a time after \"at\" "
			    "at column %d", w->col));
		return (0);
	}
	if (when_is(w, "noon")) {
		if (tp->have_time)
			return (when_fail(ctx, "a second time \"noon\" at "
			    "column %d", w->col));
		tp->have_time = 1;
		tp->hour = 12;
		snprintf(tp->time_word, sizeof tp->time_word, "noon");
		return (0);
	}
	if ((rc = when_parse_dayword(ctx, i, tp)) != 1)
		return (rc);
	return (when_refuse_word(ctx, w));
}

/* Why a word that is no part of the grammar is refused. */
static int
when_refuse_word(struct when_ctx *ctx, const struct when_word *w)
{
	const char	*near;

	if (when_is(w, "midnight"))
		return (when_fail(ctx, "\"midnight\" is ambiguous; write 00:00 "
		    "with a day, as in \"tomorrow 00:00\""));
	if (when_is(w, "now"))
		return (when_fail(ctx, "\"now\" is not in the future"));
	if (when_is(w, "yesterday"))
		return (when_fail(ctx, "\"yesterday\" is in the past"));
	if (when_is(w, "in"))
		return (when_fail(ctx, "\"in\" at column %d must come first, "
		    "as in \"in 30 minutes\"", w->col));
	if (when_is(w, "am") || when_is(w, "pm"))
		return (when_fail(ctx, "\"%.*s\" at column %d without an hour "
		    "before it", (int)w->len, ctx->text + w->col - 1, w->col));
	near = when_suggest(w->s, w->len, when_keywords,
	    nitems(when_keywords));
	if (near != NULL)
		return (when_fail(ctx, "unknown word \"%.*s\" at column %d "
		    "(did you mean \"%s\"?)", (int)w->len,
		    ctx->text + w->col - 1, w->col, near));
	return (when_fail(ctx, "unknown word \"%.*s\" at column %d; try "
	    "\"in 30 minutes\", \"tomorrow 9am\" or \"2026-12-01 09:00\"",
	    (int)w->len, ctx->text + w->col - 1, w->col));
}

/*
 * "today", "tomorrow", "monday", "next monday".  Returns 0 if it read one,
 * 1 if the word is none of these, -1 on error.
 */
static int
when_parse_dayword(struct when_ctx *ctx, int *i, struct when_parts *tp)
{
	const struct when_word	*w = &ctx->words[*i], *n;
	enum when_day		 day;
	int			 wday = -1;

	if (when_is(w, "today"))
		day = WHEN_DAY_TODAY;
	else if (when_is(w, "tomorrow"))
		day = WHEN_DAY_TOMORROW;
	else if ((wday = when_weekday(w->s, w->len)) != -1)
		day = WHEN_DAY_WEEKDAY;
	else if (when_is(w, "next")) {
		if (*i + 1 == ctx->nwords ||
		    (wday = when_weekday(ctx->words[*i + 1].s,
		    ctx->words[*i + 1].len)) == -1)
			return (when_fail(ctx, "expected a weekday after "
			    "\"next\" at column %d", w->col));
		day = WHEN_DAY_NEXT;
	} else
		return (1);

	if (tp->day != WHEN_DAY_NONE)
		return (when_fail(ctx, "a second day \"%.*s\" at column %d",
		    (int)w->len, ctx->text + w->col - 1, w->col));
	tp->day = day;
	tp->wday = wday;
	if (day == WHEN_DAY_NEXT) {
		n = &ctx->words[++*i];
		snprintf(tp->day_word, sizeof tp->day_word, "next %.*s",
		    (int)n->len, n->s);
	} else
		snprintf(tp->day_word, sizeof tp->day_word, "%.*s",
		    (int)w->len, w->s);
	return (0);
}

/* Whether a word is a unit of "in", to hint at a missing "in". */
int
when_is_unit(const struct when_word *w)
{
	size_t	i;

	for (i = 0; i < nitems(when_units); i++) {
		if (when_is(w, when_units[i].name))
			return (1);
	}
	return (0);
}

/* Place the parts on the calendar and turn them into Unix ms. */
static int
when_resolve(struct when_ctx *ctx, struct when_parts *tp, int64_t *at)
{
	struct sched_wall	 now, w;
	int64_t			 days, t = 0;
	int			 delta = 0;
	char			 what[64];

	sched_local_wall(ctx->now_ms / 1000, &now);
	if (tp->have_date)
		days = sched_days_from_civil(tp->year, tp->mon, tp->mday);
	else {
		days = sched_days_from_civil(now.year, now.mon, now.mday);
		if (tp->day == WHEN_DAY_TOMORROW)
			delta = 1;
		else if (tp->day == WHEN_DAY_WEEKDAY ||
		    tp->day == WHEN_DAY_NEXT) {
			delta = (tp->wday - sched_weekday(days) + 7) % 7;
			if (delta == 0 && tp->day == WHEN_DAY_NEXT)
				delta = 7;
		}
	}
	for (;;) {
		memset(&w, 0, sizeof w);
		sched_civil_from_days(days + delta, &w.year, &w.mon, &w.mday);
		w.hour = tp->hour;
		w.min = tp->min;
		w.sec = tp->sec;
		if (tp->have_off)
			t = sched_wall_seconds(&w) - tp->off;
		else if (when_resolve_local(ctx, &w, &t) != 0)
			return (-1);
		*at = t * 1000 + tp->msec;
		/* "monday 9am" on a Monday after nine: next week's. */
		if (*at > ctx->now_ms || tp->day != WHEN_DAY_WEEKDAY ||
		    delta != 0)
			break;
		delta = 7;
	}
	if (*at <= ctx->now_ms && !tp->have_date &&
	    tp->day != WHEN_DAY_TOMORROW) {
		if (w.sec != 0)
			return (when_fail(ctx, "is in the past (it was "
			    "%02d:%02d:%02d today)", w.hour, w.min, w.sec));
		return (when_fail(ctx, "is in the past (it was %02d:%02d "
		    "today)", w.hour, w.min));
	}
	snprintf(what, sizeof what, "%04d-%02d-%02d %02d:%02d", w.year, w.mon,
	    w.mday, w.hour, w.min);
	return (when_check_range(ctx, *at, what));
}

/* The one instant showing a local wall reading, or why there is not one. */
static int
when_resolve_local(struct when_ctx *ctx, const struct sched_wall *w,
    int64_t *t)
{
	struct sched_local	 r;
	int64_t			 from, to;
	char			 o0[16], o1[16], z0[16], z1[16];

	sched_local_resolve(w, &r);
	if (r.n == 1) {
		*t = r.t[0];
		return (0);
	}
	sched_offset_format(r.off[0], o0, sizeof o0);
	sched_offset_format(r.off[1], o1, sizeof o1);
	if (r.n == 0) {
		from = ((r.gap_end + r.off[0]) % 86400 + 86400) % 86400;
		to = ((r.gap_end + r.off[1]) % 86400 + 86400) % 86400;
		return (when_fail(ctx, "%04d-%02d-%02d %02d:%02d does not "
		    "exist in %s: clocks go forward from %02d:%02d to "
		    "%02d:%02d (%s to %s)", w->year, w->mon, w->mday, w->hour,
		    w->min, sched_local_zone(), (int)(from / 3600),
		    (int)(from / 60 % 60), (int)(to / 3600),
		    (int)(to / 60 % 60), o0, o1));
	}
	sched_offset_abbrev(r.t[0], z0, sizeof z0);
	sched_offset_abbrev(r.t[1], z1, sizeof z1);
	return (when_fail(ctx, "%04d-%02d-%02d %02d:%02d is ambiguous in %s: "
	    "it happens twice, at %s%s%s%s and %s%s%s%s; add an offset, as in "
	    "%04d-%02d-%02dT%02d:%02d%s", w->year, w->mon, w->mday, w->hour,
	    w->min, sched_local_zone(), o0, *z0 ? " (" : "", z0,
	    *z0 ? ")" : "", o1, *z1 ? " (" : "", z1, *z1 ? ")" : "",
	    w->year, w->mon, w->mday, w->hour, w->min, o0));
}

/* A span of ms as a countdown: "2d 4h", "3h 20m", "12m 5s", "45s". */
const char *
when_countdown(int64_t ms, char *out, size_t len)
{
	long long	s, d, h, m;

	if (ms <= 0) {
		snprintf(out, len, "now");
		return (out);
	}
	s = (ms + 999) / 1000;
	d = s / 86400;
	h = s / 3600 % 24;
	m = s / 60 % 60;
	s %= 60;
	if (d > 0)
		snprintf(out, len, "%lldd %lldh", d, h);
	else if (h > 0)
		snprintf(out, len, "%lldh %lldm", h, m);
	else if (m > 0)
		snprintf(out, len, "%lldm %llds", m, s);
	else
		snprintf(out, len, "%llds", s);
	return (out);
}
