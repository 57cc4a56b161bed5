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
 * time.c: the two clocks.  Wall time (Unix ms) is what records carry;
 * monotonic time is what delays are measured on, so a clock jump never
 * stretches or shortens a backoff.
 */

#include <stdio.h>
#include <time.h>

#include "util/util.h"

/* Wall clock in Unix milliseconds. */
int64_t
time_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Monotonic clock in milliseconds. */
int64_t
time_mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Monotonic microseconds, for tracing latencies. */
int64_t
time_mono_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Format Unix ms as local "YYYY-MM-DD HH:MM:SS"; "-" for 0. */
const char *
time_format(int64_t ms, char *out, size_t len)
{
	time_t		t;
	struct tm	tm;

	if (ms <= 0) {
		snprintf(out, len, "-");
		return (out);
	}
	t = (time_t)(ms / 1000);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(out, len, "@%lld", (long long)t);
	return (out);
}

/* Format a span of ms as a short age: "42s", "3m", "5h", "2d". */
const char *
time_age(int64_t ms, char *out, size_t len)
{
	int64_t	s = ms / 1000;

	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, len, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, len, "%lldh", (long long)(s / 3600));
	else
		snprintf(out, len, "%lldd", (long long)(s / 86400));
	return (out);
}
