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
 * when-clock.c: the absolute pieces of the --at grammar (when.c): a date,
 * an ISO 8601 date and time in one word, a time of day (9am, 21:15:30,
 * noon) and a UTC offset, each refused with its column when malformed.
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

static const char *when_months[] = {
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"
};

static const char *when_parse_hms(struct when_ctx *, const char *,
		     const char *, int, struct when_parts *);
static int	 when_parse_pair(struct when_ctx *, const char *,
		     const char *, int, const char *, int *);
static int	 when_parse_ampm(struct when_ctx *, const char *, int,
		     struct when_parts *);
static int	 when_parse_zone(struct when_ctx *, const char *,
		     const char *, int, struct when_parts *);

/* "2026-12-01", or ISO 8601 "2026-12-01T09:00:00.5+02:00" in one word. */
int
when_parse_date(struct when_ctx *ctx, const struct when_word *w,
    struct when_parts *tp)
{
	const char	*s = w->s, *end = w->s + w->len;

	if (tp->have_date)
		return (when_fail(ctx, "a second date at column %d", w->col));
	if (w->len < 10 || !isdigit((unsigned char)s[5]) ||
	    !isdigit((unsigned char)s[6]) || s[7] != '-' ||
	    !isdigit((unsigned char)s[8]) || !isdigit((unsigned char)s[9]))
		return (when_fail(ctx, "expected a date like 2026-12-01 at "
		    "column %d", w->col));
	tp->have_date = 1;
	tp->year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 +
	    (s[2] - '0') * 10 + (s[3] - '0');
	tp->mon = (s[5] - '0') * 10 + (s[6] - '0');
	tp->mday = (s[8] - '0') * 10 + (s[9] - '0');
	if (tp->mon < 1 || tp->mon > 12)
		return (when_fail(ctx, "month %02d out of range 01-12 at "
		    "column %d", tp->mon, w->col + 5));
	if (tp->mday < 1 ||
	    tp->mday > sched_days_in_month(tp->year, tp->mon))
		return (when_fail(ctx, "day %02d out of range at column %d: "
		    "%s %d has %d days", tp->mday, w->col + 8,
		    when_months[tp->mon - 1], tp->year,
		    sched_days_in_month(tp->year, tp->mon)));
	if (w->len == 10)
		return (0);
	if (s[10] != 't')
		return (when_fail(ctx, "unexpected \"%.*s\" at column %d after "
		    "a date", (int)(w->len - 10), ctx->text + w->col + 9,
		    w->col + 10));
	if (w->len < 16 || !isdigit((unsigned char)s[11]) ||
	    !isdigit((unsigned char)s[12]) || s[13] != ':')
		return (when_fail(ctx, "expected HH:MM after \"T\" at column "
		    "%d", w->col + 11));
	if (tp->have_time)
		return (when_fail(ctx, "a second time at column %d",
		    w->col + 11));
	return (when_parse_clock(ctx, s + 11, end, w->col + 11, tp, -1));
}

/*
 * A clock time from s to end: "9", "09:30", "9:30:15.250", then "am"/"pm"
 * (attached, or as the next word, index next) or a UTC offset.  Returns 1
 * if it took the next word, 0 if not, -1 on error.
 */
int
when_parse_clock(struct when_ctx *ctx, const char *s, const char *end,
    int col, struct when_parts *tp, int next)
{
	const struct when_word	*nw = next == -1 ? NULL : &ctx->words[next];
	const char		*p, *orig = ctx->text + col - 1;
	int			 colon;

	if ((p = when_parse_hms(ctx, s, end, col, tp)) == NULL)
		return (-1);
	colon = (memchr(s, ':', p - s) != NULL);
	tp->have_time = 1;
	snprintf(tp->time_word, sizeof tp->time_word, "%.*s", (int)(p - s),
	    orig);

	if (p < end && (*p == 'z' || *p == '+' || *p == '-')) {
		if (!colon)
			return (when_fail(ctx, "expected HH:MM before the UTC "
			    "offset at column %d", col + (int)(p - s)));
		if (when_parse_zone(ctx, p, end, col + (int)(p - s), tp) != 0)
			return (-1);
	} else if (end - p == 2 && (*p == 'a' || *p == 'p') && p[1] == 'm') {
		snprintf(tp->time_word, sizeof tp->time_word, "%.*s",
		    (int)(end - s), orig);
		return (when_parse_ampm(ctx, p, col, tp));
	} else if (p < end)
		return (when_fail(ctx, "unexpected \"%.*s\" in a time at "
		    "column %d", (int)(end - p), orig + (p - s),
		    col + (int)(p - s)));
	else if (nw != NULL && (when_is(nw, "am") || when_is(nw, "pm"))) {
		snprintf(tp->time_word, sizeof tp->time_word, "%.*s %.2s",
		    (int)(p - s), orig, ctx->text + nw->col - 1);
		if (when_parse_ampm(ctx, nw->s, col, tp) != 0)
			return (-1);
		return (1);
	} else if (!colon && nw != NULL && when_is_unit(nw))
		return (when_fail(ctx, "a bare number \"%.*s\" at column %d; "
		    "did you mean \"in %.*s %.*s\"?", (int)(p - s), orig, col,
		    (int)(p - s), orig, (int)nw->len, ctx->text + nw->col - 1));
	else if (!colon)
		return (when_fail(ctx, "a bare number \"%.*s\" at column %d is "
		    "ambiguous; write %.*sam, %.*s:00 or \"in %.*s hours\"",
		    (int)(p - s), orig, col, (int)(p - s), orig, (int)(p - s),
		    orig, (int)(p - s), orig));

	if (tp->hour == 24)
		return (when_fail(ctx, "24:00 at column %d is not accepted; "
		    "write 00:00 of the next day", col));
	if (tp->hour > 23)
		return (when_fail(ctx, "hour %d out of range 0-23 at column %d",
		    tp->hour, col));
	return (0);
}

/* The digits of a clock time, "9", "09:30", "9:30:15.250"; NULL if bad. */
static const char *
when_parse_hms(struct when_ctx *ctx, const char *s, const char *end, int col,
    struct when_parts *tp)
{
	const char	*p = s;
	int		 n, scale;

	for (n = 0; p < end && isdigit((unsigned char)*p); p++, n++)
		tp->hour = tp->hour * 10 + (*p - '0');
	if (n > 2) {
		when_fail(ctx, "expected a time like 09:30 or 9am at column %d",
		    col);
		return (NULL);
	}
	if (p == end || *p != ':')
		return (p);
	if (when_parse_pair(ctx, p, end, col + (int)(p - s), "minute",
	    &tp->min) != 0)
		return (NULL);
	p += 3;
	if (p == end || *p != ':')
		return (p);
	if (when_parse_pair(ctx, p, end, col + (int)(p - s), "second",
	    &tp->sec) != 0)
		return (NULL);
	p += 3;
	if (p == end || (*p != '.' && *p != ','))
		return (p);
	for (p++, n = 0, scale = 100; p < end && isdigit((unsigned char)*p);
	    p++, n++, scale /= 10)
		tp->msec += (*p - '0') * scale;
	if (n == 0 || n > 9) {
		when_fail(ctx, "expected 1 to 9 digits of fractional seconds "
		    "at column %d", col + (int)(p - s) - n);
		return (NULL);
	}
	return (p);
}

/* Two digits 00-59 after the colon at p (column col), minutes or seconds. */
static int
when_parse_pair(struct when_ctx *ctx, const char *p, const char *end, int col,
    const char *what, int *v)
{
	if (end - p < 3 || !isdigit((unsigned char)p[1]) ||
	    !isdigit((unsigned char)p[2]))
		return (when_fail(ctx, "%ss need two digits at column %d", what,
		    col + 1));
	*v = (p[1] - '0') * 10 + (p[2] - '0');
	if (*v > 59)
		return (when_fail(ctx, "%s %02d out of range 00-59 at column "
		    "%d", what, *v, col + 1));
	return (0);
}

/* Apply "am" or "pm" to the hour read at column col. */
static int
when_parse_ampm(struct when_ctx *ctx, const char *ampm, int col,
    struct when_parts *tp)
{
	if (tp->hour < 1 || tp->hour > 12)
		return (when_fail(ctx, "\"%s\" at column %d: the hour must be "
		    "1-12 before am/pm", tp->time_word, col));
	if (tp->hour == 12)
		tp->hour = 0;
	if (*ampm == 'p')
		tp->hour += 12;
	return (0);
}

/* A UTC offset: "z", "+02:00", "+0200", "+02", "-05:30". */
static int
when_parse_zone(struct when_ctx *ctx, const char *p, const char *end,
    int col, struct when_parts *tp)
{
	const char	*s = p, *orig = ctx->text + col - 1;
	int		 sign, hh, mm = 0;

	tp->have_off = 1;
	tp->off = 0;
	if (*p == 'z') {
		if (end - p == 1)
			return (0);
		return (when_fail(ctx, "unexpected \"%.*s\" after Z at column "
		    "%d", (int)(end - p - 1), orig + 1, col + 1));
	}
	sign = (*p++ == '-') ? -1 : 1;
	if (end - p < 2 || !isdigit((unsigned char)p[0]) ||
	    !isdigit((unsigned char)p[1]))
		goto bad;
	hh = (p[0] - '0') * 10 + (p[1] - '0');
	p += 2;
	if (p < end && *p == ':')
		p++;
	if (p < end) {
		if (end - p != 2 || !isdigit((unsigned char)p[0]) ||
		    !isdigit((unsigned char)p[1]))
			goto bad;
		mm = (p[0] - '0') * 10 + (p[1] - '0');
	} else if (p[-1] == ':')
		goto bad;
	if (hh > 18 || mm > 59 || (hh == 18 && mm != 0))
		return (when_fail(ctx, "UTC offset \"%.*s\" at column %d out "
		    "of range (at most 18:00)", (int)(end - s), orig, col));
	tp->off = sign * (hh * 3600L + mm * 60L);
	return (0);

bad:
	return (when_fail(ctx, "bad UTC offset \"%.*s\" at column %d "
	    "(expected +HH:MM, +HHMM or +HH)", (int)(end - s), orig, col));
}
