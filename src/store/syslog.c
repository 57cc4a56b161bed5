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
 * syslog.c: a copy of every audit row outside the database.  A row is
 * queued when it is inserted and sent with syslog(3) (facility authpriv,
 * priority notice; refusals warning) once the transaction that holds it
 * commits, so a rolled-back row is never sent (the engine sends them a
 * moment later: store_syslog_later).  The line names the row's
 * id and the start of its hash, so the copy can be matched against the
 * chain that `sluice audit --verify` checks.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static void	store_syslog_take(struct store *, int, int, int);

/* Queue the syslog copy of an audit row just inserted. */
void
store_syslog_queue(struct store *s, const struct store_chain_row *r)
{
	struct store_syslog_line	*l;
	char				*line;

	/* "by alice via mcp": an agent's action says so here too. */
	xasprintf(&line, "audit %" PRId64 ": %s by %s%s%s (uid %" PRId64
	    ", %s on %s)%s%s%s%s%s%s", r->id, r->action, r->who,
	    r->via != NULL ? " via " : "", r->via != NULL ? r->via : "", r->uid,
	    r->tty != NULL ? r->tty : "-", r->host != NULL ? r->host : "-",
	    r->target != NULL ? ": " : "", r->target != NULL ? r->target : "",
	    r->comment != NULL ? ": \"" : "", r->comment != NULL ?
	    r->comment : "", r->comment != NULL ? "\"" : "",
	    r->detail_json != NULL ? " " : "");
	if (r->detail_json != NULL) {
		char	*with;

		xasprintf(&with, "%s%s", line, r->detail_json);
		free(line);
		line = with;
	}
	l = xcalloc(1, sizeof *l);
	l->depth = s->depth;
	l->warning = strstr(r->action, "refused") != NULL;
	xasprintf(&l->text, "%s", line);
	free(line);
	l->next = NULL;
	if (s->syslog_tail != NULL)
		s->syslog_tail->next = l;
	else
		s->syslog_head = l;
	s->syslog_tail = l;
}

/* Send one copy. */
static void
store_syslog_line_send(const struct store_syslog_line *l)
{
	static int	 opened;

	if (!opened) {
		openlog("sluice", LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
		opened = 1;
	}
	syslog(l->warning ? LOG_WARNING : LOG_NOTICE, "%s", l->text);
}

/*
 * The engine's store: a commit keeps its rows' copies (depth 0) for
 * store_syslog_send, which the engine calls once it has started the
 * processes that commit recorded, and before it answers anyone, so the
 * 10-40 us of each syslog(3) are not spent between a commit and the next
 * step's start.  Turned off (or at store_close), what is left is sent.
 */
void
store_syslog_later(struct store *s, int on)
{
	s->syslog_later = on;
	if (!on)
		store_syslog_send(s);
}

/* Send the copies of rows committed (at once, or store_syslog_later). */
void
store_syslog_send(struct store *s)
{
	store_syslog_take(s, 0, 0, 1);
}

/* A nested level committed into the one around it: so do its rows. */
void
store_syslog_release(struct store *s, int depth)
{
	struct store_syslog_line	*l;

	for (l = s->syslog_head; l != NULL; l = l->next) {
		if (l->depth >= depth)
			l->depth = depth - 1;
	}
}

/* A transaction level rolled back: forget what it queued. */
void
store_syslog_drop(struct store *s, int depth)
{
	store_syslog_take(s, depth, INT_MAX, 0);
}

/*
 * Take the copies queued at levels lo to hi off the list (0: committed),
 * sending each when send, else forgetting it.
 */
static void
store_syslog_take(struct store *s, int lo, int hi, int send)
{
	struct store_syslog_line	*l, *next, *keep = NULL;

	for (l = s->syslog_head; l != NULL; l = next) {
		next = l->next;
		if (l->depth >= lo && l->depth <= hi) {
			if (send)
				store_syslog_line_send(l);
			free(l->text);
			free(l);
			continue;
		}
		if (keep == NULL)
			s->syslog_head = l;
		else
			keep->next = l;
		keep = l;
	}
	if (keep == NULL)
		s->syslog_head = NULL;
	else
		keep->next = NULL;
	s->syslog_tail = keep;
}
