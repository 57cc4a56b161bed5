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
 * test-cron.c: cron expressions.  Parsing (every form, and refusals with the
 * field and column), then cron_next() against a reference table of firing
 * times in UTC, America/New_York, Europe/Berlin and Australia/Lord_Howe
 * (30-minute DST) across spring-forward and fall-back days, by cronie's
 * rule (a "wild" expression, minute or hour starting with "*", fires at
 * every occurrence of a repeated reading and never in a gap).  The table was
 * computed independently of src/sched by tests/unit/cron-reference.py
 * (Python's zoneinfo and a minute-by-minute walk over wall readings).  Then
 * random expressions against a brute-force checker written here, which
 * steps instants a minute at a time through localtime_r.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "sched/sched.h"
#include "tap.h"

/* From tests/unit/cron-reference.py: zone, expression, after, next (s). */
static const struct {
	const char	*zone;
	const char	*expr;
	int64_t		 after;
	int64_t		 next;
} ref[] = {
	/* 2026-03-01 10:15 +0000 */
	{ "UTC", "*/15 * * * *", 1772359620, 1772360100 },
	/* 2026-03-01 10:30 +0000 */
	{ "UTC", "*/15 * * * *", 1772360100, 1772361000 },
	/* 2026-03-01 10:45 +0000 */
	{ "UTC", "*/15 * * * *", 1772361000, 1772361900 },
	/* 2026-03-09 09:00 +0000 */
	{ "UTC", "0 9 * * mon-fri", 1772791200, 1773046800 },
	/* 2026-03-10 09:00 +0000 */
	{ "UTC", "0 9 * * mon-fri", 1773046800, 1773133200 },
	/* 2026-03-11 09:00 +0000 */
	{ "UTC", "0 9 * * mon-fri", 1773133200, 1773219600 },
	/* 2026-03-06 00:00 +0000 */
	{ "UTC", "0 0 1,15 * fri", 1772323200, 1772755200 },
	/* 2026-03-13 00:00 +0000 */
	{ "UTC", "0 0 1,15 * fri", 1772755200, 1773360000 },
	/* 2026-03-15 00:00 +0000 */
	{ "UTC", "0 0 1,15 * fri", 1773360000, 1773532800 },
	/* 2026-03-20 00:00 +0000 */
	{ "UTC", "0 0 1,15 * fri", 1773532800, 1773964800 },
	/* 2026-01-31 00:00 +0000 */
	{ "UTC", "0 0 */10 * *", 1769342400, 1769817600 },
	/* 2026-02-01 00:00 +0000 */
	{ "UTC", "0 0 */10 * *", 1769817600, 1769904000 },
	/* 2026-02-11 00:00 +0000 */
	{ "UTC", "0 0 */10 * *", 1769904000, 1770768000 },
	/* 2026-02-21 00:00 +0000 */
	{ "UTC", "0 0 */10 * *", 1770768000, 1771632000 },
	/* 2026-05-11 00:00 +0000 */
	{ "UTC", "0 0 */10 * 1", 1767268800, 1778457600 },
	/* 2026-06-01 00:00 +0000 */
	{ "UTC", "0 0 */10 * 1", 1778457600, 1780272000 },
	/* 2026-08-31 00:00 +0000 */
	{ "UTC", "0 0 */10 * 1", 1780272000, 1788134400 },
	/* 2026-12-31 23:30 +0000 */
	{ "UTC", "30 23 31 12 *", 1780272000, 1798759800 },
	/* 2027-12-31 23:30 +0000 */
	{ "UTC", "30 23 31 12 *", 1798759800, 1830295800 },
	/* 2028-02-29 00:00 +0000 */
	{ "UTC", "0 0 29 2 *", 1772323200, 1835395200 },
	/* 2032-02-29 00:00 +0000 */
	{ "UTC", "0 0 29 2 *", 1835395200, 1961625600 },
	/* none within 5 years */
	{ "UTC", "0 0 30 2 *", 1772323200, -1 },
	/* 2026-03-31 00:00 +0000 */
	{ "UTC", "0 0 31 * *", 1769817600, 1774915200 },
	/* 2026-05-31 00:00 +0000 */
	{ "UTC", "0 0 31 * *", 1774915200, 1780185600 },
	/* 2026-07-31 00:00 +0000 */
	{ "UTC", "0 0 31 * *", 1780185600, 1785456000 },
	/* 2026-05-05 04:07 +0000 */
	{ "UTC", "5-10/2 4 * * *", 1777953960, 1777954020 },
	/* 2026-05-05 04:09 +0000 */
	{ "UTC", "5-10/2 4 * * *", 1777954020, 1777954140 },
	/* 2026-05-06 04:05 +0000 */
	{ "UTC", "5-10/2 4 * * *", 1777954140, 1778040300 },
	/* 2026-05-06 04:07 +0000 */
	{ "UTC", "5-10/2 4 * * *", 1778040300, 1778040420 },
	/* 2026-07-05 12:00 +0000 */
	{ "UTC", "0 12 * jan,jul sun", 1769731200, 1783252800 },
	/* 2026-07-12 12:00 +0000 */
	{ "UTC", "0 12 * jan,jul sun", 1783252800, 1783857600 },
	/* 2026-07-19 12:00 +0000 */
	{ "UTC", "0 12 * jan,jul sun", 1783857600, 1784462400 },
	/* 2026-04-05 22:00 +0000 */
	{ "UTC", "0 22 * * 0,7", 1775001600, 1775426400 },
	/* 2026-04-12 22:00 +0000 */
	{ "UTC", "0 22 * * 0,7", 1775426400, 1776031200 },
	/* 2026-04-03 00:00 +0000 */
	{ "UTC", "0 0 * * fri-sun", 1775001600, 1775174400 },
	/* 2026-04-04 00:00 +0000 */
	{ "UTC", "0 0 * * fri-sun", 1775174400, 1775260800 },
	/* 2026-04-05 00:00 +0000 */
	{ "UTC", "0 0 * * fri-sun", 1775260800, 1775347200 },
	/* 2026-04-10 00:00 +0000 */
	{ "UTC", "0 0 * * fri-sun", 1775347200, 1775779200 },
	/* 2026-07-05 07:07 +0000 */
	{ "UTC", "7 7 7 7 7", 1767225600, 1783235220 },
	/* 2026-07-07 07:07 +0000 */
	{ "UTC", "7 7 7 7 7", 1783235220, 1783408020 },
	/* 2026-04-05 00:00 +0000 */
	{ "UTC", "@weekly", 1775001600, 1775347200 },
	/* 2026-04-12 00:00 +0000 */
	{ "UTC", "@weekly", 1775347200, 1775952000 },
	/* 2027-01-01 00:00 +0000 */
	{ "UTC", "@monthly", 1797292800, 1798761600 },
	/* 2027-02-01 00:00 +0000 */
	{ "UTC", "@monthly", 1798761600, 1801440000 },
	/* 2027-01-01 00:00 +0000 */
	{ "UTC", "@yearly", 1797292800, 1798761600 },
	/* 2028-01-01 00:00 +0000 */
	{ "UTC", "@yearly", 1798761600, 1830297600 },
	/* 2026-03-09 02:00 -0400 */
	{ "America/New_York", "*/15 2 * * *", 1772942400, 1773036000 },
	/* 2026-03-09 02:15 -0400 */
	{ "America/New_York", "*/15 2 * * *", 1773036000, 1773036900 },
	/* 2026-03-09 02:30 -0400 */
	{ "America/New_York", "*/15 2 * * *", 1773036900, 1773037800 },
	/* 2026-03-08 03:00 -0400 */
	{ "America/New_York", "30 2 * * *", 1772902800, 1772953200 },
	/* 2026-03-09 02:30 -0400 */
	{ "America/New_York", "30 2 * * *", 1772953200, 1773037800 },
	/* 2026-03-10 02:30 -0400 */
	{ "America/New_York", "30 2 * * *", 1773037800, 1773124200 },
	/* 2026-03-08 03:00 -0400 */
	{ "America/New_York", "0 3 * * *", 1772902800, 1772953200 },
	/* 2026-03-09 03:00 -0400 */
	{ "America/New_York", "0 3 * * *", 1772953200, 1773039600 },
	/* 2026-03-08 01:00 -0500 */
	{ "America/New_York", "@hourly", 1772947800, 1772949600 },
	/* 2026-03-08 03:00 -0400 */
	{ "America/New_York", "@hourly", 1772949600, 1772953200 },
	/* 2026-03-08 04:00 -0400 */
	{ "America/New_York", "@hourly", 1772953200, 1772956800 },
	/* 2026-03-08 05:00 -0400 */
	{ "America/New_York", "@hourly", 1772956800, 1772960400 },
	/* 2026-03-08 01:40 -0500 */
	{ "America/New_York", "*/20 * * * *", 1772951400, 1772952000 },
	/* 2026-03-08 03:00 -0400 */
	{ "America/New_York", "*/20 * * * *", 1772952000, 1772953200 },
	/* 2026-03-08 03:20 -0400 */
	{ "America/New_York", "*/20 * * * *", 1772953200, 1772954400 },
	/* 2026-03-08 03:40 -0400 */
	{ "America/New_York", "*/20 * * * *", 1772954400, 1772955600 },
	/* 2026-11-01 01:30 -0400 */
	{ "America/New_York", "30 1 * * *", 1793462400, 1793511000 },
	/* 2026-11-02 01:30 -0500 */
	{ "America/New_York", "30 1 * * *", 1793511000, 1793601000 },
	/* 2026-11-03 01:30 -0500 */
	{ "America/New_York", "30 1 * * *", 1793601000, 1793687400 },
	/* 2026-11-01 01:00 -0400 */
	{ "America/New_York", "*/20 * * * *", 1793508600, 1793509200 },
	/* 2026-11-01 01:20 -0400 */
	{ "America/New_York", "*/20 * * * *", 1793509200, 1793510400 },
	/* 2026-11-01 01:40 -0400 */
	{ "America/New_York", "*/20 * * * *", 1793510400, 1793511600 },
	/* 2026-11-01 01:00 -0500 */
	{ "America/New_York", "*/20 * * * *", 1793511600, 1793512800 },
	/* 2026-11-01 01:20 -0500 */
	{ "America/New_York", "*/20 * * * *", 1793512800, 1793514000 },
	/* 2026-11-01 01:40 -0500 */
	{ "America/New_York", "*/20 * * * *", 1793514000, 1793515200 },
	/* 2026-11-01 01:00 -0400 */
	{ "America/New_York", "@hourly", 1793507400, 1793509200 },
	/* 2026-11-01 01:00 -0500 */
	{ "America/New_York", "@hourly", 1793509200, 1793512800 },
	/* 2026-11-01 02:00 -0500 */
	{ "America/New_York", "@hourly", 1793512800, 1793516400 },
	/* 2026-11-01 03:00 -0500 */
	{ "America/New_York", "@hourly", 1793516400, 1793520000 },
	/* 2026-11-01 02:00 -0500 */
	{ "America/New_York", "0 2 * * *", 1793462400, 1793516400 },
	/* 2026-11-02 02:00 -0500 */
	{ "America/New_York", "0 2 * * *", 1793516400, 1793602800 },
	/* 2026-03-09 09:00 -0400 */
	{ "America/New_York", "0 9 * * mon-fri", 1772809200, 1773061200 },
	/* 2026-03-10 09:00 -0400 */
	{ "America/New_York", "0 9 * * mon-fri", 1773061200, 1773147600 },
	/* 2026-03-29 03:00 +0200 */
	{ "Europe/Berlin", "30 2 * * *", 1774695600, 1774746000 },
	/* 2026-03-30 02:30 +0200 */
	{ "Europe/Berlin", "30 2 * * *", 1774746000, 1774830600 },
	/* 2026-03-31 02:30 +0200 */
	{ "Europe/Berlin", "30 2 * * *", 1774830600, 1774917000 },
	/* 2026-03-29 01:30 +0100 */
	{ "Europe/Berlin", "*/30 * * * *", 1774742400, 1774744200 },
	/* 2026-03-29 03:00 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1774744200, 1774746000 },
	/* 2026-03-29 03:30 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1774746000, 1774747800 },
	/* 2026-03-29 04:00 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1774747800, 1774749600 },
	/* 2026-03-29 03:00 +0200 */
	{ "Europe/Berlin", "0 2 * * sun", 1774177200, 1774746000 },
	/* 2026-04-05 02:00 +0200 */
	{ "Europe/Berlin", "0 2 * * sun", 1774746000, 1775347200 },
	/* 2026-04-12 02:00 +0200 */
	{ "Europe/Berlin", "0 2 * * sun", 1775347200, 1775952000 },
	/* 2026-10-25 02:30 +0200 */
	{ "Europe/Berlin", "30 2 * * *", 1792836000, 1792888200 },
	/* 2026-10-26 02:30 +0100 */
	{ "Europe/Berlin", "30 2 * * *", 1792888200, 1792978200 },
	/* 2026-10-27 02:30 +0100 */
	{ "Europe/Berlin", "30 2 * * *", 1792978200, 1793064600 },
	/* 2026-10-25 01:30 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1792882800, 1792884600 },
	/* 2026-10-25 02:00 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1792884600, 1792886400 },
	/* 2026-10-25 02:30 +0200 */
	{ "Europe/Berlin", "*/30 * * * *", 1792886400, 1792888200 },
	/* 2026-10-25 02:00 +0100 */
	{ "Europe/Berlin", "*/30 * * * *", 1792888200, 1792890000 },
	/* 2026-10-25 02:30 +0100 */
	{ "Europe/Berlin", "*/30 * * * *", 1792890000, 1792891800 },
	/* 2026-10-25 00:00 +0200 */
	{ "Europe/Berlin", "@daily", 1792836000, 1792879200 },
	/* 2026-10-26 00:00 +0100 */
	{ "Europe/Berlin", "@daily", 1792879200, 1792969200 },
	/* 2026-10-27 00:00 +0100 */
	{ "Europe/Berlin", "@daily", 1792969200, 1793055600 },
	/* 2026-06-01 00:00 +0200 */
	{ "Europe/Berlin", "0 0 1 * 1", 1780092000, 1780264800 },
	/* 2026-06-08 00:00 +0200 */
	{ "Europe/Berlin", "0 0 1 * 1", 1780264800, 1780869600 },
	/* 2026-06-15 00:00 +0200 */
	{ "Europe/Berlin", "0 0 1 * 1", 1780869600, 1781474400 },
	/* 2026-06-22 00:00 +0200 */
	{ "Europe/Berlin", "0 0 1 * 1", 1781474400, 1782079200 },
	/* 2026-10-04 02:30 +1100 */
	{ "Australia/Lord_Howe", "15 2 * * *", 1790991000, 1791041400 },
	/* 2026-10-05 02:15 +1100 */
	{ "Australia/Lord_Howe", "15 2 * * *", 1791041400, 1791126900 },
	/* 2026-10-06 02:15 +1100 */
	{ "Australia/Lord_Howe", "15 2 * * *", 1791126900, 1791213300 },
	/* 2026-10-04 02:30 +1100 */
	{ "Australia/Lord_Howe", "*/10 * * * *", 1791040800, 1791041400 },
	/* 2026-10-04 02:40 +1100 */
	{ "Australia/Lord_Howe", "*/10 * * * *", 1791041400, 1791042000 },
	/* 2026-10-04 02:50 +1100 */
	{ "Australia/Lord_Howe", "*/10 * * * *", 1791042000, 1791042600 },
	/* 2026-10-04 03:00 +1100 */
	{ "Australia/Lord_Howe", "*/10 * * * *", 1791042600, 1791043200 },
	/* 2026-04-05 01:45 +1100 */
	{ "Australia/Lord_Howe", "45 1 * * *", 1775264400, 1775313900 },
	/* 2026-04-06 01:45 +1030 */
	{ "Australia/Lord_Howe", "45 1 * * *", 1775313900, 1775402100 },
	/* 2026-04-07 01:45 +1030 */
	{ "Australia/Lord_Howe", "45 1 * * *", 1775402100, 1775488500 },
	/* 2026-04-05 01:30 +1100 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775312400, 1775313000 },
	/* 2026-04-05 01:45 +1100 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775313000, 1775313900 },
	/* 2026-04-05 01:30 +1030 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775313900, 1775314800 },
	/* 2026-04-05 01:45 +1030 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775314800, 1775315700 },
	/* 2026-04-05 02:00 +1030 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775315700, 1775316600 },
	/* 2026-04-05 02:15 +1030 */
	{ "Australia/Lord_Howe", "*/15 * * * *", 1775316600, 1775317500 },
	/* 2026-04-05 02:00 +1030 */
	{ "Australia/Lord_Howe", "0 2 * * *", 1775264400, 1775316600 },
	/* 2026-04-06 02:00 +1030 */
	{ "Australia/Lord_Howe", "0 2 * * *", 1775316600, 1775403000 },
};

static const struct {
	const char	*expr;
	const char	*why;
} bad[] = {
	{ "", "cron: empty; expected 5 fields" },
	{ "   ", "cron: empty" },
	{ "* * * *", "cron: too few fields" },
	{ "* * * * * *", "too many fields; expected 5 fields (minute hour "
	    "day-of-month month day-of-week), and no seconds or year field" },
	{ "0 0 1 1 * 2027 x", "cron: too many fields" },
	{ "60 * * * *", "cron: field 1 (minute) \"60\": 60 is out of range "
	    "0-59 at column 1" },
	{ "30 25 * * *", "cron: field 2 (hour) \"25\": 25 is out of range "
	    "0-23 at column 4" },
	{ "0 0 0 * *", "field 3 (day of month) \"0\": 0 is out of range "
	    "1-31 at column 5" },
	{ "0 0 32 * *", "field 3 (day of month) \"32\": 32 is out of range" },
	{ "0 0 * 13 *", "field 4 (month) \"13\": 13 is out of range 1-12 at "
	    "column 7" },
	{ "0 0 * 0 *", "field 4 (month) \"0\": 0 is out of range 1-12" },
	{ "0 0 * * 8", "field 5 (day of week) \"8\": 8 is out of range 0-7 at "
	    "column 9" },
	{ "*/0 * * * *", "field 1 (minute) \"*/0\": step 0 out of range 1-59 "
	    "at column 3" },
	{ "*/60 * * * *", "step 60 out of range 1-59" },
	{ "* */ * * *", "field 2 (hour) \"*/\": expected a step after \"/\" "
	    "at column 5" },
	{ "5-1 * * * *", "field 1 (minute) \"5-1\": range 5-1 is backwards at "
	    "column 1" },
	{ "0 0 * * sat-mon", "field 5 (day of week) \"sat-mon\": range 6-1 is "
	    "backwards at column 9" },
	{ "1,,2 * * * *", "field 1 (minute) \"1,,2\": empty list item at "
	    "column 3" },
	{ "1, * * * *", "empty list item at column 3" },
	{ ",1 * * * *", "empty list item at column 1" },
	{ "0 0 ? * *", "field 3 (day of month) \"?\": \"?\" is not supported "
	    "(use *) at column 5" },
	{ "0 0 L * *", "field 3 (day of month) \"L\": unexpected \"L\" (this "
	    "field takes numbers) at column 5" },
	{ "0 0 * foo *", "field 4 (month) \"foo\": unknown name \"foo\" (use "
	    "JAN-DEC) at column 7" },
	{ "0 0 * * funday", "unknown name \"funday\" (use SUN-SAT) at column "
	    "9" },
	{ "0 mon * * *", "field 2 (hour) \"mon\": unexpected \"mon\" (this "
	    "field takes numbers) at column 3" },
	{ "0 0 * * 1#2", "field 5 (day of week) \"1#2\": unexpected \"#2\" at "
	    "column 10" },
	{ "0 0 15W * *", "unexpected \"W\" at column 7" },
	{ "1-2-3 * * * *", "unexpected \"-3\" at column 4" },
	{ "*-5 * * * *", "unexpected \"-5\" at column 2" },
	{ "0 -1 * * *", "field 2 (hour) \"-1\": expected a number at column "
	    "3" },
	{ "0 0 * jan-/2 *", "expected a number or a name at column 11" },
	{ "99999999999 * * * *", "is out of range 0-59" },
	{ "@reboot", "cron: @reboot is not supported" },
	{ "@dayly", "cron: unknown \"@dayly\" (use @hourly, @daily" },
	{ "@daily 5", "cron: unexpected \"5\" after @daily at column 8" },
	{ "0 0 * * *\001", "cron: unexpected character at column 10" },
	{ "0 0 * * \xc3\xa9", "cron: unexpected character at column 9" },
};

/* Expressions that parse, and how cron_text() gives them back. */
static const struct {
	const char	*expr;
	const char	*text;
} good[] = {
	{ "* * * * *", "* * * * *" },
	{ "  0 9 * * mon-fri  ", "0 9 * * mon-fri" },
	{ "0\t9\t*\t*\t1-5", "0\t9\t*\t*\t1-5" },
	{ "0,15,30,45 0-23/2 1-31 JAN-DEC SUN-SAT", NULL },
	{ "5/15 * * * *", NULL },
	{ "0 0 * * 0-7", NULL },
	{ "0 0 * * Monday,FRIDAY", NULL },
	{ "0 0 * January,dec *", NULL },
	{ "0 0 * * fri-sun", NULL },
	{ "@hourly", "@hourly" },
	{ "@DAILY", NULL },
	{ "@midnight", NULL },
	{ "@weekly", NULL },
	{ "@monthly", NULL },
	{ "@yearly", NULL },
	{ "@annually", NULL },
};

/* The sets a random expression was built from, for the checker. */
struct sets {
	char	 min[60];
	char	 hour[24];
	char	 mday[32];
	char	 mon[13];
	char	 wday[7];
	int	 star;		/* a day field starts with "*" */
	int	 wild;		/* the minute or hour field does */
};

static void	 check_ref(void);
static void	 check_parse(void);
static void	 check_random(void);
static void	 random_field(struct buf *, char *, int, int, int, int *);
static void	 random_expr(struct buf *, struct sets *);
static int	 sets_match(const struct sets *, const struct tm *);
static int64_t	 brute_next(const struct sets *, int64_t, int64_t);
static int64_t	 wall_of(const struct tm *);
static void	 zone_set(const char *);

/* Switch the process's zone, as TZ=... would for sluice. */
static void
zone_set(const char *zone)
{
	setenv("TZ", zone, 1);
	tzset();
}

/* Every row of the reference table, and the instants either side. */
static void
check_ref(void)
{
	struct cron	*c;
	char		*cause, what[160];
	int64_t		 want;
	size_t		 i;

	for (i = 0; i < nitems(ref); i++) {
		zone_set(ref[i].zone);
		c = cron_parse(ref[i].expr, &cause);
		if (!tap_ok(c != NULL, "%s: \"%s\" parses", ref[i].zone,
		    ref[i].expr)) {
			printf("#   %s\n", cause);
			free(cause);
			continue;
		}
		want = ref[i].next == -1 ? -1 : ref[i].next * 1000;
		snprintf(what, sizeof what, "%s \"%s\" after %lld fires at "
		    "%lld", ref[i].zone, ref[i].expr, (long long)ref[i].after,
		    (long long)ref[i].next);
		tap_is_int(cron_next(c, ref[i].after * 1000), want, what);
		snprintf(what, sizeof what, "%s \"%s\" after %lld.999 too",
		    ref[i].zone, ref[i].expr, (long long)ref[i].after);
		tap_is_int(cron_next(c, ref[i].after * 1000 + 999), want, what);
		if (want != -1) {
			snprintf(what, sizeof what, "%s \"%s\" 1 ms before "
			    "%lld gives it", ref[i].zone, ref[i].expr,
			    (long long)ref[i].next);
			tap_is_int(cron_next(c, want - 1), want, what);
		}
		cron_free(c);
	}
}

/* Accepted forms, and refusals naming the field and column. */
static void
check_parse(void)
{
	struct cron	*c;
	char		*cause;
	size_t		 i;

	for (i = 0; i < nitems(good); i++) {
		cause = NULL;
		c = cron_parse(good[i].expr, &cause);
		if (!tap_ok(c != NULL, "accepts \"%s\"", good[i].expr)) {
			printf("#   %s\n", cause);
			free(cause);
			continue;
		}
		if (good[i].text != NULL)
			tap_is(cron_text(c), good[i].text, "cron_text trims");
		cron_free(c);
	}
	for (i = 0; i < nitems(bad); i++) {
		cause = NULL;
		c = cron_parse(bad[i].expr, &cause);
		tap_ok(c == NULL, "refuses \"%s\"", bad[i].expr);
		if (!tap_ok(cause != NULL && strstr(cause, bad[i].why) != NULL,
		    "reason: %s", bad[i].why))
			printf("#   got: %s\n",
			    cause != NULL ? cause : "(null)");
		if (cause != NULL)
			tap_ok(strchr(cause, '\n') == NULL, "one line");
		free(cause);
		cron_free(c);
	}
}

/* Append a random field to b, and mark its values in set[lo..hi]. */
static void
random_field(struct buf *b, char *set, int lo, int hi, int wday, int *star)
{
	int	kind, a, z, step, v, n, i;

	kind = rand() % 6;
	*star = (kind == 0 || kind == 4);
	switch (kind) {
	case 0:			/* "*" */
		buf_puts(b, "*");
		for (v = lo; v <= hi; v++)
			set[v] = 1;
		break;
	case 1:			/* "a" */
		v = lo + rand() % (hi - lo + 1);
		buf_printf(b, "%d", v);
		set[v] = 1;
		break;
	case 2:			/* "a,b,c" */
		n = 1 + rand() % 3;
		for (i = 0; i < n; i++) {
			v = lo + rand() % (hi - lo + 1);
			buf_printf(b, "%s%d", i ? "," : "", v);
			set[v] = 1;
		}
		break;
	case 3:			/* "a-z" or "a-z/step" */
		a = lo + rand() % (hi - lo + 1);
		z = a + rand() % (hi - a + 1);
		step = 1 + rand() % 4;
		buf_printf(b, "%d-%d", a, z);
		if (step > 1)
			buf_printf(b, "/%d", step);
		for (v = a; v <= z; v += step)
			set[v] = 1;
		break;
	case 4:			/* "*" "/step" */
		step = 2 + rand() % 6;
		buf_printf(b, "*/%d", step);
		for (v = lo; v <= hi; v += step)
			set[v] = 1;
		break;
	default:		/* "7" for Sunday, or "a/step" */
		if (wday) {
			buf_puts(b, "7");
			set[0] = 1;
			break;
		}
		a = lo + rand() % (hi - lo + 1);
		step = 2 + rand() % 6;
		buf_printf(b, "%d/%d", a, step);
		for (v = a; v <= hi; v += step)
			set[v] = 1;
		break;
	}
}

/* Whether a broken-down time matches the sets (Vixie's day rule). */
static int
sets_match(const struct sets *s, const struct tm *tm)
{
	int	dom, dow;

	if (!s->min[tm->tm_min] || !s->hour[tm->tm_hour] ||
	    !s->mon[tm->tm_mon + 1])
		return (0);
	dom = s->mday[tm->tm_mday];
	dow = s->wday[tm->tm_wday];
	return (s->star ? dom && dow : dom || dow);
}

/* A broken-down wall reading as seconds (timegm of a copy), for order. */
static int64_t
wall_of(const struct tm *tm)
{
	struct tm	copy = *tm;

	return ((int64_t)timegm(&copy));
}

/*
 * The first firing after `after` (s), found by stepping instants a minute
 * at a time for up to horizon seconds.  A wild job fires at every instant
 * whose reading matches.  Any other: a wall reading fires at the first
 * instant the clock shows it, or if the clock jumped over it, at the first
 * instant after the jump; readings shown again after a fall-back (not later
 * than the latest already shown) never fire.  -1 if none.
 */
static int64_t
brute_next(const struct sets *s, int64_t after, int64_t horizon)
{
	struct tm	tm, wtm;
	time_t		t, v;
	int64_t		seen = INT64_MIN, w, start;

	start = after - after % 60 + 60;
	if (s->wild) {
		for (t = start; t <= after + horizon; t += 60) {
			localtime_r(&t, &tm);
			w = wall_of(&tm);
			gmtime_r(&(time_t){ (time_t)w }, &wtm);
			if (sets_match(s, &wtm))
				return (t);
		}
		return (-1);
	}
	for (t = start - 3 * 3600; t < start; t += 60) {
		localtime_r(&t, &tm);
		if ((w = wall_of(&tm)) > seen)
			seen = w;
	}
	for (t = start; t <= after + horizon; t += 60) {
		localtime_r(&t, &tm);
		w = wall_of(&tm);
		if (w <= seen)
			continue;
		for (v = seen + 60; v <= w; v += 60) {
			gmtime_r(&v, &wtm);
			if (sets_match(s, &wtm))
				return (t);
		}
		seen = w;
	}
	return (-1);
}

/* A random expression (any month) in b, and the sets it stands for. */
static void
random_expr(struct buf *b, struct sets *s)
{
	int	star;

	memset(s, 0, sizeof *s);
	buf_reset(b);
	random_field(b, s->min, 0, 59, 0, &star);
	s->wild = star;
	buf_putc(b, ' ');
	random_field(b, s->hour, 0, 23, 0, &star);
	s->wild |= star;
	buf_putc(b, ' ');
	if (rand() % 3 != 0) {
		buf_puts(b, "*");
		memset(s->mday, 1, sizeof s->mday);
		s->star = 1;
	} else {
		random_field(b, s->mday, 1, 31, 0, &star);
		s->star |= star;
	}
	buf_puts(b, " * ");
	memset(s->mon, 1, sizeof s->mon);
	random_field(b, s->wday, 0, 6, 1, &star);
	s->star |= star;
}

/* Random expressions near DST changes against the brute-force checker. */
static void
check_random(void)
{
	static const struct {
		const char	*zone;
		int64_t		 near[2];	/* around its 2026 changes */
	} zones[] = {
		{ "UTC", { 1772953200, 1793509200 } },
		{ "America/New_York", { 1772953200, 1793509200 } },
		{ "Europe/Berlin", { 1774746000, 1792890000 } },
		{ "Australia/Lord_Howe", { 1775313000, 1791041400 } },
	};
	struct sets	 s;
	struct cron	*c;
	struct buf	 b;
	char		*cause;
	int64_t		 after, want, got, horizon = 4 * 86400;
	int		 z, k, wrong, cases = 150;

	srand(20261101);
	buf_init(&b);
	for (z = 0; z < (int)nitems(zones); z++) {
		zone_set(zones[z].zone);
		for (k = 0, wrong = 0; k < cases; k++) {
			random_expr(&b, &s);
			after = zones[z].near[k % 2] - 86400 + rand() % 172800;
			if ((c = cron_parse(b.data, &cause)) == NULL) {
				printf("# \"%s\": %s\n", b.data, cause);
				free(cause);
				wrong++;
				continue;
			}
			want = brute_next(&s, after, horizon);
			got = cron_next(c, after * 1000 + rand() % 1000);
			cron_free(c);
			if (want != -1 && got == want * 1000)
				continue;
			if (want == -1 && (got == -1 ||
			    got > (after + horizon) * 1000))
				continue;
			if (wrong++ < 5)
				printf("# %s \"%s\" after %lld: got %lld, want "
				    "%lld\n", zones[z].zone, b.data,
				    (long long)after, (long long)got,
				    (long long)want * 1000);
		}
		tap_ok(wrong == 0, "%s: %d random expressions agree with the "
		    "brute-force checker", zones[z].zone, cases);
	}
	buf_free(&b);
}

int
main(void)
{
	struct cron	*c;
	char		*cause;
	int64_t		 t0, t, after = 1772323200000LL;
	int		 i;

	check_parse();
	check_ref();
	check_random();

	/* Skips by field: years of nothing cost a handful of days' work. */
	zone_set("Europe/Berlin");
	c = cron_parse("0 0 30 2 *", &cause);
	t0 = time_mono_us();
	for (i = 0; i < 200; i++)
		t = cron_next(c, after);
	t0 = time_mono_us() - t0;
	tap_is_int(t, -1, "Feb 30th never comes: -1 after 5 years");
	printf("# 200 five-year searches took %lld us\n", (long long)t0);
	tap_ok(t0 < 200 * 20000, "a five-year search takes under 20 ms");
	cron_free(c);

	zone_set("UTC");
	c = cron_parse("0 0 29 2 1", &cause);
	tap_is_int(cron_next(c, after), 1801440000000LL,
	    "Feb 29th or a Monday, in February: 2027-02-01, a Monday");
	cron_free(c);
	/*
	 * A day of week of every 7th day from Sunday starts with a star, so
	 * both day fields must match: a Sunday Feb 29th, 2032 then 2060.
	 */
	c = cron_parse("0 0 29 2 */7", &cause);
	tap_is_int(cron_next(c, 1830297600000LL), 1961625600000LL,
	    "a Sunday Feb 29th 4 years ahead is found");
	tap_is_int(cron_next(c, after), -1, "one 6 years ahead is not");
	cron_free(c);
	return (tap_done());
}
