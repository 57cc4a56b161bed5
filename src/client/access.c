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
 * access.c: a database that is not open to us at all.  Someone who can
 * neither open the database nor connect to its engine's socket gets exit
 * 4 and one line that says so, and what to ask for: the group of the
 * database's directory (service mode's team group, TEAM USE in sluice(1)).
 */

#include <sys/stat.h>

#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"

/* Are we in group gid (primary or supplementary)? */
static int
client_in_group(gid_t gid)
{
	gid_t	*list;
	int	 n, i, in = 0;

	if (getegid() == gid)
		return (1);
	if ((n = getgroups(0, NULL)) <= 0)
		return (0);
	list = xcalloc((size_t)n, sizeof *list);
	n = getgroups(n, list);
	for (i = 0; i < n; i++) {
		if (list[i] == gid)
			in = 1;
	}
	free(list);
	return (in);
}

/* Is errno the kernel's "not yours to open"? */
int
client_denied_errno(int error)
{
	return (error == EACCES || error == EPERM);
}

/*
 * Someone who can neither open the database at path nor connect to its
 * socket, and is not in the group of its directory (a service's team):
 * say so in one line, naming the group to ask for, and return
 * EXIT_REFUSED.  A member gets -1, and the caller says what a member
 * needs (the engine started: the store's own words).
 */
int
client_no_access(const struct client *cl, const char *path)
{
	struct stat	 sb;
	struct group	*gr;
	char		*copy, *dir;
	int		 rc = -1;

	copy = xstrdup(path);
	dir = dirname(copy);
	if (stat(dir, &sb) == 0 && !client_in_group(sb.st_gid) &&
	    (gr = getgrgid(sb.st_gid)) != NULL) {
		client_error(cl, "%s: permission denied: neither the database "
		    "nor its engine's socket is open to you (ask the service's "
		    "owner to add you to group %s)", path, gr->gr_name);
		rc = EXIT_REFUSED;
	}
	free(copy);
	return (rc);
}
