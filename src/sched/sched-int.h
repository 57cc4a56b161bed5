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
 * sched-int.h: what when.c, when-clock.c and cron.c share and nobody else
 * needs: civil date arithmetic and the local zone's wall clock, with its
 * gaps and repeats (DST) made explicit, and the --at grammar's parts.
 */

#ifndef SLUICE_SCHED_INT_H
#define SLUICE_SCHED_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* A wall clock reading in the local zone; mon is 1-12. */
struct sched_wall {
	int	year;
	int	mon;
	int	mday;
	int	hour;
	int	min;
	int	sec;
};

/* The instants at which the local wall clock shows a reading. */
struct sched_local {
	int	 n;		/* 0 (in a gap), 1, or 2 (repeated) */
	int64_t	 t[2];		/* those instants, Unix seconds, ascending */
	long	 off[2];	/* n 2: offsets of t[0] and t[1];
				   n 0: offsets before and after the gap */
	int64_t	 gap_end;	/* n 0: the instant the gap ends */
};

/* local.c */
int64_t		 sched_days_from_civil(int64_t, int, int);
void		 sched_civil_from_days(int64_t, int *, int *, int *);
int		 sched_days_in_month(int, int);
int		 sched_weekday(int64_t);	/* 0 Sunday, from days */
int64_t		 sched_wall_seconds(const struct sched_wall *);
long		 sched_local_offset(int64_t);
void		 sched_local_wall(int64_t, struct sched_wall *);
void		 sched_local_resolve(const struct sched_wall *,
		     struct sched_local *);
const char	*sched_local_zone(void);
const char	*sched_offset_format(long, char *, size_t);
const char	*sched_offset_abbrev(int64_t, char *, size_t);

/* when.c, when-clock.c: the --at grammar's words, parts and context. */
#define WHEN_MAX_TEXT	200
#define WHEN_MAX_WORDS	(WHEN_MAX_TEXT / 2 + 1)

enum when_day {
	WHEN_DAY_NONE,
	WHEN_DAY_TODAY,
	WHEN_DAY_TOMORROW,
	WHEN_DAY_WEEKDAY,	/* the next one still ahead, maybe today */
	WHEN_DAY_NEXT		/* the first one after today */
};

/* One white-space separated word of the lower-cased text. */
struct when_word {
	const char	*s;
	size_t		 len;
	int		 col;		/* 1-based */
};

/* What the words of an absolute expression said. */
struct when_parts {
	enum when_day	 day;
	int		 wday;
	char		 day_word[16];
	int		 have_date;
	int		 year, mon, mday;
	int		 have_time;
	int		 hour, min, sec, msec;
	char		 time_word[40];
	int		 have_off;
	long		 off;
};

struct when_ctx {
	const char		*text;		/* as given */
	char			*low;		/* lower-cased copy */
	struct when_word	 words[WHEN_MAX_WORDS];
	int			 nwords;
	int64_t			 now_ms;
	char			*why;		/* the reason, once failed */
};
int		 when_fail(struct when_ctx *, const char *, ...)
		     printflike(2, 3);
int		 when_is(const struct when_word *, const char *);
int		 when_is_unit(const struct when_word *);
int		 when_parse_date(struct when_ctx *, const struct when_word *,
		     struct when_parts *);
int		 when_parse_clock(struct when_ctx *, const char *,
		     const char *, int, struct when_parts *, int);

#endif /* SLUICE_SCHED_INT_H */
