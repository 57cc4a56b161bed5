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
 * relay.c: every node serves operators (cluster mode, SPEC §14).  A
 * standby's engine process opens the socket while it stands by, as a
 * shell engine that runs nothing: it answers pings, outcomes and
 * subscriptions itself, and relays each command to the leader as an
 * inbox row (its caller from the socket's peer credentials, this node's
 * name on it) and a NOTIFY on STORE_CHANNEL_INBOX, sent together and
 * waiting for no lock (store_inbox_relay).  The leader LISTENs
 * there and applies the inbox at once (not at its ENGINE_POLL_MS look),
 * answering on the row in the turn's transaction, whose commit NOTIFYs
 * STORE_CHANNEL_CHANGED; the standby, LISTENing there, reads the answer
 * back and gives its client the very line the leader would have, and
 * tells its subscribed consoles "changed".  The request id travels on
 * the row, so "sluice request ID" on any node says whether it applied.
 *
 * No leader answering within RELAY_WAIT_MS (it died or froze and no
 * standby has taken over yet): the standby withdraws the row, if no
 * turn has it, and says "not applied", or says the outcome is unknown
 * (relay-late.c).  When
 * this standby takes over itself, the socket and its clients go to the
 * new engine as they are (engine_standby_adopt): none is dropped, and a
 * relayed command still waiting is answered from its row once the new
 * leader's first turn applied it.
 */

#include <sys/types.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	listen_io(int, short, void *);
static void	listen_hook(void *);
static void	listen_heard(void *, const char *);
static void	listen_act(void *);
static void	listen_lost(struct engine *);
static void	standby_flush(void *);
static void	standby_rehear(void *);

static char	*node_configured;	/* the site config's cluster.node */

/*
 * This node's name, for the audit rows of the commands it takes, its row
 * in the nodes table and "sluice status": $SLUICE_NODE (tests run
 * several nodes on one host), else the site config's (engine_node_set),
 * else the host's.
 */
const char *
engine_node_name(void)
{
	const char	*env;

	if ((env = getenv("SLUICE_NODE")) != NULL && *env != '\0')
		return (env);
	if (node_configured != NULL)
		return (node_configured);
	return (user_self()->host);
}

/* The site config's name for this node (config-cluster.c), or NULL. */
void
engine_node_set(const char *name)
{
	free(node_configured);
	node_configured = name != NULL ? xstrdup(name) : NULL;
}

/*
 * Hear a channel on the engine's connection: what arrives wakes the loop
 * (listen_io), and what came along with a query's answer is looked for
 * before each sleep (listen_hook), then acted on in a turn of its own.
 */
int
engine_listen_open(struct engine *e, const char *channel, char **cause)
{
	int	 fd;

	if (store_listen(e->store, channel, cause) != 0)
		return (-1);
	if ((fd = store_listen_fd(e->store)) == -1 || e->listen_ev != NULL)
		return (0);
	e->listen_ev = loop_fd_add(e->loop, fd, POLLIN, listen_io, e);
	e->listen_act = loop_timer_create(e->loop, listen_act, e);
	loop_hook_add(e->loop, listen_hook, e);
	return (0);
}

/* Stop watching (the connection's subscriptions end with it). */
void
engine_listen_close(struct engine *e)
{
	if (e->listen_ev == NULL)
		return;
	loop_hook_del(e->loop, listen_hook, e);
	loop_fd_del(e->listen_ev);
	loop_timer_free(e->listen_act);
	e->listen_ev = NULL;
	e->listen_act = NULL;
}

/* The connection is readable: a notification, or its end. */
static void
listen_io(int fd, short revents, void *arg)
{
	struct engine	*e = arg;

	(void)fd;
	(void)revents;
	if (store_heard(e->store, 1, listen_heard, e) != 0)
		listen_lost(e);
}

/* Before the loop sleeps: anything a query's answer brought along? */
static void
listen_hook(void *arg)
{
	struct engine	*e = arg;

	if (e->listen_ev != NULL && store_heard(e->store, 0, listen_heard,
	    e) != 0)
		listen_lost(e);
}

/* One notification: note it and act in the next turn. */
static void
listen_heard(void *arg, const char *channel)
{
	struct engine	*e = arg;

	if (strcmp(channel, STORE_CHANNEL_INBOX) == 0)
		e->heard_inbox = 1;
	else if (strcmp(channel, STORE_CHANNEL_CHANGED) == 0)
		e->heard_changed = 1;
	else
		return;
	if (!loop_timer_pending(e->listen_act))
		loop_timer_start(e->listen_act, 0);
}

/*
 * Act on what was heard: the leader applies what was relayed (its turn
 * commits, answers and NOTIFYs); a standby answers the relayed commands
 * whose answers came and tells its consoles.  The leader begins its turn
 * first: engine_inbox then reads what is new once, under the turn's
 * lock, rather than once to see whether there is anything and again
 * under the lock (a round trip less on every relayed command; a
 * notification for a row already applied costs an empty turn).
 */
static void
listen_act(void *arg)
{
	struct engine	*e = arg;

	if (e->heard_inbox && !e->standby) {
		engine_txn(e);
		engine_inbox(e);
	}
	if (e->heard_changed && e->standby) {
		engine_server_relays(e);
		engine_server_flush(e, 1);
	}
	e->heard_inbox = e->heard_changed = 0;
}

/*
 * The connection is gone.  The leader cannot know whether it still
 * leads: it stops as superseded (engine_store_fatal).  A standby tries
 * to connect again (the primary may have crashed and another been
 * promoted), as its lock session does; its relays meanwhile wait for
 * their deadline.
 */
static void
listen_lost(struct engine *e)
{
	engine_listen_close(e);
	if (!e->standby)
		engine_store_fatal(e, store_last_error(e->store));
	fprintf(stderr, "sluice: engine: standing by: the connection that "
	    "hears the leader is gone (%s); trying again\n",
	    store_last_error(e->store));
	e->rehear_ms = RELAY_LOOK_MS;
	loop_timer_start(e->rehear, e->rehear_ms);
}

/* A standby connects again and hears the leader's commits again. */
static void
standby_rehear(void *arg)
{
	struct engine	*e = arg;
	char		*cause = NULL;

	if (store_reconnect(e->store, &cause) != 0 ||
	    engine_listen_open(e, STORE_CHANNEL_CHANGED, &cause) != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
		if (e->rehear_ms < 2000)
			e->rehear_ms *= 2;
		loop_timer_start(e->rehear, e->rehear_ms);
		return;
	}
	fprintf(stderr, "sluice: engine: standing by: hearing the leader "
	    "again\n");
	/* What committed meanwhile: tell the consoles, answer relays. */
	listen_heard(e, STORE_CHANNEL_CHANGED);
}

/*
 * A standby's shell engine on the database's open store: the socket, and
 * the leader's commits heard.  It runs and writes nothing itself.
 */
struct engine *
engine_standby_open(struct loop *loop, struct store *s, char **cause)
{
	struct engine	*e;

	e = xcalloc(1, sizeof *e);
	e->loop = loop;
	e->store = s;
	e->standby = 1;
	e->lock_fd = -1;
	e->dbpath = xstrdup(store_path(s));
	e->rehear = loop_timer_create(loop, standby_rehear, e);
	if (engine_listen_open(e, STORE_CHANNEL_CHANGED, cause) != 0) {
		engine_standby_free(e);
		return (NULL);
	}
	if (engine_server_open(e, &e->server_cause) != 0) {
		xasprintf(cause, "%s", e->server_cause);
		engine_standby_free(e);
		return (NULL);
	}
	loop_hook_add(loop, standby_flush, e);
	return (e);
}

/*
 * Before the loop sleeps: the answers queued this turn go out (the
 * engine does this after its commit; a standby has none).
 */
static void
standby_flush(void *arg)
{
	engine_server_flush(arg, 0);
}

/* Let go of a standby's shell: its clients, if it still has them. */
void
engine_standby_free(struct engine *e)
{
	if (e == NULL)
		return;
	if (e->server != NULL)
		loop_hook_del(e->loop, standby_flush, e);
	if (e->rehear != NULL)
		loop_timer_free(e->rehear);
	engine_listen_close(e);
	engine_server_close(e);
	free(e->server_cause);
	free(e->dbpath);
	free(e);
}

/*
 * This node leads now: the engine takes the standby's socket and clients
 * as they are and will hear relayed commands instead of commits; the
 * shell, left with nothing, is its caller's to free.
 */
int
engine_standby_adopt(struct engine *e, struct engine *standby, char **cause)
{
	engine_listen_close(standby);
	loop_timer_stop(standby->rehear);
	if (standby->server != NULL)
		loop_hook_del(standby->loop, standby_flush, standby);
	if (store_listen(e->store, NULL, cause) != 0)
		return (-1);
	engine_server_adopt(e, standby);
	return (0);
}

/*
 * Relay a command: its inbox row (this node's name on it) and NOTIFY, in
 * one transaction.  *id is the row, where the answer comes.
 */
int
engine_relay_post(struct engine *e, const struct store_inbox *m,
    int64_t *id, char **cause)
{
	struct store_actor	 actor;

	memset(&actor, 0, sizeof actor);
	actor.uid = (uid_t)m->uid;
	actor.user = m->who;
	actor.tty = m->tty;
	actor.host = m->host;
	actor.via = m->via;
	actor.node = engine_node_name();
	return (store_inbox_relay(e->store, &actor, m, STORE_CHANNEL_INBOX,
	    id, cause));
}

/*
 * The leader's answer to a relayed command: 1 with it in r, 0 while it
 * has none, -1 with why it cannot be read in r (answered so).
 */
int
engine_relay_answer(struct engine *e, int64_t id, struct engine_reply *r)
{
	struct store_inbox	*m;
	char			*cause = NULL;
	int			 rc;

	memset(r, 0, sizeof *r);
	if (store_inbox_get(e->store, id, &m, &cause) != 0) {
		if (store_lost(e->store)) {
			/* Connecting again: wait, up to the deadline. */
			free(cause);
			return (0);
		}
		r->code = 1;
		xasprintf(&r->message, "cannot read the leader's answer to "
		    "command %lld: %s", (long long)id, cause);
		free(cause);
		return (-1);
	}
	if (strcmp(m->state, "new") == 0) {
		store_inbox_free(m);
		return (0);
	}
	rc = m->reply != NULL ? engine_reply_read(m->reply, r) : -1;
	store_inbox_free(m);
	if (rc != 0) {
		engine_reply_clear(r);
		r->code = 1;
		xasprintf(&r->message, "the leader's answer to command %lld "
		    "is unreadable", (long long)id);
		return (-1);
	}
	return (1);
}

/* Whether a command's arguments carry secret inputs (never relayed). */
int
engine_relay_secret(const char *args_json)
{
	cJSON	*a;
	int	 secret;

	if (args_json == NULL || strstr(args_json, "secret_input") == NULL)
		return (0);
	a = cJSON_Parse(args_json);
	secret = a == NULL || cJSON_GetObjectItemCaseSensitive(a,
	    "secret_input") != NULL;
	cJSON_Delete(a);
	return (secret);
}
