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
 * local.c: the local zone's wall clock.  Converting a wall clock reading to
 * an instant is where DST bites: a reading can happen once, never (skipped
 * by a spring-forward) or twice (repeated at a fall-back).  This file finds
 * all of them from the C library's zone rules (localtime_r, so TZ is
 * honoured) with its own civil date arithmetic, so callers can decide.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched-int.h"

#define LOCAL_REACH	(27 * 3600)	/* no UTC offset is larger */
#define LOCAL_STEP	(30 * 60)	/* no offset lasts a shorter time */
#define LOCAL_MAX_OFFS	8

static int	local_offsets(int64_t, long *);

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's). */
int64_t
sched_days_from_civil(int64_t y, int m, int d)
{
	int64_t	era, yoe, doy, doe;

	y -= (m <= 2);
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468);
}

/* The date of a count of days since 1970-01-01: the inverse of the above. */
void
sched_civil_from_days(int64_t z, int *y, int *m, int *d)
{
	int64_t	era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* How many days a month has, for refusing February 30th. */
int
sched_days_in_month(int y, int m)
{
	static const int	days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return (29);
	return (days[m - 1]);
}

/* The weekday (0 Sunday) of a count of days since 1970-01-01, a Thursday. */
int
sched_weekday(int64_t days)
{
	int64_t	w;

	w = (days + 4) % 7;
	return ((int)(w < 0 ? w + 7 : w));
}

/* A wall clock reading as if it were UTC, in seconds since the epoch. */
int64_t
sched_wall_seconds(const struct sched_wall *w)
{
	return (sched_days_from_civil(w->year, w->mon, w->mday) * 86400 +
	    w->hour * 3600 + w->min * 60 + w->sec);
}

/* The local zone's UTC offset in seconds at an instant. */
long
sched_local_offset(int64_t t)
{
	time_t		tt = (time_t)t;
	struct tm	tm;

	if (localtime_r(&tt, &tm) == NULL)
		return (0);
	return (tm.tm_gmtoff);
}

/* The local wall clock reading at an instant. */
void
sched_local_wall(int64_t t, struct sched_wall *w)
{
	int64_t	s, days, rem;

	s = t + sched_local_offset(t);
	days = s / 86400;
	rem = s % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	sched_civil_from_days(days, &w->year, &w->mon, &w->mday);
	w->hour = (int)(rem / 3600);
	w->min = (int)(rem / 60 % 60);
	w->sec = (int)(rem % 60);
}

/*
 * The distinct offsets in force within reach of a wall time u: the three
 * ends and middle usually agree, else sample every half hour.
 */
static int
local_offsets(int64_t u, long *offs)
{
	int64_t	t;
	long	o;
	int	n = 0, i;

	offs[n++] = sched_local_offset(u);
	if (sched_local_offset(u - LOCAL_REACH) == offs[0] &&
	    sched_local_offset(u + LOCAL_REACH) == offs[0])
		return (n);
	for (t = u - LOCAL_REACH; t <= u + LOCAL_REACH; t += LOCAL_STEP) {
		o = sched_local_offset(t);
		for (i = 0; i < n; i++) {
			if (offs[i] == o)
				break;
		}
		if (i == n && n < LOCAL_MAX_OFFS)
			offs[n++] = o;
	}
	return (n);
}

/*
 * Find every instant at which the wall clock shows w: an instant t with
 * offset o shows u = t + o, so try t = u - o for each offset near u.  When
 * none does, w lies in a gap: find where it ends by bisection on the wall
 * clock, which only moves forward across a gap.
 */
void
sched_local_resolve(const struct sched_wall *w, struct sched_local *r)
{
	long	offs[LOCAL_MAX_OFFS];
	int64_t	u, t, lo, hi, mid, tmp;
	int	n, i;

	memset(r, 0, sizeof *r);
	u = sched_wall_seconds(w);
	n = local_offsets(u, offs);
	for (i = 0; i < n && r->n < 2; i++) {
		t = u - offs[i];
		if (sched_local_offset(t) != offs[i])
			continue;
		if (r->n == 1 && r->t[0] == t)
			continue;
		r->off[r->n] = offs[i];
		r->t[r->n++] = t;
	}
	if (r->n == 2 && r->t[1] < r->t[0]) {
		tmp = r->t[0]; r->t[0] = r->t[1]; r->t[1] = tmp;
		tmp = r->off[0]; r->off[0] = r->off[1]; r->off[1] = (long)tmp;
	}
	if (r->n != 0)
		return;

	/* First instant whose wall clock reads later than w. */
	lo = u - LOCAL_REACH;
	hi = u + LOCAL_REACH;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (mid + sched_local_offset(mid) > u)
			hi = mid;
		else
			lo = mid;
	}
	r->gap_end = hi;
	r->off[0] = sched_local_offset(hi - 1);
	r->off[1] = sched_local_offset(hi);
}

/* The zone's name for messages: $TZ, else "the local zone". */
const char *
sched_local_zone(void)
{
	const char	*tz;

	tz = getenv("TZ");
	if (tz == NULL || *tz == '\0')
		return ("the local zone");
	if (*tz == ':')
		tz++;
	return (tz);
}

/* A UTC offset in seconds as "+02:00" or "-03:30". */
const char *
sched_offset_format(long off, char *out, size_t len)
{
	char	sign = '+';

	if (off < 0) {
		sign = '-';
		off = -off;
	}
	snprintf(out, len, "%c%02ld:%02ld", sign, off / 3600, off / 60 % 60);
	return (out);
}

/* The zone's abbreviation at an instant ("CEST"), or "" if none is known. */
const char *
sched_offset_abbrev(int64_t t, char *out, size_t len)
{
	time_t		tt = (time_t)t;
	struct tm	tm;

	*out = '\0';
	if (localtime_r(&tt, &tm) != NULL && tm.tm_zone != NULL &&
	    (tm.tm_zone[0] < '0' || tm.tm_zone[0] > '9') &&
	    tm.tm_zone[0] != '+' && tm.tm_zone[0] != '-')
		snprintf(out, len, "%s", tm.tm_zone);
	return (out);
}
