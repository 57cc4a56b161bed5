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
 * cron.c: 5-field cron expressions and their next firing.  Fields are
 * minute, hour, day of month, month and day of week, each "*", a number or
 * name, a range "a-b", any of those followed by a step "/n" ("a/n" runs from
 * a to the end of the range), or a comma list of those; names are JAN-DEC
 * and SUN-SAT (or in full, any case), 7 is Sunday too, and "fri-sun" wraps.
 * As in Vixie cron, when both day fields are restricted (neither starts
 * with "*") a day matches if either does.
 * Shorthands: @hourly @daily @midnight @weekly @monthly @yearly @annually.
 *
 * Firing times are local wall clock readings (TZ honoured).  The DST rule
 * is cronie's.  A job whose minute or hour field starts with "*" (a "wild"
 * one, @hourly too) follows the wall clock as it is: it fires whenever the
 * clock shows a matching reading, twice for a reading a fall-back repeats,
 * never for one a spring-forward skips.  A job at fixed times fires once a
 * day as planned: a reading skipped by a spring-forward fires at the first
 * valid minute after the gap, once however many skipped readings match; a
 * reading repeated by a fall-back fires once, at its first occurrence.  The
 * search walks days, skipping months and days that cannot match, and within
 * a day only the hours and minutes that can, so it never steps minute by
 * minute.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "sched/sched.h"
#include "sched/sched-int.h"

#define CRON_MAX_TEXT		256
#define CRON_MDAY_STAR		0x1	/* day of month starts with "*" */
#define CRON_WDAY_STAR		0x2	/* day of week starts with "*" */
#define CRON_WILD		0x4	/* minute or hour starts with "*" */
#define CRON_DST_REACH		(3 * 3600)	/* no fall-back repeats more */

struct cron {
	char		*text;
	uint64_t	 minute;	/* bits 0-59 */
	uint32_t	 hour;		/* bits 0-23 */
	uint32_t	 mday;		/* bits 1-31 */
	uint32_t	 month;		/* bits 1-12 */
	uint32_t	 wday;		/* bits 0-6, Sunday 0 */
	int		 flags;
};

static const char *cron_month_names[] = {
	"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
	"nov", "dec", NULL
};
static const char *cron_month_full[] = {
	"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december", NULL
};
static const char *cron_wday_names[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL
};
static const char *cron_wday_full[] = {
	"sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", NULL
};

/* The five fields: their names, ranges and value names (value = min + i). */
static const struct cron_field {
	const char	 *name;
	int		  min;
	int		  max;
	const char	**names;
	const char	**full;
} cron_fields[5] = {
	{ "minute", 0, 59, NULL, NULL },
	{ "hour", 0, 23, NULL, NULL },
	{ "day of month", 1, 31, NULL, NULL },
	{ "month", 1, 12, cron_month_names, cron_month_full },
	{ "day of week", 0, 7, cron_wday_names, cron_wday_full }
};

/* The shorthands and what they stand for. */
static const struct cron_macro {
	const char	*name;
	const char	*expansion;
} cron_macros[] = {
	{ "@hourly", "0 * * * *" },
	{ "@daily", "0 0 * * *" },
	{ "@midnight", "0 0 * * *" },
	{ "@weekly", "0 0 * * 0" },
	{ "@monthly", "0 0 1 * *" },
	{ "@yearly", "0 0 1 1 *" },
	{ "@annually", "0 0 1 1 *" }
};

/* Where a field's text is while it is parsed, for error messages. */
struct cron_ctx {
	int		 field;		/* 0-4 */
	const char	*start;		/* the field's text */
	size_t		 len;
	int		 col;		/* of start, 1-based */
	char		*why;
};

static int	 cron_fail(struct cron_ctx *, const char *, int, ...)
		     printflike(2, 4);
static const char *cron_expand(const char *, char **);
static int	 cron_split(const char *, const char **, size_t *);
static int	 cron_parse_field(struct cron_ctx *, uint64_t *, int *);
static int	 cron_parse_item(struct cron_ctx *, const char *,
		     const char *, uint64_t *);
static int	 cron_parse_value(struct cron_ctx *, const char **,
		     const char *, int *, int *);
static int	 cron_day_matches(const struct cron *, int, int);
static int	 cron_instants(const struct cron *, int, int, int, int, int,
		     int64_t *, int64_t *);

/* Record why a field is refused, at a column; always returns -1. */
static int
cron_fail(struct cron_ctx *ctx, const char *fmt, int col, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, col);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	free(ctx->why);
	xasprintf(&ctx->why, "cron: field %d (%s) \"%.*s\": %s at column %d",
	    ctx->field + 1, cron_fields[ctx->field].name, (int)ctx->len,
	    ctx->start, msg, col);
	free(msg);
	return (-1);
}

/* The five fields a shorthand stands for, or the text itself. */
static const char *
cron_expand(const char *text, char **cause)
{
	const char	*s;
	size_t		 i, len;

	for (s = text; isspace((unsigned char)*s); s++)
		/* nothing */;
	if (*s != '@')
		return (text);
	for (len = 0; s[len] != '\0' && !isspace((unsigned char)s[len]); len++)
		/* nothing */;
	for (i = 0; i < nitems(cron_macros); i++) {
		if (len == strlen(cron_macros[i].name) &&
		    strncasecmp(s, cron_macros[i].name, len) == 0)
			break;
	}
	if (i == nitems(cron_macros)) {
		if (len == 7 && strncasecmp(s, "@reboot", 7) == 0)
			xasprintf(cause, "cron: @reboot is not supported; "
			    "schedules fire at times");
		else
			xasprintf(cause, "cron: unknown \"%.*s\" (use @hourly, "
			    "@daily, @midnight, @weekly, @monthly, @yearly or "
			    "@annually)", (int)len, s);
		return (NULL);
	}
	for (s += len; isspace((unsigned char)*s); s++)
		/* nothing */;
	if (*s != '\0') {
		xasprintf(cause, "cron: unexpected \"%s\" after %s at column "
		    "%d", s, cron_macros[i].name, (int)(s - text) + 1);
		return (NULL);
	}
	return (cron_macros[i].expansion);
}

/* Parse a cron expression, or return NULL with the field and column. */
struct cron *
cron_parse(const char *text, char **cause)
{
	struct cron	*c;
	struct cron_ctx	 ctx;
	const char	*expr, *s, *start[5];
	uint64_t	 bits[5];
	int		 star[5], n = 0, i;
	size_t		 len[5];

	if (strlen(text) > CRON_MAX_TEXT) {
		xasprintf(cause, "cron: too long (%zu characters, the limit "
		    "is %d)", strlen(text), CRON_MAX_TEXT);
		return (NULL);
	}
	for (s = text; *s != '\0'; s++) {
		if ((unsigned char)*s >= 0x80 || (iscntrl((unsigned char)*s) &&
		    !isspace((unsigned char)*s))) {
			xasprintf(cause, "cron: unexpected character at column "
			    "%d", (int)(s - text) + 1);
			return (NULL);
		}
	}
	if ((expr = cron_expand(text, cause)) == NULL)
		return (NULL);
	if ((n = cron_split(expr, start, len)) != 5) {
		xasprintf(cause, "cron: %s; expected 5 fields (minute hour "
		    "day-of-month month day-of-week)%s", n == 0 ? "empty" :
		    n < 5 ? "too few fields" : "too many fields",
		    n == 6 ? ", and no seconds or year field" : "");
		return (NULL);
	}

	memset(&ctx, 0, sizeof ctx);
	for (i = 0; i < 5; i++) {
		ctx.field = i;
		ctx.start = start[i];
		ctx.len = len[i];
		ctx.col = (int)(start[i] - expr) + 1;
		bits[i] = 0;
		if (cron_parse_field(&ctx, &bits[i], &star[i]) != 0) {
			*cause = ctx.why;
			return (NULL);
		}
	}
	c = xcalloc(1, sizeof *c);
	for (s = text; isspace((unsigned char)*s); s++)
		/* nothing */;
	for (n = (int)strlen(s); n > 0 && isspace((unsigned char)s[n - 1]); n--)
		/* nothing */;
	c->text = xstrndup(s, n);
	c->minute = bits[0];
	c->hour = (uint32_t)bits[1];
	c->mday = (uint32_t)bits[2];
	c->month = (uint32_t)bits[3];
	c->wday = (uint32_t)bits[4];
	if (star[2])
		c->flags |= CRON_MDAY_STAR;
	if (star[4])
		c->flags |= CRON_WDAY_STAR;
	if (star[0] || star[1])
		c->flags |= CRON_WILD;
	return (c);
}

/* Find the blank-separated fields (the first five); returns how many. */
static int
cron_split(const char *s, const char **start, size_t *len)
{
	int	n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			return (n);
		if (n < 5)
			start[n] = s;
		while (*s != '\0' && !isspace((unsigned char)*s))
			s++;
		if (n < 5)
			len[n] = s - start[n];
		n++;
	}
}

/* One field: a comma list of items, each setting bits. */
static int
cron_parse_field(struct cron_ctx *ctx, uint64_t *bits, int *star)
{
	const char	*p = ctx->start, *end = ctx->start + ctx->len, *q;

	*star = (*p == '*');
	for (;;) {
		for (q = p; q < end && *q != ','; q++)
			/* nothing */;
		if (q == p)
			return (cron_fail(ctx, "empty list item",
			    ctx->col + (int)(p - ctx->start)));
		if (cron_parse_item(ctx, p, q, bits) != 0)
			return (-1);
		if (q == end)
			return (0);
		p = q + 1;
		if (p == end)
			return (cron_fail(ctx, "empty list item",
			    ctx->col + (int)(p - ctx->start)));
	}
}

/* One item: "*", "a", "a-b", each optionally followed by "/step". */
static int
cron_parse_item(struct cron_ctx *ctx, const char *p, const char *end,
    uint64_t *bits)
{
	const struct cron_field	*f = &cron_fields[ctx->field];
	const char		*at, *item = p;
	int			 lo, hi, step = 1, range = 0, name, v;

	if (*p == '*') {
		lo = f->min;
		hi = (f->max == 7) ? 6 : f->max;
		range = 1;
		p++;
	} else {
		if (cron_parse_value(ctx, &p, end, &lo, &name) != 0)
			return (-1);
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (cron_parse_value(ctx, &p, end, &hi, &name) != 0)
				return (-1);
			if (ctx->field == 4 && hi == 0 && name && lo > 0)
				hi = 7;		/* "fri-sun" */
			if (hi < lo)
				return (cron_fail(ctx, "range %d-%d is "
				    "backwards", ctx->col + (int)(item -
				    ctx->start), lo, hi));
			range = 1;
		}
	}
	if (p < end && *p == '/') {
		at = ++p;
		for (step = 0; p < end && isdigit((unsigned char)*p) &&
		    step < 1000; p++)
			step = step * 10 + (*p - '0');
		if (p == at)
			return (cron_fail(ctx, "expected a step after \"/\"",
			    ctx->col + (int)(at - ctx->start)));
		if (step < 1 || step > f->max - f->min)
			return (cron_fail(ctx, "step %d out of range 1-%d",
			    ctx->col + (int)(at - ctx->start), step,
			    f->max - f->min));
		if (!range)
			hi = f->max;		/* "5/15" is "5-max/15" */
	}
	if (p < end)
		return (cron_fail(ctx, "unexpected \"%.*s\"",
		    ctx->col + (int)(p - ctx->start), (int)(end - p), p));
	for (v = lo; v <= hi; v += step)
		*bits |= (uint64_t)1 << (ctx->field == 4 && v == 7 ? 0 : v);
	return (0);
}

/* A number or a name in a field; *name says which it was. */
static int
cron_parse_value(struct cron_ctx *ctx, const char **pp, const char *end,
    int *v, int *name)
{
	const struct cron_field	*f = &cron_fields[ctx->field];
	const char		*p = *pp, *s = *pp;
	int			 col, i;
	size_t			 len;

	col = ctx->col + (int)(s - ctx->start);
	*name = 0;
	if (p < end && isdigit((unsigned char)*p)) {
		for (*v = 0; p < end && isdigit((unsigned char)*p); p++) {
			if (*v < 1000)
				*v = *v * 10 + (*p - '0');
		}
		if (*v < f->min || *v > f->max)
			return (cron_fail(ctx, "%.*s is out of range %d-%d",
			    col, (int)(p - s), s, f->min, f->max));
		*pp = p;
		return (0);
	}
	if (p == end || !isalpha((unsigned char)*p)) {
		if (p < end && *p == '?')
			return (cron_fail(ctx, "\"?\" is not supported (use *)",
			    col));
		return (cron_fail(ctx, "expected a number%s", col,
		    f->names != NULL ? " or a name" : ""));
	}
	while (p < end && isalpha((unsigned char)*p))
		p++;
	len = p - s;
	if (f->names == NULL)
		return (cron_fail(ctx, "unexpected \"%.*s\" (this field takes "
		    "numbers)", col, (int)len, s));
	for (i = 0; f->names[i] != NULL; i++) {
		if ((len == 3 && strncasecmp(s, f->names[i], 3) == 0) ||
		    (len == strlen(f->full[i]) &&
		    strncasecmp(s, f->full[i], len) == 0)) {
			*v = f->min + i;
			*name = 1;
			*pp = p;
			return (0);
		}
	}
	return (cron_fail(ctx, "unknown name \"%.*s\" (use %s)", col,
	    (int)len, s, ctx->field == 3 ? "JAN-DEC" : "SUN-SAT"));
}

/* Free a parsed expression. */
void
cron_free(struct cron *c)
{
	if (c == NULL)
		return;
	free(c->text);
	free(c);
}

/* The expression as given (trimmed), for listing a schedule. */
const char *
cron_text(const struct cron *c)
{
	return (c->text);
}

/* Whether a day matches: both day fields, or either when both restrict. */
static int
cron_day_matches(const struct cron *c, int mday, int wday)
{
	int	dom, dow;

	dom = (c->mday >> mday) & 1;
	dow = (c->wday >> wday) & 1;
	if (c->flags & (CRON_MDAY_STAR|CRON_WDAY_STAR))
		return (dom && dow);
	return (dom || dow);
}

/*
 * The instants a local wall minute fires at, by the DST rule, in order: a
 * wild job's every occurrence (none in a gap), a fixed job's first one or
 * the end of the gap that skipped it.  Returns how many (0 to 2); *low is
 * the earliest instant any of them could be, also when there are none.
 */
static int
cron_instants(const struct cron *c, int y, int mon, int d, int h, int mi,
    int64_t *t, int64_t *low)
{
	struct sched_wall	w = { y, mon, d, h, mi, 0 };
	struct sched_local	r;
	int			i;

	sched_local_resolve(&w, &r);
	if (r.n == 0) {
		*low = (r.gap_end + 59) / 60 * 60;
		if (c->flags & CRON_WILD)
			return (0);
		t[0] = *low;
		return (1);
	}
	*low = r.t[0];
	if ((c->flags & CRON_WILD) == 0)
		r.n = 1;
	for (i = 0; i < r.n; i++)
		t[i] = r.t[i];
	return (r.n);
}

/*
 * The first firing strictly after after_ms.  The first occurrences of wall
 * minutes come in the order of the minutes, so walk the wall calendar
 * forward and stop at the first minute that cannot beat the best found.  A
 * wild job's second occurrence of a repeated reading lies up to a
 * fall-back's length later than its first, so near a change of offset the
 * walk starts that much before the wall reading at after_ms.  (Not
 * elsewhere: catching up after downtime calls this once a missed instant.)
 */
int64_t
cron_next(const struct cron *c, int64_t after_ms)
{
	struct sched_wall	 w;
	int64_t			 after_s, days, last, t[2], low, limit;
	int64_t			 best = -1, back = 0;
	long			 off;
	int			 y, m, d, h, mi, i, n, first = 1;

	tzset();
	after_s = after_ms / 1000 - (after_ms % 1000 < 0);
	limit = after_s + (int64_t)(CRON_MAX_AHEAD_YEARS * 366) * 86400;
	if (c->flags & CRON_WILD) {
		off = sched_local_offset(after_s);
		if (sched_local_offset(after_s - CRON_DST_REACH) != off ||
		    sched_local_offset(after_s + CRON_DST_REACH) != off)
			back = CRON_DST_REACH;
	}
	sched_local_wall(after_s - back, &w);
	days = sched_days_from_civil(w.year, w.mon, w.mday);
	last = days + CRON_MAX_AHEAD_YEARS * 366 + 1;
	for (; days <= last; days++, first = 0) {
		/* No zone is more than a day off UTC. */
		if (best != -1 && (days - 2) * 86400 > best)
			break;
		sched_civil_from_days(days, &y, &m, &d);
		if (((c->month >> m) & 1) == 0) {
			days = sched_days_from_civil(m == 12 ? y + 1 : y,
			    m == 12 ? 1 : m + 1, 1) - 1;
			continue;
		}
		if (!cron_day_matches(c, d, sched_weekday(days)))
			continue;
		for (h = first ? w.hour : 0; h < 24; h++) {
			if (((c->hour >> h) & 1) == 0)
				continue;
			for (mi = (first && h == w.hour) ? w.min : 0; mi < 60;
			    mi++) {
				if (((c->minute >> mi) & 1) == 0)
					continue;
				n = cron_instants(c, y, m, d, h, mi, t, &low);
				if (best != -1 && low > best)
					goto done;
				for (i = 0; i < n; i++) {
					if (t[i] * 1000 > after_ms &&
					    (best == -1 || t[i] < best))
						best = t[i];
				}
			}
		}
	}
done:
	if (best == -1 || best > limit)
		return (-1);
	return (best * 1000);
}
