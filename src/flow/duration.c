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
 * duration.c: durations as people write them ("90s", "5m", "1h30m",
 * "250ms", "1.5h", or a bare number of seconds) to milliseconds and back.
 * Parsing is done by hand so the locale's decimal point never matters.
 */

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"

struct duration_unit {
	const char	*name;
	int64_t		 ms;
};

static const struct duration_unit duration_units[] = {
	{ "d", 24LL * 3600 * 1000 },
	{ "h", 3600LL * 1000 },
	{ "m", 60LL * 1000 },
	{ "s", 1000 },
	{ "ms", 1 },
};
#define DURATION_NUNITS (sizeof duration_units / sizeof duration_units[0])

static int	duration_number(const char **, double *);

/*
 * Read digits with an optional fraction at *sp; at least one digit.  The
 * value saturates far above the limit so huge inputs stay "too large".
 */
static int
duration_number(const char **sp, double *out)
{
	const char	*s = *sp;
	double		 v = 0, scale = 1;
	int		 digits = 0;

	while (isdigit((unsigned char)*s)) {
		if (v < 1e30)
			v = v * 10 + (*s - '0');
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			scale /= 10;
			v += (*s - '0') * scale;
			s++;
			digits++;
		}
	}
	if (digits == 0)
		return (-1);
	*sp = s;
	*out = v;
	return (0);
}

/*
 * Parse a duration into milliseconds.  On failure returns -1 and points why
 * at a reason; the reason naming a bad unit lives in a static buffer that
 * the next call reuses (the flow layer is single-threaded).
 */
int
flow_duration_parse(const char *s, int64_t *ms, const char **why)
{
	static char	 reason[128];
	const char	*p, *u;
	double		 v, total = 0;
	size_t		 i, ulen;
	int64_t		 last = 0;
	int		 parts = 0;

	if (s == NULL)
		s = "";
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0') {
		*why = "empty duration";
		return (-1);
	}
	if (*s == '-') {
		*why = "negative duration";
		return (-1);
	}
	p = s;
	while (*p != '\0') {
		if (duration_number(&p, &v) != 0) {
			*why = "expected a number (as in \"90s\" or \"1h30m\")";
			return (-1);
		}
		while (*p == ' ' || *p == '\t')
			p++;
		u = p;
		while (isalpha((unsigned char)*p))
			p++;
		ulen = (size_t)(p - u);
		if (ulen == 0) {
			if (parts != 0 || *p != '\0') {
				*why = "expected a unit after the number "
				    "(ms, s, m, h, d)";
				return (-1);
			}
			total = v * 1000;	/* a bare number: seconds */
			break;
		}
		for (i = 0; i < DURATION_NUNITS; i++) {
			if (strlen(duration_units[i].name) == ulen &&
			    strncmp(duration_units[i].name, u, ulen) == 0)
				break;
		}
		if (i == DURATION_NUNITS) {
			snprintf(reason, sizeof reason, "unknown unit \"%.*s\" "
			    "(use ms, s, m, h, d)", ulen > 32 ? 32 : (int)ulen,
			    u);
			*why = reason;
			return (-1);
		}
		if (!flow_duration_unit_follows(last,
		    duration_units[i].ms)) {
			*why = FLOW_DURATION_ORDER_WHY;
			return (-1);
		}
		last = duration_units[i].ms;
		parts++;
		total += v * (double)duration_units[i].ms;
		if (total > (double)FLOW_DURATION_MAX)
			break;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (total > (double)FLOW_DURATION_MAX) {
		*why = "duration too large (max 366d)";
		return (-1);
	}
	*ms = round_int64(total);
	return (0);
}

/*
 * The order rule of every duration, a flow's "1h30m" and --at "in 1h 30m"
 * alike: units go from larger to smaller, each once, so "1h 1h" is refused
 * rather than read as two hours.  prev is the length of the unit before
 * (0: none), unit the length of this one, in any one scale.
 */
int
flow_duration_unit_follows(int64_t prev, int64_t unit)
{
	return (prev == 0 || unit < prev);
}

/* Parse a duration from JSON: a number of seconds or a duration string. */
int
flow_duration_json(const cJSON *v, int64_t *ms, const char **why)
{
	double	x;

	if (cJSON_IsString(v))
		return (flow_duration_parse(v->valuestring, ms, why));
	if (!cJSON_IsNumber(v)) {
		*why = "expected a duration such as \"90s\", \"5m\" or a "
		    "number of seconds";
		return (-1);
	}
	x = v->valuedouble;
	if (x < 0) {
		*why = "negative duration";
		return (-1);
	}
	if (isnan(x) || x * 1000 > (double)FLOW_DURATION_MAX) {
		*why = "duration too large (max 366d)";
		return (-1);
	}
	*ms = round_int64(x * 1000);
	return (0);
}

/* Format milliseconds as the shortest compound duration ("1h30m"). */
const char *
flow_duration_format(int64_t ms, char *out, size_t size)
{
	size_t	i, len = 0;
	int64_t	n;
	int	w;

	if (size == 0)
		return (out);
	out[0] = '\0';
	if (ms <= 0) {
		snprintf(out, size, "%s0s", ms < 0 ? "-" : "");
		if (ms == 0)
			return (out);
		ms = -ms;
		len = 1;
		out[len] = '\0';
	}
	for (i = 0; i < DURATION_NUNITS; i++) {
		n = ms / duration_units[i].ms;
		if (n == 0)
			continue;
		ms -= n * duration_units[i].ms;
		w = snprintf(out + len, size - len, "%lld%s", (long long)n,
		    duration_units[i].name);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	return (out);
}
