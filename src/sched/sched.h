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
 * sched.h: time as people write it.  when.c turns a "--at" expression
 * ("in 30 minutes", "tomorrow 9am", ISO 8601, "@UNIXTIME") into an instant;
 * cron.c parses 5-field cron expressions and finds their next firing in the
 * local zone with cronie's DST rule; zone.c checks a zone name and finds a
 * firing in that zone.  Pure: no SQLite, no clock reads (callers pass
 * "now"), only the C library's zone rules via TZ and the zone database.
 */

#ifndef SLUICE_SCHED_H
#define SLUICE_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* The furthest ahead a --at time may lie (when_parse refuses beyond it). */
#define WHEN_MAX_AHEAD_MS	((int64_t)3653 * 86400 * 1000) /* 10 years */
/* How far ahead cron_next looks before giving up with -1. */
#define CRON_MAX_AHEAD_YEARS	5

/* when.c */
int		 when_parse(const char *, int64_t, int64_t *, char **);
		 /* 0 and *at_ms set, or -1 with a one-line reason in *cause;
		    text in the local zone (TZ honoured), now in Unix ms */
const char	*when_countdown(int64_t, char *, size_t);
		 /* a span of ms as "2d 4h", "3h 20m", "12m 5s" or "45s"
		    (seconds rounded up); "now" if <= 0 */

/* cron.c */
struct cron;
struct cron	*cron_parse(const char *, char **);
		 /* NULL with a one-line reason naming the field and column */
int64_t		 cron_next(const struct cron *, int64_t);
		 /* first firing strictly after the given Unix ms, local zone;
		    -1 if none within CRON_MAX_AHEAD_YEARS */
void		 cron_free(struct cron *);
const char	*cron_text(const struct cron *);	/* as given, trimmed */

/* zone.c */
struct sched_zone_saved {
	int	 pushed;
	char	*tz;		/* TZ before, NULL: unset */
};
int		 sched_zone_check(const char *, char **);
void		 sched_zone_push(const char *, struct sched_zone_saved *);
void		 sched_zone_pop(struct sched_zone_saved *);
		 /* 0 if an IANA zone the zone database has, else -1 and
		    a one-line reason */
int64_t		 cron_next_in(const struct cron *, const char *, int64_t);
		 /* cron_next in that zone (NULL or "": the local one) */

#endif /* SLUICE_SCHED_H */
