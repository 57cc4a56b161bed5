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
 *
 * A build configured with --enable-test-clock lets tests move the wall
 * clock: $SLUICE_TEST_CLOCK names a file holding either a signed offset in
 * ms added to the real wall time ("7200000", "-86400000"), or "=MS", the
 * wall time at the moment the file was written (its mtime), which then
 * advances with the real clock, or "@MS", a wall clock stopped at MS (screen
 * tests, so the times they show do not move).  The file is looked at no more than every
 * 20 ms of monotonic time and read again only when it changed, so every
 * process sharing it sees the same jump.  Other builds ignore the variable.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#ifdef SLUICE_TEST_CLOCK
/* What the test clock file said when last read. */
static struct {
	int		 have;		/* a file was read and parsed */
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtime;
	int64_t		 offset;	/* ms added to the real wall time */
	int		 stopped;	/* "@MS": offset is the time itself */
} time_test;

static int64_t	time_test_offset(void);
static int	time_test_read(const char *, const struct stat *, int64_t *,
		    int *);
#endif

/* The system's wall clock in Unix milliseconds. */
static int64_t
time_real_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Wall clock in Unix milliseconds (shifted by the test clock if built so). */
int64_t
time_now_ms(void)
{
#ifdef SLUICE_TEST_CLOCK
	int64_t	 offset = time_test_offset();

	if (time_test.have && time_test.stopped)
		return (offset);
	return (time_real_ms() + offset);
#else
	return (time_real_ms());
#endif
}

/* Whether this build honours $SLUICE_TEST_CLOCK, for --version. */
int
time_test_clock(void)
{
#ifdef SLUICE_TEST_CLOCK
	return (1);
#else
	return (0);
#endif
}

#ifdef SLUICE_TEST_CLOCK
/* The current test clock offset, looking at the file at most every 20 ms. */
static int64_t
time_test_offset(void)
{
	const char	*path;
	struct stat	 sb;
	int64_t		 offset;
	int		 stopped;

	/*
	 * A stat on every call: an engine asked by a command right after the
	 * file changed must already see the new time (test builds only).
	 */
	path = getenv("SLUICE_TEST_CLOCK");
	if (path == NULL || *path == '\0' || stat(path, &sb) != 0) {
		time_test.have = 0;
		time_test.offset = 0;
		return (0);
	}
	if (time_test.have && sb.st_dev == time_test.dev &&
	    sb.st_ino == time_test.ino && sb.st_size == time_test.size &&
	    sb.st_mtim.tv_sec == time_test.mtime.tv_sec &&
	    sb.st_mtim.tv_nsec == time_test.mtime.tv_nsec)
		return (time_test.offset);

	/* Half-written or garbled: keep the old offset, look again later. */
	if (time_test_read(path, &sb, &offset, &stopped) != 0)
		return (time_test.offset);
	time_test.stopped = stopped;
	time_test.have = 1;
	time_test.dev = sb.st_dev;
	time_test.ino = sb.st_ino;
	time_test.size = sb.st_size;
	time_test.mtime = sb.st_mtim;
	time_test.offset = offset;
	return (offset);
}

/*
 * Read "[+-]MS" or "=MS" from the test clock file into an offset, or "@MS"
 * into a stopped time.
 */
static int
time_test_read(const char *path, const struct stat *sb, int64_t *offset,
    int *stopped)
{
	char	 text[64], *s;
	ssize_t	 n;
	int	 fd, absolute = 0;
	int64_t	 v, written;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	text[n] = '\0';
	s = str_trim(text);
	*stopped = 0;
	if (*s == '@') {
		*stopped = 1;
		s++;
	} else if (*s == '=') {
		absolute = 1;
		s++;
	} else if (*s == '+')
		s++;
	if (str_parse_int64(s, &v) != 0)
		return (-1);
	if (absolute) {
		written = (int64_t)sb->st_mtim.tv_sec * 1000 +
		    sb->st_mtim.tv_nsec / 1000000;
		v -= written;
	}
	*offset = v;
	return (0);
}
#endif

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

/* Format Unix ms as RFC 3339 in UTC with milliseconds. */
const char *
time_rfc3339(int64_t ms, char *out, size_t len)
{
	struct tm	 tm;
	time_t		 t = (time_t)(ms / 1000);
	char		 day[48];

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(out, len, "?");
	else
		snprintf(out, len, "%s.%03dZ", day, (int)(ms % 1000));
	return (out);
}
