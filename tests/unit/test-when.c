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
 * test-when.c: the --at grammar.  Every accepted form against instants
 * computed independently (Python's zoneinfo, not src/sched), in
 * America/New_York, Europe/Berlin and Australia/Lord_Howe, including the
 * days clocks change; refusals with their reasons and columns; countdowns;
 * and, in a build with --enable-test-clock, the injectable wall clock.
 */

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "sched/sched.h"
#include "tap.h"

#define NY	"America/New_York"
#define BERLIN	"Europe/Berlin"
#define LHI	"Australia/Lord_Howe"
#define NOW_NY	1764579600LL	/* Monday 2025-12-01 04:00 EST */
#define NOW_BE	1774695600LL	/* Saturday 2026-03-28 12:00 CET */
#define NOW_LH	1775264400LL	/* Saturday 2026-04-04 12:00 +11:00 */

/* Local forms; "at" from python3 zoneinfo: datetime(...).timestamp(). */
static const struct {
	const char	*zone;
	int64_t		 now;		/* s */
	const char	*text;
	int64_t		 at;		/* ms */
} local[] = {
	{ NY, NOW_NY, "tomorrow 9am", 1764684000000LL },
	{ NY, NOW_NY, "tomorrow 09:30", 1764685800000LL },
	{ NY, NOW_NY, "today 17:00", 1764626400000LL },
	{ NY, NOW_NY, "9am", 1764597600000LL },
	{ NY, NOW_NY, "21:15", 1764641700000LL },
	{ NY, NOW_NY, "21:15:30", 1764641730000LL },
	{ NY, NOW_NY, "next monday 09:00", 1765202400000LL },
	{ NY, NOW_NY, "monday 9am", 1764597600000LL },
	{ NY, NOW_NY, "Monday 3am", 1765180800000LL },
	{ NY, NOW_NY, "friday 17:30", 1764973800000LL },
	{ NY, NOW_NY, "next fri 17:30", 1764973800000LL },
	{ NY, NOW_NY, "sun 8pm", 1765155600000LL },
	{ NY, NOW_NY, "2026-12-01 09:00", 1796133600000LL },
	{ NY, NOW_NY, "2026-12-01", 1796101200000LL },
	{ NY, NOW_NY, "2026-07-01 09:00", 1782910800000LL },
	{ NY, NOW_NY, "2026-12-01T09:00", 1796133600000LL },
	{ NY, NOW_NY, "2026-12-01T09:00:30", 1796133630000LL },
	{ NY, NOW_NY, "2026-12-01 9am", 1796133600000LL },
	{ NY, NOW_NY, "12am tomorrow", 1764651600000LL },
	{ NY, NOW_NY, "tomorrow 12pm", 1764694800000LL },
	{ NY, NOW_NY, "tomorrow 12:30am", 1764653400000LL },
	{ NY, NOW_NY, "tomorrow 12:30 PM", 1764696600000LL },
	{ NY, NOW_NY, "9 pm", 1764640800000LL },
	{ NY, NOW_NY, "9:30 PM", 1764642600000LL },
	{ NY, NOW_NY, "noon", 1764608400000LL },
	{ NY, NOW_NY, "tomorrow at noon", 1764694800000LL },
	{ NY, NOW_NY, "at 9pm tomorrow", 1764727200000LL },
	{ NY, NOW_NY, "  TOMORROW   9AM  ", 1764684000000LL },
	{ NY, NOW_NY, "11:59pm", 1764651540000LL },
	{ NY, NOW_NY, "04:01", 1764579660000LL },
	{ NY, NOW_NY, "2026-03-08 03:00", 1772953200000LL },
	{ NY, NOW_NY, "2026-03-08 01:59", 1772953140000LL },
	{ NY, NOW_NY, "2035-11-30 09:00", 2080044000000LL },
	{ BERLIN, NOW_BE, "tomorrow 03:00", 1774746000000LL },
	{ BERLIN, NOW_BE, "tomorrow 01:59", 1774745940000LL },
	{ BERLIN, NOW_BE, "2026-10-25 03:00", 1792893600000LL },
	{ BERLIN, NOW_BE, "2026-10-25 01:59", 1792886340000LL },
	{ BERLIN, NOW_BE, "sunday 9am", 1774767600000LL },
	{ LHI, NOW_LH, "tomorrow 02:00", 1775316600000LL },
	{ LHI, NOW_LH, "tomorrow 01:29", 1775312940000LL },
	{ LHI, NOW_LH, "2026-10-04 02:30", 1791041400000LL },
};

/* Forms that name an instant outright, or a delay from now. */
static const struct {
	const char	*text;
	int64_t		 at;		/* ms; relative to now if delta */
	int		 delta;
} fixed[] = {
	{ "in 30 minutes", 1800000, 1 },
	{ "in 2h", 7200000, 1 },
	{ "in 1h30m", 5400000, 1 },
	{ "in 1h 30m", 5400000, 1 },
	{ "in 90s", 90000, 1 },
	{ "in 2 days", 172800000, 1 },
	{ "in 1.5h", 5400000, 1 },
	{ "in 0.5s", 500, 1 },
	{ "in an hour and 5 minutes", 3900000, 1 },
	{ "in a minute", 60000, 1 },
	{ "IN 2 Hours", 7200000, 1 },
	{ "in 1 week", 604800000, 1 },
	{ "in 3 hrs 2 mins 1 sec", 10921000, 1 },
	{ "in 1d12h", 129600000, 1 },
	{ "in 3650 days", 3650LL * 86400000, 1 },
	{ "2026-12-01T09:00:00.250Z", 1796115600250LL, 0 },
	{ "2026-12-01T09:00:00,5Z", 1796115600500LL, 0 },
	{ "2026-12-01t09:00:00.123456789z", 1796115600123LL, 0 },
	{ "2026-12-01T09:00Z", 1796115600000LL, 0 },
	{ "2026-12-01T09:00+02:00", 1796108400000LL, 0 },
	{ "2026-12-01T09:00:00+0200", 1796108400000LL, 0 },
	{ "2026-12-01T09:00+02", 1796108400000LL, 0 },
	{ "2026-12-01T09:00-05:30", 1796135400000LL, 0 },
	{ "2026-12-01 09:00Z", 1796115600000LL, 0 },
	{ "2026-11-01T01:30-04:00", 1793511000000LL, 0 },
	{ "@1764600000", 1764600000000LL, 0 },
	{ " @1796115600 ", 1796115600000LL, 0 },
	/* The reference engine's bare integer. */
	{ "1764600000", 1764600000000LL, 0 },
	{ " 1796115600 ", 1796115600000LL, 0 },
};

/* Refusals at NOW_NY in New York (or the zone given), with the reason. */
static const struct {
	const char	*zone;
	const char	*text;
	const char	*why;
} bad[] = {
	{ NY, "", "time: empty; try \"in 30 minutes\"" },
	{ NY, "   ", "time: empty" },
	{ NY, "01:00", "time \"01:00\": is in the past (it was 01:00 today)" },
	{ NY, "today 03:59", "is in the past (it was 03:59 today)" },
	{ NY, "04:00", "is in the past (it was 04:00 today)" },
	{ NY, "3am", "time \"3am\": is in the past (it was 03:00 today)" },
	{ NY, "2025-11-30 09:00", "2025-11-30 09:00 is in the past" },
	{ NY, "1970-01-01", "1970-01-01 00:00 is in the past" },
	{ NY, "@1764579600", "the Unix time is in the past" },
	{ NY, "@1000", "the Unix time is in the past" },
	{ NY, "2026-03-08 02:30", "2026-03-08 02:30 does not exist in "
	    "America/New_York: clocks go forward from 02:00 to 03:00 (-05:00 "
	    "to -04:00)" },
	{ NY, "2026-11-01 01:30", "2026-11-01 01:30 is ambiguous in "
	    "America/New_York: it happens twice, at -04:00 (EDT) and -05:00 "
	    "(EST); add an offset, as in 2026-11-01T01:30-04:00" },
	{ BERLIN, "tomorrow 02:30", "2026-03-29 02:30 does not exist in "
	    "Europe/Berlin: clocks go forward from 02:00 to 03:00" },
	{ BERLIN, "2026-10-25 02:00", "is ambiguous in Europe/Berlin: it "
	    "happens twice, at +02:00 (CEST) and +01:00 (CET)" },
	{ LHI, "2026-10-04 02:15", "does not exist in Australia/Lord_Howe: "
	    "clocks go forward from 02:00 to 02:30 (+10:30 to +11:00)" },
	{ LHI, "tomorrow 01:45", "2026-04-05 01:45 is ambiguous in "
	    "Australia/Lord_Howe: it happens twice, at +11:00" },
	{ NY, "13pm", "\"13pm\" at column 1: the hour must be 1-12 before "
	    "am/pm" },
	{ NY, "0am", "the hour must be 1-12 before am/pm" },
	{ NY, "tomorrow 0 pm", "\"0 pm\" at column 10: the hour must be 1-12" },
	{ NY, "24:00", "24:00 at column 1 is not accepted; write 00:00 of the "
	    "next day" },
	{ NY, "tomorrow 25:00", "hour 25 out of range 0-23 at column 10" },
	{ NY, "09:60", "minute 60 out of range 00-59 at column 4" },
	{ NY, "09:00:60", "second 60 out of range 00-59 at column 7" },
	{ NY, "9:5", "minutes need two digits at column 3" },
	{ NY, "2026-02-30", "day 30 out of range at column 9: February 2026 "
	    "has 28 days" },
	{ NY, "2027-02-29 09:00", "February 2027 has 28 days" },
	{ NY, "2026-04-31", "April 2026 has 30 days" },
	{ NY, "2026-13-01", "month 13 out of range 01-12 at column 6" },
	{ NY, "2026-1-05", "expected a date like 2026-12-01 at column 1" },
	{ NY, "tomorow 9am", "unknown word \"tomorow\" at column 1 (did you "
	    "mean \"tomorrow\"?)" },
	{ NY, "9am tommorow", "(did you mean \"tomorrow\"?)" },
	{ NY, "next mnday 9am", "expected a weekday after \"next\" at column "
	    "1" },
	{ NY, "wensday 9am", "(did you mean \"wednesday\"?)" },
	{ NY, "whenever", "unknown word \"whenever\" at column 1; try \"in 30 "
	    "minutes\"" },
	{ NY, "soon", "unknown word \"soon\" at column 1 (did you mean "
	    "\"noon\"?)" },
	{ NY, "tomorrow 9am please", "unknown word \"please\" at column 14" },
	{ NY, "9am 10am", "a second time \"10am\" at column 5" },
	{ NY, "tomorrow today 9am", "a second day \"today\" at column 10" },
	{ NY, "2026-12-01 tomorrow 9am", "give a date or \"tomorrow\", not "
	    "both" },
	{ NY, "2026-12-01 2026-12-02", "a second date at column 12" },
	{ NY, "tomorrow", "\"tomorrow\" needs a time of day, as in "
	    "\"tomorrow 9am\"" },
	{ NY, "next monday", "\"next monday\" needs a time of day" },
	{ NY, "midnight", "\"midnight\" is ambiguous" },
	{ NY, "now", "\"now\" is not in the future" },
	{ NY, "yesterday 9am", "\"yesterday\" is in the past" },
	{ NY, "9", "a bare number \"9\" at column 1 is ambiguous; write 9am, "
	    "9:00 or \"in 9 hours\"" },
	{ NY, "30 minutes", "a bare number \"30\" at column 1; did you mean "
	    "\"in 30 minutes\"?" },
	{ NY, "pm", "\"pm\" at column 1 without an hour before it" },
	{ NY, "at", "expected a time after \"at\" at column 1" },
	{ NY, "tomorrow in 2h", "\"in\" at column 10 must come first" },
	{ NY, "9am+02:00", "unexpected \"am+02:00\" in a time at column 2" },
	{ NY, "09:00+02:00", "a UTC offset needs a date" },
	{ NY, "2026-12-01T09", "expected HH:MM after \"T\" at column 12" },
	{ NY, "2026-12-01T", "expected HH:MM after \"T\" at column 12" },
	{ NY, "2026-12-01X09:00", "unexpected \"X09:00\" at column 11 after a "
	    "date" },
	{ NY, "2026-12-01T09:00+2", "bad UTC offset \"+2\" at column 17" },
	{ NY, "2026-12-01T09:00+02:0", "bad UTC offset \"+02:0\"" },
	{ NY, "2026-12-01T09:00+19:00", "UTC offset \"+19:00\" at column 17 "
	    "out of range" },
	{ NY, "2026-12-01T09:00Zulu", "unexpected \"ulu\" after Z at column "
	    "18" },
	{ NY, "2026-12-01T09:00:00.", "expected 1 to 9 digits of fractional "
	    "seconds" },
	{ NY, "2036-01-01", "2036-01-01 00:00 is more than 10 years ahead" },
	{ NY, "in 3654 days", "more than 10 years ahead (the limit)" },
	{ NY, "in 99999999999 hours", "number too large at column 4" },
	{ NY, "@99999999999999999", "Unix time too large at column 2" },
	{ NY, "@", "expected seconds since 1970 after \"@\" at column 2" },
	{ NY, "@12x", "unexpected \"x\" in a Unix time at column 4" },
	{ NY, "@1796115600 tomorrow", "unexpected \"tomorrow\" at column 13 "
	    "after a Unix time" },
	{ NY, "in", "expected a delay after \"in\"" },
	{ NY, "in 30", "missing a unit after \"30\" at column 4 (s, m, h, d "
	    "or w)" },
	{ NY, "in minutes", "expected a number before \"minutes\" at column "
	    "4" },
	{ NY, "in 3 4h", "missing a unit after \"3\" at column 4" },
	{ NY, "in 5 lightyears", "unknown unit \"lightyears\" at column 6 (use "
	    "s, m, h, d or w)" },
	{ NY, "in 5 hors", "unknown unit \"hors\" at column 6 (did you mean "
	    "\"hours\"?)" },
	{ NY, "in 3 months", "\"months\" at column 6: months and years vary in "
	    "length" },
	{ NY, "in 1 year", "months and years vary in length" },
	{ NY, "in 0s", "a delay of zero is not in the future" },
	{ NY, "in -5m", "a delay cannot be negative (column 4)" },
	{ NY, "in 1.2345h", "more than three decimals at column 4" },
	{ NY, "in 2h tomorrow", "unexpected \"tomorrow\" at column 7 after the "
	    "delay" },
	{ NY, "in 5,5m", "unexpected \",\" at column 5" },
	{ NY, "in 1h 1h", "\"h\" at column 8: units must go from larger to "
	    "smaller, each once (as in \"1h30m\")" },
	{ NY, "in 30m 1h", "\"h\" at column 9: units must go from larger" },
	{ NY, "in 1 hour and 2 hours", "\"hours\" at column 17: units must" },
	{ NY, "in 1h 60 minutes 2h", "\"h\" at column 19: units must" },
	{ NY, "tomorrow\t9am\001", "unexpected character at column 13" },
	{ NY, "tomorrow 9am \xc3\xa9", "unexpected character at column 14" },
};

/* Countdowns for the console. */
static const struct {
	int64_t		 ms;
	const char	*out;
} countdown[] = {
	{ -5, "now" },
	{ 0, "now" },
	{ 1, "1s" },
	{ 45000, "45s" },
	{ 59001, "1m 0s" },
	{ 725000, "12m 5s" },
	{ 12000000, "3h 20m" },
	{ 86400000, "1d 0h" },
	{ 187200000, "2d 4h" },
};

static void	 check_local(void);
static void	 check_fixed(void);
static void	 check_bad(void);
static void	 check_test_clock(void);
static void	 zone_set(const char *);

/* Switch the process's zone, as TZ=... would for sluice. */
static void
zone_set(const char *zone)
{
	setenv("TZ", zone, 1);
	tzset();
}

/* Every local form at its zone's "now". */
static void
check_local(void)
{
	char	*cause, what[160];
	int64_t	 at;
	size_t	 i;

	for (i = 0; i < nitems(local); i++) {
		zone_set(local[i].zone);
		at = -1;
		cause = NULL;
		snprintf(what, sizeof what, "%s: \"%s\"", local[i].zone,
		    local[i].text);
		if (!tap_ok(when_parse(local[i].text, local[i].now * 1000, &at,
		    &cause) == 0, "accepts %s", what))
			printf("#   %s\n", cause);
		free(cause);
		tap_is_int(at, local[i].at, what);
	}
}

/* Instants and delays, which no zone changes. */
static void
check_fixed(void)
{
	static const char	*zones[] = { NY, "UTC", LHI };
	char			*cause, what[160];
	int64_t			 at, want, now = NOW_NY * 1000 + 123;
	size_t			 i, z;

	for (z = 0; z < nitems(zones); z++) {
		zone_set(zones[z]);
		for (i = 0; i < nitems(fixed); i++) {
			at = -1;
			cause = NULL;
			if (!tap_ok(when_parse(fixed[i].text, now, &at,
			    &cause) == 0, "%s: accepts \"%s\"", zones[z],
			    fixed[i].text))
				printf("#   %s\n", cause);
			free(cause);
			want = fixed[i].at + (fixed[i].delta ? now : 0);
			snprintf(what, sizeof what, "%s: \"%s\" is %lld",
			    zones[z], fixed[i].text, (long long)want);
			tap_is_int(at, want, what);
		}
	}
}

/* Every refusal: -1 and the reason, on one line. */
static void
check_bad(void)
{
	char	*cause;
	int64_t	 at, now;
	size_t	 i;

	for (i = 0; i < nitems(bad); i++) {
		zone_set(bad[i].zone);
		cause = NULL;
		at = 42;
		now = NOW_NY;
		if (strcmp(bad[i].zone, BERLIN) == 0)
			now = NOW_BE;
		else if (strcmp(bad[i].zone, LHI) == 0)
			now = NOW_LH;
		tap_ok(when_parse(bad[i].text, now * 1000, &at, &cause) == -1,
		    "refuses \"%s\"", bad[i].text);
		if (!tap_ok(cause != NULL && strstr(cause, bad[i].why) != NULL,
		    "reason: %s", bad[i].why))
			printf("#   got: %s\n",
			    cause != NULL ? cause : "(null)");
		tap_ok(cause != NULL && strchr(cause, '\n') == NULL,
		    "one line");
		free(cause);
	}
}

/* The real wall clock, read directly, to compare the test clock with. */
static int64_t
real_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Replace the clock file's content in one step (write aside, rename). */
static void
clock_write(const char *path, const char *text)
{
	char	tmp[256];
	FILE	*f;

	snprintf(tmp, sizeof tmp, "%s.new", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fputs(text, f);
	fclose(f);
	rename(tmp, path);
}

/* Poll (up to 2 s) until the wall clock is off the real one by about off. */
static int
clock_await(int64_t off)
{
	int64_t	deadline, d;

	deadline = time_mono_ms() + 2000;
	do {
		d = time_now_ms() - real_ms() - off;
		if (d > -1000 && d < 1000)
			return (1);
		usleep(5000);
	} while (time_mono_ms() < deadline);
	return (0);
}

/* Wait until the monotonic clock has moved on by ms. */
static void
mono_await(int64_t ms)
{
	int64_t	until = time_mono_ms() + ms;

	while (time_mono_ms() < until)
		usleep(2000);
}

/*
 * The injectable clock: $SLUICE_TEST_CLOCK's file shifts time_now_ms() by
 * an offset, or pins it with "=MS" as of the file's writing, while it goes
 * on advancing; a garbled file keeps the last good offset.
 */
static void
check_test_clock(void)
{
	char	 dir[] = "/tmp/sluice-clock.XXXXXX", path[128];
	int64_t	 a, b, pin = 1764579600000LL;

	unsetenv("SLUICE_TEST_CLOCK");
	tap_ok(clock_await(0), "without $SLUICE_TEST_CLOCK, real time");
	if (mkdtemp(dir) == NULL) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/clock", dir);
	setenv("SLUICE_TEST_CLOCK", path, 1);
	if (!time_test_clock()) {
		clock_write(path, "7200000\n");
		mono_await(50);
		a = time_now_ms() - real_ms();
		tap_ok(a > -1000 && a < 1000, "a build without "
		    "--enable-test-clock ignores $SLUICE_TEST_CLOCK");
		goto out;
	}
	tap_ok(clock_await(0), "a missing clock file is real time");

	clock_write(path, "7200000\n");
	tap_ok(clock_await(7200000), "an offset of +2h moves the wall clock");
	clock_write(path, "-86400000");
	tap_ok(clock_await(-86400000), "and -1 day moves it back");
	clock_write(path, "+86400000");
	tap_ok(clock_await(86400000), "and +1 day forward");

	clock_write(path, "=1764579600000\n");
	tap_ok(clock_await(pin - real_ms()), "\"=MS\" pins the wall time");
	a = time_now_ms();
	tap_ok(a >= pin && a < pin + 2000, "to that instant as of writing");
	mono_await(100);
	b = time_now_ms();
	tap_ok(b - a >= 80 && b - a < 1000, "then it advances with the "
	    "monotonic clock (%lld ms)", (long long)(b - a));

	clock_write(path, "soon");
	mono_await(50);
	b = time_now_ms();
	tap_ok(b >= pin && b < pin + 3000, "a garbled file keeps the last "
	    "offset");
	unlink(path);
	tap_ok(clock_await(0), "removing the file restores real time");
out:
	unlink(path);
	unsetenv("SLUICE_TEST_CLOCK");
	rmdir(dir);
}

int
main(void)
{
	char	 buf[32], long_text[300], *cause = NULL;
	int64_t	 at;
	size_t	 i;

	check_local();
	check_fixed();
	check_bad();

	memset(long_text, 'x', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = '\0';
	tap_ok(when_parse(long_text, NOW_NY * 1000, &at, &cause) == -1 &&
	    strstr(cause, "too long (299 characters, the limit is 200)") !=
	    NULL, "refuses 299 characters");
	free(cause);

	for (i = 0; i < nitems(countdown); i++)
		tap_is(when_countdown(countdown[i].ms, buf, sizeof buf),
		    countdown[i].out, "countdown");

	check_test_clock();
	return (tap_done());
}
