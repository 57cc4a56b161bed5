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
 * user.c: who is acting.  The person is the Unix account of the process's
 * real uid, never $USER, which anyone can set.
 */

#include <sys/types.h>

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

static struct user_info	user_info;
static int		user_where_known;
static int		user_name_known;

/*
 * This process's uid, terminal and host, but not yet its account's name
 * (NULL until user_self): finding the name reads nsswitch.conf and the
 * passwd database, which a command the engine's socket answers never
 * needs, since the engine names its caller from the socket's peer.
 */
const struct user_info *
user_where(void)
{
	char		 host[HOST_NAME_MAX + 1];
	const char	*tty;

	if (user_where_known)
		return (&user_info);
	user_info.uid = getuid();
	tty = ttyname(STDIN_FILENO);
	if (tty == NULL)
		tty = ttyname(STDERR_FILENO);
	user_info.tty = xstrdup(tty != NULL ? tty : "-");
	if (gethostname(host, sizeof host) != 0)
		strlcpy(host, "localhost", sizeof host);
	host[sizeof host - 1] = '\0';
	user_info.host = xstrdup(host);
	user_where_known = 1;
	return (&user_info);
}

/* Fill and return this process's user, terminal and host. */
const struct user_info *
user_self(void)
{
	struct passwd	*pw;

	if (user_name_known)
		return (&user_info);
	user_where();
	if ((pw = getpwuid(user_info.uid)) != NULL)
		user_info.name = xstrdup(pw->pw_name);
	else
		xasprintf(&user_info.name, "%lu", (unsigned long)user_info.uid);
	user_name_known = 1;
	return (&user_info);
}

/* Is user a member of group (primary or supplementary)? */
int
user_in_group(const char *user, const char *group)
{
	struct passwd	*pw;
	struct group	*gr;
	char		**m;

	if ((gr = getgrnam(group)) == NULL)
		return (0);
	if ((pw = getpwnam(user)) != NULL && pw->pw_gid == gr->gr_gid)
		return (1);
	for (m = gr->gr_mem; *m != NULL; m++) {
		if (strcmp(*m, user) == 0)
			return (1);
	}
	return (0);
}
