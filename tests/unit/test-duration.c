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
 * test-duration.c: duration parsing (every accepted form, refusals with
 * their reasons), JSON numbers and strings, and formatting round trips.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static const struct {
	const char	*in;
	int64_t		 ms;
} good[] = {
	{ "90s", 90000 },
	{ "5m", 300000 },
	{ "2h", 7200000 },
	{ "1d", 86400000 },
	{ "1h30m", 5400000 },
	{ "250ms", 250 },
	{ "1.5h", 5400000 },
	{ "90", 90000 },
	{ "0", 0 },
	{ "0s", 0 },
	{ "1.5", 1500 },
	{ " 30s ", 30000 },
	{ "1h 30m", 5400000 },
	{ "2d12h", 216000000 },
	{ "1m30s500ms", 90500 },
	{ "10 s", 10000 },
	{ "0.25s", 250 },
	{ "366d", 366LL * 86400000 },
	{ "1d1h1m1s1ms", 90061001 },
	{ "007s", 7000 },
};

static const struct {
	const char	*in;
	const char	*why;
} bad[] = {
	{ "", "empty duration" },
	{ "   ", "empty duration" },
	{ "-5s", "negative duration" },
	{ "-1", "negative duration" },
	{ "5x", "unknown unit \"x\" (use ms, s, m, h, d)" },
	{ "5 minutes", "unknown unit \"minutes\"" },
	{ "5M", "unknown unit \"M\"" },
	{ "367d", "duration too large (max 366d)" },
	{ "99999999999999999999h", "duration too large" },
	{ "1e9", "unknown unit \"e\"" },
	{ "s", "expected a number" },
	{ "abc", "expected a number" },
	{ "30m1h", "units must go from larger to smaller" },
	{ "1m1m", "units must go from larger to smaller" },
	{ "1h30", "expected a unit after the number" },
	{ "1.2.3s", "expected a unit after the number" },
	{ "5s-", "expected a number" },
	{ "+5s", "expected a number" },
	{ ".s", "expected a number" },
	{ "10ms5s", "units must go from larger to smaller" },
	{ "1h,30m", "expected a number" },
};

static const struct {
	int64_t		 ms;
	const char	*out;
} fmt[] = {
	{ 0, "0s" },
	{ 90000, "1m30s" },
	{ 5400000, "1h30m" },
	{ 250, "250ms" },
	{ 1500, "1s500ms" },
	{ 86400000, "1d" },
	{ 90061001, "1d1h1m1s1ms" },
	{ 7200000, "2h" },
};

int
main(void)
{
	const char	*why;
	char		 buf[64], what[128];
	int64_t		 ms;
	size_t		 i;
	cJSON		*v;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		ms = -1;
		why = NULL;
		snprintf(what, sizeof what, "accepts \"%s\"", good[i].in);
		if (!tap_ok(flow_duration_parse(good[i].in, &ms, &why) == 0,
		    "%s", what))
			printf("#   why: %s\n", why ? why : "");
		snprintf(what, sizeof what, "\"%s\" is %lld ms", good[i].in,
		    (long long)good[i].ms);
		tap_is_int(ms, good[i].ms, what);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		snprintf(what, sizeof what, "refuses \"%s\"", bad[i].in);
		tap_ok(flow_duration_parse(bad[i].in, &ms, &why) == -1,
		    "%s", what);
		snprintf(what, sizeof what, "\"%s\": %s", bad[i].in,
		    bad[i].why);
		if (!tap_ok(why != NULL && strstr(why, bad[i].why) != NULL,
		    "%s", what))
			printf("#   got: %s\n", why ? why : "(null)");
	}
	tap_ok(flow_duration_parse(NULL, &ms, &why) == -1, "refuses NULL");
	why = NULL;
	tap_ok(flow_duration_parse("1h 1h", &ms, &why) == -1 && why != NULL &&
	    strcmp(why, FLOW_DURATION_ORDER_WHY) == 0,
	    "\"1h 1h\" is refused with the shared order reason");
	tap_ok(flow_duration_unit_follows(0, 1) &&
	    flow_duration_unit_follows(3600, 60) &&
	    !flow_duration_unit_follows(3600, 3600) &&
	    !flow_duration_unit_follows(60, 3600),
	    "unit order: first any, then strictly smaller");

	for (i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
		snprintf(what, sizeof what, "%lld ms formats as %s",
		    (long long)fmt[i].ms, fmt[i].out);
		tap_is(flow_duration_format(fmt[i].ms, buf, sizeof buf),
		    fmt[i].out, what);
		ms = -1;
		flow_duration_parse(buf, &ms, &why);
		snprintf(what, sizeof what, "%s parses back", fmt[i].out);
		tap_is_int(ms, fmt[i].ms, what);
	}
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		flow_duration_format(good[i].ms, buf, sizeof buf);
		ms = -1;
		flow_duration_parse(buf, &ms, &why);
		snprintf(what, sizeof what, "round trip of \"%s\" via %s",
		    good[i].in, buf);
		tap_is_int(ms, good[i].ms, what);
	}
	tap_is(flow_duration_format(90000, buf, 3), "1m", "format truncates "
	    "to the buffer");

	v = cJSON_CreateNumber(1.5);
	tap_ok(flow_duration_json(v, &ms, &why) == 0 && ms == 1500,
	    "JSON 1.5 is 1500 ms");
	cJSON_Delete(v);
	v = cJSON_CreateNumber(120);
	tap_ok(flow_duration_json(v, &ms, &why) == 0 && ms == 120000,
	    "JSON 120 is two minutes");
	cJSON_Delete(v);
	v = cJSON_CreateNumber(-1);
	tap_ok(flow_duration_json(v, &ms, &why) == -1 &&
	    strcmp(why, "negative duration") == 0, "JSON -1 is refused");
	cJSON_Delete(v);
	v = cJSON_CreateNumber(1e12);
	tap_ok(flow_duration_json(v, &ms, &why) == -1 &&
	    strstr(why, "too large") != NULL, "JSON 1e12 is too large");
	cJSON_Delete(v);
	v = cJSON_CreateString("5m");
	tap_ok(flow_duration_json(v, &ms, &why) == 0 && ms == 300000,
	    "JSON \"5m\" is five minutes");
	cJSON_Delete(v);
	v = cJSON_CreateTrue();
	tap_ok(flow_duration_json(v, &ms, &why) == -1 &&
	    strstr(why, "expected a duration") != NULL, "JSON true refused");
	cJSON_Delete(v);
	v = cJSON_CreateNull();
	tap_ok(flow_duration_json(v, &ms, &why) == -1, "JSON null refused");
	cJSON_Delete(v);
	return (tap_done());
}
