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
 * authority.c: the one rule that decides who may do what.  A caller is
 * a uid, named and grouped by the system's user and group databases
 * (getpwuid, getgrouplist), never by $USER or anything a client says.
 * Gate decisions (approve, reject, skip of a waiting gate) follow the
 * policy stored on the gate's row when it was created, and are for people:
 * one that came through MCP (via "mcp") is refused unless the gate says
 * "agents": true (or the site's default does, for a gate that predates
 * the option); every other
 * operator action (start, cancel, retry, skip, pause, resume, template
 * and schedule changes) follows the site's "operators" list, when the
 * site config names one.  Finishing a wait step from outside (complete,
 * fail, skip of a waiting one) follows the "by" stored on its row, or
 * the operators rule when it names nobody.  The engine's command path, the CLI's template
 * writes and the socket server all ask here, so no path has its own rule.
 */

#include <sys/types.h>

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "engine/engine.h"

#define AUTHORITY_MAX_GROUPS	1024

static void	authority_list(struct buf *, char **, size_t);

/* Who a uid is: its name, primary group and every group it is in. */
void
authority_caller_init(struct authority_caller *c, uid_t uid)
{
	struct passwd	*pw;
	int		 n = AUTHORITY_MAX_GROUPS;

	memset(c, 0, sizeof *c);
	c->uid = uid;
	if ((pw = getpwuid(uid)) == NULL) {
		/* An account the system does not know: in no group. */
		xasprintf(&c->name, "%lu", (unsigned long)uid);
		c->gid = (gid_t)-1;
		return;
	}
	c->name = xstrdup(pw->pw_name);
	c->gid = pw->pw_gid;
	c->groups = xcalloc(n, sizeof *c->groups);
	if (getgrouplist(pw->pw_name, pw->pw_gid, c->groups, &n) < 0)
		n = AUTHORITY_MAX_GROUPS;	/* the first so many */
	c->ngroups = n;
}

/* Free what a caller holds. */
void
authority_caller_clear(struct authority_caller *c)
{
	free(c->name);
	free(c->groups);
	memset(c, 0, sizeof *c);
}

/* Does a rule entry (a user name, or "@group") name this caller? */
int
authority_names(const struct authority_caller *c, const char *entry)
{
	struct group	*gr;
	int		 i;

	if (entry[0] != '@')
		return (strcmp(entry, c->name) == 0);
	if ((gr = getgrnam(entry + 1)) == NULL)
		return (0);
	if (gr->gr_gid == c->gid)
		return (1);
	for (i = 0; i < c->ngroups; i++) {
		if (c->groups[i] == gr->gr_gid)
			return (1);
	}
	return (0);
}

/* A list of rule entries for a message: "alice, @ops". */
static void
authority_list(struct buf *b, char **v, size_t n)
{
	size_t		 i;

	for (i = 0; i < n; i++)
		buf_printf(b, "%s%s", b->len > 0 ? ", " : "", v[i]);
	if (b->len == 0)
		buf_puts(b, "none");
}

/* Is the caller one of the site's operators (anyone when none are named)? */
int
authority_operator(const struct authority_site *site,
    const struct authority_caller *c, char **why)
{
	struct buf	 names;
	size_t		 i;

	if (site == NULL || !site->has_operators)
		return (1);
	for (i = 0; i < site->noperators; i++) {
		if (authority_names(c, site->operators[i]))
			return (1);
	}
	if (why != NULL) {
		buf_init(&names);
		authority_list(&names, site->operators, site->noperators);
		xasprintf(why, "%s is not an operator (operators: %s)",
		    c->name, names.data);
		buf_free(&names);
	}
	return (0);
}

/* Is a reason given: something left after trimming white space? */
int
authority_has_reason(const char *reason)
{
	if (reason == NULL)
		return (0);
	while (*reason == ' ' || *reason == '\t' || *reason == '\n' ||
	    *reason == '\r' || *reason == '\v' || *reason == '\f')
		reason++;
	return (*reason != '\0');
}

/* May the caller decide a gate, by the policy stored on its row? */
static int
authority_gate(const struct authority_site *site,
    const struct authority_caller *c, const struct authority_ask *q,
    char **why)
{
	const struct flow_policy	*p = q->gate;
	struct buf			 names;
	size_t				 i;
	int				 allowed = 0, allow_self;

	/* People decide gates: an agent's client only where the gate says. */
	if (q->via != NULL && !(p->agents >= 0 ? p->agents :
	    site != NULL && site->agents)) {
		xasprintf(why, "gate %s is for people: a decision via %s is "
		    "refused (the gate does not say \"agents\": true)",
		    q->target, q->via);
		return (0);
	}
	if (p->operators && !authority_operator(site, c, why))
		return (0);
	if (p->napprovers > 0) {
		for (i = 0; i < p->napprovers; i++) {
			if (authority_names(c, p->approvers[i]))
				allowed = 1;
		}
		if (!allowed) {
			buf_init(&names);
			authority_list(&names, p->approvers, p->napprovers);
			xasprintf(why, "%s is not an approver of gate %s: "
			    "approvers are %s", c->name, q->target,
			    names.data);
			buf_free(&names);
			return (0);
		}
	}
	allow_self = p->allow_self >= 0 ? p->allow_self :
	    (site != NULL ? site->allow_self : 1);
	if (q->approving && !allow_self && q->starter != NULL &&
	    strcmp(c->name, q->starter) == 0) {
		xasprintf(why, "allow_self is false and %s started workflow "
		    "%lld: the starter may not %s its gates", c->name,
		    (long long)q->workflow_id, q->verb);
		return (0);
	}
	if (q->decided != NULL) {
		xasprintf(why, "%s already %s gate %s", c->name,
		    strcmp(q->decided, "approve") == 0 ? "approved" :
		    "rejected", q->target);
		return (0);
	}
	return (1);
}

/* May the caller finish a wait step, by the "by" stored on its row? */
static int
authority_wait(const struct authority_site *site,
    const struct authority_caller *c, const struct authority_ask *q,
    char **why)
{
	const struct flow_policy	*p = q->wait;
	struct buf			 names;
	size_t				 i;

	if (p->nby == 0) {
		if (p->operators && !authority_operator(site, c, NULL)) {
			buf_init(&names);
			authority_list(&names, site->operators,
			    site->noperators);
			xasprintf(why, "%s may not %s wait step %s: it names "
			    "nobody in \"by\", so only operators may (%s)",
			    c->name, q->verb, q->target, names.data);
			buf_free(&names);
			return (0);
		}
		return (1);
	}
	for (i = 0; i < p->nby; i++) {
		if (authority_names(c, p->by[i]))
			return (1);
	}
	buf_init(&names);
	authority_list(&names, p->by, p->nby);
	xasprintf(why, "%s may not %s wait step %s: it may be finished by %s",
	    c->name, q->verb, q->target, names.data);
	buf_free(&names);
	return (0);
}

/*
 * The rule: may this caller do this?  1, or 0 with the refusal (naming
 * the rule that refused) in *why.
 */
int
authority_check(const struct authority_site *site,
    const struct authority_caller *c, const struct authority_ask *q,
    char **why)
{
	*why = NULL;
	if (q->wait != NULL) {
		if (!authority_wait(site, c, q, why))
			return (0);
	} else if (q->gate != NULL) {
		if (!authority_gate(site, c, q, why))
			return (0);
	} else if (!authority_operator(site, c, why)) {
		char	*rule = *why;

		xasprintf(why, "%s: %s refused", rule, q->verb);
		free(rule);
		return (0);
	}
	if (q->need_reason && !authority_has_reason(q->reason)) {
		xasprintf(why, "a reason is required: %s needs -m TEXT that is "
		    "not blank", q->verb);
		return (0);
	}
	return (1);
}
