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
 * zone.c: schedules that fire in a zone of their own ("schedule add --tz
 * Europe/Berlin").  The C library knows one zone at a time, TZ's, so a
 * search in another zone sets TZ for its length and puts it back after.
 * A name is checked against the zone database first, because the C library
 * takes an unknown TZ for UTC without a word.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "sched/sched.h"

#define ZONE_MAX_NAME	64

static const char	*sched_zone_dir(void);

/* Where the zone database lives: $TZDIR, else the usual place. */
static const char *
sched_zone_dir(void)
{
	const char	*dir;

	dir = getenv("TZDIR");
	if (dir == NULL || *dir == '\0')
		dir = "/usr/share/zoneinfo";
	return (dir);
}

/*
 * Whether name is an IANA zone the database has ("Europe/Berlin", "UTC"):
 * letters, digits and "_+-" in parts joined by "/", none empty or "." or
 * "..", and a file there that is a compiled zone.  0, or -1 with a one-line
 * reason in *cause.
 */
int
sched_zone_check(const char *name, char **cause)
{
	const char	*p, *part;
	char		 path[PATH_MAX], magic[4];
	ssize_t		 n;
	int		 fd;

	if (*name == '\0' || strlen(name) > ZONE_MAX_NAME) {
		xasprintf(cause, "a time zone name is 1 to %d characters",
		    ZONE_MAX_NAME);
		return (-1);
	}
	for (part = p = name; ; p++) {
		if (*p == '/' || *p == '\0') {
			if (p == part || (p - part == 1 && *part == '.') ||
			    (p - part == 2 && strncmp(part, "..", 2) == 0)) {
				xasprintf(cause, "\"%s\" is not a time zone "
				    "name (an IANA name such as Europe/Berlin)",
				    name);
				return (-1);
			}
			if (*p == '\0')
				break;
			part = p + 1;
			continue;
		}
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("_+-.", *p) != NULL)
			continue;
		xasprintf(cause, "\"%s\": character %zu may not be in a time "
		    "zone name", name, (size_t)(p - name) + 1);
		return (-1);
	}
	snprintf(path, sizeof path, "%s/%s", sched_zone_dir(), name);
	if ((fd = open(path, O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK)) == -1 &&
	    errno == ELOOP)
		fd = open(path, O_RDONLY|O_CLOEXEC|O_NONBLOCK);
	if (fd == -1) {
		xasprintf(cause, "\"%s\": no such time zone in %s", name,
		    sched_zone_dir());
		return (-1);
	}
	n = read(fd, magic, sizeof magic);
	close(fd);
	if (n != (ssize_t)sizeof magic || memcmp(magic, "TZif", 4) != 0) {
		xasprintf(cause, "\"%s\": not a time zone in %s", name,
		    sched_zone_dir());
		return (-1);
	}
	return (0);
}

/*
 * Make zone (NULL or "": leave the local one) the C library's until
 * sched_zone_pop; a caller with many searches to do pays for loading the
 * zone once.
 */
void
sched_zone_push(const char *zone, struct sched_zone_saved *z)
{
	const char	*was;

	memset(z, 0, sizeof *z);
	if (zone == NULL || *zone == '\0')
		return;
	z->pushed = 1;
	if ((was = getenv("TZ")) != NULL)
		z->tz = xstrdup(was);
	setenv("TZ", zone, 1);
	tzset();
}

/* Put TZ back as it was before sched_zone_push, also when it was unset. */
void
sched_zone_pop(struct sched_zone_saved *z)
{
	if (!z->pushed)
		return;
	if (z->tz != NULL)
		setenv("TZ", z->tz, 1);
	else
		unsetenv("TZ");
	tzset();
	free(z->tz);
	memset(z, 0, sizeof *z);
}

/*
 * The next firing of a cron expression in a zone (NULL or "": the local
 * one), as cron_next.
 */
int64_t
cron_next_in(const struct cron *c, const char *zone, int64_t after_ms)
{
	struct sched_zone_saved	 z;
	int64_t			 next;

	sched_zone_push(zone, &z);
	next = cron_next(c, after_ms);
	sched_zone_pop(&z);
	return (next);
}
